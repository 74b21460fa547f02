"""The comparison harness (packing/compare.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from packing import get_strategy
from packing.bounds import fewest_containers
from packing.compare import (
    COLUMNS,
    ROLL_CAGE,
    Problem,
    compare,
    problems,
    random_problems,
    summary,
)
from packing.errors import PackingInputError
from packing.model import ContainerType, make_pieces
from packing.strategies import FirstFitDecreasing
from packing.strategies.base import SinglePack

FAST = ["first-fit-decreasing", "best-area-fit"]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return compare(FAST, ["BR1", "MPV6"], limit=2, progress=False)


def test_one_row_per_problem_and_strategy_with_the_documented_columns(table):
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == 2 * 2 * 2
    assert set(table["strategy"]) == set(FAST)
    assert list(table["instance"].unique()) == [
        "BR1-1",
        "BR1-2",
        "class6_n050/01",
        "class6_n050/02",
    ]
    assert set(table["status"]) == {"heuristic"}
    assert table["solver_gap_pct"].isna().all()
    assert (table["cpu_s"] >= 0).all() and (table["wall_s"] >= 0).all()


def test_loading_rows_measure_one_container_against_the_volume_bound(table):
    (br,) = problems("BR1", limit=1)
    direct = get_strategy("first-fit-decreasing").pack(
        list(br.pieces), br.container, support_ratio=br.support_ratio
    )
    row = table[(table["instance"] == "BR1-1") & (table["strategy"] == "first-fit-decreasing")]
    row = row.iloc[0]
    volume = br.container.inner_volume
    cargo = sum(p.volume for p in br.pieces)
    assert row["containers"] == 1 and row["placed"] == len(direct.placed)
    assert row["utilisation_pct"] == pytest.approx(100 * direct.placed_volume / volume)
    bound = min(cargo, volume)
    assert row["gap_pct"] == pytest.approx(100 * (bound - direct.placed_volume) / bound)
    assert math.isnan(row["lower_bound"])


def test_bin_packing_rows_place_everything_and_count_against_the_lower_bound(table):
    mpv = table[table["kind"] == "bin-packing"]
    assert (mpv["placed"] == mpv["pieces"]).all()
    # the larger of bounds_mpv.csv's and that of the boxes' shapes: 10 and 11 for the first
    # class 6 instance, 10 and 9 for the second
    one, two = problems("MPV6", limit=2)
    assert (one.lower_bound, fewest_containers(one.pieces, one.container)) == (10, 11)
    assert (two.lower_bound, fewest_containers(two.pieces, two.container)) == (10, 9)
    bound = {one.name: 11, two.name: 10}
    assert (mpv["lower_bound"] == mpv["instance"].map(bound)).all()
    assert (mpv["containers"] >= mpv["lower_bound"]).all()
    expected = 100 * (mpv["containers"] - mpv["lower_bound"]) / mpv["lower_bound"]
    assert (mpv["gap_pct"] == expected).all()
    # utilisation is the cargo over the bins used (the class 6 bin is 10 × 10 × 10)
    (p,) = problems("MPV6", limit=1)
    cargo = sum(q.volume for q in p.pieces)
    first = mpv.iloc[0]
    assert first["utilisation_pct"] == pytest.approx(100 * cargo / (first["containers"] * 1000))


def test_instances_are_cloned_with_the_run_time_limit_and_left_unchanged():
    mine = get_strategy("block-building", max_width=2)
    out = compare([mine], ["BR2"], limit=1, time_limit=0.05, progress=False)
    assert mine.time_limit is None and mine.max_width == 2
    assert out.loc[0, "settings"] == (
        "general_blocks=True, max_width=2, repair=True, seed=0, tails=True, time_limit=0.05"
    )


def test_a_mapping_labels_the_rows_and_a_sweep_keeps_settings_apart():
    sweep = {f"width {w}": get_strategy("block-building", max_width=w) for w in (1, 4)}
    out = compare(sweep, ["BR3"], limit=1, time_limit=0.05, progress=False)
    assert list(out["strategy"]) == ["width 1", "width 4"]
    assert out["settings"].nunique() == 2


def test_random_orders_are_seeded_bin_packing_into_the_roll_cage():
    a, b = random_problems(2, parcels=12, seed=4)
    again, _ = random_problems(2, parcels=12, seed=4)
    assert (a.name, b.name, a.set, a.kind) == ("random-0", "random-1", "random", "bin-packing")
    assert a.container == ROLL_CAGE and len(a.pieces) == 12
    assert a.pieces == again.pieces and a.pieces != b.pieces
    out = compare("first-fit-decreasing", [a], progress=False)
    row = out.iloc[0]
    cargo = sum(p.volume for p in a.pieces)
    kg = sum(p.weight_kg for p in a.pieces)
    bound = max(math.ceil(cargo / ROLL_CAGE.inner_volume), math.ceil(kg / 500.0))
    assert row["lower_bound"] == bound and row["placed"] == 12


class _Reporting(FirstFitDecreasing):
    """First fit decreasing that reports a solver status and gap, as an exact solver does."""

    name = "reporting"

    def __init__(
        self, *, time_limit: float | None = None, seed: int = 0, statuses: tuple = ()
    ) -> None:
        super().__init__(time_limit=time_limit, seed=seed)
        self.statuses = statuses

    def pack(self, pieces, container, *, support_ratio=0.8) -> SinglePack:
        out = super().pack(pieces, container, support_ratio=support_ratio)
        calls = getattr(self, "_calls", 0)
        self._calls = calls + 1
        out.solver_status, out.gap = self.statuses[min(calls, len(self.statuses) - 1)]
        return out


def test_solver_status_and_gap_are_the_worst_over_the_containers():
    cube = ContainerType("cube", "cube", (100, 100, 100))
    pieces = tuple(make_pieces("a", (100, 100, 60), 3))  # one per container: three containers
    problem = Problem("three", "hand", "bin-packing", pieces, cube, 0.0)
    strat = _Reporting(statuses=(("optimal", 0.0), ("feasible", 0.125), ("optimal", 0.0)))
    row = compare([strat], [problem], progress=False).iloc[0]
    # their volume fits in two cubes, but no two of them share one: three are the fewest
    assert row["containers"] == 3 and row["lower_bound"] == 3
    assert row["status"] == "feasible" and row["solver_gap_pct"] == pytest.approx(12.5)
    assert row["gap_pct"] == 0.0


def test_progress_goes_to_stderr_and_can_be_switched_off(capsys):
    compare("first-fit-decreasing", ["BR4"], limit=1, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "compare" in captured.err and "1/1" in captured.err
    compare("first-fit-decreasing", ["BR4"], limit=1, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("strategies", "instances", "kwargs", "field"),
    [
        (FAST, [], {}, "instances"),
        (FAST, [3], {}, "instances"),
        ([], ["BR1"], {}, "strategies"),
        (["simulated-annealing"], ["BR1"], {}, "strategy"),
        (FAST, ["BR1"], {"time_limit": 0}, "time_limit"),
        (FAST, ["BR1"], {"limit": 0}, "limit"),
        (FAST, ["BR1"], {"limit": 2.5}, "limit"),
        (FAST, ["BR1"], {"limit": float("nan")}, "limit"),
        (FAST, ["BR1"], {"limit": "2"}, "limit"),
        (FAST, ["BR1"], {"time_limit": "0.5"}, "time_limit"),
        (FAST, ["BR1"], {"time_limit": float("inf")}, "time_limit"),
        (None, ["BR1"], {}, "strategies"),
        (5, ["BR1"], {}, "strategies"),
        (FAST, None, {}, "instances"),
        (FAST, ["BR19"], {}, "instances"),
        (FAST, ["br8"], {}, "instances"),
        (FAST, 5, {}, "instances"),
        (FAST, [Problem("p", "hand", "knapsack", (), ROLL_CAGE, 0.8)], {}, "instances"),
        (FAST, [Problem("p", "hand", "loading", (), ROLL_CAGE, 0.8)], {}, "instances"),
    ],
)
def test_bad_arguments_are_named(strategies, instances, kwargs, field):
    with pytest.raises(PackingInputError) as info:
        compare(strategies, instances, progress=False, **kwargs)
    assert info.value.field == field


def test_summary_means_per_set_and_strategy(table):
    s = summary(table)
    assert len(s) == 4 and set(s["runs"]) == {2}
    br = s[(s["set"] == "BR1") & (s["strategy"] == "best-area-fit")].iloc[0]
    rows = table[(table["set"] == "BR1") & (table["strategy"] == "best-area-fit")]
    assert br["utilisation_pct"] == pytest.approx(rows["utilisation_pct"].mean())
    assert math.isnan(br["lower_bound"])  # loading problems have no container bound
    mpv = s[(s["set"] == "MPV6") & (s["strategy"] == "best-area-fit")].iloc[0]
    assert mpv["lower_bound"] == 21  # the two instances' bounds, 11 and 10


def test_random_orders_as_loading_fill_one_container():
    half = ContainerType("half", "Half cage", (800, 800, 720), max_payload_kg=250.0)
    (order,) = random_problems(1, parcels=30, seed=7, container=half, kind="loading")
    assert order.kind == "loading"
    row = compare("first-fit-decreasing", [order], progress=False).iloc[0]
    assert row["containers"] == 1 and row["placed"] < 30  # 30 parcels overfill half a cage
    with pytest.raises(PackingInputError) as info:
        random_problems(1, kind="knapsack")
    assert info.value.field == "kind"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"count": 2.5}, "count"),
        ({"count": float("nan")}, "count"),
        ({"count": "3"}, "count"),
        ({"count": None}, "count"),
        ({"seed": -1}, "seed"),
        ({"seed": 2.5}, "seed"),
        ({"seed": "5"}, "seed"),
        ({"seed": float("nan")}, "seed"),
        ({"support_ratio": float("nan")}, "support_ratio"),
        ({"support_ratio": 2}, "support_ratio"),
        ({"support_ratio": None}, "support_ratio"),
        ({"container": None}, "container"),
        ({"container": "roll-cage"}, "container"),
    ],
)
def test_random_problems_name_the_bad_argument(kwargs, field):
    """Refused when the orders are made, not with a TypeError from numpy or the slicing,
    nor later when a comparison runs them."""
    args = {"count": 1, "parcels": 3} | kwargs
    with pytest.raises(PackingInputError) as info:
        random_problems(args.pop("count"), **args)
    assert info.value.field == field


def test_problems_name_a_limit_that_is_no_whole_number():
    for limit in (2.5, float("inf"), "2"):
        with pytest.raises(PackingInputError) as info:
            problems("BR1", limit=limit)
        assert info.value.field == "limit"


def test_a_lone_problem_is_compared_like_a_list_of_one():
    (order,) = random_problems(1, parcels=5, seed=3)
    alone = compare("first-fit-decreasing", order, progress=False)
    listed = compare("first-fit-decreasing", [order], progress=False)
    assert list(alone["instance"]) == ["random-0"]
    assert alone.drop(columns=["cpu_s", "wall_s"]).equals(listed.drop(columns=["cpu_s", "wall_s"]))
