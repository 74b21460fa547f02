"""``POST /api/v1/packing/compute``: compute a plan and save it."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.responses import Response

from adapters.api import errors
from adapters.api.compute import ComputeBusy, ComputeCrashed, ComputeTimeout, Lane
from adapters.api.deps import JsonBody, RateLimitedComputeKey, ServiceDep, reserved_quota
from adapters.api.openapi import error_responses, links
from adapters.api.responses import raw_json
from adapters.api.service import Service
from adapters.planning import PlanInputError
from adapters.planning.compute import check_plan_input
from adapters.planning.lanes import city_key
from adapters.planning.schemas import (
    CargoCatalogItem,
    ComputePackingResponse,
    PackingPlanInput,
)
from adapters.store import KeyInfo

router = APIRouter(prefix="/api/v1/packing", tags=["packing"])

#: 500 sentences: the worker died; the computation overran its budget and grace and was stopped.
COMPUTE_FAILED = "The calculation failed."
COMPUTE_STOPPED = "The calculation was stopped: it ran past its time limit."


async def compute_input(
    key: RateLimitedComputeKey,
    plan_input: Annotated[PackingPlanInput, Depends(JsonBody(PackingPlanInput))],
    service: ServiceDep,
) -> PackingPlanInput:
    """The plan input with every ``sku`` reference filled from the organisation's catalog,
    checked as far as it can be without planning.

    Fields the item gives win; an unknown SKU is a 422 on that item's ``sku``. Dates out of
    order and unknown slugs are 422s on their fields here, before the quota is reserved
    (:func:`~adapters.planning.compute.check_plan_input`).
    """
    filled = await _filled(key, plan_input, service)
    try:
        check_plan_input(filled)
    except PlanInputError as exc:
        raise errors.validation_failed({exc.field: [exc.message]}) from None
    return filled


async def _filled(key: KeyInfo, plan_input: PackingPlanInput, service: Service) -> PackingPlanInput:
    """The plan input with every ``sku`` reference filled from the organisation's catalog."""
    skus = sorted({c.sku for c in plan_input.cargos if c.sku is not None})
    if not skus:
        return plan_input
    found = await service.db(service.store.cargo_items_by_sku, key.organisation_id, skus)
    problems: dict[str, list[str]] = {}
    cargos = []
    for index, item in enumerate(plan_input.cargos):
        if item.sku is None:
            cargos.append(item)
        elif item.sku not in found:
            problems[f"cargos[{index}].sku"] = [
                f"unknown SKU {item.sku!r} in the organisation's catalog"
            ]
        else:
            cargos.append(CargoCatalogItem.model_validate_json(found[item.sku]).fill(item))
    if problems:
        raise errors.validation_failed(problems)
    return plan_input.model_copy(update={"cargos": cargos})


def organisation_lane(
    service: Service, organisation_id: int, plan_input: PackingPlanInput
) -> Lane | None:
    """The organisation's own lane for the plan's city pair, if it stored one."""
    origin, destination = city_key(plan_input.originCity), city_key(plan_input.destinationCity)
    if origin is None or destination is None:
        return None
    row = service.store.route_lane(organisation_id, origin, destination)
    return None if row is None else (origin, destination, row.data_json)


@router.post(
    "/compute",
    operation_id="computePackingPlan",
    summary="Compute and save a packing plan",
    response_model=ComputePackingResponse,
    responses={
        200: {
            "links": links(
                {
                    "GetPlan": "getPackingPlan",
                    "RenderPdf": "renderPackingPlanPdf",
                    "SharePlan": "sharePackingPlan",
                },
                "id",
                "$response.body#/planId",
            )
        },
        **error_responses(400, 401, 402, 403, 413, 422, 429, 500, 503),
    },
)
async def compute(
    key: RateLimitedComputeKey,
    plan_input: Annotated[PackingPlanInput, Depends(compute_input)],
    reservation: Annotated[int, Depends(reserved_quota)],
    service: ServiceDep,
) -> Response:
    """Checks in this order: 401, 403, 429, 400, 413, 422, 402, 503. Cargo items may reference
    the organisation catalog with `sku`. A plan whose modes are not feasible is still a 200
    and is saved. 503 also when the rate-limit store does not answer; 500 when the worker
    died or the computation had to be stopped past its time limit (not retried)."""
    input_json = plan_input.model_dump_json(exclude_none=True)
    options = plan_input.options
    use_mock = (
        options.useMockThermal
        if options is not None and options.useMockThermal is not None
        else key.sandbox
    )
    busy_s = service.settings.busy_retry_after_s
    lane = await service.db(organisation_lane, service, key.organisation_id, plan_input)
    try:
        outcome = await service.pool.compute(input_json, use_mock_thermal=use_mock, lane=lane)
    except ComputeBusy:
        raise errors.capacity_exceeded(busy_s) from None
    except ComputeTimeout:
        raise errors.internal(COMPUTE_STOPPED) from None
    except ComputeCrashed:
        raise errors.internal(COMPUTE_FAILED) from None
    if outcome.result_json is None:
        field = outcome.input_error_field or "body"
        raise errors.validation_failed({field: [outcome.input_error_message or "invalid"]})
    plan = await service.db(
        service.store.save_plan,
        key.organisation_id,
        input_json=input_json,
        result_json=outcome.result_json,
        external_ref=plan_input.orderRef,
        reservation_id=reservation,
    )
    head = json.dumps({"planId": plan.plan_id}, separators=(",", ":"))
    return raw_json(f"{head[:-1]},{outcome.result_json[1:]}")
