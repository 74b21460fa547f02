"""Axle loads of a loaded vehicle at every stop, and arrangements of pallets that keep them.

A vehicle body is a container whose X axis runs from the front wall (x = 0, behind the
cab) to the rear doors (x = length). The vehicle rests on two supports (front and rear
axle, or a semi-trailer's kingpin and its axle group) at positions ``a_f < a_r`` on the
same axis. By static moment balance a load ``m`` at ``x`` puts
``m (a_r − x) / (a_r − a_f)`` on the front support and ``m (x − a_f) / (a_r − a_f)`` on the
rear one (a beam on two supports, e.g. Gere & Goodno, *Mechanics of Materials*, ch. 4).
Each support also carries its share of the vehicle's tare.

A support has a limit and may have a minimum share of the vehicle's gross mass (the drive
axle of a rigid vehicle must carry at least 25 % of it, EU Directive 96/53/EC, annex I,
3.4). For a cargo mass ``M`` these bounds confine the cargo's centre of gravity to an
interval ``[lo, hi]`` along X (:meth:`Vehicle.cog_range`).

A multi-drop vehicle unloads its pallets stop by stop, the highest unload priority first
(docs/conventions.md#cargo-rules); after each stop the remaining pallets must still keep
the bounds. :func:`arrange` assigns pallets to floor places so that later drops stand
further from the door in every lane, and permutes pallets of the same drop and shifts the
whole group along the body until the loaded vehicle and every stop keep the bounds.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from packing.errors import PackingInputError
from packing.model import ContainerType

#: Tolerance of the axle checks [kg] (1 g).
TOLERANCE_KG: float = 1e-3

#: Body types of the vehicle catalog.
BODY_TYPES: tuple[str, ...] = ("DRY", "INSULATED", "REEFER", "MULTI_TEMP")


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
    min_share : float, default 0
        Least fraction of the vehicle's gross mass (tare + cargo) the support must carry
        (0..1): 0.25 for the drive axle of a rigid vehicle.
    """

    name: str
    position_mm: float
    tare_kg: float
    max_kg: float
    min_share: float = 0.0

    def __post_init__(self) -> None:
        for field, value, least in (
            ("position_mm", self.position_mm, -math.inf),
            ("tare_kg", self.tare_kg, 0.0),
            ("max_kg", self.max_kg, 0.0),
        ):
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not math.isfinite(value)
                or value < least
            ):
                bound = "" if least == -math.inf else " >= 0"
                raise PackingInputError(
                    field, f"must be a finite number{bound} (got {value!r}) for {self.name}"
                )
        if not 0.0 <= self.min_share < 1.0:
            raise PackingInputError(
                "min_share", f"must be within 0..1 (got {self.min_share}) for {self.name}"
            )


@dataclass(frozen=True, slots=True)
class Vehicle:
    """A vehicle: its cargo body as a container type, its two supports and its body.

    The body's ``max_payload_kg`` is the vehicle's payload; ``front.position_mm`` must lie
    ahead of ``rear.position_mm``.

    Attributes
    ----------
    body : ContainerType
    front, rear : Support
    body_type : str, default "DRY"
        One of :data:`BODY_TYPES`: DRY (no insulation), INSULATED (no refrigeration unit),
        REEFER (one refrigerated compartment), MULTI_TEMP (refrigerated compartments).
    temperature_range_c : (float, float) or None
        Set points the refrigeration unit can hold [°C]; None without a unit.
    compartments : int, default 1
        Temperature compartments (movable bulkheads of a MULTI_TEMP body).
    doors : tuple of str, default ("REAR",)
        Door positions: ``"REAR"`` (at X = length) and ``"SIDE"``.
    double_stack : bool, default False
        Whether the body has a second deck (double-deck beams) for pallets.
    """

    body: ContainerType
    front: Support
    rear: Support
    body_type: str = "DRY"
    temperature_range_c: tuple[float, float] | None = None
    compartments: int = 1
    doors: tuple[str, ...] = ("REAR",)
    double_stack: bool = False

    def __post_init__(self) -> None:
        if not self.front.position_mm < self.rear.position_mm:
            raise PackingInputError(
                f"vehicles[{self.body.slug}]",
                f"front support must lie ahead of the rear one (got {self.front.position_mm} "
                f"and {self.rear.position_mm} mm)",
            )
        if self.body_type not in BODY_TYPES:
            raise PackingInputError(
                "body_type", f"must be one of {', '.join(BODY_TYPES)} (got {self.body_type!r})"
            )
        rng = self.temperature_range_c
        if rng is not None and not rng[0] <= rng[1]:
            raise PackingInputError(
                "temperature_range_c", f"must be (low, high) with low <= high (got {rng})"
            )
        if self.compartments < 1:
            raise PackingInputError("compartments", f"must be >= 1 (got {self.compartments})")

    @property
    def slug(self) -> str:
        return self.body.slug

    def holds(self, range_c: tuple[float, float] | None) -> bool:
        """Can the body keep cargo within ``range_c`` [°C]?

        None (no temperature requirement) is held by every vehicle. A range is held by a
        vehicle with a refrigeration unit that can be set to a temperature inside it (its
        set-point range overlaps the range); never by a body without a unit.
        """
        if range_c is None:
            return True
        own = self.temperature_range_c
        return own is not None and max(own[0], range_c[0]) <= min(own[1], range_c[1])

    def cog_range(self, cargo_kg: float) -> tuple[float, float]:
        """The interval of cargo centre-of-gravity positions [mm] keeping every bound.

        Bounds: each support between its minimum share of the gross mass and its limit.
        Empty (``lo > hi``) when no position does. Without cargo the tare alone decides:
        the whole axis when it keeps the bounds, else an empty interval.
        """
        a_f, a_r = self.front.position_mm, self.rear.position_mm
        span = a_r - a_f
        gross = self.front.tare_kg + self.rear.tare_kg + cargo_kg
        # u = cargo mass carried by the rear support = M (x − a_f) / span
        u_lo = max(
            self.rear.min_share * gross - self.rear.tare_kg,
            self.front.tare_kg + cargo_kg - self.front.max_kg,
        )
        u_hi = min(
            self.rear.max_kg - self.rear.tare_kg,
            self.front.tare_kg + cargo_kg - self.front.min_share * gross,
        )
        if cargo_kg <= 0:
            ok = u_lo <= TOLERANCE_KG and u_hi >= -TOLERANCE_KG
            return (-math.inf, math.inf) if ok else (1.0, 0.0)
        return (a_f + u_lo * span / cargo_kg, a_f + u_hi * span / cargo_kg)


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


def axle_minimums(vehicle: Vehicle, cargo_kg: float) -> list[float]:
    """Least load of each support (front, rear) for a cargo mass [kg]: its minimum share
    of the gross mass (tare + ``cargo_kg``) [kg]."""
    gross = vehicle.front.tare_kg + vehicle.rear.tare_kg + cargo_kg
    return [vehicle.front.min_share * gross, vehicle.rear.min_share * gross]


def axle_problems(vehicle: Vehicle, loads: Sequence[tuple[float, float]]) -> list[str]:
    """Every bound the loads break, as sentences (empty when the vehicle keeps them all).

    Parameters
    ----------
    vehicle : Vehicle
    loads : sequence of (mass_kg, x_mm)
        Cargo masses [kg] and the X of their centres of gravity [mm].
    """
    cargo = sum(m for m, _ in loads)
    out = []
    for (name, load, limit), least, support in zip(
        axle_loads(vehicle, loads),
        axle_minimums(vehicle, cargo),
        (vehicle.front, vehicle.rear),
        strict=True,
    ):
        if load > limit + TOLERANCE_KG:
            out.append(f"{name} {load:,.0f} kg over its {limit:,.0f} kg limit")
        elif load < max(least, 0.0) - TOLERANCE_KG:
            share = f" ({support.min_share:.0%} of the gross mass)" if support.min_share else ""
            out.append(f"{name} {load:,.0f} kg under its minimum {max(least, 0.0):,.0f} kg{share}")
    return out


def within_limits(vehicle: Vehicle, loads: Sequence[tuple[float, float]]) -> bool:
    """Do both supports stay between their minimum (at least 0) and their limit, with 1 g
    of tolerance?"""
    return not axle_problems(vehicle, loads)


class Stop(NamedTuple):
    """One stop of a multi-drop vehicle.

    Attributes
    ----------
    stop : int
        1 for the first stop.
    unload_priority : int
        Unload priority of the pallets unloaded there.
    remaining : tuple of int
        Indexes of the pallets still on board after the stop.
    """

    stop: int
    unload_priority: int
    remaining: tuple[int, ...]


def stops(priorities: Sequence[int]) -> list[Stop]:
    """The stops of pallets with these unload priorities, in unloading order.

    Higher priority is unloaded earlier: stop 1 unloads the pallets of the highest
    priority, and so on; the last stop leaves the vehicle empty.
    """
    out = []
    for k, p in enumerate(sorted(set(priorities), reverse=True), start=1):
        out.append(Stop(k, p, tuple(i for i, q in enumerate(priorities) if q < p)))
    return out


@dataclass(frozen=True, slots=True)
class Slot:
    """A floor place of a pallet: minimum corner X [mm] and extent along X [mm]."""

    x_mm: int
    length_mm: int

    @property
    def centre(self) -> float:
        return self.x_mm + self.length_mm / 2


class Arrangement(NamedTuple):
    """Pallets on floor places.

    Attributes
    ----------
    assignment : list of int
        ``assignment[i]`` is the slot of pallet ``i``.
    shift : int
        Every slot moves by this along X [mm].
    """

    assignment: list[int]
    shift: int


class Part(NamedTuple):
    """A share of a pallet's mass that leaves the vehicle at one stop.

    A pallet holding pieces of several drops is several parts: the pieces of each drop,
    and its tare with the pieces of its last drop (the pallet leaves with them).

    Attributes
    ----------
    unload_priority : int
        The part is unloaded at the stop of this priority (higher is earlier).
    mass_kg : float
        Its mass [kg].
    offsets : sequence of float
        ``offsets[k]``: X of its centre of gravity from the minimum X of slot ``k`` [mm].
    """

    unload_priority: int
    mass_kg: float
    offsets: Sequence[float]


def _parts(
    slots: Sequence[Slot],
    masses: Sequence[float],
    priorities: Sequence[int] | None,
    offsets: Sequence[Sequence[float]] | None,
    parts: Sequence[Sequence[Part]] | None,
) -> list[list[Part]]:
    """The parts of every pallet, the arguments checked."""
    n = len(slots)
    if n != len(masses):
        raise PackingInputError("masses", f"expected one mass per slot ({n}), got {len(masses)}")
    if parts is not None:
        if priorities is not None or offsets is not None:
            raise PackingInputError(
                "parts", "give either parts or priorities and offsets, not both"
            )
        if len(parts) != n:
            raise PackingInputError("parts", f"expected one list per slot ({n}), got {len(parts)}")
        for i, own in enumerate(parts):
            if not own:
                raise PackingInputError("parts", f"pallet {i} has no part")
            if any(len(q.offsets) != n for q in own):
                raise PackingInputError("parts", f"expected {n} offsets for each part")
            total = sum(q.mass_kg for q in own)
            if abs(total - masses[i]) > 1e-6 * max(1.0, abs(masses[i])):
                raise PackingInputError(
                    "parts", f"the parts of pallet {i} weigh {total:g} kg, not {masses[i]:g} kg"
                )
        return [list(own) for own in parts]
    prio = [0] * n if priorities is None else list(priorities)
    if len(prio) != n:
        raise PackingInputError("priorities", f"expected one per slot ({n}), got {len(prio)}")
    if offsets is not None and (len(offsets) != n or any(len(r) != n for r in offsets)):
        raise PackingInputError("offsets", f"expected an {n} × {n} table")
    return [
        [
            Part(
                prio[i],
                masses[i],
                [s.length_mm / 2 for s in slots] if offsets is None else list(offsets[i]),
            )
        ]
        for i in range(n)
    ]


def deck_key(parts: Sequence[Part]) -> tuple[int, int]:
    """Order of a pallet on the deck, rising from the front wall: (its earliest drop, its
    last drop). A pallet holding two drops stands behind the pallets of its earliest drop
    alone (they come off first at that stop) and ahead of those of its last drop."""
    prios = [q.unload_priority for q in parts]
    return (max(prios), min(prios))


def _states(parts: Sequence[Sequence[Part]]) -> list[Stop | None]:
    """The states checked: loaded (None), then after each stop but the last."""
    prios = [q.unload_priority for own in parts for q in own]
    return [None, *stops(prios)[:-1]]


def _on_board(own: Sequence[Part], state: Stop | None) -> list[Part]:
    if state is None:
        return list(own)
    return [q for q in own if q.unload_priority < state.unload_priority]


def arrange(
    vehicle: Vehicle,
    slots: Sequence[Slot],
    masses: Sequence[float],
    *,
    priorities: Sequence[int] | None = None,
    offsets: Sequence[Sequence[float]] | None = None,
    parts: Sequence[Sequence[Part]] | None = None,
) -> Arrangement | None:
    """An assignment of pallets to slots, and a shift along X, that keeps the bounds at
    every stop; None when the search finds none (see :func:`best_arrangement`)."""
    found, ok = best_arrangement(
        vehicle, slots, masses, priorities=priorities, offsets=offsets, parts=parts
    )
    return found if ok else None


def best_arrangement(
    vehicle: Vehicle,
    slots: Sequence[Slot],
    masses: Sequence[float],
    *,
    priorities: Sequence[int] | None = None,
    offsets: Sequence[Sequence[float]] | None = None,
    parts: Sequence[Sequence[Part]] | None = None,
) -> tuple[Arrangement, bool]:
    """An assignment of pallets to slots, and a shift along X, that keeps the bounds at
    every stop.

    Parameters
    ----------
    vehicle : Vehicle
    slots : sequence of Slot
        Floor places found by the packer, one per pallet.
    masses : sequence of float
        Gross mass of each pallet [kg].
    priorities : sequence of int, optional
        Unload priority of each pallet (higher is unloaded earlier); default all 0.
    offsets : n × n nested sequence of float, optional
        ``offsets[i][k]``: X of pallet ``i``'s centre of gravity from the minimum X of slot
        ``k`` [mm] (a pallet's centre of gravity depends on how the slot turns it);
        default the slot's centre.
    parts : sequence of sequences of Part, optional
        Instead of ``priorities`` and ``offsets``: the parts of each pallet, for pallets
        holding several drops (their masses add up to the pallet's). A part is on board
        until the stop of its priority.

    Returns
    -------
    (Arrangement, bool)
        Slots taken in order of their centre along X go to pallets in rising
        :func:`deck_key` (a pallet's priority, or its earliest and last drop), so a pallet
        of a later drop never stands between the door and one of an earlier drop in the
        same lane; pallets of the same key are permuted and the group shifted (staying
        inside the body) until the loaded vehicle and the vehicle after each stop but the
        last keep every bound, the shift placing the centres of gravity as far inside their
        intervals as it can. The flag is False when the search finds no such arrangement;
        the arrangement is then the one that breaks the bounds least.
    """
    own = _parts(slots, masses, priorities, offsets, parts)
    n = len(slots)
    if n == 0:
        return Arrangement([], 0), True

    min_x = min(s.x_mm for s in slots)
    max_end = max(s.x_mm + s.length_mm for s in slots)
    shift_lo, shift_hi = -min_x, vehicle.body.inner[0] - max_end
    order_slots = sorted(range(n), key=lambda k: (slots[k].centre, slots[k].x_mm, k))
    keys = [deck_key(q) for q in own]
    order_pallets = sorted(range(n), key=lambda i: (keys[i], i))
    # blocks of equal key take consecutive slots along X, the lowest key at the front
    blocks: list[list[int]] = []
    for i in order_pallets:
        if blocks and keys[blocks[-1][0]] == keys[i]:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    # per state (loaded, then after each stop but the last) and pallet: the mass on board
    # and its moment about the minimum X of each slot
    states = _states(own)
    mass_on = [[sum(q.mass_kg for q in _on_board(own[i], s)) for i in range(n)] for s in states]
    moment_on = [
        [[sum(q.mass_kg * q.offsets[k] for q in _on_board(own[i], s)) for k in range(n)]
         for i in range(n)]
        for s in states
    ]  # fmt: skip
    state_mass = [sum(row) for row in mass_on]
    ranges = [vehicle.cog_range(m) for m in state_mass]

    def cost(assign: dict[int, int]) -> tuple[float, float]:
        """(least violation over the shift [kg·mm], best shift) of an assignment."""
        moments = []
        for m_row, mom_row, m in zip(mass_on, moment_on, state_mass, strict=True):
            total = sum(m_row[i] * slots[assign[i]].x_mm + mom_row[i][assign[i]] for i in range(n))
            moments.append(total / m if m > 0 else 0.0)
        points = {float(shift_lo), float(shift_hi)}
        for c, (lo, hi) in zip(moments, ranges, strict=True):
            for edge in (lo, hi, (lo + hi) / 2):
                if math.isfinite(edge) and shift_lo <= edge - c <= shift_hi:
                    points.add(edge - c)

        def violation(t: float) -> float:
            total = 0.0
            for c, m, (lo, hi) in zip(moments, state_mass, ranges, strict=True):
                if lo > hi:
                    total += m * (lo - hi + abs(c + t - (lo + hi) / 2))
                elif c + t < lo:
                    total += m * (lo - c - t)
                elif c + t > hi:
                    total += m * (c + t - hi)
            return total

        best = min(points, key=lambda t: (violation(t), t))
        v = violation(best)
        if v > 0:
            return v, best
        # feasible: the middle of the shifts that keep every state
        lo_t = max(
            [shift_lo]
            + [lo - c for c, (lo, _) in zip(moments, ranges, strict=True) if math.isfinite(lo)]
        )
        hi_t = min(
            [shift_hi]
            + [hi - c for c, (_, hi) in zip(moments, ranges, strict=True) if math.isfinite(hi)]
        )
        return 0.0, (lo_t + hi_t) / 2

    def start(key_sign: float) -> dict[int, int]:
        assign: dict[int, int] = {}
        pos = 0
        for b in blocks:
            if key_sign == 0:  # as packed: in the order of the pallets' own places
                members = sorted(b, key=lambda i: (slots[i].centre, i))
            else:
                members = sorted(b, key=lambda i: (key_sign * -masses[i], i))
            for i in members:
                assign[i] = order_slots[pos]
                pos += 1
        return assign

    tried: list[tuple[float, Arrangement]] = []
    for sign in (0.0, 1.0, -1.0):  # as packed, heaviest to the front, heaviest to the rear
        assign = start(sign)
        v, t = cost(assign)
        while v > 0:
            best: tuple[float, tuple[int, int] | None] = (v, None)
            for b in blocks:
                for x in range(len(b)):
                    for y in range(x + 1, len(b)):
                        i, j = b[x], b[y]
                        assign[i], assign[j] = assign[j], assign[i]
                        w, _ = cost(assign)
                        assign[i], assign[j] = assign[j], assign[i]
                        if w < best[0] - 1e-6:
                            best = (w, (i, j))
            if best[1] is None:
                break
            i, j = best[1]
            assign[i], assign[j] = assign[j], assign[i]
            v, t = cost(assign)
        arrangement = Arrangement(
            [assign[i] for i in range(n)], int(_clip(round(t), shift_lo, shift_hi))
        )
        if v <= 0:
            # the shift is whole millimetres: keep the one nearest the middle that checks out
            for shift in sorted({round(t), math.floor(t), math.ceil(t)}, key=lambda s: abs(s - t)):
                candidate = Arrangement(arrangement.assignment, int(shift))
                if shift_lo <= shift <= shift_hi and not arrangement_problems(
                    vehicle, slots, masses, candidate, parts=own
                ):
                    return candidate, True
        tried.append((v, arrangement))
    return min(tried, key=lambda r: r[0])[1], False


def _clip(value: float, lo: float, hi: float) -> float:
    return min(max(value, lo), hi)


def arrangement_problems(
    vehicle: Vehicle,
    slots: Sequence[Slot],
    masses: Sequence[float],
    arrangement: Arrangement,
    *,
    priorities: Sequence[int] | None = None,
    offsets: Sequence[Sequence[float]] | None = None,
    parts: Sequence[Sequence[Part]] | None = None,
) -> list[str]:
    """The bounds an arrangement breaks, loaded and after each stop but the last.

    Takes the arguments of :func:`best_arrangement`; each sentence starts with
    ``"when loaded: "`` or ``"after stop k (unloadPriority p): "``.
    """
    own = _parts(slots, masses, priorities, offsets, parts)
    a, t = arrangement
    out = []
    for state in _states(own):
        points = [
            (q.mass_kg, slots[a[i]].x_mm + q.offsets[a[i]] + t)
            for i in range(len(slots))
            for q in _on_board(own[i], state)
        ]
        label = (
            "when loaded"
            if state is None
            else f"after stop {state.stop} (unloadPriority {state.unload_priority})"
        )
        out += [f"{label}: {p}" for p in axle_problems(vehicle, points)]
    return out
