"""The thermal filter of a mode over a resolved route: loads, segments, eligibility."""

from __future__ import annotations

import datetime as dt

import pytest
from numpy.testing import assert_allclose

from thermal.catalog import container_slugs
from thermal.errors import ThermalInputError
from thermal.routes import resolve_route
from thermal.thermal_filter import ThermalAssessment, assess_mode
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
        "Sochi", "Rostov-on-Don", send_date=dt.date(2025, 1, 30), transit_hours=60.0, today=TODAY
    )
    segs = assess_mode(route, "PLUS_15_25", container_slugs()).segments.to_dict("records")
    labels = [s["label"] for s in segs]
    assert labels == ["Origin handling", "Main leg (Jan)", "Main leg (Feb)", "Destination handling"]
    assert [s["hours"] for s in segs] == [2.0, 46.0, 10.0, 2.0]
    assert_allclose(sum(s["hours"] for s in segs), 60.0, rtol=RTOL)


@pytest.mark.parametrize(
    ("mode", "city"), [("PLUS_15_25", "rostov-on-don-ru"), ("MINUS_25_15", "sochi-ru")]
)
def test_template_main_leg_is_rated_at_the_harsher_end(mode, city):
    # January: Rostov −3.0 °C is far from +20, Sochi 6.1 °C far from −20 (403 km: one leg)
    route = resolve_route(
        "Sochi", "Rostov-on-Don", send_date=dt.date(2025, 1, 5), transit_hours=48.0, today=TODAY
    )
    segs = assess_mode(route, mode, container_slugs()).segments.to_dict("records")
    assert segs[1]["label"] == "Main leg" and segs[1]["city_key"] == city


def test_a_template_main_leg_whose_ends_load_both_sides_is_rated_half_at_each_end():
    # October, +15..+25 (set point +20): Quito 14.3 °C loads the cold side, Guayaquil
    # 25.6 °C the hot side (271 km: one leg). Rated wholly at either end, the other side's
    # load of the leg would be missing: a box that holds too little heat for the hot side
    # (eps-parcel-3l, 360 °C·h) passed, rated at Quito, whose load is the larger.
    route = resolve_route(
        "Quito", "Guayaquil", send_date=dt.date(2027, 10, 5), transit_hours=80.0, today=TODAY
    )
    a = assess_mode(route, "PLUS_15_25", container_slugs())
    segs = a.segments.to_dict("records")
    assert [(s["label"], s["city_key"], s["hours"]) for s in segs] == [
        ("Origin handling", "quito-ec", 2.0),
        ("Main leg, part 1 of 2", "quito-ec", 38.0),
        ("Main leg, part 2 of 2", "guayaquil-ec", 38.0),
        ("Destination handling", "guayaquil-ec", 2.0),
    ]
    assert sum(s["hours"] for s in segs) == 80.0
    hot = sum(s["load_dh"] for s in segs if s["ambient_c"] >= 20.0)
    assert_allclose(hot, 40 * (25.6 - 20 + 5.0), rtol=RTOL)  # 2 + 38 h at Guayaquil
    assert "eps-parcel-3l" not in a.eligibility.eligible
    (reason,) = [r.reason for r in a.eligibility.rejected if r.slug == "eps-parcel-3l"]
    assert "hot" in reason


def test_a_template_main_leg_crossing_a_month_is_halved_and_split_by_month():
    # the second half starts where the first ends: its month parts follow from there
    route = resolve_route(
        "Quito", "Guayaquil", send_date=dt.date(2027, 10, 31), transit_hours=80.0, today=TODAY
    )
    segs = assess_mode(route, "PLUS_15_25", container_slugs()).segments.to_dict("records")
    assert [(s["label"], s["hours"]) for s in segs] == [
        ("Origin handling", 2.0),
        ("Main leg, part 1 of 2 (Oct)", 22.0),
        ("Main leg, part 1 of 2 (Nov)", 16.0),
        ("Main leg, part 2 of 2", 38.0),
        ("Destination handling", 2.0),
    ]


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


def test_a_city_without_normals_borrows_the_nearest_within_300_km():
    route = resolve_route(
        "Leipzig", "Liège", send_date=dt.date(2025, 1, 10), transit_hours=30.0, today=TODAY
    )
    segs = assess_mode(route, "PLUS_2_8", container_slugs()).segments.to_dict("records")
    first, last = segs[0], segs[-1]
    assert first["city_key"] == "leipzig-de" and first["ambient_source"] == "seasonal"
    assert first["label"] == "Origin handling (climate of Berlin, 150 km away)"
    assert first["ambient_c"] == 0.6  # Berlin's January normal
    assert last["label"] == "Destination handling (climate of Brussels, 89 km away)"


def test_beyond_300_km_a_city_keeps_its_location_default():
    # Kazan's nearest city with normals is Moscow, 719 km away
    route = resolve_route("Moscow", "Kazan", send_date=dt.date(2025, 1, 15), today=TODAY)
    segs = assess_mode(route, "PLUS_2_8", container_slugs()).segments
    kazan = segs.loc[segs["city_key"] == "kazan-ru"]
    assert set(kazan["ambient_source"]) == {"location-default"}


def test_long_template_leg_is_split_along_the_great_circle():
    # Saint Petersburg -> Irkutsk (4,4xx km) has no stored route: the template's main leg
    route = resolve_route(
        "LED", "Irkutsk", send_date=dt.date(2025, 1, 10), transit_hours=100.0, today=TODAY
    )
    assert route.map_source == "default-template"
    legs = [s for s in route.segments if s.location_type_key == "main_leg"]
    assert len(legs) == 9  # ceil(4,2xx km / 500 km)
    assert all(s.label.startswith("Main leg, part ") for s in legs)
    assert_allclose([s.hours for s in legs], [96.0 / 9] * 9, rtol=1e-12)
    assert_allclose(sum(s.hours for s in route.segments), 100.0, rtol=1e-12)
    cities = [s.city_keys[0] for s in legs]
    assert cities[0] == "saint-petersburg-ru" and cities[-1] == "irkutsk-ru"
    assert "novosibirsk-ru" in cities  # the Siberian stretch takes Siberian normals
    segs = assess_mode(route, "PLUS_2_8", container_slugs()).segments
    assert_allclose(segs["hours"].sum(), 100.0, rtol=1e-9)


def test_short_legs_flights_and_reefer_bodies_stay_whole():
    short = resolve_route("Moscow", "Cairo", transit_hours=4.0, today=TODAY)
    assert [s.label for s in short.segments] == ["Origin handling", "Destination handling"]
    air = resolve_route("Moscow", "Novosibirsk", send_date=dt.date(2025, 1, 10), today=TODAY)
    flight = [s for s in air.segments if s.location_type_key == "aircraft_hold"]
    assert [s.label for s in flight] == ["Flight"]


def test_an_organisation_lane_is_used_as_it_stands():
    overrides = {("moscow-ru", "irkutsk-ru"): [
        {"location_type_key": "truck", "city_key": "moscow-ru", "hours": 50},
        {"location_type_key": "truck", "city_key": "irkutsk-ru", "hours": 50},
    ]}  # fmt: skip
    route = resolve_route("Moscow", "Irkutsk", today=TODAY, overrides=overrides)
    assert route.map_source == "override" and len(route.segments) == 2


def test_a_lane_segment_with_its_own_fixed_ambient_is_an_override():
    overrides = {("moscow-ru", "kazan-ru"): [
        {"location_type_key": "warehouse", "city_key": "moscow-ru", "hours": 10,
         "fixed_ambient_c": 18.0, "label": "Own controlled hub"},
        {"location_type_key": "truck", "city_key": "kazan-ru", "hours": 14},
    ]}  # fmt: skip
    route = resolve_route(
        "Moscow", "Kazan", send_date=dt.date(2025, 1, 10), today=TODAY, overrides=overrides
    )
    segs = assess_mode(route, "PLUS_15_25", container_slugs()).segments.to_dict("records")
    assert route.map_source == "override"
    assert (segs[0]["label"], segs[0]["ambient_c"], segs[0]["ambient_source"]) == (
        "Own controlled hub",
        18.0,
        "override",
    )
    assert_allclose(sum(s["hours"] for s in segs), 24.0, rtol=1e-12)


def test_assessment_repr_is_short_and_its_html_escapes_labels():
    import re

    a = assess_mode(_moscow_48h_override(7), "PLUS_2_8", container_slugs())
    text = repr(a)
    assert text.startswith("ThermalAssessment(mode='PLUS_2_8', segments=1, hours=48, ")
    assert f"eligible={len(a.eligibility.eligible)}" in text and len(text) < 250
    frame = a.containers_frame()
    assert len(frame) == len(container_slugs())
    assert frame["eligible"].sum() == len(a.eligibility.eligible)
    assert (frame.loc[~frame["eligible"], "reason"] != "").all()
    html = a._repr_html_()
    assert html.count("<table") == 2
    plain = re.sub(r"<[^>]+>", "", html)
    assert f"{a.required_load_dh:.1f} °C·h" in plain
    # a caller's label is text, not markup
    segments = a.segments.copy()
    segments.loc[0, "label"] = "<script>x</script>"
    odd = ThermalAssessment(
        a.mode, segments, a.raw_load_dh, a.required_load_dh, a.safety_margin, False,
        a.eligibility, "<b>override</b>",
    )  # fmt: skip
    shown = odd._repr_html_()
    assert "<script>" not in shown and "<b>override</b>" not in shown
    assert "&lt;script&gt;x&lt;/script&gt;" in shown and "&lt;b&gt;override" in shown


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"safety_margin": float("nan")}, "safety_margin"),
        ({"safety_margin": float("inf")}, "safety_margin"),
        ({"safety_margin": -0.5}, "safety_margin"),
        ({"safety_margin": "0.2"}, "safety_margin"),
        ({"safety_margin": None}, "safety_margin"),
        ({"candidates": "vip-cube-12l"}, "candidates"),
        ({"candidates": None}, "candidates"),
    ],
)
def test_bad_arguments_are_named(kwargs, field):
    """A NaN margin made every load NaN and rejected every container; one slug given as
    text was read letter by letter and checked nothing."""
    args = {"candidates": container_slugs()} | kwargs
    with pytest.raises(ThermalInputError) as info:
        assess_mode(_moscow_48h_override(7), "PLUS_2_8", **args)
    assert info.value.field == field


def test_the_containers_table_has_its_dtypes_when_no_container_was_checked():
    route = _moscow_48h_override(7)
    some = assess_mode(route, "PLUS_2_8", container_slugs()).containers_frame()
    none = assess_mode(route, "PLUS_2_8", []).containers_frame()
    assert none.empty and list(none.columns) == list(some.columns)
    assert none.dtypes.to_dict() == some.dtypes.to_dict()
    assert some["eligible"].dtype == bool and some["capacity_dh"].dtype == "float64"
