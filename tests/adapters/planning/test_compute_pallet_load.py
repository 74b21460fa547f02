"""PALLET_LOAD end to end: temperature capability, unload order on the deck, axle loads at
every stop (docs/conventions.md#pallet_load)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
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
    """Every vehicle: no pallet in the way of another at a stop (in a lane, the pallet
    nearer the door is wholly off by the stop where the other is first touched), every
    support within its bounds loaded and after each stop, one stop entry per stop but the
    last."""
    drops = _pallet_drops(result, prio_of_item)
    containers = {c["containerIndex"]: c for c in result["containers"]}
    for v in result["vehicles"]:
        body = vehicle(v["vehicleSlug"]).body
        boxes = []
        for p in v["pallets"]:
            c = containers[p["containerIndex"]]
            held = drops[p["containerIndex"]]
            turned = p["rotation"] == [0, 90, 0]
            length = c["innerUsableMm"][2] if turned else c["innerUsableMm"][0]
            width = c["innerUsableMm"][0] if turned else c["innerUsableMm"][2]
            x, _, z = p["positionMm"]
            assert x >= 0 and x + length <= body.inner[0] and z + width <= body.inner[2]
            boxes.append((x, x + length, z, z + width, held))
        for _, ax1, az0, az1, a in boxes:
            for bx0, _, bz0, bz1, b in boxes:
                if az0 < bz1 and bz0 < az1 and bx0 >= ax1:
                    # b stands nearer the door than a: all off before a is first touched
                    assert min(b) >= max(a)
        on_board = sorted(set().union(*(b[4] for b in boxes)), reverse=True)
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
    # 40 cartons a drop: three full pallets (12 each) and 4 left over; the tails of drops
    # 3 and 2 share a pallet (drop 3 on top), that of drop 1 stays apart (a pallet holding
    # drops 3..1 would stand in the way of drop 2's pallets)
    assert sorted(sorted(d) for d in drops.values()) == [[1]] * 4 + [[2]] * 3 + [[2, 3]] + [[3]] * 3
    assert "1 pallet holds two or more drops" in r["modes"][0]["message"]
    _check_deck(r, prio_of)
    [v] = r["vehicles"]
    assert [s["unloadPriority"] for s in v["axleLoadsByStop"]] == [3, 2]
    # the stop entries are the moment balance of what is still on board: after stop 1 the
    # pieces of drops 2 and 1 and the pallets holding them, the mixed one included
    semi = vehicle("semi-13.6m")
    kg = {f"drop{d}": 55.0 + 5 * d for d in (1, 2, 3)}
    for k, last in ((0, 3), (1, 2)):
        pieces = sum(
            kg[p["cargoItemId"]] for p in r["placements"] if prio_of[p["cargoItemId"]] < last
        )
        tares = 25.0 * sum(min(d) < last for d in drops.values())
        after = sum(a["loadKg"] for a in v["axleLoadsByStop"][k]["axleLoads"])
        assert_allclose(after, semi.body.tare_kg + pieces + tares, atol=2e-3)
    # later drops are loaded first: the piece load steps are per pallet; the vehicle's
    # pallets are listed in load order (the mixed pallet between drops 2 and 3)
    listed = [
        (max(drops[p["containerIndex"]]), min(drops[p["containerIndex"]])) for p in v["pallets"]
    ]
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
    # the pallets of a mode (which may share a vehicle): neither in the other's way
    pallet_mode = {p["containerIndex"]: mode_of[p["cargoItemId"]] for p in r["placements"]}
    spans = [(pallet_mode[c], min(d), max(d)) for c, d in _pallet_drops(r, prio_of).items()]
    for a, b in combinations(spans, 2):
        assert a[0] != b[0] or a[1] >= b[2] or b[1] >= a[2]
    _check_deck(r, prio_of)
    for v in r["vehicles"]:
        modes = {
            mode_of[p["cargoItemId"]]
            for p in r["placements"]
            if p["containerIndex"] in {q["containerIndex"] for q in v["pallets"]}
        }
        [mode] = modes
        assert vehicle(v["vehicleSlug"]).holds(mode_range_c(mode))


def _two_drops(qty: int, scenario: str, **fields: Any) -> dict[str, Any]:
    # 60 × 40 × 50 cm cartons of 20 kg: 12 to an EUR pallet (four a layer, three layers)
    items = [
        cargo(f"drop{d}", "NONE", qty=qty, dims=(60, 40, 50), kg=20.0, **_prio(unloadPriority=d))
        for d in (1, 2)
    ]
    return plan(items, scenario=scenario, **fields)


def test_two_half_pallets_of_two_drops_share_one_pallet_later_drop_lower():
    r = run(_two_drops(4, "PALLET"))
    assert r["feasible"]
    assert_consistent(r)
    assert len(r["containers"]) == 1
    assert {p["cargoItemId"] for p in r["placements"]} == {"drop1", "drop2"}
    # the pallet is unloaded from the top: no carton of the later drop (1) lies above one
    # of the earlier drop (2) that it overlaps
    for low in r["placements"]:
        for high in r["placements"]:
            (lx, ly, lz), (ldx, ldy, ldz) = low["positionMm"], low["dimensionsMm"]
            (hx, hy, hz), (hdx, _, hdz) = high["positionMm"], high["dimensionsMm"]
            overlap = lx < hx + hdx and hx < lx + ldx and lz < hz + hdz and hz < lz + ldz
            if overlap and hy >= ly + ldy and low["cargoItemId"] == "drop2":
                assert high["cargoItemId"] == "drop2"
    assert "1 pallet holds two or more drops" in r["modes"][0]["message"]
    assert "saving 1 pallet" in r["modes"][0]["message"]


def test_two_drops_filling_most_of_a_pallet_each_keep_a_pallet_each():
    r = run(_two_drops(10, "PALLET"))
    assert r["feasible"]
    drops = _pallet_drops(r, {"drop1": 1, "drop2": 2})
    assert sorted(sorted(d) for d in drops.values()) == [[1], [2]]
    assert "one drop per pallet (2 drops)" in r["modes"][0]["message"]


def test_a_mixed_pallet_on_a_vehicle_loses_its_earlier_drop_at_the_first_stop():
    body = _two_drops(16, "PALLET_LOAD", options={"preferredContainers": ["truck-12t"]})
    r = run(body)
    assert r["feasible"]
    assert_consistent(r)
    prio_of = {"drop1": 1, "drop2": 2}
    drops = _pallet_drops(r, prio_of)
    # 12 + 4 of each drop: the two tails share a pallet
    assert sorted(sorted(d) for d in drops.values()) == [[1], [1, 2], [2]]
    _check_deck(r, prio_of)
    [v] = r["vehicles"]
    [stop] = v["axleLoadsByStop"]
    # after stop 1: the 16 cartons of drop 1 and the tares of the two pallets holding them
    truck = vehicle("truck-12t")
    on_board = sum(a["loadKg"] for a in stop["axleLoads"])
    assert_allclose(on_board, truck.body.tare_kg + 16 * 20.0 + 2 * 25.0, atol=2e-3)
    # and the moment balance of those pieces where they stand
    containers = {p["containerIndex"]: p for p in v["pallets"]}
    deck = {c["containerIndex"]: c for c in r["containers"]}
    a_f, a_r = truck.front.position_mm, truck.rear.position_mm
    moment = 0.0
    for index, held in drops.items():
        if 1 not in held:
            continue
        x0 = containers[index]["positionMm"][0]
        turned = containers[index]["rotation"] == [0, 90, 0]
        length, _, width = deck[index]["innerUsableMm"]
        moment += 25.0 * (x0 + (width if turned else length) / 2 - a_f)
        for p in r["placements"]:
            if p["containerIndex"] == index and p["cargoItemId"] == "drop1":
                along = (
                    p["positionMm"][2] + p["dimensionsMm"][2] / 2
                    if turned
                    else (p["positionMm"][0] + p["dimensionsMm"][0] / 2)
                )
                moment += 20.0 * (x0 + along - a_f)
    rear = truck.rear.tare_kg + moment / (a_r - a_f)
    assert_allclose(stop["axleLoads"][1]["loadKg"], rear, atol=2e-3)


def _one_layer_pallets(fragile: bool = False, **rules: Any) -> dict[str, Any]:
    # 60 × 40 × 100 cm cartons: one layer of four to an EUR pallet, 1,144 mm high loaded;
    # 40 pallets, of which a 13.4 m reefer's floor holds 33
    item = cargo(
        "c", "PLUS_2_8", qty=160, dims=(60, 40, 100), kg=60.0, **_prio(fragile=fragile, **rules)
    )
    return plan([item], scenario="PALLET_LOAD", options={"preferredContainers": ["reefer-13.4m"]})


def test_stackable_pallets_go_two_high_on_a_double_deck_reefer():
    r = run(_one_layer_pallets(False))
    assert r["feasible"]
    assert_consistent(r)
    [v] = r["vehicles"]
    assert vehicle(v["vehicleSlug"]).double_stack
    assert len(v["pallets"]) == 40
    assert "20 pallets stacked on another (two decks)" in r["modes"][0]["message"]
    heights = {
        c["containerIndex"]: 144
        + max(
            p["positionMm"][1] + p["dimensionsMm"][1]
            for p in r["placements"]
            if p["containerIndex"] == c["containerIndex"]
        )
        for c in r["containers"]
    }
    floor = {
        (p["positionMm"][0], p["positionMm"][2]): p["containerIndex"]
        for p in v["pallets"]
        if p["positionMm"][1] == 0
    }
    upper = [p for p in v["pallets"] if p["positionMm"][1] > 0]
    assert len(upper) == 20
    body_height = vehicle(v["vehicleSlug"]).body.inner[1]
    for p in upper:
        below = floor[(p["positionMm"][0], p["positionMm"][2])]
        assert p["positionMm"][1] == heights[below]  # on the lower pallet's load
        assert p["positionMm"][1] + heights[p["containerIndex"]] <= body_height
    _check_deck(r, {"c": 0})


@pytest.mark.parametrize(
    "rules",
    [{"fragile": True}, {"allowStackUnder": False}],
    ids=["fragile", "must stand on the floor"],
)
def test_pallets_of_fragile_or_floor_only_cargo_are_not_stacked(rules):
    # a piece that must stand on the floor keeps its pallet on the deck: the upper pallet
    # of a stack stands on another pallet's load
    r = run(_one_layer_pallets(**rules))
    assert r["feasible"]
    assert len(r["vehicles"]) == 2
    assert all(p["positionMm"][1] == 0 for v in r["vehicles"] for p in v["pallets"])
    assert "stacked" not in r["modes"][0]["message"]
