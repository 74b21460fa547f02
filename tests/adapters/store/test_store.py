"""The store on SQLite and on the PostgreSQL server at 127.0.0.1:5432."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import Session, SQLModel, select

from adapters.store import SCOPES, Store, UnknownScopeError, database_url, make_engine, upgrade
from adapters.store.migrate import downgrade
from adapters.store.models import ImmutablePlanError, Plan
from tests.adapters.helpers import new_org

TABLES = {
    "organisation",
    "api_key",
    "plan",
    "share_link",
    "cargo_item",
    "route_lane",
    "quota_usage",
    "quota_reservation",
    "journal_entry",
    "alembic_version",
}


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = database_url(None, tmp_path / "store.sqlite3")
    else:
        url = database_url(request.getfixturevalue("postgres_url"))
    engine = make_engine(url)
    upgrade(engine)
    yield Store(engine)
    engine.dispose()


def test_migrations_create_exactly_the_models(store: Store) -> None:
    assert set(inspect(store.engine).get_table_names()) >= TABLES
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diff == []


def test_migrations_run_twice_and_downgrade(tmp_path: Path) -> None:
    engine = make_engine(database_url(None, tmp_path / "m.sqlite3"))
    upgrade(engine)
    upgrade(engine)
    downgrade(engine, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade(engine)
    assert set(inspect(engine).get_table_names()) >= TABLES


def test_keys_issue_authenticate_revoke(store: Store) -> None:
    org = new_org()
    row, secret = store.issue_key(org, ["packing:read", "catalog:read"], sandbox=True)
    info = store.authenticate(secret)
    assert info is not None
    assert (info.organisation, info.scopes, info.sandbox) == (
        org,
        frozenset({"packing:read", "catalog:read"}),
        True,
    )
    assert store.authenticate(secret + "x") is None
    assert store.authenticate("tbp_") is None
    assert [k.id for k in store.list_keys(org)] == [row.id]
    assert store.revoke_key(row.id) is True
    assert store.revoke_key(row.id) is False
    assert store.authenticate(secret) is None


def test_unknown_scope_is_refused(store: Store) -> None:
    with pytest.raises(UnknownScopeError, match="packing:compute"):
        store.issue_key(new_org(), ["packing:everything"])
    assert "catalog:write" in SCOPES


def test_organisation_created_once(store: Store) -> None:
    org = new_org()
    a = store.organisation(org)
    b = store.organisation(org)
    assert a is not None and b is not None and a.id == b.id
    assert store.organisation(new_org(), create=False) is None


def _plan(store: Store, org_id: int, ref: str | None = "ord") -> Plan:
    return store.save_plan(org_id, input_json='{"a":1}', result_json='{"b":2}', external_ref=ref)


def test_plans_are_per_organisation_and_latest_by_ref(store: Store) -> None:
    org_a = store.organisation(new_org())
    org_b = store.organisation(new_org())
    assert org_a is not None and org_a.id is not None and org_b is not None and org_b.id
    first = _plan(store, org_a.id)
    second = _plan(store, org_a.id)
    _plan(store, org_b.id)
    assert first.plan_id.startswith("pln_") and len(first.plan_id) >= 4 + 16
    got = store.plan(org_a.id, first.plan_id)
    assert got is not None and got.input_json == '{"a":1}'
    assert got.created_at.tzinfo is not None
    assert store.plan(org_b.id, first.plan_id) is None
    latest = store.latest_plan(org_a.id, "ord")
    assert latest is not None and latest.plan_id == second.plan_id
    assert store.latest_plan(org_a.id, "other") is None
    assert store.count_plans(org_a.id) == 2


def test_plans_are_immutable(store: Store) -> None:
    org = store.organisation(new_org())
    assert org is not None and org.id is not None
    plan = _plan(store, org.id)
    with Session(store.engine) as session:
        row = session.exec(select(Plan).where(Plan.plan_id == plan.plan_id)).one()
        row.result_json = "{}"
        session.add(row)
        with pytest.raises(ImmutablePlanError):
            session.commit()
        session.rollback()
        row = session.exec(select(Plan).where(Plan.plan_id == plan.plan_id)).one()
        session.delete(row)
        with pytest.raises(ImmutablePlanError):
            session.commit()
    again = store.plan(org.id, plan.plan_id)
    assert again is not None and again.result_json == '{"b":2}'


def test_share_links_expire(store: Store) -> None:
    org = store.organisation(new_org())
    assert org is not None and org.id is not None
    plan = _plan(store, org.id)
    link, token = store.create_share(org.id, plan.plan_id, dt.timedelta(hours=2))
    assert len(token) >= 22 and link.token_digest != token
    found = store.shared_plan(token)
    assert found is not None and found.plan_id == plan.plan_id
    later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=3)
    assert store.shared_plan(token, now=later) is None
    assert store.shared_plan("nope") is None


def test_cargo_items_crud(store: Store) -> None:
    org = store.organisation(new_org())
    assert org is not None and org.id is not None
    assert store.create_cargo_item(org.id, "S1", '{"sku":"S1"}') is True
    assert store.create_cargo_item(org.id, "S1", '{"sku":"S1"}') is False
    assert store.replace_cargo_item(org.id, "S1", '{"sku":"S1","v":2}') is True
    assert store.replace_cargo_item(org.id, "S2", "{}") is False
    assert store.cargo_items_by_sku(org.id, ["S1", "S2"]) == {"S1": '{"sku":"S1","v":2}'}
    assert [r.sku for r in store.cargo_items(org.id)] == ["S1"]
    assert store.delete_cargo_item(org.id, "S1") is True
    assert store.delete_cargo_item(org.id, "S1") is False
    assert store.cargo_item(org.id, "S1") is None


def test_route_lanes_are_per_organisation_and_replaced_by_put(store: Store) -> None:
    org, other = store.organisation(new_org()), store.organisation(new_org())
    assert org is not None and org.id is not None and other is not None and other.id is not None
    assert store.put_route_lane(org.id, "moscow-ru", "kazan-ru", '{"v":1}') is True
    assert store.put_route_lane(org.id, "moscow-ru", "kazan-ru", '{"v":2}') is False
    assert store.put_route_lane(org.id, "kazan-ru", "moscow-ru", '{"v":3}') is True
    lane = store.route_lane(org.id, "moscow-ru", "kazan-ru")
    assert lane is not None and lane.data_json == '{"v":2}'
    assert [(r.origin_key, r.destination_key) for r in store.route_lanes(org.id)] == [
        ("kazan-ru", "moscow-ru"),
        ("moscow-ru", "kazan-ru"),
    ]
    assert store.route_lane(other.id, "moscow-ru", "kazan-ru") is None
    assert store.delete_route_lane(other.id, "moscow-ru", "kazan-ru") is False
    assert store.delete_route_lane(org.id, "moscow-ru", "kazan-ru") is True
    assert store.route_lane(org.id, "moscow-ru", "kazan-ru") is None
    assert [r.origin_key for r in store.route_lanes(org.id)] == ["kazan-ru"]


def test_quota_reservation_is_atomic_under_concurrency(store: Store) -> None:
    org = store.organisation(new_org())
    assert org is not None and org.id is not None
    org_id = org.id
    granted: list[bool] = []
    lock = threading.Lock()

    def reserve() -> None:
        for _ in range(5):
            ok = store.reserve_quota(org_id, "p1", 12)
            with lock:
                granted.append(ok)

    threads = [threading.Thread(target=reserve) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(granted) == 12 and len(granted) == 30
    assert store.quota_used(org_id, "p1") == 12
    store.release_quota(org_id, "p1")
    assert store.quota_used(org_id, "p1") == 11
    assert store.quota_used(org_id, "p2") == 0


def _dead_pid() -> int:
    """The pid of a process that has ended (and been waited for)."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=60)
    return child.pid


def test_a_reservation_is_settled_with_its_plan_or_given_back(store: Store) -> None:
    org = store.organisation(new_org())
    assert org is not None and org.id is not None
    first = store.reserve_quota_for(org.id, "p", 2)
    second = store.reserve_quota_for(org.id, "p", 2)
    assert first is not None and second is not None
    assert store.reserve_quota_for(org.id, "p", 2) is None, "the limit holds"
    assert [r.id for r in store.reservations()] == [first, second]
    store.save_plan(
        org.id, input_json="{}", result_json="{}", external_ref=None, reservation_id=first
    )
    assert store.quota_used(org.id, "p") == 2, "a settled reservation keeps its count"
    assert store.release_reservation(second) is True
    assert store.release_reservation(second) is False, "given back once only"
    assert store.release_reservation(first) is False, "a settled one is not given back"
    assert store.quota_used(org.id, "p") == 1
    assert store.reservations() == []


def test_reservations_of_a_gone_server_are_given_back(store: Store) -> None:
    import datetime as dt
    import os
    import socket

    from adapters.store.store import PROCESS_OWNER, owner_gone

    org = store.organisation(new_org())
    assert org is not None and org.id is not None
    host = socket.gethostname()
    dead = f"{host}:{_dead_pid()}:abc"
    alive_here = PROCESS_OWNER
    parent = f"{host}:{os.getppid()}:abc"  # a live process of this host
    elsewhere = f"other-host.example:{_dead_pid()}:abc"  # cannot be checked from here
    assert owner_gone(dead) and not owner_gone(alive_here) and not owner_gone(parent)
    assert not owner_gone(elsewhere)
    assert owner_gone(f"{host}:{os.getpid()}:another-nonce"), "this pid, an earlier process"
    for owner in (dead, alive_here, parent, elsewhere):
        assert store.reserve_quota_for(org.id, "p", 10, owner) is not None
    assert store.quota_used(org.id, "p") == 4

    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    assert store.reclaim_reservations(stale_before=long_ago) == 1
    assert store.quota_used(org.id, "p") == 3
    assert {r.owner for r in store.reservations()} == {alive_here, parent, elsewhere}
    # past the longest life of a request, every reservation is stale, wherever it came from
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
    assert store.reclaim_reservations(stale_before=later) == 3
    assert store.quota_used(org.id, "p") == 0 and store.reservations() == []


def test_revoking_a_share_link(store: Store) -> None:
    import datetime as dt

    org = store.organisation(new_org())
    other = store.organisation(new_org())
    assert org is not None and org.id is not None and other is not None and other.id is not None
    plan = store.save_plan(org.id, input_json="{}", result_json="{}", external_ref=None)
    link, token = store.create_share(org.id, plan.plan_id, dt.timedelta(hours=1))
    assert store.revoke_share(other.id, plan.plan_id, link.id) is False
    assert store.revoke_share(org.id, "pln_other", link.id) is False
    assert store.shared_plan(token) is not None
    assert store.revoke_share(org.id, plan.plan_id, link.id) is True
    assert store.shared_plan(token) is None
    assert store.revoke_share(org.id, plan.plan_id, link.id) is False


def test_journal_round_trip(store: Store) -> None:
    from adapters.store.models import JournalEntry

    org_name = new_org()
    org = store.organisation(org_name)
    assert org is not None and org.id is not None
    now = dt.datetime.now(dt.UTC)
    store.add_journal(
        [
            JournalEntry(
                at=now + dt.timedelta(seconds=i),
                method="GET",
                route="/api/v1/packing/plans/{id}",
                key_id="key_x",
                organisation_id=org.id,
                status=200 + i,
                duration_ms=1.5,
            )
            for i in range(3)
        ]
    )
    rows = store.journal(limit=2, organisation=org_name)
    assert [r.entry.status for r in rows] == [202, 201]
    assert rows[0].organisation == org_name
