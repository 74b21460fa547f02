"""The planning use case: a request of the contract through both libraries to the result.

Data flows one way: the contract's schemas (:mod:`adapters.planning.schemas`) → the use case
(:mod:`adapters.planning.compute`) → the ``packing`` and ``thermal`` libraries → their typed
results → one mapping to the contract (:mod:`adapters.planning.mapping`). The service, the
store, the report and notebooks that want exactly what the API returns use this package.
"""

from adapters.planning.catalogs import preload
from adapters.planning.compute import compute_plan
from adapters.planning.errors import PlanInputError
from adapters.planning.mapping import catalog_containers
from adapters.planning.schemas import (
    CombinedPackingPlanResult,
    PackingPlanInput,
    PackingPlanRecord,
)

__all__ = [
    "CombinedPackingPlanResult",
    "PackingPlanInput",
    "PackingPlanRecord",
    "PlanInputError",
    "catalog_containers",
    "compute_plan",
    "preload",
]
