"""The service itself: health and this API's OpenAPI document, both with no key."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from adapters.api.deps import ServiceDep
from adapters.api.responses import json_response
from adapters.api.schemas import HealthResponse

router = APIRouter(tags=["service"])


@router.get(
    "/api/health",
    operation_id="health",
    summary="Health",
    response_model=HealthResponse,
    responses={
        503: {
            "model": HealthResponse,
            "description": "The database or a configured Redis does not answer.",
        }
    },
)
async def health(service: ServiceDep) -> Response:
    """200 `{"status": "ok"}`; 503 `{"status": "degraded", "problems": [...]}` when the
    database or a configured Redis does not answer."""
    problems = await service.problems()
    if problems:
        return json_response({"status": "degraded", "problems": problems}, 503)
    return json_response({"status": "ok"})


@router.get(
    "/api/v1/openapi.json",
    operation_id="openapi",
    summary="This OpenAPI 3.1 document",
    response_description="The OpenAPI document.",
)
async def openapi(request: Request) -> Response:
    return json_response(request.app.openapi())
