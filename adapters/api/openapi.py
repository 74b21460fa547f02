"""The OpenAPI 3.1 document: FastAPI's, from the route declarations, completed where it can't see.

Routes declare their error responses with :func:`error_responses`. The document is FastAPI's
own; :func:`build_openapi` adds only what the framework does not know because the service
does it itself:

- each operation's scope (``x-scopes`` and its description) from its :class:`KeyWithScope`
  dependency, and ``security: []`` on the operations that need no key;
- each request body from its :class:`JsonBody` dependency (bodies are read by the service so
  that the key is checked before the body);
- the CORS preflight (``OPTIONS``, answered by the middleware) of every keyed path;
- no FastAPI validation-error body: the service answers 422 with ValidationErrorBody, and
  only where an operation declares it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from adapters.api import schemas
from adapters.api.deps import JsonBody, KeyWithScope

API_VERSION = "1.1.0"
TITLE = "Packing Planning Service"
DESCRIPTION = (
    "Packing plans for thermal boxes, plain containers, pallets and vehicles: compute, store, "
    "read back, share and render as PDF. Every request carries X-Api-Key except "
    "GET /api/health and GET /api/v1/openapi.json."
)
REF = "#/components/schemas/{model}"

#: Statuses and their error bodies.
ERROR_BODIES: dict[int, tuple[type[BaseModel], str]] = {
    400: (schemas.ErrorBody, "The request body is not valid JSON; error is a sentence."),
    401: (
        schemas.ErrorBody,
        "X-Api-Key missing, wrong, revoked or given more than once; error is auth_invalid.",
    ),
    402: (schemas.QuotaErrorBody, "The organisation's calculation quota is used up."),
    403: (schemas.ErrorBody, "The key lacks the operation's scope; error is scope_denied."),
    404: (schemas.ErrorBody, "Not found; error is a sentence."),
    409: (schemas.ErrorBody, "Already exists; error is a sentence."),
    413: (schemas.ErrorBody, "The request body is larger than 1 MiB."),
    422: (schemas.ValidationErrorBody, "Field validation failed."),
    429: (schemas.RateLimitErrorBody, "The key's rate limit is exceeded."),
    500: (schemas.ErrorBody, "Internal server error, or work that had to be stopped."),
    503: (
        schemas.CapacityErrorBody,
        "No free compute or render slot (or the rate-limit store does not answer); retry "
        "after retryAfterSec.",
    ),
}
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait; equals retryAfterSec.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route for its error ``statuses``, each with its body."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in sorted(statuses):
        model, text = ERROR_BODIES[status]
        out[status] = {"model": model, "description": text}
        if status in (429, 503):
            out[status]["headers"] = RETRY_AFTER
    return out


def links(operations: dict[str, str], parameter: str, expression: str) -> dict[str, Any]:
    """Response links: each name to an operation fed ``parameter`` from ``expression``."""
    return {
        name: {"operationId": target, "parameters": {parameter: expression}}
        for name, target in operations.items()
    }


def _dependencies(dependant: Dependant) -> Iterator[object]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _dependencies(sub)


def _complete(op: dict[str, Any], dependant: Dependant, bodies: list[type[BaseModel]]) -> None:
    """Adds to the operation ``op`` what its route's dependencies check and read."""
    calls = list(_dependencies(dependant))
    scopes = list(dict.fromkeys(c.scope for c in calls if isinstance(c, KeyWithScope)))
    op["x-scopes"] = scopes
    text = op.get("description", "")
    if scopes:
        prefix = "Scope: " + ", ".join(f"`{s}`" for s in scopes) + "."
    else:
        prefix = "Needs no key."
        op["security"] = []
    op["description"] = f"{prefix}\n\n{text}".strip()
    body = next((c for c in calls if isinstance(c, JsonBody)), None)
    if body is not None:
        ref = {"$ref": REF.format(model=body.model.__name__)}
        op["requestBody"] = {
            "required": body.required,
            "content": {"application/json": {"schema": ref}},
        }
        bodies.append(body.model)
    default_422 = op["responses"].get("422", {}).get("content", {}).get("application/json", {})
    if default_422.get("schema", {}).get("$ref", "").endswith("/HTTPValidationError"):
        del op["responses"]["422"]


def _api_routes(app: FastAPI) -> Iterator[RouteContext]:
    """The documented routes, as mounted (with their routers' prefixes)."""
    for route in iter_route_contexts(app.routes):
        if isinstance(route.original_route, APIRoute) and route.include_in_schema:
            yield route


def _preflight(path: str, operations: dict[str, Any]) -> dict[str, Any]:
    parameters = {
        p["name"]: p
        for op in operations.values()
        for p in op.get("parameters", ())
        if p["in"] == "path"
    }
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
        doc["parameters"] = list(parameters.values())
    return doc


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``app``."""
    doc = get_openapi(
        title=TITLE,
        version=API_VERSION,
        description=DESCRIPTION,
        routes=app.routes,
        # one schema per model, as it validates: the output models drop absent fields in a
        # serializer, so their serialization schemas would say nothing
        separate_input_output_schemas=False,
    )
    bodies: list[type[BaseModel]] = []
    for route in _api_routes(app):
        for method in route.methods or ():
            _complete(doc["paths"][route.path_format][method.lower()], route.dependant, bodies)
    components = doc.setdefault("components", {})
    known = components.setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        known.pop(name, None)
    if bodies:
        _, top = models_json_schema([(m, "validation") for m in bodies], ref_template=REF)
        for name, schema in top.get("$defs", {}).items():
            known.setdefault(name, schema)
    components["schemas"] = dict(sorted(known.items()))
    for path, operations in doc["paths"].items():
        if any(op["x-scopes"] for op in operations.values()):
            operations["options"] = _preflight(path, operations)
    return doc
