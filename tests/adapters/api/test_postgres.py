"""The service on PostgreSQL: the same API over the store at 127.0.0.1:5432."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from adapters.api.main import create_app
from tests.adapters.helpers import Api, make_settings, plan_body


@pytest.mark.postgres
def test_compute_and_read_back_on_postgres(postgres_url: str, tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, database_url=postgres_url))
    with TestClient(app) as client:
        api = Api(client, app.state.service)
        assert api.service.engine.dialect.name == "postgresql"
        key = api.key(sandbox=True)
        h = {"X-Api-Key": key}
        made = client.post("/api/v1/packing/compute", json=plan_body(orderRef="pg-1"), headers=h)
        assert made.status_code == 200, made.text
        plan_id = made.json()["planId"]
        got = client.get(f"/api/v1/packing/plans/{plan_id}", headers=h)
        assert got.status_code == 200 and got.json()["createdAt"].endswith("Z")
        latest = client.get("/api/v1/packing/plans", params={"orderRef": "pg-1"}, headers=h)
        assert latest.json()["planId"] == plan_id
        other = client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": api.key()})
        assert other.status_code == 404
        share = client.post(f"/api/v1/packing/plans/{plan_id}/share", headers=h)
        token = share.json()["url"].rsplit("/", 1)[1]
        assert client.get(f"/share/{token}").status_code == 200


@pytest.mark.postgres
def test_a_preflight_path_with_a_nul_loses_no_journal_entry(
    postgres_url: str, tmp_path: Path
) -> None:
    # a preflight's route is its raw path: PostgreSQL refuses NUL in text, and the whole
    # batch of entries written with it was lost
    app = create_app(make_settings(tmp_path, database_url=postgres_url, journal_flush_s=60))
    with TestClient(app) as client:
        service = app.state.service
        service.journal.flush()
        known = {row.entry.id for row in service.store.journal(limit=10_000)}
        assert client.get("/api/health").status_code == 200
        assert client.options("/api/%00x%1Fy").status_code == 204
        assert client.get("/api/health").status_code == 200
        service.journal.flush()
        new = [r.entry for r in service.store.journal(limit=10_000) if r.entry.id not in known]
        assert sorted(e.route for e in new) == ["/api/%00x%1Fy", "/api/health", "/api/health"]
