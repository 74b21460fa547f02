"""Tables of the service's database (SQLModel).

Times are aware UTC (SQLModel's ``UTCDateTime`` keeps them so on SQLite too).
Plans are immutable once stored: the session refuses updates and deletes of :class:`Plan` rows.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Column, Text, UniqueConstraint, event
from sqlalchemy.orm import Mapper
from sqlmodel import Field, SQLModel


def utcnow() -> dt.datetime:
    """Now, in UTC."""
    return dt.datetime.now(dt.UTC)


class Organisation(SQLModel, table=True):
    __tablename__ = "organisation"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, unique=True, index=True)
    created_at: dt.datetime = Field(default_factory=utcnow)


class ApiKey(SQLModel, table=True):
    """An API key; only the SHA-256 digest of the secret is kept."""

    __tablename__ = "api_key"

    id: str = Field(primary_key=True, max_length=40)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    prefix: str = Field(max_length=20)
    digest: str = Field(max_length=64, unique=True, index=True)
    scopes: str = Field(max_length=200)
    sandbox: bool = False
    created_at: dt.datetime = Field(default_factory=utcnow)
    revoked_at: dt.datetime | None = None

    @property
    def scope_set(self) -> frozenset[str]:
        return frozenset(s for s in self.scopes.split(",") if s)


class Plan(SQLModel, table=True):
    """A computed plan; input and result are stored as the JSON the API returns."""

    __tablename__ = "plan"

    seq: int | None = Field(default=None, primary_key=True)
    plan_id: str = Field(max_length=40, unique=True, index=True)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    external_ref: str | None = Field(default=None, max_length=120, index=True)
    source: str = Field(default="API", max_length=8)
    created_at: dt.datetime = Field(default_factory=utcnow)
    input_json: str = Field(sa_column=Column(Text, nullable=False))
    result_json: str = Field(sa_column=Column(Text, nullable=False))


class ShareLink(SQLModel, table=True):
    """A public link to a plan's 3D view; only the token's SHA-256 digest is kept."""

    __tablename__ = "share_link"

    id: str = Field(primary_key=True, max_length=40)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    plan_id: str = Field(foreign_key="plan.plan_id", max_length=40, index=True)
    token_digest: str = Field(max_length=64, unique=True, index=True)
    created_at: dt.datetime = Field(default_factory=utcnow)
    expires_at: dt.datetime


class CargoItem(SQLModel, table=True):
    """An item of an organisation's SKU catalog; ``data_json`` is the item as the API shows it."""

    __tablename__ = "cargo_item"
    __table_args__ = (UniqueConstraint("organisation_id", "sku", name="uq_cargo_item_org_sku"),)

    id: int | None = Field(default=None, primary_key=True)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    sku: str = Field(max_length=64)
    data_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow)
    updated_at: dt.datetime = Field(default_factory=utcnow)


class RouteLane(SQLModel, table=True):
    """An organisation's own lane between two catalog cities; ``data_json`` is the lane as the
    API shows it (its segments)."""

    __tablename__ = "route_lane"
    __table_args__ = (
        UniqueConstraint(
            "organisation_id", "origin_key", "destination_key", name="uq_route_lane_org_pair"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    origin_key: str = Field(max_length=100)
    destination_key: str = Field(max_length=100)
    data_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: dt.datetime = Field(default_factory=utcnow)
    updated_at: dt.datetime = Field(default_factory=utcnow)


class QuotaUsage(SQLModel, table=True):
    """Successful computations of an organisation in one tariff period."""

    __tablename__ = "quota_usage"
    __table_args__ = (UniqueConstraint("organisation_id", "period", name="uq_quota_org_period"),)

    id: int | None = Field(default=None, primary_key=True)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    period: str = Field(max_length=40)
    used: int = 0


class QuotaReservation(SQLModel, table=True):
    """One computation counted in :class:`QuotaUsage` whose request has not finished yet.

    Written with the count and deleted when the request ends (with its plan, or giving the
    count back); one left behind by a server that was killed is given back at the next start.
    ``owner`` names the server process: ``host:pid:nonce``.
    """

    __tablename__ = "quota_reservation"

    id: int | None = Field(default=None, primary_key=True)
    organisation_id: int = Field(foreign_key="organisation.id", index=True)
    period: str = Field(max_length=40)
    owner: str = Field(max_length=300)
    created_at: dt.datetime = Field(default_factory=utcnow)


class JournalEntry(SQLModel, table=True):
    """One request: never bodies or secrets."""

    __tablename__ = "journal_entry"

    id: int | None = Field(default=None, primary_key=True)
    at: dt.datetime = Field(index=True)
    method: str = Field(max_length=10)
    route: str = Field(max_length=200)
    key_id: str | None = Field(default=None, max_length=40, index=True)
    organisation_id: int | None = Field(default=None, index=True)
    status: int
    duration_ms: float


class ImmutablePlanError(RuntimeError):
    """A stored plan was about to be changed or deleted."""


def _refuse_change(mapper: Mapper[Any], connection: Any, target: Plan) -> None:
    raise ImmutablePlanError(f"plan {target.plan_id} is stored and cannot be changed")


event.listen(Plan, "before_update", _refuse_change)
event.listen(Plan, "before_delete", _refuse_change)
