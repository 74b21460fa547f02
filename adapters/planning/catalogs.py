"""The catalogs as the planner uses them: thermal boxes, pallets and vehicles as packing types.

The thermal library holds the box catalog and the packing library the engine's types; this
module is where the two meet, so that neither library imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from data import load_table, table_row, table_slugs
from packing.axles import Support, Vehicle
from packing.model import ContainerType
from thermal.catalog import container_record, container_slugs


def _dims(row: Mapping[str, Any], prefix: str) -> tuple[int, int, int]:
    """``(length, height, width)`` [mm] of a container row for ``prefix`` outer or inner."""
    return (
        int(row[f"{prefix}_length_mm"]),
        int(row[f"{prefix}_height_mm"]),
        int(row[f"{prefix}_width_mm"]),
    )


def container_type(slug: str, *, coolant_mass_kg: float = 0.0) -> ContainerType:
    """A catalog thermal box as a packing-engine type.

    Parameters
    ----------
    slug : str
        Catalog slug.
    coolant_mass_kg : float, default 0
        Mass of the coolant of the profile used [kg]; added to the tare.

    Returns
    -------
    packing.model.ContainerType
        ``inner`` is the inner space with coolant elements [mm], ``tare_kg`` the empty
        container plus coolant [kg].

    Raises
    ------
    KeyError
        ``slug`` is not in the catalog; the message lists the valid slugs.
    """
    row = container_record(slug)
    return ContainerType(
        slug=slug,
        title=str(row["title"]),
        inner=_dims(row, "inner"),
        outer=_dims(row, "outer"),
        max_payload_kg=_optional(row["max_payload_kg"]),
        loading_side=str(row["loading_side"]),
        tare_kg=float(row["tare_kg"]) + float(coolant_mass_kg),
    )


def _optional(value: Any) -> float | None:
    """A number of a catalog row; None where the table leaves it empty (not limited)."""
    return None if pd.isna(value) else float(value)


#: Temperature range of each mode that needs one [°C]; NONE (a dry shipment) has none.
MODE_RANGES_C: dict[str, tuple[float, float]] = {
    "PLUS_15_25": (15.0, 25.0),
    "PLUS_2_25": (2.0, 25.0),
    "PLUS_2_8": (2.0, 8.0),
    "MINUS_25_15": (-25.0, -15.0),
    "MINUS_78": (-78.0, -78.0),
    "MINUS_196": (-196.0, -196.0),
}


def mode_range_c(mode: str) -> tuple[float, float] | None:
    """The temperature range a mode's cargo must be kept in [°C]; None for NONE.

    Parameters
    ----------
    mode : str
        Temperature mode code.

    Raises
    ------
    KeyError
        An unknown mode; the message lists the valid ones.
    """
    if mode == "NONE":
        return None
    if mode not in MODE_RANGES_C:
        raise KeyError(
            f"unknown temperature mode {mode!r}; expected one of NONE, {', '.join(MODE_RANGES_C)}"
        )
    return MODE_RANGES_C[mode]


def pallet_templates_frame() -> pd.DataFrame:
    """The pallet templates (``data/pallet_templates.csv``), indexed by slug.

    Returns
    -------
    pandas.DataFrame
        Columns ``title``, ``deck_length_mm``, ``deck_width_mm``, ``deck_height_mm``,
        ``max_load_height_mm`` [mm], ``max_payload_kg``, ``tare_kg`` [kg]; a fresh copy.
    """
    return load_table("pallet_templates").set_index("slug")


def pallet_templates() -> list[str]:
    """Slugs of the pallet templates (``data/pallet_templates.csv``)."""
    return table_slugs("pallet_templates")


def pallet_type(slug: str) -> ContainerType:
    """A pallet template as a packing type: inner = [deck length, max load height, deck
    width] [mm] above the deck top, outer adds the deck height, loading from the top."""
    r = table_row("pallet_templates", slug)
    return ContainerType(
        slug=slug,
        title=str(r["title"]),
        inner=(int(r["deck_length_mm"]), int(r["max_load_height_mm"]), int(r["deck_width_mm"])),
        outer=(
            int(r["deck_length_mm"]),
            int(r["deck_height_mm"]) + int(r["max_load_height_mm"]),
            int(r["deck_width_mm"]),
        ),
        max_payload_kg=_optional(r["max_payload_kg"]),
        loading_side="TOP",
        tare_kg=float(r["tare_kg"]),
    )


def vehicles_frame() -> pd.DataFrame:
    """The vehicles of PALLET_LOAD (``data/vehicles.csv``), indexed by slug.

    Returns
    -------
    pandas.DataFrame
        Body dimensions [mm], payload and tare [kg], both supports (position [mm], tare
        share and limit [kg], least share of the gross mass), ``body_type``,
        ``temperature_min_c`` and ``temperature_max_c`` [°C] (NaN without a refrigeration
        unit), ``compartments``, ``doors`` (``REAR|SIDE``), ``double_stack``; a fresh copy.
    """
    return load_table("vehicles").set_index("slug")


def vehicle_slugs() -> list[str]:
    """Slugs of the vehicles of PALLET_LOAD (``data/vehicles.csv``)."""
    return [str(s) for s in load_table("vehicles")["slug"]]


def vehicle(slug: str) -> Vehicle:
    """A catalog vehicle: its cargo body, its two supports and its body's capabilities.

    Raises
    ------
    KeyError
        ``slug`` is not in the catalog; the message lists the valid slugs.
    """
    r = table_row("vehicles", slug)
    body = ContainerType(
        slug=slug,
        title=str(r["title"]),
        inner=(int(r["inner_length_mm"]), int(r["inner_height_mm"]), int(r["inner_width_mm"])),
        outer=(int(r["outer_length_mm"]), int(r["outer_height_mm"]), int(r["outer_width_mm"])),
        max_payload_kg=float(r["max_payload_kg"]),
        loading_side=str(r["loading_side"]),
        tare_kg=float(r["tare_kg"]),
    )
    supports = [
        Support(
            str(r[f"{end}_name"]),
            float(r[f"{end}_position_mm"]),
            float(r[f"{end}_tare_kg"]),
            float(r[f"{end}_max_kg"]),
            float(r[f"{end}_min_share"]),
        )
        for end in ("front", "rear")
    ]
    lo, hi = _optional(r["temperature_min_c"]), _optional(r["temperature_max_c"])
    return Vehicle(
        body,
        supports[0],
        supports[1],
        body_type=str(r["body_type"]),
        temperature_range_c=None if lo is None or hi is None else (lo, hi),
        compartments=int(r["compartments"]),
        doors=tuple(str(r["doors"]).split("|")),
        double_stack=bool(r["double_stack"]),
    )


def preload() -> None:
    """Load every catalog table and build the city index now, so that the first plan of a
    worker process does not pay for it (about 0.3 s)."""
    from thermal.climate import match_city
    from thermal.routes import catalog_route, location_types

    match_city("Moscow")
    catalog_route("moscow-ru", "saint-petersburg-ru")
    location_types()
    container_slugs()
    pallet_templates()
    vehicle_slugs()
