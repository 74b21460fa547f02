"""Database engine from ``DATABASE_URL``: SQLite by default, PostgreSQL when the URL names it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

#: Where the SQLite database lives when neither ``DATABASE_URL`` nor a path is given.
DEFAULT_SQLITE_PATH = Path("var") / "packplan.sqlite3"


def database_url(url: str | None = None, sqlite_path: str | Path | None = None) -> str:
    """The SQLAlchemy URL to use.

    Parameters
    ----------
    url : str, optional
        ``DATABASE_URL``; ``postgresql://`` and ``postgres://`` are served by psycopg 3.
    sqlite_path : str or Path, optional
        File of the SQLite database when ``url`` is empty; default ``./var/packplan.sqlite3``.
    """
    if url:
        parsed = make_url(url.replace("postgres://", "postgresql://", 1))
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        return parsed.render_as_string(hide_password=False)
    path = Path(sqlite_path) if sqlite_path else DEFAULT_SQLITE_PATH
    return f"sqlite:///{path}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


#: How long opening a PostgreSQL connection may take [s].
CONNECT_TIMEOUT_S = 5


def make_engine(url: str) -> Engine:
    """An engine for ``url`` (see :func:`database_url`); creates the SQLite file's folder.

    Errors never quote the statement's parameters (``hide_parameters``): they may hold
    callers' data, and errors end up in logs.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_pre_ping=True,
            hide_parameters=True,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(
        url,
        pool_size=10,
        max_overflow=10,
        pool_pre_ping=True,
        hide_parameters=True,
        connect_args={"connect_timeout": CONNECT_TIMEOUT_S},
    )
