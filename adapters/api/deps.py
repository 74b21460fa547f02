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
import re
import unicodedata
from collections.abc import AsyncIterator
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends
from fastapi.security import APIKeyHeader
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from adapters.api import errors
from adapters.api.limiting import LimiterUnavailable, quota_period
from adapters.api.service import Service
from adapters.store import KeyInfo

M = TypeVar("M", bound=BaseModel)

#: Where the request journal finds the caller's key in the ASGI scope.
AUTH_KEY = "packplan.key"

#: The message of a string that holds an unpaired surrogate escape.
UNPAIRED_SURROGATE = "must be text: an unpaired surrogate (\\uD800-\\uDFFF) is not a character"

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

#: The 400 sentence of a body whose objects and arrays nest deeper than the parser goes.
TOO_DEEP = "The request body nests objects and arrays too deeply to be read."

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
    """The caller's key; 401 ``auth_invalid`` when it is missing, wrong or revoked, or
    the header is given more than once (which of them counts would be a guess)."""
    if not secret or len(request.headers.getlist("x-api-key")) > 1:
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

    Every authenticated compute request counts, whatever its body. When the counters'
    store (Redis) does not answer, nothing is admitted: 503 ``compute_capacity_exceeded``.
    """
    try:
        retry = await service.limiter.hit(key.key_id, sandbox=key.sandbox)
    except LimiterUnavailable:  # Redis is down: no computation can be admitted
        raise errors.capacity_exceeded(service.settings.busy_retry_after_s) from None
    if retry is not None:
        raise errors.rate_limited(retry)
    return key


RateLimitedComputeKey = Annotated[KeyInfo, Depends(within_rate_limit)]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


#: Digits of the longest integer literal read as written: Python refuses to convert longer
#: text (its guard against quadratic work, 4,300 digits). A longer one is still valid JSON;
#: it is read as a number beyond every bound, so its field is refused by name (422).
MAX_INT_DIGITS = 4_000
_BEYOND: int = 10**MAX_INT_DIGITS


def _parse_int(text: str) -> int:
    if len(text) - text.startswith("-") <= MAX_INT_DIGITS:
        return int(text)
    return -_BEYOND if text.startswith("-") else _BEYOND


def control_problem(text: str) -> str | None:
    """The field message for ``text`` when it holds a control character (NUL, escapes, line
    breaks), as body fields word it; None when it holds none."""
    bad = next((c for c in text if unicodedata.category(c) == "Cc"), None)
    if bad is None:
        return None
    return f"must not contain control characters (found U+{ord(bad):04X})"


def path_value(value: str, missing: str) -> str:
    """A value from the URL path; one with a control character names nothing: 404 with the
    ``missing`` sentence, before it reaches the database (PostgreSQL refuses NUL in text)."""
    if control_problem(value) is not None:
        raise errors.not_found(missing)
    return value


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate_path(body: Any) -> str | None:
    """JSON path of the first string (or property name) holding an unpaired surrogate.

    JSON may escape one (``"\\ud800"``), but it is no text: such strings can be neither
    stored nor sent back. A property name with one is reported at its object's path.
    """
    stack: list[tuple[Any, str]] = [(body, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if not _is_text(value):
                return path or "body"
        elif isinstance(value, dict):
            if not all(_is_text(name) for name in value):
                return path or "body"
            items = [(v, f"{path}.{k}" if path else k) for k, v in value.items()]
            stack.extend(reversed(items))
        elif isinstance(value, list):
            stack.extend(reversed([(v, f"{path}[{i}]") for i, v in enumerate(value)]))
    return None


#: The field message for a property name an object holds more than once.
REPEATED_NAME = "is given more than once in its object; each property may appear once"


class _Repeated(dict[str, Any]):
    """A JSON object that named a property more than once (``repeated``: those names)."""

    repeated: list[str]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object from its pairs; one that repeats a name is marked (:class:`_Repeated`):
    readers differ on which value counts (the first, the last), so no value is taken."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Repeated(obj)
    seen: set[str] = set()
    again: dict[str, None] = {}  # in the order of their second appearance, each once
    for name, _ in pairs:
        if name in seen:
            again[name] = None
        seen.add(name)
    marked.repeated = list(again)
    return marked


def _repeated_paths(body: Any) -> dict[str, list[str]]:
    """Field errors of every property name repeated in its object, by JSON path, in the
    order of the document (an object's own names before those within its values)."""
    found: dict[str, list[str]] = {}
    stack: list[tuple[Any, str]] = [(body, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for name in getattr(value, "repeated", ()):
                found[f"{path}.{name}" if path else name] = [REPEATED_NAME]
            items = [(v, f"{path}.{k}" if path else k) for k, v in value.items()]
            stack.extend(reversed(items))
        elif isinstance(value, list):
            stack.extend(reversed([(v, f"{path}[{i}]") for i, v in enumerate(value)]))
    return found


class JsonBody(Generic[M]):
    """Dependency: the request body as ``model``.

    400 when the body is not JSON (or empty while ``required``), then 413 when it is larger
    than the limit, then 422 when it is not a JSON object, names a property twice in one
    object (every such name, by path) or is not a valid ``model``. An absent
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
            # decoded here as json.loads would (UTF-8, -16 or -32), so that the escape check
            # below reads characters, whatever the bytes
            text = raw.decode(json.detect_encoding(raw))
            repeated = False

            def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
                nonlocal repeated
                obj = _object(pairs)
                repeated = repeated or isinstance(obj, _Repeated)
                return obj

            body = json.loads(
                text,
                parse_constant=_reject_constant,
                parse_int=_parse_int,
                object_pairs_hook=pairs_hook,
            )
        except ValueError:
            raise errors.bad_json("The request body is not valid JSON.") from None
        except RecursionError:
            # valid JSON, maybe, but deeper than the parser goes (RFC 8259 lets a parser
            # bound the depth): said as what it is
            raise errors.bad_json(TOO_DEEP) from None
        if size > limit:
            raise errors.too_large(limit)
        if not isinstance(body, dict):
            raise errors.validation_failed({"body": ["must be a JSON object"]})
        bad = _surrogate_path(body) if _SURROGATE_ESCAPE.search(text) else None
        if bad is not None:
            raise errors.validation_failed({bad: [UNPAIRED_SURROGATE]})
        if repeated:
            raise errors.validation_failed(_repeated_paths(body))
        try:
            return self.model.model_validate(body)
        except ValidationError as exc:
            raise errors.validation_failed(errors.field_errors(exc.errors())) from None


async def reserved_quota(key: RateLimitedComputeKey, service: ServiceDep) -> AsyncIterator[int]:
    """Reserves one computation of the organisation's quota (402 ``quota_exceeded``).

    Only successful computations use quota: the reservation is given back when the request
    fails after it, and settled when its plan is saved (``Store.save_plan``). Yields the id of
    the reservation's record; the service gives back at start the reservations of a server
    that was killed before it could settle them (``Store.reclaim_reservations``).
    """
    period, seconds_left = quota_period(dt.datetime.now(dt.UTC), sandbox=key.sandbox)
    settings = service.settings
    limit = settings.quota_sandbox_per_day if key.sandbox else settings.quota_production_per_month
    reservation = await service.db(
        service.store.reserve_quota_for, key.organisation_id, period, limit, service.owner
    )
    if reservation is None:
        raise errors.quota_exceeded(seconds_left)
    try:
        yield reservation
    except BaseException:
        await service.db(service.store.release_reservation, reservation)
        raise
