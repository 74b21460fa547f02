"""The service as a real uvicorn process: keys from the CLI, the journal, Redis-shared limits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.adapters.helpers import (
    Server,
    plan_body,
    run_cli,
    service_env,
    start_server,
    wait_for,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("served")
    env = service_env(tmp)
    server = start_server(env, tmp)
    try:
        yield server, env
    finally:
        server.stop()


def _issue(env: dict[str, str], org: str, scopes: str, *flags: str) -> str:
    done = run_cli("keys", "issue", "--org", org, "--scopes", scopes, *flags, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, "the key is printed alone on stdout"
    return lines[0]


def test_a_real_server_answers_with_cli_issued_keys(served: tuple[Server, dict[str, str]]) -> None:
    server, env = served
    key = _issue(env, "acme", "packing:read,catalog:read")
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        assert client.get("/api/health").json() == {"status": "ok"}
        doc = client.get("/api/v1/openapi.json").json()
        assert doc["openapi"].startswith("3.1") and doc["info"]["version"] == "1.1.0"
        ok = client.get("/api/v1/catalog/containers", headers={"X-Api-Key": key})
        assert ok.status_code == 200 and ok.json()["containers"]
        denied = client.post(
            "/api/v1/packing/compute", json=plan_body(), headers={"X-Api-Key": key}
        )
        assert denied.status_code == 403 and denied.json() == {"error": "scope_denied"}
        missing = client.get("/api/v1/packing/plans/pln_none", headers={"X-Api-Key": key})
        assert missing.status_code == 404

        listed = run_cli("keys", "list", "--org", "acme", env=env)
        key_id = next(line.split()[0] for line in listed.stdout.splitlines() if key[:12] in line)
        assert key not in listed.stdout, "listings never show the secret"
        revoked = run_cli("keys", "revoke", key_id, env=env)
        assert revoked.returncode == 0, revoked.stderr
        after = client.get("/api/v1/catalog/containers", headers={"X-Api-Key": key})
        assert after.status_code == 401 and after.json() == {"error": "auth_invalid"}


def test_journal_records_requests_without_secrets(served: tuple[Server, dict[str, str]]) -> None:
    server, env = served
    key = _issue(env, "journal-org", "catalog:read")
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        client.get("/api/v1/catalog/containers", headers={"X-Api-Key": key})
        client.get("/api/v1/catalog/containers", headers={"X-Api-Key": "tbp_wrong"})

    # the journal is written in batches every 0.1 s here: read it until both are in
    out: list[str] = []

    def both_written() -> bool:
        done = run_cli("journal", "--json", "--limit", "20", env=env)
        assert done.returncode == 0, done.stderr
        out[:] = [done.stdout]
        rows = [json.loads(line) for line in done.stdout.splitlines()]
        # newest first: the wrong key's 401 last, the organisation's 200 before it
        return any(e["organisation"] == "journal-org" for e in rows) and rows[0]["status"] == 401

    wait_for(both_written, "the journal holds both requests")
    (stdout,) = out
    entries = [json.loads(line) for line in stdout.splitlines()]
    mine = [e for e in entries if e["organisation"] == "journal-org"]
    assert mine and mine[0]["route"] == "/api/v1/catalog/containers"
    assert mine[0]["status"] == 200 and mine[0]["keyId"].startswith("key_")
    assert mine[0]["durationMs"] >= 0
    assert any(e["status"] == 401 and e["keyId"] is None for e in entries)
    assert key not in stdout and "tbp_wrong" not in stdout


@pytest.mark.redis
def test_two_processes_share_one_rate_limit_through_redis(redis_url: str, tmp_path: Path) -> None:
    env = service_env(tmp_path, REDIS_URL=redis_url, PACKPLAN_RATE_PRODUCTION_PER_MINUTE="4")
    first = start_server(env, tmp_path)
    try:
        second = start_server(env, tmp_path)
    except BaseException:
        first.stop()
        raise
    try:
        key = _issue(env, "shared-limit", "packing:compute")
        statuses = []
        for i in range(6):
            server = (first, second)[i % 2]
            response = httpx.post(
                server.base_url + "/api/v1/packing/compute",
                content=b"{not json",
                headers={"X-Api-Key": key},
                timeout=30,
            )
            statuses.append(response.status_code)
        assert statuses == [400, 400, 400, 400, 429, 429]
        assert int(response.headers["Retry-After"]) >= 1
    finally:
        first.stop()
        second.stop()


def test_parallel_computes_lose_no_plan(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from adapters.store import Store, database_url, make_engine

    env = service_env(
        tmp_path, PACKPLAN_RATE_PRODUCTION_PER_MINUTE="24", PACKPLAN_COMPUTE_QUEUE="1"
    )
    server = start_server(env, tmp_path)
    try:
        key = _issue(env, "parallel", "packing:compute,packing:read")
        bodies = [
            plan_body(
                orderRef=f"p-{i}", cargos=[{**plan_body()["cargos"][0], "quantity": 1 + i % 5}]
            )
            for i in range(32)
        ]

        def post(body: dict[str, object]) -> httpx.Response:
            return httpx.post(
                server.base_url + "/api/v1/packing/compute",
                json=body,
                headers={"X-Api-Key": key},
                timeout=120,
            )

        with ThreadPoolExecutor(max_workers=16) as pool:
            responses = list(pool.map(post, bodies))
        statuses = [r.status_code for r in responses]
        assert set(statuses) <= {200, 429, 503}, statuses
        assert statuses.count(429) == 32 - 24
        for r in responses:
            if r.status_code in (429, 503):
                assert int(r.headers["Retry-After"]) == r.json()["retryAfterSec"] >= 1
        ok = [r.json()["planId"] for r in responses if r.status_code == 200]
        assert ok, statuses
        with httpx.Client(base_url=server.base_url, timeout=30) as client:
            for plan_id in ok:
                got = client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": key})
                assert got.status_code == 200
        engine = make_engine(database_url(None, env["PACKPLAN_SQLITE_PATH"]))
        store = Store(engine)
        org = store.organisation("parallel", create=False)
        assert org is not None and store.count_plans(org.id) == len(ok)
        engine.dispose()
    finally:
        server.stop()
