"""Ambient temperature of route segments and its source (docs/thermal.md#ambient-sources).

Order of sources for one segment:

1. ``override``: the location type has a fixed temperature (a cold room, an aircraft hold);
2. ``location-default`` for a city the catalog lacks: +30 °C under mock data, otherwise the
   location type's default;
3. ``weather``: a configured :class:`~thermal.weather.WeatherProvider` covers the span;
4. ``seasonal``: the city's monthly normal for the month the time falls in; a segment that
   crosses a month boundary is split there, each part rated at its own month;
5. ``location-default``: the city has no climate data; the location type's default.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from thermal.climate import city_coordinates, climate_city, is_known_city, monthly_mean_c
from thermal.routes import location_type
from thermal.weather import WeatherProvider

#: Constant ambient of mock data for cities the catalog lacks [°C].
MOCK_AMBIENT_C: float = 30.0

_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True, slots=True)
class AmbientPart:
    """A stretch of a segment at one ambient temperature.

    Attributes
    ----------
    city_key : str
        City the ambient refers to.
    start : datetime.datetime
        Start, UTC.
    hours : float
        Duration [h].
    ambient_c : float
        Ambient air temperature [°C].
    source : str
        ``override``, ``weather``, ``seasonal`` or ``location-default``.
    diurnal_allowance_c : float
        Half the daily swing to add [°C].
    month : int or None
        Month 1..12 of a seasonal part, else None.
    climate_city_key : str or None
        Seasonal part of a city without normals: the nearest city whose normals it uses.
    climate_distance_km : float
        Great-circle distance to that city [km] (0 when the city has its own normals).
    """

    city_key: str
    start: dt.datetime
    hours: float
    ambient_c: float
    source: str
    diurnal_allowance_c: float
    month: int | None = None
    climate_city_key: str | None = None
    climate_distance_km: float = 0.0

    @property
    def month_name(self) -> str:
        """Three-letter month of a seasonal part, else an empty string."""
        return _MONTH_NAMES[self.month - 1] if self.month else ""


def month_spans(start: dt.datetime, hours: float) -> list[tuple[dt.datetime, float, int]]:
    """Split ``[start, start + hours)`` at UTC month boundaries.

    Parameters
    ----------
    start : datetime.datetime
        Start of the span, UTC.
    hours : float
        Length of the span [h], >= 0.

    Returns
    -------
    list of (datetime.datetime, float, int)
        ``(part start, part hours [h], month 1..12)`` in order; one part for a span inside
        one month, and one zero-length part for ``hours == 0``.
    """
    if hours < 0:
        raise ValueError(f"hours must be >= 0 (got {hours})")
    end = start + dt.timedelta(hours=hours)
    parts: list[tuple[dt.datetime, float, int]] = []
    cursor = start
    while True:
        if cursor.month == 12:
            boundary = cursor.replace(year=cursor.year + 1, month=1, day=1, hour=0, minute=0,
                                      second=0, microsecond=0)  # fmt: skip
        else:
            boundary = cursor.replace(month=cursor.month + 1, day=1, hour=0, minute=0, second=0,
                                      microsecond=0)  # fmt: skip
        part_end = min(end, boundary)
        parts.append((cursor, (part_end - cursor).total_seconds() / 3600.0, cursor.month))
        if part_end >= end:
            break
        cursor = part_end
    # float hours: make the parts sum exactly to the segment
    residue = hours - sum(p[1] for p in parts)
    last = parts[-1]
    parts[-1] = (last[0], last[1] + residue, last[2])
    return parts


def segment_ambient(
    location_type_key: str,
    city_key: str,
    start: dt.datetime,
    hours: float,
    *,
    weather: WeatherProvider | None = None,
    use_mock: bool = False,
    fixed_ambient_c: float | None = None,
) -> list[AmbientPart]:
    """Ambient temperature of one segment, split where the month changes.

    Parameters
    ----------
    location_type_key : str
        Location type of the segment.
    city_key : str
        City of the segment (catalog key, or a mock key for a city the catalog lacks).
    start : datetime.datetime
        Start of the segment, UTC.
    hours : float
        Duration [h].
    weather : WeatherProvider or None
        Forecast source; None uses the climate normals.
    use_mock : bool
        Mock data allowed: a city the catalog lacks is at a constant +30 °C.
    fixed_ambient_c : float or None
        The segment's own fixed temperature [°C] (``override``); wins over the location
        type's.

    Returns
    -------
    list of AmbientPart
        One part, or one per month for a seasonal segment crossing a month boundary.
    """
    lt = location_type(location_type_key)
    allowance = float(lt["diurnal_allowance_c"])
    fixed = lt["fixed_ambient_c"] if fixed_ambient_c is None else fixed_ambient_c
    default = lt["default_ambient_c"]
    if not math.isnan(fixed):
        return [AmbientPart(city_key, start, hours, float(fixed), "override", allowance)]
    if not is_known_city(city_key):
        ambient = MOCK_AMBIENT_C if use_mock else float(default)
        return [AmbientPart(city_key, start, hours, ambient, "location-default", allowance)]
    if weather is not None and hours > 0:
        coords = city_coordinates(city_key)
        lat, lon = coords if coords is not None else (None, None)
        forecast = weather.mean_temperature_c(
            city_key, lat, lon, start, start + dt.timedelta(hours=hours)
        )
        if forecast is not None:
            return [AmbientPart(city_key, start, hours, float(forecast), "weather", allowance)]
    source = climate_city(city_key)
    if source is not None:
        normals, km = source
        borrowed = None if normals == city_key else normals
        return [
            AmbientPart(
                city_key,
                s,
                h,
                monthly_mean_c(normals, m),
                "seasonal",
                allowance,
                m,
                borrowed,
                km,
            )
            for s, h, m in month_spans(start, hours)
        ]
    return [AmbientPart(city_key, start, hours, float(default), "location-default", allowance)]
