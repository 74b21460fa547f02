"""Plan computation off the event loop, in a bounded pool of worker processes.

``workers`` processes compute; ``queue`` more requests may wait for one. A request that finds
every slot taken is refused at once (the API answers 503), so nothing ever hangs. Each
computation has a time budget: the planner is asked to stay within it, the worker interrupts it
shortly after (``SIGALRM``), and a worker that still does not answer is replaced.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from types import FrameType

log = logging.getLogger(__name__)


class ComputeTimeout(Exception):
    """The computation overran its time budget."""


class ComputeCrashed(Exception):
    """The worker process died during the computation."""


@dataclass(frozen=True, slots=True)
class ComputeOutcome:
    """What a worker sends back: a result, or the field and message of a 422."""

    result_json: str | None = None
    input_error_field: str | None = None
    input_error_message: str | None = None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise ComputeTimeout("the computation overran its time budget")


def compute_in_worker(
    input_json: str, use_mock_thermal: bool, time_limit_s: float
) -> ComputeOutcome:
    """Runs in a worker process: validates the input and computes the plan."""
    from adapters.planning import PackingPlanInput, PlanInputError, compute

    plan_input = PackingPlanInput.model_validate_json(input_json)
    # the planner works within time_limit_s; the alarm only catches a planner that does not
    previous = signal.signal(signal.SIGALRM, _interrupt)
    signal.setitimer(signal.ITIMER_REAL, time_limit_s * 1.5 + 1.0)
    try:
        result = compute.compute_plan(
            plan_input, use_mock_thermal=use_mock_thermal, time_limit_s=time_limit_s
        )
    except PlanInputError as exc:
        return ComputeOutcome(input_error_field=exc.field, input_error_message=exc.message)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return ComputeOutcome(result_json=result.model_dump_json())


def warm_up() -> bool:
    """Loads the planner and its catalogs in a worker so the first request does not pay."""
    from adapters.planning import preload

    preload()
    return True


class ComputePool:
    """A bounded pool of worker processes.

    Parameters
    ----------
    workers : int
        Processes computing at the same time.
    queue : int
        Further requests that may wait for a process.
    time_limit_s : float
        Time budget of one computation [s].
    grace_s : float
        How long past the worker's own interruption to wait before replacing it [s].
    """

    def __init__(self, *, workers: int, queue: int, time_limit_s: float, grace_s: float) -> None:
        self.workers = workers
        self.capacity = workers + queue
        self.time_limit_s = time_limit_s
        self.grace_s = grace_s
        self._in_use = 0
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
        )

    @property
    def in_use(self) -> int:
        return self._in_use

    def try_acquire(self) -> bool:
        """Takes a slot if one is free (call from the event loop)."""
        if self._in_use >= self.capacity:
            return False
        self._in_use += 1
        return True

    def release(self) -> None:
        self._in_use = max(0, self._in_use - 1)

    async def warm(self) -> None:
        """Starts the worker processes and imports the planner in them."""
        loop = asyncio.get_running_loop()
        futures = [loop.run_in_executor(self._executor, warm_up) for _ in range(self.workers)]
        results = await asyncio.gather(*futures, return_exceptions=True)
        for outcome in results:
            if isinstance(outcome, BaseException):
                log.warning("compute worker warm-up failed: %s", outcome)

    async def run(self, input_json: str, *, use_mock_thermal: bool) -> ComputeOutcome:
        """Computes in a worker; the caller holds a slot (see :meth:`try_acquire`).

        Raises
        ------
        ComputeTimeout
            The computation overran its budget (the worker was interrupted or replaced).
        ComputeCrashed
            The worker process died.
        """
        loop = asyncio.get_running_loop()
        executor = self._executor
        future = loop.run_in_executor(
            executor, compute_in_worker, input_json, use_mock_thermal, self.time_limit_s
        )
        # a request may wait behind the ones queued before it
        rounds = 1 + math.ceil(max(0, self.capacity - self.workers) / self.workers)
        deadline = rounds * (self.time_limit_s * 1.5 + 1.0 + self.grace_s)
        try:
            return await asyncio.wait_for(future, timeout=deadline)
        except TimeoutError:
            log.error("a compute worker overran %.1f s; replacing the pool", deadline)
            self._replace(executor)
            raise ComputeTimeout("the computation overran its time budget") from None
        except BrokenProcessPool:
            log.error("a compute worker died; replacing the pool")
            self._replace(executor)
            raise ComputeCrashed("the compute worker stopped") from None

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        if broken is not self._executor:
            return  # already replaced by another request
        self._executor = self._new_executor()
        processes = list(getattr(broken, "_processes", {}).values())
        broken.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
