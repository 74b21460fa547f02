"""End to end: compute_plan from a plan input to the API's CombinedPackingPlanResult."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from numpy.testing import assert_allclose
from pydantic import ValidationError

from adapters.planning import PlanInputError
from adapters.planning.compute import MAX_PIECES, check_plan_input, compute_plan, item_color
from adapters.planning.schemas import CombinedPackingPlanResult, PackingPlanInput
from thermal.catalog import container_slugs, outer_volume_l, volume_with_cooling_l
from thermal.errors import ThermalInputError
from thermal.weather import DailyMeanForecast

TODAY = dt.date(2025, 7, 1)
BODIES = Path(__file__).parent / "bodies"
LIMIT_S = 3.0


def cargo(
    item_id: str, mode: str = "PLUS_2_8", *, qty: int = 1, dims=(20.0, 15.0, 10.0), kg=1.0, **extra
) -> dict[str, Any]:
    length, width, height = dims
    item = {
        "id": item_id,
        "name": f"Item {item_id}",
        "lengthCm": length,
        "widthCm": width,
        "heightCm": height,
        "weightKg": kg,
        "quantity": qty,
        "temperatureMode": mode,
    }
    item.update(extra)
    return item


def plan(cargos: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "originCity": "Moscow",
        "destinationCity": "Saint Petersburg",
        "cargos": cargos,
    }
    body.update(fields)
    return body


def run(body: dict[str, Any], *, mock: bool = False, **kwargs: Any) -> dict[str, Any]:
    result = compute_plan(body, use_mock_thermal=mock, today=TODAY, time_limit_s=LIMIT_S, **kwargs)
    assert isinstance(result, CombinedPackingPlanResult)
    return result.model_dump(mode="json")


def mode_report(result: dict[str, Any], mode: str) -> dict[str, Any]:
    [report] = [m for m in result["modes"] if m["temperatureMode"] == mode]
    return report


def assert_consistent(result: dict[str, Any]) -> None:
    """Invariants of every result (docs/conventions.md, containers and mode errors)."""
    containers = result["containers"]
    assert [c["containerIndex"] for c in containers] == list(range(len(containers)))
    assert all(c["count"] == 1 for c in containers)
    indexes = {c["containerIndex"] for c in containers}
    assert {p["containerIndex"] for p in result["placements"]} <= indexes
    summary = result["summary"]
    assert summary["totalPlaced"] == len(result["placements"])
    assert sum(summary["byContainerType"].values()) == len(containers)
    assert sum(m["placedCount"] for m in result["modes"]) == summary["totalPlaced"]
    assert result["temperatureModes"] == [m["temperatureMode"] for m in result["modes"]]
    assert result["feasible"] == all(m["feasible"] for m in result["modes"])
    for m in result["modes"]:
        assert m["feasible"] == ("errorCode" not in m and m["placedCount"] == m["requestedCount"])
        segs = m["thermalFilter"].get("routeSegmentsUsed")
        if segs:
            assert_allclose(sum(s["hours"] for s in segs), m["transitHoursUsed"], rtol=1e-6)
    for c in containers:
        assert_allclose(c["totalWeightKg"], c["cargoWeightKg"] + c["tareWithCoolantKg"], rtol=1e-9)
    CombinedPackingPlanResult.model_validate(result)


# --------------------------------------------------------------------------- THERMO


@pytest.fixture(scope="module")
def two_mode_plan() -> dict[str, Any]:
    cargos = [cargo(f"v{i}", "PLUS_2_8", qty=2, dims=(20 + i, 12, 10), kg=0.8) for i in range(6)]
    cargos += [cargo(f"r{i}", "PLUS_15_25", qty=1, dims=(30, 20, 15), kg=2.0) for i in range(3)]
    return run(plan(cargos, sendDate="2025-01-15"))


def test_thermo_plan_is_feasible_and_consistent(two_mode_plan):
    r = two_mode_plan
    assert r["feasible"] is True
    assert r["temperatureModes"] == ["PLUS_2_8", "PLUS_15_25"]
    assert r["summary"]["totalRequested"] == 15 and r["summary"]["totalPlaced"] == 15
    assert_consistent(r)


def test_modes_never_share_a_container(two_mode_plan):
    mode_of_item = {f"v{i}": "PLUS_2_8" for i in range(6)} | {
        f"r{i}": "PLUS_15_25" for i in range(3)
    }
    modes_in = {}
    for p in two_mode_plan["placements"]:
        modes_in.setdefault(p["containerIndex"], set()).add(mode_of_item[p["cargoItemId"]])
    assert all(len(m) == 1 for m in modes_in.values())
    for c in two_mode_plan["containers"]:
        [mode] = modes_in[c["containerIndex"]]
        assert c["thermalProfileUsed"]["mode"] == mode


def test_thermal_filter_report(two_mode_plan):
    report = mode_report(two_mode_plan, "PLUS_15_25")
    tf = report["thermalFilter"]
    assert report["transitHoursUsed"] == 19.0
    assert tf["mapSource"] == "catalog" and tf["weatherUsed"] is False
    assert_allclose(tf["requiredLoadDegreeHours"], tf["rawLoadDegreeHours"] * 1.2, rtol=1e-9)
    # January Moscow → Saint Petersburg for +20 °C, by hand (Moscow −6.5 °C, SPb −5.5 °C)
    assert_allclose(tf["rawLoadDegreeHours"], 8.5 * 31.5 + 10.5 * 30.5, rtol=1e-9)
    assert {r["slug"] for r in tf["rejectedSlugs"]} == set(container_slugs()) - set(
        tf["eligibleContainerSlugs"]
    )
    for rejected in tf["rejectedSlugs"]:
        if "capacity" in rejected["reason"]:
            assert re.search(
                r"capacity [\d,.]+ °C·h .* required load of 705\.6 °C·h", rejected["reason"]
            )


def test_allocations_carry_profile_and_coolant(two_mode_plan):
    for c in two_mode_plan["containers"]:
        used = c["thermalProfileUsed"]
        assert c["coolant"] in {"BC", "PCM"}
        assert used["thermalCapacityDegreeHours"] >= used["requiredLoadDegreeHours"] > 0
        assert c["tareWithCoolantKg"] > 0
        assert c["metrics"]["itemCount"] == sum(
            1 for p in two_mode_plan["placements"] if p["containerIndex"] == c["containerIndex"]
        )


def test_alternatives_use_catalog_volumes(two_mode_plan):
    alts = two_mode_plan["alternatives"]
    assert alts
    assert alts == sorted(alts, key=lambda a: (a["boxes"], a["outerVolumeL"]))
    for a in alts:
        assert a["boxes"] >= 2  # two modes never share a box
        assert_allclose(
            a["coolingVolumeL"], a["boxes"] * volume_with_cooling_l(a["containerSlug"]), rtol=1e-6
        )
        assert_allclose(
            a["outerVolumeL"], a["boxes"] * outer_volume_l(a["containerSlug"]), rtol=1e-6
        )


def test_colours_are_stable_and_rules_colour_wins():
    r = run(plan([cargo("a", qty=2), cargo("b", rules={"color": "#123456"})], transitHours=10.0))
    colours = {p["cargoItemId"]: p["color"] for p in r["placements"]}
    assert colours["a"] == item_color("a") and re.fullmatch(r"#[0-9a-f]{6}", colours["a"])
    assert colours["b"] == "#123456"
    assert item_color("a") == item_color("a") != item_color("b")


def test_mapping_and_model_inputs_give_the_same_plan():
    body = plan([cargo("a", qty=3)], transitHours=24.0)
    from_map = run(body)
    from_model = run(PackingPlanInput.model_validate(body))
    assert from_map == from_model


def test_winter_rejections_name_the_cold_side():
    # Moscow -> Yakutsk by air in January: every segment is colder than +5 °C
    jan = run(plan([cargo("a")], destinationCity="Yakutsk", sendDate="2025-01-15"))
    tf = mode_report(jan, "PLUS_2_8")["thermalFilter"]
    assert tf["rejectedSlugs"]
    for rejected in tf["rejectedSlugs"]:
        if "thermal profile" not in rejected["reason"]:
            assert rejected["reason"].startswith("cold side: thermal capacity")
            assert "at -10 °C" in rejected["reason"]


def test_the_worked_example_of_docs_thermal_md_holds():
    # docs/thermal.md, "Eligibility": Moscow -> Kazan in January, 60 h, PLUS_2_8
    r = run(
        plan(
            [cargo("a")],
            destinationCity="Kazan",
            sendDate="2027-01-30",
            transitHours=60,
            options={"preferredContainers": ["eps-parcel-3l", "vip-pallet-180l"]},
        )
    )
    tf = mode_report(r, "PLUS_2_8")["thermalFilter"]
    segs = tf["routeSegmentsUsed"]
    assert [s["hours"] for s in segs] == [6, 3, 18, 18, 6, 9]
    assert [s["ambientC"] for s in segs] == [-6.5] * 4 + [22.0, 25.0]
    assert segs[0]["loadDegreeHours"] == 99.0
    assert sum(s["loadDegreeHours"] for s in segs[:4]) == 742.5
    assert (tf["rawLoadDegreeHours"], tf["requiredLoadDegreeHours"]) == (1099.5, 1319.4)
    assert tf["eligibleContainerSlugs"] == ["vip-pallet-180l"]
    assert tf["rejectedSlugs"] == [
        {
            "slug": "eps-parcel-3l",
            "reason": "cold side: thermal capacity 360 °C·h (24 h at -10 °C, BC) is below the "
            "required load of 891 °C·h of the segments colder than the set point",
        }
    ]
    [box] = r["containers"]
    profile = box["thermalProfileUsed"]
    assert (box["containerSlug"], box["coolant"]) == ("vip-pallet-180l", "PCM")
    assert profile["thermalCapacityDegreeHours"] == 3000.0
    assert profile["requiredHoldHours"] == pytest.approx(52.776)


def test_preferred_containers_restrict_the_candidates():
    r = run(
        plan(
            [cargo("a", qty=2)],
            transitHours=20.0,
            options={"preferredContainers": ["vip-cube-28l", "eps-box-32l"]},
        )
    )
    tf = mode_report(r, "PLUS_2_8")["thermalFilter"]
    assert set(tf["eligibleContainerSlugs"]) | {x["slug"] for x in tf["rejectedSlugs"]} == {
        "vip-cube-28l",
        "eps-box-32l",
    }
    assert {c["containerSlug"] for c in r["containers"]} <= {"vip-cube-28l", "eps-box-32l"}


def test_none_mode_in_thermo_has_no_coolant():
    r = run(plan([cargo("dry", "NONE", dims=(40, 30, 30))], transitHours=20.0))
    report = mode_report(r, "NONE")
    assert report["feasible"] and report["transitHoursUsed"] == 20.0
    assert report["thermalFilter"]["eligibleContainerSlugs"] == container_slugs()
    [c] = r["containers"]
    assert c["coolant"] is None
    assert c["thermalProfileUsed"] == {
        "mode": "NONE", "holdHoursAtRefAmbient": 0.0, "thermalCapacityDegreeHours": 0.0, "requiredLoadDegreeHours": 0.0,
    }  # fmt: skip


def test_skip_thermal_capacity_keeps_the_loads():
    body = plan([cargo("a")], transitHours=400.0, options={"skipThermalCapacity": True})
    r = run(body)
    report = mode_report(r, "PLUS_2_8")
    assert report["feasible"]
    tf = report["thermalFilter"]
    assert tf["requiredLoadDegreeHours"] > 5_000  # beyond the best PLUS_2_8 box (3,600 °C·h)
    assert tf["eligibleContainerSlugs"] == container_slugs()
    [c] = r["containers"]
    assert c["thermalProfileUsed"]["thermalCapacityDegreeHours"] < tf["requiredLoadDegreeHours"]


def test_mock_data_for_unknown_cities():
    r = run(plan([cargo("a")], originCity="Atlantis", destinationCity="El Dorado"), mock=True)
    report = mode_report(r, "PLUS_2_8")
    assert report["feasible"] and report["transitHoursUsed"] == 72.0
    tf = report["thermalFilter"]
    assert tf["mapSource"] == "default-template"
    assert {s["ambientSource"] for s in tf["routeSegmentsUsed"]} == {"location-default"}
    assert_allclose(tf["rawLoadDegreeHours"], 72 * 30.0, rtol=1e-9)


def test_option_use_mock_thermal_wins_over_the_default():
    body = plan([cargo("a")], originCity="Atlantis", options={"useMockThermal": False})
    assert mode_report(run(body, mock=True), "PLUS_2_8")["errorCode"] == "THERMAL_DATA_MISSING"
    body["options"]["useMockThermal"] = True
    assert mode_report(run(body, mock=False), "PLUS_2_8")["feasible"]


def test_organisation_route_and_weather_provider():
    overrides = {
        ("moscow-ru", "saint-petersburg-ru"): [
            {"location_type_key": "truck", "city_key": "moscow-ru", "hours": 10}
        ]
    }
    forecast = DailyMeanForecast({("moscow-ru", dt.date(2025, 7, 1)): 25.0})
    r = run(plan([cargo("a")]), route_overrides=overrides, weather=forecast)
    tf = mode_report(r, "PLUS_2_8")["thermalFilter"]
    assert tf["mapSource"] == "override" and tf["weatherUsed"] is True
    assert_allclose(tf["rawLoadDegreeHours"], 10 * (20 + 5), rtol=1e-9)


# --------------------------------------------------------------------------- PLAIN and pallets


def test_plain_has_an_empty_thermal_filter():
    r = run(
        plan([cargo("a", qty=2)], scenario="PLAIN", originCity="Atlantis", destinationCity="Moscow")
    )
    report = mode_report(r, "PLUS_2_8")
    assert (
        report["feasible"] and report["thermalFilter"] == {} and report["transitHoursUsed"] == 0.0
    )
    assert r["containers"][0]["coolant"] in {"BC", "PCM"}
    assert r["alternatives"]
    catalog_pair = run(plan([cargo("a")], scenario="PLAIN"))
    assert mode_report(catalog_pair, "PLUS_2_8")["transitHoursUsed"] == 19.0


def test_plain_modes_without_profiles_have_no_coolant():
    r = run(plan([cargo("a", "MINUS_78")], scenario="PLAIN", transitHours=10.0))
    assert mode_report(r, "MINUS_78")["feasible"]
    assert r["containers"][0]["coolant"] is None
    assert r["containers"][0]["thermalProfileUsed"]["mode"] == "NONE"


def test_pallet_scenario_stacks_on_the_default_template():
    r = run(plan([cargo("box", "NONE", qty=6, dims=(60, 40, 40), kg=12.0)], scenario="PALLET"))
    assert r["feasible"]
    assert {c["containerSlug"] for c in r["containers"]} == {"eur-1200x800"}
    c = r["containers"][0]
    assert c["loadingSide"] == "TOP" and c["coolant"] is None
    assert c["innerUsableMm"] == [1200.0, 1656.0, 800.0]
    assert "alternatives" not in r
    assert_consistent(r)


def mixed_cargo(mode: str) -> list[dict[str, Any]]:
    """Glass that takes nothing on top, 60 kg engines that stand on the floor, cartons."""
    return [
        cargo("glass", mode, qty=6, dims=(40, 30, 30), kg=4.0, rules={"allowStackOnTop": False}),
        cargo("engine", mode, qty=4, dims=(50, 40, 40), kg=60.0, rules={"allowStackUnder": False}),
        cargo("carton", mode, qty=20, dims=(40, 30, 20), kg=5.0),
    ]


def run_long(body: dict[str, Any]) -> dict[str, Any]:
    """As :func:`run`, with a time limit a busy machine does not cut short."""
    result = compute_plan(body, use_mock_thermal=False, today=TODAY, time_limit_s=20.0)
    return result.model_dump(mode="json")


def test_the_plan_never_needs_more_containers_than_an_alternative_of_its_type():
    # the full search of the one type packed 7 boxes where its quick probe had packed 6
    # (the alternative listed 6 and the plan used 7)
    body = plan(
        [
            cargo(
                "flat",
                "NONE",
                qty=25,
                dims=(29, 30, 21),
                kg=69.24,
                rules={"allowStackOnTop": False, "allowStackUnder": False},
            ),
            cargo(
                "tall",
                "NONE",
                qty=8,
                dims=(29.61, 35.9, 35.8),
                kg=6.0,
                rules={"allowStackOnTop": False, "allowTilt": True, "unloadPriority": 1},
            ),
        ],
        scenario="PLAIN",
        transitHours=24,
        options={"preferredContainers": ["vip-pallet-eur-450l"]},
    )
    r = run_long(body)
    [alternative] = r["alternatives"]
    assert r["feasible"] and len(r["containers"]) == alternative["boxes"] == 6
    assert_consistent(r)


def test_cargo_with_unload_priorities_is_filled_from_the_back():
    # twelve items with unload priorities and MANUAL order: filled from either end of the
    # box, the first pieces took the door's end and left the later ones no place, so the
    # plan used two boxes where first-fit-decreasing used one
    body = json.loads((BODIES / "priorities_in_one_box.json").read_text())
    r = run(body)
    assert r["feasible"] and len(r["containers"]) == 1
    assert_consistent(r)


def test_pallet_scenario_puts_mixed_cargo_on_one_pallet():
    r = run_long(plan(mixed_cargo("NONE"), scenario="PALLET"))
    assert r["feasible"] and r["summary"]["totalPlaced"] == 30
    assert [c["containerSlug"] for c in r["containers"]] == ["eur-1200x800"]
    engines = [p for p in r["placements"] if p["cargoItemId"] == "engine"]
    assert all(p["positionMm"][1] == 0 for p in engines)
    assert_consistent(r)


def test_plain_scenario_packs_mixed_cargo_into_two_boxes():
    r = run_long(
        plan(
            mixed_cargo("PLUS_2_8"),
            scenario="PLAIN",
            options={"preferredContainers": ["pur-pallet-1000l"]},
        )
    )
    assert r["feasible"] and r["summary"]["totalPlaced"] == 30
    assert [c["containerSlug"] for c in r["containers"]] == ["pur-pallet-1000l"] * 2
    assert_consistent(r)


def test_pallet_load_puts_every_pallet_on_a_vehicle_within_axle_limits():
    r = run(
        plan(
            [
                cargo("box", "NONE", qty=40, dims=(60, 40, 40), kg=25.0),
                cargo("cold", "PLUS_2_8", qty=12, dims=(60, 40, 40), kg=30.0),
            ],
            scenario="PALLET_LOAD",
            palletTemplateSlug="fin-1200x1000",
        )
    )
    assert r["feasible"] and r["vehicleCount"] == len(r["vehicles"]) >= 2
    assert_consistent(r)
    carried = sorted(p["containerIndex"] for v in r["vehicles"] for p in v["pallets"])
    assert carried == list(range(len(r["containers"])))  # each pallet on exactly one vehicle
    assert [v["vehicleIndex"] for v in r["vehicles"]] == list(range(r["vehicleCount"]))
    by_index = {c["containerIndex"]: c for c in r["containers"]}
    for v in r["vehicles"]:
        gross = sum(by_index[p["containerIndex"]]["totalWeightKg"] for p in v["pallets"])
        assert_allclose(v["cargoWeightKg"], gross, rtol=1e-9)
        assert [a["name"] for a in v["axleLoads"]] in (
            ["front axle", "rear axle"],
            ["kingpin", "trailer axles"],
        )
        assert all(0 <= a["loadKg"] <= a["maxKg"] for a in v["axleLoads"])
    # modes never share a pallet or a vehicle
    mode_of_item = {"box": "NONE", "cold": "PLUS_2_8"}
    pallet_modes: dict[int, set[str]] = {}
    for p in r["placements"]:
        pallet_modes.setdefault(p["containerIndex"], set()).add(mode_of_item[p["cargoItemId"]])
    assert all(len(m) == 1 for m in pallet_modes.values())
    for v in r["vehicles"]:
        assert len(set().union(*(pallet_modes[p["containerIndex"]] for p in v["pallets"]))) == 1


def test_pallet_load_preferred_vehicles():
    r = run(
        plan(
            [
                cargo(
                    "drum",
                    "NONE",
                    qty=6,
                    dims=(58, 58, 90),
                    kg=180.0,
                    rules={"allowStackOnTop": False},
                )
            ],
            scenario="PALLET_LOAD",
            options={"preferredContainers": ["van-3.5t"]},
        )
    )
    assert r["feasible"] and {v["vehicleSlug"] for v in r["vehicles"]} == {"van-3.5t"}
    with pytest.raises(PlanInputError) as exc:
        run(
            plan(
                [cargo("a", "NONE")],
                scenario="PALLET_LOAD",
                options={"preferredContainers": ["vip-cube-28l"]},
            )
        )
    assert exc.value.field == "options.preferredContainers" and "van-3.5t" in exc.value.message


@pytest.mark.parametrize(
    ("length", "payload", "front_max", "rear_at", "qty", "kg", "code", "said"),
    [
        # room and payload, but a front axle that cannot take a pallet anywhere
        (2600, 5000, 2050, 6000, 20, 40.0, "AXLE_OVERLOAD", "axle limit"),
        # room and axles, but 300 kg of payload against the pallet's 800 kg gross
        (4000, 300, 9000, 3000, 10, 77.5, "WEIGHT_EXCEEDED", "300 kg"),
    ],
)
def test_pallet_on_no_vehicle_by_axle_or_payload(
    monkeypatch, length, payload, front_max, rear_at, qty, kg, code, said
):
    import adapters.planning.compute as planning
    from packing.axles import Support, Vehicle
    from packing.model import ContainerType

    body = ContainerType(
        "v", "Vehicle", (length, 2400, 2400), max_payload_kg=payload, loading_side="FRONT"
    )
    only = Vehicle(
        body,
        Support("front axle", -1000, 2000, front_max),
        Support("rear axle", rear_at, 1000, 9000),
    )
    monkeypatch.setattr(planning, "vehicle", lambda slug: only)
    r = run(plan([cargo("box", "NONE", qty=qty, dims=(60, 40, 40), kg=kg)], scenario="PALLET_LOAD"))
    report = mode_report(r, "NONE")
    assert r["feasible"] is False and report["errorCode"] == code
    assert said in report["message"] and r["vehicleCount"] == 0


def test_pallet_on_no_vehicle_by_size_is_packing_failed():
    # an air-cargo pallet 3.2 x 2.4 m cannot go into a 1.78 m wide van, whichever way round
    r = run(
        plan(
            [cargo("box", "NONE", qty=4, dims=(100, 100, 100), kg=40.0)],
            scenario="PALLET_LOAD",
            palletTemplateSlug="pmc-3175x2438",
            options={"preferredContainers": ["van-3.5t"]},
        )
    )
    report = mode_report(r, "NONE")
    assert r["feasible"] is False and report["errorCode"] == "PACKING_FAILED"
    assert "larger" in report["message"] and r["vehicleCount"] == 0
    assert report["message"].startswith("1 pallet on no vehicle: pallet 0: ")
    assert report["message"].endswith("than every eligible vehicle upright, turned either way")


# --------------------------------------------------------------------------- error codes


def test_no_cargo_when_every_item_is_excluded():
    r = run(
        plan(
            [cargo("a", includedInPacking=False), cargo("b", "NONE", includedInPacking=False)],
            transitHours=5.0,
        )
    )
    assert [(m["temperatureMode"], m["errorCode"], m["requestedCount"]) for m in r["modes"]] == [
        ("PLUS_2_8", "NO_CARGO", 0), ("NONE", "NO_CARGO", 0),
    ]  # fmt: skip
    assert r["feasible"] is False and r["summary"]["totalRequested"] == 0


def test_excluded_items_are_not_counted():
    r = run(plan([cargo("a", qty=2), cargo("b", qty=5, includedInPacking=False)], transitHours=5.0))
    assert r["summary"]["totalRequested"] == 2
    assert {p["cargoItemId"] for p in r["placements"]} == {"a"}


def test_too_many_items():
    r = run(plan([cargo("a", qty=MAX_PIECES), cargo("b", "NONE", qty=1)], transitHours=5.0))
    assert [m["errorCode"] for m in r["modes"]] == ["TOO_MANY_ITEMS", "TOO_MANY_ITEMS"]
    assert mode_report(r, "PLUS_2_8")["requestedCount"] == MAX_PIECES
    assert r["placements"] == [] and r["containers"] == []


def test_a_quantity_past_the_limit_is_too_many_items_not_an_input_error():
    # the contract bounds neither quantity nor unloadPriority: up to a billion pieces and a
    # safe integer they are taken, and too many pieces are a TOO_MANY_ITEMS result
    r = run(plan([cargo("a", qty=2_000_000, rules={"unloadPriority": 2**53 - 1})]))
    assert [m["errorCode"] for m in r["modes"]] == ["TOO_MANY_ITEMS"]
    assert r["summary"]["totalRequested"] == 2_000_000
    r = run(plan([cargo("a", qty=2, rules={"unloadPriority": 2**53 - 1}), cargo("b")]))
    assert r["feasible"] and len(r["placements"]) == 3
    # the most of every item still adds up to an exact integer in every client
    r = run(plan([cargo(f"i{k}", "NONE", qty=10**9) for k in range(100)], scenario="PLAIN"))
    assert r["summary"]["totalRequested"] == 100 * 10**9 < 2**53
    for field, value in (("quantity", 10**9 + 1), ("quantity", 2**63)):
        with pytest.raises(ValidationError) as info:
            run(plan([cargo("a", qty=value)]))
        assert info.value.errors()[0]["loc"] == ("cargos", 0, field)
    with pytest.raises(ValidationError) as info:
        run(plan([cargo("a", rules={"unloadPriority": 2**53})]))
    assert info.value.errors()[0]["loc"] == ("cargos", 0, "rules", "unloadPriority")


@pytest.mark.parametrize("mode", ["PLUS_2_25", "MINUS_78", "MINUS_196"])
def test_unsupported_modes_in_thermo(mode):
    r = run(plan([cargo("x", mode, qty=2), cargo("ok", "PLUS_2_8")], transitHours=10.0))
    report = mode_report(r, mode)
    assert report["errorCode"] == "UNSUPPORTED_MODE" and report["placedCount"] == 0
    assert mode_report(r, "PLUS_2_8")["feasible"]
    assert [(u["cargoItemId"], u["instanceIndex"]) for u in r["unplacedItems"]] == [
        ("x", 0),
        ("x", 1),
    ]
    assert r["feasible"] is False
    assert_consistent(r)


def test_thermal_data_missing_for_an_unknown_city():
    r = run(plan([cargo("a")], destinationCity="Atlantis", transitHours=10.0))
    report = mode_report(r, "PLUS_2_8")
    assert report["errorCode"] == "THERMAL_DATA_MISSING" and "Atlantis" in report["message"]
    assert report["transitHoursUsed"] == 10.0


def test_transit_unknown():
    r = run(plan([cargo("a")], destinationCity="Cairo"))
    assert mode_report(r, "PLUS_2_8")["errorCode"] == "TRANSIT_UNKNOWN"
    assert mode_report(r, "PLUS_2_8")["transitHoursUsed"] == 0.0


def test_no_eligible_containers():
    r = run(plan([cargo("a")], transitHours=400.0))
    report = mode_report(r, "PLUS_2_8")
    assert report["errorCode"] == "NO_ELIGIBLE_CONTAINERS"
    assert report["thermalFilter"]["eligibleContainerSlugs"] == []
    assert len(report["thermalFilter"]["rejectedSlugs"]) == len(container_slugs())
    assert r["unplacedItems"][0]["reason"].startswith("no container withstands")


def test_no_eligible_containers_names_the_load_of_each_side():
    # January, Moscow to Yakutsk, +2..+8: the handling indoors loads the hot side, the
    # frozen road the cold side, and each side is checked against its own capacity; the
    # message and the reasons quote both loads, as the rejections do (the total of both
    # sides is checked against neither)
    r = run(
        plan(
            [cargo("a")],
            destinationCity="Yakutsk",
            sendDate="2025-01-15",
            transitHours=300.0,
        )
    )
    report = mode_report(r, "PLUS_2_8")
    assert report["errorCode"] == "NO_ELIGIBLE_CONTAINERS"
    sides = re.search(
        r"\(hot side ([\d,]+) °C·h, cold side ([\d,]+) °C·h; 300 h\)", report["message"]
    )
    assert sides is not None
    hot, cold = (float(v.replace(",", "")) for v in sides.groups())
    total = report["thermalFilter"]["requiredLoadDegreeHours"]
    assert abs(hot + cold - total) <= 1 and cold > 5 * hot
    assert f"{total:,.0f}" not in report["message"]
    assert r["unplacedItems"][0]["reason"] == (
        f"no container withstands the required load (hot side {sides[1]} °C·h, cold side "
        f"{sides[2]} °C·h)"
    )


@pytest.mark.parametrize(
    "hours",
    [
        [],
        [5.5e-7] * 6,  # 3.3e-6 h in all: three parts get 1e-6, none goes below 0
        [2.0, *[1 / 22] * 22, 2.0],
        [0.1, 0.2, 0.3],
        [1 / 3] * 3 + [7.0000004999],
    ],
)
def test_rounded_segment_hours_stay_near_their_own_and_add_up(hours):
    from adapters.planning.mapping import _rounded_hours

    rounded = _rounded_hours(hours)
    assert len(rounded) == len(hours)
    assert all(r >= 0 and abs(r - h) < 1e-6 + 1e-12 for r, h in zip(rounded, hours, strict=True))
    assert all(r == round(r, 6) for r in rounded)
    assert round(math.fsum(rounded), 6) == round(math.fsum(hours), 6)


def test_reported_segment_hours_add_up_to_the_transit():
    # a 1 h main leg over 10,000 km is 22 parts of 1/22 h: rounded to 6 decimals each, they
    # added up to 1.00001 h; the residue now goes to the longest segment
    r = run(plan([cargo("a")], originCity="Makurdi", destinationCity="Yakutsk", transitHours=5.0))
    segments = mode_report(r, "PLUS_2_8")["thermalFilter"]["routeSegmentsUsed"]
    legs = [s for s in segments if s["label"].startswith("Main leg")]
    assert len(legs) == 22
    assert all(abs(s["hours"] - 1 / 22) <= 1e-6 for s in legs)
    assert abs(math.fsum(s["hours"] for s in segments) - 5.0) <= 1e-12


def test_packing_failed_for_an_oversized_piece():
    r = run(plan([cargo("long", dims=(300.0, 20.0, 20.0)), cargo("ok")], transitHours=10.0))
    report = mode_report(r, "PLUS_2_8")
    assert report["errorCode"] == "PACKING_FAILED"
    assert (report["requestedCount"], report["placedCount"]) == (2, 1)
    [u] = r["unplacedItems"]
    assert u["cargoItemId"] == "long" and "larger" in u["reason"]


def test_a_too_large_reason_gives_a_size_rounded_up_as_the_request_gave_it():
    # 30.0001 cm is planned as 301 mm: "30.1 cm" alone reads as a typing error
    body = plan(
        [
            cargo("hair", dims=(30.0001, 30.0, 32.0)),
            cargo("whole", dims=(300.3, 20.0, 20.0)),  # 3003 mm exactly: nothing to add
            cargo("digits", dims=(300.0001, 32.0, 99999.95)),  # more digits than %g shows
        ],
        scenario="PLAIN",
        transitHours=10.0,
        options={"preferredContainers": ["vip-cube-28l"]},
    )
    reasons = {u["cargoItemId"]: u["reason"] for u in run(body)["unplacedItems"]}
    assert reasons["hair"].startswith("larger (30.1×32×30 cm")
    assert reasons["hair"].endswith("(given as 30.0001×32×30 cm, rounded up to whole millimetres)")
    assert reasons["digits"].endswith(
        "(given as 300.0001×99999.95×32 cm, rounded up to whole millimetres)"
    )
    assert reasons["whole"].startswith("larger (300.3×20×20 cm")
    assert "given as" not in reasons["whole"]


def test_weight_exceeded_for_a_heavy_piece():
    r = run(plan([cargo("lead", dims=(20, 20, 20), kg=2000.0)], transitHours=10.0))
    report = mode_report(r, "PLUS_2_8")
    assert report["errorCode"] == "WEIGHT_EXCEEDED"
    assert "payload" in r["unplacedItems"][0]["reason"]


def test_a_piece_no_container_holds_says_so_when_the_cap_is_used_up():
    body = plan(
        [
            cargo("a", "NONE"),
            cargo("big", "PLUS_2_8", dims=(200.0, 150.0, 150.0)),
            cargo("small", "PLUS_2_8"),
        ],
        scenario="PLAIN",
        transitHours=24.0,
        options={"maxContainers": 1},
    )
    r = run(body)
    assert len(r["containers"]) == 1
    reasons = {u["cargoItemId"]: u["reason"] for u in r["unplacedItems"]}
    assert reasons["big"].startswith("larger (200×150×150 cm")
    assert "maxContainers" in reasons["small"]
    assert mode_report(r, "PLUS_2_8")["errorCode"] == "PACKING_FAILED"
    assert_consistent(r)


def test_max_containers_caps_the_whole_plan():
    body = plan(
        [cargo("a", "PLUS_2_8"), cargo("b", "PLUS_15_25")],
        transitHours=10.0,
        options={"maxContainers": 1},
    )
    r = run(body)
    assert len(r["containers"]) == 1
    first, second = r["modes"]
    assert first["feasible"] and second["errorCode"] == "PACKING_FAILED"
    assert "maxContainers" in r["unplacedItems"][0]["reason"]
    assert_consistent(r)


# --------------------------------------------------------------------------- 422 input errors


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"sendDate": "2025-07-05", "receiveDate": "2025-07-04"}, "receiveDate"),
        ({"receiveDate": "2025-06-01"}, "receiveDate"),
        (
            {"options": {"preferredContainers": ["vip-cube-28l", "no-such-box"]}},
            "options.preferredContainers",
        ),
        ({"scenario": "PALLET", "palletTemplateSlug": "no-such-pallet"}, "palletTemplateSlug"),
        (
            {"scenario": "PALLET", "options": {"preferredContainers": ["no-such-box"]}},
            "options.preferredContainers",
        ),
    ],
)
def test_inconsistent_input_raises_on_the_field(fields, field):
    with pytest.raises(PlanInputError) as info:
        run(plan([cargo("a")], **fields))
    assert isinstance(info.value, ValueError)
    assert info.value.field == field


@pytest.mark.parametrize("slug", ["vip-cube-28l", "van-3.5t", "eur-1200x800"])
def test_pallet_accepts_any_catalog_slug_it_does_not_use(slug):
    r = run(plan([cargo("a", "NONE")], scenario="PALLET", options={"preferredContainers": [slug]}))
    assert r["feasible"] and {c["containerSlug"] for c in r["containers"]} == {"eur-1200x800"}


def test_date_errors_name_the_request_fields():
    with pytest.raises(PlanInputError, match="2025-07-05") as info:
        run(plan([cargo("a")], sendDate="2025-07-05", receiveDate="2025-07-04"))
    assert info.value.field == "receiveDate"
    assert "sendDate" in info.value.message and "send_date" not in info.value.message
    assert isinstance(info.value.__cause__, ThermalInputError)


def test_unresolved_sku_item_is_an_input_error():
    with pytest.raises(PlanInputError) as info:
        run(plan([{"id": "s", "sku": "SKU-1", "quantity": 1}], transitHours=5.0))
    assert info.value.field == "cargos[0].name"


def test_preload_builds_the_caches():
    from adapters.planning import preload
    from thermal.climate import _alias_index

    preload()
    assert _alias_index.cache_info().currsize == 1


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"sendDate": "9999-12-31", "transitHours": 48.0}, "sendDate"),
        ({"receiveDate": "9999-12-31"}, "receiveDate"),
        ({"sendDate": "2027-01-01", "receiveDate": "2028-06-01"}, "receiveDate"),
        ({"sendDate": "0001-01-01", "receiveDate": "0001-01-02"}, "sendDate"),
        ({"palletTemplateSlug": "nope"}, "palletTemplateSlug"),
    ],
)
def test_out_of_range_input_is_a_field_error(fields, field):
    with pytest.raises(PlanInputError) as exc:
        run(plan([cargo("a")], **fields))
    assert exc.value.field == field


@pytest.mark.parametrize(
    "fields",
    [
        {"sendDate": "2025-07-05", "receiveDate": "2025-07-04"},
        {"receiveDate": "2025-06-01"},
        {"receiveDate": "9999-12-31"},
        {"sendDate": "0001-01-01", "receiveDate": "0001-01-02"},
        {"sendDate": "2027-01-01", "receiveDate": "2028-06-01"},
        {"options": {"preferredContainers": ["vip-cube-28l", "no-such-box"]}},
        {"scenario": "PALLET", "palletTemplateSlug": "no-such-pallet"},
        {"scenario": "PALLET", "options": {"preferredContainers": ["no-such-box"]}},
        {"scenario": "PALLET_LOAD", "options": {"preferredContainers": ["vip-cube-28l"]}},
        {"palletTemplateSlug": "nope"},
        {"cargos": [{"id": "s", "sku": "SKU-1", "quantity": 1}], "transitHours": 5.0},
    ],
)
def test_the_checks_before_planning_raise_what_planning_would(fields):
    fields = dict(fields)
    # the service makes these checks before it reserves quota: they must agree with the
    # planner's, field and message
    cargos = fields.pop("cargos", [cargo("a")])
    body = plan(cargos, **fields)
    with pytest.raises(PlanInputError) as planned:
        run(body)
    with pytest.raises(PlanInputError) as checked:
        check_plan_input(body, today=TODAY)
    assert (checked.value.field, checked.value.message) == (
        planned.value.field,
        planned.value.message,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"sendDate": "2025-07-05", "receiveDate": "2025-07-06"},
        {"scenario": "PALLET", "options": {"preferredContainers": ["van-3.5t"]}},
        {"scenario": "PALLET_LOAD", "options": {"preferredContainers": ["van-3.5t"]}},
    ],
)
def test_the_checks_before_planning_let_plannable_input_through(fields):
    body = plan([cargo("a", "NONE")], **fields)
    check_plan_input(body, today=TODAY)
    assert run(body)["summary"]["totalPlaced"] == 1


def test_transit_hours_bound_in_the_contract():
    with pytest.raises(ValidationError) as exc:
        PackingPlanInput.model_validate(plan([cargo("a")], transitHours=1e8))
    assert exc.value.errors()[0]["loc"] == ("transitHours",)
    PackingPlanInput.model_validate(plan([cargo("a")], transitHours=8784.0))


@pytest.mark.parametrize(
    "algorithm", ["block-building", "first-fit-decreasing", "best-area-fit", "milp"]
)
def test_every_registered_algorithm_plans_through_the_use_case(algorithm: str) -> None:
    r = run(plan([cargo("a", qty=6)], transitHours=10.0, options={"algorithm": algorithm}))
    assert r["feasible"] and r["summary"]["totalPlaced"] == 6


@pytest.mark.parametrize("scenario", ["PLAIN", "THERMO"])
def test_a_weight_near_zero_is_planned_like_a_weightless_piece(scenario: str) -> None:
    """2.2e-308 kg is the smallest normal weight; payload ÷ weight overflows a float."""
    body = plan([cargo("a", qty=3, kg=2.2250738585072014e-308)], scenario=scenario, transitHours=24)
    result = run(body, mock=True)
    assert result["feasible"] is True
    assert result["summary"]["totalPlaced"] == 3


# --- budgets: counted in work units, anytime, capped by size -------------------------------


def test_a_large_request_is_planned_completely_within_a_small_budget() -> None:
    # 2,000 pieces of 40 SKUs with a budget far too small to search: the planner still
    # returns a complete plan (greedy passes for what is left), never an error.
    cargos = [
        cargo(
            f"s{i}",
            "NONE",
            qty=50,
            dims=(10.0 + 7 * (i % 6), 8.0 + 5 * (i % 5), 6.0 + 4 * (i % 4)),
            kg=0.3 + (i % 7),
        )
        for i in range(40)
    ]
    body = plan(cargos, scenario="PLAIN")
    result = compute_plan(body, use_mock_thermal=True, today=TODAY, time_limit_s=0.05)
    dumped = result.model_dump(mode="json")
    assert_consistent(dumped)
    assert dumped["feasible"] is True
    assert dumped["summary"]["totalPlaced"] == 2000 and not dumped["unplacedItems"]
    again = compute_plan(body, use_mock_thermal=True, today=TODAY, time_limit_s=0.05)
    assert again.model_dump(mode="json")["placements"] == dumped["placements"]


def test_a_modes_search_budget_is_its_share_capped_by_its_size() -> None:
    from adapters.planning import compute as c

    ctx = c._Context.__new__(c._Context)
    ctx.plan_budget_s, ctx.total_pieces = 14.0, 10_000
    # a share of the plan's budget by pieces, capped at base + per piece and at the maximum
    base, per, most = c.SEARCH_BASE_S, c.SEARCH_S_PER_PIECE, c.SEARCH_MAX_S
    assert ctx.budget_for(20) == pytest.approx(max(0.05, min(14 * 20 / 10_000, base + 20 * per)))
    assert ctx.budget_for(2_000) == pytest.approx(min(14 * 0.2, base + 2_000 * per, most))
    assert ctx.budget_for(10_000) == pytest.approx(most) and most < 14
    ctx.total_pieces = 1_000
    assert ctx.budget_for(1_000) == pytest.approx(base + 1_000 * per)
    assert ctx.budget_for(1) == 0.05  # never less than a minimal search
