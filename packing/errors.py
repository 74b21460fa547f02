"""Errors of the packing library.

Each error subclasses a built-in and says what was expected and what came.
"""

from __future__ import annotations

import math
import numbers


class PackingInputError(ValueError):
    """Input to the packing library is not acceptable.

    Parameters
    ----------
    field : str
        Name of the offending keyword argument, e.g. ``"weight_kg"``.
    message : str
        What was expected and what came.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class UnknownStrategyError(PackingInputError):
    """A strategy name that is not registered; the message lists the valid ones.

    An input error on the ``strategy`` argument (``field == "strategy"``), so a service
    answers it like any other invalid input.

    Parameters
    ----------
    name : object
        The name that came.
    valid : list of str
        The registered names.
    """

    def __init__(self, name: object, valid: list[str]) -> None:
        self.name = name
        self.valid = valid
        super().__init__(
            "strategy", f"unknown strategy {name!r}; expected one of {', '.join(valid)}"
        )


class PlanValidationError(AssertionError):
    """A packing plan breaks a rule; ``violations`` lists every broken rule found."""

    def __init__(self, violations: list[str]) -> None:
        self.violations = violations
        head = "; ".join(violations[:5])
        more = f" (+{len(violations) - 5} more)" if len(violations) > 5 else ""
        super().__init__(f"plan is invalid: {head}{more}")


def seconds_value(field: str, value: object, *, zero: bool = False) -> float:
    """``value`` as a time limit [s]: a real, finite number > 0 (>= 0 with ``zero``).

    Raises
    ------
    PackingInputError
        Anything else (text, a boolean, NaN, infinity, a negative number), naming ``field``.
    """
    bound = ">= 0" if zero else "> 0"
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if ok:
        number = float(value)  # type: ignore[arg-type]
        ok = math.isfinite(number) and (number >= 0 if zero else number > 0)
    if not ok:
        raise PackingInputError(
            field, f"must be a finite number of seconds {bound} (got {value!r})"
        )
    return number


def ratio_value(field: str, value: object) -> float:
    """``value`` as a fraction within 0..1 (a real number, not a boolean).

    Raises
    ------
    PackingInputError
        Anything else (text, None, a boolean, NaN, a number outside 0..1), naming ``field``.
    """
    if not (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and 0.0 <= float(value) <= 1.0
    ):
        raise PackingInputError(field, f"must be a number within 0..1 (got {value!r})")
    return float(value)


def count_value(field: str, value: object, minimum: int) -> int:
    """``value`` as a whole number >= ``minimum`` (an integer, not a boolean).

    Raises
    ------
    PackingInputError
        Anything else (text, None, a boolean, a fraction, NaN, a smaller number), naming
        ``field``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise PackingInputError(field, f"must be a whole number >= {minimum} (got {value!r})")
    return int(value)


def seed_value(field: str, value: object) -> object:
    """``value`` as the seed of a random generator: a whole number >= 0, or a
    :class:`numpy.random.Generator` to draw from.

    Raises
    ------
    PackingInputError
        Anything else (None, text, a boolean, a fraction, NaN, a negative number), naming
        ``field``.
    """
    import numpy as np

    if isinstance(value, np.random.Generator):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise PackingInputError(
            field, f"must be a whole number >= 0 or a numpy Generator (got {value!r})"
        )
    return int(value)
