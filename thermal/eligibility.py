"""Eligibility: which containers carry the required thermal load (docs/thermal.md).

A container is eligible for a mode when one of its profiles for that mode has a degree-hour
capacity at least the required load. With two profiles (BC and PCM) the smallest sufficient
capacity is used: it is the lighter, cheaper coolant set that does the job. With
``skip_capacity`` every container with a profile for the mode is eligible; it then uses its
smallest sufficient profile, or its largest when none suffices.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import pandas as pd

from thermal.catalog import container_slugs, profiles_frame
from thermal.degree_hours import cold_thermal_capacity, thermal_capacity
from thermal.errors import ThermalInputError


@dataclass(frozen=True, slots=True)
class ProfileChoice:
    """The thermal profile a container uses for a mode.

    Attributes
    ----------
    slug : str
        Container slug.
    mode : str
        Temperature mode.
    coolant : str
        ``"BC"`` or ``"PCM"``.
    hold_hours : float
        Hold time at the +30 °C reference ambient [h].
    capacity_dh : float
        Hot side degree-hour capacity [°C·h].
    cold_hold_hours : float
        Hold time at the cold reference ambient [h].
    cold_reference_c : float
        Cold reference ambient [°C].
    cold_capacity_dh : float
        Cold side degree-hour capacity [°C·h].
    coolant_mass_kg : float
        Mass of the coolant set [kg].
    """

    slug: str
    mode: str
    coolant: str
    hold_hours: float
    capacity_dh: float
    coolant_mass_kg: float
    cold_hold_hours: float = 0.0
    cold_reference_c: float = -10.0
    cold_capacity_dh: float = 0.0


class Rejection(NamedTuple):
    """A candidate container that cannot carry the mode, and why."""

    slug: str
    reason: str


@dataclass(frozen=True, slots=True)
class Eligibility:
    """Outcome of the capacity check of one mode.

    Attributes
    ----------
    eligible : list of str
        Eligible slugs in the order of the candidates.
    rejected : list of Rejection
        Each rejected candidate with a reason naming the capacity and the required load.
    profiles : dict of str to ProfileChoice
        Profile used by each eligible container.
    """

    eligible: list[str] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    profiles: dict[str, ProfileChoice] = field(default_factory=dict)


def profile_capacities(mode: str, profiles: pd.DataFrame | None = None) -> pd.DataFrame:
    """Profiles of one mode with their capacity.

    Parameters
    ----------
    mode : str
        Temperature mode with a v1 thermal model.
    profiles : pandas.DataFrame or None
        Profile table (default: the catalog's).

    Returns
    -------
    pandas.DataFrame
        The mode's rows of the profile table plus ``capacity_dh`` and ``cold_capacity_dh``
        [°C·h].
    """
    table = profiles_frame() if profiles is None else profiles
    rows = table.loc[table["mode"] == mode].copy()
    rows["capacity_dh"] = thermal_capacity(rows["hold_hours_at_ref_ambient"].astype(float), mode)
    rows["cold_capacity_dh"] = cold_thermal_capacity(
        rows["hold_hours_at_cold_ref_ambient"].astype(float),
        mode,
        rows["cold_reference_ambient_c"].astype(float),
    )
    return rows


def _fmt(value: float) -> str:
    """``2880.0`` -> ``"2,880"``, ``2400.4`` -> ``"2,400.4"``."""
    return f"{value:,.1f}".removesuffix(".0")


def _choice(row: Mapping[str, Any], mode: str) -> ProfileChoice:
    return ProfileChoice(
        slug=str(row["container_slug"]),
        mode=mode,
        coolant=str(row["coolant"]),
        hold_hours=float(row["hold_hours_at_ref_ambient"]),
        capacity_dh=float(row["capacity_dh"]),
        coolant_mass_kg=float(row["coolant_mass_kg"]),
        cold_hold_hours=float(row["hold_hours_at_cold_ref_ambient"]),
        cold_reference_c=float(row["cold_reference_ambient_c"]),
        cold_capacity_dh=float(row["cold_capacity_dh"]),
    )


#: A profile row of one mode with its capacities (the columns of
#: :func:`profile_capacities`).
ProfileRow = Mapping[str, Any]


def _by_container(rows: pd.DataFrame) -> dict[str, list[ProfileRow]]:
    """Each container's profiles among ``rows``: smallest capacity first (hot side, then cold
    side), then coolant, in table order among equals."""
    ordered = rows.sort_values(["capacity_dh", "cold_capacity_dh", "coolant"], kind="stable")
    out: dict[str, list[ProfileRow]] = {}
    for raw in ordered.to_dict("records"):
        row = {str(k): v for k, v in raw.items()}
        out.setdefault(str(row["container_slug"]), []).append(row)
    return out


@lru_cache(maxsize=16)
def _catalog_by_container(mode: str) -> dict[str, list[ProfileRow]]:
    """:func:`_by_container` of the catalog's profiles of ``mode``, computed once: the catalog
    ships with the package and does not change while it runs (every plan reads it)."""
    return _by_container(profile_capacities(mode))


def _profiles_by_container(mode: str, profiles: pd.DataFrame | None) -> dict[str, list[ProfileRow]]:
    return (
        _catalog_by_container(mode)
        if profiles is None
        else _by_container(profile_capacities(mode, profiles))
    )


def _sufficient(
    rows: list[ProfileRow], required_dh: float, required_cold_dh: float
) -> list[ProfileRow]:
    return [
        r
        for r in rows
        if r["capacity_dh"] >= required_dh and r["cold_capacity_dh"] >= required_cold_dh
    ]


def _shortfall(row: ProfileRow, required_dh: float, required_cold_dh: float) -> str:
    """Why a profile does not suffice, side by side, with both numbers."""
    parts = []
    if row["capacity_dh"] < required_dh:
        parts.append(
            f"hot side: thermal capacity {_fmt(row['capacity_dh'])} °C·h "
            f"({row['hold_hours_at_ref_ambient']:g} h at +30 °C, {row['coolant']}) "
            f"is below the required load of {_fmt(required_dh)} °C·h"
        )
    if row["cold_capacity_dh"] < required_cold_dh:
        parts.append(
            f"cold side: thermal capacity {_fmt(row['cold_capacity_dh'])} °C·h "
            f"({row['hold_hours_at_cold_ref_ambient']:g} h at "
            f"{row['cold_reference_ambient_c']:+g} °C, {row['coolant']}) "
            f"is below the required load of {_fmt(required_cold_dh)} °C·h "
            "of the segments colder than the set point"
        )
    return "; ".join(parts)


def choose_profile(
    slug: str,
    mode: str,
    required_dh: float,
    profiles: pd.DataFrame | None = None,
    *,
    required_cold_dh: float = 0.0,
) -> ProfileChoice | None:
    """A container's profile for a load: smallest sufficient, else the largest; None when the
    container has no profile for the mode.

    Parameters
    ----------
    slug : str
        Container slug.
    mode : str
        Temperature mode.
    required_dh : float
        Required load of the hot side [°C·h].
    profiles : pandas.DataFrame or None
        Profile table (default: the catalog's).
    required_cold_dh : float, default 0
        Required load of the cold side [°C·h].
    """
    rows = _profiles_by_container(mode, profiles).get(slug)
    if not rows:
        return None
    sufficient = _sufficient(rows, required_dh, required_cold_dh)
    return _choice(sufficient[0] if sufficient else rows[-1], mode)


def check_candidates(candidates: object) -> None:
    """Refuse ``candidates`` that are not a list of container slugs (one slug given as
    text would be read letter by letter).

    Raises
    ------
    ThermalInputError
        ``field`` is ``candidates``.
    """
    if isinstance(candidates, str) or not isinstance(candidates, Iterable):
        raise ThermalInputError(
            "candidates", f"must be a list of container slugs (got {candidates!r:.80})"
        )


def evaluate_eligibility(
    required_dh: float,
    mode: str,
    candidates: Sequence[str],
    *,
    required_cold_dh: float = 0.0,
    skip_capacity: bool = False,
    profiles: pd.DataFrame | None = None,
) -> Eligibility:
    """Check each candidate container against the required load.

    Parameters
    ----------
    required_dh : float
        Required load of the hot side (segments at or above the set point), safety margin
        included [°C·h].
    mode : str
        Temperature mode with a v1 thermal model.
    candidates : sequence of str
        Container slugs to check, in order.
    required_cold_dh : float, default 0
        Required load of the cold side (segments below the set point), safety margin
        included [°C·h].
    skip_capacity : bool, default False
        Accept every container with a profile for the mode whatever its capacity.
    profiles : pandas.DataFrame or None
        Profile table (default: the catalog's).

    Returns
    -------
    Eligibility
    """
    check_candidates(candidates)
    for name, value in (("required_dh", required_dh), ("required_cold_dh", required_cold_dh)):
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not math.isfinite(value)
            or value < 0
        ):
            raise ThermalInputError(name, f"must be a finite load >= 0 °C·h (got {value!r})")
    by_container = _profiles_by_container(mode, profiles)
    result = Eligibility()
    for slug in candidates:
        own = by_container.get(slug)
        if not own:
            # a slug the catalog does not hold is no container, not one without a profile
            why = (
                "is not a container of the catalog"
                if profiles is None and slug not in container_slugs()
                else f"has no {mode} thermal profile"
            )
            result.rejected.append(Rejection(slug, why))
            continue
        sufficient = _sufficient(own, required_dh, required_cold_dh)
        if sufficient:
            chosen = sufficient[0]
        elif skip_capacity:
            chosen = own[-1]
        else:
            result.rejected.append(
                Rejection(slug, _shortfall(own[-1], required_dh, required_cold_dh))
            )
            continue
        result.eligible.append(slug)
        result.profiles[slug] = _choice(chosen, mode)
    return result
