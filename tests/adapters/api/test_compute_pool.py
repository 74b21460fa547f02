"""The compute pool: bounded slots, work in worker processes, crashed and stuck workers."""

from __future__ import annotations

import asyncio
import datetime as dt
import multiprocessing
import os
import signal
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from adapters.api.compute import (
    ComputeBusy,
    ComputeCrashed,
    ComputeOutcome,
    ComputePool,
    ComputeTimeout,
)
from adapters.api.limiting import quota_period
from adapters.planning.schemas import PackingPlanInput
from tests.adapters.helpers import (
    Api,
    gc_task,
    misbehaving_task,
    plan_body,
    rate_task,
    wait_for,
)

T = TypeVar("T")

#: Upper bound of any wait here [s]; only a broken pool comes near it.
BOUND_S = 120


def _input(title: str = "Vaccines") -> str:
    body = plan_body(planTitle=title)
    return PackingPlanInput.model_validate(body).model_dump_json(exclude_none=True)


def _run(awaitable: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(awaitable, BOUND_S)

    return asyncio.run(bounded())


def test_slots_are_bounded() -> None:
    pool = ComputePool(workers=1, queue=2, time_limit_s=1, grace_s=0)
    try:
        assert [pool.try_acquire() for _ in range(4)] == [True, True, True, False]
        with pytest.raises(ComputeBusy):
            _run(pool.compute(_input(), use_mock_thermal=True))
        pool.release()
        assert pool.try_acquire() is True
        assert pool.in_use == 3
    finally:
        pool.shutdown()


def test_the_pool_computes_in_a_worker_process() -> None:
    async def run() -> ComputeOutcome:
        pool = ComputePool(workers=1, queue=0, time_limit_s=10, grace_s=5)
        try:
            await pool.warm()
            return await pool.compute(_input(), use_mock_thermal=True)
        finally:
            pool.shutdown()

    outcome = _run(run())
    assert outcome.result_json is not None and '"placements"' in outcome.result_json


@pytest.mark.parametrize("rate", [None, 41_000_000])
def test_workers_plan_with_the_configured_work_rate(rate: int | None) -> None:
    from packing.strategies.base import Budget

    async def run() -> object:
        pool = ComputePool(
            workers=1,
            queue=0,
            time_limit_s=10,
            grace_s=5,
            task=rate_task,
            work_units_per_second=rate,
        )
        try:
            return await pool.compute(_input(), use_mock_thermal=True)
        finally:
            pool.shutdown()

    assert _run(run()) == (rate or Budget.DEFAULT_RATE)
    assert Budget.RATE == Budget.DEFAULT_RATE  # the server process keeps its own


def test_workers_collect_garbage_less_often_with_the_catalogs_frozen() -> None:
    import gc

    from adapters.api.compute import WORKER_GC_THRESHOLDS

    async def run() -> object:
        pool = ComputePool(workers=1, queue=0, time_limit_s=10, grace_s=5, task=gc_task)
        try:
            return await pool.compute(_input(), use_mock_thermal=True)
        finally:
            pool.shutdown()

    answer = _run(run())
    assert isinstance(answer, tuple)
    thresholds, frozen = answer
    assert tuple(thresholds) == WORKER_GC_THRESHOLDS
    assert frozen > 10_000  # the modules and catalogs loaded at start
    # the server process keeps Python's own
    assert gc.get_threshold() != WORKER_GC_THRESHOLDS


def test_a_dying_worker_fails_only_its_own_request() -> None:
    async def run() -> tuple[list[object], ComputeOutcome]:
        pool = ComputePool(workers=2, queue=2, time_limit_s=10, grace_s=5, task=misbehaving_task)
        try:
            await pool.warm()
            calls = [pool.compute(_input(t), use_mock_thermal=True) for t in ("a", "crash", "b")]
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            after = await pool.compute(_input(), use_mock_thermal=True)
            return outcomes, after
        finally:
            pool.shutdown()

    (first, crashed, last), after = _run(run())
    assert isinstance(crashed, ComputeCrashed)
    for outcome in (first, last, after):
        assert isinstance(outcome, ComputeOutcome) and outcome.result_json is not None


def test_a_stuck_worker_is_replaced_after_budget_and_grace() -> None:
    async def run() -> tuple[BaseException | None, ComputeOutcome]:
        pool = ComputePool(workers=1, queue=1, time_limit_s=0.5, grace_s=0.5, task=misbehaving_task)
        try:
            await pool.warm()
            stuck: BaseException | None = None
            try:
                await pool.compute(_input("stuck"), use_mock_thermal=True)
            except ComputeTimeout as exc:
                stuck = exc
            return stuck, await pool.compute(_input(), use_mock_thermal=True)
        finally:
            pool.shutdown()

    stuck, after = _run(run())
    assert isinstance(stuck, ComputeTimeout)
    assert after.result_json is not None


def test_a_pool_whose_idle_worker_was_killed_is_replaced() -> None:
    # pebble gives up a pool whose worker ends while no task runs; the next requests get a new one
    async def run() -> list[object]:
        before = set(multiprocessing.active_children())
        pool = ComputePool(workers=1, queue=0, time_limit_s=10, grace_s=5)
        try:
            await pool.warm()
            for worker in set(multiprocessing.active_children()) - before:
                assert worker.pid is not None
                os.kill(worker.pid, signal.SIGKILL)
            outcomes: list[object] = []
            for _ in range(3):
                try:
                    outcomes.append(await pool.compute(_input(), use_mock_thermal=True))
                    break
                except ComputeCrashed as exc:  # the pool broke under this request
                    outcomes.append(exc)
            return outcomes
        finally:
            pool.shutdown()

    outcomes = _run(run())
    assert isinstance(outcomes[-1], ComputeOutcome) and outcomes[-1].result_json is not None
    assert len(outcomes) <= 2


def test_a_crashed_computation_is_a_500_and_the_service_goes_on(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api.service.pool, "task", misbehaving_task)
    key = api.key("packing:compute")
    h = {"X-Api-Key": key}
    crashed = api.client.post(
        "/api/v1/packing/compute", json=plan_body(planTitle="crash"), headers=h
    )
    assert crashed.status_code == 500
    assert crashed.json() == {"error": "The calculation failed."}
    period, _ = quota_period(dt.datetime.now(dt.UTC), sandbox=False)
    assert api.service.store.quota_used(api.org_id(key), period) == 0
    after = api.client.post("/api/v1/packing/compute", json=plan_body(), headers=h)
    assert after.status_code == 200, after.text
    assert api.service.store.quota_used(api.org_id(key), period) == 1


def test_requests_queued_behind_a_crash_go_on() -> None:
    # one worker: the crash ends it while three requests wait; a new worker serves them
    async def run() -> list[object]:
        pool = ComputePool(workers=1, queue=3, time_limit_s=10, grace_s=5, task=misbehaving_task)
        try:
            await pool.warm()
            calls = [
                pool.compute(_input(t), use_mock_thermal=True) for t in ("crash", "a", "b", "c")
            ]
            return list(await asyncio.gather(*calls, return_exceptions=True))
        finally:
            pool.shutdown()

    crashed, *others = _run(run())
    assert isinstance(crashed, ComputeCrashed)
    for outcome in others:
        assert isinstance(outcome, ComputeOutcome) and outcome.result_json is not None


def test_a_cancelled_request_stops_its_worker(tmp_path: Path) -> None:
    started = tmp_path / "started"

    async def run() -> tuple[int | None, ComputeOutcome]:
        before = set(multiprocessing.active_children())
        pool = ComputePool(workers=1, queue=0, time_limit_s=60, grace_s=60, task=misbehaving_task)
        try:
            await pool.warm()
            (worker,) = set(multiprocessing.active_children()) - before
            stuck = asyncio.ensure_future(
                pool.compute(_input(f"stuck:{tmp_path}"), use_mock_thermal=True)
            )
            # cancelled while the worker runs it (a task still waiting for the worker is
            # only dropped, and its worker rightly goes on)
            await asyncio.to_thread(wait_for, started.exists, "the worker starts the task")
            stuck.cancel()
            with pytest.raises(asyncio.CancelledError):
                await stuck
            # pebble's own threads join (reap) the stopped worker too: a join here can return
            # before the reaping thread has recorded the exit code, so poll until it has
            await asyncio.to_thread(wait_for, lambda: not worker.is_alive(), "the worker stops")
            assert pool.in_use == 0
            return worker.exitcode, await pool.compute(_input(), use_mock_thermal=True)
        finally:
            pool.shutdown()

    exitcode, after = _run(run())
    assert exitcode is not None, "the worker was stopped, not left computing"
    assert exitcode != 0
    assert after.result_json is not None


def test_the_pool_waits_far_past_the_planners_own_budget() -> None:
    # The pool stops a worker only past the planner's wall-clock safety net plus grace: a
    # valid request, which the planner finishes within its budget, is never killed.
    from adapters.api.compute import worker_deadline_s
    from adapters.planning.compute import REQUEST_NET_FACTOR
    from packing.strategies.base import Budget

    pool = ComputePool(workers=1, queue=0, time_limit_s=20, grace_s=10)
    try:
        assert pool.deadline_s == worker_deadline_s(20, 10)
        assert pool.deadline_s == Budget.HARD_FACTOR * 20 + Budget.HARD_FLOOR_S + 10
        # the request's own wall-clock net stops its searches 50 s before that, time for
        # the greedy passes and the mapping after them on a machine many times busier
        request_net = REQUEST_NET_FACTOR * 20 + Budget.HARD_FLOOR_S
        assert pool.deadline_s - request_net == 50
        assert pool.deadline_s >= 3 * 20 + 10
    finally:
        pool.shutdown()
