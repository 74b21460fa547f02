"""The planning use case: a plan input of the contract to the full plan result.

:func:`compute_plan` is the one entry point: the REST service calls it from its worker
processes and notebooks call it directly, so a notebook gets exactly what the API returns.
:func:`plan_outcome` stops before the mapping and returns the libraries' typed results.

Per request (docs/conventions.md and docs/thermal.md):

1. cargo is grouped by temperature mode (first appearance order); pieces of different modes
   never share a container, and each mode gets one ``modes`` entry;
2. THERMO: the route is resolved once (cities, transit, map, segments), then each mode runs
   the thermal filter (:mod:`thermal.thermal_filter`) over the candidate containers; NONE
   needs no thermal check; PLUS_2_25, MINUS_78 and MINUS_196 report UNSUPPORTED_MODE.
   PLAIN: every candidate container, ``thermalFilter`` is ``{}``. PALLET: pieces are stacked
   on pallets of ``palletTemplateSlug``, each drop (unload priority) on its own, then
   part-filled pallets of two drops combined where that saves a pallet. PALLET_LOAD:
   pallets as PALLET, then loaded onto vehicles of the vehicle catalog that hold the mode's
   temperature range (NO_ELIGIBLE_CONTAINERS naming the range when none does), later drops
   further from the door, within payload and axle limits loaded and after every stop
   (:mod:`packing.vehicles`), AXLE_OVERLOAD naming the stop and axle when no arrangement
   keeps them;
3. the packing engine chooses the containers and places every piece
   (:func:`packing.plan_containers`), container indexes running across the whole plan and
   ``maxContainers`` capping the plan as a whole;
4. the typed outcome (:mod:`adapters.planning.outcome`) is mapped to the contract's
   :class:`~adapters.planning.schemas.CombinedPackingPlanResult` by
   :mod:`adapters.planning.mapping`.

Domain problems never raise: they are mode reports with an ``errorCode`` in a result whose
``feasible`` is false. Input that the contract accepts but that is inconsistent raises
:class:`~adapters.planning.errors.PlanInputError` (a ``ValueError``) naming the request's
field, for a 422.
"""

from __future__ import annotations

import colorsys
import datetime as dt
import hashlib
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from adapters.planning import mapping
from adapters.planning.catalogs import (
    container_type,
    mode_range_c,
    pallet_templates,
    pallet_type,
    vehicle,
    vehicle_slugs,
)
from adapters.planning.errors import PlanInputError, contract_text
from adapters.planning.outcome import AlternativeTotal, ModeOutcome, PlanOutcome, UnplacedPiece
from adapters.planning.schemas import (
    SKU_FILLABLE_FIELDS,
    CombinedPackingPlanResult,
    PackingCargoItem,
    PackingPlanInput,
    PackingPlanOptions,
    Scenario,
)
from packing.drops import drop_span, mix_drops
from packing.errors import PackingInputError
from packing.geometry import cm_to_mm
from packing.model import ContainerType, Piece, Rules, Unplaced, make_pieces
from packing.planner import fits_container, plan_containers, unfit_reason
from packing.result import ContainerLoad, PackResult
from packing.strategies.base import Budget
from packing.vehicles import Drop, Pallet, format_range, load_vehicles, vehicles_holding
from thermal.catalog import container_slugs, outer_volume_l, volume_with_cooling_l
from thermal.degree_hours import DEFAULT_SAFETY_MARGIN
from thermal.eligibility import ProfileChoice, choose_profile
from thermal.errors import RouteDataError, ThermalInputError
from thermal.modes import SUPPORTED_MODES, is_supported, needs_thermal_check
from thermal.routes import (
    ResolvedRoute,
    RouteOverrides,
    check_dates,
    resolvable_transit_hours,
    resolve_route,
)
from thermal.thermal_filter import assess_mode
from thermal.weather import WeatherProvider


class RouteQuery(TypedDict):
    """The plan's transit, dates and route settings, as route resolution takes them."""

    transit_hours: float | None
    send_date: dt.date | None
    receive_date: dt.date | None
    today: dt.date
    overrides: RouteOverrides | None
    use_mock: bool


#: Included pieces above which a request is refused with TOO_MANY_ITEMS.
MAX_PIECES: int = 10_000

#: Pallet template of PALLET and PALLET_LOAD when the input names none.
DEFAULT_PALLET_TEMPLATE: str = "eur-1200x800"

#: Time budget of a whole plan when the caller gives none [s].
DEFAULT_TIME_LIMIT_S: float = 10.0
#: The request's wall-clock net, in times its budget (plus ``Budget.HARD_FLOOR_S``): the
#: searches of a computation stop there (61 s for the service's 20 s), well before its
#: worker is (``Budget.HARD_FACTOR`` × the budget plus a grace, 111 s), so a machine many
#: times busier still answers 200 with the plan the searches reached.
REQUEST_NET_FACTOR: float = 3.0

#: Share of the budget spent on the plan itself; the rest goes to the alternatives.
PLAN_SHARE: float = 0.7

#: A mode's search budget is at most this much [s] plus :data:`SEARCH_S_PER_PIECE` per
#: piece, and never more than :data:`SEARCH_MAX_S`: past that, deeper search pays little,
#: and a plan of 10,000 pieces still answers in seconds. The budget is counted in work
#: units (:class:`packing.strategies.base.Budget`), so a plan never depends on the load.
SEARCH_BASE_S: float = 0.05
SEARCH_S_PER_PIECE: float = 0.001
SEARCH_MAX_S: float = 4.0

#: Budget of a mode's consolidation step (fewer containers, then less outer volume, see
#: :func:`packing.plan_containers`) [s]: its share of the plan's budget by pieces, at most
#: this. It runs only when every piece is placed, and ends early when no move is left.
CONSOLIDATE_MAX_S: float = 0.5

#: Budget of the vehicle planning of a mode (PALLET_LOAD, every round and the stacked
#: plan together, see :func:`packing.vehicles.load_vehicles`) [s]: this much plus
#: :data:`VEHICLE_S_PER_PALLET` per pallet, at most :data:`VEHICLE_MAX_S` and within the
#: plan's budget. Fifteen loads of 5-151 pallets planned the same vehicles, placement for
#: placement, at 0.5 s as at 3 s a round.
VEHICLE_BASE_S: float = 0.25
VEHICLE_S_PER_PALLET: float = 0.005
VEHICLE_MAX_S: float = 3.0


def item_color(item_id: str) -> str:
    """A stable colour for a cargo item without ``rules.color``.

    Parameters
    ----------
    item_id : str
        Cargo item id.

    Returns
    -------
    str
        ``#rrggbb``: the hue from a SHA-256 of the id, medium saturation and lightness so
        pieces stay readable on a white or dark background.
    """
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    hue = int.from_bytes(digest[:2], "big") / 65536.0
    sat = 0.55 + (digest[2] / 255.0) * 0.2
    light = 0.45 + (digest[3] / 255.0) * 0.15
    r, g, b = colorsys.hls_to_rgb(hue, light, sat)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


# --------------------------------------------------------------------------- input checks


def _validate(plan_input: PackingPlanInput | Mapping[str, Any]) -> PackingPlanInput:
    if isinstance(plan_input, PackingPlanInput):
        return plan_input
    return PackingPlanInput.model_validate(plan_input)


def _check_input(plan: PackingPlanInput, options: PackingPlanOptions) -> None:
    """Contract-valid input that cannot be planned: raises PackingInputError on the field."""
    for i, item in enumerate(plan.cargos):
        for name in SKU_FILLABLE_FIELDS:
            if getattr(item, name) is None:
                raise PlanInputError(
                    f"cargos[{i}].{name}",
                    "must be given, or filled from the organisation catalog by sku "
                    f"(sku {item.sku!r} was not resolved)",
                )
    check_dates(plan.sendDate, plan.receiveDate)
    if plan.scenario == Scenario.PALLET_LOAD and options.preferredContainers:
        vehicles = vehicle_slugs()
        unknown = [s for s in options.preferredContainers if s not in vehicles]
        if unknown:
            raise PlanInputError(
                "options.preferredContainers",
                f"must name vehicles for PALLET_LOAD ({', '.join(vehicles)}); "
                f"unknown: {', '.join(unknown)}",
            )
    if plan.scenario in (Scenario.THERMO, Scenario.PLAIN) and options.preferredContainers:
        valid = container_slugs()
        unknown = [s for s in options.preferredContainers if s not in valid]
        if unknown:
            raise PlanInputError(
                "options.preferredContainers",
                f"must name catalog containers ({', '.join(valid)}); unknown: {', '.join(unknown)}",
            )
    if plan.scenario == Scenario.PALLET and options.preferredContainers:
        # not used by PALLET, but a slug no catalog knows is still an error (decisions §3)
        known = {*container_slugs(), *vehicle_slugs(), *pallet_templates()}
        unknown = [s for s in options.preferredContainers if s not in known]
        if unknown:
            raise PlanInputError(
                "options.preferredContainers",
                "must name catalog containers, vehicles or pallet templates (PALLET does "
                f"not use them); unknown: {', '.join(unknown)}",
            )
    if plan.palletTemplateSlug is not None or plan.scenario in (
        Scenario.PALLET,
        Scenario.PALLET_LOAD,
    ):
        slug = plan.palletTemplateSlug or DEFAULT_PALLET_TEMPLATE
        if slug not in pallet_templates():
            raise PlanInputError(
                "palletTemplateSlug",
                f"must be one of {', '.join(pallet_templates())} (got {slug!r})",
            )


def check_plan_input(
    plan_input: PackingPlanInput | Mapping[str, Any], *, today: dt.date | None = None
) -> None:
    """The checks of contract-valid input that cannot be planned which need no planning:
    raises :class:`PlanInputError` on the field, as :func:`compute_plan` would.

    ``receiveDate`` before ``sendDate``, or before ``today`` (UTC; default the current
    date) when alone, or a date out of range; an unknown slug in
    ``options.preferredContainers`` or an unknown ``palletTemplateSlug``; a cargo item whose
    sku was not resolved. The service makes them before it reserves quota, so such input is
    a 422 whatever the quota (decisions §6: 422 before 402); :func:`compute_plan` makes them
    again.
    """
    plan = _validate(plan_input)
    try:
        _check_input(plan, plan.options or PackingPlanOptions())
        check_dates(
            plan.sendDate,
            plan.receiveDate,
            today if today is not None else dt.datetime.now(dt.UTC).date(),
        )
    except (PackingInputError, ThermalInputError) as exc:
        raise PlanInputError.from_library(exc) from exc


def _given(value: float | None) -> float:
    """A cargo number that :func:`_check_input` has made sure is present."""
    if value is None:
        raise PackingInputError("cargos", "every dimension must be given (got null)")
    return float(value)


def _name_rounded_sizes(out: ModeOutcome, items: Sequence[PackingCargoItem]) -> None:
    """Where a piece is left out as too large and its item's size was not whole millimetres,
    its reason also gives the size as the request gave it: the plan's size is rounded up
    (decisions §1), and "30.1 cm" alone for a given 30.0001 reads as a typing error."""
    if not out.unplaced:
        return
    given: dict[str, str] = {}
    for item in items:
        cm = (_given(item.lengthCm), _given(item.heightCm), _given(item.widthCm))
        if any(cm_to_mm(v) - v * 10 > 1e-6 for v in cm):
            given[item.id] = "×".join(f"{v:.15g}" for v in cm)  # every digit given
    if not given:
        return
    out.unplaced = [
        UnplacedPiece(
            u.item_id,
            u.instance,
            f"{u.reason} (given as {given[u.item_id]} cm, rounded up to whole millimetres)",
        )
        if u.item_id in given and u.reason.startswith("larger (")
        else u
        for u in out.unplaced
    ]


def _pieces(item: PackingCargoItem, order: int) -> list[Piece]:
    r = item.rules
    rules = Rules.from_flags(
        allow_tilt=None if r is None else r.allowTilt,
        allowed_rotations=None
        if r is None or r.allowedRotations is None
        else str(r.allowedRotations),
        allow_stack_on_top=None if r is None else r.allowStackOnTop,
        allow_stack_under=None if r is None else r.allowStackUnder,
        fragile=None if r is None else r.fragile,
        loading_order=None if r is None or r.loadingOrder is None else str(r.loadingOrder),
        unload_priority=None if r is None else r.unloadPriority,
    )
    color = r.color if r is not None and r.color else item_color(item.id)
    dims = (
        cm_to_mm(_given(item.lengthCm)),
        cm_to_mm(_given(item.heightCm)),
        cm_to_mm(_given(item.widthCm)),
    )
    return make_pieces(
        item.id,
        dims,
        item.quantity,
        weight_kg=float(item.weightKg or 0.0),
        rules=rules,
        item_order=order,
        name=item.name or item.id,
        color=color,
    )


# --------------------------------------------------------------------------- the planner


def _unplaced_all(pieces: Sequence[Piece], reason: str) -> list[UnplacedPiece]:
    return [UnplacedPiece(p.item_id, p.instance, reason) for p in pieces]


@dataclass
class _Context:
    plan: PackingPlanInput
    options: PackingPlanOptions
    use_mock: bool
    today: dt.date
    overrides: RouteOverrides | None
    weather: WeatherProvider | None
    safety_margin: float
    support_ratio: float
    plan_budget_s: float
    total_pieces: int
    route: ResolvedRoute | None = None
    route_error: RouteDataError | None = None
    route_done: bool = False
    next_index: int = 0
    next_vehicle: int = 0
    transit_cache: float | None = None

    def _route_query(self) -> RouteQuery:
        """The plan's transit, dates and route settings, as route resolution takes them."""
        return RouteQuery(
            transit_hours=self.plan.transitHours,
            send_date=self.plan.sendDate,
            receive_date=self.plan.receiveDate,
            today=self.today,
            overrides=self.overrides,
            use_mock=self.use_mock,
        )

    def resolved_route(self) -> ResolvedRoute | None:
        if not self.route_done:
            self.route_done = True
            try:
                self.route = resolve_route(
                    self.plan.originCity, self.plan.destinationCity, **self._route_query()
                )
            except RouteDataError as exc:
                self.route_error = exc
        return self.route

    def transit_hours(self) -> float:
        """Transit time resolvable without a thermal check (0 when none) [h]."""
        if self.route is not None:
            return self.route.transit_hours
        if self.transit_cache is None:
            self.transit_cache = resolvable_transit_hours(
                self.plan.originCity, self.plan.destinationCity, **self._route_query()
            )
        return self.transit_cache

    def candidates(self) -> list[str]:
        preferred = self.options.preferredContainers
        return list(dict.fromkeys(preferred)) if preferred else container_slugs()

    def budget_for(self, n_pieces: int) -> float:
        """Search budget of a mode of ``n_pieces`` pieces [s]: its share of the plan's
        budget by pieces, capped by size (:data:`SEARCH_BASE_S`). It depends on the input
        and settings only, never on the clock, so equal requests get equal plans."""
        cap = min(SEARCH_MAX_S, SEARCH_BASE_S + SEARCH_S_PER_PIECE * n_pieces)
        return max(0.05, min(self._share(n_pieces), cap))

    def consolidate_budget_for(self, n_pieces: int) -> float:
        """Budget of a mode's consolidation step [s]: its share of the plan's budget by
        pieces, at most :data:`CONSOLIDATE_MAX_S`; input and settings only, never the
        clock."""
        return max(0.05, min(self._share(n_pieces), CONSOLIDATE_MAX_S))

    def _share(self, n_pieces: int) -> float:
        """A mode's share of the plan's budget by its pieces [s]."""
        return self.plan_budget_s * n_pieces / max(1, self.total_pieces)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _pack(
    ctx: _Context,
    out: ModeOutcome,
    types: list[ContainerType],
    profiles: Mapping[str, ProfileChoice | None],
    required_dh: float,
) -> None:
    """Pack one mode's pieces into ``types`` and fill ``out``."""
    cap = ctx.options.maxContainers
    remaining = None if cap is None else cap - ctx.next_index
    if cap is not None and remaining is not None and remaining <= 0:
        reason = (
            f"the plan is capped at {_plural(cap, 'container')} (maxContainers), "
            "all used by cargo planned before it (other temperature modes or drops)"
        )
        # a piece that fits no eligible container says so, as it would without the cap
        out.unplaced = []
        weight = False
        for p in out.pieces:
            if any(fits_container(p, ct) for ct in types):
                out.unplaced.append(UnplacedPiece(p.item_id, p.instance, reason))
                continue
            kind, why = unfit_reason(p, types)
            weight = weight or kind == "weight"
            out.unplaced.append(UnplacedPiece(p.item_id, p.instance, why))
        out.error = "WEIGHT_EXCEEDED" if weight else "PACKING_FAILED"
        out.message = f"no container left for {out.mode} under maxContainers {cap}"
        return
    algorithm = ctx.options.algorithm
    result = plan_containers(
        out.pieces,
        types,
        strategy=None if algorithm is None else str(algorithm),
        support_ratio=ctx.support_ratio,
        max_containers=remaining,
        time_limit=ctx.budget_for(len(out.pieces)),
        container_offset=ctx.next_index,
        consolidate_limit=ctx.consolidate_budget_for(len(out.pieces)),
    )
    ctx.next_index += len(result.containers)
    out.packed = result
    out.profiles = profiles
    out.required_load_dh = required_dh
    out.unplaced = [_unplaced(u, remaining) for u in result.unplaced]
    if result.unplaced:
        weight = any(u.kind == "weight" for u in result.unplaced)
        out.error = "WEIGHT_EXCEEDED" if weight else "PACKING_FAILED"
        out.message = (
            f"{len(result.unplaced)} of {out.requested} pieces could not be placed "
            f"({'payload' if weight else 'size or space'}); see unplacedItems"
        )
    else:
        out.message = f"{out.placed} pieces in {_plural(len(result.containers), 'container')}"


def _unplaced(u: Unplaced, cap: int | None) -> UnplacedPiece:
    """A piece the packing left out; the cap is named by the request's field."""
    reason = u.reason
    if u.kind == "cap" and cap is not None:
        reason = (
            f"the plan is capped at {_plural(cap, 'container')} (maxContainers) and this piece "
            "did not fit in them"
        )
    return UnplacedPiece(u.piece.item_id, u.piece.instance, reason)


def _plan_mode_thermo(ctx: _Context, out: ModeOutcome) -> None:
    mode = out.mode
    candidates = ctx.candidates()
    out.transit_hours = ctx.transit_hours()
    if not needs_thermal_check(mode):
        out.unchecked_candidates = candidates
        _pack(ctx, out, [container_type(s) for s in candidates], {}, 0.0)
        return
    if not is_supported(mode):
        reason = (
            f"temperature mode {mode} has no thermal model in v1 "
            f"(supported: {', '.join(SUPPORTED_MODES)}, and NONE)"
        )
        out.unplaced = _unplaced_all(out.pieces, reason)
        out.error, out.message = "UNSUPPORTED_MODE", reason
        return
    route = ctx.resolved_route()
    if route is None:
        if ctx.route_error is None:  # resolved_route() sets one or the other
            raise RuntimeError("route resolution gave neither a route nor an error")
        err = ctx.route_error
        message = contract_text(err.message)
        out.unplaced = _unplaced_all(out.pieces, message)
        out.error, out.message = err.code, message
        return
    out.transit_hours = route.transit_hours
    assessment = assess_mode(
        route,
        mode,
        candidates,
        skip_capacity=bool(ctx.options.skipThermalCapacity),
        safety_margin=ctx.safety_margin,
        weather=ctx.weather,
    )
    out.assessment = assessment
    eligible = assessment.eligibility.eligible
    if not eligible:
        # each side of the box is checked against its own load: name the loads per side
        sides = (
            ", ".join(
                f"{side} side {load:,.0f} °C·h"
                for side, load in (
                    ("hot", assessment.required_hot_dh),
                    ("cold", assessment.required_cold_dh),
                )
                if load > 0
            )
            or "0 °C·h"
        )
        out.unplaced = _unplaced_all(
            out.pieces, f"no container withstands the required load ({sides})"
        )
        out.error = "NO_ELIGIBLE_CONTAINERS"
        out.message = (
            f"no candidate container holds {mode} for the required load ({sides}; "
            f"{route.transit_hours:g} h); see thermalFilter.rejectedSlugs"
        )
        return
    profiles = assessment.eligibility.profiles
    types = [container_type(s, coolant_mass_kg=profiles[s].coolant_mass_kg) for s in eligible]
    _pack(ctx, out, types, dict(profiles), assessment.required_load_dh)


def _plan_mode_plain(ctx: _Context, out: ModeOutcome) -> None:
    out.transit_hours = ctx.transit_hours()
    profiles: dict[str, ProfileChoice | None] = {}
    types: list[ContainerType] = []
    for slug in ctx.candidates():
        choice = choose_profile(slug, out.mode, 0.0) if is_supported(out.mode) else None
        profiles[slug] = choice
        types.append(
            container_type(slug, coolant_mass_kg=0.0 if choice is None else choice.coolant_mass_kg)
        )
    _pack(ctx, out, types, profiles, 0.0)


def _plan_mode_pallet(ctx: _Context, out: ModeOutcome, *, with_vehicles: bool) -> None:
    out.transit_hours = ctx.transit_hours()
    if with_vehicles and not _vehicles_hold_mode(ctx, out):
        return
    pallet = pallet_type(ctx.plan.palletTemplateSlug or DEFAULT_PALLET_TEMPLATE)
    _pack_by_drop(ctx, out, [pallet])
    if with_vehicles and out.packed is not None and out.packed.containers:
        _load_vehicles(ctx, out, out.packed)


def _vehicle_slugs(ctx: _Context) -> list[str]:
    preferred = ctx.options.preferredContainers
    return list(dict.fromkeys(preferred)) if preferred else vehicle_slugs()


def _vehicles_hold_mode(ctx: _Context, out: ModeOutcome) -> bool:
    """PALLET_LOAD: does a candidate vehicle hold the mode's temperature range? If none
    does, the mode reports NO_ELIGIBLE_CONTAINERS naming the range."""
    range_c = mode_range_c(out.mode)
    slugs = _vehicle_slugs(ctx)
    if range_c is None or vehicles_holding([vehicle(s) for s in slugs], range_c):
        return True
    reason = (
        f"no vehicle holds {format_range(range_c)} ({out.mode}); candidates: {', '.join(slugs)}"
    )
    out.unplaced = _unplaced_all(out.pieces, reason)
    out.error, out.message = "NO_ELIGIBLE_CONTAINERS", reason
    return False


def _pack_by_drop(ctx: _Context, out: ModeOutcome, types: list[ContainerType]) -> None:
    """PALLET and PALLET_LOAD: the pieces of a pallet of one drop (unload priority) where
    the cargo allows.

    Each drop is palletized on its own, the first stop (highest priority) first, so that
    a pallet comes off the vehicle whole at its stop; with one drop this is :func:`_pack`.
    When every drop is on its pallets, part-filled pallets of different drops are combined
    where that saves a pallet, later drops lower (:func:`packing.drops.mix_drops`).
    """
    drops = sorted({p.rules.unload_priority for p in out.pieces}, reverse=True)
    if len(drops) <= 1:
        _pack(ctx, out, types, {}, 0.0)
        return
    parts = []
    for prio in drops:
        pieces = [p for p in out.pieces if p.rules.unload_priority == prio]
        part = ModeOutcome(out.mode, len(pieces), out.transit_hours, pieces=pieces)
        _pack(ctx, part, types, {}, 0.0)
        parts.append(part)
    results = [p.packed for p in parts if p.packed is not None]
    out.packed = PackResult(
        containers=[c for r in results for c in r.containers],
        unplaced=[u for r in results for u in r.unplaced],
        strategy=results[0].strategy if results else "",
        support_ratio=ctx.support_ratio,
        seconds=sum(r.seconds for r in results),
        work_units=sum(r.work_units for r in results),
        wall_cut=any(r.wall_cut for r in results),
    )
    out.unplaced = [u for p in parts for u in p.unplaced]
    failed = [p for p in parts if p.error is not None]
    if failed:
        weight = any(p.error == "WEIGHT_EXCEEDED" for p in failed)
        out.error = "WEIGHT_EXCEEDED" if weight else str(failed[0].error)
        out.message = "; ".join(
            f"drop {d}: {p.message}" for d, p in zip(drops, parts, strict=True) if p.error
        )
        return
    # every drop is on its pallets: combine part-filled pallets where that saves one
    separate = len(out.packed.containers)
    started = time.perf_counter()
    out.packed = mix_drops(
        out.packed,
        support_ratio=ctx.support_ratio,
        strategy=None if ctx.options.algorithm is None else str(ctx.options.algorithm),
        time_limit=max(0.05, min(2.0, 0.3 * ctx.budget_for(len(out.pieces)))),
    )
    out.packed.seconds += time.perf_counter() - started
    ctx.next_index -= separate - len(out.packed.containers)
    mixed = sum(drop_span(c)[0] != drop_span(c)[1] for c in out.packed.containers)
    n = _plural(len(out.packed.containers), "container")
    if mixed:
        out.message = (
            f"{out.placed} pieces in {n}, {len(drops)} drops; {_plural(mixed, 'pallet')} "
            f"{'holds' if mixed == 1 else 'hold'} two or more drops (later drops lower), "
            f"saving {_plural(separate - len(out.packed.containers), 'pallet')}"
        )
    else:
        out.message = f"{out.placed} pieces in {n}, one drop per pallet ({len(drops)} drops)"


def _pallet(load: ContainerLoad) -> Pallet:
    """A loaded pallet as the vehicle loading takes it: its size with the load, gross mass,
    centre of gravity (cargo and tare, the tare at the deck's centre), unload priority
    (that of its earliest drop), holding several drops each drop's share (the tare with
    the last drop) with its own centre of gravity, and whether it may be stacked."""
    pallet = load.container
    deck_h = pallet.outer_dims[1] - pallet.inner[1]
    top = max((p.position[1] + p.extents[1] for p in load.placements), default=0)
    gross = round(load.cargo_weight_kg + pallet.tare_kg, 6)
    height = math.ceil(deck_h + top)
    length, width = pallet.inner[0], pallet.inner[2]
    prios = sorted({p.piece.rules.unload_priority for p in load.placements}) or [0]
    # per drop: mass [kg] and moments along the deck length and width [kg·mm]
    sums = {q: [0.0, 0.0, 0.0] for q in prios}
    sums[prios[0]] = [pallet.tare_kg, pallet.tare_kg * length / 2, pallet.tare_kg * width / 2]
    for p in load.placements:
        s = sums[p.piece.rules.unload_priority]
        s[0] += p.piece.weight_kg
        s[1] += p.piece.weight_kg * (p.position[0] + p.extents[0] / 2)
        s[2] += p.piece.weight_kg * (p.position[2] + p.extents[2] / 2)
    mass = sum(s[0] for s in sums.values())
    moment_x = sum(s[1] for s in sums.values())
    moment_z = sum(s[2] for s in sums.values())
    cog = (moment_x / mass, moment_z / mass) if mass > 0 else None
    drops: tuple[Drop, ...] = ()
    if len(prios) > 1:  # the shares add up to the rounded gross mass
        drops = tuple(
            Drop(
                q,
                s[0] * gross / mass,
                (s[1] / s[0], s[2] / s[0]) if s[0] > 0 else (length / 2, width / 2),
            )
            for q, s in sums.items()
        )
    # its load may carry another pallet, and stand on one: no fragile piece, none that
    # forbids stacking on top, none that must stand on the floor (allowStackUnder false)
    stackable = bool(load.placements) and all(
        p.piece.rules.stack_on_top and p.piece.rules.stack_under and not p.piece.rules.fragile
        for p in load.placements
    )
    return Pallet(load.index, (length, height, width), gross, prios[-1], cog, drops, stackable)


def _load_vehicles(ctx: _Context, out: ModeOutcome, packed: PackResult) -> None:
    """PALLET_LOAD: this mode's pallets onto vehicles that hold its temperature range,
    within payload and axle limits at every stop."""
    pallets = [_pallet(load) for load in packed.containers]
    plan = load_vehicles(
        pallets,
        [vehicle(s) for s in _vehicle_slugs(ctx)],
        temperature_range_c=mode_range_c(out.mode),
        time_limit=max(
            0.05,
            min(
                VEHICLE_MAX_S,
                VEHICLE_BASE_S + VEHICLE_S_PER_PALLET * len(pallets),
                ctx.plan_budget_s,
            ),
        ),
        vehicle_offset=ctx.next_vehicle,
    )
    ctx.next_vehicle += len(plan.vehicles)
    out.vehicles = plan
    if plan.left:
        kinds = set(plan.left_kinds.values())
        # as for containers: payload before size (decisions: PACKING_FAILED for geometric
        # reasons, WEIGHT_EXCEEDED for payload), an axle limit before both; no vehicle
        # holding the range is NO_ELIGIBLE_CONTAINERS
        out.error = (
            "AXLE_OVERLOAD"
            if "axle" in kinds
            else "WEIGHT_EXCEEDED"
            if "weight" in kinds
            else "PACKING_FAILED"
            if "size" in kinds
            else "NO_ELIGIBLE_CONTAINERS"
        )
        detail = "; ".join(f"pallet {i}: {reason}" for i, reason in sorted(plan.left))
        out.message = f"{_plural(len(plan.left), 'pallet')} on no vehicle: {detail}"
    elif out.feasible:
        range_c = mode_range_c(out.mode)
        held = "" if range_c is None else f" holding {format_range(range_c)},"
        upper = sum(p.position[1] > 0 for lv in plan.vehicles for p in lv.load.placements)
        stacked = f", {_plural(upper, 'pallet')} stacked on another (two decks)" if upper else ""
        out.message = (
            f"{out.message or ''}; {_plural(len(plan.vehicles), 'vehicle')}{held} within "
            f"payload and axle limits at every stop{stacked}"
        ).lstrip("; ")


def _alternatives(outcomes: Sequence[ModeOutcome]) -> list[AlternativeTotal] | None:
    """THERMO/PLAIN: for each container type eligible for every packed mode, the boxes needed
    if only that type were used (modes never share a box, so boxes add up)."""
    packed = [o for o in outcomes if o.packed is not None and o.pieces]
    if not packed:
        return None
    totals: dict[str, int] | None = None
    titles: dict[str, str] = {}
    for out in packed:
        boxes = {a.container.slug: a.boxes for a in out.alternatives}
        titles.update({a.container.slug: a.container.title for a in out.alternatives})
        totals = (
            boxes if totals is None else {s: totals[s] + boxes[s] for s in totals if s in boxes}
        )
    rows = [
        AlternativeTotal(
            slug=slug,
            title=titles[slug],
            boxes=n,
            cooling_volume_l=round(n * volume_with_cooling_l(slug), 3),
            outer_volume_l=round(n * outer_volume_l(slug), 3),
        )
        for slug, n in (totals or {}).items()
    ]
    rows.sort(key=lambda r: (r.boxes, r.outer_volume_l, r.slug))
    return rows


def compute_plan(
    plan_input: PackingPlanInput | Mapping[str, Any],
    *,
    use_mock_thermal: bool,
    today: dt.date | None = None,
    route_overrides: RouteOverrides | None = None,
    weather: WeatherProvider | None = None,
    time_limit_s: float | None = None,
    safety_margin: float = DEFAULT_SAFETY_MARGIN,
    support_ratio: float = 0.8,
) -> CombinedPackingPlanResult:
    """Compute the full plan result of a plan input.

    Parameters
    ----------
    plan_input : PackingPlanInput or mapping
        The request body; a mapping is validated into a PackingPlanInput (a pydantic
        ``ValidationError`` for a body the contract rejects). Cargo items that referenced a
        ``sku`` must already be filled from the organisation catalog.
    use_mock_thermal : bool
        Default for ``options.useMockThermal`` (true for sandbox keys, false for production);
        the option wins when the input gives it. Mock data: 72 h transit when unknown, a
        constant +30 °C for cities the catalog lacks.
    today : datetime.date or None
        Today (UTC): the departure when there is no ``sendDate``; defaults to the current
        UTC date.
    route_overrides : mapping or None
        The organisation's own routes (``mapSource`` ``override``): a mapping from
        ``(origin city key, destination city key)`` to a sequence of segments, each a
        :class:`thermal.routes.RouteSegment` or a mapping with ``locationTypeKey``,
        ``cityKey``, ``hours`` [h] and an optional ``label``
        (:data:`thermal.routes.RouteOverrides`). Keys may also be any city name the catalog
        resolves. A malformed override raises :class:`thermal.routes.RouteOverrideError`
        (a ``ValueError`` that is not an input error: the stored data is at fault).
    weather : WeatherProvider or None
        Forecast source for segment ambients (:mod:`thermal.weather`); None (the default)
        uses seasonal normals and reports ``weatherUsed`` false.
    time_limit_s : float or None
        Budget for the whole computation [s]; default 10 s. About 70 % goes to the plan
        (shared between modes by pieces, each mode's search capped by its size, see
        :data:`SEARCH_BASE_S`), the rest to the alternatives. It is counted in work units,
        not read from the clock: equal inputs give equal results under any load, and when
        it is spent the planner still returns a complete plan (greedy passes for what is
        left), never an error.
    safety_margin : float, default 0.2
        Fraction added to the raw thermal load.
    support_ratio : float, default 0.8
        Minimum supported fraction of a raised piece's base (0..1).

    Returns
    -------
    CombinedPackingPlanResult
        With ``feasible`` false and mode reports carrying an ``errorCode`` for every domain
        problem (NO_CARGO, TOO_MANY_ITEMS, UNSUPPORTED_MODE, THERMAL_DATA_MISSING,
        TRANSIT_UNKNOWN, NO_ELIGIBLE_CONTAINERS, PACKING_FAILED, WEIGHT_EXCEEDED).

    Raises
    ------
    adapters.planning.errors.PlanInputError
        Contract-valid input that cannot be planned, with the request's field path:
        ``receiveDate`` before ``sendDate`` (or before today when alone), an unknown slug in
        ``options.preferredContainers``, an unknown ``palletTemplateSlug``, a cargo item
        whose sku was not resolved (``cargos[i].<field>``).
    """
    try:
        outcome = plan_outcome(
            plan_input,
            use_mock_thermal=use_mock_thermal,
            today=today,
            route_overrides=route_overrides,
            weather=weather,
            time_limit_s=time_limit_s,
            safety_margin=safety_margin,
            support_ratio=support_ratio,
        )
    except (PackingInputError, ThermalInputError) as exc:
        raise PlanInputError.from_library(exc) from exc
    return mapping.plan_result(outcome)


def plan_outcome(
    plan_input: PackingPlanInput | Mapping[str, Any],
    *,
    use_mock_thermal: bool,
    today: dt.date | None = None,
    route_overrides: RouteOverrides | None = None,
    weather: WeatherProvider | None = None,
    time_limit_s: float | None = None,
    safety_margin: float = DEFAULT_SAFETY_MARGIN,
    support_ratio: float = 0.8,
) -> PlanOutcome:
    """The typed outcome of a plan input, before the mapping to the contract.

    Takes the arguments of :func:`compute_plan`; a notebook that wants the libraries' own
    results (the :class:`~packing.result.PackResult` and the
    :class:`~thermal.thermal_filter.ThermalAssessment` of each mode) calls this. Library
    input errors propagate as the libraries raise them.
    """
    plan = _validate(plan_input)
    options = plan.options or PackingPlanOptions()
    _check_input(plan, options)
    use_mock = use_mock_thermal if options.useMockThermal is None else options.useMockThermal
    budget = DEFAULT_TIME_LIMIT_S if time_limit_s is None else float(time_limit_s)
    if not budget > 0:
        raise ValueError(f"time_limit_s must be > 0 (got {time_limit_s})")

    included = [(i, item) for i, item in enumerate(plan.cargos) if item.includedInPacking]
    total_pieces = sum(item.quantity for _, item in included)
    ctx = _Context(
        plan=plan,
        options=options,
        use_mock=use_mock,
        today=today if today is not None else dt.datetime.now(dt.UTC).date(),
        overrides=route_overrides,
        weather=weather,
        safety_margin=safety_margin,
        support_ratio=support_ratio,
        plan_budget_s=budget * PLAN_SHARE,
        total_pieces=total_pieces,
    )

    groups: dict[str, list[tuple[int, PackingCargoItem]]] = {}
    for i, item in included:
        groups.setdefault(str(item.temperatureMode), []).append((i, item))

    outcomes: list[ModeOutcome] = []
    if not included:
        for mode in dict.fromkeys(str(item.temperatureMode) for item in plan.cargos):
            outcomes.append(
                ModeOutcome(
                    mode,
                    0,
                    ctx.transit_hours(),
                    error="NO_CARGO",
                    message="every cargo item of the request has includedInPacking false",
                )
            )
    elif total_pieces > MAX_PIECES:
        message = (
            f"the request has {total_pieces:,} included pieces; at most {MAX_PIECES:,} "
            "can be planned in one calculation"
        )
        for mode, items in groups.items():
            requested = sum(item.quantity for _, item in items)
            outcomes.append(
                ModeOutcome(
                    mode, requested, ctx.transit_hours(), error="TOO_MANY_ITEMS", message=message
                )
            )
    else:
        # the request's wall-clock net: the plans' searches inside are bounded by their own
        # CPU time, so a busy machine plans the same; past REQUEST_NET_FACTOR × the whole
        # budget on the wall clock (a machine many times busier) they stop, early enough
        # that what follows (greedy passes for what is left, the mapping) still ends before
        # the request's worker is stopped (adapters.api.compute.worker_deadline_s, at
        # HARD_FACTOR × the budget and a grace)
        with Budget.wall_net(budget, REQUEST_NET_FACTOR):
            for mode, items in groups.items():
                pieces = [p for i, item in items for p in _pieces(item, i)]
                out = ModeOutcome(mode, len(pieces), 0.0, pieces=pieces)
                if plan.scenario == Scenario.THERMO:
                    _plan_mode_thermo(ctx, out)
                elif plan.scenario == Scenario.PLAIN:
                    _plan_mode_plain(ctx, out)
                else:
                    _plan_mode_pallet(ctx, out, with_vehicles=plan.scenario == Scenario.PALLET_LOAD)
                _name_rounded_sizes(out, [item for _, item in items])
                outcomes.append(out)

    thermo_or_plain = plan.scenario in (Scenario.THERMO, Scenario.PLAIN)
    return PlanOutcome(
        modes=outcomes,
        total_requested=total_pieces,
        alternatives=_alternatives(outcomes) if thermo_or_plain else None,
        with_vehicles=plan.scenario == Scenario.PALLET_LOAD,
    )
