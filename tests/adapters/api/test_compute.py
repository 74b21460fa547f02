"""Compute over HTTP: plans saved and read back, SKU references, planner 422s, quotas."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from adapters.api.limiting import quota_period
from adapters.planning.schemas import ComputePackingResponse
from tests.adapters.helpers import Api, cargo, plan_body

COMPUTE = "/api/v1/packing/compute"


def _compute(api: Api, key: str, body: dict[str, Any]) -> Any:
    return api.client.post(COMPUTE, json=body, headers={"X-Api-Key": key})


@pytest.mark.parametrize("scenario", ["PLAIN", "THERMO", "PALLET"])
def test_compute_saves_the_plan_it_returns(api: Api, scenario: str) -> None:
    key = api.key("packing:compute", "packing:read", sandbox=True)
    body = plan_body(scenario=scenario, orderRef=f"ord-{scenario}")
    response = _compute(api, key, body)
    assert response.status_code == 200, response.text
    result = response.json()
    ComputePackingResponse.model_validate(result)
    plan_id = result.pop("planId")
    assert plan_id.startswith("pln_") and len(plan_id) >= 4 + 16
    assert result["summary"]["totalRequested"] == 2
    stored = api.client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": key})
    assert stored.status_code == 200
    record = stored.json()
    assert record["result"] == result
    assert record["externalRef"] == f"ord-{scenario}"
    assert record["input"]["cargos"][0]["lengthCm"] == 10
    by_ref = api.client.get(
        "/api/v1/packing/plans", params={"orderRef": f"ord-{scenario}"}, headers={"X-Api-Key": key}
    )
    assert by_ref.json()["planId"] == plan_id


def test_domain_problems_are_200_and_saved(api: Api) -> None:
    key = api.key("packing:compute", "packing:read", sandbox=True)
    huge = cargo("big", lengthCm=5000, widthCm=5000, heightCm=5000, quantity=1)
    response = _compute(api, key, plan_body(cargos=[huge]))
    assert response.status_code == 200
    body = response.json()
    assert body["feasible"] is False and body["unplacedItems"]
    assert body["unplacedItems"][0]["reason"]
    stored = api.client.get(f"/api/v1/packing/plans/{body['planId']}", headers={"X-Api-Key": key})
    assert stored.status_code == 200


def test_sku_references_are_filled_from_the_catalog(api: Api) -> None:
    key = api.key(sandbox=True)
    item = {
        "sku": "VAX-10",
        "name": "Vaccine carton",
        "lengthCm": 12,
        "widthCm": 9,
        "heightCm": 7,
        "weightKg": 0.4,
        "temperatureMode": "PLUS_2_8",
    }
    h = {"X-Api-Key": key}
    assert api.client.post("/api/v1/catalog/cargo-items", json=item, headers=h).status_code == 201
    cargos = [
        {"id": "c1", "sku": "VAX-10", "quantity": 3},
        {"id": "c2", "sku": "VAX-10", "quantity": 1, "name": "Spare carton", "weightKg": 1.0},
    ]
    response = _compute(api, key, plan_body(cargos=cargos))
    assert response.status_code == 200, response.text
    record = api.client.get(f"/api/v1/packing/plans/{response.json()['planId']}", headers=h)
    first, second = record.json()["input"]["cargos"]
    assert (first["name"], first["lengthCm"], first["temperatureMode"]) == (
        "Vaccine carton",
        12,
        "PLUS_2_8",
    )
    assert (second["name"], second["weightKg"], second["widthCm"]) == ("Spare carton", 1.0, 9)
    assert response.json()["summary"]["totalRequested"] == 4


@pytest.mark.parametrize(
    ("overrides", "path"),
    [
        (
            {"sendDate": "2025-02-02", "receiveDate": "2025-02-01", "transitHours": None},
            "receiveDate",
        ),
        ({"options": {"preferredContainers": ["no-such-box"]}}, "options.preferredContainers"),
    ],
)
def test_input_the_planner_cannot_use_is_422_and_uses_no_quota(
    api: Api, overrides: dict[str, Any], path: str
) -> None:
    # found before the quota is reserved (see test_errors for the order)
    key = api.key(sandbox=True)
    response = _compute(api, key, plan_body(**overrides))
    assert response.status_code == 422, response.text
    assert any(k.startswith(path) for k in response.json()["fieldErrors"]), response.json()
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=True)
    assert api.service.store.quota_used(api.org_id(key), period) == 0


def test_a_422_found_while_planning_gives_its_reservation_back(api: Api) -> None:
    # an organisation lane stored before PUT bounded its hours can be used by no plan; the
    # worker finds it, after the quota was reserved, and the reservation is given back
    key = api.key(sandbox=True)
    org = api.org_id(key)
    segment = {"locationTypeKey": "reefer_truck", "cityKey": "Moscow", "hours": 8000}
    api.service.store.put_route_lane(
        org, "moscow-ru", "kazan-ru", json.dumps({"segments": [segment, segment]})
    )
    body = plan_body(originCity="Moscow", destinationCity="Kazan", scenario="THERMO")
    response = _compute(api, key, body)
    assert response.status_code == 422, response.text
    assert list(response.json()["fieldErrors"]) == ["destinationCity"]
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=True)
    assert api.service.store.quota_used(org, period) == 0
    other = plan_body(originCity="Kazan", destinationCity="Moscow", scenario="THERMO")
    assert _compute(api, key, other).status_code == 200
    assert api.service.store.quota_used(org, period) == 1


def test_only_successful_computations_use_quota(api: Api) -> None:
    key = api.key()
    org = api.org_id(key)
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=False)
    assert _compute(api, key, plan_body(cargos=[])).status_code == 422
    assert _compute(api, key, plan_body()).status_code == 200
    assert _compute(api, key, plan_body()).status_code == 200
    assert api.service.store.quota_used(org, period) == 2
