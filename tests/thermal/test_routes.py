"""Routes: transit precedence, route maps (catalog, override, default template), errors."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from thermal.errors import ThermalDataMissingError, ThermalInputError, TransitUnknownError
from thermal.routes import (
    MOCK_TRANSIT_HOURS,
    RouteOverrideError,
    RouteSegment,
    catalog_route,
    default_template,
    location_type,
    location_types,
    normalize_overrides,
    resolvable_transit_hours,
    resolve_route,
    resolve_transit,
    scale_segments,
    transit_from_dates,
)

TODAY = dt.date(2025, 7, 1)
D = dt.date


def _hours(route) -> float:
    return sum(s.hours for s in route.segments)


# --------------------------------------------------------------------------- transit precedence


def test_transit_hours_win_over_dates_and_route():
    t = resolve_transit(
        transit_hours=30.0, send_date=D(2025, 7, 1), receive_date=D(2025, 7, 5), today=TODAY,
        route_hours=19.0,
    )  # fmt: skip
    assert (t.hours, t.source) == (30.0, "transit_hours")


@pytest.mark.parametrize(
    ("send", "receive", "hours"),
    [(D(2025, 7, 1), D(2025, 7, 4), 72.0), (D(2025, 7, 1), D(2025, 7, 1), 24.0),
     (D(2025, 1, 31), D(2025, 2, 1), 24.0)],
)  # fmt: skip
def test_dates_give_whole_days(send, receive, hours):
    t = resolve_transit(
        transit_hours=None, send_date=send, receive_date=receive, today=TODAY, route_hours=19.0
    )
    assert (t.hours, t.source) == (hours, "dates")


def test_receive_date_alone_counts_from_today():
    t = transit_from_dates(None, D(2025, 7, 3), TODAY)
    assert (t.hours, t.source) == (48.0, "receive_date")
    assert transit_from_dates(None, TODAY, TODAY).hours == 24.0
    assert transit_from_dates(D(2025, 7, 1), None, TODAY) is None


def test_receive_before_send_is_an_input_error_on_receive_date():
    with pytest.raises(ThermalInputError) as info:
        resolve_transit(
            transit_hours=None, send_date=D(2025, 7, 5), receive_date=D(2025, 7, 4), today=TODAY
        )
    assert isinstance(info.value, ValueError)
    assert info.value.field == "receive_date"
    assert "2025-07-05" in info.value.message and "2025-07-04" in info.value.message
    with pytest.raises(ThermalInputError, match="today"):
        transit_from_dates(None, D(2025, 6, 30), TODAY)


def test_receive_date_out_of_range_is_an_input_error_even_with_transit_hours():
    for hours in (None, 10.0):
        with pytest.raises(ThermalInputError) as info:
            resolve_transit(
                transit_hours=hours,
                send_date=D(2027, 1, 1),
                receive_date=D(2028, 1, 3),  # 367 days (2027 is no leap year)
                today=TODAY,
            )
        assert info.value.field == "receive_date"
        assert "366 days after send_date 2027-01-01" in info.value.message
    last = resolve_transit(
        transit_hours=10.0, send_date=D(2027, 1, 1), receive_date=D(2028, 1, 2), today=TODAY
    )
    assert (last.hours, last.source) == (10.0, "transit_hours")
    # a receive date alone counts from today, whatever gives the transit
    for receive, words in ((D(2025, 6, 30), "not be before today"), (D(2026, 7, 3), "366 days")):
        for hours in (None, 10.0):
            with pytest.raises(ThermalInputError, match=words) as info:
                resolve_transit(
                    transit_hours=hours, send_date=None, receive_date=receive, today=TODAY
                )
            assert info.value.field == "receive_date"


def test_route_hours_then_mock_then_unknown():
    none = {"transit_hours": None, "send_date": D(2025, 7, 1), "receive_date": None, "today": TODAY}
    assert resolve_transit(**none, route_hours=19.0).source == "route"
    assert resolve_transit(**none, use_mock=True).hours == MOCK_TRANSIT_HOURS
    with pytest.raises(TransitUnknownError, match="transit_hours") as info:
        resolve_transit(**none)
    assert info.value.code == "TRANSIT_UNKNOWN"


# --------------------------------------------------------------------------- route maps


def test_catalog_route_keeps_its_hours_when_it_gives_the_transit():
    route = resolve_route("Москва", "LED", send_date=D(2025, 1, 15), today=TODAY)
    assert (route.origin_key, route.destination_key) == ("moscow-ru", "saint-petersburg-ru")
    assert (route.map_source, route.network, route.transit.source) == (
        "catalog",
        "domestic-road",
        "route",
    )
    stored = catalog_route("moscow-ru", "saint-petersburg-ru")
    # the 634 km line-haul is split along the great circle; every other segment is as stored
    kept = [s for s in route.segments if not s.label.startswith("Line-haul, part")]
    assert kept == [s for s in stored if not s.label.startswith("Line-haul")]
    parts = [s for s in route.segments if s.label.startswith("Line-haul, part")]
    assert [s.label for s in parts] == [
        "Line-haul, part 1 of 2 (317 km)",
        "Line-haul, part 2 of 2 (317 km)",
    ]
    assert_allclose(
        sum(s.hours for s in parts),
        sum(s.hours for s in stored if s.label.startswith("Line-haul")),
        rtol=1e-12,
    )
    assert_allclose(_hours(route), route.transit_hours, rtol=1e-12)
    assert route.start == dt.datetime(2025, 1, 15, tzinfo=dt.UTC)


def test_catalog_route_is_scaled_to_the_transit_used():
    stored = catalog_route("moscow-ru", "saint-petersburg-ru")
    route = resolve_route("Moscow", "Saint Petersburg", transit_hours=38.0, today=TODAY)
    assert route.map_source == "catalog"
    assert_allclose([s.hours for s in route.segments], [2 * s.hours for s in stored], rtol=1e-12)
    assert_allclose(_hours(route), 38.0, rtol=1e-12)
    assert route.start == dt.datetime(2025, 7, 1, tzinfo=dt.UTC)


def test_routes_are_directional():
    assert catalog_route("moscow-ru", "murmansk-ru") is not None
    back = resolve_route("Murmansk", "Moscow", transit_hours=24.0, today=TODAY)
    assert back.map_source == "default-template"


def test_default_template_when_no_route_is_stored():
    # 403 km apart: the main leg stays whole (rated at the harsher end)
    route = resolve_route("Sochi", "Rostov-on-Don", transit_hours=50.0, today=TODAY)
    assert route.map_source == "default-template"
    assert [(s.label, s.location_type_key, s.city_keys, s.hours) for s in route.segments] == [
        ("Origin handling", "handling", ("sochi-ru",), 2.0),
        ("Main leg", "main_leg", ("sochi-ru", "rostov-on-don-ru"), 46.0),
        ("Destination handling", "handling", ("rostov-on-don-ru",), 2.0),
    ]


def test_short_template_has_no_main_leg():
    segs = default_template("a", "b", 3.0)
    assert [s.hours for s in segs] == [1.5, 1.5]
    with pytest.raises(ValueError, match="> 0"):
        default_template("a", "b", 0.0)


def test_organisation_route_wins_over_the_catalog():
    overrides = {
        ("Москва", "LED"): [
            {"location_type_key": "cold_room", "city_key": "moscow-ru", "hours": 4, "label": "Hub"},
            {"location_type_key": "reefer_truck", "city_key": "Санкт-Петербург", "hours": 12},
        ]
    }
    route = resolve_route("Moscow", "Saint Petersburg", today=TODAY, overrides=overrides)
    assert route.map_source == "override"
    assert route.transit.source == "route" and route.transit_hours == 16.0
    assert route.segments[1] == RouteSegment(
        "Reefer truck", "reefer_truck", ("saint-petersburg-ru",), 12.0
    )
    scaled = resolve_route(
        "Moscow", "Saint Petersburg", transit_hours=32.0, today=TODAY, overrides=overrides
    )
    assert [s.hours for s in scaled.segments] == [8.0, 24.0]


@pytest.mark.parametrize(
    ("segment", "message"),
    [
        (
            {"location_type_key": "igloo", "city_key": "moscow-ru", "hours": 2},
            "location_type_key must be one of",
        ),
        ({"location_type_key": "truck", "city_key": "moscow-ru", "hours": 0}, "hours must be > 0"),
        ({"location_type_key": "truck", "hours": 2}, "needs location_type_key, city_key"),
    ],
)
def test_malformed_organisation_routes(segment, message):
    with pytest.raises(RouteOverrideError, match=message):
        normalize_overrides({("moscow-ru", "kazan-ru"): [segment]})
    with pytest.raises(RouteOverrideError, match="no segments"):
        normalize_overrides({("moscow-ru", "kazan-ru"): []})


def test_unknown_city_is_missing_thermal_data_without_mock():
    with pytest.raises(ThermalDataMissingError, match="Atlantis") as info:
        resolve_route("Atlantis", "Moscow", transit_hours=10.0, today=TODAY)
    assert info.value.code == "THERMAL_DATA_MISSING"
    assert "origin" in info.value.message


def test_mock_data_fills_unknown_cities_and_transit():
    route = resolve_route("Atlantis", "Moscow", today=TODAY, use_mock=True)
    assert (route.origin_key, route.origin_known, route.destination_known) == (
        "atlantis",
        False,
        True,
    )
    assert (route.map_source, route.transit_hours, route.transit.source) == (
        "default-template",
        72.0,
        "mock",
    )
    assert route.use_mock


def test_known_cities_without_transit_are_transit_unknown():
    with pytest.raises(TransitUnknownError):
        resolve_route("Moscow", "Cairo", today=TODAY)


def test_resolvable_transit_for_checks_without_thermal_data():
    assert resolvable_transit_hours("Atlantis", "Moscow", today=TODAY) == 0.0
    assert resolvable_transit_hours("Moscow", "LED", today=TODAY) == 19.0
    assert resolvable_transit_hours("Atlantis", "Moscow", transit_hours=5.0, today=TODAY) == 5.0
    assert resolvable_transit_hours("Atlantis", "Moscow", today=TODAY, use_mock=True) == 72.0
    with pytest.raises(ThermalInputError):
        resolvable_transit_hours(
            "a", "b", send_date=D(2025, 7, 2), receive_date=D(2025, 7, 1), today=TODAY
        )


def test_location_type_lookup():
    assert location_type("cold_room")["fixed_ambient_c"] == 5.0
    assert "aircraft_hold" in location_types().index


@given(
    st.lists(st.floats(0.01, 100, allow_nan=False), min_size=1, max_size=12),
    st.floats(0.5, 500, allow_nan=False),
)
def test_scaled_segments_sum_to_the_transit(hours, total):
    segs = [RouteSegment(f"s{i}", "truck", ("moscow-ru",), h) for i, h in enumerate(hours)]
    scaled = scale_segments(segs, total)
    assert_allclose(sum(s.hours for s in scaled), total, rtol=1e-12)
    ratios = [s.hours / h for s, h in zip(scaled, hours, strict=True)]
    assert_allclose(ratios, ratios[0], rtol=1e-6)


@given(st.floats(0.01, 2000, allow_nan=False))
def test_template_sums_to_the_transit(total):
    assert_allclose(sum(s.hours for s in default_template("a", "b", total)), total, rtol=1e-12)


@pytest.mark.parametrize("field", ["send_date", "receive_date"])
@pytest.mark.parametrize("value", ["2027-01-15", 20270115, dt.datetime(2027, 1, 15, 8, 0)])
def test_a_date_of_another_type_is_named(field, value):
    with pytest.raises(ThermalInputError) as info:
        resolve_route("Berlin", "Munich", transit_hours=24, use_mock=False, **{field: value})
    assert info.value.field == field
    assert "must be a datetime.date" in info.value.message


def test_an_organisation_route_longer_than_the_longest_transit_is_refused():
    # a route's total is the transit of a plan that gives none: at most 366 days
    seg = {"location_type_key": "truck", "city_key": "moscow-ru", "hours": 5000}
    with pytest.raises(RouteOverrideError, match="10000 h in all, more than the longest transit"):
        normalize_overrides({("moscow-ru", "kazan-ru"): [seg, seg]})
    assert normalize_overrides({("moscow-ru", "kazan-ru"): [dict(seg, hours=4392)] * 2})


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"origin": None}, "origin"),
        ({"origin": 5}, "origin"),
        ({"destination": None}, "destination"),
        ({"destination": ["Kazan"]}, "destination"),
        ({"transit_hours": "24"}, "transit_hours"),
        ({"transit_hours": True}, "transit_hours"),
    ],
)
def test_cities_and_hours_of_another_type_are_named(kwargs, field):
    """Not a TypeError from the name normaliser or the range check, with or without mock data."""
    args = {"origin": "Moscow", "destination": "Kazan", "transit_hours": 24} | kwargs
    for use_mock in (False, True):
        with pytest.raises(ThermalInputError) as info:
            resolve_route(
                args["origin"],
                args["destination"],
                transit_hours=args["transit_hours"],
                use_mock=use_mock,
                today=TODAY,
            )
        assert info.value.field == field


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ("moscow-ru", "must map \\(origin, destination\\)"),
        ([("moscow-ru", "kazan-ru")], "must map \\(origin, destination\\)"),
        ({("moscow-ru",): []}, "the key must be \\(origin, destination\\)"),
        ({"moscow-ru": []}, "the key must be \\(origin, destination\\)"),
        ({("moscow-ru", "kazan-ru"): "truck"}, "segments must be a list"),
        ({("moscow-ru", "kazan-ru"): {"hours": 2}}, "segments must be a list"),
    ],
)
def test_organisation_routes_of_another_shape_are_refused(overrides, message):
    """A RouteOverrideError saying what shape was expected, not an AttributeError or a
    bare unpacking ValueError."""
    with pytest.raises(RouteOverrideError, match=message):
        resolve_route("Moscow", "Kazan", transit_hours=24, overrides=overrides, today=TODAY)
