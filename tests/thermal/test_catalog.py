"""The container catalog as the API and the packing engine see it."""

from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from packing.contract import CatalogContainer
from thermal.catalog import (
    catalog_containers,
    container_slugs,
    container_type,
    outer_volume_l,
    volume_with_cooling_l,
)


def test_catalog_containers_match_the_contract():
    items = catalog_containers()
    assert [c["slug"] for c in items] == container_slugs()
    for item in items:
        model = CatalogContainer.model_validate(item)
        assert model.model_dump(mode="json") == item
        assert item["thermalProfiles"], item["slug"]


def test_catalog_entry_values():
    entry = next(c for c in catalog_containers() if c["slug"] == "vip-cube-28l")
    assert entry["outerMm"] == [520, 580, 520]
    assert entry["innerWithCoolingMm"] == [300, 320, 300]
    assert entry["maxPayloadKg"] == 25.0
    assert {"mode": "PLUS_2_8", "coolant": "PCM", "holdHoursAtRefAmbient": 100.0} in entry[
        "thermalProfiles"
    ]
    unlimited = next(c for c in catalog_containers() if c["slug"] == "eps-parcel-6l")
    assert unlimited["maxPayloadKg"] is None


def test_container_type_for_the_packer_carries_tare_with_coolant():
    ct = container_type("vip-cube-28l", coolant_mass_kg=8.4)
    assert ct.inner == (300, 320, 300)
    assert ct.outer == (520, 580, 520)
    assert ct.loading_side == "TOP"
    assert ct.max_payload_kg == 25.0
    assert_allclose(ct.tare_kg, 11.5 + 8.4, rtol=1e-12)
    assert container_type("eps-parcel-6l").max_payload_kg is None


def test_volumes_in_litres():
    assert_allclose(outer_volume_l("vip-cube-28l"), 52 * 58 * 52 / 1000, rtol=1e-12)
    assert volume_with_cooling_l("vip-cube-28l") == 28.8


def test_unknown_slug_lists_the_valid_ones():
    with pytest.raises(KeyError, match="vip-cube-28l"):
        container_type("no-such-box")
