"""Fixtures of the adapter tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from adapters.api.main import create_app
from tests.adapters.helpers import (
    POSTGRES_HOST,
    POSTGRES_PORT,
    REDIS_HOST,
    REDIS_PORT,
    REDIS_URL,
    Api,
    create_postgres_database,
    drop_postgres_database,
    make_settings,
    require_server,
)


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    app = create_app(make_settings(tmp_path_factory.mktemp("api")))
    with TestClient(app) as client:
        yield Api(client, app.state.service)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """URL of a fresh PostgreSQL database for this test session, dropped afterwards."""
    name = create_postgres_database()
    try:
        yield f"postgresql://postgres@{POSTGRES_HOST}:{POSTGRES_PORT}/{name}"
    finally:
        drop_postgres_database(name)


@pytest.fixture(scope="session")
def redis_url() -> str:
    require_server(REDIS_HOST, REDIS_PORT, "Redis")
    return REDIS_URL
