"""Pallets onto vehicles: valid geometry, payload and axle limits, overload reported."""

from itertools import pairwise

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from packing import validate_plan
from packing import vehicles as vehicles_module
from packing.axles import Support, Vehicle
from packing.errors import PackingInputError
from packing.model import ContainerType
from packing.planner import CONSOLIDATE_SHARE
from packing.result import PackResult
from packing.strategies.base import Budget
from packing.vehicles import (
    MIN_ROUND_S,
    Drop,
    Pallet,
    load_vehicles,
    pallet_index,
    stack_pairs,
)
from tests.strategies import multidrop_pallets

TRUCK = Vehicle(
    ContainerType("t", "Truck", (7200, 2400, 2450), max_payload_kg=5000, loading_side="FRONT"),
    Support("front axle", -1500, 4000, 4800),
    Support("rear axle", 4100, 3000, 8500),
)


@pytest.mark.parametrize("n", [1, 3, 8, 20])
def test_every_vehicle_valid_and_within_limits(n):
    pallets = [Pallet(i, (1200, 1200 + 20 * i, 800), 400.0 + 90 * (i % 5)) for i in range(n)]
    plan = load_vehicles(pallets, [TRUCK])
    validate_plan(PackResult([lv.load for lv in plan.vehicles], [], "vehicles", 0.8))
    carried = sorted(pallet_index(p.piece) for lv in plan.vehicles for p in lv.load.placements)
    assert carried == list(range(n)) and not plan.left
    for lv in plan.vehicles:
        assert lv.cargo_weight_kg <= 5000
        assert all(0 <= load <= limit + 1e-6 for _, load, limit in lv.axle_loads())
    assert [lv.index for lv in plan.vehicles] == list(range(len(plan.vehicles)))


def test_overload_is_reported_not_planned():
    # a short body whose only floor places put a heavy pallet outside the allowed band
    short = Vehicle(
        ContainerType("s", "S", (1300, 2000, 900), loading_side="FRONT"), TRUCK.front, TRUCK.rear
    )
    plan = load_vehicles([Pallet(0, (1200, 1000, 800), 4900.0)], [short])
    assert not plan.vehicles
    assert plan.left == [
        (
            0,
            "no vehicle can carry it (4900 kg gross) within its axle limits at every stop "
            "(s when loaded: front axle 6,975 kg over its 4,800 kg limit)",
        )
    ]
    assert plan.left_kinds == {0: "axle"}


def test_pallets_left_by_size_and_by_payload_say_which():
    pallets = [Pallet(0, (3000, 1000, 2600), 300.0), Pallet(1, (1200, 1000, 800), 5500.0)]
    plan = load_vehicles(pallets, [TRUCK])
    assert not plan.vehicles and plan.left_kinds == {0: "size", 1: "weight"}
    reasons = dict(plan.left)
    assert reasons[0].startswith("larger (300×100×260 cm, length×height×width) than every ")
    assert reasons[0].endswith(" eligible vehicle upright, turned either way")
    assert reasons[1].endswith(" kg payload of every eligible vehicle it fits into")
    assert "container" not in reasons[0] + reasons[1]


SEMI = Vehicle(
    ContainerType("semi", "Semi", (13600, 2700, 2480), max_payload_kg=24000, loading_side="FRONT"),
    Support("kingpin", 1100, 2700, 12000),
    Support("trailer axles", 10000, 4800, 24000),
)
REEFER_TRUCK = Vehicle(
    ContainerType(
        "reefer", "Reefer", (7300, 2450, 2470), max_payload_kg=7000, loading_side="FRONT"
    ),
    Support("front axle", -1500, 6200, 7500),
    Support("rear axle", 4100, 4800, 11500, min_share=0.25),
    body_type="REEFER",
    temperature_range_c=(-25.0, 25.0),
)


def _independent_axles(vehicle: Vehicle, points: list[tuple[float, float]]) -> list[float]:
    """Front and rear support loads by the moment balance, written out again."""
    a_f, a_r = vehicle.front.position_mm, vehicle.rear.position_mm
    rear = vehicle.rear.tare_kg + sum(m * (x - a_f) for m, x in points) / (a_r - a_f)
    front = vehicle.front.tare_kg + sum(m * (a_r - x) for m, x in points) / (a_r - a_f)
    return [front, rear]


def _cog_x(pallet: Pallet, placement) -> float:  # type: ignore[no-untyped-def]
    cx, cz = pallet.cog_mm or (pallet.dims[0] / 2, pallet.dims[2] / 2)
    return placement.position[0] + (cx if placement.orientation == 0 else cz)


@settings(max_examples=25)
@given(pallets=multidrop_pallets(), reefer=st.booleans())
def test_multidrop_unload_order_and_axles_at_every_stop(pallets, reefer):
    vehicles = [REEFER_TRUCK] if reefer else [SEMI, TRUCK]
    plan = load_vehicles(pallets, vehicles, time_limit=0.5)
    by_index = {p.index: p for p in pallets}
    event(f"pallets left: {bool(plan.left)}")
    event(f"pallets of two drops: {any(p.drops for p in pallets)}")
    event(
        f"most stops on a vehicle: {max((len(lv.stop_loads()) + 1 for lv in plan.vehicles), default=0)}"
    )
    carried = [pallet_index(p.piece) for lv in plan.vehicles for p in lv.load.placements]
    assert sorted(carried + [i for i, _ in plan.left]) == sorted(by_index)
    assert all(reason for _, reason in plan.left)
    assert set(plan.left_kinds) == {i for i, _ in plan.left}
    validate_plan(PackResult([lv.load for lv in plan.vehicles], [], "vehicles", 0.8))
    for lv in plan.vehicles:
        v = lv.vehicle
        placed = lv.load.placements
        prio = [by_index[pallet_index(p.piece)].unload_priority for p in placed]
        # no pallet of a later drop between the door (X = length) and one of an earlier
        # drop in the same lane (overlapping across the width)
        for a, pa in zip(placed, prio, strict=True):
            for b, pb in zip(placed, prio, strict=True):
                same_lane = (
                    a.position[2] < b.position[2] + b.extents[2]
                    and b.position[2] < a.position[2] + a.extents[2]
                )
                if same_lane and b.position[0] >= a.position[0] + a.extents[0]:
                    assert pb >= pa, (a.position, pa, b.position, pb)
        # later drops are loaded first
        steps = sorted(zip(prio, (p.load_step for p in placed), strict=True))
        for (p1, s1), (p2, s2) in pairwise(steps):
            assert p1 == p2 or s1 < s2
        # every support within its bounds loaded and after each stop (the vehicle empty
        # after the last); a pallet of two drops keeps only its later drop's share after
        # the earlier one's stop
        shares = []  # (drop, kg, x of its centre of gravity [mm])
        for p in placed:
            pallet = by_index[pallet_index(p.piece)]
            if not pallet.drops:
                shares.append((pallet.unload_priority, pallet.gross_kg, _cog_x(pallet, p)))
            for d in pallet.drops:
                x = p.position[0] + (d.cog_mm[0] if p.orientation == 0 else d.cog_mm[1])
                shares.append((d.unload_priority, d.mass_kg, x))
        points = [(m, x) for _, m, x in shares]
        drops = sorted({q for q, _, _ in shares}, reverse=True)
        states = [points] + [[(m, x) for q, m, x in shares if q < d] for d in drops[:-1]]
        reported = [lv.axle_loads()] + [
            [(n, load, lim) for n, load, lim, _ in s.loads] for s in lv.stop_loads()
        ]
        assert len(reported) == len(states)
        for state, rep in zip(states, reported, strict=True):
            front, rear = _independent_axles(v, state)
            gross = v.front.tare_kg + v.rear.tare_kg + sum(m for m, _ in state)
            assert_allclose([front, rear], [rep[0][1], rep[1][1]], rtol=1e-9, atol=1e-6)
            assert v.front.min_share * gross - 1e-3 <= front <= v.front.max_kg + 1e-3
            assert v.rear.min_share * gross - 1e-3 <= rear <= v.rear.max_kg + 1e-3


def test_no_vehicle_holding_the_range_leaves_every_pallet():
    pallets = [Pallet(i, (1200, 1000, 800), 300.0) for i in range(3)]
    plan = load_vehicles(pallets, [SEMI, TRUCK], temperature_range_c=(2.0, 8.0))
    assert not plan.vehicles
    assert plan.left == [(i, "no vehicle holds +2..+8 °C (candidates: semi, t)") for i in range(3)]
    assert plan.left_kinds == dict.fromkeys(range(3), "temperature")
    chilled = load_vehicles(pallets, [SEMI, REEFER_TRUCK], temperature_range_c=(2.0, 8.0))
    assert {lv.vehicle.slug for lv in chilled.vehicles} == {"reefer"} and not chilled.left


def test_pallet_centre_of_gravity_turns_with_the_pallet():
    p = Pallet(0, (1200, 1000, 800), 500.0, cog_mm=(300.0, 500.0))
    assert (p.cog_x(0), p.cog_x(1)) == (300.0, 500.0)
    assert Pallet(1, (1200, 1000, 800), 500.0).cog_x(1) == 400.0
    with pytest.raises(PackingInputError) as exc:
        Pallet(2, (1200, 1000, 800), 500.0, unload_priority=-1)
    assert exc.value.field == "unload_priority"


def _six_on_a_lane() -> tuple[Vehicle, list[Pallet]]:
    """The lane and pallets of the next test (its docstring works out their axle loads)."""
    lane = Vehicle(
        ContainerType("lane", "Lane", (7200, 2400, 900), max_payload_kg=9000, loading_side="FRONT"),
        Support("front axle", -1500, 4000, 4800),
        Support("rear axle", 4100, 3000, 8500, min_share=0.25),
    )
    pallets = [Pallet(i, (1200, 1500, 800), 1000.0, 1) for i in range(2)]
    pallets += [Pallet(i, (1200, 1500, 800), 600.0, 2) for i in range(2, 6)]
    return lane, pallets


def test_a_stop_that_would_overload_the_front_axle_moves_a_pallet_to_another_vehicle():
    """One lane 7,200 mm long (six 1,200 mm pallets fill it, so nothing can shift). Front
    axle 1,500 mm ahead of the body, rear axle at 4,100 mm (span 5,600 mm), tare 4,000 /
    3,000 kg, front limit 4,800 kg. Front share of m at x: m (4100 − x) / 5600.

    The last drop (priority 1, two × 1,000 kg) takes the front places (centres 600 and
    1,800), the first drop (priority 2, four × 600 kg) the rear ones (3,000 … 6,600).
    Loaded: front = 4000 + 1000 (3500 + 2300) / 5600 + 600 (1100 − 100 − 1300 − 2500) / 5600
    = 4000 + 1035.714 − 300 = 4,735.714 kg: within the limit. After stop 1 the rear pallets
    are off: front = 4000 + 1035.714 = 5,035.714 kg, over it. So one vehicle cannot carry
    the six; a heavy pallet goes to a second vehicle.
    """
    lane, pallets = _six_on_a_lane()
    loaded = [(1000.0, 600.0), (1000.0, 1800.0)] + [(600.0, x) for x in (3000, 4200, 5400, 6600)]
    assert_allclose(_independent_axles(lane, loaded)[0], 4735.714, atol=1e-3)
    assert_allclose(_independent_axles(lane, loaded[:2])[0], 5035.714, atol=1e-3)
    plan = load_vehicles(pallets, [lane], time_limit=0.5)
    assert not plan.left and len(plan.vehicles) == 2
    for lv in plan.vehicles:
        assert all(load <= limit + 1e-3 for _, load, limit in lv.axle_loads())
        for s in lv.stop_loads():
            assert all(load <= limit + 1e-3 for _, load, limit, _ in s.loads)


def test_axle_loads_after_each_stop_with_a_pallet_of_two_drops_by_hand():
    """One lane 3,600 mm long that three 1,200 mm pallets fill (nothing can shift); front
    axle 1,500 mm ahead of the body, rear (drive) axle at 4,100 mm (span 5,600 mm), tare
    4,000 / 3,000 kg, the drive axle at least 25 % of the gross. Rear share of m at x:
    m (x + 1500) / 5600.

    Pallets: #0 of drop 1 alone, 600 kg at its deck centre; #1 of drops 2 and 1: 300 kg of
    drop 2 at 400 mm along the deck and 500 kg of drop 1 (the tare with it) at 700 mm; #2 of
    drop 2 alone, 400 kg at its centre. On the deck from the front wall: #0, #1 (behind the
    pallets of its earliest drop alone, ahead of those of its last), #2, so the points are
    600 kg at 600, 300 kg at 1,600, 500 kg at 1,900, 400 kg at 3,000 mm.

    Loaded: Σ m (x + 1500) = 600·2100 + 300·3100 + 500·3400 + 400·4500 = 5,690,000
    → rear 3000 + 1016.071 = 4,016.071 kg (least 25 % × 8,800 = 2,200 kg), front
    4000 + 1800 − 1016.071 = 4,783.929 kg.
    After stop 1 (drop 2 off: pallet #2 and the top of #1): 600·2100 + 500·3400 = 2,960,000
    → rear 3000 + 528.571 = 3,528.571 kg (least 25 % × 8,100 = 2,025 kg), front
    4000 + 1100 − 528.571 = 4,571.429 kg. (Were #1 unloaded whole, the front would carry
    4,375 kg; were it kept whole, 4,705.357 kg.)
    """
    lane = Vehicle(
        ContainerType("lane", "Lane", (3600, 2400, 900), max_payload_kg=9000, loading_side="FRONT"),
        Support("front axle", -1500, 4000, 4800),
        Support("rear axle", 4100, 3000, 8500, min_share=0.25),
    )
    dims = (1200, 1500, 800)
    mixed = Pallet(
        1,
        dims,
        800.0,
        2,
        (587.5, 400.0),
        drops=(Drop(2, 300.0, (400.0, 400.0)), Drop(1, 500.0, (700.0, 400.0))),
    )
    pallets = [Pallet(2, dims, 400.0, 2), mixed, Pallet(0, dims, 600.0, 1)]
    plan = load_vehicles(pallets, [lane], time_limit=0.5)
    assert not plan.left
    [lv] = plan.vehicles
    validate_plan(PackResult([lv.load], [], "vehicles", 0.8))
    along = sorted(lv.load.placements, key=lambda p: p.position[0])
    assert [(pallet_index(p.piece), p.position[0]) for p in along] == [(0, 0), (1, 1200), (2, 2400)]
    # the pallet of drop 1 alone is loaded first, the one of drop 2 alone last
    assert [pallet_index(p.piece) for p in lv.load.placements] == [0, 1, 2]
    assert_allclose([a[1] for a in lv.axle_loads()], [4783.929, 4016.071], atol=1e-3)
    assert_allclose(lv.axle_minimums(), [0.0, 2200.0], atol=1e-6)
    [stop] = lv.stop_loads()
    assert (stop.stop, stop.unload_priority) == (1, 2)
    assert_allclose([a[1] for a in stop.loads], [4571.429, 3528.571], atol=1e-3)
    assert_allclose([a[3] for a in stop.loads], [0.0, 2025.0], atol=1e-6)


def test_a_pallet_of_several_drops_checks_its_shares():
    with pytest.raises(PackingInputError) as exc:
        Pallet(
            0, (1200, 1000, 800), 500.0, 2, drops=(Drop(2, 100.0, (1, 1)), Drop(1, 300.0, (1, 1)))
        )
    assert exc.value.field == "drops"
    with pytest.raises(PackingInputError) as exc:
        Pallet(
            0, (1200, 1000, 800), 400.0, 1, drops=(Drop(2, 100.0, (1, 1)), Drop(1, 300.0, (1, 1)))
        )
    assert exc.value.field == "unload_priority"


def _deck(double_stack: bool) -> Vehicle:
    return Vehicle(
        ContainerType(
            "deck" if double_stack else "flat",
            "Reefer",
            (13300, 2600, 2460),
            max_payload_kg=22000,
            loading_side="FRONT",
        ),
        Support("kingpin", 1000, 3600, 12000),
        Support("trailer axles", 9900, 5400, 24000),
        double_stack=double_stack,
    )


def _stackable(n: int, *, stackable: bool = True, height: int = 1100) -> list[Pallet]:
    return [
        Pallet(i, (1200, height, 800), 300.0 + 10 * (i % 4), stackable=stackable) for i in range(n)
    ]


def test_stackable_pallets_go_two_high_on_a_double_deck_vehicle():
    # 40 pallets: the floor holds 33 (11 rows of 3), so one vehicle only stacked
    pallets = _stackable(40)
    plan = load_vehicles(pallets, [_deck(True)], time_limit=1.0)
    assert not plan.left and len(plan.vehicles) == 1
    [lv] = plan.vehicles
    validate_plan(PackResult([lv.load], [], "vehicles", 0.8))
    placed = lv.load.placements
    assert sorted(pallet_index(p.piece) for p in placed) == list(range(40))
    by_index = {p.index: p for p in pallets}
    floor = {(p.position[0], p.position[2]): p for p in placed if p.position[1] == 0}
    upper = [p for p in placed if p.position[1] > 0]
    assert len(upper) == 20 and len(floor) == 20
    for p in upper:
        below = floor[(p.position[0], p.position[2])]  # right on a pallet of the floor
        assert p.position[1] == below.extents[1] == 1100
        assert p.position[1] + p.extents[1] <= 2600
        assert (
            by_index[pallet_index(p.piece)].gross_kg <= by_index[pallet_index(below.piece)].gross_kg
        )
        assert below.load_step < p.load_step
    # the axle loads are the moment balance of every pallet, stacked ones included
    points = [(by_index[pallet_index(p.piece)].gross_kg, p.position[0] + 600.0) for p in placed]
    assert_allclose(
        [a[1] for a in lv.axle_loads()], _independent_axles(lv.vehicle, points), atol=1e-6
    )


@pytest.mark.parametrize(
    ("stackable", "double_stack"), [(False, True), (True, False)], ids=["load", "vehicle"]
)
def test_no_stacking_without_a_stackable_load_or_a_second_deck(stackable, double_stack):
    plan = load_vehicles(_stackable(40, stackable=stackable), [_deck(double_stack)], time_limit=1.0)
    assert not plan.left and len(plan.vehicles) == 2
    assert all(p.position[1] == 0 for lv in plan.vehicles for p in lv.load.placements)


def _rounds(monkeypatch) -> list[tuple[float, int]]:
    """The (time limit, work units spent) of each plan the vehicle planning makes."""
    calls: list[tuple[float, int]] = []
    real = vehicles_module.plan_containers

    def spy(pieces, types, **kw):
        result = real(pieces, types, **kw)
        calls.append((kw["time_limit"], result.work_units))
        return result

    monkeypatch.setattr(vehicles_module, "plan_containers", spy)
    return calls


def _assert_shared(calls: list[tuple[float, int]], budget: float) -> None:
    """Each round's limit is what the rounds before it left of ``budget``, its
    consolidation's share taken off (at least a greedy round's)."""
    left = budget
    for limit, units in calls:
        assert limit == pytest.approx(max(MIN_ROUND_S, left / (1 + CONSOLIDATE_SHARE)))
        left -= units / Budget.RATE


def test_the_rounds_of_a_vehicle_plan_share_its_budget(monkeypatch):
    # the six pallets of the lane above: one vehicle cannot carry them at every stop, so a
    # heavy pallet is planned again in a round of its own
    calls = _rounds(monkeypatch)
    lane, pallets = _six_on_a_lane()
    plan = load_vehicles(pallets, [lane], time_limit=0.5)
    assert len(plan.vehicles) == 2 and len(calls) >= 2
    _assert_shared(calls, 0.5)
    assert plan.work_units == sum(units for _, units in calls) > 0


def test_the_plans_without_and_with_stacking_get_half_the_budget_each(monkeypatch):
    calls = _rounds(monkeypatch)
    plan = load_vehicles(_stackable(40), [_deck(True)], time_limit=0.4)
    assert len(plan.vehicles) == 1
    assert len(calls) == 2  # one round each
    _assert_shared(calls[:1], 0.2)
    _assert_shared(calls[1:], 0.2)
    assert plan.work_units == sum(units for _, units in calls)


def test_stack_pairs_rules():
    # too tall together, different drops, a pallet of two drops: no pairs
    assert stack_pairs(_stackable(2, height=1400), 2600) == []
    a, b = _stackable(2)
    assert stack_pairs([a, Pallet(1, b.dims, b.gross_kg, 1, stackable=True)], 2600) == []
    mixed = Pallet(
        1, b.dims, 300.0, 1, drops=(Drop(1, 100.0, (1, 1)), Drop(0, 200.0, (1, 1))), stackable=True
    )
    assert stack_pairs([Pallet(0, b.dims, 300.0, 1, stackable=True), mixed], 2600) == []
    # the heavier pallet below
    light, heavy = (
        Pallet(0, a.dims, 200.0, stackable=True),
        Pallet(1, a.dims, 500.0, stackable=True),
    )
    assert stack_pairs([light, heavy], 2600) == [(heavy, light)]
