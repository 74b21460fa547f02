"""The catalogs as the planner and the API see them."""

from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from adapters.planning import catalog_containers
from adapters.planning.catalogs import (
    MODE_RANGES_C,
    container_type,
    mode_range_c,
    pallet_templates,
    pallet_templates_frame,
    pallet_type,
    vehicle,
    vehicle_slugs,
    vehicles_frame,
)
from adapters.planning.schemas import CatalogContainer, TemperatureModeCode
from packing.axles import within_limits
from thermal.catalog import container_slugs
from thermal.modes import ALL_MODES


def test_catalog_containers_match_the_contract():
    items = catalog_containers()
    assert [c.slug for c in items] == container_slugs()
    for item in items:
        dumped = item.model_dump(mode="json")
        assert CatalogContainer.model_validate(dumped) == item
        assert item.thermalProfiles, item.slug


def test_catalog_entry_values():
    entry = next(c for c in catalog_containers() if c.slug == "vip-cube-28l")
    dumped = entry.model_dump(mode="json")
    assert dumped["outerMm"] == [520, 580, 520]
    assert dumped["innerWithCoolingMm"] == [300, 320, 300]
    assert dumped["maxPayloadKg"] == 25.0
    assert {
        "mode": "PLUS_2_8",
        "coolant": "PCM",
        "holdHoursAtRefAmbient": 100.0,
        "holdHoursAtColdRefAmbient": 100.0,
        "coldReferenceAmbientC": -10.0,
    } in dumped["thermalProfiles"]
    unlimited = next(c for c in catalog_containers() if c.slug == "eps-parcel-6l")
    assert unlimited.maxPayloadKg is None


def test_container_type_for_the_packer_carries_tare_with_coolant():
    ct = container_type("vip-cube-28l", coolant_mass_kg=8.4)
    assert ct.inner == (300, 320, 300)
    assert ct.outer == (520, 580, 520)
    assert ct.loading_side == "TOP"
    assert ct.max_payload_kg == 25.0
    assert_allclose(ct.tare_kg, 11.5 + 8.4, rtol=1e-12)
    assert container_type("eps-parcel-6l").max_payload_kg is None


def test_unknown_slug_lists_the_valid_ones():
    with pytest.raises(KeyError, match="vip-cube-28l"):
        container_type("no-such-box")


def test_pallets_and_vehicles_as_packing_types():
    eur = pallet_type("eur-1200x800")
    assert eur.inner[0] == 1200 and eur.inner[2] == 800 and eur.loading_side == "TOP"
    assert eur.outer[1] > eur.inner[1]  # the deck adds height
    for slug in vehicle_slugs():
        v = vehicle(slug)
        assert v.body.slug == slug and v.front.max_kg > 0 and v.rear.max_kg > 0


def test_mode_list_matches_the_contract():
    assert set(ALL_MODES) == {m.value for m in TemperatureModeCode}


def test_every_vehicle_carries_its_full_payload_spread_evenly():
    """The catalog's check of each row (data/README.md#vehicles): the full payload with its
    centre of gravity at the middle of the body keeps both supports within their limits
    and the drive axle above its least share."""
    for slug in vehicle_slugs():
        v = vehicle(slug)
        payload = float(v.body.max_payload_kg or 0.0)
        assert within_limits(v, [(payload, v.body.inner[0] / 2)]), slug
        assert within_limits(v, []), slug  # the empty vehicle


def test_vehicle_capabilities_and_frames():
    frame = vehicles_frame()
    assert list(frame.index) == vehicle_slugs()
    for slug, row in frame.iterrows():
        v = vehicle(str(slug))
        refrigerated = v.body_type in ("REEFER", "MULTI_TEMP")
        assert (v.temperature_range_c is not None) == refrigerated, slug
        assert v.compartments == int(row["compartments"]) >= 1
        assert set(v.doors) <= {"REAR", "SIDE"} and "REAR" in v.doors
        assert v.body.tare_kg == v.front.tare_kg + v.rear.tare_kg
    holding = {
        m: [s for s in vehicle_slugs() if vehicle(s).holds(mode_range_c(m))] for m in MODE_RANGES_C
    }
    assert "reefer-truck-18t" in holding["PLUS_2_8"] and "truck-7.5t" not in holding["PLUS_2_8"]
    assert "multitemp-13.3m" in holding["MINUS_25_15"]
    assert holding["MINUS_78"] == [] and holding["MINUS_196"] == []
    assert mode_range_c("NONE") is None
    with pytest.raises(KeyError, match="PLUS_2_8"):
        mode_range_c("HOT")
    with pytest.raises(KeyError, match=r"van-3\.5t"):
        vehicle("rocket")
    templates = pallet_templates_frame()
    assert list(templates.index) == pallet_templates()
    assert templates.loc["eur-1200x800", "deck_length_mm"] == 1200
