"""``GET /share/{token}``: the page of a share link, with no key.

An unknown, expired or revoked token gets a 404 page.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from starlette.responses import HTMLResponse, Response

from adapters.api.deps import ServiceDep
from adapters.api.responses import record_json
from adapters.api.share_page import not_found_page, share_page
from adapters.planning.schemas import PackingPlanRecord

router = APIRouter(prefix="/share", tags=["share"])

HTML = {"text/html": {"schema": {"type": "string"}}}


@router.get(
    "/{token}",
    operation_id="viewSharedPlan",
    summary="The shared plan's 3D view and tables (HTML)",
    response_class=HTMLResponse,
    response_description="The page.",
    responses={404: {"description": "Unknown or expired link.", "content": HTML}},
)
async def shared_page(
    service: ServiceDep,
    token: Annotated[str, Path(description="Token of the share link.")],
) -> Response:
    plan = await service.db(service.store.shared_plan, token)
    if plan is None:
        return HTMLResponse(not_found_page(), status_code=404)
    return HTMLResponse(share_page(PackingPlanRecord.model_validate_json(record_json(plan))))


@router.get("/assets/plotly.min.js", include_in_schema=False)
async def plotly_js() -> Response:
    """The 3D library the page loads; served here so the page needs no other host."""
    from plotly.offline import get_plotlyjs

    return Response(
        get_plotlyjs(),
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=86400"},
    )
