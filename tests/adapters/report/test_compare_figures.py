"""Charts of a strategy comparison (adapters/report/compare.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from adapters.report import compare as charts
from packing.compare import COLUMNS


def _row(**values: object) -> dict[str, object]:
    base: dict[str, object] = {
        "instance": "i1",
        "set": "BR1",
        "kind": "loading",
        "strategy": "a",
        "settings": "seed=0, time_limit=1.0",
        "pieces": 10,
        "placed": 9,
        "utilisation_pct": 80.0,
        "containers": 1,
        "lower_bound": math.nan,
        "gap_pct": 10.0,
        "solver_gap_pct": math.nan,
        "status": "heuristic",
        "cpu_s": 0.5,
        "wall_s": 0.6,
    }
    base.update(values)
    return base


@pytest.fixture()
def table() -> pd.DataFrame:
    rows = [
        _row(strategy="<b>mine</b>", utilisation_pct=70.0),
        _row(strategy="<b>mine</b>", instance="i2", utilisation_pct=90.0),
        _row(strategy="milp", status="optimal", solver_gap_pct=0.0),
        _row(strategy="milp", instance="i2", status="feasible", solver_gap_pct=4.5),
        _row(set="MPV1", kind="bin-packing", instance="m1", containers=12, lower_bound=10.0),
        _row(set="MPV1", kind="bin-packing", instance="m2", containers=9, lower_bound=9.0),
        _row(set="MPV1", kind="bin-packing", instance="m1", strategy="milp", containers=11,
             lower_bound=10.0),
        _row(set="MPV1", kind="bin-packing", instance="m2", strategy="milp", containers=9,
             lower_bound=9.0),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_utilisation_bars_are_means_per_set_with_escaped_names(table: pd.DataFrame) -> None:
    fig = charts.utilisation_figure(table)
    names = [t.name for t in fig.data]
    assert names == ["&lt;b&gt;mine&lt;/b&gt;", "milp", "a"]
    mine = fig.data[0]
    assert list(mine.x) == ["BR1"] and list(mine.y) == [80.0]


def test_quality_time_has_a_point_per_run(table: pd.DataFrame) -> None:
    fig = charts.quality_time_figure(table)
    assert sum(len(t.x) for t in fig.data) == len(table)
    assert fig.layout.xaxis.type == "log"


def test_containers_against_the_lower_bound(table: pd.DataFrame) -> None:
    fig = charts.containers_figure(table)
    *bars, bound = fig.data
    assert {b.name: list(b.y) for b in bars} == {"a": [21], "milp": [20]}
    assert bound.name == "lower bound" and list(bound.y) == [19.0]
    with pytest.raises(ValueError, match="no bin-packing rows"):
        charts.containers_figure(table[table["kind"] == "loading"])


def test_solver_gap_draws_reported_gaps_and_counts_the_rest(table: pd.DataFrame) -> None:
    fig = charts.solver_gap_figure(table)
    (bars,) = fig.data
    assert list(bars.x) == ["i1", "i2"] and list(bars.y) == [0.0, 4.5]
    assert list(bars.text) == ["optimal", "feasible"]
    assert "6 of 8 runs reported no gap (status: heuristic)" in fig.layout.title.text


def test_sweep_reads_the_setting_from_the_settings_text(table: pd.DataFrame) -> None:
    sweep = pd.DataFrame(
        [
            _row(settings=f"max_width={w}, seed=0", utilisation_pct=u, cpu_s=c)
            for w, u, c in ((1, 80.0, 0.1), (4, 85.0, 0.3), (16, 88.0, 0.9))
        ],
        columns=list(COLUMNS),
    )
    fig = charts.sweep_figure(sweep, "max_width")
    util, cpu = fig.data
    assert list(util.x) == [1.0, 4.0, 16.0] and list(util.y) == [80.0, 85.0, 88.0]
    assert list(cpu.y) == [0.1, 0.3, 0.9]
    with pytest.raises(ValueError, match="'depth' is not in the settings"):
        charts.sweep_figure(sweep, "depth")


def test_an_empty_table_is_refused() -> None:
    with pytest.raises(ValueError, match="no rows"):
        charts.utilisation_figure(pd.DataFrame(columns=list(COLUMNS)))
