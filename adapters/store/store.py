"""Reading and writing the service's records.

Every method opens its own short transaction, so one :class:`Store` serves many threads.
Identifiers and secrets come from :mod:`secrets`; secrets are kept only as SHA-256 digests.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, func, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from adapters.store.models import (
    ApiKey,
    CargoItem,
    JournalEntry,
    Organisation,
    Plan,
    QuotaReservation,
    QuotaUsage,
    RouteLane,
    ShareLink,
    utcnow,
)

#: Scopes a key can hold (interface spec, Authentication).
SCOPES: tuple[str, ...] = ("packing:compute", "packing:read", "catalog:read", "catalog:write")

KEY_PREFIX = "tbp_"
_PUBLIC_PREFIX_CHARS = 8  # characters of the secret shown in listings after "tbp_"


def digest(secret: str) -> str:
    """SHA-256 of ``secret`` as 64 hex digits."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_plan_id() -> str:
    """``pln_`` + 160 random bits, URL-safe."""
    return "pln_" + secrets.token_urlsafe(20)


#: This process as the owner of quota reservations: ``host:pid:nonce``.
PROCESS_OWNER = f"{socket.gethostname()[:200]}:{os.getpid()}:{secrets.token_hex(6)}"


def owner_gone(owner: str, current: str = PROCESS_OWNER) -> bool:
    """True when ``owner`` is a server process of this host that no longer runs.

    Another host's process cannot be checked from here (False); a process of this host is
    gone when its pid does not exist, or when it is this process's pid with another nonce.
    """
    if owner == current:
        return False
    host, pid_text, _ = [*owner.rsplit(":", 2), "", ""][:3]
    if host != current.rsplit(":", 2)[0] or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists (perhaps as another user's process)
        return False
    return False


class UnknownScopeError(ValueError):
    """A scope that does not exist; the message lists the valid ones."""

    def __init__(self, scope: str) -> None:
        super().__init__(f"unknown scope {scope!r}; expected some of {', '.join(SCOPES)}")


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """What a valid API key stands for."""

    key_id: str
    organisation_id: int
    organisation: str
    scopes: frozenset[str]
    sandbox: bool


@dataclass(frozen=True, slots=True)
class JournalRow:
    """A journal entry with its organisation's name."""

    entry: JournalEntry
    organisation: str | None


class Store:
    """The service's records in the database behind ``engine``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def _insert(self, table: type[object]) -> sqlite.Insert | postgresql.Insert:
        if self.engine.dialect.name == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)

    # ----------------------------------------------------------------- organisations, keys

    def organisation(self, name: str, *, create: bool = True) -> Organisation | None:
        """The organisation called ``name``, created on first use when ``create``."""
        with self._session() as session:
            if create:
                session.execute(
                    self._insert(Organisation)
                    .values(name=name, created_at=utcnow())
                    .on_conflict_do_nothing(index_elements=["name"])
                )
                session.commit()
            return session.exec(select(Organisation).where(Organisation.name == name)).first()

    def issue_key(
        self, organisation: str, scopes: Iterable[str], *, sandbox: bool = False
    ) -> tuple[ApiKey, str]:
        """A new key for ``organisation``; returns the stored row and the secret (shown once)."""
        wanted = sorted(set(scopes))
        for scope in wanted:
            if scope not in SCOPES:
                raise UnknownScopeError(scope)
        org = self.organisation(organisation)
        assert org is not None and org.id is not None  # created above
        secret = KEY_PREFIX + secrets.token_urlsafe(32)
        row = ApiKey(
            id="key_" + secrets.token_urlsafe(9),
            organisation_id=org.id,
            prefix=secret[: len(KEY_PREFIX) + _PUBLIC_PREFIX_CHARS],
            digest=digest(secret),
            scopes=",".join(wanted),
            sandbox=sandbox,
        )
        with self._session() as session:
            session.add(row)
            session.commit()
        return row, secret

    def list_keys(self, organisation: str) -> list[ApiKey]:
        """Keys of ``organisation``, oldest first (none when it does not exist)."""
        with self._session() as session:
            rows = session.exec(
                select(ApiKey)
                .join(Organisation)
                .where(Organisation.name == organisation)
                .order_by(col(ApiKey.created_at), col(ApiKey.id))
            ).all()
            return list(rows)

    def revoke_key(self, key_id: str) -> bool:
        """Revokes the key; False when no such key is active."""
        with self._session() as session:
            result = session.execute(
                update(ApiKey)
                .where(col(ApiKey.id) == key_id, col(ApiKey.revoked_at).is_(None))
                .values(revoked_at=utcnow())
            )
            session.commit()
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def authenticate(self, secret: str) -> KeyInfo | None:
        """The active key whose secret is ``secret``, or None."""
        if not secret.startswith(KEY_PREFIX):
            return None
        with self._session() as session:
            row = session.exec(
                select(ApiKey, Organisation)
                .join(Organisation)
                .where(ApiKey.digest == digest(secret), col(ApiKey.revoked_at).is_(None))
            ).first()
        if row is None:
            return None
        key, org = row
        assert org.id is not None
        return KeyInfo(key.id, org.id, org.name, key.scope_set, key.sandbox)

    # ----------------------------------------------------------------- plans

    def save_plan(
        self,
        organisation_id: int,
        *,
        input_json: str,
        result_json: str,
        external_ref: str | None,
        source: str = "API",
        reservation_id: int | None = None,
    ) -> Plan:
        """Stores a new plan under a fresh planId.

        ``reservation_id``: the quota reservation of the computation, settled (its record
        deleted, the count kept) in the same transaction.
        """
        plan = Plan(
            plan_id=new_plan_id(),
            organisation_id=organisation_id,
            external_ref=external_ref,
            source=source,
            input_json=input_json,
            result_json=result_json,
        )
        with self._session() as session:
            session.add(plan)
            if reservation_id is not None:
                session.execute(
                    delete(QuotaReservation).where(col(QuotaReservation.id) == reservation_id)
                )
            session.commit()
        return plan

    def plan(self, organisation_id: int, plan_id: str) -> Plan | None:
        """The organisation's plan ``plan_id``; None when missing or another's."""
        with self._session() as session:
            return session.exec(
                select(Plan).where(Plan.plan_id == plan_id, Plan.organisation_id == organisation_id)
            ).first()

    def latest_plan(self, organisation_id: int, external_ref: str) -> Plan | None:
        """The organisation's newest plan whose externalRef is ``external_ref``."""
        with self._session() as session:
            return session.exec(
                select(Plan)
                .where(Plan.external_ref == external_ref, Plan.organisation_id == organisation_id)
                .order_by(col(Plan.created_at).desc(), col(Plan.seq).desc())
                .limit(1)
            ).first()

    def count_plans(self, organisation_id: int | None = None) -> int:
        """Number of stored plans (of one organisation when given)."""
        with self._session() as session:
            query = select(func.count()).select_from(Plan)
            if organisation_id is not None:
                query = query.where(Plan.organisation_id == organisation_id)
            return int(session.exec(query).one())

    # ----------------------------------------------------------------- share links

    def create_share(
        self, organisation_id: int, plan_id: str, expires_in: dt.timedelta
    ) -> tuple[ShareLink, str]:
        """A share link to the plan; returns the row and its token (shown once)."""
        token = secrets.token_urlsafe(24)
        now = utcnow()
        row = ShareLink(
            id="shr_" + secrets.token_urlsafe(12),
            organisation_id=organisation_id,
            plan_id=plan_id,
            token_digest=digest(token),
            created_at=now,
            expires_at=now + expires_in,
        )
        with self._session() as session:
            session.add(row)
            session.commit()
        return row, token

    def shared_plan(self, token: str, now: dt.datetime | None = None) -> Plan | None:
        """The plan behind an unexpired share token, or None."""
        when = now or utcnow()
        with self._session() as session:
            row = session.exec(
                select(Plan)
                .join(ShareLink, col(ShareLink.plan_id) == col(Plan.plan_id))
                .where(ShareLink.token_digest == digest(token), ShareLink.expires_at > when)
            ).first()
            return row

    def revoke_share(self, organisation_id: int, plan_id: str, share_id: str) -> bool:
        """Deletes a share link of the organisation's plan; False when there is none."""
        with self._session() as session:
            result = session.execute(
                delete(ShareLink).where(
                    col(ShareLink.id) == share_id,
                    col(ShareLink.plan_id) == plan_id,
                    col(ShareLink.organisation_id) == organisation_id,
                )
            )
            session.commit()
            return bool(result.rowcount)  # type: ignore[attr-defined]

    # ----------------------------------------------------------------- SKU catalog

    def cargo_items(self, organisation_id: int) -> list[CargoItem]:
        with self._session() as session:
            return list(
                session.exec(
                    select(CargoItem)
                    .where(CargoItem.organisation_id == organisation_id)
                    .order_by(col(CargoItem.sku))
                ).all()
            )

    def cargo_items_by_sku(self, organisation_id: int, skus: Sequence[str]) -> dict[str, str]:
        """``{sku: data_json}`` of those ``skus`` the organisation has."""
        if not skus:
            return {}
        with self._session() as session:
            rows = session.exec(
                select(CargoItem).where(
                    CargoItem.organisation_id == organisation_id, col(CargoItem.sku).in_(skus)
                )
            ).all()
            return {r.sku: r.data_json for r in rows}

    def cargo_item(self, organisation_id: int, sku: str) -> CargoItem | None:
        with self._session() as session:
            return session.exec(
                select(CargoItem).where(
                    CargoItem.organisation_id == organisation_id, CargoItem.sku == sku
                )
            ).first()

    def create_cargo_item(self, organisation_id: int, sku: str, data_json: str) -> bool:
        """Adds an item; False when the organisation already has ``sku``."""
        with self._session() as session:
            session.add(CargoItem(organisation_id=organisation_id, sku=sku, data_json=data_json))
            try:
                session.commit()
            except IntegrityError:
                session.rollback()
                return False
        return True

    def replace_cargo_item(self, organisation_id: int, sku: str, data_json: str) -> bool:
        """Replaces an item; False when the organisation has no ``sku``."""
        with self._session() as session:
            result = session.execute(
                update(CargoItem)
                .where(col(CargoItem.organisation_id) == organisation_id, col(CargoItem.sku) == sku)
                .values(data_json=data_json, updated_at=utcnow())
            )
            session.commit()
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def delete_cargo_item(self, organisation_id: int, sku: str) -> bool:
        """Deletes an item; False when the organisation has no ``sku``."""
        with self._session() as session:
            row = session.exec(
                select(CargoItem).where(
                    CargoItem.organisation_id == organisation_id, CargoItem.sku == sku
                )
            ).first()
            if row is None:
                return False
            session.delete(row)
            session.commit()
            return True

    # ----------------------------------------------------------------- organisation lanes

    def route_lanes(self, organisation_id: int) -> list[RouteLane]:
        """Every lane of the organisation, by origin then destination."""
        with self._session() as session:
            return list(
                session.exec(
                    select(RouteLane)
                    .where(RouteLane.organisation_id == organisation_id)
                    .order_by(col(RouteLane.origin_key), col(RouteLane.destination_key))
                ).all()
            )

    @staticmethod
    def _lane_pair(organisation_id: int, origin: str, destination: str) -> tuple[Any, ...]:
        """The condition that selects one organisation's lane for a city pair."""
        return (
            col(RouteLane.organisation_id) == organisation_id,
            col(RouteLane.origin_key) == origin,
            col(RouteLane.destination_key) == destination,
        )

    def route_lane(self, organisation_id: int, origin: str, destination: str) -> RouteLane | None:
        with self._session() as session:
            pair = self._lane_pair(organisation_id, origin, destination)
            return session.exec(select(RouteLane).where(*pair)).first()

    def put_route_lane(
        self, organisation_id: int, origin: str, destination: str, data_json: str
    ) -> bool:
        """Stores a lane, replacing the pair's lane if any; True when it was created."""
        pair = self._lane_pair(organisation_id, origin, destination)
        replace = update(RouteLane).where(*pair).values(data_json=data_json, updated_at=utcnow())
        with self._session() as session:
            if session.execute(replace).rowcount:  # type: ignore[attr-defined]
                session.commit()
                return False
            session.add(
                RouteLane(
                    organisation_id=organisation_id,
                    origin_key=origin,
                    destination_key=destination,
                    data_json=data_json,
                )
            )
            try:
                session.commit()
            except IntegrityError:  # a concurrent PUT created it first: replace it
                session.rollback()
                session.execute(replace)
                session.commit()
                return False
        return True

    def delete_route_lane(self, organisation_id: int, origin: str, destination: str) -> bool:
        """Deletes a lane; False when the organisation has none for the pair."""
        with self._session() as session:
            pair = self._lane_pair(organisation_id, origin, destination)
            row = session.exec(select(RouteLane).where(*pair)).first()
            if row is None:
                return False
            session.delete(row)
            session.commit()
            return True

    # ----------------------------------------------------------------- quotas

    def reserve_quota(self, organisation_id: int, period: str, limit: int) -> bool:
        """Counts one computation in ``period`` unless ``limit`` is reached (atomically)."""
        with self._session() as session:
            counted = self._count(session, organisation_id, period, limit)
            session.commit()
            return counted

    def reserve_quota_for(
        self, organisation_id: int, period: str, limit: int, owner: str = PROCESS_OWNER
    ) -> int | None:
        """:meth:`reserve_quota` with a record of the reservation, written in the same
        transaction; returns the record's id, or None when ``limit`` is reached.

        The record is deleted by :meth:`save_plan` (the computation happened) or by
        :meth:`release_reservation` (it did not); :meth:`reclaim_reservations` gives back those
        of a server that was killed in between.
        """
        with self._session() as session:
            if not self._count(session, organisation_id, period, limit):
                session.rollback()
                return None
            row = QuotaReservation(organisation_id=organisation_id, period=period, owner=owner)
            session.add(row)
            session.commit()
            return row.id

    def release_reservation(self, reservation_id: int) -> bool:
        """Gives back a reservation of :meth:`reserve_quota_for`; False when already settled."""
        with self._session() as session:
            row = session.get(QuotaReservation, reservation_id)
            if row is None:
                return False
            gone = session.execute(
                delete(QuotaReservation).where(col(QuotaReservation.id) == reservation_id)
            )
            if not gone.rowcount:  # type: ignore[attr-defined]  # another process released it
                session.rollback()
                return False
            self._uncount(session, row.organisation_id, row.period)
            session.commit()
            return True

    def reclaim_reservations(self, *, stale_before: dt.datetime, owner: str = PROCESS_OWNER) -> int:
        """Gives back the reservations no running request holds; returns how many.

        Those of a server process of this host that is gone (:func:`owner_gone`), and any
        made before ``stale_before`` (no request lives that long).
        """
        with self._session() as session:
            rows = session.exec(select(QuotaReservation)).all()
        when = stale_before.astimezone(dt.UTC)
        gone = [r.id for r in rows if r.created_at < when or owner_gone(r.owner, owner)]
        return sum(self.release_reservation(i) for i in gone if i is not None)

    def reservations(self) -> list[QuotaReservation]:
        """The reservations not settled yet, oldest first."""
        with self._session() as session:
            return list(session.exec(select(QuotaReservation).order_by(col(QuotaReservation.id))))

    def _count(self, session: Session, organisation_id: int, period: str, limit: int) -> bool:
        session.execute(
            self._insert(QuotaUsage)
            .values(organisation_id=organisation_id, period=period, used=0)
            .on_conflict_do_nothing(index_elements=["organisation_id", "period"])
        )
        result = session.execute(
            update(QuotaUsage)
            .where(
                col(QuotaUsage.organisation_id) == organisation_id,
                col(QuotaUsage.period) == period,
                col(QuotaUsage.used) < limit,
            )
            .values(used=col(QuotaUsage.used) + 1)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def release_quota(self, organisation_id: int, period: str) -> None:
        """Gives back a reservation of :meth:`reserve_quota` (the computation did not happen)."""
        with self._session() as session:
            self._uncount(session, organisation_id, period)
            session.commit()

    @staticmethod
    def _uncount(session: Session, organisation_id: int, period: str) -> None:
        session.execute(
            update(QuotaUsage)
            .where(
                col(QuotaUsage.organisation_id) == organisation_id,
                col(QuotaUsage.period) == period,
                col(QuotaUsage.used) > 0,
            )
            .values(used=col(QuotaUsage.used) - 1)
        )

    def quota_used(self, organisation_id: int, period: str) -> int:
        with self._session() as session:
            row = session.exec(
                select(QuotaUsage).where(
                    QuotaUsage.organisation_id == organisation_id, QuotaUsage.period == period
                )
            ).first()
            return 0 if row is None else row.used

    # ----------------------------------------------------------------- health

    def ping(self) -> None:
        """Raises when the database does not answer."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    # ----------------------------------------------------------------- journal

    def add_journal(self, entries: Sequence[JournalEntry]) -> None:
        if not entries:
            return
        with self._session() as session:
            session.add_all(entries)
            session.commit()

    def journal(self, *, limit: int = 50, organisation: str | None = None) -> list[JournalRow]:
        """The newest ``limit`` entries, newest first (of one organisation when given)."""
        with self._session() as session:
            query = select(JournalEntry, Organisation).join(
                Organisation,
                col(JournalEntry.organisation_id) == col(Organisation.id),
                isouter=True,
            )
            if organisation is not None:
                query = query.where(Organisation.name == organisation)
            rows = session.exec(
                query.order_by(col(JournalEntry.at).desc(), col(JournalEntry.id).desc()).limit(
                    limit
                )
            ).all()
            return [JournalRow(entry, org.name if org else None) for entry, org in rows]
