"""Storage of plans, keys, share links, the SKU catalog, quotas and the request journal.

SQLite by default, PostgreSQL when ``DATABASE_URL`` names it; the schema is migrated with
Alembic (:func:`adapters.store.migrate.upgrade`).
"""

from adapters.store.engine import database_url, make_engine
from adapters.store.migrate import upgrade
from adapters.store.store import SCOPES, KeyInfo, Store, UnknownScopeError

__all__ = [
    "SCOPES",
    "KeyInfo",
    "Store",
    "UnknownScopeError",
    "database_url",
    "make_engine",
    "upgrade",
]
