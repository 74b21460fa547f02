"""``/api/v1/catalog/routes``: the organisation's own lanes.

A lane replaces the route catalog's segments for one directional city pair of one
organisation: THERMO plans of that pair report ``mapSource: override``, and a segment's own
``fixedAmbientC`` gives ``ambientSource: override``. Cities in the path may be any name, alias,
IATA code or key the catalog resolves; lanes are stored under the cities' keys. Lanes belong to
the key's organisation; another organisation's lane is a 404 like a missing one.

A name with a slash (``Frankfurt/Main``, plain or as ``%2F``, which the server decodes before
routing) makes a path of more than two parts: the one split of it into two cities the catalog
knows names the pair (:func:`_pair_of`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from starlette.responses import Response

from adapters.api import errors
from adapters.api.deps import CatalogReadKey, CatalogWriteKey, JsonBody, ServiceDep, path_value
from adapters.api.openapi import error_responses
from adapters.api.responses import raw_json
from adapters.planning import PlanInputError
from adapters.planning.lanes import checked_lane, city_key, lane_json, stored_lane
from adapters.planning.schemas import RouteLane, RouteLaneInput, RouteLaneList

router = APIRouter(prefix="/api/v1/catalog/routes", tags=["catalog"])

LANE_MISSING = "The organisation has no lane for this city pair."

Origin = Annotated[str, Path(description="Origin city: a name, alias, IATA code or key.")]
Destination = Annotated[str, Path(description="Destination city: a name, alias, IATA code or key.")]
LaneBody = Annotated[RouteLaneInput, Depends(JsonBody(RouteLaneInput))]


def _keys(origin: str, destination: str) -> tuple[str, str]:
    """The pair's catalog keys; a city the catalog does not know has no lane (404)."""
    o = city_key(path_value(origin, LANE_MISSING))
    d = city_key(path_value(destination, LANE_MISSING))
    if o is None or d is None:
        raise errors.not_found(LANE_MISSING)
    return o, d


#: Most parts of a path of cities: each city's name has at most one slash (those of the catalog
#: do), so a pair makes at most four; a longer path, or one with an empty part (a trailing
#: or doubled slash), is no endpoint.
MOST_PARTS = 4


def _shape(cities: Annotated[str, Path(description="Origin and destination.")]) -> str:
    """A path of cities of more than two parts, checked before the key is: three or four
    non-empty parts (else no endpoint, 404), without control characters (else no lane)."""
    parts = cities.split("/")
    if not 3 <= len(parts) <= MOST_PARTS or any(not p.strip() for p in parts):
        raise errors.not_found(errors.FRAMEWORK_SENTENCES[404])
    return path_value(cities, LANE_MISSING)


def _pair_of(cities: str) -> tuple[str, str]:
    """The origin and destination a path of cities names (:func:`_shape`): the split at a
    slash into two cities the catalog knows, when only one pair of cities is named so; else
    no lane (404)."""
    pairs: dict[tuple[str, str], tuple[str, str]] = {}
    for i, ch in enumerate(cities):
        if ch != "/":
            continue
        origin, destination = cities[:i], cities[i + 1 :]
        o, d = city_key(origin), city_key(destination)
        if o is not None and d is not None:
            pairs.setdefault((o, d), (origin, destination))
    if len(pairs) != 1:
        raise errors.not_found(
            LANE_MISSING
            if not pairs
            else "The path names more than one city pair; name the cities by their keys."
        )
    return next(iter(pairs.values()))


@router.get(
    "",
    operation_id="listRouteLanes",
    summary="The organisation's own lanes",
    response_model=RouteLaneList,
    responses=error_responses(401, 403, 500),
)
async def list_lanes(key: CatalogReadKey, service: ServiceDep) -> Response:
    rows = await service.db(service.store.route_lanes, key.organisation_id)
    lanes = [stored_lane(r.origin_key, r.destination_key, r.data_json, r.updated_at) for r in rows]
    return raw_json(RouteLaneList(routes=lanes).model_dump_json())


@router.get(
    "/{origin}/{destination}",
    operation_id="getRouteLane",
    summary="The organisation's own lane for a city pair",
    response_model=RouteLane,
    responses=error_responses(401, 403, 404, 500),
)
async def get_lane(
    key: CatalogReadKey, service: ServiceDep, origin: Origin, destination: Destination
) -> Response:
    o, d = _keys(origin, destination)
    row = await service.db(service.store.route_lane, key.organisation_id, o, d)
    if row is None:
        raise errors.not_found(LANE_MISSING)
    return raw_json(stored_lane(o, d, row.data_json, row.updated_at).model_dump_json())


@router.put(
    "/{origin}/{destination}",
    operation_id="putRouteLane",
    summary="Store the organisation's own lane for a city pair (create or replace)",
    response_model=RouteLane,
    responses={
        201: {"model": RouteLane, "description": "Created."},
        **error_responses(400, 401, 403, 404, 413, 422, 500),
    },
)
async def put_lane(
    key: CatalogWriteKey,
    lane: LaneBody,
    service: ServiceDep,
    origin: Origin,
    destination: Destination,
) -> Response:
    """200 when the pair's lane was replaced, 201 when it was created. Every segment's city
    and location type must be in the catalogs (422 on the field otherwise). A city in the path
    with a control character names no city: 404."""
    path_value(origin, LANE_MISSING)
    path_value(destination, LANE_MISSING)
    try:
        checked = checked_lane(origin, destination, lane)
    except PlanInputError as exc:
        raise errors.validation_failed({exc.field: [exc.message]}) from None
    o, d = _keys(origin, destination)
    data = lane_json(checked)
    created = await service.db(service.store.put_route_lane, key.organisation_id, o, d, data)
    row = await service.db(service.store.route_lane, key.organisation_id, o, d)
    if row is None:  # deleted by a concurrent request between the two calls
        raise errors.not_found(LANE_MISSING)
    shown = stored_lane(o, d, row.data_json, row.updated_at)
    return raw_json(shown.model_dump_json(), 201 if created else 200)


@router.delete(
    "/{origin}/{destination}",
    operation_id="deleteRouteLane",
    summary="Delete the organisation's own lane for a city pair",
    status_code=204,
    response_class=Response,
    response_description="Deleted.",
    responses=error_responses(401, 403, 404, 500),
)
async def delete_lane(
    key: CatalogWriteKey, service: ServiceDep, origin: Origin, destination: Destination
) -> Response:
    o, d = _keys(origin, destination)
    if not await service.db(service.store.delete_route_lane, key.organisation_id, o, d):
        raise errors.not_found(LANE_MISSING)
    return Response(status_code=204)


# Paths of more than two parts: a city name with a slash (see the module's docstring). Not in
# the OpenAPI document: the same operations as above. The path's shape is checked first (a
# dependency before the key's), so a trailing or doubled slash is no endpoint, as elsewhere.
SlashedCities = Annotated[str, Depends(_shape)]


@router.get("/{cities:path}", include_in_schema=False)
async def get_lane_slashed(
    cities: SlashedCities, key: CatalogReadKey, service: ServiceDep
) -> Response:
    return await get_lane(key, service, *_pair_of(cities))


@router.put("/{cities:path}", include_in_schema=False)
async def put_lane_slashed(
    cities: SlashedCities, key: CatalogWriteKey, lane: LaneBody, service: ServiceDep
) -> Response:
    return await put_lane(key, lane, service, *_pair_of(cities))


@router.delete("/{cities:path}", include_in_schema=False)
async def delete_lane_slashed(
    cities: SlashedCities, key: CatalogWriteKey, service: ServiceDep
) -> Response:
    return await delete_lane(key, service, *_pair_of(cities))
