"""The container catalog tables of the thermal library."""

from __future__ import annotations

from numpy.testing import assert_allclose

from thermal.catalog import container_slugs, containers_frame, outer_volume_l, volume_with_cooling_l


def test_volumes_in_litres():
    assert_allclose(outer_volume_l("vip-cube-28l"), 52 * 58 * 52 / 1000, rtol=1e-12)
    assert volume_with_cooling_l("vip-cube-28l") == 28.8


def test_slugs_in_catalog_order():
    assert container_slugs() == containers_frame()["slug"].tolist()
    assert "vip-cube-28l" in container_slugs()
