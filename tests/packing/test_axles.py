"""Axle loads by static moment balance, against values computed by hand."""

import pytest
from numpy.testing import assert_allclose

from packing.axles import Slot, Support, Vehicle, arrange, axle_loads, within_limits
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
