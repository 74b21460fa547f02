"""The thermal filter of one temperature mode: route load, required load, eligible containers.

Puts :mod:`thermal.ambient`, :mod:`thermal.degree_hours` and :mod:`thermal.eligibility`
together over a :class:`~thermal.routes.ResolvedRoute` into a typed
:class:`ThermalAssessment`.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pandas as pd

from thermal.ambient import AmbientPart, segment_ambient
from thermal.climate import city_name
from thermal.degree_hours import (
    DEFAULT_SAFETY_MARGIN,
    check_safety_margin,
    raw_load,
    required_load,
    segment_load,
)
from thermal.eligibility import Eligibility, check_candidates, evaluate_eligibility
from thermal.modes import set_point_c
from thermal.routes import ResolvedRoute
from thermal.weather import WeatherProvider

#: Rows of a table in a notebook view; longer tables show their head and tail.
HTML_MAX_ROWS = 30


@dataclass(frozen=True, repr=False)
class ThermalAssessment:
    """Thermal filter outcome of one mode.

    Attributes
    ----------
    mode : str
        Temperature mode.
    segments : pandas.DataFrame
        One row per reported segment: ``order``, ``label``, ``location_type_key``,
        ``city_key``, ``hours`` [h], ``ambient_c`` [°C], ``ambient_source``,
        ``diurnal_allowance_c`` [°C], ``load_dh`` [°C·h].
    raw_load_dh, required_load_dh : float
        Raw and required loads of every segment [°C·h].
    required_hot_dh, required_cold_dh : float
        Required loads (margin included) of the segments at or above the set point and of
        those below it [°C·h]; each side is checked against its own capacity.
    safety_margin : float
        Margin used (fraction).
    weather_used : bool
        Whether any segment took its ambient from the weather provider.
    eligibility : Eligibility
        Eligible and rejected containers, profile per eligible container.
    map_source : str
        Route map source.
    """

    mode: str
    segments: pd.DataFrame
    raw_load_dh: float
    required_load_dh: float
    safety_margin: float
    weather_used: bool
    eligibility: Eligibility = field(default_factory=Eligibility)
    map_source: str = "default-template"
    required_hot_dh: float = 0.0
    required_cold_dh: float = 0.0

    def __repr__(self) -> str:
        return (
            f"ThermalAssessment(mode={self.mode!r}, segments={len(self.segments)}, "
            f"hours={float(self.segments['hours'].sum()):g}, "
            f"required_load_dh={self.required_load_dh:.1f} "
            f"(hot {self.required_hot_dh:.1f}, cold {self.required_cold_dh:.1f}), "
            f"eligible={len(self.eligibility.eligible)}, "
            f"rejected={len(self.eligibility.rejected)})"
        )

    def containers_frame(self) -> pd.DataFrame:
        """One row per checked container: ``slug``, ``eligible``, ``coolant``,
        ``capacity_dh`` and ``cold_capacity_dh`` [°C·h] of the profile used (eligible ones),
        ``reason`` (rejected ones)."""
        e = self.eligibility
        rows: list[dict[str, Any]] = []
        for slug in e.eligible:
            prof = e.profiles.get(slug)
            rows.append(
                {
                    "slug": slug,
                    "eligible": True,
                    "coolant": prof.coolant if prof else "",
                    "capacity_dh": prof.capacity_dh if prof else float("nan"),
                    "cold_capacity_dh": prof.cold_capacity_dh if prof else float("nan"),
                    "reason": "",
                }
            )
        for r in e.rejected:
            rows.append(
                {
                    "slug": r.slug,
                    "eligible": False,
                    "coolant": "",
                    "capacity_dh": float("nan"),
                    "cold_capacity_dh": float("nan"),
                    "reason": r.reason,
                }
            )
        # the dtypes also when no container was checked (an empty table of object columns
        # turns every column of a concatenation to object)
        cols = {
            "slug": "str",
            "eligible": "bool",
            "coolant": "str",
            "capacity_dh": "float64",
            "cold_capacity_dh": "float64",
            "reason": "str",
        }
        return pd.DataFrame(rows, columns=list(cols)).astype(cols)

    def _repr_html_(self) -> str:
        """In a notebook: the loads, the route's segments and the containers checked, as
        tables (every cell escaped)."""

        def table(frame: pd.DataFrame) -> str:
            return frame.to_html(
                index=False,
                escape=True,
                max_rows=HTML_MAX_ROWS,
                border=0,
                float_format="{:.1f}".format,
            )

        head = (
            f"<p><b>Thermal check {html.escape(self.mode)}</b> "
            f"(route: {html.escape(self.map_source)}"
            f"{', weather' if self.weather_used else ''}): required load "
            f"{self.required_load_dh:.1f} °C·h with a {self.safety_margin:.0%} margin "
            f"(hot side {self.required_hot_dh:.1f}, cold side {self.required_cold_dh:.1f}); "
            f"{len(self.eligibility.eligible)} containers eligible, "
            f"{len(self.eligibility.rejected)} rejected</p>"
        )
        return (
            head
            + "<p><b>Route segments</b></p>"
            + table(self.segments)
            + "<p><b>Containers</b></p>"
            + table(self.containers_frame())
        )


_SEGMENT_COLUMNS = [
    "order", "label", "location_type_key", "city_key", "hours", "ambient_c", "ambient_source",
    "diurnal_allowance_c", "load_dh",
]  # fmt: skip


def _parts_load(parts: Sequence[AmbientPart], sp: float) -> float:
    return sum(float(segment_load(p.hours, p.ambient_c, sp, p.diurnal_allowance_c)) for p in parts)


def route_segments(
    route: ResolvedRoute,
    mode: str,
    *,
    weather: WeatherProvider | None = None,
) -> pd.DataFrame:
    """Segments of a route with ambient and load for one mode.

    A segment whose ambient changes with the month is reported once per month it spans
    (label suffixed with the month); a template main leg is rated at the end city that
    loads the shipment more, or, when the ambients of its ends (each rated for the whole leg,
    by month) lie on both sides of the set point (they load different sides of the box, and
    the capacity check counts the sides apart), as two halves, the first at the origin and
    the second at the destination.

    Parameters
    ----------
    route : ResolvedRoute
        Resolved route.
    mode : str
        Temperature mode with a v1 thermal model.
    weather : WeatherProvider or None
        Forecast source.

    Returns
    -------
    pandas.DataFrame
        Columns as in :attr:`ThermalAssessment.segments`; ``hours`` sum to the transit.
    """
    sp = float(set_point_c(mode))
    rows: list[list[Any]] = []
    start = route.start
    for seg in route.segments:
        ambient = partial(
            segment_ambient,
            seg.location_type_key,
            weather=weather,
            use_mock=route.use_mock,
            fixed_ambient_c=seg.fixed_ambient_c,
        )
        options = [ambient(city, start, seg.hours) for city in seg.city_keys]
        groups: list[tuple[str, list[AmbientPart]]]
        if len(options) > 1 and _on_both_sides(options, sp):
            # The ends load different sides of the box (some of their ambients lie below
            # the set point, some at or above it): neither end rates the leg for both, so
            # each rates half of it, the first half at the origin, the second at the
            # destination.
            half = seg.hours / len(options)
            groups = [
                (
                    f"{seg.label}, part {k + 1} of {len(options)}",
                    ambient(city, start + dt.timedelta(hours=k * half), half),
                )
                for k, city in enumerate(seg.city_keys)
            ]
        else:
            groups = [(seg.label, max(options, key=lambda ps: _parts_load(ps, sp)))]
        for base, parts in groups:
            split = len(parts) > 1
            for part in parts:
                rows.append(
                    _segment_row(len(rows) + 1, base, split, seg.location_type_key, part, sp)
                )
        start = start + dt.timedelta(hours=seg.hours)
    frame = pd.DataFrame(rows, columns=_SEGMENT_COLUMNS)
    return frame.astype(
        {"order": "int64", "hours": "float64", "ambient_c": "float64", "load_dh": "float64"}
    )


def _cold_side(ambient_c: Any, sp: float) -> Any:
    """Does an ambient [°C] (a number or a Series) load the box's cold side: is it below set
    point ``sp``? At or above it, it loads the hot side."""
    return ambient_c < sp


def _on_both_sides(options: Sequence[Sequence[AmbientPart]], sp: float) -> bool:
    """Do the parts of the options load both sides of the box (:func:`_cold_side`)?"""
    sides = {_cold_side(p.ambient_c, sp) for parts in options for p in parts}
    return len(sides) > 1


def _segment_row(
    order: int, base: str, split: bool, location_type_key: str, part: AmbientPart, sp: float
) -> list[Any]:
    """One row of :func:`route_segments`: a part of a segment of ``location_type_key``,
    labelled from ``base`` (with its month when the segment is ``split`` by month)."""
    label = f"{base} ({part.month_name})" if split else base
    if part.climate_city_key is not None:
        label += (
            f" (climate of {city_name(part.climate_city_key)}, "
            f"{part.climate_distance_km:.0f} km away)"
        )
    return [
        order,
        label,
        location_type_key,
        part.city_key,
        part.hours,
        part.ambient_c,
        part.source,
        part.diurnal_allowance_c,
        float(segment_load(part.hours, part.ambient_c, sp, part.diurnal_allowance_c)),
    ]


def assess_mode(
    route: ResolvedRoute,
    mode: str,
    candidates: Sequence[str],
    *,
    skip_capacity: bool = False,
    safety_margin: float = DEFAULT_SAFETY_MARGIN,
    weather: WeatherProvider | None = None,
) -> ThermalAssessment:
    """Thermal filter of one mode over a resolved route.

    Parameters
    ----------
    route : ResolvedRoute
        Resolved route of the plan.
    mode : str
        Temperature mode with a v1 thermal model.
    candidates : sequence of str
        Container slugs to check.
    skip_capacity : bool, default False
        Do not filter by capacity (loads are still computed).
    safety_margin : float, default 0.2
        Fraction added to the raw load.
    weather : WeatherProvider or None
        Forecast source.

    Returns
    -------
    ThermalAssessment
    """
    check_safety_margin(safety_margin)
    check_candidates(candidates)
    segments = route_segments(route, mode, weather=weather)
    raw = raw_load(segments["load_dh"])
    required = float(required_load(raw, safety_margin))
    cold = _cold_side(segments["ambient_c"], float(set_point_c(mode)))
    required_hot = float(required_load(raw_load(segments.loc[~cold, "load_dh"]), safety_margin))
    required_cold = float(required_load(raw_load(segments.loc[cold, "load_dh"]), safety_margin))
    eligibility = evaluate_eligibility(
        required_hot,
        mode,
        candidates,
        required_cold_dh=required_cold,
        skip_capacity=skip_capacity,
    )
    return ThermalAssessment(
        mode=mode,
        segments=segments,
        raw_load_dh=raw,
        required_load_dh=required,
        safety_margin=safety_margin,
        weather_used=bool((segments["ambient_source"] == "weather").any()),
        eligibility=eligibility,
        map_source=route.map_source,
        required_hot_dh=required_hot,
        required_cold_dh=required_cold,
    )
