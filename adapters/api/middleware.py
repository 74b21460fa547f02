"""ASGI middleware of the service, outermost first: the request journal, the Host check, CORS,
a JSON 500, HEAD as GET.

- :class:`JournalMiddleware` writes every request to the journal: time, method, route
  template, key id, organisation, status and duration; never bodies or secrets.
- :class:`HostCheck` answers 400 to a request whose ``Host`` the service does not answer.
- :class:`Cors` is Starlette's CORS middleware, with every ``OPTIONS`` request answered 204 and
  empty, whatever its path (docs/http.md).
- :class:`InternalErrorMiddleware` turns anything unforeseen into ``{"error": "Internal server
  error."}`` without internals, and logs where it happened, never what it said.
- :class:`HeadAsGet` answers ``HEAD`` as ``GET`` without the body.
"""

from __future__ import annotations

import logging
import re
import time
import traceback
from collections.abc import Iterable

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


#: A ``Host`` value as HTTP defines it: a bracketed IP literal or a name of URI host
#: characters, then an optional ``:port``. Anything else (``/``, ``?``, ``#``, ``@``, ``\\``,
#: spaces, a port that is no number) names no host: the request's URL, which share links are
#: built from, would fall back to the server's own address.
_HOST_SYNTAX = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(:[0-9]*)?")


def _host_name(host: str) -> str:
    """``Host`` without its port, lower case: ``[::1]:8000`` → ``[::1]``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostCheck:
    """400 ``{"error": …}`` for a request whose ``Host`` is not one of ``allowed``.

    ``allowed`` holds host names without ports; ``*`` allows any host, ``*.example.org`` the
    names under example.org. A request without ``Host`` is refused too. So the base URL a
    request came to, which share links are built from, is always one the operator named.
    """

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        names = {_host_name(a) for a in allowed}
        self.any = "*" in names
        self.exact = frozenset(n for n in names if not n.startswith("*."))
        self.suffixes = tuple(n[1:] for n in names if n.startswith("*."))

    def allows(self, host: str | None) -> bool:
        if self.any:
            return True
        if not host or not _HOST_SYNTAX.fullmatch(host.strip()):
            return False
        name = _host_name(host)
        return name in self.exact or (bool(self.suffixes) and name.endswith(self.suffixes))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allows(
            Headers(scope=scope).get("host")
        ):
            await self.app(scope, receive, send)
            return
        response = json_response(
            {"error": "The Host header names a host this service does not serve."}, 400
        )
        await response(scope, receive, send)


def describe(exc: BaseException) -> str:
    """Where ``exc`` (and the exceptions it came from) was raised: types and frames only.

    Messages are left out: they may quote a request's body or a statement's parameters. For a
    database error the statement (without parameters) and SQLSTATE are kept.
    """
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = type(current)
        head = f"{kind.__module__}.{kind.__qualname__}"
        statement = getattr(current, "statement", None)
        if isinstance(statement, str):
            head += f" [SQL: {statement.strip()}]"
        sqlstate = getattr(getattr(current, "orig", None), "sqlstate", None)
        if isinstance(sqlstate, str):
            head += f" [SQLSTATE {sqlstate}]"
        frames = "".join(traceback.format_list(traceback.extract_tb(current.__traceback__)))
        parts.append(f"{head}\n{frames}".rstrip())
        if current.__cause__ is not None:
            current = current.__cause__
        else:
            current = None if current.__suppress_context__ else current.__context__
    return "\n-- which came from --\n".join(parts)


class HeadAsGet:
    """``HEAD`` answered as ``GET`` without the body (RFC 9110 §9.3.2): the same status and
    headers, ``Content-Length`` among them, so a monitor's ``HEAD /api/health`` or ``curl -I``
    sees what a ``GET`` would. The journal still records ``HEAD``; a path without ``GET``
    answers 405 as for any other method."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        # the scope is changed in place and put back: the routes, the key check and the
        # journal keep writing to the one scope the outer middleware read
        scope["method"] = "GET"
        try:
            await self.app(scope, receive, send_headers_only)
        finally:
            scope["method"] = "HEAD"


class InternalErrorMiddleware:
    """A JSON 500 for any exception that no handler answered; the log says where it was
    raised (:func:`describe`), never its message, the request body or SQL parameters."""

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
        except Exception as exc:
            log.error(
                "unhandled %s on %s %s\n%s",
                type(exc).__name__,
                scope["method"],
                _route_template(scope),
                describe(exc),
            )
            if not started:
                response = json_response({"error": "Internal server error."}, 500)
                await response(scope, receive, send)
