"""Bounded pools of worker processes (``pebble``) for work that must not hold the server.

A :class:`WorkerPool` has ``workers`` processes and room for ``queue`` more waiting tasks; a
task that finds every slot taken is refused at once. Each task has a deadline: a worker that
has not answered by then is stopped and replaced, and so is one whose request was cancelled.
A worker that dies fails only the task it was running; the pool starts a new one. Every worker
watches the server process and exits when the server is gone (:func:`watch_parent`), so no
worker outlives a killed server.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ClassVar, TypeVar

from pebble import ProcessExpired, ProcessPool

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How often a worker checks that the server process is still its parent [s].
PARENT_POLL_S = 0.5


def watch_parent(server_pid: int, interval_s: float = PARENT_POLL_S) -> None:
    """Runs in a worker: ends the worker as soon as ``server_pid`` is no longer its parent.

    A killed server cannot stop its workers; its children are then adopted by another
    process, which the worker notices within ``interval_s``, even in the middle of a task.
    """

    def watch() -> None:
        while os.getppid() == server_pid:
            time.sleep(interval_s)
        os._exit(70)  # the server is gone: nobody is waiting for this worker's answer

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class PoolBusy(Exception):
    """Every slot of the pool is taken."""


class TaskOverran(Exception):
    """The task overran its deadline; its worker was stopped and replaced."""


class WorkerDied(Exception):
    """The worker process died during the task (or the pool broke under it)."""


def _ready() -> bool:
    return True


class WorkerPool:
    """A bounded pool of worker processes; subclasses name their errors and initializer.

    Parameters
    ----------
    workers : int
        Processes working at the same time.
    queue : int
        Further tasks that may wait for a process.
    deadline_s : float
        How long a task may run before its worker is stopped and replaced [s].
    """

    busy_error: ClassVar[type[Exception]] = PoolBusy
    overran_error: ClassVar[type[Exception]] = TaskOverran
    died_error: ClassVar[type[Exception]] = WorkerDied
    what: ClassVar[str] = "task"

    def __init__(self, *, workers: int, queue: int, deadline_s: float) -> None:
        self.workers = workers
        self.capacity = workers + queue
        self.deadline_s = deadline_s
        self._in_use = 0
        self._pool = self._new_pool()

    def initializer(self) -> tuple[Callable[..., None], tuple[Any, ...]]:
        """What every new worker runs first, and its arguments."""
        return watch_parent, (os.getpid(),)

    def _new_pool(self) -> ProcessPool:
        init, args = self.initializer()
        # spawn: the server process has threads, which fork would copy in a broken state
        return ProcessPool(
            max_workers=self.workers,
            initializer=init,
            initargs=args,
            context=multiprocessing.get_context("spawn"),
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
        """Starts the worker processes and waits until they have run their initializer."""
        futures = [asyncio.wrap_future(self._pool.schedule(_ready)) for _ in range(self.workers)]
        for outcome in await asyncio.gather(*futures, return_exceptions=True):
            if isinstance(outcome, BaseException):
                log.warning("%s worker warm-up failed: %s", self.what, outcome)

    async def run(self, fn: Callable[..., T], *args: Any, deadline_s: float | None = None) -> T:
        """``fn(*args)`` in a worker, in a slot of its own, stopped after ``deadline_s``
        (None: the pool's).

        Raises ``busy_error`` when every slot is taken, ``overran_error`` when the task
        overran its deadline and ``died_error`` when its worker died. A cancelled caller
        stops the worker running its task.
        """
        if not self.try_acquire():
            raise self.busy_error(f"every {self.what} slot is taken")
        try:
            return await self._run(fn, args, self.deadline_s if deadline_s is None else deadline_s)
        finally:
            self.release()

    async def _run(self, fn: Callable[..., T], args: tuple[Any, ...], deadline_s: float) -> T:
        if not self._pool.active:  # a pool that failed as a whole is replaced
            log.error("the %s pool stopped; starting a new one", self.what)
            broken, self._pool = self._pool, self._new_pool()
            await asyncio.to_thread(_stop, broken)
        future = self._pool.schedule(fn, args=args, timeout=deadline_s)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # type: ignore[no-untyped-call]  # stops the task's worker
            raise
        except TimeoutError:
            log.error("a %s overran %.1f s; its worker was replaced", self.what, deadline_s)
            raise self.overran_error(f"the {self.what} overran its time limit") from None
        except ProcessExpired as exc:
            log.error("a %s worker died (exit code %s); it was replaced", self.what, exc.exitcode)
            raise self.died_error(f"the {self.what} worker stopped") from None
        except BrokenProcessPool:
            log.error("the %s pool broke; it is replaced on the next request", self.what)
            raise self.died_error(f"the {self.what} pool stopped") from None

    def shutdown(self) -> None:
        """Stops the workers (the server has finished its requests by then)."""
        _stop(self._pool)


def _stop(pool: ProcessPool) -> None:
    pool.stop()  # type: ignore[no-untyped-call]  # pebble leaves stop() unannotated
    pool.join()
