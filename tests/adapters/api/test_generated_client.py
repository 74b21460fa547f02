"""A client generated from the served OpenAPI document works against a running service.

``openapi-python-client`` writes a Python package from ``GET /api/v1/openapi.json``; the test
imports it and computes a plan, reads it back by id and by order number, lists the container
catalog and reads a documented error body, all through the generated code.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from tests.adapters.helpers import plan_body, run_cli, service_env, start_server

PACKAGE = "packplan_client"


@pytest.fixture
def generated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """(base URL, key) of a running service whose generated client is importable."""
    env = service_env(tmp_path)
    server = start_server(env, tmp_path)
    try:
        scopes = "packing:compute,packing:read,catalog:read"
        issued = run_cli("keys", "issue", "--org", "gen", "--scopes", scopes, "--sandbox", env=env)
        assert issued.returncode == 0, issued.stderr
        document = tmp_path / "openapi.json"
        document.write_bytes(httpx.get(server.base_url + "/api/v1/openapi.json").content)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "openapi_python_client",
                "generate",
                "--path",
                str(document),
                "--meta",
                "none",
                "--output-path",
                str(tmp_path / PACKAGE),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        monkeypatch.syspath_prepend(str(tmp_path))
        yield server.base_url, issued.stdout.strip()
    finally:
        server.stop()
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}")


@pytest.mark.slow
def test_a_generated_client_computes_and_reads_back(generated: tuple[str, str]) -> None:
    base_url, key = generated
    client_module = _module("client")
    models = _module("models")
    compute = _module("api.packing.compute_packing_plan")
    get_plan = _module("api.packing.get_packing_plan")
    find_plan = _module("api.packing.find_plan_by_order_ref")
    containers = _module("api.catalog.list_catalog_containers")

    client = client_module.AuthenticatedClient(
        base_url=base_url, token=key, prefix="", auth_header_name="X-Api-Key", timeout=60
    )
    with client:
        body = models.PackingPlanInput.from_dict(plan_body(orderRef="gen-1"))
        result = compute.sync(client=client, body=body)
        assert isinstance(result, models.ComputePackingResponse), result
        assert result.summary.total_requested == 2
        assert result.summary.total_placed == 2 and result.feasible is True

        record = get_plan.sync(client=client, id=result.plan_id)
        assert isinstance(record, models.PackingPlanRecord), record
        assert record.plan_id == result.plan_id and record.external_ref == "gen-1"
        assert record.input_.cargos[0]["lengthCm"] == 10
        assert [p.to_dict() for p in record.result.placements] == [
            p.to_dict() for p in result.placements
        ]

        latest = find_plan.sync(client=client, order_ref="gen-1")
        assert isinstance(latest, models.PackingPlanRecord) and latest.plan_id == result.plan_id

        listing = containers.sync(client=client)
        assert isinstance(listing, models.ContainerList) and listing.containers

        missing = get_plan.sync(client=client, id="pln_missing")
        assert isinstance(missing, models.ErrorBody) and "plan" in missing.error.lower()

    stranger = client_module.Client(base_url=base_url, headers={"X-Api-Key": "tbp_wrong"})
    with stranger:
        denied = compute.sync(client=stranger, body=body)
        assert isinstance(denied, models.ErrorBody) and denied.error == "auth_invalid"
