"""The catalog tables and their one loader (``data/__init__.py``)."""

from __future__ import annotations

import pandas as pd
import pytest
from numpy.testing import assert_allclose

import data
from data import (
    MONTH_COLUMNS,
    TABLES,
    TableFormatError,
    TableSpec,
    UnknownTableError,
    load_table,
    table_names,
)


@pytest.fixture(scope="session")
def containers() -> pd.DataFrame:
    return load_table("containers")


@pytest.fixture(scope="session")
def profiles() -> pd.DataFrame:
    return load_table("container_profiles")


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_loads_with_its_declared_dtypes(name):
    frame = load_table(name)
    spec = TABLES[name]
    assert list(frame.columns) == list(spec.dtypes)
    assert len(frame) > 0
    for column, dtype in spec.dtypes.items():
        if dtype == "str":
            assert pd.api.types.is_string_dtype(frame[column]), column
        else:
            assert str(frame[column].dtype) == dtype, column


def test_unknown_table_lists_the_valid_names():
    with pytest.raises(UnknownTableError) as info:
        load_table("cites")
    assert isinstance(info.value, KeyError)
    message = str(info.value)
    assert "'cites'" in message
    for name in table_names():
        assert name in message


def test_loader_hands_out_copies():
    first = load_table("containers")
    first.loc[0, "title"] = "changed"
    assert load_table("containers").loc[0, "title"] != "changed"


def test_header_mismatch_is_reported(monkeypatch):
    spec = TableSpec("containers.csv", {"slug": "str", "title": "str"}, "broken on purpose")
    monkeypatch.setitem(data.TABLES, "broken", spec)
    with pytest.raises(TableFormatError, match="columns must be"):
        load_table("broken")


# --------------------------------------------------------------------------- containers


def test_catalog_spans_parcel_to_pallet_shippers(containers):
    assert len(containers) >= 12
    assert containers["volume_with_cooling_l"].min() <= 3.5
    assert containers["volume_with_cooling_l"].max() >= 950
    assert containers["slug"].is_unique
    assert set(containers["loading_side"]) == {"TOP", "FRONT", "SIDE"}
    assert containers["max_payload_kg"].isna().any(), "some box has no stated payload"


def test_volume_is_the_product_of_the_inner_dimensions(containers):
    inner = containers[["inner_length_mm", "inner_height_mm", "inner_width_mm"]].prod(axis=1) / 1e6
    assert_allclose(containers["volume_with_cooling_l"], inner, atol=0.05)  # rounded to 0.1 L


def test_walls_have_real_thickness(containers):
    for axis in ("length", "height", "width"):
        wall = containers[f"outer_{axis}_mm"] - containers[f"inner_{axis}_mm"]
        assert (wall >= 100).all(), axis  # at least 50 mm of insulation and coolant per side


def test_the_28_litre_anchor_box(containers, profiles):
    row = containers.set_index("slug").loc["vip-cube-28l"]
    assert_allclose(row["volume_with_cooling_l"], 28.8, atol=0.05)
    assert (row["outer_length_mm"], row["outer_height_mm"], row["outer_width_mm"]) == (
        520,
        580,
        520,
    )
    pcm = profiles.query(
        "container_slug == 'vip-cube-28l' and mode == 'PLUS_2_8' and coolant == 'PCM'"
    )
    assert pcm["hold_hours_at_ref_ambient"].item() == 100.0


def test_profiles_are_v1_modes_with_bc_or_pcm(profiles, containers):
    assert set(profiles["mode"]) == {"PLUS_15_25", "PLUS_2_8", "MINUS_25_15"}
    assert set(profiles["coolant"]) == {"BC", "PCM"}
    assert set(profiles["container_slug"]) == set(containers["slug"])
    assert not profiles.duplicated(["container_slug", "mode", "coolant"]).any()
    assert (profiles["hold_hours_at_ref_ambient"] > 0).all()
    assert (profiles["coolant_mass_kg"] > 0).all()
    both = profiles.groupby(["container_slug", "mode"])["coolant"].nunique()
    assert (both == 2).sum() >= 3, "some boxes carry both BC and PCM for a mode"


# --------------------------------------------------------------------------- places


def test_location_types_have_a_fixed_or_a_default_ambient():
    lt = load_table("location_types")
    assert lt["key"].is_unique
    has_fixed = lt["fixed_ambient_c"].notna()
    has_default = lt["default_ambient_c"].notna()
    assert (has_fixed ^ has_default).all()
    expected = {"warehouse", "cold_room", "truck", "reefer_truck", "airport_ramp",
                "airport_terminal", "aircraft_hold", "customs", "last_mile_van"}  # fmt: skip
    assert expected <= set(lt["key"])
    assert (lt["diurnal_allowance_c"] >= 0).all()


def test_cities_have_climate_coordinates_and_countries():
    cities = load_table("cities")
    assert cities["key"].is_unique
    with_climate = cities.dropna(subset=list(MONTH_COLUMNS))
    assert len(with_climate) >= 450
    assert cities["latitude"].between(-90, 90).all()
    assert cities["longitude"].between(-180, 180).all()
    assert cities["country_code"].str.fullmatch(r"[A-Z]{2}").all()
    assert with_climate[list(MONTH_COLUMNS)].stack().between(-45, 45).all()


def test_aliases_name_known_cities_in_several_kinds():
    aliases = load_table("city_aliases")
    keys = set(load_table("cities")["key"])
    assert set(aliases["city_key"]) <= keys
    assert {"name", "iata-city", "iata-airport", "manual", "geonames"} <= set(aliases["kind"])
    assert (aliases["alias"].str.len() > 0).all()


def test_routes_form_a_network_of_known_places():
    routes = load_table("routes")
    pairs = routes.groupby(["origin_city_key", "destination_city_key"])
    assert pairs.ngroups >= 30
    assert set(routes["network"]) == {"domestic-road", "domestic-air", "international-air"}
    cities = set(load_table("cities")["key"])
    assert set(routes["city_key"]) | set(routes["origin_city_key"]) <= cities
    assert set(routes["location_type_key"]) <= set(load_table("location_types")["key"])
    assert (routes["hours"] > 0).all()
    for _, group in pairs:
        assert list(group["seq"]) == list(range(1, len(group) + 1))
        assert group["network"].nunique() == 1
    intl = routes[routes["network"] == "international-air"]
    assert (
        intl.groupby(["origin_city_key", "destination_city_key"])["location_type_key"]
        .apply(lambda s: "customs" in set(s))
        .all()
    )


def test_pallet_templates_include_the_default():
    pallets = load_table("pallet_templates").set_index("slug")
    assert "eur-1200x800" in pallets.index
    eur = pallets.loc["eur-1200x800"]
    assert (eur["deck_length_mm"], eur["deck_width_mm"]) == (1200, 800)


@pytest.mark.parametrize("name", ["containers", "pallet_templates", "vehicles"])
def test_rows_by_slug_are_the_tables_rows_handed_out_as_copies(name):
    frame = load_table(name)
    assert data.table_slugs(name) == frame["slug"].tolist()
    slug = frame["slug"].iloc[-1]
    row = data.table_row(name, slug)
    assert set(row) == set(frame.columns) and row["slug"] == slug
    row["slug"] = "changed"
    assert data.table_row(name, slug)["slug"] == slug
    with pytest.raises(KeyError, match=rf"unknown {name} slug 'nope'; expected one of .*{slug}"):
        data.table_row(name, "nope")
    with pytest.raises(data.UnknownTableError):
        data.table_row("no_such_table", slug)
