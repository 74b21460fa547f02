"""A real ``packplan serve`` process, killed in the middle of a computation: its worker processes
end with it, and the quota it had reserved is given back when the service starts again."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import threading
from pathlib import Path

import httpx
import pytest

from adapters.api.limiting import quota_period
from adapters.store import Store, database_url, make_engine
from tests.adapters.helpers import (
    cargo,
    plan_body,
    run_cli,
    service_env,
    start_server,
    wait_for,
)

PROC = Path("/proc")


def _stat(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces; it ends at the last ")"
    return [str(pid), "comm", *text[text.rindex(")") + 2 :].split()]


def _descendants(root: int) -> dict[int, str]:
    """Processes below ``root``: pid to start time (to tell a reused pid apart)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[3]), []).append(int(entry.name))
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            fields = _stat(child)
            if fields is not None:
                found[child] = fields[21]
                todo.append(child)
    return found


def _cpu_ticks(pid: int) -> int:
    """User and system CPU time of ``pid`` in clock ticks (0 once it is gone)."""
    fields = _stat(pid)
    return 0 if fields is None else int(fields[13]) + int(fields[14])


def _running(pid: int, started: str) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[21] == started and fields[2] != "Z"


@pytest.mark.skipif(not (PROC / "self" / "stat").exists(), reason="reads /proc (Linux)")
def test_a_killed_server_takes_its_workers_along_and_gives_its_quota_back(
    tmp_path: Path,
) -> None:
    env = service_env(
        tmp_path,
        PACKPLAN_COMPUTE_TIME_LIMIT_S="60",
        PACKPLAN_COMPUTE_GRACE_S="30",
        PACKPLAN_RENDER_WORKERS="1",
    )
    issued = run_cli("keys", "issue", "--org", "killed", "--scopes", "packing:compute", env=env)
    assert issued.returncode == 0, issued.stderr
    key = issued.stdout.strip()
    engine = make_engine(database_url(None, env["PACKPLAN_SQLITE_PATH"]))
    store = Store(engine)
    org = store.organisation("killed", create=False)
    assert org is not None and org.id is not None
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=False)

    server = start_server(env, tmp_path)
    try:
        # a computation that takes many seconds: 5,000 pieces of 100 kinds
        heavy = plan_body(
            cargos=[
                cargo(f"c{i}", lengthCm=10 + i % 17, widthCm=8 + i % 13, quantity=50)
                for i in range(100)
            ]
        )

        def post() -> None:
            with contextlib.suppress(httpx.HTTPError):  # the server is killed under it
                httpx.post(
                    server.base_url + "/api/v1/packing/compute",
                    json=heavy,
                    headers={"X-Api-Key": key},
                    timeout=180,
                )

        request = threading.Thread(target=post, daemon=True)
        request.start()
        wait_for(lambda: len(store.reservations()) == 1, "the computation reserved its quota")
        workers = _descendants(server.process.pid)
        assert len(workers) >= 2, "compute and render workers run below the server"
        # kill only once a worker is busy computing (an idle worker would end anyway when the
        # server's end of its pipe closes): it has used a CPU second more than just now
        before = {pid: _cpu_ticks(pid) for pid in workers}
        wait_for(
            lambda: any(_cpu_ticks(pid) - ticks >= 100 for pid, ticks in before.items()),
            "a worker computes",
        )

        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=60)
        wait_for(
            lambda: not any(_running(pid, started) for pid, started in workers.items()),
            "every worker process of the killed server ended",
            bound_s=10,  # workers look for their server every 0.5 s; this computation needs 20+ s
        )
        request.join(timeout=60)
        assert store.quota_used(org.id, period) == 1, "the killed request still holds its quota"
        assert len(store.reservations()) == 1
    finally:
        server.stop()

    again = start_server(env, tmp_path)
    try:
        assert store.reservations() == []
        assert store.quota_used(org.id, period) == 0, "given back at the next start"
        with httpx.Client(base_url=again.base_url, timeout=120) as client:
            done = client.post(
                "/api/v1/packing/compute", json=plan_body(), headers={"X-Api-Key": key}
            )
            assert done.status_code == 200, done.text
        assert store.quota_used(org.id, period) == 1 and store.reservations() == []
        log = again.log_path.read_text()
        assert "gave back 1 quota reservations" in log
    finally:
        again.stop()
        engine.dispose()


def test_a_real_server_refuses_a_foreign_host(tmp_path: Path) -> None:
    server = start_server(service_env(tmp_path), tmp_path)
    try:
        foreign = httpx.get(
            server.base_url + "/api/health", headers={"Host": "evil.example"}, timeout=30
        )
        assert foreign.status_code == 400 and set(foreign.json()) == {"error"}
        local = httpx.get(
            server.base_url + "/api/health", headers={"Host": "localhost:1"}, timeout=30
        )
        assert local.status_code == 200
    finally:
        server.stop()


def test_a_real_server_answers_a_request_it_cannot_parse_with_a_json_400(tmp_path: Path) -> None:
    # uvicorn refuses two Host headers (or a malformed header) before the application runs;
    # the service's protocol gives that 400 the contract's JSON body too
    import json
    import socket
    from urllib.parse import urlsplit

    server = start_server(service_env(tmp_path), tmp_path)
    try:
        url = urlsplit(server.base_url)
        for request in (
            b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n",
            b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n",
        ):
            with socket.create_connection((url.hostname, url.port), timeout=30) as s:
                s.sendall(request)
                raw = b""
                while chunk := s.recv(65536):
                    raw += chunk
            head, _, body = raw.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            assert lines[0].startswith("HTTP/1.1 400"), raw
            assert "content-type: application/json" in [h.lower() for h in lines[1:]]
            assert set(json.loads(body)) == {"error"}
        # and the server still serves
        assert httpx.get(server.base_url + "/api/health", timeout=30).status_code == 200
    finally:
        server.stop()
