"""A configured Redis that does not answer, and a database that does not: a warning at start,
a degraded health answer, computes refused with 503 and Retry-After, never a bare 500."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.api.main import create_app
from tests.adapters.helpers import Api, free_port, make_settings, plan_body


@pytest.fixture(scope="module")
def no_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, str]]:
    """An app whose REDIS_URL names a local port nothing listens on; the start's log."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.WARNING)
    logging.getLogger("adapters").addHandler(handler)
    try:
        settings = make_settings(
            tmp_path_factory.mktemp("no-redis"), redis_url=f"redis://127.0.0.1:{free_port()}/0"
        )
        app = create_app(settings)
        with TestClient(app) as client:
            started = "\n".join(r.getMessage() for r in records)
            yield Api(client, app.state.service), started
    finally:
        logging.getLogger("adapters").removeHandler(handler)


def test_start_warns_that_redis_does_not_answer(no_redis: tuple[Api, str]) -> None:
    _, started = no_redis
    assert "REDIS_URL is set but Redis does not answer" in started


def test_health_is_degraded_without_redis(no_redis: tuple[Api, str]) -> None:
    api, _ = no_redis
    response = api.client.get("/api/health")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert [p.split(":")[0] for p in body["problems"]] == ["redis"]
    assert "127.0.0.1" not in response.text, "the public answer names no internal address"


def test_computes_are_refused_with_retry_after_without_redis(no_redis: tuple[Api, str]) -> None:
    api, _ = no_redis
    key = api.key()
    for body in (plan_body(), {"not": "checked"}):
        response = api.client.post("/api/v1/packing/compute", json=body, headers={"X-Api-Key": key})
        assert response.status_code == 503
        seconds = api.service.settings.busy_retry_after_s
        assert response.json() == {"error": "compute_capacity_exceeded", "retryAfterSec": seconds}
        assert response.headers["Retry-After"] == str(seconds)
    # the rest of the service does not need Redis
    plan_id = api.stored_plan(key)
    got = api.client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": key})
    assert got.status_code == 200
    # 401 and 403 still come first
    assert api.client.post("/api/v1/packing/compute", json=plan_body()).status_code == 401


@pytest.mark.redis
def test_health_is_ok_with_a_live_redis(redis_url: str, tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path, redis_url=redis_url))) as client:
        assert client.get("/api/health").json() == {"status": "ok"}


def test_health_is_degraded_when_the_database_does_not_answer(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*args: Any) -> None:
        raise ConnectionRefusedError("database at 10.0.0.7:5432 refused")

    monkeypatch.setattr(api.service.store, "ping", down)
    response = api.client.get("/api/health")
    assert response.status_code == 503
    assert response.json() == {"status": "degraded", "problems": ["database: unreachable"]}
    monkeypatch.undo()
    assert api.client.get("/api/health").status_code == 200


@pytest.mark.postgres
def test_health_is_degraded_when_postgres_is_gone(postgres_url: str, tmp_path: Path) -> None:
    """A real PostgreSQL database, dropped under the running service."""
    from tests.adapters.helpers import create_postgres_database, drop_postgres_database

    name = create_postgres_database()
    url = postgres_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        with TestClient(create_app(make_settings(tmp_path, database_url=url))) as client:
            assert client.get("/api/health").status_code == 200
            client.app.state.service.engine.dispose()  # type: ignore[attr-defined]
            drop_postgres_database(name)
            response = client.get("/api/health")
            assert response.status_code == 503
            assert response.json()["problems"] == ["database: unreachable"]
    finally:
        drop_postgres_database(name)
