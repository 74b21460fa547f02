"""The OpenAPI 3.1 document of the service, built from the table of operations.

Every operation carries its scope (in its description and in ``x-scopes``), its error responses
with their bodies, and the ``X-Api-Key`` security scheme unless it needs no key.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import Response

from adapters.api import schemas
from adapters.planning.schemas import (
    CargoCatalogItem,
    ComputePackingResponse,
    PackingPlanInput,
    PackingPlanRecord,
)

API_VERSION = "1.1.0"
REF = "#/components/schemas/{model}"

Handler = Callable[[Request], Awaitable[Response]]

#: Statuses and their error bodies.
ERROR_BODIES: dict[int, tuple[type[BaseModel], str]] = {
    400: (schemas.ErrorBody, "The request body is not valid JSON; error is a sentence."),
    401: (schemas.ErrorBody, "X-Api-Key missing, wrong or revoked; error is auth_invalid."),
    402: (schemas.QuotaErrorBody, "The organisation's calculation quota is used up."),
    403: (schemas.ErrorBody, "The key lacks the operation's scope; error is scope_denied."),
    404: (schemas.ErrorBody, "Not found; error is a sentence."),
    409: (schemas.ErrorBody, "Already exists; error is a sentence."),
    413: (schemas.ErrorBody, "The request body is larger than 1 MiB."),
    422: (schemas.ValidationErrorBody, "Field validation failed."),
    429: (schemas.RateLimitErrorBody, "The key's rate limit is exceeded."),
    500: (schemas.ErrorBody, "Internal server error."),
    503: (schemas.CapacityErrorBody, "No free compute slot; retry after retryAfterSec."),
}
RETRY_AFTER_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class Operation:
    """One operation of the API: what routes it and what documents it."""

    method: str
    path: str
    operation_id: str
    summary: str
    handler: Handler
    scope: str | None = None
    description: str = ""
    parameters: Sequence[dict[str, Any]] = ()
    request: type[BaseModel] | None = None
    request_required: bool = True
    success_status: int = 200
    success_model: type[BaseModel] | None = None
    success_media: str = "application/json"
    success_description: str = "OK"
    errors: Sequence[int] = ()
    public: bool = False  # needs no key
    links: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    """Response links: name → (operationId, parameter, runtime expression)."""
    tags: Sequence[str] = field(default_factory=tuple)


def path_parameter(name: str, description: str, pattern: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": schema,
    }


def _content(model: type[BaseModel]) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}}


def _operation(op: Operation) -> dict[str, Any]:
    description = op.description
    if op.scope:
        description = f"Scope: `{op.scope}`.\n\n{description}".strip()
    elif not op.public:
        description = description.strip()
    else:
        description = f"Needs no key.\n\n{description}".strip()
    doc: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "description": description,
        "tags": list(op.tags),
        "x-scopes": [op.scope] if op.scope else [],
        "security": [] if op.public else [{"ApiKey": []}],
    }
    if op.parameters:
        doc["parameters"] = list(op.parameters)
    if op.request is not None:
        doc["requestBody"] = {"required": op.request_required, "content": _content(op.request)}
    responses: dict[str, Any] = {}
    success: dict[str, Any] = {"description": op.success_description}
    if op.success_model is not None:
        success["content"] = _content(op.success_model)
    elif op.success_media == "application/pdf":
        success["content"] = {
            "application/pdf": {"schema": {"type": "string", "contentMediaType": "application/pdf"}}
        }
    elif op.success_media == "text/html":
        success["content"] = {"text/html": {"schema": {"type": "string"}}}
    if op.links:
        success["links"] = {
            name: {"operationId": target, "parameters": {param: expression}}
            for name, (target, param, expression) in op.links.items()
        }
    responses[str(op.success_status)] = success
    for status in sorted(op.errors):
        if op.success_media == "text/html" and status == 404:
            responses["404"] = {
                "description": "Unknown or expired link.",
                "content": {"text/html": {"schema": {"type": "string"}}},
            }
            continue
        model, text = ERROR_BODIES[status]
        response: dict[str, Any] = {"description": text, "content": _content(model)}
        if status in RETRY_AFTER_STATUSES:
            response["headers"] = {
                "Retry-After": {
                    "description": "Seconds to wait; equals retryAfterSec.",
                    "required": True,
                    "schema": {"type": "integer", "minimum": 1},
                }
            }
        responses[str(status)] = response
    doc["responses"] = responses
    return doc


def _preflight(path: str, parameters: Sequence[dict[str, Any]]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "operationId": "preflight_"
        + path.strip("/").replace("/", "_").replace("{", "").replace("}", ""),
        "summary": "CORS preflight",
        "description": "Needs no key.",
        "tags": ["cors"],
        "x-scopes": [],
        "security": [],
        "responses": {"204": {"description": "Empty; CORS headers only."}},
    }
    if parameters:
        doc["parameters"] = list(parameters)
    return doc


def component_schemas(models: Sequence[type[BaseModel]]) -> dict[str, Any]:
    """JSON Schemas of ``models`` and everything they reference, by model name."""
    _, top = models_json_schema([(m, "validation") for m in models], ref_template=REF)
    defs: dict[str, Any] = top.get("$defs", {})
    return defs


def build_openapi(
    operations: Sequence[Operation], preflight_paths: Sequence[str]
) -> dict[str, Any]:
    """The OpenAPI 3.1 document for ``operations``."""
    paths: dict[str, dict[str, Any]] = {}
    models: list[type[BaseModel]] = [
        PackingPlanInput,
        ComputePackingResponse,
        PackingPlanRecord,
        CargoCatalogItem,
    ]
    for op in operations:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op)
        for model in (op.request, op.success_model):
            if model is not None and model not in models:
                models.append(model)
    for model, _ in ERROR_BODIES.values():
        if model not in models:
            models.append(model)
    for path in preflight_paths:
        in_path: dict[str, dict[str, Any]] = {
            p["name"]: p
            for op in operations
            if op.path == path
            for p in op.parameters
            if p["in"] == "path"
        }
        paths.setdefault(path, {})["options"] = _preflight(path, list(in_path.values()))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Packing Planning Service",
            "version": API_VERSION,
            "description": "Packing plans for thermal boxes, plain containers, pallets and "
            "vehicles: compute, store, read back, share and render as PDF. Every request "
            "carries X-Api-Key except GET /api/health and GET /api/v1/openapi.json.",
        },
        "paths": paths,
        "components": {
            "schemas": component_schemas(models),
            "securitySchemes": {
                "ApiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-Api-Key",
                    "description": "tbp_ followed by the secret; issued with "
                    "`packplan keys issue`.",
                }
            },
        },
    }
