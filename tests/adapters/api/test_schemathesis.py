"""schemathesis against the service's own OpenAPI document, served by a real uvicorn process.

Every generated request, valid or not, must get no 5xx, a documented status, the documented
content type and headers, and a body that matches the documented schema. The stateful phase
follows the document's links (compute → read, render, share; create item → read, replace,
delete).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.adapters.helpers import run_cli, service_env, start_server

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
    ]
)


@pytest.mark.slow
def test_responses_match_the_documented_contract(tmp_path: Path) -> None:
    env = service_env(
        tmp_path,
        PACKPLAN_RATE_PRODUCTION_PER_MINUTE="1000000",
        PACKPLAN_COMPUTE_QUEUE="8",
        PACKPLAN_COMPUTE_TIME_LIMIT_S="5",
    )
    server = start_server(env, tmp_path)
    try:
        issued = run_cli(
            "keys",
            "issue",
            "--org",
            "contract",
            "--scopes",
            "packing:compute,packing:read,catalog:read,catalog:write",
            env=env,
        )
        key = issued.stdout.strip()
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "schemathesis.cli",
                "run",
                f"{server.base_url}/api/v1/openapi.json",
                "--header",
                f"X-Api-Key: {key}",
                "--checks",
                CHECKS,
                "--mode",
                "all",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--max-examples",
                "25",
                "--generation-deterministic",
                # one worker: on Python 3.11 before 3.11.8, threads that build ASTs at once can
                # fail with "AST constructor recursion depth mismatch" (CPython gh-106905);
                # Hypothesis builds them for its strategy descriptions
                "--workers",
                "1",
                "--request-timeout",
                "60",
            ],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
            env={**env, "NO_COLOR": "1", "SCHEMATHESIS_TELEMETRY": "false"},
            cwd=tmp_path,
        )
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "passed" in run.stdout
