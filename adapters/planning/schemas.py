"""Pydantic models of the v1 API contract (docs/http.md, docs/conventions.md).

Field names are the contract's camelCase names. The models are shared by the REST service and
the planner, so they import nothing from a web framework or a database.

Conventions
-----------
- Input models (``PackingPlanInput`` and what it contains, ``CargoCatalogItem``) forbid unknown
  properties, reject an explicit ``null`` for any field (the contract has no nullable input
  field) and take numbers and booleans strictly: ``"5"`` is not a quantity and ``1`` is not
  ``true``.
- An optional field is *absent* when it is ``None``: output models leave such fields out when
  serialising, and the JSON Schema of an optional field has no ``null`` branch. Fields that the
  contract declares nullable (``coolant``, ``externalRef``, ``maxPayloadKg``) are required and
  keep their ``null``.
- Lengths of cargo are in cm, every output geometry in mm, masses in kg (docs/conventions.md#units).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import sys
import unicodedata
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import ErrorDetails, InitErrorDetails

from adapters.timestamps import iso_z
from packing.strategies import STRATEGIES

__all__ = [
    "AllowedRotations",
    "AmbientSource",
    "AxleLoad",
    "CargoCatalogItem",
    "CargoRules",
    "CatalogContainer",
    "CatalogPalletTemplate",
    "CatalogSupport",
    "CatalogThermalProfile",
    "CatalogVehicle",
    "CombinedModeReport",
    "CombinedPackingPlanResult",
    "ComputePackingResponse",
    "ContainerAllocation",
    "ContainerMetrics",
    "Coolant",
    "ItemPlacement",
    "LoadingOrder",
    "LoadingSide",
    "MapSource",
    "MetricObject",
    "PackingAlgorithm",
    "PackingCargoItem",
    "PackingErrorCode",
    "PackingPlanInput",
    "PackingPlanOptions",
    "PackingPlanRecord",
    "PackingSummary",
    "PlanAlternative",
    "PlanSource",
    "RejectedSlug",
    "ResolvedRouteSegmentReport",
    "Scenario",
    "StopAxleLoads",
    "TemperatureModeCode",
    "ThermalFilterResult",
    "ThermalProfileUsed",
    "UnplacedItem",
    "VehicleAllocation",
    "VehicleBodyType",
    "VehicleDoor",
    "VehiclePallet",
]


# --------------------------------------------------------------------------- enumerations


class TemperatureModeCode(StrEnum):
    """Temperature mode of a cargo item or a container profile."""

    PLUS_15_25 = "PLUS_15_25"
    PLUS_2_25 = "PLUS_2_25"
    PLUS_2_8 = "PLUS_2_8"
    MINUS_25_15 = "MINUS_25_15"
    MINUS_78 = "MINUS_78"
    MINUS_196 = "MINUS_196"
    NONE = "NONE"


class Scenario(StrEnum):
    """Kind of calculation."""

    THERMO = "THERMO"
    PLAIN = "PLAIN"
    PALLET = "PALLET"
    PALLET_LOAD = "PALLET_LOAD"


class PackingErrorCode(StrEnum):
    """Why a mode of a plan is not feasible (inside a 200 result)."""

    NO_CARGO = "NO_CARGO"
    TOO_MANY_ITEMS = "TOO_MANY_ITEMS"
    UNSUPPORTED_MODE = "UNSUPPORTED_MODE"
    THERMAL_DATA_MISSING = "THERMAL_DATA_MISSING"
    TRANSIT_UNKNOWN = "TRANSIT_UNKNOWN"
    NO_ELIGIBLE_CONTAINERS = "NO_ELIGIBLE_CONTAINERS"
    PACKING_FAILED = "PACKING_FAILED"
    WEIGHT_EXCEEDED = "WEIGHT_EXCEEDED"
    AXLE_OVERLOAD = "AXLE_OVERLOAD"


class LoadingSide(StrEnum):
    """Door of a container: TOP opens at Y = height, FRONT at X = length, SIDE at Z = width."""

    TOP = "TOP"
    FRONT = "FRONT"
    SIDE = "SIDE"


class Coolant(StrEnum):
    """Kind of coolant element of a thermal profile."""

    BC = "BC"
    PCM = "PCM"


class AllowedRotations(StrEnum):
    """FLOOR_90: turns in the floor plane only; ALL: all six orientations."""

    FLOOR_90 = "FLOOR_90"
    ALL = "ALL"


class LoadingOrder(StrEnum):
    """OPTIMAL: the planner orders the load; MANUAL: request order is kept."""

    OPTIMAL = "OPTIMAL"
    MANUAL = "MANUAL"


PackingAlgorithm = StrEnum(  # type: ignore[misc]  # a functional enum over the registry
    "PackingAlgorithm",
    {name.upper().replace("-", "_"): name for name in STRATEGIES},
    module=__name__,
)
"""3D packing algorithm: the packing library's registered strategies (``packing.STRATEGIES``);
the contract's first-fit-decreasing and best-area-fit, block-building (the default) and milp."""


class MapSource(StrEnum):
    """Where the route's segments came from (docs/thermal.md#route-maps)."""

    CATALOG = "catalog"
    OVERRIDE = "override"
    DEFAULT_TEMPLATE = "default-template"


class AmbientSource(StrEnum):
    """Where a segment's ambient temperature came from (docs/thermal.md#ambient-sources)."""

    OVERRIDE = "override"
    WEATHER = "weather"
    SEASONAL = "seasonal"
    LOCATION_DEFAULT = "location-default"


class PlanSource(StrEnum):
    """Origin of a stored plan."""

    API = "API"
    UI = "UI"


# --------------------------------------------------------------------------- base classes

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _optional_means_absent(schema: dict[str, Any]) -> None:
    """JSON Schema hook: an optional property has no ``null`` branch and no ``null`` default.

    Required properties keep their ``null`` branch: those are the nullable ones.
    """
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        if name in required:
            continue
        branches = prop.get("anyOf")
        if branches is not None and {"type": "null"} in branches:
            rest = [b for b in branches if b != {"type": "null"}]
            del prop["anyOf"]
            if len(rest) == 1:
                prop.update(rest[0])
            else:
                prop["anyOf"] = rest
        if "default" in prop and prop["default"] is None:
            del prop["default"]


#: The largest float, as an integer (exactly): what an integer beyond the float range counts as.
_FLOAT_MAX = int(sys.float_info.max)


def _integral(value: Any) -> Any:
    """An integer-valued JSON number (``2.0``) is an integer, as JSON Schema counts it; number
    fields take integers too, so this changes no other field's meaning.

    An integer beyond the float range (JSON allows any) counts as the largest float of its
    sign: still beyond every bound, so a number field refuses it by its bound, where the
    conversion to a float would fail as if it were no number."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _FLOAT_MAX:
        return _FLOAT_MAX if value > 0 else -_FLOAT_MAX
    return value


class _Input(BaseModel):
    """Base of request bodies: no unknown properties, no explicit nulls."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_optional_means_absent)

    @field_validator("*", mode="before")
    @classmethod
    def _reject_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("must not be null")
        return _integral(value)


#: The base of every request body (compute, share links, PDF requests).
RequestBody = _Input


class _Output(BaseModel):
    """Base of response bodies: optional fields that are ``None`` are left out."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_optional_means_absent)

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_absent(self, handler(self))


def _without_absent(model: BaseModel, data: Any) -> Any:
    """Serialised ``model`` without its optional fields that are ``None`` (absent)."""
    if isinstance(data, dict):
        for name, field in type(model).model_fields.items():
            if not field.is_required() and name in data and data[name] is None:
                del data[name]
    return data


def _init_details(error: ErrorDetails) -> InitErrorDetails:
    """An error reported by pydantic, in the form that re-raises it."""
    details = InitErrorDetails(type=error["type"], loc=error["loc"], input=error["input"])
    if "ctx" in error:
        details["ctx"] = error["ctx"]
    return details


def _iso_date(value: Any) -> Any:
    """Dates come as ``YYYY-MM-DD`` strings (or ``date`` objects from Python callers)."""
    if isinstance(value, dt.datetime):
        raise ValueError("must be a date (YYYY-MM-DD), not a date-time")
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        raise ValueError("must be a date in the form YYYY-MM-DD")
    return value


Vec3 = Annotated[list[float], Field(min_length=3, max_length=3)]
"""Three numbers [X, Y, Z] or [length, height, width] in mm."""

Rotation = Annotated[list[Literal[0, 90]], Field(min_length=3, max_length=3)]
"""Turns about [X, Y, Z] in degrees, each 0 or 90 (docs/conventions.md#orientations)."""

Fraction = Annotated[float, Field(ge=0, le=1)]


def _no_control(value: str) -> str:
    """Caller text is data: control characters (NUL, escapes, line breaks) are refused."""
    bad = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise ValueError(f"must not contain control characters (found U+{ord(bad):04X})")
    return value


def _normal_number(value: float | None) -> float | None:
    """Finite, and 0 or a normal float: a subnormal is no real measurement."""
    if value is None:
        return value
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    if value != 0 and abs(value) < sys.float_info.min:
        raise ValueError("a nonzero value must be at least 2.2e-308 in magnitude (got a subnormal)")
    return value


Text = Annotated[str, AfterValidator(_no_control)]
"""Caller text: no control characters; each field sets its own length bound."""

Number = Annotated[StrictFloat, AllowInfNan(False)]
"""A finite number (integers are accepted); models refuse subnormals with ``_normal_number``."""

Integer = StrictInt
"""An integer; the input base turns an integer-valued number such as ``2.0`` into one."""

#: Upper bound of the request's whole numbers without one of their own (``unloadPriority``):
#: the contract gives none, and past 2**53 - 1 a JSON number is not an exact integer in every
#: client (JavaScript's safe integers; the OpenAPI document's bound stays exact).
MAX_WHOLE = 2**53 - 1
#: Upper bound of ``quantity``: far above the pieces a plan takes (too many pieces are a 200
#: result with TOO_MANY_ITEMS, decisions §4, not a 422), and low enough that the counts the
#: result adds up (``totalRequested``, ``requestedCount``) stay exact integers in every client
#: whatever the number of cargo items.
MAX_QUANTITY = 10**9

#: Length bounds of caller text: names, titles, cities; identifiers and slugs.
MAX_TEXT = 300
MAX_ID = 100

# --------------------------------------------------------------------------- plan input


class CargoRules(_Input):
    """Handling rules of a cargo item; absent fields take the defaults of docs/conventions.md#cargo-rules."""

    allowTilt: StrictBool | None = Field(
        default=None, description="Tilting is allowed when stacking."
    )
    allowStackOnTop: StrictBool | None = Field(
        default=None, description="Other pieces may be placed on top (false: nothing on top)."
    )
    allowStackUnder: StrictBool | None = Field(
        default=None, description="This piece may stand on other pieces (false: floor only)."
    )
    fragile: StrictBool | None = Field(
        default=None, description="Only a mark on the diagram and in the report."
    )
    allowedRotations: AllowedRotations | None = Field(
        default=None, description="FLOOR_90: 90° turns in the floor plane; ALL: all 6 orientations."
    )
    loadingOrder: LoadingOrder | None = Field(default=None, description="Loading order mode.")
    unloadPriority: Integer | None = Field(
        default=None, ge=0, le=MAX_WHOLE, description="Higher is unloaded earlier; 0 is normal."
    )
    color: str | None = Field(
        default=None,
        pattern=r"^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$",
        description="Hex colour of the piece in the 3D view, #rgb or #rrggbb.",
    )


SKU_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"

#: Upper bounds of one piece, so absurd magnitudes get a 422 naming the field instead of
#: overflowing arithmetic: 1 km [cm] and 1,000,000 t [kg]. The v1 specification states
#: only lower bounds; these fill that gap.
MAX_LENGTH_CM = 100_000.0
MAX_WEIGHT_KG = 1e9
MAX_TRANSIT_HOURS = 366 * 24.0
"""SKUs appear in URL paths: letters, digits, ``.``, ``_``, ``-``; 1 to 64 characters."""

#: Cargo fields that a ``sku`` reference may leave to the organisation catalog.
SKU_FILLABLE_FIELDS: tuple[str, ...] = (
    "name",
    "lengthCm",
    "widthCm",
    "heightCm",
    "weightKg",
    "temperatureMode",
)


def _sku_or_complete(schema: dict[str, Any]) -> None:
    """JSON Schema hook: a cargo item has a ``sku`` or all of :data:`SKU_FILLABLE_FIELDS`."""
    _optional_means_absent(schema)
    schema["anyOf"] = [{"required": ["sku"]}, {"required": list(SKU_FILLABLE_FIELDS)}]


class PackingCargoItem(_Input):
    """One cargo position: ``quantity`` identical pieces.

    With ``sku`` (docs/http.md#sku-catalog) the fields of :data:`SKU_FILLABLE_FIELDS` may be absent: the
    service fills them from the organisation's catalog, given fields win. Without ``sku`` they
    are all required.
    """

    model_config = ConfigDict(json_schema_extra=_sku_or_complete)

    id: Text = Field(min_length=1, max_length=MAX_ID, description="Unique within the request.")
    sku: str | None = Field(
        default=None,
        pattern=SKU_PATTERN,
        description="Organisation catalog SKU whose data fills the absent fields.",
    )
    name: Text | None = Field(
        default=None, min_length=1, max_length=MAX_TEXT, description="Name used in the report."
    )
    lengthCm: Number | None = Field(
        default=None, gt=0, le=MAX_LENGTH_CM, description="One piece [cm]."
    )
    widthCm: Number | None = Field(
        default=None, gt=0, le=MAX_LENGTH_CM, description="One piece [cm]."
    )
    heightCm: Number | None = Field(
        default=None, gt=0, le=MAX_LENGTH_CM, description="One piece [cm]."
    )
    weightKg: Number | None = Field(
        default=None, ge=0, le=MAX_WEIGHT_KG, description="One piece [kg]."
    )
    quantity: Integer = Field(ge=1, le=MAX_QUANTITY, description="Number of identical pieces.")
    temperatureMode: TemperatureModeCode | None = Field(
        default=None, description="NONE for a shipment without a temperature mode."
    )
    includedInPacking: StrictBool = Field(
        default=True, description="false excludes the item from packing."
    )
    rules: CargoRules | None = None

    _normal = field_validator("lengthCm", "widthCm", "heightCm", "weightKg")(_normal_number)

    @model_validator(mode="wrap")
    @classmethod
    def _complete_without_sku(
        cls, data: Any, handler: ModelWrapValidatorHandler[PackingCargoItem]
    ) -> PackingCargoItem:
        missing: list[InitErrorDetails] = []
        if isinstance(data, dict) and data.get("sku") is None:
            missing = [
                InitErrorDetails(type="missing", loc=(name,), input=data)
                for name in SKU_FILLABLE_FIELDS
                if name not in data
            ]
        try:
            item = handler(data)
        except ValidationError as exc:
            if not missing:
                raise
            raise ValidationError.from_exception_data(
                cls.__name__, [_init_details(e) for e in exc.errors()] + missing
            ) from None
        if missing:
            raise ValidationError.from_exception_data(cls.__name__, missing)
        if item.sku is None and not item.is_complete:
            raise ValidationError.from_exception_data(
                cls.__name__,
                [
                    InitErrorDetails(type="missing", loc=(name,), input=None)
                    for name in SKU_FILLABLE_FIELDS
                    if getattr(item, name) is None
                ],
            )
        return item

    @property
    def is_complete(self) -> bool:
        """True when every field a sku may fill is present."""
        return all(getattr(self, f) is not None for f in SKU_FILLABLE_FIELDS)


class PackingPlanOptions(_Input):
    """Options of a calculation."""

    preferredContainers: list[Annotated[Text, Field(min_length=1, max_length=MAX_ID)]] | None = (
        Field(
            default=None, max_length=200, description="Container (or vehicle) slugs to choose from."
        )
    )
    maxContainers: Integer | None = Field(
        default=None, ge=1, le=200, description="Maximum containers in the plan."
    )
    algorithm: PackingAlgorithm | None = Field(default=None, description="3D packing algorithm.")
    packingBudgetMs: Integer | None = Field(
        default=None, ge=1, le=120000, description="Ignored by compute."
    )
    useMockThermal: StrictBool | None = Field(
        default=None,
        description="Allows mock thermal/route data; default true for sandbox keys, "
        "false for production keys.",
    )
    skipThermalCapacity: StrictBool | None = Field(
        default=None,
        description="Containers are not filtered by degree-hour capacity; the thermal load "
        "is still calculated.",
    )


class PackingPlanInput(_Input):
    """Body of a compute request."""

    planTitle: Text | None = Field(
        default=None, max_length=200, description="Title of the calculation."
    )
    orderRef: Text | None = Field(
        default=None,
        min_length=1,
        max_length=120,
        description="External order number, stored as externalRef (not empty: the plans are "
        "found by it).",
    )
    scenario: Scenario = Scenario.THERMO
    palletTemplateSlug: Text | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_ID,
        description="Pallet template for PALLET and PALLET_LOAD.",
    )
    originCity: Text = Field(min_length=1, max_length=MAX_TEXT)
    destinationCity: Text = Field(min_length=1, max_length=MAX_TEXT)
    sendDate: dt.date | None = Field(default=None, description="Departure date.")
    receiveDate: dt.date | None = Field(
        default=None, description="Receipt date; an alternative to transitHours."
    )
    transitHours: Number | None = Field(
        default=None, gt=0, le=MAX_TRANSIT_HOURS, description="Transit time [h]; at most 366 days."
    )
    cargos: list[PackingCargoItem] = Field(min_length=1, max_length=100)
    options: PackingPlanOptions | None = None

    _check_dates = field_validator("sendDate", "receiveDate", mode="before")(_iso_date)
    _normal = field_validator("transitHours")(_normal_number)

    @model_validator(mode="after")
    def _unique_cargo_ids(self) -> PackingPlanInput:
        # ids compared in one Unicode form (NFC): "é" and "e" + U+0301 print alike, and
        # placements, the PDF and the 3D view would show two items under one name
        seen: dict[str, int] = {}
        errors: list[InitErrorDetails] = []
        for index, item in enumerate(self.cargos):
            key = unicodedata.normalize("NFC", item.id)
            if key in seen:
                first = self.cargos[seen[key]].id
                form = (
                    ""
                    if first == item.id
                    else f" (as cargos[{seen[key]}].id, in another Unicode form)"
                )
                errors.append(
                    InitErrorDetails(
                        type="value_error",
                        loc=("cargos", index, "id"),
                        input=item.id,
                        ctx={"error": f"duplicate cargo id {item.id!r}{form}"},
                    )
                )
            else:
                seen[key] = index
        if errors:
            raise ValidationError.from_exception_data("PackingPlanInput", errors)
        return self


# --------------------------------------------------------------------------- plan result


class RejectedSlug(_Output):
    slug: str
    reason: str


class ResolvedRouteSegmentReport(_Output):
    """One segment of the resolved route with its thermal load."""

    order: int | None = None
    label: str | None = None
    locationTypeKey: str | None = None
    cityKey: str | None = None
    hours: float | None = Field(default=None, description="[h]")
    ambientC: float | None = Field(default=None, description="[°C]")
    ambientSource: AmbientSource | None = None
    loadDegreeHours: float | None = Field(default=None, description="[°C·h]")


class ThermalFilterResult(_Output):
    """Thermal filter of a mode; empty for scenarios without thermal logic."""

    requiredLoadDegreeHours: float | None = Field(default=None, description="[°C·h]")
    rawLoadDegreeHours: float | None = Field(default=None, description="[°C·h]")
    safetyMarginUsed: float | None = None
    routeSegmentsUsed: list[ResolvedRouteSegmentReport] | None = None
    weatherUsed: bool | None = None
    mapSource: MapSource | None = None
    eligibleContainerSlugs: list[str] | None = None
    rejectedSlugs: list[RejectedSlug] | None = None


class CombinedModeReport(_Output):
    """Result of one temperature mode of the plan."""

    temperatureMode: TemperatureModeCode
    feasible: bool
    errorCode: PackingErrorCode | None = None
    message: str | None = None
    transitHoursUsed: float = Field(description="[h]")
    thermalFilter: ThermalFilterResult
    requestedCount: int
    placedCount: int


class ThermalProfileUsed(_Output):
    """Thermal profile chosen for a container (mode NONE and zeros when it has none)."""

    mode: TemperatureModeCode
    holdHoursAtRefAmbient: float = Field(description="[h]")
    thermalCapacityDegreeHours: float = Field(description="[°C·h]")
    requiredLoadDegreeHours: float = Field(description="[°C·h]")
    requiredHoldHours: float | None = Field(
        default=None, description="Deprecated. [h]", json_schema_extra={"deprecated": True}
    )


class MetricObject(_Output):
    used: float
    max: float
    percent: float = Field(ge=0, le=100)


class ContainerMetrics(_Output):
    """Utilisation metrics of one container (docs/conventions.md#metrics)."""

    volumeUtilization: Fraction | None = None
    lossRatio: Fraction | None = None
    weightUtilization: Fraction | None = None
    itemCount: int | None = None
    volumeM3: MetricObject | None = None
    floorLengthCm: MetricObject | None = None
    widthCm: MetricObject | None = None
    heightCm: MetricObject | None = None
    floorAreaM2: MetricObject | None = None
    massKg: MetricObject | None = None
    centerOfGravityMm: Vec3 | None = None
    cogOffset: Fraction | None = None
    cogHeightRatio: Fraction | None = None
    rotationsUsed: int | None = None


class ContainerAllocation(_Output):
    """One physical container (or pallet) of the plan."""

    containerSlug: str
    containerTitle: str
    containerIndex: int = Field(ge=0)
    count: int = Field(ge=1)
    coolant: Coolant | None = Field(
        description="null for allocations without coolant (pallets, containers without a "
        "profile for the mode)."
    )
    thermalProfileUsed: ThermalProfileUsed
    innerUsableMm: Vec3
    loadingSide: LoadingSide
    cargoWeightKg: float
    tareWithCoolantKg: float
    totalWeightKg: float
    metrics: ContainerMetrics


class ItemPlacement(_Output):
    """Where one piece went."""

    cargoItemId: str
    instanceIndex: int = Field(ge=0)
    containerIndex: int = Field(ge=0)
    positionMm: Vec3
    rotation: Rotation
    dimensionsMm: Vec3
    loadStep: int = Field(ge=1)
    color: str


class UnplacedItem(_Output):
    cargoItemId: str
    instanceIndex: int
    reason: str


class PlanAlternative(_Output):
    containerSlug: str
    containerTitle: str
    boxes: int
    coolingVolumeL: float
    outerVolumeL: float


class PackingSummary(_Output):
    byContainerType: dict[str, int]
    totalPlaced: int
    totalRequested: int


class AxleLoad(_Output):
    name: str
    loadKg: float
    maxKg: float
    minKg: float | None = Field(
        default=None,
        description="Least load of the support: its minimum share of the vehicle's gross mass "
        "(a rigid vehicle's drive axle, 25 %); absent when the support has none.",
    )


class StopAxleLoads(_Output):
    """Axle loads of a multi-drop vehicle after one stop's pallets are off."""

    stop: int = Field(ge=1, description="1 for the first stop.")
    unloadPriority: int = Field(ge=0, description="Priority of the pallets unloaded there.")
    axleLoads: list[AxleLoad]


class VehiclePallet(_Output):
    """A pallet (a ``containers`` entry) as placed in a vehicle."""

    containerIndex: int = Field(ge=0)
    positionMm: Vec3
    rotation: Rotation


class VehicleAllocation(_Output):
    """One vehicle of a PALLET_LOAD plan (docs/conventions.md#pallet_load)."""

    vehicleSlug: str
    vehicleTitle: str
    vehicleIndex: int = Field(ge=0)
    pallets: list[VehiclePallet]
    cargoWeightKg: float
    axleLoads: list[AxleLoad] = Field(description="The loaded vehicle, front support first.")
    axleLoadsByStop: list[StopAxleLoads] | None = Field(
        default=None,
        description="Vehicles with pallets of two or more unload priorities: the axle loads "
        "after each stop but the last (after which the vehicle is empty), in unloading order "
        "(highest priority first).",
    )


class CombinedPackingPlanResult(_Output):
    """The plan result."""

    feasible: bool
    temperatureModes: list[TemperatureModeCode]
    modes: list[CombinedModeReport]
    containers: list[ContainerAllocation]
    placements: list[ItemPlacement]
    unplacedItems: list[UnplacedItem]
    summary: PackingSummary
    alternatives: list[PlanAlternative] | None = None
    vehicleCount: int | None = Field(default=None, ge=0, description="PALLET_LOAD only.")
    vehicles: list[VehicleAllocation] | None = Field(default=None, description="PALLET_LOAD only.")

    def _repr_html_(self) -> str:
        """In a notebook: the plan's tables and figures (:func:`adapters.report.show`)."""
        from adapters.report.notebook import show

        return show(self)._repr_html_()


class ComputePackingResponse(CombinedPackingPlanResult):
    """Answer of compute: the saved plan's id merged with its result."""

    planId: str


class PackingPlanRecord(_Output):
    """A stored plan."""

    planId: str
    externalRef: str | None = Field(description="The orderRef of the input.")
    source: PlanSource
    createdAt: dt.datetime = Field(description="UTC, ISO 8601 with Z.")
    input: PackingPlanInput
    result: CombinedPackingPlanResult

    def _repr_html_(self) -> str:
        """In a notebook: the plan's tables and figures (:func:`adapters.report.show`)."""
        from adapters.report.notebook import show

        return show(self)._repr_html_()


# --------------------------------------------------------------------------- catalogs


class CatalogThermalProfile(_Output):
    mode: TemperatureModeCode
    coolant: Coolant
    holdHoursAtRefAmbient: float = Field(description="[h] at the +30 °C reference ambient.")
    holdHoursAtColdRefAmbient: float = Field(
        description="[h] at the cold reference ambient (the winter side of the thermal check)."
    )
    coldReferenceAmbientC: float = Field(
        description="[°C] cold reference ambient of the profile, below its set point."
    )


class CatalogContainer(_Output):
    """A thermal container of the read-only catalog."""

    slug: str
    title: str
    outerMm: Vec3 = Field(description="[length, height, width] mm")
    innerWithCoolingMm: Vec3 = Field(description="[length, height, width] mm")
    volumeWithCoolingL: float
    maxPayloadKg: float | None
    loadingSide: LoadingSide
    thermalProfiles: list[CatalogThermalProfile]


class CatalogPalletTemplate(_Output):
    """A pallet template of PALLET and PALLET_LOAD (``palletTemplateSlug``)."""

    slug: str
    title: str
    deckLengthMm: float
    deckWidthMm: float
    deckHeightMm: float = Field(description="Height of the pallet itself.")
    maxLoadHeightMm: float = Field(description="Load height allowed above the deck.")
    maxPayloadKg: float | None
    tareKg: float


class CatalogSupport(_Output):
    """An axle, axle group or kingpin of a vehicle."""

    name: str
    positionMm: float = Field(
        description="Along the body's X axis (front wall 0, rear doors at the body length); "
        "negative is ahead of the front wall."
    )
    tareKg: float = Field(description="Share of the empty vehicle's mass.")
    maxKg: float
    minShare: float = Field(
        ge=0, le=1, description="Least fraction of the gross mass the support must carry."
    )


class VehicleBodyType(StrEnum):
    """Body of a vehicle: no insulation, insulated without a unit, refrigerated, or
    refrigerated with several temperature compartments."""

    DRY = "DRY"
    INSULATED = "INSULATED"
    REEFER = "REEFER"
    MULTI_TEMP = "MULTI_TEMP"


class VehicleDoor(StrEnum):
    REAR = "REAR"
    SIDE = "SIDE"


class CatalogVehicle(_Output):
    """A vehicle of PALLET_LOAD (``options.preferredContainers`` may name its slug)."""

    slug: str
    title: str
    innerMm: Vec3 = Field(description="Cargo body [length, height, width] mm.")
    outerMm: Vec3 = Field(description="[length, height, width] mm")
    maxPayloadKg: float
    tareKg: float
    loadingSide: LoadingSide
    supports: list[CatalogSupport] = Field(description="Front support first.")
    bodyType: VehicleBodyType
    temperatureMinC: float | None = Field(
        default=None, description="Lowest set point of the refrigeration unit; absent without one."
    )
    temperatureMaxC: float | None = Field(
        default=None, description="Highest set point of the refrigeration unit; absent without one."
    )
    compartments: int = Field(ge=1)
    doors: list[VehicleDoor]
    doubleStack: bool = Field(description="The body has a second deck for pallets.")


class CargoCatalogItem(_Input):
    """An item of an organisation's SKU catalog (docs/http.md#sku-catalog)."""

    sku: Annotated[str, Field(pattern=SKU_PATTERN)]
    name: Text = Field(min_length=1, max_length=MAX_TEXT)
    lengthCm: Number = Field(gt=0, le=MAX_LENGTH_CM)
    widthCm: Number = Field(gt=0, le=MAX_LENGTH_CM)
    heightCm: Number = Field(gt=0, le=MAX_LENGTH_CM)
    weightKg: Number = Field(ge=0, le=MAX_WEIGHT_KG)
    temperatureMode: TemperatureModeCode
    rules: CargoRules | None = None

    _normal = field_validator("lengthCm", "widthCm", "heightCm", "weightKg")(_normal_number)

    #: Fields copied into a cargo item that references this SKU.
    FILLS: ClassVar[tuple[str, ...]] = SKU_FILLABLE_FIELDS

    def fill(self, item: PackingCargoItem) -> PackingCargoItem:
        """``item`` with its absent fields taken from this catalog entry; given fields win."""
        updates: dict[str, Any] = {
            name: getattr(self, name) for name in self.FILLS if getattr(item, name) is None
        }
        if item.rules is None and self.rules is not None:
            updates["rules"] = self.rules
        return item.model_copy(update=updates)


# --------------------------------------------------------------------------- organisation lanes


class RouteLaneSegment(_Input):
    """One stop or leg of an organisation's own lane."""

    locationTypeKey: Text = Field(
        min_length=1, max_length=MAX_ID, description="A location type of the catalog, e.g. truck."
    )
    cityKey: Text = Field(
        min_length=1,
        max_length=300,
        description="The segment's city: a catalog key or any name, alias or IATA code the "
        "catalog resolves; stored as the key.",
    )
    hours: Number = Field(gt=0, le=MAX_TRANSIT_HOURS, description="[h]")
    label: Text | None = Field(default=None, min_length=1, max_length=MAX_TEXT)
    fixedAmbientC: Number | None = Field(
        default=None,
        ge=-90,
        le=70,
        description="[°C] a temperature the place is held at (ambientSource override).",
    )

    _normal = field_validator("hours", "fixedAmbientC")(_normal_number)

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        # segments are also shown in responses (RouteLane), where absent means left out
        return _without_absent(self, handler(self))


#: A lane that works as it stands: Moscow to Kazan through the organisation's own hub.
ROUTE_LANE_EXAMPLE: dict[str, Any] = {
    "segments": [
        {
            "locationTypeKey": "warehouse_controlled",
            "cityKey": "Moscow",
            "hours": 6,
            "label": "Own hub, Moscow",
            "fixedAmbientC": 18,
        },
        {"locationTypeKey": "reefer_truck", "cityKey": "Moscow", "hours": 14},
        {"locationTypeKey": "cross_dock", "cityKey": "Kazan", "hours": 2},
    ]
}


def _lane_schema(schema: dict[str, Any]) -> None:
    _optional_means_absent(schema)
    schema["examples"] = [ROUTE_LANE_EXAMPLE]


class RouteLaneInput(_Input):
    """Body of PUT /api/v1/catalog/routes/{origin}/{destination}."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_lane_schema)

    segments: list[RouteLaneSegment] = Field(min_length=1, max_length=50)


class RouteLane(_Output):
    """An organisation's own lane: used instead of the catalog's for its city pair
    (``mapSource`` override)."""

    origin: str = Field(description="Catalog key of the origin city.")
    destination: str = Field(description="Catalog key of the destination city.")
    segments: list[RouteLaneSegment]
    updatedAt: dt.datetime = Field(description="UTC, ISO 8601 with Z.")

    @field_serializer("updatedAt")
    def _as_created_at(self, value: dt.datetime) -> str:
        # as a plan's createdAt and a share link's expiresAt: 2025-01-31T08:00:00.000Z
        return iso_z(value)


class RouteLaneList(_Output):
    routes: list[RouteLane]
