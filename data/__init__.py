"""Catalog tables shipped with the package, read through one loader.

Every table is a CSV beside this module; ``README.md`` states the source and units of each.
Read them only through :func:`load_table`, which declares the dtypes, checks the columns and
returns a fresh :class:`pandas.DataFrame` (the cached original is never handed out).

Examples
--------
>>> from data import load_table
>>> containers = load_table("containers")
>>> table_names()[:2]
['cities', 'city_aliases']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

import pandas as pd

MONTH_COLUMNS: tuple[str, ...] = (
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
)  # fmt: skip


@dataclass(frozen=True)
class TableSpec:
    """How one catalog table is stored.

    Attributes
    ----------
    filename : str
        CSV file beside this module.
    dtypes : dict of str to str
        Every column and its pandas dtype, in file order.
    description : str
        One line on what the table holds.
    """

    filename: str
    dtypes: dict[str, str]
    description: str


TABLES: dict[str, TableSpec] = {
    "containers": TableSpec(
        "containers.csv",
        {
            "slug": "str",
            "title": "str",
            "construction": "str",
            "outer_length_mm": "int64",
            "outer_height_mm": "int64",
            "outer_width_mm": "int64",
            "inner_length_mm": "int64",
            "inner_height_mm": "int64",
            "inner_width_mm": "int64",
            "volume_with_cooling_l": "float64",
            "max_payload_kg": "float64",
            "loading_side": "str",
            "tare_kg": "float64",
        },
        "passive thermal containers: dimensions [mm], volume [L], payload and tare [kg]",
    ),
    "container_profiles": TableSpec(
        "container_profiles.csv",
        {
            "container_slug": "str",
            "mode": "str",
            "coolant": "str",
            "hold_hours_at_ref_ambient": "float64",
            "hold_hours_at_cold_ref_ambient": "float64",
            "cold_reference_ambient_c": "float64",
            "coolant_mass_kg": "float64",
        },
        "thermal profiles: hold times at +30 °C and at the cold reference [h], cold reference "
        "[°C] and coolant mass [kg] per container and mode",
    ),
    "location_types": TableSpec(
        "location_types.csv",
        {
            "key": "str",
            "label": "str",
            "category": "str",
            "fixed_ambient_c": "float64",
            "default_ambient_c": "float64",
            "diurnal_allowance_c": "float64",
            "line_haul": "bool",
        },
        "where a shipment waits or travels: fixed or default ambient and diurnal allowance [°C], "
        "and whether it travels between cities",
    ),
    "cities": TableSpec(
        "cities.csv",
        {
            "key": "str",
            "name": "str",
            "country": "str",
            "country_code": "str",
            "region": "str",
            "latitude": "float64",
            "longitude": "float64",
            "timezone": "str",
            "population": "Int64",
            "geonameid": "Int64",
            **{m: "float64" for m in MONTH_COLUMNS},
        },
        "cities with coordinates [°] and monthly mean air temperature [°C]",
    ),
    "city_aliases": TableSpec(
        "city_aliases.csv",
        {"city_key": "str", "alias": "str", "kind": "str"},
        "names callers type for a city: other languages, spellings, IATA city codes",
    ),
    "routes": TableSpec(
        "routes.csv",
        {
            "origin_city_key": "str",
            "destination_city_key": "str",
            "network": "str",
            "seq": "int64",
            "label": "str",
            "location_type_key": "str",
            "city_key": "str",
            "hours": "float64",
        },
        "stored routes: ordered segments (location type, city, duration [h]) per city pair",
    ),
    "pallet_templates": TableSpec(
        "pallet_templates.csv",
        {
            "slug": "str",
            "title": "str",
            "deck_length_mm": "int64",
            "deck_width_mm": "int64",
            "deck_height_mm": "int64",
            "max_load_height_mm": "int64",
            "max_payload_kg": "float64",
            "tare_kg": "float64",
        },
        "pallet templates: deck [mm], load height above the deck [mm], payload and tare [kg]",
    ),
    "vehicles": TableSpec(
        "vehicles.csv",
        {
            "slug": "str",
            "title": "str",
            "inner_length_mm": "int64",
            "inner_height_mm": "int64",
            "inner_width_mm": "int64",
            "outer_length_mm": "int64",
            "outer_height_mm": "int64",
            "outer_width_mm": "int64",
            "max_payload_kg": "float64",
            "tare_kg": "float64",
            "loading_side": "str",
            "front_name": "str",
            "front_position_mm": "float64",
            "front_tare_kg": "float64",
            "front_max_kg": "float64",
            "rear_name": "str",
            "rear_position_mm": "float64",
            "rear_tare_kg": "float64",
            "rear_max_kg": "float64",
            "body_type": "str",
            "temperature_min_c": "float64",
            "temperature_max_c": "float64",
            "compartments": "int64",
            "doors": "str",
            "double_stack": "bool",
            "front_min_share": "float64",
            "rear_min_share": "float64",
        },
        "vehicles for PALLET_LOAD: cargo body [mm], payload and tare [kg], two supports "
        "(position along the body [mm], tare share, limit [kg], least share of the gross "
        "mass), body type, set-point range [°C], compartments, doors, double deck",
    ),
    "cartons": TableSpec(
        "cartons.csv",
        {
            "slug": "str",
            "length_mm": "int64",
            "height_mm": "int64",
            "width_mm": "int64",
            "share": "float64",
            "family": "str",
        },
        "common shipping carton sizes [mm] and their share of parcels in generated orders",
    ),
}


class UnknownTableError(KeyError):
    """A table (or benchmark file) name that is not shipped; the message lists the valid ones."""

    def __init__(self, name: str, valid: list[str] | None = None, what: str = "table") -> None:
        self.name = name
        self.valid = sorted(TABLES) if valid is None else valid
        super().__init__(f"unknown {what} {name!r}; expected one of {', '.join(self.valid)}")

    def __str__(self) -> str:  # KeyError quotes its argument; keep the sentence readable
        return str(self.args[0])


class TableFormatError(ValueError):
    """A shipped CSV whose columns differ from the declared ones."""


def table_names() -> list[str]:
    """Names accepted by :func:`load_table`, sorted."""
    return sorted(TABLES)


@cache
def _read(name: str) -> pd.DataFrame:
    spec = TABLES[name]
    resource = files(__name__).joinpath(spec.filename)
    with resource.open("r", encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    if header != list(spec.dtypes):
        raise TableFormatError(
            f"table {name!r} ({spec.filename}): columns must be {list(spec.dtypes)} (got {header})"
        )
    with resource.open("r", encoding="utf-8") as fh:
        frame = pd.read_csv(
            fh,
            dtype=spec.dtypes,
            keep_default_na=False,
            na_values={c: [""] for c, t in spec.dtypes.items() if t != "str"},
        )
    return frame


def bench_files() -> list[str]:
    """Names of the benchmark files shipped in ``data/bench`` (README: sources), sorted."""
    folder = files(__name__).joinpath("bench")
    return sorted(
        f.name for f in folder.iterdir() if f.is_file() and f.name.endswith((".txt", ".csv"))
    )


def bench_text(filename: str) -> str:
    """The text of one shipped benchmark file of ``data/bench``.

    Parameters
    ----------
    filename : str
        One of :func:`bench_files`, e.g. ``"BR7.txt"`` or ``"bounds_mpv.csv"``.

    Raises
    ------
    UnknownTableError
        ``filename`` is not shipped; the message lists the valid names.
    """
    valid = bench_files()
    if filename not in valid:
        raise UnknownTableError(filename, valid, "benchmark file")
    return files(__name__).joinpath("bench", filename).read_text(encoding="utf-8")


def load_table(name: str) -> pd.DataFrame:
    """One catalog table as a DataFrame with the declared dtypes.

    Parameters
    ----------
    name : str
        Table name, one of :func:`table_names` (``"containers"``, ``"cities"``, ...).

    Returns
    -------
    pandas.DataFrame
        A copy; changing it does not change what later calls return. Empty numeric cells
        are NaN (``<NA>`` for integer columns); empty text cells are empty strings.

    Raises
    ------
    UnknownTableError
        ``name`` is not a shipped table; the message lists the valid names.
    TableFormatError
        The CSV's header differs from the declared columns.
    """
    if name not in TABLES:
        raise UnknownTableError(name)
    return _read(name).copy()


@cache
def _rows(name: str) -> dict[str, dict[str, Any]]:
    return {
        str(raw["slug"]): {str(k): v for k, v in raw.items()}
        for raw in load_table(name).to_dict("records")
    }


def table_slugs(name: str) -> list[str]:
    """The slugs of a table keyed by its ``slug`` column, in table order (read once).

    Raises
    ------
    UnknownTableError
        ``name`` is not a shipped table.
    """
    return list(_rows(name))


def table_row(name: str, slug: str, *, what: str | None = None) -> dict[str, Any]:
    """One row of a table keyed by its ``slug`` column, as a new dict of its columns (the
    rows are read once; every plan looks some up).

    Parameters
    ----------
    name : str
        Table name, one of :func:`table_names`, with a ``slug`` column.
    slug : str
        The row's slug.
    what : str or None
        What a slug names, for the error (default: ``"<name> slug"``).

    Raises
    ------
    KeyError
        ``slug`` is not in the table; the message lists the valid slugs.
    UnknownTableError
        ``name`` is not a shipped table.
    """
    rows = _rows(name)
    if slug not in rows:
        label = what or f"{name} slug"
        raise KeyError(f"unknown {label} {slug!r}; expected one of {', '.join(rows)}")
    return dict(rows[slug])
