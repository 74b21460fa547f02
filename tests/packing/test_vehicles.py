"""Pallets onto vehicles: valid geometry, payload and axle limits, overload reported."""

import pytest

from packing import validate_plan
from packing.axles import Support, Vehicle
from packing.model import ContainerType
from packing.result import PackResult
from packing.vehicles import Pallet, load_vehicles, pallet_index

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
