"""PALLET_LOAD end to end: temperature capability, unload order on the deck, axle loads at
every stop (docs/conventions.md#pallet_load)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from adapters.planning.catalogs import mode_range_c, vehicle
from tests.adapters.planning.test_compute import assert_consistent, cargo, mode_report, plan, run


def _prio(**rules: Any) -> dict[str, Any]:
    return {"rules": rules}


def _pallet_drops(result: dict[str, Any], prio_of_item: dict[str, int]) -> dict[int, set[int]]:
    drops: dict[int, set[int]] = {}
    for p in result["placements"]:
        drops.setdefault(p["containerIndex"], set()).add(prio_of_item[p["cargoItemId"]])
    return drops


def _check_deck(result: dict[str, Any], prio_of_item: dict[str, int]) -> None:
    """Every vehicle: no later drop between the door and an earlier drop in a lane, every
    support within its bounds loaded and after each stop, one stop entry per stop but the
    last."""
    drops = _pallet_drops(result, prio_of_item)
    containers = {c["containerIndex"]: c for c in result["containers"]}
    for v in result["vehicles"]:
        body = vehicle(v["vehicleSlug"]).body
        boxes = []
        for p in v["pallets"]:
            c = containers[p["containerIndex"]]
            [prio] = drops[p["containerIndex"]]  # one drop per pallet
            turned = p["rotation"] == [0, 90, 0]
            length = c["innerUsableMm"][2] if turned else c["innerUsableMm"][0]
            width = c["innerUsableMm"][0] if turned else c["innerUsableMm"][2]
            x, _, z = p["positionMm"]
            assert x >= 0 and x + length <= body.inner[0] and z + width <= body.inner[2]
            boxes.append((x, x + length, z, z + width, prio))
        for _, ax1, az0, az1, pa in boxes:
            for bx0, _, bz0, bz1, pb in boxes:
                if az0 < bz1 and bz0 < az1 and bx0 >= ax1:
                    assert pb >= pa  # the pallet nearer the door comes off no later
        on_board = sorted({b[4] for b in boxes}, reverse=True)
        by_stop = v.get("axleLoadsByStop", [])
        assert [s["unloadPriority"] for s in by_stop] == on_board[:-1]
        assert [s["stop"] for s in by_stop] == list(range(1, len(on_board)))
        for loads in [v["axleLoads"]] + [s["axleLoads"] for s in by_stop]:
            for a in loads:
                assert a.get("minKg", 0.0) - 1e-3 <= a["loadKg"] <= a["maxKg"] + 1e-3


def test_chilled_pallets_go_on_a_vehicle_holding_their_range():
    r = run(
        plan(
            [cargo("yoghurt", "PLUS_2_8", qty=60, dims=(40, 30, 25), kg=9.0)],
            scenario="PALLET_LOAD",
        )
    )
    assert r["feasible"] and r["vehicles"]
    for v in r["vehicles"]:
        assert vehicle(v["vehicleSlug"]).holds((2.0, 8.0))
        assert vehicle(v["vehicleSlug"]).body_type in ("REEFER", "MULTI_TEMP")
    assert "holding +2..+8 °C" in mode_report(r, "PLUS_2_8")["message"]


def test_no_vehicle_holding_the_range_is_no_eligible_containers():
    r = run(
        plan(
            [
                cargo("vaccine", "PLUS_2_8", qty=10, dims=(40, 30, 25), kg=5.0),
                cargo("dry", "NONE", qty=10, dims=(40, 30, 25), kg=5.0),
            ],
            scenario="PALLET_LOAD",
            options={"preferredContainers": ["truck-7.5t", "semi-13.6m"]},
        )
    )
    report = mode_report(r, "PLUS_2_8")
    assert r["feasible"] is False and report["errorCode"] == "NO_ELIGIBLE_CONTAINERS"
    assert "+2..+8 °C" in report["message"] and report["placedCount"] == 0
    assert {u["cargoItemId"] for u in r["unplacedItems"]} == {"vaccine"}
    assert all("+2..+8 °C" in u["reason"] for u in r["unplacedItems"])
    assert mode_report(r, "NONE")["feasible"]  # the dry mode goes on the dry vehicles
    frozen = run(
        plan([cargo("ice", "MINUS_78", qty=2, kg=3.0)], scenario="PALLET_LOAD"),
    )
    report = mode_report(frozen, "MINUS_78")
    assert report["errorCode"] == "NO_ELIGIBLE_CONTAINERS" and "-78..-78 °C" in report["message"]


def test_mixed_chilled_and_frozen_order_each_mode_on_a_vehicle_of_its_range():
    r = run(
        plan(
            [
                cargo("milk", "PLUS_2_8", qty=80, dims=(40, 30, 25), kg=12.0),
                cargo("fish", "MINUS_25_15", qty=80, dims=(40, 30, 25), kg=14.0),
            ],
            scenario="PALLET_LOAD",
        )
    )
    assert r["feasible"]
    assert_consistent(r)
    mode_of = {"milk": "PLUS_2_8", "fish": "MINUS_25_15"}
    modes = {
        c: {mode_of[p["cargoItemId"]] for p in r["placements"] if p["containerIndex"] == c}
        for c in {p["containerIndex"] for p in r["placements"]}
    }
    for v in r["vehicles"]:
        [mode] = set().union(*(modes[p["containerIndex"]] for p in v["pallets"]))
        assert vehicle(v["vehicleSlug"]).holds(mode_range_c(mode))


def test_three_drops_on_a_semi_trailer():
    items = [
        cargo(
            f"drop{d}",
            "NONE",
            qty=40,
            dims=(60, 40, 50),
            kg=55.0 + 5 * d,
            **_prio(unloadPriority=d),
        )
        for d in (1, 2, 3)
    ]
    r = run(plan(items, scenario="PALLET_LOAD", options={"preferredContainers": ["semi-13.6m"]}))
    assert r["feasible"]
    assert_consistent(r)
    prio_of = {f"drop{d}": d for d in (1, 2, 3)}
    drops = _pallet_drops(r, prio_of)
    assert all(len(d) == 1 for d in drops.values())  # one drop per pallet
    assert {min(d) for d in drops.values()} == {1, 2, 3}
    _check_deck(r, prio_of)
    [v] = r["vehicles"]
    assert [s["unloadPriority"] for s in v["axleLoadsByStop"]] == [3, 2]
    # the stop entries are the moment balance of the pallets still on board
    containers = {c["containerIndex"]: c for c in r["containers"]}
    gross_left = sum(
        containers[p["containerIndex"]]["totalWeightKg"]
        for p in v["pallets"]
        if drops[p["containerIndex"]] == {1}
    )
    semi = vehicle("semi-13.6m")
    after_two = sum(a["loadKg"] for a in v["axleLoadsByStop"][1]["axleLoads"])
    assert_allclose(after_two, semi.body.tare_kg + gross_left, atol=2e-3)
    # later drops are loaded first: the piece load steps are per pallet; the vehicle's
    # pallets are listed in load order
    listed = [min(drops[p["containerIndex"]]) for p in v["pallets"]]
    assert listed == sorted(listed)


MODES = ["NONE", "PLUS_2_8", "MINUS_25_15", "PLUS_15_25"]


@settings(max_examples=8)
@given(
    items=st.lists(
        st.tuples(
            st.sampled_from(MODES),
            st.integers(1, 30),  # quantity
            st.integers(20, 60),  # length, width, height [cm]
            st.integers(1, 40),  # mass [kg]
            st.integers(0, 2),  # unload priority
        ),
        min_size=1,
        max_size=5,
    )
)
def test_random_multidrop_orders(items):
    cargos = [
        cargo(
            f"i{k}", mode, qty=qty, dims=(side, side, side), kg=float(kg), **_prio(unloadPriority=p)
        )
        for k, (mode, qty, side, kg, p) in enumerate(items)
    ]
    r = run(plan(cargos, scenario="PALLET_LOAD"))
    assert_consistent(r)
    prio_of = {f"i{k}": p for k, (_, _, _, _, p) in enumerate(items)}
    mode_of = {f"i{k}": m for k, (m, _, _, _, _) in enumerate(items)}
    assert all(len(d) == 1 for d in _pallet_drops(r, prio_of).values())
    _check_deck(r, prio_of)
    for v in r["vehicles"]:
        modes = {
            mode_of[p["cargoItemId"]]
            for p in r["placements"]
            if p["containerIndex"] in {q["containerIndex"] for q in v["pallets"]}
        }
        [mode] = modes
        assert vehicle(v["vehicleSlug"]).holds(mode_range_c(mode))
