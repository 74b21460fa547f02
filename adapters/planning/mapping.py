"""The one mapping from the libraries' typed results to the contract's schemas."""

from __future__ import annotations

import math
from typing import Any, Literal

from adapters.planning.catalogs import (
    _dims,
    _optional,
    pallet_templates_frame,
    vehicle,
    vehicle_slugs,
)
from adapters.planning.outcome import ModeOutcome, PlanOutcome
from adapters.planning.schemas import (
    AmbientSource,
    AxleLoad,
    CatalogContainer,
    CatalogPalletTemplate,
    CatalogSupport,
    CatalogThermalProfile,
    CatalogVehicle,
    CombinedModeReport,
    CombinedPackingPlanResult,
    ContainerAllocation,
    ContainerMetrics,
    Coolant,
    ItemPlacement,
    LoadingSide,
    MapSource,
    MetricObject,
    PackingErrorCode,
    PackingSummary,
    PlanAlternative,
    RejectedSlug,
    ResolvedRouteSegmentReport,
    StopAxleLoads,
    TemperatureModeCode,
    ThermalFilterResult,
    ThermalProfileUsed,
    UnplacedItem,
    VehicleAllocation,
    VehicleBodyType,
    VehicleDoor,
    VehiclePallet,
)
from packing import metrics as lib_metrics
from packing.model import Placement
from packing.result import ContainerLoad
from packing.vehicles import VehiclePlan, pallet_index
from thermal.catalog import containers_frame, profiles_frame
from thermal.degree_hours import equivalent_hold_hours
from thermal.eligibility import ProfileChoice
from thermal.modes import ALL_MODES
from thermal.thermal_filter import ThermalAssessment


def _mode_rank(mode: str) -> int:
    return ALL_MODES.index(mode) if mode in ALL_MODES else len(ALL_MODES)


def catalog_containers() -> list[CatalogContainer]:
    """The thermal box catalog as the contract lists it (``GET /api/v1/catalog/containers``).

    Returns
    -------
    list of CatalogContainer
        In catalog order; each box's profiles ordered by mode (as the mode enum lists them),
        then coolant. Dimensions are [length, height, width] in mm, hold times in h at
        +30 °C.
    """
    profiles = profiles_frame()
    by_slug: dict[str, list[CatalogThermalProfile]] = {}
    ordered = profiles.assign(_rank=profiles["mode"].map(_mode_rank)).sort_values(
        ["container_slug", "_rank", "coolant"], kind="stable"
    )
    for p in ordered.to_dict("records"):
        by_slug.setdefault(str(p["container_slug"]), []).append(
            CatalogThermalProfile(
                mode=TemperatureModeCode(str(p["mode"])),
                coolant=Coolant(str(p["coolant"])),
                holdHoursAtRefAmbient=float(p["hold_hours_at_ref_ambient"]),
                holdHoursAtColdRefAmbient=float(p["hold_hours_at_cold_ref_ambient"]),
                coldReferenceAmbientC=float(p["cold_reference_ambient_c"]),
            )
        )
    out: list[CatalogContainer] = []
    for raw in containers_frame().to_dict("records"):
        row = {str(k): v for k, v in raw.items()}
        out.append(
            CatalogContainer(
                slug=str(row["slug"]),
                title=str(row["title"]),
                outerMm=[float(v) for v in _dims(row, "outer")],
                innerWithCoolingMm=[float(v) for v in _dims(row, "inner")],
                volumeWithCoolingL=float(row["volume_with_cooling_l"]),
                maxPayloadKg=_optional(row["max_payload_kg"]),
                loadingSide=LoadingSide(str(row["loading_side"])),
                thermalProfiles=by_slug.get(str(row["slug"]), []),
            )
        )
    return out


def _metric(m: lib_metrics.Metric) -> MetricObject:
    return MetricObject(used=m.used, max=m.max, percent=m.percent)


def container_metrics(m: lib_metrics.ContainerMetrics) -> ContainerMetrics:
    """The library's container metrics as the contract's ContainerMetrics."""
    cog = None if m.center_of_gravity_mm is None else list(m.center_of_gravity_mm)
    return ContainerMetrics(
        volumeUtilization=m.volume_utilization,
        lossRatio=m.loss_ratio,
        weightUtilization=m.weight_utilization,
        itemCount=m.item_count,
        volumeM3=_metric(m.volume_m3),
        floorLengthCm=_metric(m.floor_length_cm),
        widthCm=_metric(m.width_cm),
        heightCm=_metric(m.height_cm),
        floorAreaM2=_metric(m.floor_area_m2),
        massKg=_metric(m.mass_kg),
        centerOfGravityMm=cog,
        cogOffset=m.cog_offset,
        cogHeightRatio=m.cog_height_ratio,
        rotationsUsed=m.rotations_used,
    )


def _r(value: Any) -> float:
    """Rounded to 6 decimals for the report: no binary noise such as 363.59999999999997."""
    return round(float(value), 6)


def _rounded_hours(hours: list[float]) -> list[float]:
    """Segment hours [h] to 6 decimals that add up to their total to 6 decimals, as the
    hours add up to the transit (22 parts of 1/22 h each rounded up added 0.00001 h): each
    the whole micro-hours below it, one more for those of the largest remainders (first of
    equals) until the total is reached; so each lies within 1e-6 h of its own, and none
    below 0."""
    scaled = [h * 1_000_000 for h in hours]
    whole = [math.floor(x) for x in scaled]
    short = round(math.fsum(hours) * 1_000_000) - sum(whole)
    by_remainder = sorted(range(len(hours)), key=lambda i: (whole[i] - scaled[i], i))
    for i in by_remainder[: max(0, short)]:
        whole[i] += 1
    return [w / 1_000_000 for w in whole]


def thermal_filter_result(assessment: ThermalAssessment) -> ThermalFilterResult:
    """The thermal check of a mode as the contract's ThermalFilterResult."""
    rows = assessment.segments.to_dict("records")
    hours = _rounded_hours([float(r["hours"]) for r in rows])
    segments = [
        ResolvedRouteSegmentReport(
            order=int(r["order"]),
            label=str(r["label"]),
            locationTypeKey=str(r["location_type_key"]),
            cityKey=str(r["city_key"]),
            hours=h,
            ambientC=_r(r["ambient_c"]),
            ambientSource=AmbientSource(str(r["ambient_source"])),
            loadDegreeHours=_r(r["load_dh"]),
        )
        for r, h in zip(rows, hours, strict=True)
    ]
    return ThermalFilterResult(
        requiredLoadDegreeHours=_r(assessment.required_load_dh),
        rawLoadDegreeHours=_r(assessment.raw_load_dh),
        safetyMarginUsed=assessment.safety_margin,
        routeSegmentsUsed=segments,
        weatherUsed=assessment.weather_used,
        mapSource=MapSource(assessment.map_source),
        eligibleContainerSlugs=list(assessment.eligibility.eligible),
        rejectedSlugs=[
            RejectedSlug(slug=r.slug, reason=r.reason) for r in assessment.eligibility.rejected
        ],
    )


def mode_report(out: ModeOutcome) -> CombinedModeReport:
    """One temperature mode's report."""
    if out.assessment is not None:
        tf = thermal_filter_result(out.assessment)
    elif out.unchecked_candidates is not None:
        tf = ThermalFilterResult(eligibleContainerSlugs=out.unchecked_candidates, rejectedSlugs=[])
    else:
        tf = ThermalFilterResult()
    return CombinedModeReport(
        temperatureMode=TemperatureModeCode(out.mode),
        feasible=out.feasible,
        errorCode=None if out.error is None else PackingErrorCode(out.error),
        message=out.message,
        transitHoursUsed=float(out.transit_hours),
        thermalFilter=tf,
        requestedCount=out.requested,
        placedCount=out.placed,
    )


def _profile_used(
    mode: str, choice: ProfileChoice | None, required_dh: float
) -> ThermalProfileUsed:
    if choice is None:
        return ThermalProfileUsed(
            mode=TemperatureModeCode.NONE,
            holdHoursAtRefAmbient=0.0,
            thermalCapacityDegreeHours=0.0,
            requiredLoadDegreeHours=0.0,
        )
    hold = round(float(equivalent_hold_hours(required_dh, mode)), 6) if required_dh > 0 else None
    return ThermalProfileUsed(
        mode=TemperatureModeCode(mode),
        holdHoursAtRefAmbient=choice.hold_hours,
        thermalCapacityDegreeHours=round(choice.capacity_dh, 6),
        requiredLoadDegreeHours=round(required_dh, 6),
        requiredHoldHours=hold,
    )


def allocation(
    load: ContainerLoad, mode: str, choice: ProfileChoice | None, required_dh: float
) -> ContainerAllocation:
    """One loaded container (or pallet) as the contract's ContainerAllocation."""
    ct = load.container
    cargo = load.cargo_weight_kg
    return ContainerAllocation(
        containerSlug=ct.slug,
        containerTitle=ct.title,
        containerIndex=load.index,
        count=1,
        coolant=None if choice is None else Coolant(choice.coolant),
        thermalProfileUsed=_profile_used(mode, choice, required_dh),
        innerUsableMm=[float(v) for v in ct.inner],
        loadingSide=LoadingSide(ct.loading_side),
        cargoWeightKg=round(cargo, 6),
        tareWithCoolantKg=round(ct.tare_kg, 6),
        totalWeightKg=round(cargo + ct.tare_kg, 6),
        metrics=container_metrics(lib_metrics.container_metrics(load)),
    )


def _rotation(rotation: tuple[int, int, int]) -> list[Literal[0, 90]]:
    """Quarter turns about X, Y, Z as the contract writes them (each 0 or 90)."""
    return [90 if r else 0 for r in rotation]


def placement(p: Placement) -> ItemPlacement:
    """One placed piece as the contract's ItemPlacement."""
    return ItemPlacement(
        cargoItemId=p.piece.item_id,
        instanceIndex=p.piece.instance,
        containerIndex=p.container_index,
        positionMm=[float(v) for v in p.position],
        rotation=_rotation(p.rotation),
        dimensionsMm=[float(v) for v in p.extents],
        loadStep=p.load_step,
        color=p.piece.color,
    )


def _axle_load(name: str, load: float, limit: float, least: float) -> AxleLoad:
    return AxleLoad(
        name=name,
        loadKg=round(load, 3),
        maxKg=limit,
        minKg=round(least, 3) if least > 0 else None,
    )


def vehicles(plan: VehiclePlan) -> list[VehicleAllocation]:
    """The vehicles of a PALLET_LOAD mode."""
    out = []
    for lv in plan.vehicles:
        by_stop = lv.stop_loads()
        out.append(
            VehicleAllocation(
                vehicleSlug=lv.vehicle.slug,
                vehicleTitle=lv.vehicle.body.title,
                vehicleIndex=lv.index,
                pallets=[
                    VehiclePallet(
                        containerIndex=pallet_index(p.piece),
                        positionMm=[float(v) for v in p.position],
                        rotation=_rotation(p.rotation),
                    )
                    for p in lv.load.placements
                ],
                cargoWeightKg=round(lv.cargo_weight_kg, 6),
                axleLoads=[
                    _axle_load(name, load, limit, least)
                    for (name, load, limit), least in zip(
                        lv.axle_loads(), lv.axle_minimums(), strict=True
                    )
                ],
                axleLoadsByStop=[
                    StopAxleLoads(
                        stop=s.stop,
                        unloadPriority=s.unload_priority,
                        axleLoads=[_axle_load(*a) for a in s.loads],
                    )
                    for s in by_stop
                ]
                or None,
            )
        )
    return out


def catalog_pallet_templates() -> list[CatalogPalletTemplate]:
    """The pallet templates as the contract lists them
    (``GET /api/v1/catalog/pallet-templates``), in catalog order; lengths in mm, masses in kg.
    """
    return [
        CatalogPalletTemplate(
            slug=str(slug),
            title=str(r["title"]),
            deckLengthMm=float(r["deck_length_mm"]),
            deckWidthMm=float(r["deck_width_mm"]),
            deckHeightMm=float(r["deck_height_mm"]),
            maxLoadHeightMm=float(r["max_load_height_mm"]),
            maxPayloadKg=_optional(r["max_payload_kg"]),
            tareKg=float(r["tare_kg"]),
        )
        for slug, r in pallet_templates_frame().iterrows()
    ]


def catalog_vehicles() -> list[CatalogVehicle]:
    """The vehicles as the contract lists them (``GET /api/v1/catalog/vehicles``), in
    catalog order; lengths in mm, masses in kg, set points in °C."""
    out = []
    for slug in vehicle_slugs():
        v = vehicle(slug)
        rng = v.temperature_range_c
        out.append(
            CatalogVehicle(
                slug=slug,
                title=v.body.title,
                innerMm=[float(x) for x in v.body.inner],
                outerMm=[float(x) for x in v.body.outer_dims],
                maxPayloadKg=float(v.body.max_payload_kg or 0.0),
                tareKg=v.body.tare_kg,
                loadingSide=LoadingSide(v.body.loading_side),
                supports=[
                    CatalogSupport(
                        name=s.name,
                        positionMm=s.position_mm,
                        tareKg=s.tare_kg,
                        maxKg=s.max_kg,
                        minShare=s.min_share,
                    )
                    for s in (v.front, v.rear)
                ],
                bodyType=VehicleBodyType(v.body_type),
                temperatureMinC=None if rng is None else rng[0],
                temperatureMaxC=None if rng is None else rng[1],
                compartments=v.compartments,
                doors=[VehicleDoor(d) for d in v.doors],
                doubleStack=v.double_stack,
            )
        )
    return out


def plan_result(outcome: PlanOutcome) -> CombinedPackingPlanResult:
    """The whole typed outcome as the contract's CombinedPackingPlanResult."""
    containers: list[ContainerAllocation] = []
    placements: list[ItemPlacement] = []
    for out in outcome.modes:
        if out.packed is None:
            continue
        containers += [
            allocation(load, out.mode, out.profiles.get(load.container.slug), out.required_load_dh)
            for load in out.packed.containers
        ]
        placements += [placement(p) for p in out.packed.placements]
    by_type: dict[str, int] = {}
    for a in containers:
        by_type[a.containerSlug] = by_type.get(a.containerSlug, 0) + 1
    alternatives = None
    if outcome.alternatives is not None:
        alternatives = [
            PlanAlternative(
                containerSlug=a.slug,
                containerTitle=a.title,
                boxes=a.boxes,
                coolingVolumeL=a.cooling_volume_l,
                outerVolumeL=a.outer_volume_l,
            )
            for a in outcome.alternatives
        ]
    loaded: list[VehicleAllocation] | None = None
    if outcome.with_vehicles:
        loaded = [v for out in outcome.modes if out.vehicles for v in vehicles(out.vehicles)]
    return CombinedPackingPlanResult(
        feasible=bool(outcome.modes) and all(o.feasible for o in outcome.modes),
        temperatureModes=[TemperatureModeCode(o.mode) for o in outcome.modes],
        modes=[mode_report(o) for o in outcome.modes],
        containers=containers,
        placements=placements,
        unplacedItems=[
            UnplacedItem(cargoItemId=u.item_id, instanceIndex=u.instance, reason=u.reason)
            for o in outcome.modes
            for u in o.unplaced
        ],
        summary=PackingSummary(
            byContainerType=by_type,
            totalPlaced=len(placements),
            totalRequested=outcome.total_requested,
        ),
        alternatives=alternatives,
        vehicleCount=None if loaded is None else len(loaded),
        vehicles=loaded,
    )
