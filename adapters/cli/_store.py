"""The store the CLI works on: the service's database, migrated to the newest schema."""

from __future__ import annotations

from adapters.api.settings import Settings
from adapters.store import Store, database_url, make_engine, upgrade


def open_store(settings: Settings | None = None) -> Store:
    """The store named by ``DATABASE_URL`` / ``PACKPLAN_SQLITE_PATH``, schema upgraded."""
    config = settings or Settings()
    engine = make_engine(database_url(config.database_url, config.sqlite_path))
    upgrade(engine)
    return Store(engine)
