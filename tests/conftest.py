"""Settings shared by the whole test suite.

One Hypothesis profile for every property test: no per-example deadline and no "too slow"
health check, so that no test depends on the speed or the load of the machine; under CI
(``CI`` set) the examples are also derandomized, so a run is repeatable.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "packplan",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("packplan-ci", parent=settings.get_profile("packplan"), derandomize=True)
settings.load_profile("packplan-ci" if os.environ.get("CI") else "packplan")
