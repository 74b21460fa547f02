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
    # beyond the bounds (a slip of digits) is refused, naming the setting
    monkeypatch.setenv("PACKPLAN_WORK_UNITS_PER_SECOND", "5000000")
    assert Settings().work_units_per_second == 5_000_000
    for bad in ("0", "4999999", "500000001", "9300000000", "fast"):
        monkeypatch.setenv("PACKPLAN_WORK_UNITS_PER_SECOND", bad)
        with pytest.raises(ValidationError, match="work_units_per_second"):
            Settings()
    # an empty variable, as compose files leave them, is unset
    monkeypatch.setenv("PACKPLAN_WORK_UNITS_PER_SECOND", "")
    assert Settings().work_units_per_second is None


def test_a_compute_pool_refuses_a_bad_rate_before_starting_a_worker() -> None:
    from adapters.api.compute import ComputePool
    from packing.errors import PackingInputError

    for bad in (0, -1, 2.5):
        with pytest.raises(PackingInputError) as info:
            ComputePool(
                workers=1, queue=0, time_limit_s=1.0, grace_s=1.0, work_units_per_second=bad
            )  # type: ignore[arg-type]
        assert info.value.field == "units_per_second"
