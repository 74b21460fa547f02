"""Loading pallets onto vehicles within temperature, payload and axle limits (PALLET_LOAD).

Pallets are floor-only pieces that carry nothing on top. Only vehicles whose body holds
the pallets' temperature range are used (:meth:`packing.axles.Vehicle.holds`). The packer
chooses vehicles and floor places; each vehicle's pallets are then arranged by
:func:`packing.axles.arrange`: later drops (lower unload priority) further from the door in
every lane, pallets of one drop permuted and the group shifted along the body so that both
supports keep their bounds for the loaded vehicle and after each stop. When no arrangement
exists, the heaviest pallet leaves that vehicle and is planned again with the others left
over; pallets no vehicle can carry are reported with the stop and the axle at fault.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from packing.axles import (
    Part,
    Slot,
    Stop,
    Vehicle,
    arrangement_problems,
    axle_loads,
    axle_minimums,
    best_arrangement,
    deck_key,
    stops,
)
from packing.errors import PackingInputError
from packing.geometry import FLOOR_ORIENTATIONS, extents
from packing.loadorder import load_steps
from packing.model import Piece, Placement, Rules
from packing.planner import (
    CONSOLIDATE_SHARE,
    QUICK_LIMIT,
    fits_container,
    plan_containers,
    unfit_reason,
)
from packing.result import ContainerLoad
from packing.strategies import Strategy
from packing.strategies.base import Budget

PALLET_RULES = Rules(orientations=FLOOR_ORIENTATIONS, stack_on_top=False, stack_under=False)

#: Time limit of a round of vehicle planning once the budget is spent [s]: a probe's,
#: which buys no search, so its plan is the strategy's greedy passes.
MIN_ROUND_S = QUICK_LIMIT


class Drop(NamedTuple):
    """The share of a pallet's gross mass that leaves the vehicle at one stop.

    Attributes
    ----------
    unload_priority : int
        Priority of the drop (higher is unloaded earlier).
    mass_kg : float
        Its pieces [kg]; the pallet's last drop also carries the pallet's tare (the pallet
        leaves with it).
    cog_mm : (float, float)
        Its centre of gravity along the deck length and width, from the deck's corner [mm].
    """

    unload_priority: int
    mass_kg: float
    cog_mm: tuple[float, float]


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
        Pallet tare plus its cargo [kg].
    unload_priority : int, default 0
        Unload priority of its cargo (higher is unloaded earlier).
        A pallet holding several drops takes the priority of its earliest drop.
    cog_mm : (float, float) or None
        Centre of gravity of the loaded pallet along its deck length and width, from the
        deck's corner [mm]; None: the deck's centre.
    drops : tuple of Drop, default ()
        A pallet holding pieces of several drops: each drop's share of the gross mass, the
        tare with the last drop (masses adding up to ``gross_kg``, the highest priority
        ``unload_priority``). Empty: the pallet holds one drop and leaves whole.
    stackable : bool, default False
        Its load may carry, and stand on, another pallet (every piece allows stacking on
        top and none is fragile): it may be stacked on a double-deck vehicle
        (:func:`stack_pairs`).
    """

    index: int
    dims: tuple[int, int, int]
    gross_kg: float
    unload_priority: int = 0
    cog_mm: tuple[float, float] | None = None
    drops: tuple[Drop, ...] = ()
    stackable: bool = False

    def __post_init__(self) -> None:
        if self.drops:
            total = sum(d.mass_kg for d in self.drops)
            if abs(total - self.gross_kg) > 1e-6 * max(1.0, self.gross_kg):
                raise PackingInputError(
                    "drops",
                    f"must add up to the gross mass {self.gross_kg:g} kg (got {total:g} kg) "
                    f"for pallet {self.index}",
                )
            earliest = max(d.unload_priority for d in self.drops)
            if earliest != self.unload_priority:
                raise PackingInputError(
                    "unload_priority",
                    f"must be that of the earliest drop ({earliest}, got "
                    f"{self.unload_priority}) for pallet {self.index}",
                )
        if self.unload_priority < 0:
            raise PackingInputError(
                "unload_priority",
                f"must be >= 0 (got {self.unload_priority}) for pallet {self.index}",
            )
        if self.gross_kg < 0:
            raise PackingInputError(
                "gross_kg", f"must be >= 0 (got {self.gross_kg}) for pallet {self.index}"
            )

    def cog_x(self, orientation: int) -> float:
        """X of the centre of gravity from the pallet's minimum X in the vehicle [mm].

        Orientation 0 keeps the deck length along X; orientation 1 (a quarter turn about
        the vertical, ``[0, 90, 0]``) puts the deck width's axis along X.
        """
        cx, cz = (self.dims[0] / 2, self.dims[2] / 2) if self.cog_mm is None else self.cog_mm
        return cx if orientation == 0 else cz

    def shares(self) -> tuple[Drop, ...]:
        """Its drops; one holding the whole pallet when it holds one drop."""
        if self.drops:
            return self.drops
        cog = (self.dims[0] / 2, self.dims[2] / 2) if self.cog_mm is None else self.cog_mm
        return (Drop(self.unload_priority, self.gross_kg, cog),)

    def parts(self, orientations: Sequence[int]) -> list[Part]:
        """Its drops as the arrangement takes them: the X of each one's centre of gravity
        from the minimum X of a slot that turns the pallet to each of ``orientations``."""
        return [
            Part(d.unload_priority, d.mass_kg, [d.cog_mm[0 if o == 0 else 1] for o in orientations])
            for d in self.shares()
        ]


class StopAxleLoads(NamedTuple):
    """Axle loads after one stop of a multi-drop vehicle.

    Attributes
    ----------
    stop : int
        1 for the first stop.
    unload_priority : int
        Priority of the pallets unloaded there.
    loads : list of (name, load_kg, max_kg, min_kg)
        Each support, front first [kg].
    """

    stop: int
    unload_priority: int
    loads: list[tuple[str, float, float, float]]


@dataclass(slots=True)
class LoadedVehicle:
    """One vehicle of the plan: its pallets as placements (item id ``pallet-<index>``).

    Attributes
    ----------
    vehicle : Vehicle
    index : int
        ``vehicleIndex`` in the plan.
    load : ContainerLoad
        The pallets as placed, in load-step order.
    pallets : mapping of int to Pallet
        The pallets by index (their centres of gravity and priorities).
    """

    vehicle: Vehicle
    index: int
    load: ContainerLoad
    pallets: Mapping[int, Pallet] = field(default_factory=dict)

    @property
    def cargo_weight_kg(self) -> float:
        return self.load.cargo_weight_kg

    def _pallet(self, p: Placement) -> Pallet:
        i = pallet_index(p.piece)
        return self.pallets.get(i) or Pallet(
            i, p.piece.dims, p.piece.weight_kg, p.piece.rules.unload_priority
        )

    def mass_points(self, after: Stop | None = None) -> list[tuple[float, float]]:
        """``(kg, x of its centre of gravity [mm])`` of what is on board: each pallet loaded,
        or after the stop ``after`` the drops of each pallet still on it (a pallet holding
        several drops loses the pieces of each at its stop)."""
        out = []
        for p in self.load.placements:
            for d in self._pallet(p).shares():
                if after is None or d.unload_priority < after.unload_priority:
                    x = d.cog_mm[0 if p.orientation == 0 else 1]
                    out.append((d.mass_kg, p.position[0] + x))
        return out

    def axle_loads(self) -> list[tuple[str, float, float]]:
        """``[(support name, load [kg], limit [kg])]`` of the loaded vehicle, front first."""
        return axle_loads(self.vehicle, self.mass_points())

    def axle_minimums(self) -> list[float]:
        """Least load of each support of the loaded vehicle [kg], front first."""
        return axle_minimums(self.vehicle, self.cargo_weight_kg)

    def stop_loads(self) -> list[StopAxleLoads]:
        """Axle loads after each stop but the last (after which the vehicle is empty); empty
        for a vehicle with one drop."""
        prio = [d.unload_priority for p in self.load.placements for d in self._pallet(p).shares()]
        out = []
        for s in stops(prio)[:-1]:
            points = self.mass_points(s)
            cargo = sum(m for m, _ in points)
            loads = [
                (name, load, limit, least)
                for (name, load, limit), least in zip(
                    axle_loads(self.vehicle, points),
                    axle_minimums(self.vehicle, cargo),
                    strict=True,
                )
            ]
            out.append(StopAxleLoads(s.stop, s.unload_priority, loads))
        return out


@dataclass(slots=True)
class VehiclePlan:
    vehicles: list[LoadedVehicle] = field(default_factory=list)
    #: Pallets no vehicle can carry: ``(pallet index, reason)``.
    left: list[tuple[int, str]] = field(default_factory=list)
    #: Why each pallet of :attr:`left` was left, by pallet index: ``"temperature"`` (no
    #: vehicle holds the range), ``"size"`` (larger than every vehicle), ``"weight"``
    #: (heavier than every vehicle's payload) or ``"axle"`` (no arrangement within the axle
    #: limits).
    left_kinds: dict[int, str] = field(default_factory=dict)
    #: Work units the vehicle planning spent, every round and both plans (without and with
    #: stacking) together (see :class:`packing.strategies.base.Budget`).
    work_units: int = 0

    def leave(self, index: int, reason: str, kind: str) -> None:
        """Record pallet ``index`` as carried by no vehicle, for ``reason`` of ``kind``."""
        self.left.append((index, reason))
        self.left_kinds[index] = kind


def pallet_index(piece: Piece) -> int:
    return int(piece.item_id.removeprefix("pallet-"))


def format_range(range_c: tuple[float, float]) -> str:
    """``"+2..+8 °C"``: a temperature range as the reasons write it."""
    lo, hi = range_c
    return f"{lo:+g}..{hi:+g} °C"


def vehicles_holding(
    vehicles: Sequence[Vehicle], range_c: tuple[float, float] | None
) -> list[Vehicle]:
    """The vehicles whose body holds ``range_c`` [°C] (every vehicle for None)."""
    return [v for v in vehicles if v.holds(range_c)]


def load_vehicles(
    pallets: Sequence[Pallet],
    vehicles: Sequence[Vehicle],
    *,
    temperature_range_c: tuple[float, float] | None = None,
    time_limit: float = 2.0,
    vehicle_offset: int = 0,
    strategy: str | Strategy | None = None,
) -> VehiclePlan:
    """Plan vehicles for pallets: fewest vehicles, every one within its axle bounds at
    every stop.

    Parameters
    ----------
    pallets : sequence of Pallet
    vehicles : sequence of Vehicle
        Vehicle types to choose from.
    temperature_range_c : (float, float) or None
        Range the pallets' cargo must be kept in [°C]; only vehicles that hold it are
        used. None: any vehicle.
    time_limit : float
        Budget of the whole vehicle planning [s], counted in work units like
        :func:`packing.plan_containers`'s (its consolidation step included): the rounds
        that plan again the pallets an arrangement left out share what the first left,
        and when pallets may be stacked (below) the plans without and with stacking get
        half each.
    vehicle_offset : int
        Index of the first vehicle.
    strategy : str, Strategy or None
        Packing strategy of the floor places (see :func:`packing.plan_containers`, which
        packs with clones of it); None: block building.

    Returns
    -------
    VehiclePlan
        The loaded vehicles and the pallets left, each with a reason: no vehicle holding
        the range, too large or heavy for every vehicle, or no arrangement within the axle
        bounds (naming the stop and the axle).

    Notes
    -----
    When some eligible vehicles have a second deck (:attr:`Vehicle.double_stack`), the
    pallets are also planned stacked two high where :func:`stack_pairs` allows, on those
    vehicles only (the lower pallet on the floor, the upper on its load; a stack is placed
    and arranged as one floor unit). That plan is taken when it carries every pallet on
    fewer vehicles than the plan without stacking (or when that one leaves pallets).
    """
    eligible = vehicles_holding(vehicles, temperature_range_c)
    out = VehiclePlan()
    if not eligible and temperature_range_c is not None:  # every vehicle holds None
        reason = (
            f"no vehicle holds {format_range(temperature_range_c)} "
            f"(candidates: {', '.join(v.slug for v in vehicles) or 'none'})"
        )
        for p in pallets:
            out.leave(p.index, reason, "temperature")
        return out
    decks = [v for v in eligible if v.double_stack]
    pairs = stack_pairs(pallets, max(v.body.inner[1] for v in decks)) if decks else []
    share = time_limit / 2 if pairs else time_limit
    plan = _load(pallets, eligible, {}, share, vehicle_offset, strategy)
    if not pairs:
        return plan
    paired = {p.index for pair in pairs for p in pair}
    units = [_stack(lower, upper) for lower, upper in pairs]
    units += [p for p in pallets if p.index not in paired]
    stacked = _load(
        sorted(units, key=lambda p: p.index),
        decks,
        {lower.index: (lower, upper) for lower, upper in pairs},
        share,
        vehicle_offset,
        strategy,
    )
    spent = plan.work_units + stacked.work_units
    plan.work_units = stacked.work_units = spent
    if not stacked.left and (plan.left or len(stacked.vehicles) < len(plan.vehicles)):
        return stacked
    return plan


def stack_pairs(pallets: Sequence[Pallet], height_mm: int) -> list[tuple[Pallet, Pallet]]:
    """Pallets that may travel stacked two high: ``[(lower, upper)]``.

    Two pallets stack when both are :attr:`Pallet.stackable`, hold the same single drop
    (so they come off together), have the same deck, their heights add up to at most
    ``height_mm`` and the upper is no heavier than the lower (the lower's load bears a
    pallet no heavier than itself). Within each drop and deck, the heaviest pallet left
    takes as its upper the heaviest of the others that fits.
    """
    groups: dict[tuple[int, int, int], list[Pallet]] = {}
    for p in pallets:
        if p.stackable and not p.drops:
            groups.setdefault((p.unload_priority, p.dims[0], p.dims[2]), []).append(p)
    out = []
    for members in groups.values():
        free = sorted(members, key=lambda p: (-p.gross_kg, p.index))
        while len(free) > 1:
            lower = free.pop(0)
            for k, upper in enumerate(free):
                if lower.dims[1] + upper.dims[1] <= height_mm:
                    out.append((lower, free.pop(k)))
                    break
    return sorted(out, key=lambda pair: pair[0].index)


def _stack(lower: Pallet, upper: Pallet) -> Pallet:
    """Two stacked pallets as one floor unit (the lower's index): their heights and masses
    added, the centre of gravity of both (one drop, so one share)."""
    gross = lower.gross_kg + upper.gross_kg
    (lx, lz), (ux, uz) = lower.shares()[0].cog_mm, upper.shares()[0].cog_mm
    cog = (
        (
            (lower.gross_kg * lx + upper.gross_kg * ux) / gross,
            (lower.gross_kg * lz + upper.gross_kg * uz) / gross,
        )
        if gross > 0
        else None
    )
    dims = (lower.dims[0], lower.dims[1] + upper.dims[1], lower.dims[2])
    return Pallet(lower.index, dims, gross, lower.unload_priority, cog)


def _load(
    pallets: Sequence[Pallet],
    eligible: Sequence[Vehicle],
    stacks: Mapping[int, tuple[Pallet, Pallet]],
    time_limit: float,
    vehicle_offset: int,
    strategy: str | Strategy | None,
) -> VehiclePlan:
    """Plan ``eligible`` vehicles for ``pallets``; a pallet whose index ``stacks`` lists is
    two stacked pallets ``(lower, upper)``, placed as one and reported as both."""
    out = VehiclePlan()
    by_slug = {v.slug: v for v in eligible}
    by_index = {p.index: p for p in pallets}
    originals = dict(by_index)
    for lower, upper in stacks.values():
        originals[lower.index], originals[upper.index] = lower, upper
    # The packer finds floor places without the unload order (which would cost places);
    # the arrangement then assigns the drops to them.
    queue = [
        Piece(f"pallet-{p.index}", 0, p.dims, p.gross_kg, PALLET_RULES, item_order=p.index)
        for p in pallets
    ]
    why: dict[int, str] = {}
    # the rounds share the budget: a round's plan spends at most its limit and its
    # consolidation's share of it; a round after the budget is spent packs greedily
    left = time_limit
    while queue:
        plan = plan_containers(
            queue,
            [v.body for v in eligible],
            strategy=strategy,
            time_limit=max(MIN_ROUND_S, left / (1 + CONSOLIDATE_SHARE)),
        )
        left -= plan.work_units / Budget.RATE
        out.work_units += plan.work_units
        carried_nowhere = [u for u in plan.unplaced if u.kind in ("size", "weight")]
        bodies = [v.body for v in eligible]
        for u in carried_nowhere:
            kind, reason = u.kind, u.reason
            if not any(fits_container(u.piece, b) for b in bodies):
                # the planner's reason, told of vehicles rather than containers
                kind, reason = unfit_reason(u.piece, bodies, noun="vehicle")
            for i in _indexes(pallet_index(u.piece), stacks):
                out.leave(i, reason, kind)
        retry = [u.piece for u in plan.unplaced if u.kind not in ("size", "weight")]
        progress = False
        for load in plan.containers:
            vehicle = by_slug[load.container.slug]
            placed = list(load.placements)
            while placed:
                index = vehicle_offset + len(out.vehicles)
                arranged = _arranged(vehicle, placed, index, by_index, stacks)
                if isinstance(arranged, ContainerLoad):
                    out.vehicles.append(LoadedVehicle(vehicle, index, arranged, originals))
                    progress = True
                    break
                heaviest = max(range(len(placed)), key=lambda i: (placed[i].piece.weight_kg, -i))
                piece = placed.pop(heaviest).piece
                why[pallet_index(piece)] = f"{vehicle.slug} {arranged}"
                retry.append(piece)
        if not progress:
            for p in retry:
                i = pallet_index(p)
                reason = (
                    f"no vehicle can carry it ({p.weight_kg:g} kg gross) within its axle "
                    f"limits at every stop ({why.get(i, 'no arrangement found')})"
                )
                for k in _indexes(i, stacks):
                    out.leave(k, reason, "axle")
            break
        queue = sorted(retry, key=lambda p: p.item_order)
    return out


def _indexes(index: int, stacks: Mapping[int, tuple[Pallet, Pallet]]) -> list[int]:
    """The pallets a unit stands for: itself, or the two of a stack."""
    pair = stacks.get(index)
    return [index] if pair is None else [pair[0].index, pair[1].index]


def _arranged(
    vehicle: Vehicle,
    placed: list[Placement],
    index: int,
    pallets: Mapping[int, Pallet],
    stacks: Mapping[int, tuple[Pallet, Pallet]],
) -> ContainerLoad | str:
    """The placements rearranged to keep the unload order and the axle bounds at every
    stop, as vehicle ``index``; or the first problem of the loads as packed."""
    own = [
        pallets.get(pallet_index(p.piece))
        or Pallet(pallet_index(p.piece), p.piece.dims, p.piece.weight_kg)
        for p in placed
    ]
    slots = [Slot(p.position[0], p.extents[0]) for p in placed]
    turns = [slot.orientation for slot in placed]
    parts = [pal.parts(turns) for pal in own]
    masses = [p.piece.weight_kg for p in placed]
    res, ok = best_arrangement(vehicle, slots, masses, parts=parts)
    if not ok:
        problems = arrangement_problems(vehicle, slots, masses, res, parts=parts)
        return problems[0] if problems else "no arrangement keeps the unload order"
    assign, shift = res
    moved = []
    keys = []
    for p, pal, k, key in zip(placed, own, assign, [deck_key(q) for q in parts], strict=True):
        slot = placed[k]
        pos = (slot.position[0] + shift, 0, slot.position[2])
        rules = replace(PALLET_RULES, unload_priority=pal.unload_priority)
        pair = stacks.get(pal.index)
        if pair is None:
            ext = extents(p.piece.dims, slot.orientation)
            moved.append(
                Placement(replace(p.piece, rules=rules), index, pos, slot.orientation, ext)
            )
            keys.append(key)
            continue
        # a stack: the lower pallet on the floor, the upper one on its load
        lower, upper = pair
        for pallet, y, pallet_rules in (
            (lower, 0, replace(rules, stack_on_top=True)),
            (upper, lower.dims[1], replace(rules, stack_under=True)),
        ):
            piece = replace(
                p.piece,
                item_id=f"pallet-{pallet.index}",
                dims=pallet.dims,
                weight_kg=pallet.gross_kg,
                rules=pallet_rules,
            )
            ext = extents(pallet.dims, slot.orientation)
            moved.append(Placement(piece, index, (pos[0], y, pos[2]), slot.orientation, ext))
            keys.append(key)
    boxes = [
        (
            m.position[0],
            m.position[1],
            m.position[2],
            m.position[0] + m.extents[0],
            m.position[1] + m.extents[1],
            m.position[2] + m.extents[2],
        )
        for m in moved
    ]
    # later drops are loaded first: every pallet of a lower deck key before any higher one
    rank = {k: r for r, k in enumerate(sorted(set(keys)))}
    steps = load_steps(boxes, vehicle.body.loading_side, [rank[k] for k in keys])
    final = [
        Placement(m.piece, index, m.position, m.orientation, m.extents, s)
        for m, s in zip(moved, steps, strict=True)
    ]
    final.sort(key=lambda m: m.load_step)
    return ContainerLoad(index, vehicle.body, final)
