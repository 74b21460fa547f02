"""The suite's Hypothesis profile is the one in force (see tests/conftest.py)."""

import os

from hypothesis import HealthCheck, settings


def test_no_test_depends_on_the_speed_of_the_machine():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_examples_are_derandomized_under_ci():
    assert settings.default.derandomize is bool(os.environ.get("CI"))
