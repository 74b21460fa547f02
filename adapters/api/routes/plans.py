"""Stored plans: read by id or by order number, render as PDF, share.

A plan belongs to its key's organisation; another organisation's plan is a 404 exactly like a
missing one.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from adapters.api import errors
from adapters.api.deps import ComputeKey, JsonBody, ReadKey, ServiceDep
from adapters.api.openapi import error_responses
from adapters.api.responses import json_response, raw_json, record_json
from adapters.api.schemas import RenderPdfRequest, ShareRequest, ShareResponse
from adapters.api.service import Service
from adapters.planning.schemas import PackingPlanRecord
from adapters.store import KeyInfo
from adapters.store.models import Plan, iso_z

router = APIRouter(prefix="/api/v1/packing/plans", tags=["packing"])

PLAN_MISSING = "The plan does not exist."

PlanId = Annotated[str, Path(alias="id", description="planId returned by compute.")]


async def _plan(service: Service, key: KeyInfo, plan_id: str) -> Plan:
    plan = await service.db(service.store.plan, key.organisation_id, plan_id)
    if plan is None:
        raise errors.not_found(PLAN_MISSING)
    return plan


@router.get(
    "",
    operation_id="findPlanByOrderRef",
    summary="Latest plan of the organisation for an order number",
    response_model=PackingPlanRecord,
    responses=error_responses(401, 403, 404, 422, 500),
)
async def find_plan(
    key: ReadKey,
    service: ServiceDep,
    order_ref: Annotated[
        str,
        Query(
            alias="orderRef",
            min_length=1,
            max_length=120,
            description="External order number (the orderRef of the input).",
        ),
    ],
) -> Response:
    plan = await service.db(service.store.latest_plan, key.organisation_id, order_ref)
    if plan is None:
        raise errors.not_found("No plan of the organisation has this orderRef.")
    return raw_json(record_json(plan))


@router.get(
    "/{id}",
    operation_id="getPackingPlan",
    summary="Read a stored plan",
    response_model=PackingPlanRecord,
    responses=error_responses(401, 403, 404, 500),
)
async def get_plan(key: ReadKey, service: ServiceDep, plan_id: PlanId) -> Response:
    """Another organisation's plan is a 404 like a missing one."""
    return raw_json(record_json(await _plan(service, key, plan_id)))


@router.post(
    "/{id}/render-pdf",
    operation_id="renderPackingPlanPdf",
    summary="Render a stored plan as PDF",
    response_class=Response,
    responses={
        200: {
            "description": "The PDF report.",
            "content": {
                "application/pdf": {
                    "schema": {"type": "string", "contentMediaType": "application/pdf"}
                }
            },
        },
        **error_responses(400, 401, 403, 404, 413, 422, 500),
    },
)
async def render_pdf(
    key: ReadKey,
    options: Annotated[RenderPdfRequest, Depends(JsonBody(RenderPdfRequest, required=False))],
    service: ServiceDep,
    plan_id: PlanId,
) -> Response:
    """summary: tables; full: tables and 3D diagrams per container."""
    from adapters.report import render_pdf

    plan = await _plan(service, key, plan_id)
    record = PackingPlanRecord.model_validate_json(record_json(plan))
    pdf = await run_in_threadpool(render_pdf, record, mode=options.mode)
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{plan.plan_id}.pdf"'},
    )


@router.post(
    "/{id}/share",
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
    plan = await _plan(service, key, plan_id)
    link, token = await service.db(
        service.store.create_share,
        key.organisation_id,
        plan.plan_id,
        dt.timedelta(hours=options.expiresInHours),
    )
    base = (service.settings.public_url or str(request.base_url)).rstrip("/")
    return json_response(
        {"shareId": link.id, "url": f"{base}/share/{token}", "expiresAt": iso_z(link.expires_at)},
        201,
    )
