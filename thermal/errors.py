"""Errors of the thermal library.

Each error subclasses a built-in and says what was expected and what came. Input errors
name the keyword argument at fault (``receive_date``), so a caller can point at its own field.
"""

from __future__ import annotations


class ThermalInputError(ValueError):
    """An argument the thermal model cannot accept.

    Parameters
    ----------
    field : str
        Name of the offending keyword argument, e.g. ``"receive_date"``.
    message : str
        What was expected and what came.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class UnknownNameError(KeyError):
    """A name that is not in a catalog; the message lists the valid ones.

    Parameters
    ----------
    what : str
        What was looked up, e.g. ``"location type"``.
    name : str
        The name that came.
    valid : list of str
        The names that exist.
    """

    def __init__(self, what: str, name: str, valid: list[str]) -> None:
        self.name = name
        self.valid = valid
        super().__init__(f"unknown {what} {name!r}; expected one of {', '.join(valid)}")

    def __str__(self) -> str:  # KeyError quotes its argument; keep the sentence readable
        return str(self.args[0])


class UnsupportedModeError(ValueError):
    """A temperature mode without a v1 thermal model (PLUS_2_25, MINUS_78, MINUS_196, NONE)."""

    def __init__(self, mode: str, supported: tuple[str, ...]) -> None:
        self.mode = mode
        self.supported = supported
        super().__init__(
            f"temperature mode must be one of {', '.join(supported)} for a thermal check "
            f"(got {mode!r})"
        )


class UnknownLocationTypeError(UnknownNameError):
    """A location type key that is not in the catalog; the message lists the valid ones."""

    def __init__(self, key: str, valid: list[str]) -> None:
        self.key = key
        super().__init__("location type", key, valid)


class UnknownCityError(KeyError):
    """A city name, alias or key that matches no city of the catalog."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"no city of the catalog matches {name!r} (name, alias, IATA code or key)")

    def __str__(self) -> str:  # KeyError quotes its argument; keep the sentence readable
        return str(self.args[0])


class RouteDataError(LookupError):
    """The route of a plan cannot be resolved; ``code`` is the mode report's errorCode."""

    code: str = ""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class ThermalDataMissingError(RouteDataError):
    """Origin or destination matches no catalog city and mock data is not allowed."""

    code = "THERMAL_DATA_MISSING"


class TransitUnknownError(RouteDataError):
    """No transitHours, no dates, no stored route and mock data is not allowed."""

    code = "TRANSIT_UNKNOWN"
