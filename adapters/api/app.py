"""The REST service (FastAPI): the v1 contract of ``interface-spec.md`` and ``decisions.md`` §6.

Handlers read their bodies themselves so that the order of checks and every error body is the
contract's (401 → 403 → 429 → 400 → 413 → 422 → 402 → 503 → 200 on compute); FastAPI's own
error shapes never reach a caller. Run it with ``packplan serve``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, TypeVar

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.api import errors
from adapters.api.compute import ComputeBusy, ComputeCrashed, ComputePool, ComputeTimeout
from adapters.api.errors import ApiError
from adapters.api.journal import JournalWriter
from adapters.api.limiting import RateLimiter, quota_period
from adapters.api.openapi import API_VERSION, Operation, build_openapi, path_parameter
from adapters.api.schemas import (
    CargoItemList,
    ContainerList,
    HealthResponse,
    RenderPdfRequest,
    ShareRequest,
    ShareResponse,
)
from adapters.api.settings import Settings
from adapters.api.share_page import not_found_page, share_page
from adapters.store import KeyInfo, Store, database_url, make_engine, upgrade
from adapters.store.models import Plan, iso_z
from adapters.planning.schemas import (
    SKU_PATTERN,
    CargoCatalogItem,
    CatalogContainer,
    ComputePackingResponse,
    PackingPlanInput,
    PackingPlanRecord,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

KEY_HEADER = "x-api-key"
ROUTE_KEY = "packplan.route"
AUTH_KEY = "packplan.key"
CORS_METHODS = "GET, POST, PUT, DELETE, OPTIONS"
CORS_HEADERS = "X-Api-Key, Content-Type"
HARD_BODY_FACTOR = 4  # bodies are read up to this many times the limit, then refused unread

PLAN_MISSING = "The plan does not exist."
SKU_MISSING = "The organisation's catalog has no item with this SKU."


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def _raw_json(text: str, status: int = 200) -> Response:
    return Response(text.encode("utf-8"), status_code=status, media_type="application/json")


def error_response(exc: ApiError) -> Response:
    return _json(exc.body, exc.status, exc.headers or None)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def record_json(plan: Plan) -> str:
    """The stored plan record (PackingPlanRecord) as JSON text."""
    head = json.dumps(
        {
            "planId": plan.plan_id,
            "externalRef": plan.external_ref,
            "source": plan.source,
            "createdAt": iso_z(plan.created_at),
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return f'{head[:-1]},"input":{plan.input_json},"result":{plan.result_json}}}'


#: What :meth:`_read_json` gives for an absent optional body (a JSON ``null`` is not absent).
NO_BODY: Any = object()


class Service:
    """The service's parts and its request handlers."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = make_engine(database_url(settings.database_url, settings.sqlite_path))
        self.store = Store(self.engine)
        self.journal = JournalWriter(self.store, flush_s=settings.journal_flush_s)
        self.limiter = RateLimiter(
            redis_url=settings.redis_url,
            sandbox_per_minute=settings.rate_sandbox_per_minute,
            production_per_minute=settings.rate_production_per_minute,
        )
        self.pool = ComputePool(
            workers=settings.compute_workers,
            queue=settings.compute_queue,
            time_limit_s=settings.compute_time_limit_s,
            grace_s=settings.compute_grace_s,
        )
        self._containers_json: str | None = None
        self._openapi_json: str | None = None
        self.operations = self._operations()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        await run_in_threadpool(upgrade, self.engine)
        self.journal.start()
        await self.pool.warm()

    async def stop(self) -> None:
        self.journal.stop()
        self.pool.shutdown()
        self.engine.dispose()

    # ------------------------------------------------------------------ helpers

    async def _db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await run_in_threadpool(partial(fn, *args, **kwargs))

    async def _authenticate(self, request: Request) -> KeyInfo:
        secret = request.headers.get(KEY_HEADER)
        if not secret:
            raise errors.auth_invalid()
        key = await self._db(self.store.authenticate, secret)
        if key is None:
            raise errors.auth_invalid()
        return key

    async def _read_json(self, request: Request, *, required: bool) -> Any:
        """The parsed body; :data:`NO_BODY` when an optional body is empty (a JSON ``null``
        is a body, and not an object: 422). 400, then 413."""
        limit = self.settings.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit * HARD_BODY_FACTOR:
                raise errors.too_large(limit)
            chunks.append(chunk)
        raw = b"".join(chunks)
        if not raw.strip():
            if required:
                raise errors.bad_json("The request body is empty; a JSON object is expected.")
            return NO_BODY
        try:
            body = json.loads(raw, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            raise errors.bad_json("The request body is not valid JSON.") from None
        if size > limit:
            raise errors.too_large(limit)
        return body

    @staticmethod
    def _validate(model: type[M], body: Any) -> M:
        if not isinstance(body, dict):
            raise errors.validation_failed({"body": ["must be a JSON object"]})
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            raise errors.validation_failed(errors.field_errors(exc.errors())) from None

    # ------------------------------------------------------------------ handlers

    async def health(self, request: Request) -> Response:
        return _json({"status": "ok"})

    async def openapi(self, request: Request) -> Response:
        if self._openapi_json is None:
            self._openapi_json = json.dumps(self.openapi_document(), ensure_ascii=False)
        return _raw_json(self._openapi_json)

    def openapi_document(self) -> dict[str, Any]:
        return build_openapi(
            self.operations,
            preflight_paths=[
                "/api/v1/packing/compute",
                "/api/v1/packing/plans",
                "/api/v1/packing/plans/{id}",
                "/api/v1/packing/plans/{id}/render-pdf",
                "/api/v1/packing/plans/{id}/share",
                "/api/v1/catalog/containers",
                "/api/v1/catalog/cargo-items",
                "/api/v1/catalog/cargo-items/{sku}",
            ],
        )

    async def compute(self, request: Request, key: KeyInfo) -> Response:
        retry = await self.limiter.hit(key.key_id, sandbox=key.sandbox)
        if retry is not None:
            raise errors.rate_limited(retry)
        body = await self._read_json(request, required=True)
        plan_input = self._validate(PackingPlanInput, body)
        plan_input = await self._fill_skus(key, plan_input)
        input_json = plan_input.model_dump_json(exclude_none=True)
        options = plan_input.options
        use_mock = (
            options.useMockThermal
            if options is not None and options.useMockThermal is not None
            else key.sandbox
        )

        period, seconds_left = quota_period(dt.datetime.now(dt.UTC), sandbox=key.sandbox)
        limit = (
            self.settings.quota_sandbox_per_day
            if key.sandbox
            else self.settings.quota_production_per_month
        )
        if not await self._db(self.store.reserve_quota, key.organisation_id, period, limit):
            raise errors.quota_exceeded(seconds_left)
        try:
            try:
                outcome = await self.pool.compute(input_json, use_mock_thermal=use_mock)
            except (ComputeBusy, ComputeTimeout):
                raise errors.capacity_exceeded(self.settings.busy_retry_after_s) from None
            except ComputeCrashed:
                raise ApiError(500, {"error": "The calculation failed."}) from None
            if outcome.result_json is None:
                field = outcome.input_error_field or "body"
                raise errors.validation_failed({field: [outcome.input_error_message or "invalid"]})
            plan = await self._db(
                self.store.save_plan,
                key.organisation_id,
                input_json=input_json,
                result_json=outcome.result_json,
                external_ref=plan_input.orderRef,
            )
        except BaseException:
            await self._db(self.store.release_quota, key.organisation_id, period)
            raise
        head = json.dumps({"planId": plan.plan_id}, separators=(",", ":"))
        return _raw_json(f"{head[:-1]},{outcome.result_json[1:]}")

    async def _fill_skus(self, key: KeyInfo, plan_input: PackingPlanInput) -> PackingPlanInput:
        skus = sorted({c.sku for c in plan_input.cargos if c.sku is not None})
        if not skus:
            return plan_input
        found = await self._db(self.store.cargo_items_by_sku, key.organisation_id, skus)
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
                entry = CargoCatalogItem.model_validate_json(found[item.sku])
                cargos.append(entry.fill(item))
        if problems:
            raise errors.validation_failed(problems)
        return plan_input.model_copy(update={"cargos": cargos})

    async def _plan(self, key: KeyInfo, plan_id: str) -> Plan:
        plan = await self._db(self.store.plan, key.organisation_id, plan_id)
        if plan is None:
            raise errors.not_found(PLAN_MISSING)
        return plan

    async def get_plan(self, request: Request, key: KeyInfo) -> Response:
        plan = await self._plan(key, request.path_params["id"])
        return _raw_json(record_json(plan))

    async def find_plan(self, request: Request, key: KeyInfo) -> Response:
        ref = request.query_params.get("orderRef")
        if ref is None:
            raise errors.validation_failed({"orderRef": ["is required"]})
        if not ref:
            raise errors.validation_failed({"orderRef": ["must not be empty"]})
        if len(ref) > 120:
            raise errors.validation_failed({"orderRef": ["must have at most 120 characters"]})
        plan = await self._db(self.store.latest_plan, key.organisation_id, ref)
        if plan is None:
            raise errors.not_found("No plan of the organisation has this orderRef.")
        return _raw_json(record_json(plan))

    async def render_pdf(self, request: Request, key: KeyInfo) -> Response:
        from adapters.report import render_pdf

        body = await self._read_json(request, required=False)
        options = RenderPdfRequest() if body is NO_BODY else self._validate(RenderPdfRequest, body)
        plan = await self._plan(key, request.path_params["id"])
        record = PackingPlanRecord.model_validate_json(record_json(plan))
        pdf = await run_in_threadpool(render_pdf, record, mode=options.mode)
        return Response(
            pdf,
            media_type="application/pdf",
            headers={"Content-Disposition": f'inline; filename="{plan.plan_id}.pdf"'},
        )

    async def share(self, request: Request, key: KeyInfo) -> Response:
        body = await self._read_json(request, required=False)
        options = ShareRequest() if body is NO_BODY else self._validate(ShareRequest, body)
        plan = await self._plan(key, request.path_params["id"])
        link, token = await self._db(
            self.store.create_share,
            key.organisation_id,
            plan.plan_id,
            dt.timedelta(hours=options.expiresInHours),
        )
        base = (self.settings.public_url or str(request.base_url)).rstrip("/")
        return _json(
            {
                "shareId": link.id,
                "url": f"{base}/share/{token}",
                "expiresAt": iso_z(link.expires_at),
            },
            201,
        )

    async def shared_page(self, request: Request) -> Response:
        plan = await self._db(self.store.shared_plan, request.path_params["token"])
        if plan is None:
            return HTMLResponse(not_found_page(), status_code=404)
        record = PackingPlanRecord.model_validate_json(record_json(plan))
        return HTMLResponse(share_page(record))

    async def plotly_js(self, request: Request) -> Response:
        from plotly.offline import get_plotlyjs

        return Response(
            get_plotlyjs(),
            media_type="text/javascript",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    async def containers(self, request: Request, key: KeyInfo) -> Response:
        if self._containers_json is None:
            from adapters.planning import catalog_containers

            rows = await run_in_threadpool(catalog_containers)
            listing = ContainerList(containers=rows)
            self._containers_json = listing.model_dump_json()
        return _raw_json(self._containers_json)

    async def list_cargo_items(self, request: Request, key: KeyInfo) -> Response:
        rows = await self._db(self.store.cargo_items, key.organisation_id)
        return _raw_json('{"items":[' + ",".join(r.data_json for r in rows) + "]}")

    async def get_cargo_item(self, request: Request, key: KeyInfo) -> Response:
        row = await self._db(self.store.cargo_item, key.organisation_id, request.path_params["sku"])
        if row is None:
            raise errors.not_found(SKU_MISSING)
        return _raw_json(row.data_json)

    async def create_cargo_item(self, request: Request, key: KeyInfo) -> Response:
        body = await self._read_json(request, required=True)
        item = self._validate(CargoCatalogItem, body)
        data = item.model_dump_json(exclude_none=True)
        if not await self._db(self.store.create_cargo_item, key.organisation_id, item.sku, data):
            raise ApiError(409, {"error": "The catalog already has an item with this SKU."})
        return _raw_json(data, 201)

    async def replace_cargo_item(self, request: Request, key: KeyInfo) -> Response:
        sku = request.path_params["sku"]
        body = await self._read_json(request, required=True)
        item = self._validate(CargoCatalogItem, body)
        if item.sku != sku:
            raise errors.validation_failed({"sku": ["must equal the SKU in the path"]})
        data = item.model_dump_json(exclude_none=True)
        if not await self._db(self.store.replace_cargo_item, key.organisation_id, sku, data):
            raise errors.not_found(SKU_MISSING)
        return _raw_json(data)

    async def delete_cargo_item(self, request: Request, key: KeyInfo) -> Response:
        sku = request.path_params["sku"]
        if not await self._db(self.store.delete_cargo_item, key.organisation_id, sku):
            raise errors.not_found(SKU_MISSING)
        return Response(status_code=204)

    # ------------------------------------------------------------------ routing

    def _guarded(
        self, scope: str, handler: Callable[[Request, KeyInfo], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            key = await self._authenticate(request)
            request.scope[AUTH_KEY] = key
            if scope not in key.scopes:
                raise errors.scope_denied()
            return await handler(request, key)

        return endpoint

    def _operations(self) -> list[Operation]:
        plan_id = path_parameter("id", "planId returned by compute.")
        sku = path_parameter("sku", "SKU of the catalog item.", SKU_PATTERN)
        token = path_parameter("token", "Token of the share link.")
        order_ref = {
            "name": "orderRef",
            "in": "query",
            "required": True,
            "description": "External order number (the orderRef of the input).",
            "schema": {"type": "string", "minLength": 1, "maxLength": 120},
        }
        g = self._guarded
        return [
            Operation(
                "POST",
                "/api/v1/packing/compute",
                "computePackingPlan",
                "Compute and save a packing plan",
                g("packing:compute", self.compute),
                scope="packing:compute",
                description="Checks in this order: 401, 403, 429, 400, 413, 422, 402, 503. "
                "Cargo items may reference the organisation catalog with `sku`. A plan "
                "whose modes are not feasible is still a 200 and is saved.",
                request=PackingPlanInput,
                success_model=ComputePackingResponse,
                links={
                    "GetPlan": ("getPackingPlan", "id", "$response.body#/planId"),
                    "RenderPdf": ("renderPackingPlanPdf", "id", "$response.body#/planId"),
                    "SharePlan": ("sharePackingPlan", "id", "$response.body#/planId"),
                },
                errors=(400, 401, 402, 403, 413, 422, 429, 500, 503),
                tags=("packing",),
            ),
            Operation(
                "GET",
                "/api/v1/packing/plans",
                "findPlanByOrderRef",
                "Latest plan of the organisation for an order number",
                g("packing:read", self.find_plan),
                scope="packing:read",
                parameters=(order_ref,),
                success_model=PackingPlanRecord,
                errors=(401, 403, 404, 422, 500),
                tags=("packing",),
            ),
            Operation(
                "GET",
                "/api/v1/packing/plans/{id}",
                "getPackingPlan",
                "Read a stored plan",
                g("packing:read", self.get_plan),
                scope="packing:read",
                description="Another organisation's plan is a 404 like a missing one.",
                parameters=(plan_id,),
                success_model=PackingPlanRecord,
                errors=(401, 403, 404, 500),
                tags=("packing",),
            ),
            Operation(
                "POST",
                "/api/v1/packing/plans/{id}/render-pdf",
                "renderPackingPlanPdf",
                "Render a stored plan as PDF",
                g("packing:read", self.render_pdf),
                scope="packing:read",
                description="summary: tables; full: tables and 3D diagrams per container.",
                parameters=(plan_id,),
                request=RenderPdfRequest,
                request_required=False,
                success_media="application/pdf",
                success_description="The PDF report.",
                errors=(400, 401, 403, 404, 413, 422, 500),
                tags=("packing",),
            ),
            Operation(
                "POST",
                "/api/v1/packing/plans/{id}/share",
                "sharePackingPlan",
                "Create a link to the plan's 3D view that needs no key",
                g("packing:compute", self.share),
                scope="packing:compute",
                parameters=(plan_id,),
                request=ShareRequest,
                request_required=False,
                success_status=201,
                success_model=ShareResponse,
                success_description="Created.",
                errors=(400, 401, 403, 404, 413, 422, 500),
                tags=("packing",),
            ),
            Operation(
                "GET",
                "/share/{token}",
                "viewSharedPlan",
                "The shared plan's 3D view and tables (HTML)",
                self.shared_page,
                parameters=(token,),
                success_media="text/html",
                success_description="The page.",
                errors=(404,),
                public=True,
                tags=("share",),
            ),
            Operation(
                "GET",
                "/api/v1/catalog/containers",
                "listCatalogContainers",
                "Thermal container catalog",
                g("catalog:read", self.containers),
                scope="catalog:read",
                success_model=ContainerList,
                errors=(401, 403, 500),
                tags=("catalog",),
            ),
            Operation(
                "GET",
                "/api/v1/catalog/cargo-items",
                "listCargoItems",
                "The organisation's SKU catalog",
                g("catalog:read", self.list_cargo_items),
                scope="catalog:read",
                success_model=CargoItemList,
                errors=(401, 403, 500),
                tags=("catalog",),
            ),
            Operation(
                "POST",
                "/api/v1/catalog/cargo-items",
                "createCargoItem",
                "Add an item to the organisation's SKU catalog",
                g("catalog:write", self.create_cargo_item),
                scope="catalog:write",
                request=CargoCatalogItem,
                links={
                    "GetItem": ("getCargoItem", "sku", "$response.body#/sku"),
                    "ReplaceItem": ("replaceCargoItem", "sku", "$response.body#/sku"),
                    "DeleteItem": ("deleteCargoItem", "sku", "$response.body#/sku"),
                },
                success_status=201,
                success_model=CargoCatalogItem,
                success_description="Created.",
                errors=(400, 401, 403, 409, 413, 422, 500),
                tags=("catalog",),
            ),
            Operation(
                "GET",
                "/api/v1/catalog/cargo-items/{sku}",
                "getCargoItem",
                "One item of the organisation's SKU catalog",
                g("catalog:read", self.get_cargo_item),
                scope="catalog:read",
                parameters=(sku,),
                success_model=CargoCatalogItem,
                errors=(401, 403, 404, 500),
                tags=("catalog",),
            ),
            Operation(
                "PUT",
                "/api/v1/catalog/cargo-items/{sku}",
                "replaceCargoItem",
                "Replace an item of the organisation's SKU catalog",
                g("catalog:write", self.replace_cargo_item),
                scope="catalog:write",
                description="The body's sku must equal the path's.",
                parameters=(sku,),
                request=CargoCatalogItem,
                success_model=CargoCatalogItem,
                errors=(400, 401, 403, 404, 413, 422, 500),
                tags=("catalog",),
            ),
            Operation(
                "DELETE",
                "/api/v1/catalog/cargo-items/{sku}",
                "deleteCargoItem",
                "Delete an item of the organisation's SKU catalog",
                g("catalog:write", self.delete_cargo_item),
                scope="catalog:write",
                parameters=(sku,),
                success_status=204,
                success_description="Deleted.",
                errors=(401, 403, 404, 500),
                tags=("catalog",),
            ),
            Operation(
                "GET",
                "/api/health",
                "health",
                "Health",
                self.health,
                success_model=HealthResponse,
                public=True,
                tags=("service",),
            ),
            Operation(
                "GET",
                "/api/v1/openapi.json",
                "openapi",
                "This OpenAPI 3.1 document",
                self.openapi,
                success_description="The OpenAPI document.",
                public=True,
                tags=("service",),
            ),
        ]


class EdgeMiddleware:
    """Outermost layer: CORS, the request journal, and a JSON 500 for anything unforeseen."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service
        origins = [o.strip() for o in service.settings.cors_origins.split(",") if o.strip()]
        self.any_origin = "*" in origins
        self.origins = frozenset(origins)

    def _cors(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        origin = next((v for k, v in scope["headers"] if k == b"origin"), None)
        if origin is None:
            return []
        if self.any_origin:
            allow = b"*"
        elif origin.decode("latin-1") in self.origins:
            allow = origin
        else:
            return []
        headers = [
            (b"access-control-allow-origin", allow),
            (b"access-control-expose-headers", b"Retry-After"),
        ]
        if allow != b"*":
            headers.append((b"vary", b"Origin"))
        return headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        response_started = False
        cors = self._cors(scope)

        async def send_with_cors(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                status = message["status"]
                response_started = True
                message["headers"] = list(message.get("headers", [])) + cors
            await send(message)

        try:
            if scope["method"] == "OPTIONS":
                scope[ROUTE_KEY] = scope["path"] if _is_api_path(scope["path"]) else "(no route)"
                await send_with_cors(
                    {
                        "type": "http.response.start",
                        "status": 204,
                        "headers": [
                            (b"access-control-allow-methods", CORS_METHODS.encode()),
                            (b"access-control-allow-headers", CORS_HEADERS.encode()),
                            (b"access-control-max-age", b"600"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
            await self.app(scope, receive, send_with_cors)
        except Exception:
            log.exception("unhandled error on %s %s", scope["method"], scope.get(ROUTE_KEY))
            if not response_started:
                response = _json({"error": "Internal server error."}, 500)
                await response(scope, receive, send_with_cors)
        finally:
            key: KeyInfo | None = scope.get(AUTH_KEY)
            route = scope.get("route")
            template = getattr(route, "path", None) or scope.get(ROUTE_KEY) or "(no route)"
            self.service.journal.record(
                method=scope["method"],
                route=template,
                key_id=key.key_id if key else None,
                organisation_id=key.organisation_id if key else None,
                status=status,
                duration_ms=(time.perf_counter() - started) * 1000,
            )


def _is_api_path(path: str) -> bool:
    return path.startswith("/api/")


def create_app(settings: Settings | None = None) -> FastAPI:
    """The FastAPI application (``uvicorn --factory adapters.api.app:create_app``)."""
    service = Service(settings or Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = FastAPI(
        title="Packing Planning Service",
        version=API_VERSION,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.service = service

    for op in service.operations:
        app.add_api_route(
            op.path,
            _with_errors(op.handler),
            methods=[op.method],
            include_in_schema=False,
            name=op.operation_id,
        )
    app.add_api_route(
        "/share/assets/plotly.min.js",
        _with_errors(service.plotly_js),
        methods=["GET"],
        include_in_schema=False,
    )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        sentence = {
            404: "There is no such endpoint.",
            405: "The endpoint does not allow this method.",
        }.get(exc.status_code, str(exc.detail))
        return JSONResponse({"error": sentence}, exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def request_invalid(request: Request, exc: RequestValidationError) -> Response:
        return error_response(errors.validation_failed(errors.field_errors(exc.errors())))

    app.add_middleware(EdgeMiddleware, service=service)
    return app


def _with_errors(
    handler: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as exc:
            return error_response(exc)

    endpoint.__name__ = getattr(handler, "__name__", "endpoint")
    return endpoint
