"""Per-key rate limits (``limits``) and per-organisation quota periods.

Counters live in memory, or in Redis when ``REDIS_URL`` is set so that every worker process
and host shares one count.
"""

from __future__ import annotations

import calendar
import datetime as dt
import time

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string


class RateLimiter:
    """Fixed one-minute windows per API key."""

    def __init__(
        self, *, redis_url: str | None, sandbox_per_minute: int, production_per_minute: int
    ) -> None:
        if redis_url:
            storage = storage_from_string(f"async+{redis_url}", implementation="redispy")
        else:
            storage = storage_from_string("async+memory://")
        self._limiter = FixedWindowRateLimiter(storage)
        self._items: dict[bool, RateLimitItem] = {
            True: RateLimitItemPerMinute(sandbox_per_minute),
            False: RateLimitItemPerMinute(production_per_minute),
        }

    async def hit(self, key_id: str, *, sandbox: bool) -> float | None:
        """Counts a request; None when allowed, else the seconds until the window resets."""
        item = self._items[sandbox]
        if await self._limiter.hit(item, "compute", key_id):
            return None
        stats = await self._limiter.get_window_stats(item, "compute", key_id)
        return max(1.0, stats.reset_time - time.time())


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
