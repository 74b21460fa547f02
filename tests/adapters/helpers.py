"""Helpers of the adapter tests: settings, keys, sample plans, the real servers.

PostgreSQL and Redis are the servers at 127.0.0.1 (CI runs them); a test that needs one and
cannot reach it fails with a message saying so.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from adapters.api.compute import ComputeOutcome, Lane, compute_in_worker
from adapters.api.service import Service
from adapters.api.settings import Settings
from adapters.planning.schemas import (
    CombinedModeReport,
    CombinedPackingPlanResult,
    ContainerAllocation,
    ContainerMetrics,
    ItemPlacement,
    PackingPlanInput,
    PackingSummary,
    ThermalFilterResult,
    ThermalProfileUsed,
)

POSTGRES_HOST, POSTGRES_PORT = "127.0.0.1", 5432
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
REDIS_URL = f"redis://{REDIS_HOST}:{REDIS_PORT}/0"
ALL_SCOPES = ("packing:compute", "packing:read", "catalog:read", "catalog:write")


def require_server(host: str, port: int, what: str) -> None:
    """Fails the test (never skips) when the server is not reachable."""
    try:
        with socket.create_connection((host, port), timeout=2):
            return
    except OSError as exc:
        pytest.fail(f"{what} at {host}:{port} is not reachable ({exc}); these tests need it", False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cargo(item_id: str = "a", **overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": item_id,
        "name": f"Box {item_id}",
        "lengthCm": 10,
        "widthCm": 8,
        "heightCm": 6,
        "weightKg": 0.5,
        "quantity": 2,
        "temperatureMode": "PLUS_2_8",
    }
    item.update(overrides)
    return item


def plan_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "planTitle": "Vaccines",
        "originCity": "Berlin",
        "destinationCity": "Munich",
        "transitHours": 24,
        "scenario": "PLAIN",
        "cargos": [cargo()],
    }
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


def sample_result() -> CombinedPackingPlanResult:
    """A contract-valid result of two pieces in one container."""
    return CombinedPackingPlanResult(
        feasible=True,
        temperatureModes=["PLUS_2_8"],
        modes=[
            CombinedModeReport(
                temperatureMode="PLUS_2_8",
                feasible=True,
                transitHoursUsed=24,
                thermalFilter=ThermalFilterResult(),
                requestedCount=2,
                placedCount=2,
            )
        ],
        containers=[
            ContainerAllocation(
                containerSlug="box-10l",
                containerTitle="Box 10 L",
                containerIndex=0,
                count=1,
                coolant=None,
                thermalProfileUsed=ThermalProfileUsed(
                    mode="NONE",
                    holdHoursAtRefAmbient=0,
                    thermalCapacityDegreeHours=0,
                    requiredLoadDegreeHours=0,
                ),
                innerUsableMm=[300, 200, 200],
                loadingSide="TOP",
                cargoWeightKg=1.0,
                tareWithCoolantKg=2.0,
                totalWeightKg=3.0,
                metrics=ContainerMetrics(volumeUtilization=0.08, itemCount=2),
            )
        ],
        placements=[
            ItemPlacement(
                cargoItemId="a",
                instanceIndex=i,
                containerIndex=0,
                positionMm=[100 * i, 0, 0],
                rotation=[0, 0, 0],
                dimensionsMm=[100, 60, 80],
                loadStep=i + 1,
                color="#1f77b4",
            )
            for i in range(2)
        ],
        unplacedItems=[],
        summary=PackingSummary(byContainerType={"box-10l": 1}, totalPlaced=2, totalRequested=2),
    )


@dataclass
class Api:
    """A running app in-process, with helpers to make keys and plans."""

    client: TestClient
    service: Service

    def key(self, *scopes: str, org: str | None = None, sandbox: bool = False) -> str:
        _, secret = self.service.store.issue_key(
            org or new_org(), scopes or ALL_SCOPES, sandbox=sandbox
        )
        return secret

    def org_id(self, secret: str) -> int:
        info = self.service.store.authenticate(secret)
        assert info is not None
        return info.organisation_id

    def stored_plan(
        self, secret: str, order_ref: str | None = None, title: str | None = None
    ) -> str:
        """Stores a plan for the key's organisation straight through the store."""
        plan_input = PackingPlanInput.model_validate(
            plan_body(orderRef=order_ref or "ord-1", planTitle=title or "Vaccines")
        )
        plan = self.service.store.save_plan(
            self.org_id(secret),
            input_json=plan_input.model_dump_json(exclude_none=True),
            result_json=sample_result().model_dump_json(),
            external_ref=plan_input.orderRef,
        )
        return plan.plan_id


def misbehaving_task(
    input_json: str, use_mock_thermal: bool, time_limit_s: float, lane: Lane | None = None
) -> ComputeOutcome:
    """A compute pool task: :func:`compute_in_worker`, except for some plan titles.

    ``"crash"`` ends the worker process at once, as a crash in native code would; ``"stuck"``
    never returns; ``"stuck:<folder>"`` creates ``<folder>/started`` first, so a test knows
    the worker is running it. It lives here so that worker processes can import it.
    """
    title = json.loads(input_json).get("planTitle") or ""
    if title == "crash":
        os._exit(3)
    if title.startswith("stuck:"):
        (Path(title[len("stuck:") :]) / "started").touch()
        title = "stuck"
    while title == "stuck":
        time.sleep(0.05)
    return compute_in_worker(input_json, use_mock_thermal, time_limit_s, lane)


def misbehaving_render(record_json: str, mode: str) -> bytes:
    """A render pool task: :func:`render_in_worker`, except for some plan titles.

    ``"crash"`` ends the worker at once; ``"stuck"`` never returns; ``"hold:<folder>"`` creates
    ``<folder>/started`` and waits until ``<folder>/release`` exists.
    """
    from adapters.api.render import render_in_worker

    title = json.loads(record_json)["input"].get("planTitle", "")
    if title == "crash":
        os._exit(3)
    if title.startswith("hold:"):
        folder = Path(title[len("hold:") :])
        (folder / "started").touch()
        while not (folder / "release").exists():
            time.sleep(0.05)
    while title == "stuck":
        time.sleep(0.05)
    return render_in_worker(record_json, mode)


def wait_for(check: Callable[[], bool], what: str, bound_s: float = 120) -> None:
    """Polls ``check`` until it is true; fails after ``bound_s`` (a bound, not a timing)."""
    deadline = time.monotonic() + bound_s
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {bound_s} s")
        time.sleep(0.1)


def new_org() -> str:
    return "org-" + secrets.token_hex(4)


def make_settings(tmp: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": None,
        "sqlite_path": str(tmp / "packplan.sqlite3"),
        "redis_url": None,
        "compute_workers": 1,
        "compute_queue": 1,
        "rate_sandbox_per_minute": 1000,
        "rate_production_per_minute": 1000,
        "journal_flush_s": 0.05,
        # TestClient sends "Host: testserver", which the default allowed hosts refuse
        "allowed_hosts": "testserver",
    }
    values.update(overrides)
    return Settings(**values)


def postgres_admin_url(database: str = "test") -> str:
    return f"postgresql://postgres@{POSTGRES_HOST}:{POSTGRES_PORT}/{database}"


def create_postgres_database() -> str:
    """A fresh, uniquely named database on the test server; returns its name."""
    import psycopg

    require_server(POSTGRES_HOST, POSTGRES_PORT, "PostgreSQL")
    name = "packplan_test_" + secrets.token_hex(6)
    with psycopg.connect(postgres_admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_postgres_database(name: str) -> None:
    import psycopg

    with psycopg.connect(postgres_admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


CLI = [sys.executable, "-c", "import sys; from adapters.cli import main; sys.exit(main())"]


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs ``packplan ARGS`` in a fresh process."""
    return subprocess.run(
        [*CLI, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


@dataclass
class Server:
    """A ``packplan serve`` process on a free port."""

    process: subprocess.Popen[bytes]
    base_url: str
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def service_env(tmp: Path, **settings: str) -> dict[str, str]:
    """Environment of a service process: SQLite in ``tmp`` unless settings say otherwise."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["PACKPLAN_SQLITE_PATH"] = str(tmp / "packplan.sqlite3")
    env["PACKPLAN_COMPUTE_WORKERS"] = "1"
    env["PACKPLAN_JOURNAL_FLUSH_S"] = "0.1"
    env.update(settings)
    return env


def start_server(env: dict[str, str], log_dir: Path, *extra: str) -> Server:
    """Starts ``packplan serve`` and waits until /api/health answers."""
    port = free_port()
    log_path = log_dir / f"server-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port), *extra],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = Server(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            if httpx.get(server.base_url + "/api/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"the server did not start:\n{log_path.read_text()}")


def rate_task(
    input_json: str, use_mock_thermal: bool, time_limit_s: float, lane: Lane | None = None
) -> int:
    """A compute pool task that answers the work units a second of budget buys in the
    worker (it lives here so that worker processes can import it)."""
    from packing.strategies.base import Budget

    return Budget.RATE


def gc_task(
    input_json: str, use_mock_thermal: bool, time_limit_s: float, lane: Lane | None = None
) -> tuple[tuple[int, ...], int]:
    """A compute pool task that answers the worker's garbage collector thresholds and the
    objects frozen out of its collections."""
    import gc

    return gc.get_threshold(), gc.get_freeze_count()
