"""The routes, one router per resource."""

from fastapi import APIRouter

from adapters.api.routes import (
    cargo_items,
    containers,
    lanes,
    packing,
    plans,
    service,
    share,
    vehicles,
)

api_router = APIRouter()
for module in (packing, plans, containers, vehicles, cargo_items, lanes, share, service):
    api_router.include_router(module.router)

__all__ = ["api_router"]
