"""The compute pool: bounded slots and the per-request time budget."""

from __future__ import annotations

import asyncio
import time

import pytest

import adapters.planning.compute
from adapters.api.compute import ComputePool, ComputeTimeout, compute_in_worker
from adapters.planning.schemas import PackingPlanInput
from tests.adapters.helpers import plan_body


def test_slots_are_bounded() -> None:
    pool = ComputePool(workers=1, queue=2, time_limit_s=1, grace_s=0)
    try:
        assert [pool.try_acquire() for _ in range(4)] == [True, True, True, False]
        pool.release()
        assert pool.try_acquire() is True
        assert pool.in_use == 3
    finally:
        pool.shutdown()


def test_a_planner_that_overruns_its_budget_is_interrupted(monkeypatch: pytest.MonkeyPatch) -> None:
    def stuck(*args: object, **kwargs: object) -> None:
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(adapters.planning.compute, "compute_plan", stuck)
    body = PackingPlanInput.model_validate(plan_body()).model_dump_json(exclude_none=True)
    started = time.monotonic()
    with pytest.raises(ComputeTimeout):
        compute_in_worker(body, False, 0.2)
    assert time.monotonic() - started < 5


def test_the_pool_computes_in_a_worker_process() -> None:
    body = PackingPlanInput.model_validate(plan_body()).model_dump_json(exclude_none=True)

    async def run() -> str | None:
        pool = ComputePool(workers=1, queue=0, time_limit_s=10, grace_s=5)
        try:
            await pool.warm()
            outcome = await pool.run(body, use_mock_thermal=True)
            return outcome.result_json
        finally:
            pool.shutdown()

    result = asyncio.run(run())
    assert result is not None and '"placements"' in result
