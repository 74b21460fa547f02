"""Alembic environment: migrates through the engine handed over in ``config.attributes``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine
from sqlmodel import SQLModel

import adapters.store.models  # noqa: F401  (registers the tables on the metadata)

target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    engine = context.config.attributes.get("engine")
    if not isinstance(engine, Engine):
        raise RuntimeError("adapters.store.migrate passes the engine; run migrations through it")
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
