"""3D packing: pieces into containers, with stacking, support, priority and load order.

The public API::

    from packing import Piece, Rules, ContainerType, make_pieces, plan_containers, validate_plan
    result = plan_containers(pieces, [container_type])
    validate_plan(result)
    result.placements_frame()   # a pandas DataFrame for notebooks

Lengths are whole millimetres (a piece's sides at most 10**9, a container's at most
10**6), masses kilograms; axes X along the container's length, Y up, Z along its width.
"""

from packing import compiled  # first: chooses the compiled or the plain engine modules
from packing.errors import PackingInputError, PlanValidationError, UnknownStrategyError
from packing.metrics import container_metrics
from packing.model import ContainerType, Piece, Placement, Rules, Unplaced, make_pieces
from packing.planner import alternatives, plan_containers
from packing.result import ContainerLoad, PackResult
from packing.strategies import DEFAULT_STRATEGY, STRATEGIES, Strategy, clone, get_strategy
from packing.validate import validate_plan

__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "ContainerLoad",
    "ContainerType",
    "PackResult",
    "PackingInputError",
    "Piece",
    "Placement",
    "PlanValidationError",
    "Rules",
    "Strategy",
    "UnknownStrategyError",
    "Unplaced",
    "alternatives",
    "clone",
    "compiled",
    "container_metrics",
    "get_strategy",
    "make_pieces",
    "plan_containers",
    "validate_plan",
]
