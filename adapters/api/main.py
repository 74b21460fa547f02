"""The REST service (FastAPI): the v1 contract of the interface specification (docs/http.md).

Run it with ``packplan serve`` or ``uvicorn --factory adapters.api.main:create_app --http
adapters.api.http_protocol:JsonErrorsH11Protocol`` (without ``--http``, a request the HTTP
parser refuses gets uvicorn's plain-text 400).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from adapters.api.errors import install_handlers
from adapters.api.middleware import (
    Cors,
    HeadAsGet,
    HostCheck,
    InternalErrorMiddleware,
    JournalMiddleware,
)
from adapters.api.openapi import API_VERSION, DESCRIPTION, TITLE, build_openapi
from adapters.api.routes import api_router
from adapters.api.service import Service
from adapters.api.settings import Settings


class PackPlanApi(FastAPI):
    """FastAPI with the service's OpenAPI document (see :mod:`adapters.api.openapi`)."""

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            self.openapi_schema = build_openapi(self)
        return self.openapi_schema


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application; its parts are in ``app.state.service``."""
    service = Service(settings or Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.stop()

    app = PackPlanApi(
        title=TITLE,
        version=API_VERSION,
        description=DESCRIPTION,
        openapi_url=None,  # served by a route of its own, which the document lists
        docs_url=None,
        redoc_url=None,
        # a path with a trailing slash is an unknown path (404), not a redirect that a client
        # would follow with its key to an address built from the request
        redirect_slashes=False,
        lifespan=lifespan,
    )
    app.state.service = service
    app.include_router(api_router)
    install_handlers(app)
    origins = [o.strip() for o in service.settings.cors_origins.split(",") if o.strip()]
    # added innermost first: the journal sees every answer (the Host check's 400s too), CORS
    # headers go on the 500s too
    app.add_middleware(HeadAsGet)
    app.add_middleware(InternalErrorMiddleware)
    app.add_middleware(
        Cors,
        allow_origins=origins,
        allow_methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"],
        allow_headers=["X-Api-Key", "Content-Type"],
        expose_headers=["Retry-After"],
        max_age=600,
    )
    app.add_middleware(HostCheck, allowed=service.settings.host_names())
    app.add_middleware(JournalMiddleware, journal=service.journal)
    return app
