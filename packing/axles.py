"""Axle loads of a loaded vehicle, and arrangements of pallets that keep the axle limits.

A vehicle body is a container whose X axis runs from the front wall (x = 0, behind the
cab) to the rear doors (x = length). The vehicle rests on two supports (front and rear
axle, or a semi-trailer's kingpin and its axle group) at positions ``a_f < a_r`` on the
same axis. By static moment balance a load ``m`` at ``x`` puts
``m (a_r − x) / (a_r − a_f)`` on the front support and ``m (x − a_f) / (a_r − a_f)`` on the
rear one (a beam on two supports, e.g. Gere & Goodno, *Mechanics of Materials*, ch. 4).
Each support also carries its share of the vehicle's tare.

For a cargo mass ``M`` the limits therefore bound the cargo's centre of gravity to an
interval ``[lo, hi]`` along X; :func:`arrange` permutes pallets across their floor places
and shifts the whole group along the body to bring the centre of gravity into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packing.errors import PackingInputError
from packing.model import ContainerType


@dataclass(frozen=True, slots=True)
class Support:
    """An axle (or axle group, or kingpin) of a vehicle.

    Attributes
    ----------
    name : str
        E.g. ``"front axle"``.
    position_mm : float
        Position along the body's X axis [mm]; negative is ahead of the body's front wall.
    tare_kg : float
        Share of the empty vehicle's mass on this support [kg].
    max_kg : float
        Legal or technical limit of the support [kg].
    """

    name: str
    position_mm: float
    tare_kg: float
    max_kg: float


@dataclass(frozen=True, slots=True)
class Vehicle:
    """A vehicle: its cargo body as a container type and its two supports.

    The body's ``max_payload_kg`` is the vehicle's payload; ``front.position_mm`` must lie
    ahead of ``rear.position_mm``.
    """

    body: ContainerType
    front: Support
    rear: Support

    def __post_init__(self) -> None:
        if not self.front.position_mm < self.rear.position_mm:
            raise PackingInputError(
                f"vehicles[{self.body.slug}]",
                f"front support must lie ahead of the rear one (got {self.front.position_mm} "
                f"and {self.rear.position_mm} mm)",
            )

    @property
    def slug(self) -> str:
        return self.body.slug

    def cog_range(self, cargo_kg: float) -> tuple[float, float]:
        """The interval of cargo centre-of-gravity positions [mm] keeping both limits.

        Empty (``lo > hi``) when no position does. Both supports must also stay loaded
        (a negative load would lift the axle).
        """
        a_f, a_r = self.front.position_mm, self.rear.position_mm
        span = a_r - a_f
        if cargo_kg <= 0:
            ok = self.front.tare_kg <= self.front.max_kg and self.rear.tare_kg <= self.rear.max_kg
            return (float("-inf"), float("inf")) if ok else (1.0, 0.0)
        # front = tare_f + M (a_r − x) / span ∈ [0, max_f];  rear = tare_r + M (x − a_f) / span ∈ [0, max_r]
        lo = max(
            a_r - (self.front.max_kg - self.front.tare_kg) * span / cargo_kg,
            a_f - self.rear.tare_kg * span / cargo_kg,
        )
        hi = min(
            a_f + (self.rear.max_kg - self.rear.tare_kg) * span / cargo_kg,
            a_r + self.front.tare_kg * span / cargo_kg,
        )
        return (lo, hi)


def axle_loads(
    vehicle: Vehicle, loads: Sequence[tuple[float, float]]
) -> list[tuple[str, float, float]]:
    """Load on each support: ``[(name, load_kg, max_kg)]`` for front, then rear.

    Parameters
    ----------
    vehicle : Vehicle
    loads : sequence of (mass_kg, x_mm)
        Cargo masses [kg] and the X of their centres of gravity [mm].
    """
    a_f, a_r = vehicle.front.position_mm, vehicle.rear.position_mm
    span = a_r - a_f
    rear = sum(m * (x - a_f) for m, x in loads) / span
    front = sum(m for m, _ in loads) - rear
    return [
        (vehicle.front.name, vehicle.front.tare_kg + front, vehicle.front.max_kg),
        (vehicle.rear.name, vehicle.rear.tare_kg + rear, vehicle.rear.max_kg),
    ]


def within_limits(vehicle: Vehicle, loads: Sequence[tuple[float, float]]) -> bool:
    """Do all supports stay between 0 and their limit (with 1 g of tolerance)?"""
    return all(-1e-3 <= load <= limit + 1e-3 for _, load, limit in axle_loads(vehicle, loads))


@dataclass(frozen=True, slots=True)
class Slot:
    """A floor place of a pallet: minimum corner X [mm] and extent along X [mm]."""

    x_mm: int
    length_mm: int

    @property
    def centre(self) -> float:
        return self.x_mm + self.length_mm / 2


def arrange(
    vehicle: Vehicle, slots: Sequence[Slot], masses: Sequence[float]
) -> tuple[list[int], int] | None:
    """An assignment of pallets to slots, and a shift along X, that keeps the axle limits.

    Parameters
    ----------
    vehicle : Vehicle
    slots : sequence of Slot
        Floor places found by the packer, one per pallet.
    masses : sequence of float
        Gross mass of each pallet [kg].

    Returns
    -------
    (assignment, shift) or None
        ``assignment[i]`` is the slot of pallet ``i``; every slot moves by ``shift`` mm
        along X (the group stays inside the body). The centre of gravity is brought as
        near the middle of the allowed interval as the arrangement allows. None when no
        permutation and shift keeps the limits.
    """
    n = len(slots)
    if n != len(masses):
        raise PackingInputError("masses", f"expected one mass per slot ({n}), got {len(masses)}")
    if n == 0:
        return [], 0
    total = float(sum(masses))
    lo, hi = vehicle.cog_range(total)
    if lo > hi:
        return None
    min_x = min(s.x_mm for s in slots)
    max_end = max(s.x_mm + s.length_mm for s in slots)
    shift_lo, shift_hi = -min_x, vehicle.body.inner[0] - max_end
    # Heaviest pallet to the front-most slot gives the lowest centre of gravity, to the
    # rear-most the highest; pairwise swaps then walk from one towards the target.
    order_slots = sorted(range(n), key=lambda k: (slots[k].centre, k))
    order_mass = sorted(range(n), key=lambda i: (-masses[i], i))
    assign = [0] * n
    for i, k in zip(order_mass, order_slots, strict=True):
        assign[i] = k

    def cog(a: list[int]) -> float:
        return sum(masses[i] * slots[a[i]].centre for i in range(n)) / total if total else 0.0

    def best_shift(c: float) -> int:
        target = (max(lo, c + shift_lo) + min(hi, c + shift_hi)) / 2
        return round(min(max(target - c, shift_lo), shift_hi))

    def fits(c: float) -> bool:
        return lo - 1e-6 <= c <= hi + 1e-6

    c = cog(assign)
    improved = True
    while not fits(c + best_shift(c)) and improved:
        improved = False
        target = (lo + hi) / 2
        best: tuple[float, tuple[int, int] | None] = (abs(c + best_shift(c) - target), None)
        for i in range(n):
            for j in range(i + 1, n):
                if masses[i] == masses[j]:
                    continue
                dc = (
                    (masses[i] - masses[j])
                    * (slots[assign[j]].centre - slots[assign[i]].centre)
                    / total
                )
                nc = c + dc
                gap = abs(nc + best_shift(nc) - target)
                if gap < best[0] - 1e-9:
                    best = (gap, (i, j))
        if best[1] is not None:
            i, j = best[1]
            assign[i], assign[j] = assign[j], assign[i]
            c = cog(assign)
            improved = True
    shift = best_shift(c)
    if not fits(c + shift):
        return None
    return assign, shift
