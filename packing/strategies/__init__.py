"""Packing strategies for one container, and the registry that names them.

``get_strategy(name_or_instance)`` is the one place names are resolved; the names are the
API's ``options.algorithm`` values plus ``block-building`` (the default).
"""

from __future__ import annotations

from packing.errors import UnknownStrategyError
from packing.strategies.base import SinglePack, Strategy
from packing.strategies.blocks import BlockBuilding
from packing.strategies.heuristics import BestAreaFit, FirstFitDecreasing
from packing.strategies.milp import MilpPlacement

#: Registered strategies by name.
STRATEGIES: dict[str, type[Strategy]] = {
    "block-building": BlockBuilding,
    "first-fit-decreasing": FirstFitDecreasing,
    "best-area-fit": BestAreaFit,
    "milp": MilpPlacement,
}

DEFAULT_STRATEGY = "block-building"


def get_strategy(strategy: str | Strategy | None = None, **settings: object) -> Strategy:
    """A strategy instance from a registered name, an instance (returned as is) or None.

    Parameters
    ----------
    strategy : str, Strategy or None
        Name from :data:`STRATEGIES`; None gives the default (block building).
    **settings
        Keyword settings for the strategy's constructor (e.g. ``time_limit``, ``seed``).
    """
    if isinstance(strategy, Strategy):
        return strategy
    name = DEFAULT_STRATEGY if strategy is None else strategy
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise UnknownStrategyError(name, sorted(STRATEGIES)) from None
    return cls(**settings)  # type: ignore[arg-type]


__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "BestAreaFit",
    "BlockBuilding",
    "FirstFitDecreasing",
    "MilpPlacement",
    "SinglePack",
    "Strategy",
    "get_strategy",
]
