"""The parts of the running service: store, request journal, rate limiter and compute pool."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from adapters.api.compute import ComputePool
from adapters.api.journal import JournalWriter
from adapters.api.limiting import RateLimiter
from adapters.api.schemas import ContainerList
from adapters.api.settings import Settings
from adapters.planning import catalog_containers
from adapters.store import Store, database_url, make_engine, upgrade

T = TypeVar("T")


class Service:
    """What the routes share, created with the app and started by its lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = make_engine(database_url(settings.database_url, settings.sqlite_path))
        self.store = Store(self.engine)
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
        )
        self._containers_json: str | None = None

    async def start(self) -> None:
        await run_in_threadpool(upgrade, self.engine)
        self.journal.start()
        await self.pool.warm()

    async def stop(self) -> None:
        self.journal.stop()
        self.pool.shutdown()
        self.engine.dispose()

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Runs a (blocking) store call off the event loop."""
        return await run_in_threadpool(partial(fn, *args, **kwargs))

    async def containers_json(self) -> str:
        """The thermal container catalog as a ContainerList body, built once."""
        if self._containers_json is None:
            rows = await run_in_threadpool(catalog_containers)
            self._containers_json = ContainerList(containers=rows).model_dump_json()
        return self._containers_json
