"""Plan computation off the event loop, in a bounded pool of worker processes (``pebble``).

``workers`` processes compute; ``queue`` more requests may wait for one. A request that finds
every slot taken is refused at once (the API answers 503, and only then), so nothing ever
hangs. Each computation has a time budget, counted in work units by the planner, which
returns its best complete plan when the budget is spent (never an error). The pool's own
timeout is only a safety net far above what a valid request can take:
:attr:`packing.strategies.base.Budget.HARD_FACTOR` times the budget plus ``grace_s``, where
the planner's own wall-clock net stops the searches at
:data:`adapters.planning.compute.REQUEST_NET_FACTOR` times the budget; a worker still busy then is stopped and replaced (the API answers 500). A worker that
dies fails only the request it was computing, which is not retried (an input that crashed a
worker would crash the next one too); the pool starts a new worker and the queued requests go
on. Workers exit when the server process is gone (:func:`adapters.api.workers.watch_parent`).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from adapters.api.workers import WorkerPool, watch_parent
from packing.strategies.base import Budget

log = logging.getLogger(__name__)

#: The garbage collector's thresholds in a compute worker (Python's default: 700, 10, 10).
#: A search makes and drops many small objects (free spaces, trial states) and almost no
#: reference cycles, so the default's frequent collections are mostly wasted work; after
#: the catalogs are loaded they are also frozen out of every collection (``gc.freeze``).
#: Plans are the same (they depend on work units alone); ``compute_plan`` after ``preload()``
#: on the bodies of ``scripts/bench_scaling.py`` took 13-21 % less CPU for 10,000 THERMO
#: pieces, 4-13 % less for 1,000 PLAIN pieces (README, "Benchmarks").
WORKER_GC_THRESHOLDS = (20_000, 50, 100)


def tune_gc() -> None:
    """Sets this process's garbage collector as a compute worker's: what is loaded now is
    frozen out of its collections, and it collects at :data:`WORKER_GC_THRESHOLDS`
    (``packplan calibrate`` measures under the same setting)."""
    gc.collect()  # nothing that is garbage already is frozen
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)


@contextmanager
def worker_gc() -> Iterator[None]:
    """Runs the ``with`` block under a compute worker's garbage collector (:func:`tune_gc`),
    then sets this process's back: its thresholds as they were, nothing frozen (what
    ``packplan calibrate`` and ``scripts/bench_scaling.py`` measure under)."""
    thresholds = gc.get_threshold()
    tune_gc()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


class ComputeBusy(Exception):
    """Every compute slot is taken."""


class ComputeTimeout(Exception):
    """The computation overran its time budget and grace; its worker was replaced."""


class ComputeCrashed(Exception):
    """The worker process died during the computation."""


@dataclass(frozen=True, slots=True)
class ComputeOutcome:
    """What a worker sends back: a result, or the field and message of a 422."""

    result_json: str | None = None
    input_error_field: str | None = None
    input_error_message: str | None = None


#: An organisation lane as the worker takes it: origin key, destination key, its JSON.
Lane = tuple[str, str, str]

#: What a worker runs: ``(input_json, use_mock_thermal, time_limit_s, lane) ->
#: ComputeOutcome``; ``lane`` is the organisation's own lane for the plan's city pair, or None.
ComputeTask = Callable[[str, bool, float, "Lane | None"], ComputeOutcome]


def compute_in_worker(
    input_json: str, use_mock_thermal: bool, time_limit_s: float, lane: Lane | None = None
) -> ComputeOutcome:
    """Runs in a worker process: validates the input and computes the plan."""
    from adapters.planning import PackingPlanInput, PlanInputError, compute_plan
    from adapters.planning.lanes import route_overrides
    from thermal.routes import MAX_TRANSIT_HOURS, RouteOverrideError

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
    except RouteOverrideError as exc:
        # a lane stored before its segments were bounded (PUT now refuses such a lane): the
        # request names its cities, so the answer names them and how to go on
        return ComputeOutcome(
            input_error_field="destinationCity",
            input_error_message=f"the organisation's stored lane cannot be used ({exc}); "
            f"store it again with at most {MAX_TRANSIT_HOURS:g} h in all (PUT "
            "/api/v1/catalog/routes/{origin}/{destination}) or delete it",
        )
    return ComputeOutcome(result_json=result.model_dump_json())


def start_worker(server_pid: int, work_units_per_second: int | None = None) -> None:
    """Runs once in every new worker: watches the server, sets the work units a second of
    budget buys (None: the default rate), loads the planner and its catalogs, and sets the
    garbage collector for searching (:func:`tune_gc`).

    A failure to load is only logged: the worker then loads them on its first computation (a
    worker that exits here would take the pool down with it).
    """
    watch_parent(server_pid)
    Budget.use_rate(work_units_per_second)
    from adapters.planning import preload

    try:
        preload()
    except Exception:
        log.exception("compute worker preload failed")
    tune_gc()


def worker_deadline_s(time_limit_s: float, grace_s: float) -> float:
    """When a computation's worker is stopped [s after it started]:
    :attr:`~packing.strategies.base.Budget.HARD_FACTOR` × the budget plus its floor and
    ``grace_s``, well past the planner's wall-clock net (the searches stop at
    :data:`~adapters.planning.compute.REQUEST_NET_FACTOR` × the budget, which a valid
    request on a machine at its normal load never reaches).

    Parameters
    ----------
    time_limit_s : float
        The computation's budget [s].
    grace_s : float
        Extra wait [s].
    """
    return Budget.HARD_FACTOR * time_limit_s + Budget.HARD_FLOOR_S + grace_s


class ComputePool(WorkerPool):
    """The compute workers.

    Parameters
    ----------
    workers : int
        Processes computing at the same time.
    queue : int
        Further requests that may wait for a process.
    time_limit_s : float
        Time budget of one computation [s], given to the planner.
    grace_s : float
        How long past ``HARD_FACTOR × time_limit_s`` (and its floor) to wait before a
        worker is stopped and replaced [s].
    task : callable, optional
        What a worker runs; :func:`compute_in_worker` unless a test needs a worker that
        misbehaves.
    work_units_per_second : int, optional
        Work units a second of budget buys in the workers
        (:meth:`~packing.strategies.base.Budget.use_rate`); None: the default rate.
    """

    busy_error = ComputeBusy
    overran_error = ComputeTimeout
    died_error = ComputeCrashed
    what = "computation"

    def __init__(
        self,
        *,
        workers: int,
        queue: int,
        time_limit_s: float,
        grace_s: float,
        task: ComputeTask = compute_in_worker,
        work_units_per_second: int | None = None,
    ) -> None:
        self.time_limit_s = time_limit_s
        # a bad rate is refused here, naming the argument, not in every worker it would
        # stop at start (which takes the pool down)
        Budget.valid_rate(work_units_per_second)
        self.work_units_per_second = work_units_per_second
        self.grace_s = grace_s
        self.task = task
        super().__init__(
            workers=workers, queue=queue, deadline_s=worker_deadline_s(time_limit_s, grace_s)
        )

    def initializer(self) -> tuple[Callable[..., None], tuple[Any, ...]]:
        _, args = super().initializer()
        return start_worker, (*args, self.work_units_per_second)

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
        return await self.run(self.task, input_json, use_mock_thermal, self.time_limit_s, lane)
