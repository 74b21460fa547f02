"""The one input error of the planning use case, named by the contract's field path."""

from __future__ import annotations

from packing.errors import PackingInputError
from thermal.errors import ThermalInputError

#: Keyword arguments of the libraries and the request fields they come from.
_CONTRACT_FIELDS: dict[str, str] = {
    "send_date": "sendDate",
    "receive_date": "receiveDate",
    "transit_hours": "transitHours",
    "strategy": "options.algorithm",
}


def contract_text(message: str) -> str:
    """A library sentence with its keyword arguments named as the request's fields."""
    for arg, path in _CONTRACT_FIELDS.items():
        message = message.replace(arg, path)
    return message


class PlanInputError(ValueError):
    """A request the contract accepts but that cannot be planned (a 422 on ``field``).

    Parameters
    ----------
    field : str
        JSON path of the offending request field, e.g. ``"receiveDate"`` or
        ``"options.preferredContainers"``.
    message : str
        What was expected and what came, in the contract's field names.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")

    @classmethod
    def from_library(cls, exc: PackingInputError | ThermalInputError) -> PlanInputError:
        """The library error, its argument names turned into the request's field names."""
        return cls(_CONTRACT_FIELDS.get(exc.field, exc.field), contract_text(exc.message))
