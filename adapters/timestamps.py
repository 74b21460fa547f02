"""Times as the service writes them: UTC, ISO 8601 with milliseconds and ``Z``.

One home for the format of every time the API, the store and the CLI show (a plan's
``createdAt``, a lane's ``updatedAt``, a share link's ``expiresAt``, key and journal times),
with no dependency on the database or the web framework.
"""

from __future__ import annotations

import datetime as dt


def utc(value: dt.datetime) -> dt.datetime:
    """``value`` as an aware UTC time (a naive one is taken as UTC)."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def iso_z(value: dt.datetime) -> str:
    """ISO 8601 in UTC with ``Z`` and milliseconds, e.g. ``2025-01-31T08:00:00.000Z``.

    Parameters
    ----------
    value : datetime.datetime
        Aware time in any zone, or a naive one taken as UTC.

    Returns
    -------
    str
        The time in UTC, its fraction cut to milliseconds.
    """
    return utc(value).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"
