"""``GET /api/v1/catalog/pallet-templates`` and ``GET /api/v1/catalog/vehicles``: the
read-only catalogs of PALLET and PALLET_LOAD."""

from __future__ import annotations

from functools import cache

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from adapters.api.deps import CatalogReadKey
from adapters.api.openapi import error_responses
from adapters.api.responses import raw_json
from adapters.api.schemas import PalletTemplateList, VehicleList
from adapters.planning.mapping import catalog_pallet_templates, catalog_vehicles

router = APIRouter(prefix="/api/v1/catalog", tags=["catalog"])


@cache
def _pallet_templates_json() -> str:
    """The pallet templates as a PalletTemplateList body, built once per process."""
    return PalletTemplateList(palletTemplates=catalog_pallet_templates()).model_dump_json()


@cache
def _vehicles_json() -> str:
    """The vehicles as a VehicleList body, built once per process."""
    return VehicleList(vehicles=catalog_vehicles()).model_dump_json()


@router.get(
    "/pallet-templates",
    operation_id="listCatalogPalletTemplates",
    summary="Pallet templates of PALLET and PALLET_LOAD",
    response_model=PalletTemplateList,
    responses=error_responses(401, 403, 500),
)
async def list_pallet_templates(key: CatalogReadKey) -> Response:
    return raw_json(await run_in_threadpool(_pallet_templates_json))


@router.get(
    "/vehicles",
    operation_id="listCatalogVehicles",
    summary="Vehicles of PALLET_LOAD",
    response_model=VehicleList,
    responses=error_responses(401, 403, 500),
)
async def list_vehicles(key: CatalogReadKey) -> Response:
    return raw_json(await run_in_threadpool(_vehicles_json))
