"""Plan computation off the event loop, in a bounded pool of worker processes (``pebble``).

``workers`` processes compute; ``queue`` more requests may wait for one. A request that finds
every slot taken is refused at once (the API answers 503), so nothing ever hangs. Each
computation has a time budget: the planner is asked to stay within it, and a worker that has
not answered ``grace_s`` after it is stopped and replaced. A worker that dies fails only the
request it was computing; the pool starts a new one.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from pebble import ProcessExpired, ProcessPool

log = logging.getLogger(__name__)


class ComputeBusy(Exception):
    """Every compute slot is taken."""


class ComputeTimeout(Exception):
    """The computation overran its time budget; its worker was replaced."""


class ComputeCrashed(Exception):
    """The worker process died during the computation."""


@dataclass(frozen=True, slots=True)
class ComputeOutcome:
    """What a worker sends back: a result, or the field and message of a 422."""

    result_json: str | None = None
    input_error_field: str | None = None
    input_error_message: str | None = None


#: What a worker runs: ``(input_json, use_mock_thermal, time_limit_s, lane) ->
#: ComputeOutcome``; ``lane`` is the organisation's own lane for the plan's city pair as
#: ``(origin key, destination key, lane JSON)``, or None.
ComputeTask = Callable[[str, bool, float, "Lane | None"], ComputeOutcome]

#: An organisation lane as the worker takes it: origin key, destination key, its JSON.
Lane = tuple[str, str, str]


def compute_in_worker(
    input_json: str, use_mock_thermal: bool, time_limit_s: float, lane: Lane | None = None
) -> ComputeOutcome:
    """Runs in a worker process: validates the input and computes the plan."""
    from adapters.planning import PackingPlanInput, PlanInputError, compute_plan
    from adapters.planning.lanes import route_overrides

    plan_input = PackingPlanInput.model_validate_json(input_json)
    try:
        result = compute_plan(
            plan_input,
            use_mock_thermal=use_mock_thermal,
            time_limit_s=time_limit_s,
            route_overrides=None if lane is None else route_overrides([lane]),
        )
    except PlanInputError as exc:
        return ComputeOutcome(input_error_field=exc.field, input_error_message=exc.message)
    return ComputeOutcome(result_json=result.model_dump_json())


def start_worker() -> None:
    """Runs once in every new worker: loads the planner and its catalogs.

    A failure is only logged: the worker then loads them on its first computation (a worker
    that exits here would take the pool down with it).
    """
    from adapters.planning import preload

    try:
        preload()
    except Exception:
        log.exception("compute worker preload failed")


def _ready() -> bool:
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
        How long past the budget to wait before a worker is stopped and replaced [s].
    task : callable, optional
        What a worker runs; :func:`compute_in_worker` unless a test needs a worker that
        misbehaves.
    """

    def __init__(
        self,
        *,
        workers: int,
        queue: int,
        time_limit_s: float,
        grace_s: float,
        task: ComputeTask = compute_in_worker,
    ) -> None:
        self.workers = workers
        self.capacity = workers + queue
        self.time_limit_s = time_limit_s
        self.grace_s = grace_s
        self.task = task
        self._in_use = 0
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPool:
        # spawn: the server process has threads, which fork would copy in a broken state
        return ProcessPool(
            max_workers=self.workers,
            initializer=start_worker,
            context=multiprocessing.get_context("spawn"),
        )

    @property
    def deadline_s(self) -> float:
        """How long a computation may run before its worker is replaced [s]."""
        return self.time_limit_s + self.grace_s

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
        """Starts the worker processes and waits until they have loaded the planner."""
        futures = [asyncio.wrap_future(self._pool.schedule(_ready)) for _ in range(self.workers)]
        for outcome in await asyncio.gather(*futures, return_exceptions=True):
            if isinstance(outcome, BaseException):
                log.warning("compute worker warm-up failed: %s", outcome)

    async def compute(
        self, input_json: str, *, use_mock_thermal: bool, lane: Lane | None = None
    ) -> ComputeOutcome:
        """Computes in a worker, in a slot of its own.

        Raises
        ------
        ComputeBusy
            Every slot is taken.
        ComputeTimeout
            The computation overran its budget and grace; its worker was replaced.
        ComputeCrashed
            The worker process died.
        """
        if not self.try_acquire():
            raise ComputeBusy("every compute slot is taken")
        try:
            return await self._run(input_json, use_mock_thermal, lane)
        finally:
            self.release()

    async def _run(
        self, input_json: str, use_mock_thermal: bool, lane: Lane | None
    ) -> ComputeOutcome:
        if not self._pool.active:  # a pool that failed as a whole is replaced
            log.error("the compute pool stopped; starting a new one")
            broken, self._pool = self._pool, self._new_pool()
            await asyncio.to_thread(_stop, broken)
        future = self._pool.schedule(
            self.task,
            args=(input_json, use_mock_thermal, self.time_limit_s, lane),
            timeout=self.deadline_s,
        )
        try:
            return await asyncio.wrap_future(future)
        except TimeoutError:
            log.error("a computation overran %.1f s; its worker was replaced", self.deadline_s)
            raise ComputeTimeout("the computation overran its time budget") from None
        except ProcessExpired as exc:
            log.error("a compute worker died (exit code %s); it was replaced", exc.exitcode)
            raise ComputeCrashed("the compute worker stopped") from None
        except BrokenProcessPool:
            log.error("the compute pool broke; it is replaced on the next request")
            raise ComputeCrashed("the compute pool stopped") from None

    def shutdown(self) -> None:
        """Stops the workers (the server has finished its requests by then)."""
        _stop(self._pool)


def _stop(pool: ProcessPool) -> None:
    pool.stop()  # type: ignore[no-untyped-call]  # pebble leaves stop() unannotated
    pool.join()
