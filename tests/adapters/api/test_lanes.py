"""Organisation lanes over HTTP: stored, read back, used by compute, scoped, isolated."""

from __future__ import annotations

import re
from typing import Any

import pytest

from adapters.planning.schemas import ROUTE_LANE_EXAMPLE
from tests.adapters.helpers import Api

BASE = "/api/v1/catalog/routes"


def _compute_body() -> dict[str, Any]:
    return {
        "originCity": "Moscow",
        "destinationCity": "Kazan",
        "sendDate": "2027-01-10",
        "cargos": [
            {"id": "v", "name": "Vaccines", "lengthCm": 30, "widthCm": 20, "heightCm": 15,
             "weightKg": 2.5, "quantity": 4, "temperatureMode": "PLUS_2_8"}
        ],
    }  # fmt: skip


def test_lane_lifecycle_and_its_use_in_compute(api: Api) -> None:
    h = {"X-Api-Key": api.key()}
    created = api.client.put(f"{BASE}/Москва/KZN", json=ROUTE_LANE_EXAMPLE, headers=h)
    assert created.status_code == 201, created.text
    lane = created.json()
    assert (lane["origin"], lane["destination"]) == ("moscow-ru", "kazan-ru")
    assert [s["cityKey"] for s in lane["segments"]] == ["moscow-ru", "moscow-ru", "kazan-ru"]
    # as a plan's createdAt: UTC, milliseconds, Z
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", lane["updatedAt"])
    replaced = api.client.put(f"{BASE}/moscow-ru/kazan-ru", json=ROUTE_LANE_EXAMPLE, headers=h)
    assert replaced.status_code == 200
    read = api.client.get(f"{BASE}/Moscow/Kazan", headers=h).json()
    assert read["segments"] == lane["segments"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", read["updatedAt"])
    assert [x["origin"] for x in api.client.get(BASE, headers=h).json()["routes"]] == ["moscow-ru"]

    plan = api.client.post("/api/v1/packing/compute", json=_compute_body(), headers=h).json()
    tf = plan["modes"][0]["thermalFilter"]
    assert tf["mapSource"] == "override"
    first = tf["routeSegmentsUsed"][0]
    assert (first["label"], first["ambientC"], first["ambientSource"]) == (
        "Own hub, Moscow",
        18.0,
        "override",
    )

    assert api.client.delete(f"{BASE}/Moscow/Kazan", headers=h).status_code == 204
    assert api.client.get(f"{BASE}/Moscow/Kazan", headers=h).status_code == 404
    assert api.client.delete(f"{BASE}/Moscow/Kazan", headers=h).status_code == 404
    again = api.client.post("/api/v1/packing/compute", json=_compute_body(), headers=h).json()
    assert again["modes"][0]["thermalFilter"]["mapSource"] == "catalog"


def test_lanes_are_per_organisation_and_scoped(api: Api) -> None:
    mine = {"X-Api-Key": api.key("catalog:read", "catalog:write")}
    theirs = {"X-Api-Key": api.key("catalog:read", "catalog:write")}
    reader = {"X-Api-Key": api.key("catalog:read")}
    assert (
        api.client.put(f"{BASE}/LED/MOW", json=ROUTE_LANE_EXAMPLE, headers=mine).status_code == 201
    )
    assert api.client.get(f"{BASE}/LED/MOW", headers=theirs).status_code == 404
    assert api.client.get(BASE, headers=theirs).json() == {"routes": []}
    put = api.client.put(f"{BASE}/LED/MOW", json=ROUTE_LANE_EXAMPLE, headers=reader)
    assert (put.status_code, put.json()) == (403, {"error": "scope_denied"})
    assert api.client.get(BASE, headers={"X-Api-Key": "tbp_nope"}).status_code == 401


def test_a_segment_without_a_fixed_ambient_is_shown_without_one(api: Api) -> None:
    # the published RouteLaneSegment has fixedAmbientC as a number, never null
    h = {"X-Api-Key": api.key()}
    segment = {"locationTypeKey": "truck", "cityKey": "Moscow", "hours": 5, "label": "Leg"}
    put = api.client.put(f"{BASE}/Moscow/Kazan", json={"segments": [segment]}, headers=h)
    got = api.client.get(f"{BASE}/Moscow/Kazan", headers=h)
    listed = api.client.get(BASE, headers=h).json()["routes"]
    for segments in (put.json()["segments"], got.json()["segments"], listed[0]["segments"]):
        assert segments == [segment | {"cityKey": "moscow-ru"}]


@pytest.mark.parametrize(
    ("path", "segment", "field"),
    [
        ("Atlantis/Kazan", {}, "origin"),
        ("Moscow/Kazan", {"cityKey": "Atlantis"}, "segments[0].cityKey"),
        ("Moscow/Kazan", {"locationTypeKey": "igloo"}, "segments[0].locationTypeKey"),
        ("Moscow/Kazan", {"hours": 0}, "segments[0].hours"),
        ("Moscow/Kazan", {"fixedAmbientC": 500}, "segments[0].fixedAmbientC"),
        ("Moscow/Kazan", {"label": "a\x00b"}, "segments[0].label"),
    ],
)
def test_bad_lanes_are_422_on_the_field(
    api: Api, path: str, segment: dict[str, Any], field: str
) -> None:
    body = {"segments": [{"locationTypeKey": "truck", "cityKey": "Moscow", "hours": 5} | segment]}
    response = api.client.put(f"{BASE}/{path}", json=body, headers={"X-Api-Key": api.key()})
    assert response.status_code == 422, response.text
    assert set(response.json()["fieldErrors"]) == {field}


def test_unknown_cities_have_no_lane(api: Api) -> None:
    h = {"X-Api-Key": api.key()}
    assert api.client.get(f"{BASE}/Atlantis/Kazan", headers=h).status_code == 404
    assert api.client.delete(f"{BASE}/Atlantis/Kazan", headers=h).status_code == 404


def test_a_stored_lane_longer_than_the_longest_transit_is_a_422_naming_it() -> None:
    # PUT refuses such a lane now; one stored before that answers a clear 422, not a 500
    import json

    from adapters.api.compute import compute_in_worker

    seg = {"locationTypeKey": "reefer_truck", "cityKey": "Moscow", "hours": 8000}
    lane = ("moscow-ru", "kazan-ru", json.dumps({"segments": [seg, seg]}))
    out = compute_in_worker(json.dumps(_compute_body()), True, 1.0, lane)
    assert out.result_json is None
    assert out.input_error_field == "destinationCity"
    assert "16000 h in all" in (out.input_error_message or "")
    assert "store it again" in (out.input_error_message or "")


@pytest.mark.parametrize("origin", ["Frankfurt%2FMain", "Frankfurt/Main"])
def test_a_city_name_with_a_slash_names_its_lane(api: Api, origin: str) -> None:
    # "Frankfurt/Main" is an alias of the catalog: encoded or not, its slash makes a path of
    # three parts, of which one split names two cities the catalog knows
    h = {"X-Api-Key": api.key()}
    created = api.client.put(f"{BASE}/{origin}/Berlin", json=ROUTE_LANE_EXAMPLE, headers=h)
    assert created.status_code == 201, created.text
    assert (created.json()["origin"], created.json()["destination"]) == (
        "frankfurt-de",
        "berlin-de",
    )
    assert api.client.get(f"{BASE}/{origin}/Berlin", headers=h).json()["origin"] == "frankfurt-de"
    assert api.client.get(f"{BASE}/frankfurt-de/Berlin", headers=h).status_code == 200
    missing = api.client.get(f"{BASE}/Berlin/{origin}", headers=h)
    assert missing.status_code == 404
    assert missing.json() == {"error": "The organisation has no lane for this city pair."}
    assert api.client.delete(f"{BASE}/{origin}/Berlin", headers=h).status_code == 204
    assert api.client.get(f"{BASE}/frankfurt-de/berlin-de", headers=h).status_code == 404


def test_a_path_of_one_city_or_of_cities_the_catalog_lacks_is_a_404(api: Api) -> None:
    h = {"X-Api-Key": api.key()}
    one = api.client.get(f"{BASE}/Berlin", headers=h)
    assert (one.status_code, one.json()) == (404, {"error": "There is no such endpoint."})
    for path in ("Atlantis/Main/Berlin", "Frankfurt/Main/Atlantis", "a/b/c/d"):
        r = api.client.put(f"{BASE}/{path}", json=ROUTE_LANE_EXAMPLE, headers=h)
        assert r.status_code == 404, path
        assert r.json() == {"error": "The organisation has no lane for this city pair."}
    nul = api.client.get(f"{BASE}/Frankfurt%00/Main/Berlin", headers=h)
    assert nul.status_code == 404


@pytest.mark.parametrize(
    "path", ["Berlin/Hamburg/", "Berlin//Hamburg", "Berlin/Hamburg//", "a/b/c/d/e", "x/" * 8000]
)
def test_a_path_of_cities_with_an_empty_part_or_too_many_is_no_endpoint(
    api: Api, path: str
) -> None:
    # checked before the key and before any lookup: a trailing or doubled slash is no
    # endpoint here as on every path, and a long path of slashes costs nothing
    for method in ("GET", "PUT", "DELETE"):
        r = api.client.request(method, f"{BASE}/{path}", json=ROUTE_LANE_EXAMPLE)
        assert (r.status_code, r.json()) == (404, {"error": "There is no such endpoint."})
