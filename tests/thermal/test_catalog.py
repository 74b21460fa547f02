"""The container catalog tables of the thermal library."""

from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from thermal.catalog import container_slugs, containers_frame, outer_volume_l, volume_with_cooling_l
from thermal.errors import UnknownNameError


def test_volumes_in_litres():
    assert_allclose(outer_volume_l("vip-cube-28l"), 52 * 58 * 52 / 1000, rtol=1e-12)
    assert volume_with_cooling_l("vip-cube-28l") == 28.8


def test_slugs_in_catalog_order():
    assert container_slugs() == containers_frame()["slug"].tolist()
    assert "vip-cube-28l" in container_slugs()


def test_a_record_is_the_table_row_and_a_copy():
    from thermal.catalog import container_record

    frame = containers_frame()
    row = container_record("vip-cube-28l")
    assert row["inner_length_mm"] == frame.at["vip-cube-28l", "inner_length_mm"]
    assert set(row) == set(frame.columns)
    row["inner_length_mm"] = 1
    assert container_record("vip-cube-28l")["inner_length_mm"] != 1


def test_an_unknown_slug_is_named_with_the_valid_ones():
    from thermal.catalog import container_record

    with pytest.raises(KeyError, match=r"unknown container 'nope'; expected one of .*vip-cube-28l"):
        container_record("nope")
    with pytest.raises(UnknownNameError) as info:
        container_record("nope")
    # the thermal library's own error, its text the plain sentence (a bare KeyError quoted it)
    assert str(info.value).startswith("unknown container 'nope'; expected one of ")
    assert info.value.name == "nope" and "vip-cube-28l" in info.value.valid
    with pytest.raises(KeyError, match="nope"):
        outer_volume_l("nope")
