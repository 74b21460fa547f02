"""Per-key rate limits (``limits``) and per-organisation quota periods.

Counters live in memory, or in Redis when ``REDIS_URL`` is set so that every worker process
and host shares one count. When Redis does not answer, :meth:`RateLimiter.hit` raises
:class:`LimiterUnavailable` within :data:`REDIS_TIMEOUT_S` (the service then admits no
computation) and :meth:`RateLimiter.check` is False.
"""

from __future__ import annotations

import asyncio
import calendar
import datetime as dt
import logging
import time

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import Storage
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string

log = logging.getLogger(__name__)

#: How long one Redis operation (connect, command) may take [s].
REDIS_TIMEOUT_S = 2.0


class LimiterUnavailable(Exception):
    """The counters' store (Redis) did not answer."""


class RateLimiter:
    """Fixed one-minute windows per API key."""

    def __init__(
        self, *, redis_url: str | None, sandbox_per_minute: int, production_per_minute: int
    ) -> None:
        self.shared = bool(redis_url)
        if redis_url:
            storage = storage_from_string(
                f"async+{redis_url}",
                implementation="redispy",
                socket_connect_timeout=REDIS_TIMEOUT_S,
                socket_timeout=REDIS_TIMEOUT_S,
            )
        else:
            storage = storage_from_string("async+memory://")
        assert isinstance(storage, Storage)  # the "async+" schemes give asyncio storages
        self._storage = storage
        self._limiter = FixedWindowRateLimiter(storage)
        self._items: dict[bool, RateLimitItem] = {
            True: RateLimitItemPerMinute(sandbox_per_minute),
            False: RateLimitItemPerMinute(production_per_minute),
        }

    async def hit(self, key_id: str, *, sandbox: bool) -> float | None:
        """Counts a request; None when allowed, else the seconds until the window resets.

        Raises
        ------
        LimiterUnavailable
            Redis did not answer.
        """
        try:
            return await asyncio.wait_for(self._hit(key_id, sandbox), 2 * REDIS_TIMEOUT_S)
        except Exception as exc:
            log.warning("rate limit not counted: Redis did not answer (%s)", type(exc).__name__)
            raise LimiterUnavailable("the rate-limit store did not answer") from None

    async def _hit(self, key_id: str, sandbox: bool) -> float | None:
        item = self._items[sandbox]
        if await self._limiter.hit(item, "compute", key_id):
            return None
        stats = await self._limiter.get_window_stats(item, "compute", key_id)
        return max(1.0, stats.reset_time - time.time())

    async def check(self) -> bool:
        """True when the counters' store answers (always, for counters in memory)."""
        try:
            return bool(await asyncio.wait_for(self._storage.check(), 2 * REDIS_TIMEOUT_S))
        except Exception:
            return False


def quota_period(now: dt.datetime, *, sandbox: bool) -> tuple[str, float]:
    """The quota period ``now`` falls in and the seconds until the next one starts.

    Sandbox quotas run per UTC day, production quotas per UTC calendar month.
    """
    now = now.astimezone(dt.UTC)
    if sandbox:
        start = dt.datetime(now.year, now.month, now.day, tzinfo=dt.UTC)
        nxt = start + dt.timedelta(days=1)
        name = f"sandbox:{start:%Y-%m-%d}"
    else:
        days = calendar.monthrange(now.year, now.month)[1]
        start = dt.datetime(now.year, now.month, 1, tzinfo=dt.UTC)
        nxt = start + dt.timedelta(days=days)
        name = f"production:{start:%Y-%m}"
    return name, (nxt - now).total_seconds()
