"""Temperature modes: set points and the reference ambient of the thermal model.

Decisions §5: v1 computes PLUS_15_25, PLUS_2_8 and MINUS_25_15 against their set points;
PLUS_2_25, MINUS_78 and MINUS_196 are accepted by the API but have no thermal model yet;
NONE is a dry shipment that needs no thermal check.
"""

from __future__ import annotations

from typing import overload

import pandas as pd

from thermal.errors import UnsupportedModeError

#: Set point of each mode with a v1 thermal model [°C].
SET_POINTS_C: dict[str, float] = {"PLUS_15_25": 20.0, "PLUS_2_8": 5.0, "MINUS_25_15": -20.0}

#: Every mode code the API accepts, in the order of the interface specification.
ALL_MODES: tuple[str, ...] = (
    "PLUS_15_25", "PLUS_2_25", "PLUS_2_8", "MINUS_25_15", "MINUS_78", "MINUS_196", "NONE",
)  # fmt: skip

#: Modes with a v1 thermal model.
SUPPORTED_MODES: tuple[str, ...] = tuple(SET_POINTS_C)

#: Modes that need no thermal check.
DRY_MODES: tuple[str, ...] = ("NONE",)

#: Reference ambient of the containers' hold times [°C].
REFERENCE_AMBIENT_C: float = 30.0


def is_supported(mode: str) -> bool:
    """True when ``mode`` has a v1 thermal model (a set point)."""
    return mode in SET_POINTS_C


def needs_thermal_check(mode: str) -> bool:
    """False for a dry shipment (NONE); true for every other mode."""
    return mode not in DRY_MODES


@overload
def set_point_c(mode: str) -> float: ...
@overload
def set_point_c(mode: pd.Series) -> pd.Series: ...
def set_point_c(mode: str | pd.Series) -> float | pd.Series:
    """Set point of a temperature mode.

    Parameters
    ----------
    mode : str or pandas.Series of str
        Mode code(s), e.g. ``"PLUS_2_8"``.

    Returns
    -------
    float or pandas.Series of float
        Set point [°C]: 20 for PLUS_15_25, 5 for PLUS_2_8, −20 for MINUS_25_15.

    Raises
    ------
    UnsupportedModeError
        A mode without a v1 thermal model.
    """
    if isinstance(mode, pd.Series):
        unknown = sorted(set(mode) - set(SET_POINTS_C))
        if unknown:
            raise UnsupportedModeError(unknown[0], SUPPORTED_MODES)
        return mode.map(SET_POINTS_C).astype("float64")
    if mode not in SET_POINTS_C:
        raise UnsupportedModeError(mode, SUPPORTED_MODES)
    return SET_POINTS_C[mode]


@overload
def reference_difference_c(mode: str) -> float: ...
@overload
def reference_difference_c(mode: pd.Series) -> pd.Series: ...
def reference_difference_c(mode: str | pd.Series) -> float | pd.Series:
    """Distance of the set point from the +30 °C reference ambient.

    Parameters
    ----------
    mode : str or pandas.Series of str
        Mode code(s).

    Returns
    -------
    float or pandas.Series of float
        ``|30 − set point|`` [°C]: 10 for PLUS_15_25, 25 for PLUS_2_8, 50 for MINUS_25_15.
    """
    if isinstance(mode, pd.Series):
        return (REFERENCE_AMBIENT_C - set_point_c(mode)).abs()
    return abs(REFERENCE_AMBIENT_C - set_point_c(mode))
