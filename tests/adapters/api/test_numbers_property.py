"""Property: no number in a compute body gets a 5xx.

Every numeric field of the contract's compute input takes literals written into the raw JSON:
zero and negative zero, subnormals, the largest floats and past them, negative values, huge
integers, integer-valued floats, and the ``NaN``/``Infinity`` literals JSON does not have.
Whatever the combination, the answer is a 200, a 400 (not JSON) or a 422 on the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.api.main import create_app
from tests.adapters.helpers import Api, cargo, make_settings, plan_body

#: The numeric fields of PackingPlanInput, as paths into the body below.
FIELDS = [
    ("cargos", 0, "lengthCm"),
    ("cargos", 0, "widthCm"),
    ("cargos", 0, "heightCm"),
    ("cargos", 0, "weightKg"),
    ("cargos", 0, "quantity"),
    ("cargos", 0, "rules", "unloadPriority"),
    ("transitHours",),
    ("options", "maxContainers"),
    ("options", "packingBudgetMs"),
]

EDGES = [
    "0", "-0", "0.0", "-0.0", "0e0", "1", "-1", "2.0", "-2.0", "1e2", "1E+2", "100.00",
    "5e-324", "-5e-324", "1e-310", "2.2250738585072014e-308", "2.2250738585072011e-308",
    "1e-300", "1.7976931348623157e308", "-1.7976931348623157e308", "1e308", "1e309", "-1e309",
    "1e400", "1" + "0" * 30, "-" + "9" * 40, "1" + "0" * 400, "123456789.000000001",
    "NaN", "-NaN", "Infinity", "-Infinity",
]  # fmt: skip

literals = st.one_of(
    st.sampled_from(EDGES),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.integers(min_value=-(10**6), max_value=10**6).map(lambda i: f"{i}.0"),
)


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, str]]:
    """An app with a short planning budget, and a sandbox key (mock thermal data).

    The grace is long: a computation stopped past its budget is a designed 500, and the planner
    may take several seconds past a 1 s budget for thousands of pieces.
    """
    settings = make_settings(
        tmp_path_factory.mktemp("numbers"),
        compute_time_limit_s=1,
        compute_grace_s=60,
        rate_sandbox_per_minute=100_000,
        quota_sandbox_per_day=1_000_000,
    )
    app = create_app(settings)
    with TestClient(app) as client:
        api = Api(client, app.state.service)
        yield api, api.key("packing:compute", sandbox=True)


def _body(scenario: str, chosen: dict[tuple[Any, ...], str]) -> str:
    body = plan_body(
        scenario=scenario,
        cargos=[cargo("a", rules={"unloadPriority": 0})],
        options={"maxContainers": 3, "packingBudgetMs": 1000, "useMockThermal": True},
    )
    for n, path in enumerate(chosen):
        target: Any = body
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = f"@@{n}@@"
    text = json.dumps(body)
    for n, literal in enumerate(chosen.values()):
        text = text.replace(f'"@@{n}@@"', literal)
    return text


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=st.sampled_from(["PLAIN", "THERMO"]),
    chosen=st.dictionaries(st.sampled_from(FIELDS), literals, min_size=1, max_size=3),
)
def test_no_number_gets_a_5xx(
    quick: tuple[Api, str], scenario: str, chosen: dict[tuple[Any, ...], str]
) -> None:
    api, key = quick
    response = api.client.post(
        "/api/v1/packing/compute",
        content=_body(scenario, chosen),
        headers={"X-Api-Key": key, "Content-Type": "application/json"},
    )
    assert response.status_code in (200, 400, 422), (chosen, response.status_code, response.text)
    body = response.json()
    if response.status_code == 200:
        assert body["planId"].startswith("pln_")
    elif response.status_code == 422:
        assert body["error"] == "validation_failed" and body["fieldErrors"]
    else:
        assert set(body) == {"error"}
