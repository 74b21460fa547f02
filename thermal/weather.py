"""Weather providers: forecast ambient temperatures that take precedence over climate normals.

No provider is configured in the service (docs/thermal.md#weather-forecasts), so routes use the seasonal normals and
``weatherUsed`` is false. A forecast source plugs in by implementing :class:`WeatherProvider`
and being passed as ``weather=`` to the planner; :class:`DailyMeanForecast` is a ready
implementation over a table of daily means (e.g. a forecast downloaded ahead of dispatch).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import pandas as pd


@runtime_checkable
class WeatherProvider(Protocol):
    """A source of forecast air temperatures for a city and a time span.

    Implementations return None for any span they do not fully cover; the planner then
    falls back to the city's monthly normal.
    """

    def mean_temperature_c(
        self,
        city_key: str,
        latitude: float | None,
        longitude: float | None,
        start: dt.datetime,
        end: dt.datetime,
    ) -> float | None:
        """Mean air temperature over ``[start, end)`` in a city.

        Parameters
        ----------
        city_key : str
            City key of the catalog.
        latitude, longitude : float or None
            City coordinates [°], None when the catalog has none.
        start, end : datetime.datetime
            Span of the segment, UTC, ``start < end``.

        Returns
        -------
        float or None
            Mean temperature [°C], or None when the provider does not cover the whole span.
        """
        ...


class DailyMeanForecast:
    """Forecast from a table of daily mean temperatures per city.

    Parameters
    ----------
    daily_means_c : mapping of (str, datetime.date) to float, or pandas.DataFrame
        Daily mean air temperature [°C] per (city key, UTC date); a DataFrame needs the
        columns ``city_key``, ``date`` and ``mean_c``.

    Notes
    -----
    A span is covered when every UTC day it touches has a value; the result is the mean of
    those days weighted by the hours of the span falling in each day.
    """

    def __init__(self, daily_means_c: Mapping[tuple[str, dt.date], float] | pd.DataFrame) -> None:
        self.daily_means_c = daily_means_c

    def _table(self) -> Mapping[tuple[str, dt.date], float]:
        data = self.daily_means_c
        if isinstance(data, pd.DataFrame):
            missing = {"city_key", "date", "mean_c"} - set(data.columns)
            if missing:
                raise ValueError(
                    f"daily_means_c must have columns city_key, date, mean_c "
                    f"(missing {sorted(missing)})"
                )
            return {
                (str(k), pd.Timestamp(d).date()): float(v)
                for k, d, v in zip(data["city_key"], data["date"], data["mean_c"], strict=True)
            }
        return data

    def mean_temperature_c(
        self,
        city_key: str,
        latitude: float | None,
        longitude: float | None,
        start: dt.datetime,
        end: dt.datetime,
    ) -> float | None:
        """Hour-weighted mean of the daily means over ``[start, end)`` [°C], or None."""
        if end <= start:
            raise ValueError(f"end must be after start (got start={start}, end={end})")
        table = self._table()
        total = 0.0
        weighted = 0.0
        cursor = start
        while cursor < end:
            day = cursor.date()
            next_midnight = dt.datetime.combine(
                day + dt.timedelta(days=1), dt.time(), cursor.tzinfo
            )
            part_end = min(end, next_midnight)
            value = table.get((city_key, day))
            if value is None or math.isnan(value):
                return None
            hours = (part_end - cursor).total_seconds() / 3600.0
            weighted += hours * value
            total += hours
            cursor = part_end
        return weighted / total
