"""Axle loads by static moment balance, against values computed by hand."""

import pytest
from numpy.testing import assert_allclose

from packing.axles import (
    Arrangement,
    Slot,
    Support,
    Vehicle,
    arrange,
    arrangement_problems,
    axle_loads,
    axle_minimums,
    axle_problems,
    stops,
    within_limits,
)
from packing.errors import PackingInputError
from packing.model import ContainerType

BODY = ContainerType("t", "Truck", (6000, 2400, 2400), max_payload_kg=5000, loading_side="FRONT")
# front axle 1,000 mm ahead of the body, rear axle at 4,000 mm: span 5,000 mm
TRUCK = Vehicle(
    BODY, Support("front axle", -1000, 3000, 4000), Support("rear axle", 4000, 2000, 6000)
)


def test_hand_computed_axle_loads():
    # 1,000 kg at x = 1,500: rear share 1000·2500/5000 = 500 kg, front 500 kg
    (f, fl, fm), (r, rl, rm) = axle_loads(TRUCK, [(1000, 1500)])
    assert (f, r) == ("front axle", "rear axle")
    assert_allclose([fl, rl], [3500, 2500], atol=1e-9)
    assert (fm, rm) == (4000, 6000)
    # 2,000 kg at x = 4,000 (over the rear axle): all of it on the rear axle
    assert_allclose([a[1] for a in axle_loads(TRUCK, [(2000, 4000)])], [3000, 4000], atol=1e-9)


def test_cog_range_from_the_limits():
    # M = 4,000 kg: front ≤ 4,000 → x ≥ 4000 − 1000·5000/4000 = 2,750;
    # rear ≤ 6,000 → x ≤ −1000 + 4000·5000/4000 = 4,000
    assert_allclose(TRUCK.cog_range(4000), (2750, 4000))
    lo, hi = TRUCK.cog_range(4000)
    assert within_limits(TRUCK, [(4000, lo)]) and within_limits(TRUCK, [(4000, hi)])
    assert not within_limits(TRUCK, [(4000, lo - 10)]) and not within_limits(
        TRUCK, [(4000, hi + 10)]
    )


def test_arrange_moves_weight_into_the_allowed_band():
    # three pallets packed at the front; heavy ones must move back for the front axle
    slots = [Slot(0, 1200), Slot(1200, 1200), Slot(2400, 1200)]
    masses = [1500.0, 1500.0, 300.0]
    assert not within_limits(TRUCK, [(m, s.centre) for m, s in zip(masses, slots, strict=True)])
    assign, shift = arrange(TRUCK, slots, masses)
    placed = [(masses[i], slots[assign[i]].centre + shift) for i in range(3)]
    assert within_limits(TRUCK, placed)
    assert (
        min(s.x_mm for s in slots) + shift >= 0
        and max(s.x_mm + s.length_mm for s in slots) + shift <= 6000
    )


def test_arrange_reports_impossible_loads():
    # 4,900 kg needs its centre within [2,980, 3,082]: one pallet can stand there,
    # but not if the floor places allow no such position
    assert arrange(TRUCK, [Slot(0, 1200)], [4900.0]) is not None
    short = Vehicle(
        ContainerType("s", "S", (1500, 2000, 2000), loading_side="FRONT"), TRUCK.front, TRUCK.rear
    )
    assert arrange(short, [Slot(0, 1200)], [4900.0]) is None


def test_supports_must_be_in_order():
    with pytest.raises(PackingInputError, match="ahead of the rear"):
        Vehicle(BODY, Support("a", 5000, 0, 1), Support("b", 1000, 0, 1))


# A semi-trailer: kingpin 1,000 mm behind the body's front wall, trailer axles at 10,000 mm
# (span 9,000 mm); tare 3,000 kg on the kingpin and 5,000 kg on the axles.
SEMI = Vehicle(
    ContainerType("semi", "Semi", (13600, 2700, 2480), max_payload_kg=24000, loading_side="FRONT"),
    Support("kingpin", 1000, 3000, 12000),
    Support("trailer axles", 10000, 5000, 24000),
)
# A rigid truck: front axle 1,500 mm ahead of the body, rear (drive) axle at 4,100 mm
# (span 5,600 mm); tare 4,000 / 3,000 kg; the drive axle carries at least 25 % of the gross.
RIGID = Vehicle(
    ContainerType("rigid", "Rigid", (7200, 2400, 2450), max_payload_kg=5000, loading_side="FRONT"),
    Support("front axle", -1500, 4000, 4800),
    Support("rear axle", 4100, 3000, 8500, min_share=0.25),
)


def test_three_drop_semi_axle_loads_per_stop_by_hand():
    """Six 1,000 kg pallets in one lane, two per drop, the last drop at the front wall.

    Centres of gravity along X [mm]: drop of priority 1 (unloaded last) at 300 (its load
    sits at the front end of the deck) and 1,800; priority 2 at 3,000 and 4,200; priority 3
    (unloaded first) at 5,400 and 6,600. Rear share of a load m at x: m (x − 1000) / 9000.

    Loaded: Σ m (x − 1000) = 1000 (−700 + 800 + 2000 + 3200 + 4400 + 5600) = 15,300,000
    → axles 5000 + 1700 = 6,700 kg, kingpin 3000 + 6000 − 1700 = 7,300 kg.
    After stop 1 (priority 3 off): Σ = 1000 (−700 + 800 + 2000 + 3200) = 5,300,000
    → axles 5000 + 588.889 = 5,588.889, kingpin 3000 + 4000 − 588.889 = 6,411.111 kg.
    After stop 2 (priority 2 off): Σ = 1000 (−700 + 800) = 100,000
    → axles 5000 + 11.111 = 5,011.111, kingpin 3000 + 2000 − 11.111 = 4,988.889 kg.
    """
    slots = [Slot(x, 1200) for x in (0, 1200, 2400, 3600, 4800, 6000)]
    masses = [1000.0] * 6
    prio = [1, 1, 2, 2, 3, 3]
    offsets = [[300.0 if i == 0 else 600.0] * 6 for i in range(6)]
    states = [tuple(range(6))] + [s.remaining for s in stops(prio)[:-1]]
    assert [s.unload_priority for s in stops(prio)] == [3, 2, 1]
    loads = [
        [
            load
            for _, load, _ in axle_loads(SEMI, [(1000.0, slots[i].x_mm + offsets[i][i]) for i in r])
        ]
        for r in states
    ]
    assert_allclose(loads, [[7300, 6700], [6411.111, 5588.889], [4988.889, 5011.111]], atol=1e-3)
    keep = Arrangement(list(range(6)), 0)
    assert arrangement_problems(SEMI, slots, masses, keep, priorities=prio, offsets=offsets) == []


def test_rigid_truck_front_axle_over_its_limit_after_the_first_stop_by_hand():
    """Two 1,000 kg pallets of the last drop at the front wall, two 800 kg pallets of the
    first drop behind the rear axle. Front share of a load m at x: m (4100 − x) / 5600.

    Loaded: 1000 (3500 + 2300) / 5600 + 800 (−1300 − 2500) / 5600 = 1035.714 − 542.857
    = 492.857 → front 4,492.857 kg; rear 3000 + 3600 − 492.857 = 6,107.143 kg
    (least 25 % × 10,600 = 2,650 kg). After stop 1 the overhang no longer lifts the front:
    front 4000 + 1035.714 = 5,035.714 kg > 4,800 kg; rear 3000 + 964.286 = 3,964.286 kg.
    """
    slots = [Slot(0, 1200), Slot(1200, 1200), Slot(4800, 1200), Slot(6000, 1200)]
    masses = [1000.0, 1000.0, 800.0, 800.0]
    prio = [1, 1, 2, 2]
    loaded = axle_loads(RIGID, [(m, s.centre) for m, s in zip(masses, slots, strict=True)])
    assert_allclose([load for _, load, _ in loaded], [4492.857, 6107.143], atol=1e-3)
    assert_allclose(axle_minimums(RIGID, 3600.0), [0.0, 2650.0])
    after = axle_loads(RIGID, [(1000.0, 600.0), (1000.0, 1800.0)])
    assert_allclose([load for _, load, _ in after], [5035.714, 3964.286], atol=1e-3)
    keep = Arrangement([0, 1, 2, 3], 0)
    assert arrangement_problems(RIGID, slots, masses, keep, priorities=prio) == [
        "after stop 1 (unloadPriority 2): front axle 5,036 kg over its 4,800 kg limit"
    ]
    # no shift is possible (the places reach both walls) and equal masses gain nothing from
    # swaps: no arrangement of these places keeps the limits at every stop
    assert arrange(RIGID, slots, masses, priorities=prio) is None
    # with the places together at the front wall the group can move back
    together = [Slot(x, 1200) for x in (0, 1200, 2400, 3600)]
    found = arrange(RIGID, together, masses, priorities=prio)
    assert found is not None and found.shift > 0
    assert arrangement_problems(RIGID, together, masses, found, priorities=prio) == []
    # the last drop (priority 1) stays in the front places
    assert sorted(found.assignment[:2]) == [0, 1]


def test_drive_axle_minimum_share():
    # rear support: tare 2,000 kg, at least 40 % of the gross. M = 1,000 kg: gross 6,000 kg,
    # rear ≥ 2,400 kg → cargo on the rear ≥ 400 kg → x ≥ −1000 + 400·5000/1000 = 1,000 mm;
    # upper end from the rear limit: x ≤ −1000 + (6000 − 2000)·5000/1000 = 19,000 mm
    v = Vehicle(BODY, TRUCK.front, Support("rear axle", 4000, 2000, 6000, min_share=0.4))
    assert_allclose(v.cog_range(1000), (1000, 19000))
    # 1,000 kg at x = 900: rear = 2000 + 1000·1900/5000 = 2,380 kg < 2,400 kg
    assert axle_problems(v, [(1000, 900)]) == [
        "rear axle 2,380 kg under its minimum 2,400 kg (40% of the gross mass)"
    ]
    assert axle_problems(v, [(1000, 1100)]) == []


def test_arrange_keeps_later_drops_further_in():
    slots = [Slot(x, 1200) for x in (3600, 0, 2400, 1200)]
    prio = [2, 0, 1, 0]
    found = arrange(SEMI, slots, [500.0, 700.0, 600.0, 800.0], priorities=prio)
    assert found is not None
    centre = {i: slots[found.assignment[i]].centre for i in range(4)}
    # the priority-0 pallets take the two front places, priority 2 the rearmost
    assert max(centre[1], centre[3]) < centre[2] < centre[0]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"priorities": [0]}, "priorities"),
        ({"offsets": [[600.0]]}, "offsets"),
    ],
)
def test_arrange_checks_its_arguments(kwargs, field):
    with pytest.raises(PackingInputError) as exc:
        arrange(SEMI, [Slot(0, 1200), Slot(1200, 1200)], [1.0, 2.0], **kwargs)
    assert exc.value.field == field


def test_temperature_capability():
    reefer = Vehicle(
        BODY, TRUCK.front, TRUCK.rear, body_type="REEFER", temperature_range_c=(-25.0, 25.0)
    )
    chiller = Vehicle(
        BODY, TRUCK.front, TRUCK.rear, body_type="REEFER", temperature_range_c=(0, 12)
    )
    assert TRUCK.holds(None) and not TRUCK.holds((2.0, 8.0))
    assert reefer.holds((2.0, 8.0)) and reefer.holds((-25.0, -15.0)) and reefer.holds((15, 25))
    assert not reefer.holds((-78.0, -78.0))
    assert chiller.holds((2.0, 8.0)) and not chiller.holds((-25.0, -15.0))
    with pytest.raises(PackingInputError) as exc:
        Vehicle(BODY, TRUCK.front, TRUCK.rear, body_type="OPEN")
    assert exc.value.field == "body_type"
    with pytest.raises(PackingInputError) as exc:
        Vehicle(BODY, TRUCK.front, TRUCK.rear, temperature_range_c=(5.0, -5.0))
    assert exc.value.field == "temperature_range_c"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"position_mm": None}, "position_mm"),
        ({"position_mm": float("nan")}, "position_mm"),
        ({"tare_kg": float("nan")}, "tare_kg"),
        ({"tare_kg": -5.0}, "tare_kg"),
        ({"max_kg": float("nan")}, "max_kg"),
        ({"max_kg": float("inf")}, "max_kg"),
        ({"max_kg": "7100"}, "max_kg"),
    ],
)
def test_a_support_of_bad_numbers_is_refused_by_name(kwargs, field):
    """A NaN limit or tare made every axle check fail or pass without saying why; text
    failed later inside the arithmetic."""
    args = {"name": "front axle", "position_mm": -500.0, "tare_kg": 3000.0, "max_kg": 7100.0}
    with pytest.raises(PackingInputError) as info:
        Support(**(args | kwargs))
    assert info.value.field == field
