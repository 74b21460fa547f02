"""Settings of the service read from the environment."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from adapters.api.settings import Settings


def test_the_work_rate_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PACKPLAN_WORK_UNITS_PER_SECOND", raising=False)
    assert Settings().work_units_per_second is None
    monkeypatch.setenv("PACKPLAN_WORK_UNITS_PER_SECOND", "65400000")
    assert Settings().work_units_per_second == 65_400_000
    monkeypatch.setenv("PACKPLAN_WORK_UNITS_PER_SECOND", "0")
    with pytest.raises(ValidationError, match="work_units_per_second"):
        Settings()
