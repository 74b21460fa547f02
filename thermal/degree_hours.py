"""Degree-hours: the thermal load of a route and the capacity of a container.

A segment of ``hours`` at ``ambient_c`` loads a shipment held at ``set_point_c`` by

    load = hours × (|ambient − set point| + diurnal allowance)        [°C·h]

the allowance being half a typical daily temperature swing (5 °C unless the location type
says better), since climate normals are daily means and a box sees the afternoon peak. The
route's raw load is the sum over its segments; the required load adds the safety margin:

    required = raw × (1 + margin)                                      [°C·h]

A container profile holding the mode for ``hold_hours`` at the +30 °C reference ambient has
the (hot side) capacity

    capacity = hold_hours × |30 − set point|                            [°C·h]

and, holding it for ``cold_hold_hours`` at its cold reference ambient (−10 °C for the chilled
and room-temperature modes), the cold side capacity

    cold capacity = cold_hold_hours × |set point − cold reference|     [°C·h]

Segments at or above the set point load the hot side, segments below it the cold side; each
side's margin-adjusted load must fit its own capacity (:mod:`thermal.eligibility`). Seasonal
qualifications of passive shippers state a summer and a winter hold time in the same way
(ISTA 7D / 7E summer and winter profiles).

This is the degree-hour (or "heat-unit") linearisation used for sizing passive shippers:
the heat leaking through the insulation is proportional to the temperature difference and
the time (Fourier's law for a wall of fixed conductance), so equal degree-hours drain the
coolant's latent heat equally. It ignores thermal inertia and the coolant's phase-change
window, which the safety margin covers.

References
----------
- F. P. Incropera, D. P. DeWitt et al., *Fundamentals of Heat and Mass Transfer*, ch. 3
  (steady one-dimensional conduction: heat flow proportional to the temperature difference
  across a wall of fixed conductance).
- ISTA 7D, *Thermal Controlled Transport Packaging for Parcel Delivery System Shipment*, and
  ISTA 7E, *Thermal Transport Packaging Used in Parcel Delivery System Shipment* (summer and
  winter ambient profiles against which passive shippers are qualified).
- PDA Technical Report No. 39, *Guidance for Temperature-Controlled Medicinal Products:
  Maintaining the Quality of Temperature-Sensitive Medicinal Products through the
  Transportation Environment* (thermal qualification of shipping systems).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from thermal.errors import ThermalInputError
from thermal.modes import reference_difference_c, set_point_c

#: Default diurnal allowance: half a typical daily temperature swing [°C].
DEFAULT_DIURNAL_ALLOWANCE_C: float = 5.0

#: Default safety margin on the raw load (fraction).
DEFAULT_SAFETY_MARGIN: float = 0.2

Numeric = TypeVar("Numeric", float, np.ndarray, pd.Series)


def segment_load(
    hours: Numeric,
    ambient_c: Numeric,
    set_point_c: Numeric,
    diurnal_allowance_c: Numeric | float = DEFAULT_DIURNAL_ALLOWANCE_C,
) -> Numeric:
    """Thermal load of route segments.

    Parameters
    ----------
    hours : float, numpy.ndarray or pandas.Series
        Duration of each segment [h], >= 0.
    ambient_c : float, numpy.ndarray or pandas.Series
        Ambient air temperature of each segment [°C].
    set_point_c : float, numpy.ndarray or pandas.Series
        Set point of the temperature mode [°C].
    diurnal_allowance_c : float, numpy.ndarray or pandas.Series, default 5
        Half the daily temperature swing [°C], >= 0.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        ``hours × (|ambient − set point| + allowance)`` [°C·h], shaped like the inputs.

    Raises
    ------
    ThermalInputError
        Negative hours or allowance, a NaN or infinite value, or an argument that is not
        numbers (a ``ValueError``).

    Examples
    --------
    48 h at Moscow's July mean of 19.2 °C for PLUS_2_8 (set point 5 °C):

    >>> round(segment_load(48.0, 19.2, 5.0), 6)  # 48 × (14.2 + 5)
    921.6
    """
    for name, value in (
        ("hours", hours),
        ("ambient_c", ambient_c),
        ("set_point_c", set_point_c),
        ("diurnal_allowance_c", diurnal_allowance_c),
    ):
        array = np.asarray(value)
        if array.dtype.kind not in "iuf":  # (text, None, booleans: no temperatures or hours)
            raise ThermalInputError(name, f"must be numbers (got {value!r})")
        finite = np.isfinite(array)
        if not finite.all():
            # a NaN would pass every comparison below and make the route's load NaN
            where = "" if array.ndim == 0 else f" at position {int(np.argmin(finite.ravel()))}"
            bad = array.ravel()[int(np.argmin(finite.ravel()))]
            raise ThermalInputError(name, f"must be finite numbers (got {bad}{where})")
        if name in ("hours", "diurnal_allowance_c") and np.any(array < 0):
            raise ThermalInputError(name, f"must be >= 0 (got {value!r})")
    load = hours * (np.abs(ambient_c - set_point_c) + diurnal_allowance_c)
    if isinstance(load, np.generic):
        return float(load)  # type: ignore[return-value]
    return load  # type: ignore[no-any-return]


def raw_load(segment_loads: pd.Series | np.ndarray | list[float]) -> float:
    """Raw load of a route: the sum of its segment loads [°C·h]."""
    return float(np.sum(np.asarray(segment_loads, dtype="float64")))


def required_load(raw_load_dh: Numeric, safety_margin: float = DEFAULT_SAFETY_MARGIN) -> Numeric:
    """Required load: the raw load with the safety margin.

    Parameters
    ----------
    raw_load_dh : float, numpy.ndarray or pandas.Series
        Raw load [°C·h].
    safety_margin : float, default 0.2
        Fraction added to the raw load, >= 0.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        ``raw × (1 + margin)`` [°C·h].

    Raises
    ------
    ThermalInputError
        A margin that is not a finite number >= 0 (a ``ValueError``).
    """
    check_safety_margin(safety_margin)
    return raw_load_dh * (1.0 + safety_margin)


def check_safety_margin(safety_margin: object) -> None:
    """Refuse a safety margin that is not a finite number >= 0 (a fraction of the load).

    Raises
    ------
    ThermalInputError
        Text, None, a boolean, NaN, infinity or a negative number (``field`` is
        ``safety_margin``).
    """
    if (
        isinstance(safety_margin, bool)
        or not isinstance(safety_margin, numbers.Real)
        or not math.isfinite(safety_margin)
        or safety_margin < 0
    ):
        raise ThermalInputError(
            "safety_margin", f"must be a finite number >= 0 (got {safety_margin!r})"
        )


def thermal_capacity(hold_hours: Numeric, mode: str | pd.Series) -> Numeric:
    """Degree-hour capacity of container profiles.

    Parameters
    ----------
    hold_hours : float, numpy.ndarray or pandas.Series
        Hold time of the profile at the +30 °C reference ambient [h].
    mode : str or pandas.Series of str
        Temperature mode(s) of the profile(s).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        ``hold_hours × |30 − set point|`` [°C·h].

    Examples
    --------
    >>> thermal_capacity(96.0, "PLUS_2_8")
    2400.0
    """
    diff: Any = reference_difference_c(mode)
    if isinstance(diff, pd.Series) and not isinstance(hold_hours, pd.Series):
        diff = diff.to_numpy()
    cap: Any = hold_hours * diff
    if isinstance(cap, np.generic):
        return float(cap)  # type: ignore[return-value]  # a NumPy scalar of a float input
    return cap  # type: ignore[no-any-return]


def cold_thermal_capacity(
    cold_hold_hours: Numeric, mode: str, cold_reference_c: Numeric | float
) -> Numeric:
    """Cold side degree-hour capacity of container profiles.

    Parameters
    ----------
    cold_hold_hours : float, numpy.ndarray or pandas.Series
        Hold time of the profile at its cold reference ambient [h].
    mode : str
        Temperature mode of the profile(s).
    cold_reference_c : float, numpy.ndarray or pandas.Series
        Cold reference ambient of the profile(s) [°C], below the set point.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        ``cold_hold_hours × |set point − cold reference|`` [°C·h].

    Examples
    --------
    >>> cold_thermal_capacity(100.0, "PLUS_2_8", -10.0)
    1500.0
    """
    diff: Any = abs(set_point_c(mode) - cold_reference_c)
    cap: Any = cold_hold_hours * diff
    if isinstance(cap, np.generic):
        return float(cap)  # type: ignore[return-value]  # a NumPy scalar of a float input
    return cap  # type: ignore[no-any-return]


def equivalent_hold_hours(load_dh: Numeric, mode: str) -> Numeric:
    """Hours at the +30 °C reference ambient that carry the same load [h].

    The inverse of :func:`thermal_capacity`; reported as the deprecated ``requiredHoldHours``.
    """
    return load_dh / reference_difference_c(mode)
