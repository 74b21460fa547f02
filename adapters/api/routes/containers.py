"""``GET /api/v1/catalog/containers``: the read-only thermal container catalog."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from adapters.api.deps import CatalogReadKey, ServiceDep
from adapters.api.openapi import error_responses
from adapters.api.responses import raw_json
from adapters.api.schemas import ContainerList

router = APIRouter(prefix="/api/v1/catalog/containers", tags=["catalog"])


@router.get(
    "",
    operation_id="listCatalogContainers",
    summary="Thermal container catalog",
    response_model=ContainerList,
    responses=error_responses(401, 403, 500),
)
async def list_containers(key: CatalogReadKey, service: ServiceDep) -> Response:
    return raw_json(await service.containers_json())
