"""The parts of the running service: store, request journal, rate limiter and worker pools."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import math
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from adapters.api.compute import ComputePool
from adapters.api.journal import JournalWriter
from adapters.api.limiting import RateLimiter
from adapters.api.render import RenderPool
from adapters.api.schemas import ContainerList
from adapters.api.settings import Settings
from adapters.planning import catalog_containers
from adapters.store import Store, database_url, make_engine, upgrade
from adapters.store.store import PROCESS_OWNER

T = TypeVar("T")

log = logging.getLogger(__name__)

#: How long a health check waits for the database or Redis [s].
HEALTH_TIMEOUT_S = 5.0

#: How often stale quota reservations are looked for while the service runs [s].
RECLAIM_EVERY_S = 300.0


class Service:
    """What the routes share, created with the app and started by its lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = make_engine(database_url(settings.database_url, settings.sqlite_path))
        self.store = Store(self.engine)
        self.owner = PROCESS_OWNER
        self.journal = JournalWriter(self.store, flush_s=settings.journal_flush_s)
        self.limiter = RateLimiter(
            redis_url=settings.redis_url,
            sandbox_per_minute=settings.rate_sandbox_per_minute,
            production_per_minute=settings.rate_production_per_minute,
        )
        self.pool = ComputePool(
            workers=settings.compute_workers,
            queue=settings.compute_queue,
            time_limit_s=settings.compute_time_limit_s,
            grace_s=settings.compute_grace_s,
            work_units_per_second=settings.work_units_per_second,
        )
        self.renderer = RenderPool(
            workers=settings.render_workers,
            queue=settings.render_queue,
            time_limit_s=settings.render_time_limit_s,
        )
        self._containers_json: str | None = None
        self._reclaimer: asyncio.Task[None] | None = None

    @property
    def longest_request_s(self) -> float:
        """An upper bound of how long a compute request holds its quota reservation [s]:
        the computations queued before it and its own, each within its deadline, plus a
        minute for everything else."""
        rounds = 1 + math.ceil(self.settings.compute_queue / self.settings.compute_workers)
        return rounds * self.pool.deadline_s + 60.0

    async def start(self) -> None:
        await run_in_threadpool(upgrade, self.engine)
        await self.reclaim()
        self.journal.start()
        if self.limiter.shared and not await self.limiter.check():
            log.warning(
                "REDIS_URL is set but Redis does not answer: computes answer 503 and "
                "/api/health reports degraded until it does"
            )
        await asyncio.gather(self.pool.warm(), self.renderer.warm())
        self._reclaimer = asyncio.create_task(self._reclaim_periodically())

    async def stop(self) -> None:
        if self._reclaimer is not None:
            self._reclaimer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reclaimer
        self.journal.stop()
        self.pool.shutdown()
        self.renderer.shutdown()
        self.engine.dispose()

    async def reclaim(self) -> int:
        """Gives back the quota reservations that no running request holds any more."""
        stale_before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=self.longest_request_s)
        given = await self.db(self.store.reclaim_reservations, stale_before=stale_before)
        if given:
            log.warning("gave back %d quota reservations of requests that did not finish", given)
        return given

    async def _reclaim_periodically(self) -> None:
        while True:
            await asyncio.sleep(RECLAIM_EVERY_S)
            try:
                await self.reclaim()
            except Exception as exc:  # the database may be away for a while
                log.warning("quota reservations not checked: %s", type(exc).__name__)

    async def problems(self) -> list[str]:
        """What keeps the service from working fully: ``"database: …"``, ``"redis: …"``."""

        async def database() -> str | None:
            try:
                await asyncio.wait_for(self.db(self.store.ping), HEALTH_TIMEOUT_S)
            except Exception:
                return "database: unreachable"
            return None

        async def redis() -> str | None:
            if not self.limiter.shared or await self.limiter.check():
                return None
            return "redis: unreachable (computes are refused with 503)"

        found = await asyncio.gather(database(), redis())
        return [p for p in found if p is not None]

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Runs a (blocking) store call off the event loop."""
        return await run_in_threadpool(partial(fn, *args, **kwargs))

    async def containers_json(self) -> str:
        """The thermal container catalog as a ContainerList body, built once."""
        if self._containers_json is None:
            rows = await run_in_threadpool(catalog_containers)
            self._containers_json = ContainerList(containers=rows).model_dump_json()
        return self._containers_json
