"""Share links: create and revoke them (keyed), and ``GET /share/{token}``, the page with no key.

An unknown, expired or revoked token gets a 404 page. Pages are never cached and never send
their address (which holds the token) as a referrer.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from adapters.api import errors
from adapters.api.deps import ComputeKey, JsonBody, ServiceDep, control_problem, path_value
from adapters.api.openapi import error_responses
from adapters.api.responses import json_response, record_json
from adapters.api.routes.plans import PlanId, plan_of
from adapters.api.schemas import ShareRequest, ShareResponse
from adapters.api.share_page import PAGES, not_found_page, share_page
from adapters.planning.schemas import PackingPlanRecord
from adapters.store.models import Plan
from adapters.timestamps import iso_z

router = APIRouter()
log = logging.getLogger(__name__)

HTML = {"text/html": {"schema": {"type": "string"}}}

SHARE_MISSING = "The plan has no such share link."

#: Headers of every share page: the address holds the token, so it is neither kept in caches
#: nor passed on to other sites, and search engines do not list it.
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Robots-Tag": "noindex, nofollow",
}


@router.post(
    "/api/v1/packing/plans/{id}/share",
    tags=["packing"],
    operation_id="sharePackingPlan",
    summary="Create a link to the plan's 3D view that needs no key",
    status_code=201,
    response_model=ShareResponse,
    response_description="Created.",
    responses=error_responses(400, 401, 403, 404, 413, 422, 500),
)
async def share_plan(
    request: Request,
    key: ComputeKey,
    options: Annotated[ShareRequest, Depends(JsonBody(ShareRequest, required=False))],
    service: ServiceDep,
    plan_id: PlanId,
) -> Response:
    """The link's URL starts with `PACKPLAN_PUBLIC_URL`, else with the address the request
    came to (its Host is one the service allows)."""
    plan = await plan_of(service, key, plan_id)
    link, token = await service.db(
        service.store.create_share,
        key.organisation_id,
        plan.plan_id,
        dt.timedelta(hours=options.expiresInHours),
    )
    base = (service.settings.public_url or str(request.base_url)).rstrip("/")
    response = json_response(
        {"shareId": link.id, "url": f"{base}/share/{token}", "expiresAt": iso_z(link.expires_at)},
        201,
        headers={"Cache-Control": "no-store"},
    )
    build_ahead(plan)
    return response


def _builder(plan: Plan) -> Callable[[], str]:
    """Builds the share page of a stored plan."""

    def build() -> str:
        return share_page(PackingPlanRecord.model_validate_json(record_json(plan)))

    return build


#: Builds share pages ahead, one at a time, apart from the requests (whose duration the
#: journal records): a link's first reader need not wait seconds for a large plan's page.
_AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="share-page")
#: The plans whose builds are asked for and not done.
_PENDING: set[str] = set()
_PENDING_LOCK = threading.Lock()


def build_ahead(plan: Plan) -> None:
    """Have the plan's share page built and kept (this process's :data:`PAGES`) by the
    build-ahead thread, unless it is kept or asked for already."""
    with _PENDING_LOCK:
        if plan.plan_id in PAGES or plan.plan_id in _PENDING:
            return
        _PENDING.add(plan.plan_id)
    _AHEAD.submit(_warm_page, plan)


def _warm_page(plan: Plan) -> None:
    try:
        PAGES.get(plan.plan_id, _builder(plan))
    except Exception:  # its reader's request builds it again, and answers for it
        log.warning("the share page of plan %s was not built ahead", plan.plan_id, exc_info=True)
    finally:
        with _PENDING_LOCK:
            _PENDING.discard(plan.plan_id)


@router.delete(
    "/api/v1/packing/plans/{id}/share/{shareId}",
    tags=["packing"],
    operation_id="revokePackingPlanShare",
    summary="Revoke a share link of the plan",
    status_code=204,
    response_class=Response,
    response_description="Revoked; the link's page is a 404 from now on.",
    responses=error_responses(401, 403, 404, 500),
)
async def revoke_share(
    key: ComputeKey,
    service: ServiceDep,
    plan_id: PlanId,
    share_id: Annotated[str, Path(alias="shareId", description="shareId returned by share.")],
) -> Response:
    """Another organisation's plan or link is a 404 like a missing one."""
    plan = await plan_of(service, key, plan_id)
    path_value(share_id, SHARE_MISSING)
    revoked = await service.db(
        service.store.revoke_share, key.organisation_id, plan.plan_id, share_id
    )
    if not revoked:
        raise errors.not_found(SHARE_MISSING)
    return Response(status_code=204)


@router.get(
    "/share/{token}",
    tags=["share"],
    operation_id="viewSharedPlan",
    summary="The shared plan's 3D view and tables (HTML)",
    response_class=HTMLResponse,
    response_description="The page.",
    responses={404: {"description": "Unknown, expired or revoked link.", "content": HTML}},
)
async def shared_page(
    service: ServiceDep,
    token: Annotated[str, Path(description="Token of the share link.")],
) -> Response:
    plan = None
    if control_problem(token) is None:
        plan = await service.db(service.store.shared_plan, token)
    if plan is None:
        return HTMLResponse(not_found_page(), status_code=404, headers=PAGE_HEADERS)
    # built off the event loop (a large plan's page takes seconds), once per plan
    page = await run_in_threadpool(PAGES.get, plan.plan_id, _builder(plan))
    return HTMLResponse(page, headers=PAGE_HEADERS)


@router.get("/share/assets/plotly.min.js", include_in_schema=False)
async def plotly_js() -> Response:
    """The 3D library the page loads; served here so the page needs no other host."""
    from plotly.offline import get_plotlyjs

    return Response(
        get_plotlyjs(),
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=86400"},
    )
