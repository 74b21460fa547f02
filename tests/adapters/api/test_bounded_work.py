"""Renders and computes under their limits, through the HTTP API: stopped overruns are 500s,
busy pools are 503s with Retry-After, a dying worker fails only its own request, and neither
reads nor health wait behind a render."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from adapters.api.limiting import quota_period
from adapters.api.main import create_app
from tests.adapters.helpers import (
    Api,
    make_settings,
    misbehaving_render,
    misbehaving_task,
    plan_body,
    wait_for,
)

COMPUTE = "/api/v1/packing/compute"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """An app whose pools misbehave on request, with short limits and room for a queue."""
    settings = make_settings(
        tmp_path_factory.mktemp("bounded"),
        compute_workers=2,
        compute_queue=4,
        compute_time_limit_s=2,
        compute_grace_s=1,
        render_workers=1,
        render_queue=0,
        render_time_limit_s=30,
    )
    app = create_app(settings)
    service = app.state.service
    service.pool.task = misbehaving_task
    service.renderer.task = misbehaving_render
    with TestClient(app) as client:
        yield Api(client, service)


def _render(api: Api, key: str, plan_id: str) -> httpx.Response:
    return api.client.post(
        f"/api/v1/packing/plans/{plan_id}/render-pdf", headers={"X-Api-Key": key}
    )


def test_a_render_past_its_time_limit_is_stopped_with_a_500(
    small: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    usual = small.service.renderer.deadline_s
    monkeypatch.setattr(small.service.renderer, "deadline_s", 1.0)
    key = small.key()
    stuck = _render(small, key, small.stored_plan(key, title="stuck"))
    assert stuck.status_code == 500
    assert stuck.json() == {"error": "The report took longer than its time limit to render."}
    # the replaced worker's first render (fonts loaded anew) gets the usual limit: on a slow
    # or busy machine it may take longer than the 1 s that stopped the stuck one
    monkeypatch.setattr(small.service.renderer, "deadline_s", usual)
    after = _render(small, key, small.stored_plan(key))
    assert after.status_code == 200 and after.content.startswith(b"%PDF-")


def test_a_crashing_render_is_a_500_and_the_next_one_works(small: Api) -> None:
    key = small.key()
    crashed = _render(small, key, small.stored_plan(key, title="crash"))
    assert crashed.status_code == 500
    assert crashed.json() == {"error": "The report could not be rendered."}
    assert _render(small, key, small.stored_plan(key)).status_code == 200


def test_reads_and_health_do_not_wait_behind_a_render(small: Api, tmp_path: Path) -> None:
    key = small.key()
    held = small.stored_plan(key, title=f"hold:{tmp_path}")
    other = small.stored_plan(key)
    with ThreadPoolExecutor(max_workers=1) as pool:
        render = pool.submit(_render, small, key, held)
        try:
            wait_for(lambda: (tmp_path / "started").exists(), "the render started")
            # the only render slot is taken: a second render is refused at once …
            busy = _render(small, key, other)
            assert busy.status_code == 503
            seconds = small.service.settings.busy_retry_after_s
            assert busy.json() == {"error": "render_capacity_exceeded", "retryAfterSec": seconds}
            assert busy.headers["Retry-After"] == str(seconds)
            # … and reads and health are answered while the render runs
            assert small.client.get("/api/health").json() == {"status": "ok"}
            read = small.client.get(f"/api/v1/packing/plans/{other}", headers={"X-Api-Key": key})
            assert read.status_code == 200
            assert not render.done(), "answered while the render still ran"
        finally:
            (tmp_path / "release").touch()
        assert render.result(timeout=120).status_code == 200


def test_a_computation_past_budget_and_grace_is_a_500(small: Api) -> None:
    key = small.key()
    org = small.org_id(key)
    response = small.client.post(
        COMPUTE, json=plan_body(planTitle="stuck"), headers={"X-Api-Key": key}
    )
    assert response.status_code == 500
    assert response.json() == {"error": "The calculation was stopped: it ran past its time limit."}
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=False)
    assert small.service.store.quota_used(org, period) == 0
    assert small.service.store.reservations() == []
    ok = small.client.post(COMPUTE, json=plan_body(), headers={"X-Api-Key": key})
    assert ok.status_code == 200, ok.text


def test_a_crash_among_requests_in_flight_fails_only_its_own(small: Api) -> None:
    key = small.key()
    titles = ["a", "crash", "b", "c", "d", "e"]  # two workers, four waiting places: all admitted

    def post(title: str) -> httpx.Response:
        body = plan_body(planTitle=title, orderRef=f"flight-{title}")
        return small.client.post(COMPUTE, json=body, headers={"X-Api-Key": key})

    with ThreadPoolExecutor(max_workers=len(titles)) as pool:
        responses = dict(zip(titles, pool.map(post, titles), strict=True))
    statuses = {t: r.status_code for t, r in responses.items()}
    assert statuses == {t: 500 if t == "crash" else 200 for t in titles}, statuses
    assert responses["crash"].json() == {"error": "The calculation failed."}
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=False)
    assert small.service.store.quota_used(small.org_id(key), period) == len(titles) - 1
    assert small.service.store.reservations() == [], "every reservation was settled or given back"


@pytest.fixture()
def fresh_small(tmp_path: Path) -> Iterator[Api]:
    app = create_app(make_settings(tmp_path))
    with TestClient(app) as client:
        yield Api(client, app.state.service)


def test_a_settled_computation_leaves_no_reservation(fresh_small: Api) -> None:
    key = fresh_small.key()
    assert fresh_small.client.post(COMPUTE, json=plan_body(), headers={"X-Api-Key": key}).is_success
    assert fresh_small.service.store.reservations() == []
