"""Settings shared by the whole test suite.

One Hypothesis profile for every property test: no per-example deadline and no "too slow"
health check, so that no test depends on the speed or the load of the machine; under CI
(``CI`` set) the examples are also derandomized, so a run is repeatable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from packing.strategies.base import Budget

settings.register_profile(
    "packplan",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("packplan-ci", parent=settings.get_profile("packplan"), derandomize=True)
settings.load_profile("packplan-ci" if os.environ.get("CI") else "packplan")


@pytest.fixture(autouse=True)
def _default_work_rate() -> Iterator[None]:
    """Every test ends with the default work rate, whatever it set (a rate is per process)."""
    yield
    Budget.use_rate(None)
