"""Temperature modes: set points, support, reference difference."""

from __future__ import annotations

import pandas as pd
import pytest
from numpy.testing import assert_allclose

from thermal.errors import UnsupportedModeError
from thermal.modes import (
    ALL_MODES,
    is_supported,
    needs_thermal_check,
    reference_difference_c,
    set_point_c,
)


@pytest.mark.parametrize(
    ("mode", "set_point", "difference"),
    [("PLUS_15_25", 20.0, 10.0), ("PLUS_2_8", 5.0, 25.0), ("MINUS_25_15", -20.0, 50.0)],
)
def test_v1_set_points(mode, set_point, difference):
    assert set_point_c(mode) == set_point
    assert reference_difference_c(mode) == difference
    assert is_supported(mode)


@pytest.mark.parametrize("mode", ["PLUS_2_25", "MINUS_78", "MINUS_196", "NONE"])
def test_modes_without_a_v1_model(mode):
    assert not is_supported(mode)
    with pytest.raises(UnsupportedModeError, match=mode) as info:
        set_point_c(mode)
    assert isinstance(info.value, ValueError)
    assert "PLUS_2_8" in str(info.value)


def test_only_none_skips_the_thermal_check():
    assert [m for m in ALL_MODES if not needs_thermal_check(m)] == ["NONE"]


def test_series_of_modes():
    modes = pd.Series(["PLUS_2_8", "MINUS_25_15"], index=["a", "b"])
    assert_allclose(set_point_c(modes).to_numpy(), [5.0, -20.0])
    assert list(reference_difference_c(modes).index) == ["a", "b"]
    with pytest.raises(UnsupportedModeError, match="MINUS_78"):
        set_point_c(pd.Series(["PLUS_2_8", "MINUS_78"]))
