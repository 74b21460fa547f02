"""Degree-hours: segment load, required load, container capacity (docs/thermal.md)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from thermal.degree_hours import (
    equivalent_hold_hours,
    raw_load,
    required_load,
    segment_load,
    thermal_capacity,
)
from thermal.errors import ThermalInputError

# Reference values are computed by hand; float arithmetic is exact to 1e-9 relative.
RTOL = 1e-9

hours_st = st.floats(0, 1000, allow_nan=False)
temp_st = st.floats(-60, 60, allow_nan=False)


@pytest.mark.parametrize(
    ("hold_h", "mode", "expected_dh"),
    [
        (96.0, "PLUS_2_8", 96 * 25),  # 2,400 °C·h: the reference
        (100.0, "PLUS_2_8", 2500.0),
        (120.0, "PLUS_15_25", 120 * 10),
        (80.0, "MINUS_25_15", 80 * 50),
    ],
)
def test_thermal_capacity_is_hold_hours_times_distance_from_30c(hold_h, mode, expected_dh):
    assert_allclose(thermal_capacity(hold_h, mode), expected_dh, rtol=RTOL)


def test_moscow_july_48h_plus_2_8_reference():
    # 48 h at the July mean of 19.2 °C, set point 5 °C, allowance 5 °C: 48 × (14.2 + 5)
    assert_allclose(segment_load(48.0, 19.2, 5.0), 48 * (14.2 + 5), rtol=RTOL)
    assert_allclose(segment_load(48.0, 19.2, 5.0), 921.6, rtol=RTOL)


def test_cold_ambient_counts_its_distance_below_the_set_point():
    # Moscow January −6.5 °C for PLUS_15_25 (set point 20): 10 h × (26.5 + 5)
    assert_allclose(segment_load(10.0, -6.5, 20.0), 315.0, rtol=RTOL)


def test_allowance_taken_from_the_argument():
    assert_allclose(segment_load(10.0, 5.0, 5.0, 1.0), 10.0, rtol=RTOL)
    assert_allclose(segment_load(4.0, 30.0, 5.0, 7.5), 4 * 32.5, rtol=RTOL)


def test_vectorised_over_series_and_arrays():
    hours = pd.Series([2.0, 5.5, 48.0])
    ambient = pd.Series([19.2, -6.5, 30.0])
    loads = segment_load(hours, ambient, 5.0)
    assert isinstance(loads, pd.Series)
    assert_allclose(loads.to_numpy(), [2 * 19.2, 5.5 * 16.5, 48 * 30.0], rtol=RTOL)
    arr = segment_load(np.array([1.0, 2.0]), np.array([0.0, 10.0]), np.array([5.0, -20.0]))
    assert_allclose(arr, [10.0, 70.0], rtol=RTOL)


def test_capacity_vectorised_over_modes():
    caps = thermal_capacity(
        pd.Series([96.0, 10.0, 10.0]), pd.Series(["PLUS_2_8", "MINUS_25_15", "PLUS_15_25"])
    )
    assert_allclose(caps.to_numpy(), [2400.0, 500.0, 100.0], rtol=RTOL)


def test_required_load_adds_the_margin():
    assert_allclose(required_load(1000.0), 1200.0, rtol=RTOL)
    assert_allclose(required_load(1000.0, 0.35), 1350.0, rtol=RTOL)
    assert_allclose(required_load(1000.0, 0.0), 1000.0, rtol=RTOL)
    assert_allclose(raw_load([88.4, 44.2, 243.1]), 375.7, rtol=RTOL)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: segment_load(-1.0, 20.0, 5.0), "hours: must be >= 0"),
        (lambda: segment_load(1.0, 20.0, 5.0, -0.5), "diurnal_allowance_c: must be >= 0"),
        (lambda: segment_load("5", 20.0, 5.0), "hours: must be numbers"),
        (lambda: segment_load(None, 20.0, 5.0), "hours: must be numbers"),
        (lambda: segment_load(1.0, "20", 5.0), "ambient_c: must be numbers"),
        (lambda: segment_load(1.0, None, 5.0), "ambient_c: must be numbers"),
        (lambda: required_load(10.0, -0.1), "safety_margin: must be a finite number >= 0"),
        (lambda: required_load(10.0, float("nan")), "safety_margin: must be a finite number"),
        (lambda: required_load(10.0, float("inf")), "safety_margin: must be a finite number"),
        (lambda: required_load(10.0, "0.2"), "safety_margin: must be a finite number"),
        (lambda: required_load(10.0, None), "safety_margin: must be a finite number"),
        (lambda: required_load(10.0, True), "safety_margin: must be a finite number"),
    ],
)
def test_bad_arguments_say_what_was_expected(call, message):
    """The thermal library's own error (a ValueError) naming the argument, never a
    TypeError from inside or a NaN load."""
    with pytest.raises(ThermalInputError, match=message):
        call()


def test_unsupported_mode_has_no_capacity():
    with pytest.raises(ValueError, match="MINUS_78"):
        thermal_capacity(10.0, "MINUS_78")


@given(hours_st, hours_st, temp_st, temp_st)
def test_load_is_additive_over_time(h1, h2, ambient, set_point):
    whole = segment_load(h1 + h2, ambient, set_point)
    parts = segment_load(h1, ambient, set_point) + segment_load(h2, ambient, set_point)
    assert_allclose(whole, parts, rtol=1e-9, atol=1e-6)


@given(hours_st, st.floats(0, 50, allow_nan=False), temp_st)
def test_load_is_symmetric_about_the_set_point(hours, delta, set_point):
    above = segment_load(hours, set_point + delta, set_point)
    below = segment_load(hours, set_point - delta, set_point)
    assert_allclose(above, below, rtol=1e-9, atol=1e-6)
    assert above >= hours * 5.0 - 1e-9


@given(
    st.floats(0, 500, allow_nan=False), st.sampled_from(["PLUS_2_8", "PLUS_15_25", "MINUS_25_15"])
)
def test_equivalent_hold_hours_inverts_capacity(hold, mode):
    assert_allclose(
        equivalent_hold_hours(thermal_capacity(hold, mode), mode), hold, rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_segment_load_refuses_a_value_that_is_no_finite_number(bad, position):
    # a NaN passed every check and made the whole route's load NaN
    args = [48.0, 19.2, 5.0, 5.0]
    args[position] = bad
    names = ["hours", "ambient_c", "set_point_c", "diurnal_allowance_c"]
    with pytest.raises(ThermalInputError) as info:
        segment_load(*args)
    assert info.value.field == names[position]
    assert "must be finite numbers" in str(info.value)


def test_segment_load_names_where_a_series_holds_a_nan():
    hours = pd.Series([4.0, float("nan"), 2.0])
    with pytest.raises(ThermalInputError) as info:
        segment_load(hours, 10.0, 5.0)
    assert info.value.field == "hours" and "(got nan at position 1)" in str(info.value)
