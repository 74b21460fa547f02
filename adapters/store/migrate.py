"""Schema migrations with Alembic; the scripts live in ``adapters/store/migrations``."""

from __future__ import annotations

from importlib import resources

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine


def alembic_config(engine: Engine) -> Config:
    """An Alembic configuration that migrates through ``engine``."""
    config = Config()
    config.set_main_option("script_location", str(resources.files("adapters.store") / "migrations"))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Brings the schema to ``revision`` (default: the newest)."""
    command.upgrade(alembic_config(engine), revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Takes the schema back to ``revision`` (``"base"``: no tables)."""
    command.downgrade(alembic_config(engine), revision)
