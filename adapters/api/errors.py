"""HTTP errors of the service and the translation of validation errors into field paths.

Routes and dependencies raise :class:`ApiError`; :func:`install_handlers` makes the app answer
it, the framework's own HTTP errors and its request validation errors with the JSON bodies of
the contract, so no framework error shape ever reaches a caller.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.exceptions import RequestValidationError
from pydantic_core import ErrorDetails
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

from adapters.api.responses import json_response

#: Sentences for the errors the router raises itself.
FRAMEWORK_SENTENCES = {
    404: "There is no such endpoint.",
    405: "The endpoint does not allow this method.",
}

#: Most field errors a 422 body lists; the rest are counted under ``body``.
MAX_FIELD_ERRORS = 50

#: Where FastAPI says a request parameter came from; field paths leave it out.
PARAMETER_SOURCES = frozenset({"path", "query", "header", "cookie", "body"})


class ApiError(HTTPException):
    """An error response: ``status_code``, JSON ``body`` and extra ``headers``."""

    def __init__(
        self, status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(status_code=status, detail=dict(body), headers=dict(headers or {}))
        self.body: dict[str, Any] = dict(body)


def auth_invalid() -> ApiError:
    return ApiError(401, {"error": "auth_invalid"})


def scope_denied() -> ApiError:
    return ApiError(403, {"error": "scope_denied"})


def not_found(sentence: str) -> ApiError:
    return ApiError(404, {"error": sentence})


def bad_json(sentence: str) -> ApiError:
    return ApiError(400, {"error": sentence})


def too_large(limit: int) -> ApiError:
    return ApiError(413, {"error": f"The request body is larger than {limit} bytes."})


def _retry(status: int, code: str, seconds: float) -> ApiError:
    whole = max(1, math.ceil(seconds))
    return ApiError(status, {"error": code, "retryAfterSec": whole}, {"Retry-After": str(whole)})


def rate_limited(seconds: float) -> ApiError:
    return _retry(429, "rate_limited", seconds)


def quota_exceeded(seconds: float) -> ApiError:
    return _retry(402, "quota_exceeded", seconds)


def capacity_exceeded(seconds: float) -> ApiError:
    return _retry(503, "compute_capacity_exceeded", seconds)


def render_capacity_exceeded(seconds: float) -> ApiError:
    return _retry(503, "render_capacity_exceeded", seconds)


def internal(sentence: str) -> ApiError:
    return ApiError(500, {"error": sentence})


def validation_failed(field_errors: Mapping[str, Sequence[str]]) -> ApiError:
    """A 422 listing the first :data:`MAX_FIELD_ERRORS` fields; ``body`` counts the others."""
    listed = {k: list(v) for k, v in list(field_errors.items())[:MAX_FIELD_ERRORS]}
    more = len(field_errors) - len(listed)
    if more > 0:
        note = f"… and {more} more field error{'s' if more > 1 else ''}"
        listed.setdefault("body", []).append(note)
    return ApiError(422, {"error": "validation_failed", "fieldErrors": listed})


def json_path(loc: Iterable[int | str], root: str = "body") -> str:
    """``("cargos", 0, "lengthCm")`` → ``"cargos[0].lengthCm"``; ``()`` → ``root``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path or root


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _enum_choices(expected: str) -> str:
    return expected.replace("'", "")


def message(error: ErrorDetails) -> str:
    """A short sentence for one pydantic error ("must be greater than 0")."""
    kind = error["type"]
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    simple = {
        "missing": "is required",
        "extra_forbidden": "is not allowed",
        "string_type": "must be a string",
        "int_type": "must be an integer",
        "int_from_float": "must be an integer",
        "float_type": "must be a number",
        "bool_type": "must be a boolean",
        "list_type": "must be an array",
        "dict_type": "must be an object",
        "model_type": "must be an object",
        "model_attributes_type": "must be an object",
        "date_type": "must be a date in the form YYYY-MM-DD",
        "date_parsing": "must be a date in the form YYYY-MM-DD",
        "date_from_datetime_parsing": "must be a date in the form YYYY-MM-DD",
        "date_from_datetime_inexact": "must be a date in the form YYYY-MM-DD",
        "finite_number": "must be a finite number",
        "json_invalid": "is not valid JSON",
    }
    if kind in simple:
        return simple[kind]
    if kind == "greater_than":
        return f"must be greater than {_number(ctx['gt'])}"
    if kind == "greater_than_equal":
        return f"must be greater than or equal to {_number(ctx['ge'])}"
    if kind == "less_than":
        return f"must be less than {_number(ctx['lt'])}"
    if kind == "less_than_equal":
        return f"must be less than or equal to {_number(ctx['le'])}"
    # (a length bound on a constrained text type is reported as a collection's)
    text = kind.startswith("string_") or isinstance(error.get("input"), str)
    unit = ("character", "characters") if text else ("entry", "entries")
    if kind in ("string_too_short", "too_short"):
        n = ctx["min_length"]
        return "must not be empty" if n == 1 else f"must have at least {n} {unit[n != 1]}"
    if kind in ("string_too_long", "too_long"):
        n = ctx["max_length"]
        return f"must have at most {n} {unit[n != 1]}"
    if kind in ("enum", "literal_error"):
        return f"must be one of {_enum_choices(str(ctx['expected']))}"
    if kind == "string_pattern_mismatch":
        return f"must match the pattern {ctx['pattern']}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return str(error["msg"])


def field_errors(errors: Iterable[ErrorDetails], root: str = "body") -> dict[str, list[str]]:
    """Pydantic errors as ``{json path: [messages]}``."""
    out: dict[str, list[str]] = {}
    for error in errors:
        text = message(error)
        bucket = out.setdefault(json_path(error["loc"], root), [])
        if text not in bucket:
            bucket.append(text)
    return out


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if isinstance(exc, ApiError):
        body = exc.body
    else:
        body = {"error": FRAMEWORK_SENTENCES.get(exc.status_code, str(exc.detail))}
    return json_response(body, exc.status_code, headers=exc.headers or None)


async def _request_invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems: list[ErrorDetails] = []
    for error in exc.errors():
        details: ErrorDetails = error.copy()
        if details["loc"] and details["loc"][0] in PARAMETER_SOURCES:
            details["loc"] = tuple(details["loc"][1:])
        problems.append(details)
    failure = validation_failed(field_errors(problems))
    return json_response(failure.body, failure.status_code)


def install_handlers(app: FastAPI) -> None:
    """Makes ``app`` answer HTTP and validation errors with the contract's bodies."""
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _request_invalid)
