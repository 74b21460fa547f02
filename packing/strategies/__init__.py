"""Packing strategies for one container, and the registry that names them.

:data:`STRATEGIES` is the one registry: the API's ``options.algorithm`` values, the
benchmark's strategy list and the command line's choices all come from it.
``get_strategy(name_or_instance, **settings)`` is the one place names are resolved; it
always returns a new instance (:func:`clone` of an instance), never one it was given.
"""

from __future__ import annotations

from packing.errors import UnknownStrategyError
from packing.strategies.base import Packed, SinglePack, Strategy, clone
from packing.strategies.blocks import BlockBuilding
from packing.strategies.heuristics import BestAreaFit, FirstFitDecreasing
from packing.strategies.milp import MilpPlacement

#: Registered strategies by name (each class's ``name``), the default first.
STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (BlockBuilding, FirstFitDecreasing, BestAreaFit, MilpPlacement)
}

DEFAULT_STRATEGY = BlockBuilding.name


def get_strategy(strategy: str | Strategy | None = None, **settings: object) -> Strategy:
    """A new strategy from a registered name, an instance (cloned) or None.

    Parameters
    ----------
    strategy : str, Strategy or None
        Name from :data:`STRATEGIES`, an instance whose settings are copied, or None for
        the default (block building).
    **settings
        Settings to set, e.g. ``time_limit`` [s] or ``seed``; for an instance they
        replace its own.

    Raises
    ------
    UnknownStrategyError
        The name is not registered (a :class:`~packing.errors.PackingInputError` on
        ``strategy``; the message lists the valid names).
    PackingInputError
        A setting the strategy does not have (``field`` is its name).
    """
    if isinstance(strategy, Strategy):
        return clone(strategy, **settings)
    name = DEFAULT_STRATEGY if strategy is None else strategy
    try:
        cls = STRATEGIES[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name
        raise UnknownStrategyError(name, sorted(STRATEGIES)) from None
    return clone(cls(), **settings)


__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "BestAreaFit",
    "BlockBuilding",
    "FirstFitDecreasing",
    "MilpPlacement",
    "Packed",
    "SinglePack",
    "Strategy",
    "clone",
    "get_strategy",
]
