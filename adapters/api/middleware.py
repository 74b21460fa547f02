"""ASGI middleware of the service, outermost first: the request journal, CORS, a JSON 500.

- :class:`JournalMiddleware` writes every request to the journal: time, method, route
  template, key id, organisation, status and duration; never bodies or secrets.
- :class:`Cors` is Starlette's CORS middleware, with every ``OPTIONS`` request answered 204 and
  empty, whatever its path (docs/http.md).
- :class:`InternalErrorMiddleware` turns anything unforeseen into ``{"error": "Internal server
  error."}`` without internals, and logs it.
"""

from __future__ import annotations

import logging
import time

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.api.deps import AUTH_KEY
from adapters.api.journal import JournalWriter
from adapters.api.responses import json_response
from adapters.store import KeyInfo

log = logging.getLogger(__name__)

NO_ROUTE = "(no route)"


class JournalMiddleware:
    """Records every request in ``journal`` once its answer has been sent."""

    def __init__(self, app: ASGIApp, journal: JournalWriter) -> None:
        self.app = app
        self.journal = journal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            key: KeyInfo | None = scope.get(AUTH_KEY)
            self.journal.record(
                method=scope["method"],
                route=_route_template(scope),
                key_id=key.key_id if key else None,
                organisation_id=key.organisation_id if key else None,
                status=status,
                duration_ms=(time.perf_counter() - started) * 1000,
            )


def _route_template(scope: Scope) -> str:
    template = getattr(scope.get("route"), "path", None)
    if template:
        return str(template)
    if scope["method"] == "OPTIONS" and scope["path"].startswith("/api/"):
        return str(scope["path"])
    return NO_ROUTE


class Cors(CORSMiddleware):
    """Starlette's CORS middleware; every ``OPTIONS`` request is a preflight answered 204.

    A preflight that Starlette would refuse with a 400 (an origin, method or header not
    allowed) gets the 204 with the headers Starlette sends then; they do not allow what was
    asked, and the browser takes that as a refusal.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "OPTIONS":
            await super().__call__(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if "origin" in headers and "access-control-request-method" in headers:
            answer = self.preflight_response(request_headers=headers)
            allowing = {
                k: v
                for k, v in answer.headers.items()
                if k.lower().startswith("access-control-") or k.lower() == "vary"
            }
        else:
            allowing = dict(self.preflight_headers)
        await Response(status_code=204, headers=allowing)(scope, receive, send)


class InternalErrorMiddleware:
    """A JSON 500 for any exception that no handler answered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_and_note(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        except Exception:
            log.exception("unhandled error on %s %s", scope["method"], _route_template(scope))
            if not started:
                response = json_response({"error": "Internal server error."}, 500)
                await response(scope, receive, send)
