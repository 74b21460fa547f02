"""Ambient sources of a segment: override, weather, seasonal, location-default; month splits."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from thermal.ambient import MOCK_AMBIENT_C, month_spans, segment_ambient
from thermal.errors import UnknownLocationTypeError
from thermal.weather import DailyMeanForecast

UTC = dt.UTC


def _t(y: int, m: int, d: int, h: int = 0) -> dt.datetime:
    return dt.datetime(y, m, d, h, tzinfo=UTC)


def _one(parts):
    assert len(parts) == 1
    return parts[0]


def test_fixed_location_type_overrides_the_city():
    part = _one(segment_ambient("cold_room", "dubai-ae", _t(2025, 7, 1), 10.0))
    assert (part.ambient_c, part.source, part.diurnal_allowance_c) == (5.0, "override", 1.0)
    hold = _one(segment_ambient("aircraft_hold", "yakutsk-ru", _t(2025, 1, 1), 6.0))
    assert (hold.ambient_c, hold.source) == (15.0, "override")


def test_seasonal_normal_of_the_month():
    part = _one(segment_ambient("warehouse", "moscow-ru", _t(2025, 7, 10), 48.0))
    assert (part.ambient_c, part.source, part.month, part.diurnal_allowance_c) == (
        19.2,
        "seasonal",
        7,
        5.0,
    )


def test_segment_crossing_a_month_boundary_is_split():
    parts = segment_ambient("truck", "moscow-ru", _t(2025, 1, 31, 12), 24.0)
    assert [(p.month, p.hours, p.ambient_c) for p in parts] == [(1, 12.0, -6.5), (2, 12.0, -6.7)]
    assert parts[1].start == _t(2025, 2, 1)


def test_year_boundary():
    parts = segment_ambient("truck", "moscow-ru", _t(2025, 12, 31, 20), 10.0)
    assert [(p.month, p.hours, p.ambient_c) for p in parts] == [(12, 4.0, -5.2), (1, 6.0, -6.5)]
    assert parts[1].start == _t(2026, 1, 1)


def test_segment_ending_exactly_at_midnight_stays_in_its_month():
    parts = segment_ambient("truck", "moscow-ru", _t(2025, 6, 30, 12), 12.0)
    assert [(p.month, p.hours) for p in parts] == [(6, 12.0)]


def test_city_without_climate_data_borrows_the_nearest_normals_within_300_km():
    part = _one(segment_ambient("truck", "leipzig-de", _t(2025, 1, 10), 3.0))
    assert (part.ambient_c, part.source) == (0.6, "seasonal")  # Berlin, 150 km
    assert part.city_key == "leipzig-de" and part.climate_city_key == "berlin-de"
    assert 140 < part.climate_distance_km < 160


def test_city_without_climate_data_beyond_300_km_uses_the_location_default():
    part = _one(segment_ambient("truck", "kazan-ru", _t(2025, 1, 10), 3.0))
    assert (part.ambient_c, part.source) == (25.0, "location-default")


def test_unknown_city_under_mock_data_is_at_30c():
    mock = _one(segment_ambient("handling", "atlantis", _t(2025, 1, 10), 2.0, use_mock=True))
    assert (mock.ambient_c, mock.source) == (MOCK_AMBIENT_C, "location-default")
    real = _one(segment_ambient("handling", "atlantis", _t(2025, 1, 10), 2.0, use_mock=False))
    assert (real.ambient_c, real.source) == (25.0, "location-default")


def test_weather_provider_wins_over_climate_where_it_covers():
    forecast = DailyMeanForecast({("moscow-ru", dt.date(2025, 1, 10)): -20.0})
    covered = _one(segment_ambient("truck", "moscow-ru", _t(2025, 1, 10, 2), 6.0, weather=forecast))
    assert (covered.ambient_c, covered.source) == (-20.0, "weather")
    outside = _one(segment_ambient("truck", "moscow-ru", _t(2025, 1, 11), 6.0, weather=forecast))
    assert (outside.ambient_c, outside.source) == (-6.5, "seasonal")
    fixed = _one(segment_ambient("cold_room", "moscow-ru", _t(2025, 1, 10), 6.0, weather=forecast))
    assert fixed.source == "override"


def test_unknown_location_type_lists_the_valid_ones():
    with pytest.raises(UnknownLocationTypeError, match="cold_room") as info:
        segment_ambient("igloo", "moscow-ru", _t(2025, 1, 1), 1.0)
    assert isinstance(info.value, KeyError)


@given(
    st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2030, 1, 1)),
    st.floats(0, 2000, allow_nan=False),
)
def test_month_spans_cover_the_span_one_month_each(start, hours):
    start = start.replace(tzinfo=UTC)
    parts = month_spans(start, hours)
    assert_allclose(sum(h for _, h, _ in parts), hours, rtol=1e-12, atol=1e-9)
    assert parts[0][0] == start
    for (s, h, m), nxt in zip(parts, [*parts[1:], None], strict=True):
        assert s.month == m
        if nxt is not None:
            assert nxt[0].day == 1 and nxt[0].hour == 0
            assert_allclose((nxt[0] - s).total_seconds() / 3600, h, rtol=1e-12)
