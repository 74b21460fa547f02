"""The planner scaling table (scripts/bench_scaling.py) in its quick form, so it never rots."""

from __future__ import annotations

import gc
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "bench_scaling.py"


@pytest.fixture(scope="module")
def scaling() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_scaling", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_quick_table_plans_every_piece(
    scaling: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    before = gc.get_threshold(), gc.get_freeze_count()
    assert scaling.main(["--quick", "--time-limit", "2"]) == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before  # the test's own again
    out = capsys.readouterr().out
    assert "a compute worker's collector" in out
    rows = [line for line in out.splitlines() if line[:3] in ("| 2", "| 1")]
    assert len(rows) == len(scaling.QUICK_SIZES) * len(scaling.SCENARIOS)
    for row in rows:
        pieces, _skus, scenario, wall, cpu, containers, bound, placed = (
            c.strip() for c in row.strip("|").split("|")
        )
        assert scenario in ("PLAIN", "THERMO")
        assert int(placed) == int(pieces)  # every piece placed
        assert int(containers) >= int(bound) >= 1
        assert float(wall) > 0 and float(cpu) > 0


def test_the_default_collector_is_kept_when_asked(
    scaling: ModuleType, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapters.api.compute import WORKER_GC_THRESHOLDS

    monkeypatch.setattr(scaling, "QUICK_SIZES", [(20, 5)])
    seen: list[tuple[int, ...]] = []
    run = scaling.run

    def recording_run(*args: object) -> object:
        seen.append(gc.get_threshold())
        return run(*args)

    monkeypatch.setattr(scaling, "run", recording_run)
    own = gc.get_threshold()
    assert scaling.main(["--quick", "--default-gc", "--time-limit", "1"]) == 0
    assert "Python's default collector" in capsys.readouterr().out
    assert scaling.main(["--quick", "--time-limit", "1"]) == 0
    assert "a compute worker's collector" in capsys.readouterr().out
    # each scenario planned under the process's own collector, then under a worker's
    assert seen == [own, own, WORKER_GC_THRESHOLDS, WORKER_GC_THRESHOLDS] != [own] * 4


def test_the_cargo_is_seeded_and_spread_evenly(scaling: ModuleType) -> None:
    a = scaling.body(1_000, 30, "THERMO")
    assert a == scaling.body(1_000, 30, "THERMO")
    assert sum(c["quantity"] for c in a["cargos"]) == 1_000 and len(a["cargos"]) == 30
    assert {c["temperatureMode"] for c in a["cargos"]} == {"PLUS_2_8"}
    assert {c["temperatureMode"] for c in scaling.body(20, 5, "PLAIN")["cargos"]} == {"NONE"}
    # the volume bound: the largest catalog box holds at most its inner volume
    assert scaling.lower_bound(scaling.body(10_000, 100, "PLAIN")) > 1
