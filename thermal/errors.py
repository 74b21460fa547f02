"""Errors of the thermal library.

Each error subclasses a built-in and says what was expected and what came. Input errors
carry the API field path so the REST layer can answer 422 on that field.
"""

from __future__ import annotations

from packing.errors import PackingInputError, UnknownNameError


class ThermalInputError(PackingInputError):
    """A plan input the thermal model cannot accept (a 422 on ``field``).

    Subclasses :class:`packing.errors.PackingInputError` (itself a ``ValueError``), so one
    ``except PackingInputError`` in the API layer catches input errors of both libraries.

    Parameters
    ----------
    field : str
        JSON path of the offending field, e.g. ``"receiveDate"``.
    message : str
        What was expected and what came.
    """


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
