"""Errors of the packing library.

Each error subclasses a built-in and says what was expected and what came.
"""

from __future__ import annotations


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
