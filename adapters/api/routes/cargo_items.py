"""``/api/v1/catalog/cargo-items``: the organisation's SKU catalog.

Compute fills the cargo items that reference a SKU from it. Items belong to the key's
organisation; another organisation's item is a 404 like a missing one.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from starlette.responses import Response

from adapters.api import errors
from adapters.api.deps import CatalogReadKey, CatalogWriteKey, JsonBody, ServiceDep, path_value
from adapters.api.openapi import error_responses, links
from adapters.api.responses import raw_json
from adapters.api.schemas import CargoItemList
from adapters.planning.schemas import SKU_PATTERN, CargoCatalogItem

router = APIRouter(prefix="/api/v1/catalog/cargo-items", tags=["catalog"])

SKU_MISSING = "The organisation's catalog has no item with this SKU."

# The pattern is documented, not enforced: no item has a SKU that does not match it, so such
# a path is a 404 like any unknown SKU (one with a control character before any lookup).
Sku = Annotated[
    str, Path(description="SKU of the catalog item.", json_schema_extra={"pattern": SKU_PATTERN})
]
ItemBody = Annotated[CargoCatalogItem, Depends(JsonBody(CargoCatalogItem))]


@router.get(
    "",
    operation_id="listCargoItems",
    summary="The organisation's SKU catalog",
    response_model=CargoItemList,
    responses=error_responses(401, 403, 500),
)
async def list_cargo_items(key: CatalogReadKey, service: ServiceDep) -> Response:
    rows = await service.db(service.store.cargo_items, key.organisation_id)
    return raw_json('{"items":[' + ",".join(r.data_json for r in rows) + "]}")


@router.post(
    "",
    operation_id="createCargoItem",
    summary="Add an item to the organisation's SKU catalog",
    status_code=201,
    response_model=CargoCatalogItem,
    response_description="Created.",
    responses={
        201: {
            "links": links(
                {
                    "GetItem": "getCargoItem",
                    "ReplaceItem": "replaceCargoItem",
                    "DeleteItem": "deleteCargoItem",
                },
                "sku",
                "$response.body#/sku",
            )
        },
        **error_responses(400, 401, 403, 409, 413, 422, 500),
    },
)
async def create_cargo_item(key: CatalogWriteKey, item: ItemBody, service: ServiceDep) -> Response:
    data = item.model_dump_json(exclude_none=True)
    if not await service.db(service.store.create_cargo_item, key.organisation_id, item.sku, data):
        raise errors.ApiError(409, {"error": "The catalog already has an item with this SKU."})
    return raw_json(data, 201)


@router.get(
    "/{sku}",
    operation_id="getCargoItem",
    summary="One item of the organisation's SKU catalog",
    response_model=CargoCatalogItem,
    responses=error_responses(401, 403, 404, 500),
)
async def get_cargo_item(key: CatalogReadKey, service: ServiceDep, sku: Sku) -> Response:
    row = await service.db(
        service.store.cargo_item, key.organisation_id, path_value(sku, SKU_MISSING)
    )
    if row is None:
        raise errors.not_found(SKU_MISSING)
    return raw_json(row.data_json)


@router.put(
    "/{sku}",
    operation_id="replaceCargoItem",
    summary="Replace an item of the organisation's SKU catalog",
    response_model=CargoCatalogItem,
    responses=error_responses(400, 401, 403, 404, 413, 422, 500),
)
async def replace_cargo_item(
    key: CatalogWriteKey, item: ItemBody, service: ServiceDep, sku: Sku
) -> Response:
    """The body's sku must equal the path's."""
    path_value(sku, SKU_MISSING)
    if item.sku != sku:
        raise errors.validation_failed({"sku": ["must equal the SKU in the path"]})
    data = item.model_dump_json(exclude_none=True)
    if not await service.db(service.store.replace_cargo_item, key.organisation_id, sku, data):
        raise errors.not_found(SKU_MISSING)
    return raw_json(data)


@router.delete(
    "/{sku}",
    operation_id="deleteCargoItem",
    summary="Delete an item of the organisation's SKU catalog",
    status_code=204,
    response_class=Response,
    response_description="Deleted.",
    responses=error_responses(401, 403, 404, 500),
)
async def delete_cargo_item(key: CatalogWriteKey, service: ServiceDep, sku: Sku) -> Response:
    path_value(sku, SKU_MISSING)
    if not await service.db(service.store.delete_cargo_item, key.organisation_id, sku):
        raise errors.not_found(SKU_MISSING)
    return Response(status_code=204)
