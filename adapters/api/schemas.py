"""Bodies that only the HTTP layer knows: errors, health, lists, share links, PDF requests."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, StrictInt

from adapters.planning.schemas import (
    CargoCatalogItem,
    CatalogContainer,
    CatalogPalletTemplate,
    CatalogVehicle,
    RequestBody,
)


class ErrorBody(BaseModel):
    error: str = Field(description="A code (auth_invalid, scope_denied) or a sentence.")


class ValidationErrorBody(BaseModel):
    error: Literal["validation_failed"]
    fieldErrors: dict[str, list[str]] = Field(
        description="JSON path of the field (``cargos[0].lengthCm``, ``body`` for the root) "
        "to its messages."
    )


class RateLimitErrorBody(BaseModel):
    error: Literal["rate_limited"]
    retryAfterSec: int = Field(ge=1)


class QuotaErrorBody(BaseModel):
    error: Literal["quota_exceeded"]
    retryAfterSec: int = Field(ge=1, description="Seconds to the next quota period.")


class CapacityErrorBody(BaseModel):
    error: Literal["compute_capacity_exceeded", "render_capacity_exceeded"] = Field(
        description="compute_capacity_exceeded: no free compute slot, or the rate-limit store "
        "does not answer; render_capacity_exceeded: no free render slot."
    )
    retryAfterSec: int = Field(ge=1)


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded"]
    problems: list[str] = Field(
        default=[],
        description='What does not answer ("database: …", "redis: …"); absent when ok.',
    )


class ContainerList(BaseModel):
    containers: list[CatalogContainer]


class PalletTemplateList(BaseModel):
    palletTemplates: list[CatalogPalletTemplate]


class VehicleList(BaseModel):
    vehicles: list[CatalogVehicle]


class CargoItemList(BaseModel):
    items: list[CargoCatalogItem]


class ShareRequest(RequestBody):
    expiresInHours: StrictInt = Field(default=168, ge=1, le=720)


class ShareResponse(BaseModel):
    shareId: str
    url: str = Field(description="Page with the 3D view; needs no key.")
    expiresAt: dt.datetime


class RenderPdfRequest(RequestBody):
    mode: Literal["summary", "full"] = "summary"
