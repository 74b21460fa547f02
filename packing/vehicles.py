"""Loading pallets onto vehicles within payload and axle limits (PALLET_LOAD).

Pallets are floor-only pieces that carry nothing on top. The packer chooses vehicles and
floor places; each vehicle's pallets are then arranged by :func:`packing.axles.arrange`
(permuted across the places and shifted along the body) so that both supports stay within
their limits. When no arrangement exists, the heaviest pallet leaves that vehicle and is
planned again with the others left over; pallets no vehicle can carry are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from packing.axles import Slot, Vehicle, arrange, axle_loads
from packing.geometry import FLOOR_ORIENTATIONS, extents
from packing.loadorder import load_steps
from packing.model import Piece, Placement, Rules
from packing.planner import plan_containers
from packing.result import ContainerLoad
from packing.strategies import Strategy

PALLET_RULES = Rules(orientations=FLOOR_ORIENTATIONS, stack_on_top=False, stack_under=False)


@dataclass(frozen=True, slots=True)
class Pallet:
    """A loaded pallet to carry.

    Attributes
    ----------
    index : int
        The pallet's ``containerIndex`` in the plan.
    dims : tuple of int
        Deck length, loaded height (deck plus load), deck width [mm].
    gross_kg : float
        Pallet tare plus its cargo [kg]; taken to act at the deck's centre.
    """

    index: int
    dims: tuple[int, int, int]
    gross_kg: float


@dataclass(slots=True)
class LoadedVehicle:
    """One vehicle of the plan: its pallets as placements (item id ``pallet-<index>``)."""

    vehicle: Vehicle
    index: int
    load: ContainerLoad

    @property
    def cargo_weight_kg(self) -> float:
        return self.load.cargo_weight_kg

    def axle_loads(self) -> list[tuple[str, float, float]]:
        """``[(support name, load [kg], limit [kg])]``, front first."""
        return axle_loads(
            self.vehicle,
            [(p.piece.weight_kg, p.position[0] + p.extents[0] / 2) for p in self.load.placements],
        )


@dataclass(slots=True)
class VehiclePlan:
    vehicles: list[LoadedVehicle] = field(default_factory=list)
    #: Pallets no vehicle can carry: ``(pallet index, reason)``.
    left: list[tuple[int, str]] = field(default_factory=list)


def pallet_index(piece: Piece) -> int:
    return int(piece.item_id.removeprefix("pallet-"))


def load_vehicles(
    pallets: Sequence[Pallet],
    vehicles: Sequence[Vehicle],
    *,
    time_limit: float = 2.0,
    vehicle_offset: int = 0,
    strategy: str | Strategy | None = None,
) -> VehiclePlan:
    """Plan vehicles for pallets: fewest vehicles, every one within its axle limits.

    Parameters
    ----------
    pallets : sequence of Pallet
    vehicles : sequence of Vehicle
        Vehicle types to choose from.
    time_limit : float
        Budget of each round of vehicle planning [s].
    vehicle_offset : int
        Index of the first vehicle.
    strategy : str, Strategy or None
        Packing strategy of the floor places (see :func:`packing.plan_containers`, which
        packs with clones of it); None: block building.
    """
    by_slug = {v.slug: v for v in vehicles}
    queue = [
        Piece(f"pallet-{p.index}", 0, p.dims, p.gross_kg, PALLET_RULES, item_order=p.index)
        for p in pallets
    ]
    out = VehiclePlan()
    while queue:
        plan = plan_containers(
            queue, [v.body for v in vehicles], strategy=strategy, time_limit=time_limit
        )
        carried_nowhere = [u for u in plan.unplaced if u.kind in ("size", "weight")]
        for u in carried_nowhere:
            out.left.append((pallet_index(u.piece), u.reason))
        retry = [u.piece for u in plan.unplaced if u.kind not in ("size", "weight")]
        progress = False
        for load in plan.containers:
            vehicle = by_slug[load.container.slug]
            placed = list(load.placements)
            while placed:
                arranged = _arranged(vehicle, placed, vehicle_offset + len(out.vehicles))
                if arranged is not None:
                    out.vehicles.append(LoadedVehicle(vehicle, arranged.index, arranged))
                    progress = True
                    break
                heaviest = max(range(len(placed)), key=lambda i: (placed[i].piece.weight_kg, -i))
                retry.append(placed.pop(heaviest).piece)
        if not progress:
            for p in retry:
                out.left.append(
                    (
                        pallet_index(p),
                        f"no vehicle can carry it ({p.weight_kg:g} kg gross) without exceeding "
                        f"an axle limit",
                    )
                )
            break
        queue = sorted(retry, key=lambda p: p.item_order)
    return out


def _arranged(vehicle: Vehicle, placed: list[Placement], index: int) -> ContainerLoad | None:
    """The placements rearranged to keep the axle limits, as vehicle ``index``; or None."""
    slots = [Slot(p.position[0], p.extents[0]) for p in placed]
    res = arrange(vehicle, slots, [p.piece.weight_kg for p in placed])
    if res is None:
        return None
    assign, shift = res
    moved = []
    for p, k in zip(placed, assign, strict=True):
        slot = placed[k]
        ext = extents(p.piece.dims, slot.orientation)
        pos = (slot.position[0] + shift, 0, slot.position[2])
        moved.append(Placement(p.piece, index, pos, slot.orientation, ext))
    boxes = [(*m.position, *(m.position[i] + m.extents[i] for i in range(3))) for m in moved]
    steps = load_steps(boxes, vehicle.body.loading_side, [None] * len(moved))  # type: ignore[arg-type]
    final = [
        Placement(m.piece, index, m.position, m.orientation, m.extents, s)
        for m, s in zip(moved, steps, strict=True)
    ]
    final.sort(key=lambda m: m.load_step)
    return ContainerLoad(index, vehicle.body, final)
