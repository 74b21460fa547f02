"""The one format of the service's times (adapters/timestamps.py)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from adapters.planning.schemas import RouteLane
from adapters.timestamps import iso_z

MOSCOW = dt.timezone(dt.timedelta(hours=3))


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (dt.datetime(2025, 1, 31, 8, 0, tzinfo=dt.UTC), "2025-01-31T08:00:00.000Z"),
        # naive: taken as UTC
        (dt.datetime(2025, 1, 31, 8, 0, 0, 123456), "2025-01-31T08:00:00.123Z"),
        # another zone: written in UTC, the fraction cut (not rounded) to milliseconds
        (dt.datetime(2025, 2, 1, 1, 30, 59, 999999, tzinfo=MOSCOW), "2025-01-31T22:30:59.999Z"),
    ],
)
def test_iso_z_writes_utc_with_milliseconds_and_z(moment, expected):
    assert iso_z(moment) == expected


@pytest.mark.parametrize(
    "moment",
    [
        dt.datetime(2025, 1, 31, 8, 0, 0, 123456),
        dt.datetime(2025, 2, 1, 1, 30, 59, 999999, tzinfo=MOSCOW),
    ],
)
def test_a_lanes_updated_at_is_written_as_a_plans_created_at(moment):
    # a plan's createdAt is written by iso_z; a lane's updatedAt goes through the same helper
    lane = RouteLane(origin="a", destination="b", segments=[], updatedAt=moment)
    assert json.loads(lane.model_dump_json())["updatedAt"] == iso_z(moment)
