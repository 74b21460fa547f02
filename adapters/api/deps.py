"""Dependencies of the routes, in the order the contract checks them.

FastAPI resolves a route's dependencies in the order its parameters are declared, each after
the ones it depends on. A keyed route takes its key through :class:`KeyWithScope` (401
``auth_invalid``, then 403 ``scope_denied``); compute adds the per-key rate limit (429), its
body (:class:`JsonBody`: 400, 413, 422) and the organisation's quota (402), in that order
(docs/http.md).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends
from fastapi.security import APIKeyHeader
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from adapters.api import errors
from adapters.api.limiting import quota_period
from adapters.api.service import Service
from adapters.store import KeyInfo

M = TypeVar("M", bound=BaseModel)

#: Where the request journal finds the caller's key in the ASGI scope.
AUTH_KEY = "packplan.key"

#: Bodies are read up to this many times the size limit; a longer one is refused unread.
HARD_BODY_FACTOR = 4


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


ServiceDep = Annotated[Service, Depends(get_service)]

api_key_header = APIKeyHeader(
    name="X-Api-Key",
    scheme_name="ApiKey",
    description="tbp_ followed by the secret; issued with `packplan keys issue`.",
    auto_error=False,
)


async def authenticated(
    request: Request,
    service: ServiceDep,
    secret: Annotated[str | None, Depends(api_key_header)],
) -> KeyInfo:
    """The caller's key; 401 ``auth_invalid`` when it is missing, wrong or revoked."""
    if not secret:
        raise errors.auth_invalid()
    key = await service.db(service.store.authenticate, secret)
    if key is None:
        raise errors.auth_invalid()
    request.scope[AUTH_KEY] = key
    return key


class KeyWithScope:
    """Dependency: the caller's key, which must hold ``scope`` (403 ``scope_denied``).

    The OpenAPI document reads the scope of every operation from this dependency.
    """

    def __init__(self, scope: str) -> None:
        self.scope = scope

    async def __call__(self, key: Annotated[KeyInfo, Depends(authenticated)]) -> KeyInfo:
        if self.scope not in key.scopes:
            raise errors.scope_denied()
        return key


ComputeKey = Annotated[KeyInfo, Depends(KeyWithScope("packing:compute"))]
ReadKey = Annotated[KeyInfo, Depends(KeyWithScope("packing:read"))]
CatalogReadKey = Annotated[KeyInfo, Depends(KeyWithScope("catalog:read"))]
CatalogWriteKey = Annotated[KeyInfo, Depends(KeyWithScope("catalog:write"))]


async def within_rate_limit(key: ComputeKey, service: ServiceDep) -> KeyInfo:
    """The compute key, counted against its rate limit (429 ``rate_limited``).

    Every authenticated compute request counts, whatever its body.
    """
    retry = await service.limiter.hit(key.key_id, sandbox=key.sandbox)
    if retry is not None:
        raise errors.rate_limited(retry)
    return key


RateLimitedComputeKey = Annotated[KeyInfo, Depends(within_rate_limit)]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class JsonBody(Generic[M]):
    """Dependency: the request body as ``model``.

    400 when the body is not JSON (or empty while ``required``), then 413 when it is larger
    than the limit, then 422 when it is not a JSON object or not a valid ``model``. An absent
    optional body is ``model()``; a JSON ``null`` is a body, and not an object. The OpenAPI
    document reads the request body of every operation from this dependency.
    """

    def __init__(self, model: type[M], *, required: bool = True) -> None:
        self.model = model
        self.required = required

    async def __call__(self, request: Request, service: ServiceDep) -> M:
        limit = service.settings.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit * HARD_BODY_FACTOR:
                raise errors.too_large(limit)
            chunks.append(chunk)
        raw = b"".join(chunks)
        if not raw.strip():
            if self.required:
                raise errors.bad_json("The request body is empty; a JSON object is expected.")
            return self.model()
        try:
            body = json.loads(raw, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            raise errors.bad_json("The request body is not valid JSON.") from None
        if size > limit:
            raise errors.too_large(limit)
        if not isinstance(body, dict):
            raise errors.validation_failed({"body": ["must be a JSON object"]})
        try:
            return self.model.model_validate(body)
        except ValidationError as exc:
            raise errors.validation_failed(errors.field_errors(exc.errors())) from None


async def reserved_quota(key: RateLimitedComputeKey, service: ServiceDep) -> AsyncIterator[None]:
    """Reserves one computation of the organisation's quota (402 ``quota_exceeded``).

    Only successful computations use quota: the reservation is given back when the request
    fails after it.
    """
    period, seconds_left = quota_period(dt.datetime.now(dt.UTC), sandbox=key.sandbox)
    settings = service.settings
    limit = settings.quota_sandbox_per_day if key.sandbox else settings.quota_production_per_month
    if not await service.db(service.store.reserve_quota, key.organisation_id, period, limit):
        raise errors.quota_exceeded(seconds_left)
    try:
        yield
    except BaseException:
        await service.db(service.store.release_quota, key.organisation_id, period)
        raise
