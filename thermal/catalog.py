"""The thermal container catalog: containers, their thermal profiles, packing types.

Reads the ``containers`` and ``container_profiles`` tables (see ``data/README.md``) as
pandas tables with snake_case columns.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pandas as pd

from data import load_table


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


@cache
def _records() -> dict[str, dict[str, Any]]:
    """The container table's rows by slug, in catalog order, read once: the catalog ships
    with the package and does not change while it runs, and every plan reads it."""
    return {
        str(raw["slug"]): {str(k): v for k, v in raw.items()}
        for raw in containers_frame().to_dict("records")
    }


def container_record(slug: str) -> dict[str, Any]:
    """One row of the container table as a new dict (columns as in :func:`containers_frame`).

    Raises
    ------
    KeyError
        ``slug`` is not in the catalog; the message lists the valid slugs.
    """
    rows = _records()
    if slug not in rows:
        raise KeyError(f"unknown container {slug!r}; expected one of {', '.join(rows)}")
    return dict(rows[slug])


def container_slugs() -> list[str]:
    """Every catalog slug, in catalog order (smallest payload volume first)."""
    return list(_records())


def outer_volume_l(slug: str) -> float:
    """Outer volume of a catalog container [L]."""
    row = container_record(slug)
    return float(row["outer_length_mm"] * row["outer_height_mm"] * row["outer_width_mm"]) / 1e6


def volume_with_cooling_l(slug: str) -> float:
    """Usable volume with coolant elements of a catalog container [L]."""
    return float(container_record(slug)["volume_with_cooling_l"])
