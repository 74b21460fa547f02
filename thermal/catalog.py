"""The thermal container catalog: containers, their thermal profiles, packing types.

Reads the ``containers`` and ``container_profiles`` tables (see ``data/README.md``) as
pandas tables with snake_case columns.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from data import load_table, table_row, table_slugs
from thermal.errors import UnknownNameError


def containers_frame() -> pd.DataFrame:
    """The container table, indexed by slug.

    Returns
    -------
    pandas.DataFrame
        Columns as in ``data/containers.csv``: dimensions [mm], ``volume_with_cooling_l``
        [L], ``max_payload_kg`` [kg] (NaN: not limited), ``loading_side``, ``tare_kg`` [kg]
        (empty container without coolant).
    """
    return load_table("containers").set_index("slug", drop=False)


def profiles_frame() -> pd.DataFrame:
    """The thermal profile table, one row per (container, mode, coolant).

    Returns
    -------
    pandas.DataFrame
        ``container_slug``, ``mode``, ``coolant`` (BC or PCM), ``hold_hours_at_ref_ambient``
        [h] at the +30 °C reference ambient, ``coolant_mass_kg`` [kg].
    """
    return load_table("container_profiles")


def container_record(slug: str) -> dict[str, Any]:
    """One row of the container table as a new dict (columns as in :func:`containers_frame`).

    Raises
    ------
    UnknownNameError
        ``slug`` is not in the catalog (a ``KeyError`` whose text is the plain sentence);
        the message lists the valid slugs.
    """
    try:
        return table_row("containers", slug, what="container")
    except KeyError:
        raise UnknownNameError("container", slug, container_slugs()) from None


def container_slugs() -> list[str]:
    """Every catalog slug, in catalog order (smallest payload volume first)."""
    return table_slugs("containers")


def outer_volume_l(slug: str) -> float:
    """Outer volume of a catalog container [L]."""
    row = container_record(slug)
    return float(row["outer_length_mm"] * row["outer_height_mm"] * row["outer_width_mm"]) / 1e6


def volume_with_cooling_l(slug: str) -> float:
    """Usable volume with coolant elements of a catalog container [L]."""
    return float(container_record(slug)["volume_with_cooling_l"])
