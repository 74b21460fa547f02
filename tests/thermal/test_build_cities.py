"""The city table build script: same name rule as the library, reproducible output."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thermal.climate import normalize_name

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build_cities.py"


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("build_cities", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@given(text=st.text())
def test_script_normalises_names_like_the_library(build, text):
    assert build.normalize(text) == normalize_name(text)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Rostov-on-Don", "rostov-on-don"),
        ("São Paulo", "sao-paulo"),
        ("Washington, D.C.", "washington-d-c"),
    ],
)
def test_slugs(build, name, slug):
    assert build.slugify(name) == slug


def test_city_names_lose_qualifiers(build):
    assert build.clean_city_name("Portland (OR)") == "Portland"
    assert build.clean_city_name("Petropavlovsk- Kamchatsky") == "Petropavlovsk-Kamchatsky"


@pytest.mark.slow
def test_rebuild_reproduces_the_shipped_tables(build, tmp_path):
    if not build.DEFAULT_CLIMATE.exists():
        pytest.skip(f"climate source not at {build.DEFAULT_CLIMATE}")
    n_cities, _, misses = build.build(build.DEFAULT_CLIMATE, tmp_path)
    assert n_cities >= 450 and misses == []
    for name in ("cities.csv", "city_aliases.csv"):
        assert (tmp_path / name).read_bytes() == (ROOT / "data" / name).read_bytes(), name
