"""The thermal filter of a mode over a resolved route: loads, segments, eligibility."""

from __future__ import annotations

import datetime as dt

import pytest
from numpy.testing import assert_allclose

from thermal.catalog import container_slugs
from thermal.routes import resolve_route
from thermal.thermal_filter import assess_mode
from thermal.weather import DailyMeanForecast

TODAY = dt.date(2025, 7, 1)
RTOL = 1e-9


def _moscow_48h_override(month: int):
    overrides = {
        ("moscow-ru", "moscow-ru"): [
            {"location_type_key": "warehouse", "city_key": "moscow-ru", "hours": 48}
        ]
    }
    return resolve_route(
        "Moscow", "Moscow", send_date=dt.date(2025, month, 10), today=TODAY, overrides=overrides
    )


def test_reference_moscow_july_48h_plus_2_8():
    a = assess_mode(_moscow_48h_override(7), "PLUS_2_8", container_slugs())
    assert_allclose(a.raw_load_dh, 48 * (14.2 + 5), rtol=RTOL)
    assert_allclose(a.required_load_dh, 48 * (14.2 + 5) * 1.2, rtol=RTOL)
    [seg] = a.segments.to_dict("records")
    assert seg == pytest.approx(
        {
            "order": 1,
            "label": "Warehouse",
            "location_type_key": "warehouse",
            "city_key": "moscow-ru",
            "hours": 48.0,
            "ambient_c": 19.2,
            "ambient_source": "seasonal",
            "diurnal_allowance_c": 5.0,
            "load_dh": 921.6,
        }
    )
    assert a.map_source == "override" and a.weather_used is False
    assert a.safety_margin == 0.2


def test_safety_margin_is_a_parameter():
    a = assess_mode(_moscow_48h_override(7), "PLUS_2_8", container_slugs(), safety_margin=0.5)
    assert_allclose(a.required_load_dh, 921.6 * 1.5, rtol=RTOL)


def test_winter_load_falls_on_the_cold_side():
    slugs = container_slugs()
    jan = assess_mode(
        resolve_route("Moscow", "LED", send_date=dt.date(2025, 1, 15), today=TODAY),
        "PLUS_15_25",
        slugs,
    )
    jul = assess_mode(
        resolve_route("Moscow", "LED", send_date=dt.date(2025, 7, 15), today=TODAY),
        "PLUS_15_25",
        slugs,
    )
    # by hand: July 19 h of |19.x − 20| + 5, January 19 h of |−6.x − 20| + 5
    assert jan.required_load_dh > 4 * jul.required_load_dh
    # the whole January road lane, segment by segment (Moscow −6.5 °C, Saint Petersburg −5.5 °C)
    expected = 2 * 31.5 + 1 * 31.5 + 5.5 * 31.5 + 5.5 * 30.5 + 2 * 30.5 + 3 * 30.5
    assert_allclose(jan.raw_load_dh, expected, rtol=RTOL)
    # every January segment is colder than +20 °C: all of it loads the cold side
    assert jan.required_hot_dh == 0.0
    assert_allclose(jan.required_cold_dh, expected * 1.2, rtol=RTOL)
    assert_allclose(jan.required_hot_dh + jan.required_cold_dh, jan.required_load_dh, rtol=RTOL)
    # judged by its winter capacity, every 15..25 box carries the lane
    assert jan.eligibility.eligible == jul.eligibility.eligible == slugs


def test_segments_sum_to_the_transit_and_carry_every_field():
    route = resolve_route("Frankfurt", "Москва", send_date=dt.date(2025, 3, 31), today=TODAY)
    a = assess_mode(route, "PLUS_2_8", container_slugs())
    segs = a.segments.to_dict("records")
    assert_allclose(sum(s["hours"] for s in segs), route.transit_hours, rtol=RTOL)
    assert [s["order"] for s in segs] == list(range(1, len(segs) + 1))
    assert {"override", "seasonal"} <= {s["ambient_source"] for s in segs}
    assert list(a.segments.columns) == [
        "order",
        "label",
        "location_type_key",
        "city_key",
        "hours",
        "ambient_c",
        "ambient_source",
        "diurnal_allowance_c",
        "load_dh",
    ]
    assert_allclose(sum(s["load_dh"] for s in segs), a.raw_load_dh, rtol=1e-6)
    # import customs in Moscow runs from 31 March 16:30 to 1 April 16:30: split at midnight
    customs = [s for s in segs if s["location_type_key"] == "customs"]
    assert [(s["label"], s["city_key"], s["hours"], s["ambient_c"]) for s in customs] == [
        ("Import customs clearance (Mar)", "moscow-ru", 7.5, -1.0),
        ("Import customs clearance (Apr)", "moscow-ru", 16.5, 6.7),
    ]


def test_month_boundary_splits_a_reported_segment():
    route = resolve_route(
        "Moscow", "Cairo", send_date=dt.date(2025, 1, 30), transit_hours=60.0, today=TODAY
    )
    segs = assess_mode(route, "PLUS_15_25", container_slugs()).segments.to_dict("records")
    labels = [s["label"] for s in segs]
    assert labels == ["Origin handling", "Main leg (Jan)", "Main leg (Feb)", "Destination handling"]
    assert [s["hours"] for s in segs] == [2.0, 46.0, 10.0, 2.0]
    assert_allclose(sum(s["hours"] for s in segs), 60.0, rtol=RTOL)


@pytest.mark.parametrize(
    ("mode", "city"), [("PLUS_15_25", "moscow-ru"), ("MINUS_25_15", "cairo-eg")]
)
def test_template_main_leg_is_rated_at_the_harsher_end(mode, city):
    # January: Moscow −6.5 °C is far from +20, Cairo 13.6 °C far from −20
    route = resolve_route(
        "Moscow", "Cairo", send_date=dt.date(2025, 1, 5), transit_hours=48.0, today=TODAY
    )
    segs = assess_mode(route, mode, container_slugs()).segments.to_dict("records")
    assert segs[1]["label"] == "Main leg" and segs[1]["city_key"] == city


def test_weather_provider_is_reported():
    days = {("moscow-ru", dt.date(2025, 7, 10) + dt.timedelta(days=i)): 30.0 for i in range(2)}
    a = assess_mode(
        _moscow_48h_override(7), "PLUS_2_8", container_slugs(), weather=DailyMeanForecast(days)
    )
    assert a.weather_used is True
    assert a.segments["ambient_source"].iloc[0] == "weather"
    assert_allclose(a.raw_load_dh, 48 * 30.0, rtol=RTOL)


def test_mock_unknown_city_is_at_30c():
    route = resolve_route("Atlantis", "Atlantis", today=TODAY, use_mock=True)
    a = assess_mode(route, "PLUS_2_8", container_slugs())
    assert a.map_source == "default-template"
    assert set(a.segments["ambient_source"]) == {"location-default"}
    assert set(a.segments["ambient_c"]) == {30.0}
    assert_allclose(a.raw_load_dh, 72 * 30.0, rtol=RTOL)


def test_rejections_and_eligible_partition_the_candidates():
    route = resolve_route("Moscow", "Yakutsk", send_date=dt.date(2025, 1, 10), today=TODAY)
    a = assess_mode(route, "PLUS_2_8", container_slugs())
    rejected = {r.slug for r in a.eligibility.rejected}
    assert rejected.isdisjoint(a.eligibility.eligible)
    assert rejected | set(a.eligibility.eligible) == set(container_slugs())
