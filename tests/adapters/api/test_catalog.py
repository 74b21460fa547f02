"""The thermal container catalog and the organisation SKU catalog."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.planning import catalog_containers
from adapters.planning.catalogs import pallet_templates_frame, vehicles_frame
from tests.adapters.helpers import Api


def sku_item(sku: str = "VAX-1", **overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "sku": sku,
        "name": "Vaccine carton",
        "lengthCm": 20,
        "widthCm": 10,
        "heightCm": 8,
        "weightKg": 0.7,
        "temperatureMode": "PLUS_2_8",
        "rules": {"fragile": True},
    }
    item.update(overrides)
    return item


def test_containers_are_the_thermal_catalog(api: Api) -> None:
    response = api.client.get("/api/v1/catalog/containers", headers={"X-Api-Key": api.key()})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"containers"}
    expected = [c.model_dump(mode="json") for c in catalog_containers()]
    assert body["containers"] == expected and expected


def test_pallet_templates_are_the_pallet_catalog(api: Api) -> None:
    response = api.client.get(
        "/api/v1/catalog/pallet-templates", headers={"X-Api-Key": api.key("catalog:read")}
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"palletTemplates"}
    frame = pallet_templates_frame()
    assert [t["slug"] for t in body["palletTemplates"]] == list(frame.index)
    eur = next(t for t in body["palletTemplates"] if t["slug"] == "eur-1200x800")
    assert eur == {
        "slug": "eur-1200x800",
        "title": "EUR 1 pallet 1200×800",
        "deckLengthMm": 1200.0,
        "deckWidthMm": 800.0,
        "deckHeightMm": 144.0,
        "maxLoadHeightMm": 1656.0,
        "maxPayloadKg": 1000.0,
        "tareKg": 25.0,
    }


def test_vehicles_are_the_vehicle_catalog(api: Api) -> None:
    response = api.client.get(
        "/api/v1/catalog/vehicles", headers={"X-Api-Key": api.key("catalog:read")}
    )
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"vehicles"}
    frame = vehicles_frame()
    assert [v["slug"] for v in body["vehicles"]] == list(frame.index)
    by_slug = {v["slug"]: v for v in body["vehicles"]}
    reefer = by_slug["reefer-truck-18t"]
    row = frame.loc["reefer-truck-18t"]
    assert reefer["innerMm"] == [
        float(row["inner_length_mm"]),
        float(row["inner_height_mm"]),
        float(row["inner_width_mm"]),
    ]
    assert reefer["bodyType"] == "REEFER" and reefer["loadingSide"] == "FRONT"
    assert (reefer["temperatureMinC"], reefer["temperatureMaxC"]) == (-25.0, 25.0)
    assert reefer["supports"] == [
        {"name": "front axle", "positionMm": -1500.0, "tareKg": 6200.0, "maxKg": 7500.0,
         "minShare": 0.0},
        {"name": "rear axle", "positionMm": 4100.0, "tareKg": 4800.0, "maxKg": 11500.0,
         "minShare": 0.25},
    ]  # fmt: skip
    multi = by_slug["multitemp-13.3m"]
    assert multi["bodyType"] == "MULTI_TEMP" and multi["compartments"] == 2
    assert multi["doors"] == ["REAR", "SIDE"] and multi["doubleStack"] is True
    dry = by_slug["truck-7.5t"]
    assert dry["bodyType"] == "DRY" and "temperatureMinC" not in dry
    assert "temperatureMaxC" not in dry and dry["doors"] == ["REAR"]
    for v in body["vehicles"]:
        assert v["tareKg"] == sum(s["tareKg"] for s in v["supports"])


def test_sku_catalog_lifecycle(api: Api) -> None:
    h = {"X-Api-Key": api.key("catalog:read", "catalog:write")}
    base = "/api/v1/catalog/cargo-items"
    assert api.client.get(base, headers=h).json() == {"items": []}
    created = api.client.post(base, json=sku_item(), headers=h)
    assert created.status_code == 201 and created.json()["lengthCm"] == 20
    again = api.client.post(base, json=sku_item(), headers=h)
    assert again.status_code == 409 and set(again.json()) == {"error"}
    replaced = api.client.put(f"{base}/VAX-1", json=sku_item(lengthCm=25), headers=h)
    assert replaced.status_code == 200 and replaced.json()["lengthCm"] == 25
    assert api.client.get(f"{base}/VAX-1", headers=h).json()["lengthCm"] == 25
    assert [i["sku"] for i in api.client.get(base, headers=h).json()["items"]] == ["VAX-1"]
    mismatch = api.client.put(f"{base}/VAX-1", json=sku_item("VAX-2"), headers=h)
    assert mismatch.status_code == 422 and "sku" in mismatch.json()["fieldErrors"]
    missing = api.client.put(f"{base}/VAX-9", json=sku_item("VAX-9"), headers=h)
    assert missing.status_code == 404
    assert api.client.delete(f"{base}/VAX-1", headers=h).status_code == 204
    assert api.client.get(f"{base}/VAX-1", headers=h).status_code == 404
    assert api.client.delete(f"{base}/VAX-1", headers=h).status_code == 404


def test_sku_catalogs_are_per_organisation(api: Api) -> None:
    mine = {"X-Api-Key": api.key("catalog:read", "catalog:write")}
    theirs = {"X-Api-Key": api.key("catalog:read", "catalog:write")}
    base = "/api/v1/catalog/cargo-items"
    assert api.client.post(base, json=sku_item("ISO-1"), headers=mine).status_code == 201
    assert api.client.get(f"{base}/ISO-1", headers=theirs).status_code == 404
    assert api.client.get(base, headers=theirs).json() == {"items": []}
    assert api.client.post(base, json=sku_item("ISO-1"), headers=theirs).status_code == 201


@pytest.mark.parametrize(
    ("item", "path"),
    [
        (sku_item(sku="has space"), "sku"),
        (sku_item(lengthCm=0), "lengthCm"),
        (sku_item(temperatureMode="HOT"), "temperatureMode"),
        (sku_item(colour="red"), "colour"),
        ({k: v for k, v in sku_item().items() if k != "name"}, "name"),
    ],
)
def test_sku_item_validation(api: Api, item: dict[str, Any], path: str) -> None:
    h = {"X-Api-Key": api.key("catalog:write")}
    response = api.client.post("/api/v1/catalog/cargo-items", json=item, headers=h)
    assert response.status_code == 422
    assert path in response.json()["fieldErrors"]
