"""Stored plans: read by id or by order number, render as PDF (share links: ``share``).

A plan belongs to its key's organisation; another organisation's plan is a 404 exactly like a
missing one.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from starlette.responses import Response

from adapters.api import errors
from adapters.api.deps import JsonBody, ReadKey, ServiceDep, control_problem, path_value
from adapters.api.openapi import error_responses
from adapters.api.render import RenderBusy, RenderCrashed, RenderTimeout
from adapters.api.responses import raw_json, record_json
from adapters.api.schemas import RenderPdfRequest
from adapters.api.service import Service
from adapters.planning.schemas import PackingPlanRecord
from adapters.store import KeyInfo
from adapters.store.models import Plan

router = APIRouter(prefix="/api/v1/packing/plans", tags=["packing"])

PLAN_MISSING = "The plan does not exist."

PlanId = Annotated[str, Path(alias="id", description="planId returned by compute.")]


async def plan_of(service: Service, key: KeyInfo, plan_id: str) -> Plan:
    """The key's organisation's plan ``plan_id``; 404 when missing or another's."""
    plan = await service.db(
        service.store.plan, key.organisation_id, path_value(plan_id, PLAN_MISSING)
    )
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
    problem = control_problem(order_ref)
    if problem is not None:
        raise errors.validation_failed({"orderRef": [problem]})
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
    return raw_json(record_json(await plan_of(service, key, plan_id)))


def _placed(result_json: str) -> int:
    """Placed pieces of a stored result."""
    return len(json.loads(result_json).get("placements") or ())


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
        **error_responses(400, 401, 403, 404, 413, 422, 500, 503),
    },
)
async def render_pdf(
    key: ReadKey,
    options: Annotated[RenderPdfRequest, Depends(JsonBody(RenderPdfRequest, required=False))],
    service: ServiceDep,
    plan_id: PlanId,
) -> Response:
    """summary: tables; full: tables and 3D diagrams per container. Rendered in a pool of its
    own under a time limit: 503 (with Retry-After) when no render slot is free, 500 when the
    render overran its limit and was stopped."""
    plan = await plan_of(service, key, plan_id)
    try:
        # (the stored result is read off the event loop: a large plan's is megabytes)
        pieces = await asyncio.to_thread(_placed, plan.result_json)
        pdf = await service.renderer.render(record_json(plan), options.mode, pieces)
    except RenderBusy:
        raise errors.render_capacity_exceeded(service.settings.busy_retry_after_s) from None
    except RenderTimeout:
        raise errors.internal("The report took longer than its time limit to render.") from None
    except RenderCrashed:
        raise errors.internal("The report could not be rendered.") from None
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{plan.plan_id}.pdf"'},
    )
