"""An organisation's own lanes: checked against the catalogs, stored, used by the planner.

A lane replaces the route catalog's segments for one directional city pair of one
organisation (``mapSource`` override). Cities are stored as catalog keys, so a lane saved for
"Москва" is found again for "Moscow".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from adapters.planning.errors import PlanInputError
from adapters.planning.schemas import RouteLane, RouteLaneInput, RouteLaneSegment
from thermal.climate import match_city
from thermal.routes import MAX_TRANSIT_HOURS, RouteOverrides, RouteSegment, location_types


def city_key(text: str) -> str | None:
    """The catalog key of a city name, alias, IATA code or key; None when none matches."""
    found = match_city(text)
    return None if found is None else found.key


def checked_lane(origin: str, destination: str, lane: RouteLaneInput) -> RouteLaneInput:
    """The lane with its cities as catalog keys and every segment labelled.

    Raises
    ------
    PlanInputError
        An origin, destination or segment city the catalog does not know (``origin``,
        ``destination``, ``segments[i].cityKey``), or an unknown location type
        (``segments[i].locationTypeKey``, listing the valid keys), or segments of more
        hours in all than the longest transit (``segments``): the lane's total is the
        transit of a plan that gives none.
    """
    for field, text in (("origin", origin), ("destination", destination)):
        if city_key(text) is None:
            raise PlanInputError(
                field, f"must be a catalog city (name, alias, IATA code or key); got {text!r}"
            )
    total = sum(seg.hours for seg in lane.segments)
    if total > MAX_TRANSIT_HOURS:
        raise PlanInputError(
            "segments", f"must take at most {MAX_TRANSIT_HOURS:g} h in all (got {total:g} h)"
        )
    types = location_types()
    segments = []
    for i, seg in enumerate(lane.segments):
        if seg.locationTypeKey not in types.index:
            raise PlanInputError(
                f"segments[{i}].locationTypeKey",
                f"must be one of {', '.join(sorted(types.index))} (got {seg.locationTypeKey!r})",
            )
        key = city_key(seg.cityKey)
        if key is None:
            raise PlanInputError(
                f"segments[{i}].cityKey",
                f"must be a catalog city (name, alias, IATA code or key); got {seg.cityKey!r}",
            )
        label = seg.label or str(types.at[seg.locationTypeKey, "label"])
        segments.append(seg.model_copy(update={"cityKey": key, "label": label}))
    return RouteLaneInput(segments=segments)


def lane_json(lane: RouteLaneInput) -> str:
    """The lane as it is stored (absent fields left out)."""
    return lane.model_dump_json(exclude_none=True)


def stored_lane(
    origin_key: str, destination_key: str, data_json: str, updated_at: dt.datetime
) -> RouteLane:
    """A stored lane as the API shows it."""
    lane = RouteLaneInput.model_validate_json(data_json)
    return RouteLane(
        origin=origin_key,
        destination=destination_key,
        segments=lane.segments,
        updatedAt=updated_at,
    )


def _segment(seg: RouteLaneSegment) -> RouteSegment:
    return RouteSegment(
        seg.label or seg.locationTypeKey,
        seg.locationTypeKey,
        (seg.cityKey,),
        float(seg.hours),
        None if seg.fixedAmbientC is None else float(seg.fixedAmbientC),
    )


def route_overrides(lanes: Iterable[tuple[str, str, str]]) -> RouteOverrides:
    """The thermal library's route overrides from stored lanes.

    Parameters
    ----------
    lanes : iterable of (str, str, str)
        Origin key, destination key and the lane's stored JSON.
    """
    return {
        (origin, destination): [
            _segment(s) for s in RouteLaneInput.model_validate_json(data).segments
        ]
        for origin, destination, data in lanes
    }
