"""Routes: transit time, route maps and location types (docs/thermal.md#route-maps).

Transit precedence: ``transitHours``; else ``receiveDate − sendDate`` in whole days × 24
(same day counts as 24; ``receiveDate`` alone counts from today UTC); else the hours of the
stored route of the city pair; else mock data (72 h) when allowed; else TRANSIT_UNKNOWN.

Route map (``mapSource``): ``override`` when the organisation stored its own route for the
pair (it wins over the catalog), ``catalog`` when the route catalog has the pair, otherwise
``default-template``: origin handling 2 h, main leg, destination handling 2 h. Stored routes
are directional and their segment hours are scaled to sum to the transit hours used.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import pandas as pd

from data import load_table
from thermal.climate import (
    city_coordinates,
    great_circle_km,
    intermediate_point,
    match_city,
    nearest_climate_city,
    normalize_name,
)
from thermal.errors import (
    ThermalDataMissingError,
    ThermalInputError,
    TransitUnknownError,
    UnknownLocationTypeError,
)

#: Hours of each handling segment of the default template [h].
TEMPLATE_HANDLING_HOURS: float = 2.0

#: Transit time assumed by mock data when nothing else gives one [h].
MOCK_TRANSIT_HOURS: float = 72.0

#: Location types of the default template: origin handling, main leg, destination handling.
TEMPLATE_LOCATION_TYPES: tuple[str, str, str] = ("handling", "main_leg", "handling")


@dataclass(frozen=True, slots=True)
class RouteSegment:
    """One leg or stop of a route.

    Attributes
    ----------
    label : str
        What happens there, for the report.
    location_type_key : str
        Key of the location type (``data/location_types.csv``).
    city_keys : tuple of str
        The city of the segment. The main leg of a default template names both ends; the
        thermal check rates it at the end that loads the shipment more, or half at each end
        when the ends load different sides of the box
        (:func:`thermal.thermal_filter.route_segments`).
    hours : float
        Duration [h].
    fixed_ambient_c : float or None
        A temperature the place is held at [°C] (an organisation's temperature-controlled
        warehouse on its own lane); None: the location type's and the city's climate decide.
    """

    label: str
    location_type_key: str
    city_keys: tuple[str, ...]
    hours: float
    fixed_ambient_c: float | None = None


@dataclass(frozen=True, slots=True)
class Transit:
    """A transit time and where it came from.

    Attributes
    ----------
    hours : float
        Transit time [h].
    source : str
        ``"transit_hours"``, ``"dates"``, ``"receive_date"`` (counted from today), ``"route"``
        (stored route) or ``"mock"``.
    """

    hours: float
    source: str


@dataclass(frozen=True, slots=True)
class ResolvedRoute:
    """The route a plan's thermal check runs on.

    Attributes
    ----------
    origin_key, destination_key : str
        City keys; for a city unknown under mock data, a slug of the name as typed.
    origin_known, destination_known : bool
        Whether the city is in the catalog.
    map_source : str
        ``"catalog"``, ``"override"`` or ``"default-template"``.
    transit : Transit
        Transit time used [h] and its source.
    start : datetime.datetime
        Departure, UTC midnight of ``sendDate`` (or of today).
    segments : tuple of RouteSegment
        In order; their hours sum to ``transit.hours``.
    network : str
        Network of a catalog route (``domestic-road``, ``domestic-air``,
        ``international-air``), else empty.
    use_mock : bool
        Mock data allowed: cities the catalog lacks are at a constant +30 °C.
    """

    origin_key: str
    destination_key: str
    origin_known: bool
    destination_known: bool
    map_source: str
    transit: Transit
    start: dt.datetime
    segments: tuple[RouteSegment, ...]
    network: str = ""
    use_mock: bool = False

    @property
    def transit_hours(self) -> float:
        """Transit time used [h]."""
        return self.transit.hours


class RouteOverrideError(ValueError):
    """An organisation route that cannot be used (unknown location type, bad hours)."""


RouteOverrides = Mapping[tuple[str, str], Sequence[RouteSegment | Mapping[str, Any]]]
"""An organisation's own routes: (origin, destination) -> segments.

Origin and destination are city keys (or any name :func:`thermal.climate.match_city`
resolves). A segment is a :class:`RouteSegment` or a mapping with ``location_type_key``,
``city_key``, ``hours`` [h] and an optional ``label`` and ``fixed_ambient_c`` [°C].
"""


# --------------------------------------------------------------------------- location types


@cache
def _location_types() -> pd.DataFrame:
    return load_table("location_types").set_index("key", drop=False)


def location_types() -> pd.DataFrame:
    """The location type table indexed by key.

    Returns
    -------
    pandas.DataFrame
        ``label``, ``category``, ``fixed_ambient_c`` [°C] (NaN: follows the weather or the
        city's climate), ``default_ambient_c`` [°C] (used when the city has no climate data),
        ``diurnal_allowance_c`` [°C].
    """
    return _location_types().copy()


def location_type(key: str) -> pd.Series:
    """One location type's row; raises :class:`~thermal.errors.UnknownLocationTypeError`."""
    table = _location_types()
    if key not in table.index:
        raise UnknownLocationTypeError(key, sorted(table.index))
    row: pd.Series = table.loc[key]  # type: ignore[assignment]  # a unique index gives a row
    return row


# --------------------------------------------------------------------------- transit time


#: Longest transit the model plans [h]: 366 days; no passive shipper holds longer.
MAX_TRANSIT_HOURS = 366 * 24.0
#: Dates the model accepts: seasonal normals apply to any year, but dates must stay far
#: enough from the calendar's ends for a transit to be added to them.
EARLIEST_DATE = dt.date(1900, 1, 1)
LATEST_DATE = dt.date(2999, 12, 31)


def transit_from_dates(
    send_date: dt.date | None, receive_date: dt.date | None, today: dt.date
) -> Transit | None:
    """Transit time from the dates of a plan, or None when they do not give one.

    Parameters
    ----------
    send_date, receive_date : datetime.date or None
        Departure and receipt dates.
    today : datetime.date
        Today (UTC); the departure when only ``receive_date`` is given.

    Returns
    -------
    Transit or None
        Whole days × 24 [h], a same-day delivery counting as 24 h; None without
        ``receive_date``.

    Raises
    ------
    ThermalInputError
        ``receive_date`` before ``send_date`` (or before today when it stands alone), on the
        argument ``receive_date``.
    """
    if receive_date is None:
        return None
    start = send_date if send_date is not None else today
    _check_receipt(start, receive_date, "send_date" if send_date is not None else "today (UTC)")
    days = max((receive_date - start).days, 1)
    return Transit(days * 24.0, "dates" if send_date is not None else "receive_date")


def _check_receipt(start: dt.date, receive_date: dt.date, what: str) -> None:
    """``receive_date`` neither before ``start`` (named ``what``) nor more than 366 days
    after it, else :class:`~thermal.errors.ThermalInputError` on ``receive_date``."""
    if receive_date < start:
        raise ThermalInputError(
            "receive_date",
            f"must not be before {what} {start.isoformat()} (got {receive_date.isoformat()})",
        )
    if (receive_date - start).days * 24 > MAX_TRANSIT_HOURS:
        raise ThermalInputError(
            "receive_date",
            f"must be at most 366 days after {what} {start.isoformat()} "
            f"(got {receive_date.isoformat()})",
        )


def check_dates(
    send_date: dt.date | None, receive_date: dt.date | None, today: dt.date | None = None
) -> None:
    """Raise :class:`~thermal.errors.ThermalInputError` when a date lies outside
    1900-01-01..2999-12-31, or receive_date lies before send_date or more than 366 days
    after it (with ``today``, also when receive_date stands alone: counted from today).
    Whatever gives the transit time, the dates themselves must hold."""
    for field, value in (("send_date", send_date), ("receive_date", receive_date)):
        if value is not None and (not isinstance(value, dt.date) or isinstance(value, dt.datetime)):
            raise ThermalInputError(
                field, f"must be a datetime.date, e.g. date(2027, 1, 15) (got {value!r})"
            )
        if value is not None and not EARLIEST_DATE <= value <= LATEST_DATE:
            raise ThermalInputError(
                field,
                f"must lie between {EARLIEST_DATE.isoformat()} and {LATEST_DATE.isoformat()} "
                f"(got {value.isoformat()})",
            )
    if receive_date is None:
        return
    if send_date is not None:
        _check_receipt(send_date, receive_date, "send_date")
    elif today is not None:
        _check_receipt(today, receive_date, "today (UTC)")


def resolve_transit(
    *,
    transit_hours: float | None,
    send_date: dt.date | None,
    receive_date: dt.date | None,
    today: dt.date,
    route_hours: float | None = None,
    use_mock: bool = False,
) -> Transit:
    """Transit time by the precedence of docs/thermal.md#transit-time.

    Parameters
    ----------
    transit_hours : float or None
        ``transitHours`` of the plan [h].
    send_date, receive_date : datetime.date or None
        Plan dates.
    today : datetime.date
        Today (UTC).
    route_hours : float or None
        Total hours of the stored route of the city pair [h].
    use_mock : bool
        Allow the 72 h mock transit.

    Returns
    -------
    Transit

    Raises
    ------
    ThermalInputError
        Dates out of order (argument ``receive_date``).
    TransitUnknownError
        Nothing gives a transit time and mock data is not allowed.
    """
    check_dates(send_date, receive_date, today)
    if transit_hours is not None:
        if (
            isinstance(transit_hours, bool)
            or not isinstance(transit_hours, numbers.Real)
            or not 0 < transit_hours <= MAX_TRANSIT_HOURS
        ):
            raise ThermalInputError(
                "transit_hours",
                f"must be > 0 and at most {MAX_TRANSIT_HOURS:g} h (got {transit_hours!r})",
            )
        return Transit(float(transit_hours), "transit_hours")
    from_dates = transit_from_dates(send_date, receive_date, today)
    if from_dates is not None:
        return from_dates
    if route_hours is not None and route_hours > 0:
        return Transit(float(route_hours), "route")
    if use_mock:
        return Transit(MOCK_TRANSIT_HOURS, "mock")
    raise TransitUnknownError(
        "transit time unknown: give transit_hours or receive_date, or choose a city pair with a "
        "stored route"
    )


# --------------------------------------------------------------------------- route maps


@cache
def _catalog_routes() -> dict[tuple[str, str], tuple[str, tuple[RouteSegment, ...]]]:
    table = load_table("routes").sort_values(
        ["origin_city_key", "destination_city_key", "seq"], kind="stable"
    )
    out: dict[tuple[str, str], tuple[str, tuple[RouteSegment, ...]]] = {}
    for (origin, dest), group in table.groupby(
        ["origin_city_key", "destination_city_key"], sort=False
    ):
        segments = tuple(
            RouteSegment(
                str(r["label"]),
                str(r["location_type_key"]),
                (str(r["city_key"]),),
                float(r["hours"]),
            )
            for r in group.to_dict("records")
        )
        out[(str(origin), str(dest))] = (str(group["network"].iloc[0]), segments)
    return out


def catalog_routes() -> pd.DataFrame:
    """The route catalog, one row per segment (``data/routes.csv``), hours in h."""
    return load_table("routes")


def catalog_route(origin_key: str, destination_key: str) -> tuple[RouteSegment, ...] | None:
    """Segments of the stored route from ``origin_key`` to ``destination_key``, or None."""
    found = _catalog_routes().get((origin_key, destination_key))
    return None if found is None else found[1]


def _city_key_of(text: str) -> str:
    found = match_city(text)
    return found.key if found is not None else mock_city_key(text)


def mock_city_key(text: str) -> str:
    """Key reported for a city the catalog lacks: a slug of the name as typed."""
    return "-".join(re.sub(r"[^\w]+", " ", normalize_name(text)).split()) or "unknown"


def normalize_overrides(
    overrides: RouteOverrides | None,
) -> dict[tuple[str, str], tuple[RouteSegment, ...]]:
    """Organisation routes keyed by city keys, segments validated.

    Raises
    ------
    RouteOverrideError
        A segment with an unknown location type, no city or hours that are not > 0, or
        segments of more hours in all than the longest transit (:data:`MAX_TRANSIT_HOURS`):
        a route's total is the transit of a plan that gives none.
    """
    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise RouteOverrideError(
            "route overrides must map (origin, destination) to a list of segments "
            f"(got {type(overrides).__name__})"
        )
    valid_types = set(_location_types().index)
    out: dict[tuple[str, str], tuple[RouteSegment, ...]] = {}
    for key, raw_segments in overrides.items():
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, str) for k in key)):
            raise RouteOverrideError(
                f"route override {key!r:.80}: the key must be (origin, destination), two "
                "city keys or names"
            )
        origin, dest = key
        if isinstance(raw_segments, str | Mapping) or not isinstance(raw_segments, Sequence):
            raise RouteOverrideError(
                f"route override {origin} -> {dest}: segments must be a list "
                f"(got {type(raw_segments).__name__})"
            )
        segments: list[RouteSegment] = []
        for i, seg in enumerate(raw_segments):
            where = f"route override {origin} -> {dest}, segment {i}"
            if isinstance(seg, RouteSegment):
                segment = seg
            else:
                try:
                    lt = str(seg["location_type_key"])
                    city = str(seg["city_key"])
                    hours = float(seg["hours"])
                    raw_fixed = seg.get("fixed_ambient_c")
                    fixed = None if raw_fixed is None else float(raw_fixed)
                except (KeyError, TypeError, ValueError) as exc:
                    raise RouteOverrideError(
                        f"{where}: needs location_type_key, city_key and numeric hours, and a "
                        f"numeric fixed_ambient_c if any ({exc})"
                    ) from None
                label = str(seg.get("label") or lt.replace("_", " ").capitalize())
                segment = RouteSegment(label, lt, (_city_key_of(city),), hours, fixed)
            if segment.location_type_key not in valid_types:
                raise RouteOverrideError(
                    f"{where}: location_type_key must be one of {', '.join(sorted(valid_types))} "
                    f"(got {segment.location_type_key!r})"
                )
            if not (segment.hours > 0 and math.isfinite(segment.hours)):
                raise RouteOverrideError(f"{where}: hours must be > 0 (got {segment.hours})")
            fixed = segment.fixed_ambient_c
            if fixed is not None and not -90.0 <= fixed <= 70.0:
                raise RouteOverrideError(
                    f"{where}: fixed_ambient_c must lie within -90..70 °C (got {fixed})"
                )
            segments.append(segment)
        if not segments:
            raise RouteOverrideError(f"route override {origin} -> {dest}: has no segments")
        total = sum(seg.hours for seg in segments)
        if total > MAX_TRANSIT_HOURS:
            raise RouteOverrideError(
                f"route override {origin} -> {dest}: segments take {total:g} h in all, more "
                f"than the longest transit ({MAX_TRANSIT_HOURS:g} h)"
            )
        out[(_city_key_of(origin), _city_key_of(dest))] = tuple(segments)
    return out


def scale_segments(
    segments: Sequence[RouteSegment], total_hours: float
) -> tuple[RouteSegment, ...]:
    """Segments with hours scaled proportionally to sum to ``total_hours`` [h]."""
    current = sum(s.hours for s in segments)
    if current <= 0:
        raise ValueError(f"segments must have positive total hours (got {current})")
    factor = total_hours / current
    scaled = [replace(s, hours=s.hours * factor) for s in segments]
    # absorb the rounding residue in the longest segment so the sum is exact
    residue = total_hours - sum(s.hours for s in scaled)
    if residue:
        i = max(range(len(scaled)), key=lambda j: scaled[j].hours)
        s = scaled[i]
        scaled[i] = replace(s, hours=s.hours + residue)
    return tuple(scaled)


def default_template(
    origin_key: str, destination_key: str, total_hours: float
) -> tuple[RouteSegment, ...]:
    """The default route: origin handling 2 h, main leg, destination handling 2 h.

    Parameters
    ----------
    origin_key, destination_key : str
        City keys.
    total_hours : float
        Transit time [h], > 0.

    Returns
    -------
    tuple of RouteSegment
        Three segments; when the transit is 4 h or less, the two handling segments share it
        equally and there is no main leg.
    """
    if not total_hours > 0:
        raise ValueError(f"total_hours must be > 0 (got {total_hours})")
    first, leg, last = TEMPLATE_LOCATION_TYPES
    if total_hours <= 2 * TEMPLATE_HANDLING_HOURS:
        half = total_hours / 2.0
        return (
            RouteSegment("Origin handling", first, (origin_key,), half),
            RouteSegment("Destination handling", last, (destination_key,), total_hours - half),
        )
    return (
        RouteSegment("Origin handling", first, (origin_key,), TEMPLATE_HANDLING_HOURS),
        RouteSegment(
            "Main leg",
            leg,
            (origin_key, destination_key),
            total_hours - 2 * TEMPLATE_HANDLING_HOURS,
        ),
        RouteSegment("Destination handling", last, (destination_key,), TEMPLATE_HANDLING_HOURS),
    )


#: Line-haul legs longer than this are split along the great circle [km].
LONG_LEG_KM: float = 500.0


def _splittable(segment: RouteSegment) -> bool:
    """A leg between cities whose ambient follows the climate (not a controlled body)."""
    lt = _location_types()
    if segment.location_type_key not in lt.index:
        return False
    row = lt.loc[segment.location_type_key]
    return bool(row["line_haul"]) and bool(pd.isna(row["fixed_ambient_c"]))


def _leg_label(labels: Sequence[str]) -> str:
    heads = {label.split(",")[0].strip() for label in labels}
    return heads.pop() if len(heads) == 1 else "Line-haul"


def split_long_legs(
    segments: Sequence[RouteSegment], *, max_km: float = LONG_LEG_KM
) -> tuple[RouteSegment, ...]:
    """Long line-haul legs split along the great circle, each part with its own climate.

    A leg is a run of consecutive line-haul segments whose ambient follows the climate (a
    truck, the default template's main leg; not a reefer body or a flight) from the city of
    its first segment to the city of its last (the template's main leg names both ends).
    When the two ends lie more than ``max_km`` apart, the leg becomes ``ceil(distance /
    max_km)`` parts of equal length; each part takes the city with monthly normals nearest
    to its midpoint and hours in proportion to its length, so the hours still add up.

    Parameters
    ----------
    segments : sequence of RouteSegment
        The route.
    max_km : float, default 500
        Longest leg kept whole [km].

    Returns
    -------
    tuple of RouteSegment
        The route with its long legs split; unchanged when none is longer than ``max_km`` or
        a city of the leg has no coordinates.
    """
    out: list[RouteSegment] = []
    i = 0
    while i < len(segments):
        if not _splittable(segments[i]):
            out.append(segments[i])
            i += 1
            continue
        j = i
        while j + 1 < len(segments) and _splittable(segments[j + 1]):
            j += 1
        run = segments[i : j + 1]
        out.extend(_split_leg(run, max_km))
        i = j + 1
    return tuple(out)


def _split_leg(run: Sequence[RouteSegment], max_km: float) -> list[RouteSegment]:
    start, end = run[0].city_keys[0], run[-1].city_keys[-1]
    a, b = city_coordinates(start), city_coordinates(end)
    if a is None or b is None:
        return list(run)
    km = great_circle_km(*a, *b)
    if km <= max_km:
        return list(run)
    parts = math.ceil(km / max_km)
    hours = sum(s.hours for s in run)
    label = _leg_label([s.label for s in run])
    out: list[RouteSegment] = []
    for k in range(parts):
        mid = intermediate_point(*a, *b, (k + 0.5) / parts)
        nearest = nearest_climate_city(*mid)
        city = nearest[0] if nearest is not None else (start if k < parts / 2 else end)
        share = hours / parts if k < parts - 1 else hours - hours / parts * (parts - 1)
        out.append(
            RouteSegment(
                f"{label}, part {k + 1} of {parts} ({km / parts:,.0f} km)",
                run[0].location_type_key,
                (city,),
                share,
            )
        )
    return out


def resolve_route(
    origin: str,
    destination: str,
    *,
    transit_hours: float | None = None,
    send_date: dt.date | None = None,
    receive_date: dt.date | None = None,
    today: dt.date | None = None,
    overrides: RouteOverrides | None = None,
    use_mock: bool = False,
) -> ResolvedRoute:
    """The route of a plan: cities, transit time, map and segments.

    Parameters
    ----------
    origin, destination : str
        City names as typed (any script, alias, IATA code or key).
    transit_hours : float or None
        ``transitHours`` [h].
    send_date, receive_date : datetime.date or None
        Plan dates.
    today : datetime.date or None
        Today (UTC); defaults to the current UTC date.
    overrides : RouteOverrides or None
        The organisation's own routes (``mapSource`` ``override``).
    use_mock : bool
        Allow mock data: unknown cities, 72 h transit when unknown.

    Returns
    -------
    ResolvedRoute

    Raises
    ------
    ThermalInputError
        Dates out of order (argument ``receive_date``).
    ThermalDataMissingError
        Origin or destination unknown and mock data not allowed.
    TransitUnknownError
        No transit time and mock data not allowed.
    """
    for field, text in (("origin", origin), ("destination", destination)):
        if not isinstance(text, str):
            raise ThermalInputError(field, f"must be a city name as text (got {text!r})")
    today = today if today is not None else dt.datetime.now(dt.UTC).date()
    check_dates(send_date, receive_date, today)
    o_match, d_match = match_city(origin), match_city(destination)
    unknown = [
        f"{field} {text!r}"
        for field, text, m in (("origin", origin, o_match), ("destination", destination, d_match))
        if m is None
    ]
    if unknown and not use_mock:
        raise ThermalDataMissingError(
            f"no thermal data for {' and '.join(unknown)}: the city matches no name, alias or "
            "IATA code of the catalog"
        )
    o_key = o_match.key if o_match is not None else mock_city_key(origin)
    d_key = d_match.key if d_match is not None else mock_city_key(destination)

    own = normalize_overrides(overrides).get((o_key, d_key))
    stored = catalog_route(o_key, d_key)
    if own is not None:
        map_source, base, network = "override", own, ""
    elif stored is not None:
        map_source, base, network = "catalog", stored, _catalog_routes()[(o_key, d_key)][0]
    else:
        map_source, base, network = "default-template", None, ""

    transit = resolve_transit(
        transit_hours=transit_hours,
        send_date=send_date,
        receive_date=receive_date,
        today=today,
        route_hours=None if base is None else sum(s.hours for s in base),
        use_mock=use_mock,
    )
    if base is None:
        segments = split_long_legs(default_template(o_key, d_key, transit.hours))
    elif map_source == "catalog":
        segments = split_long_legs(scale_segments(base, transit.hours))
    else:  # the organisation's own lane is used as it stands
        segments = scale_segments(base, transit.hours)
    start_date = send_date if send_date is not None else today
    start = dt.datetime.combine(start_date, dt.time(), dt.UTC)
    return ResolvedRoute(
        origin_key=o_key,
        destination_key=d_key,
        origin_known=o_match is not None,
        destination_known=d_match is not None,
        map_source=map_source,
        transit=transit,
        start=start,
        segments=segments,
        network=network,
        use_mock=use_mock,
    )


def resolvable_transit_hours(
    origin: str,
    destination: str,
    *,
    transit_hours: float | None = None,
    send_date: dt.date | None = None,
    receive_date: dt.date | None = None,
    today: dt.date | None = None,
    overrides: RouteOverrides | None = None,
    use_mock: bool = False,
) -> float:
    """Transit time that can be resolved without a thermal check, 0 when none [h].

    Used where no thermal check runs (PLAIN, mode NONE, unsupported modes): unknown cities
    do not matter, only the transit precedence does.

    Raises
    ------
    ThermalInputError
        Dates out of order (argument ``receive_date``).
    """
    today = today if today is not None else dt.datetime.now(dt.UTC).date()
    check_dates(send_date, receive_date, today)
    o_key, d_key = _city_key_of(origin), _city_key_of(destination)
    base = normalize_overrides(overrides).get((o_key, d_key)) or catalog_route(o_key, d_key)
    try:
        return resolve_transit(
            transit_hours=transit_hours,
            send_date=send_date,
            receive_date=receive_date,
            today=today,
            route_hours=None if base is None else sum(s.hours for s in base),
            use_mock=use_mock,
        ).hours
    except TransitUnknownError:
        return 0.0
