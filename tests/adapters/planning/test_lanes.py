"""Organisation lanes: checked against the catalogs, and used by the planner."""

from __future__ import annotations

import datetime as dt

import pytest

from adapters.planning import PlanInputError, compute_plan
from adapters.planning.lanes import checked_lane, lane_json, route_overrides, stored_lane
from adapters.planning.schemas import ROUTE_LANE_EXAMPLE, RouteLaneInput


def test_the_documented_example_is_a_valid_lane():
    lane = checked_lane("Москва", "KZN", RouteLaneInput.model_validate(ROUTE_LANE_EXAMPLE))
    assert [s.cityKey for s in lane.segments] == ["moscow-ru", "moscow-ru", "kazan-ru"]
    assert lane.segments[0].label == "Own hub, Moscow"
    assert lane.segments[1].label == "Reefer truck set to +5 °C"  # the location type's label


@pytest.mark.parametrize(
    ("origin", "segment", "field"),
    [
        ("Atlantis", {}, "origin"),
        ("Moscow", {"cityKey": "Atlantis"}, "segments[0].cityKey"),
        ("Moscow", {"locationTypeKey": "igloo"}, "segments[0].locationTypeKey"),
    ],
)
def test_unknown_cities_and_location_types_name_the_field(origin, segment, field):
    body = {"segments": [{"locationTypeKey": "truck", "cityKey": "Moscow", "hours": 5} | segment]}
    with pytest.raises(PlanInputError) as info:
        checked_lane(origin, "Kazan", RouteLaneInput.model_validate(body))
    assert info.value.field == field


def test_a_lane_longer_than_the_longest_transit_is_refused():
    # each segment may take up to 8,784 h, the lane as a whole no more: its total is the
    # transit of a plan that gives no transitHours or dates
    seg = {"locationTypeKey": "truck", "cityKey": "Moscow", "hours": 4392.5}
    with pytest.raises(PlanInputError) as info:
        checked_lane("Moscow", "Tokyo", RouteLaneInput.model_validate({"segments": [seg, seg]}))
    assert info.value.field == "segments"
    assert "at most 8784 h in all (got 8785 h)" in str(info.value)
    seg["hours"] = 4392
    lane = RouteLaneInput.model_validate({"segments": [seg, seg]})
    assert len(checked_lane("Moscow", "Tokyo", lane).segments) == 2


def test_a_stored_lane_drives_the_thermal_check():
    lane = checked_lane("Moscow", "Kazan", RouteLaneInput.model_validate(ROUTE_LANE_EXAMPLE))
    shown = stored_lane("moscow-ru", "kazan-ru", lane_json(lane), dt.datetime.now(dt.UTC))
    assert shown.origin == "moscow-ru" and len(shown.segments) == 3
    overrides = route_overrides([("moscow-ru", "kazan-ru", lane_json(lane))])
    body = {
        "originCity": "Moscow",
        "destinationCity": "Казань",
        "sendDate": "2027-01-10",
        "cargos": [
            {"id": "v", "name": "Vaccines", "lengthCm": 30, "widthCm": 20, "heightCm": 15,
             "weightKg": 2.5, "quantity": 4, "temperatureMode": "PLUS_2_8"}
        ],
    }  # fmt: skip
    result = compute_plan(body, use_mock_thermal=False, route_overrides=overrides)
    tf = result.modes[0].thermalFilter
    assert tf.mapSource == "override"
    assert tf.routeSegmentsUsed is not None
    first = tf.routeSegmentsUsed[0]
    assert (first.label, first.ambientC, first.ambientSource) == (
        "Own hub, Moscow",
        18.0,
        "override",
    )
    assert result.modes[0].transitHoursUsed == 22.0
