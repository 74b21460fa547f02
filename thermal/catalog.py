"""The thermal container catalog: containers, their thermal profiles, packing types.

Reads the ``containers`` and ``container_profiles`` tables (see ``data/README.md``) and
shapes them for the API (:func:`catalog_containers`) and for the packing engine
(:func:`container_type`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from data import load_table
from packing.model import ContainerType
from thermal.modes import ALL_MODES


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


def container_slugs() -> list[str]:
    """Every catalog slug, in catalog order (smallest payload volume first)."""
    return containers_frame()["slug"].tolist()


def _dims(row: Any, prefix: str) -> tuple[int, int, int]:
    """``(length, height, width)`` [mm] of a container row for ``prefix`` outer or inner."""
    return (
        int(getattr(row, f"{prefix}_length_mm")),
        int(getattr(row, f"{prefix}_height_mm")),
        int(getattr(row, f"{prefix}_width_mm")),
    )


def _mode_rank(mode: str) -> int:
    return ALL_MODES.index(mode) if mode in ALL_MODES else len(ALL_MODES)


def catalog_containers() -> list[dict[str, Any]]:
    """The catalog as CatalogContainer-shaped dicts (``GET /api/v1/catalog/containers``).

    Returns
    -------
    list of dict
        One dict per container with ``slug``, ``title``, ``outerMm`` and
        ``innerWithCoolingMm`` ([length, height, width] in mm), ``volumeWithCoolingL`` [L],
        ``maxPayloadKg`` [kg] or None, ``loadingSide`` and ``thermalProfiles`` (a list of
        ``{"mode", "coolant", "holdHoursAtRefAmbient"}``, hold time in h at +30 °C).
    """
    profiles = profiles_frame()
    by_slug: dict[str, list[dict[str, Any]]] = {}
    ordered = profiles.assign(_rank=profiles["mode"].map(_mode_rank)).sort_values(
        ["container_slug", "_rank", "coolant"], kind="stable"
    )
    for row in ordered.itertuples(index=False):
        by_slug.setdefault(row.container_slug, []).append(
            {
                "mode": row.mode,
                "coolant": row.coolant,
                "holdHoursAtRefAmbient": float(row.hold_hours_at_ref_ambient),
            }
        )
    out: list[dict[str, Any]] = []
    for row in load_table("containers").itertuples(index=False):
        payload = None if pd.isna(row.max_payload_kg) else float(row.max_payload_kg)
        out.append(
            {
                "slug": row.slug,
                "title": row.title,
                "outerMm": list(_dims(row, "outer")),
                "innerWithCoolingMm": list(_dims(row, "inner")),
                "volumeWithCoolingL": float(row.volume_with_cooling_l),
                "maxPayloadKg": payload,
                "loadingSide": row.loading_side,
                "thermalProfiles": by_slug.get(row.slug, []),
            }
        )
    return out


def container_type(slug: str, *, coolant_mass_kg: float = 0.0) -> ContainerType:
    """A catalog container as a packing-engine type.

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
    frame = containers_frame()
    if slug not in frame.index:
        raise KeyError(f"unknown container {slug!r}; expected one of {', '.join(frame.index)}")
    row = next(frame.loc[[slug]].itertuples(index=False))
    payload = None if pd.isna(row.max_payload_kg) else float(row.max_payload_kg)
    return ContainerType(
        slug=slug,
        title=str(row.title),
        inner=_dims(row, "inner"),
        outer=_dims(row, "outer"),
        max_payload_kg=payload,
        loading_side=str(row.loading_side),
        tare_kg=float(row.tare_kg) + float(coolant_mass_kg),
    )


def outer_volume_l(slug: str) -> float:
    """Outer volume of a catalog container [L]."""
    row = containers_frame().loc[slug]
    return float(row["outer_length_mm"] * row["outer_height_mm"] * row["outer_width_mm"]) / 1e6


def volume_with_cooling_l(slug: str) -> float:
    """Usable volume with coolant elements of a catalog container [L]."""
    return float(containers_frame().loc[slug, "volume_with_cooling_l"])
