"""The exact MILP strategy: proven optima, honest statuses, never worse than its heuristic.

No test measures time: a budget buys a node allowance, and the wall-clock cap is lifted
(:func:`no_wall_clock`), so statuses and plans cannot depend on the machine's speed.
"""

import contextlib

import pulp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import (
    ContainerType,
    PackingInputError,
    Rules,
    get_strategy,
    make_pieces,
    plan_containers,
    validate_plan,
)
from packing.strategies.base import Budget
from packing.strategies.blocks import BlockBuilding
from packing.strategies.milp import _CBC, MilpPlacement, _cbc_outcome
from tests.packing.checks import check_pack
from tests.strategies import cargo, container_st, plain_rules_st, small_container_st

BOX = ContainerType("box", "Box", (400, 300, 300))

# Three 300 × 200 × 200 mm pieces: two fit side by side along Z, a third nowhere
# (300 + 300 > 400 along X, 200 + 200 > 300 along Y, three × 200 > 300 along Z).
TWO_OF_THREE = make_pieces("a", (300, 200, 200), 3)

# 3 × (3, 4, 7) + 3 × (5, 2, 5) + 2 × (7, 4, 2) mm into 12 × 4 × 10 mm: 514 mm³ of pieces
# into 480 mm³. Leaving out one 50 mm³ piece gives 464 mm³; the other subsets are 458 mm³
# or less, so 464 mm³ is the best any plan can do. Block building places 430 mm³.
KNAPSACK_BOX = ContainerType("k", "K", (12, 4, 10))
KNAPSACK = (
    make_pieces("i0", (3, 4, 7), 3)
    + make_pieces("i1", (5, 2, 5), 3, item_order=1)
    + make_pieces("i2", (7, 4, 2), 2, item_order=2)
)

# Ten stackable parcels into a 56 L thermal box: block building places 41.9 of 47.9 dm³,
# and the program's bound stays above that for thousands of nodes.
HARD_BOX = ContainerType("vip-cube-56l", "VIP cube 56 L", (400, 380, 370), max_payload_kg=45)
HARD = (
    make_pieces("p5", (220, 160, 120), 5, weight_kg=1.8)
    + make_pieces("p8", (240, 180, 160), 3, weight_kg=2.2, item_order=1)
    + make_pieces("p0", (200, 150, 100), 2, weight_kg=1.2, item_order=2)
)


@contextlib.contextmanager
def no_wall_clock():
    """Lift the budgets' wall-clock cap: searches end by work units and node limits only."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Budget, "HARD_FACTOR", 1e9)
        yield


@contextlib.contextmanager
def solver_runs():
    """Count the solver runs of :class:`MilpPlacement` while the block runs."""
    runs = []
    run = MilpPlacement._run

    def counting(self, program, budget, nodes, started):
        out = run(self, program, budget, nodes, started)
        runs.append(out)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(MilpPlacement, "_run", counting)
        yield runs


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_pieces_that_all_fit_are_all_placed_and_optimal(solver):
    pieces = make_pieces("a", (200, 100, 150), 3)
    with no_wall_clock():
        out = MilpPlacement(time_limit=1.0, solver=solver).pack(pieces, BOX)
    assert len(out.placed) == 3 and not out.leftover
    assert (out.solver_status, out.gap) == ("optimal", 0.0)
    check_pack(out, pieces, BOX)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_the_solver_proves_that_only_two_of_three_fit(solver):
    with no_wall_clock(), solver_runs() as runs:
        out = MilpPlacement(time_limit=1.0, solver=solver).pack(TWO_OF_THREE, BOX)
    assert [r.status for r in runs] == ["optimal"]
    assert len(out.placed) == 2 and len(out.leftover) == 1
    assert (out.solver_status, out.gap) == ("optimal", 0.0)
    check_pack(out, TWO_OF_THREE, BOX)


def test_highs_writes_nothing_on_standard_output(capfd):
    """HiGHS logs its banner from C++ straight to file descriptor 1 unless its logging
    is off before the model is used: a notebook or a command's JSON output would get it."""
    with no_wall_clock(), solver_runs() as runs:
        MilpPlacement(time_limit=1.0, solver="highs").pack(TWO_OF_THREE, BOX)
    assert [r.status for r in runs] == ["optimal"]  # the solver did run
    out = capfd.readouterr().out
    assert out == "", out


def test_the_program_finds_and_proves_the_optimum_block_building_misses():
    with no_wall_clock():
        heuristic = BlockBuilding(time_limit=0.4).pack(KNAPSACK, KNAPSACK_BOX)
        out = MilpPlacement(time_limit=2.0).pack(KNAPSACK, KNAPSACK_BOX)
    assert heuristic.placed_volume == 430
    assert out.placed_volume == 464
    assert (out.solver_status, out.gap) == ("optimal", 0.0)
    check_pack(out, KNAPSACK, KNAPSACK_BOX)
    plan = plan_containers(KNAPSACK, [KNAPSACK_BOX], strategy=MilpPlacement(), time_limit=10)
    validate_plan(plan)


def test_cbc_says_optimal_only_for_the_optimum():
    # CBC's search is not repeatable run to run (some of its choices follow the clock):
    # within its node allowance it either proves 464 mm³ or stops with a gap to its bound.
    with no_wall_clock(), solver_runs() as runs:
        out = MilpPlacement(time_limit=2.0, solver="cbc").pack(KNAPSACK, KNAPSACK_BOX)
    check_pack(out, KNAPSACK, KNAPSACK_BOX)
    if out.solver_status == "optimal":
        assert (out.placed_volume, out.gap) == (464, 0.0)
    else:
        assert out.solver_status == "feasible" and out.placed_volume >= 430
        bound = runs[0].bound
        assert bound >= 464
        assert out.gap == pytest.approx((bound - out.placed_volume) / out.placed_volume)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_a_small_node_allowance_stops_with_a_gap_to_the_bound(solver):
    with no_wall_clock(), solver_runs() as runs:
        out = MilpPlacement(time_limit=0.01, solver=solver).pack(HARD, HARD_BOX)
    assert [r.status for r in runs] == ["feasible"]
    bound = runs[0].bound
    assert out.solver_status == "feasible"
    assert out.placed_volume < bound <= sum(p.volume for p in HARD)
    assert out.gap == pytest.approx((bound - out.placed_volume) / out.placed_volume)
    assert out.gap > 0.0
    check_pack(out, HARD, HARD_BOX)


def test_a_machines_rate_buys_solver_nodes_as_it_buys_units():
    # twice the rate and half the time limit buy the search and the nodes of the default
    # rate at the whole limit, and more than the default rate at half the limit does
    with no_wall_clock():
        with solver_runs() as whole:
            a = MilpPlacement(time_limit=0.02).pack(HARD, HARD_BOX)
        with solver_runs() as half:
            c = MilpPlacement(time_limit=0.01).pack(HARD, HARD_BOX)
        try:
            Budget.use_rate(2 * Budget.DEFAULT_RATE)
            with solver_runs() as fast:
                b = MilpPlacement(time_limit=0.01).pack(HARD, HARD_BOX)
        finally:
            Budget.use_rate(None)
    assert [r.nodes for r in fast] == [r.nodes for r in whole]
    assert whole[0].nodes > half[0].nodes
    assert (b.work_units, b.placed) == (a.work_units, a.placed)
    assert c.work_units < a.work_units


def test_cbc_stopped_before_an_integer_solution_gives_no_plan():
    # CBC then writes its relaxation's values, which are no plan
    line = "Stopped on iterations (no integer solution - continuous used) - objective value 1994.0"
    log = "Result - Stopped on node limit\n\nObjective value: 1994.0\nUpper bound: 1994.000\n"
    out = _cbc_outcome(line, log + "Enumerated nodes:  1\n", 8000)
    assert (out.status, out.bound, out.nodes, out.has_solution) == (
        "feasible",
        1994 * 8000,
        1,
        False,
    )
    done = _cbc_outcome("Optimal - objective value 232.0", "Objective value: 232.0\n", 2)
    assert (done.status, done.bound, done.has_solution) == ("optimal", 464, True)


def test_cbc_stopped_on_time_says_so():
    line = "Stopped on time - objective value 410.0"
    log = "Objective value: 410.0\nUpper bound: 460.000\nEnumerated nodes:  7\n"
    timed = _cbc_outcome(line, log, 1)
    assert (timed.status, timed.has_solution, timed.timed_out) == ("feasible", True, True)
    # stopped on time before any integer solution: no plan, but a cut all the same
    line = "Stopped on time (no integer solution - continuous used) - objective value 460.0"
    early = _cbc_outcome(line, log, 1)
    assert (early.status, early.has_solution, early.timed_out) == ("feasible", False, True)
    # a node limit is written as iterations
    nodes = _cbc_outcome("Stopped on iterations - objective value 410.0", log, 1)
    assert (nodes.status, nodes.timed_out) == ("feasible", False)
    done = _cbc_outcome("Optimal - objective value 232.0", "Objective value: 232.0\n", 2)
    assert not done.timed_out


@pytest.mark.parametrize("timed_out", [False, True])
def test_a_solver_stopped_by_its_wall_clock_cap_marks_the_result_cut(timed_out, monkeypatch):
    # the solver counts wall time (its cap is the budget's safety net): a run that stopped
    # there, not on its node allowance, may plan otherwise on another machine
    run = MilpPlacement._run

    def reporting(self, program, budget, nodes, started):
        return run(self, program, budget, nodes, started)._replace(timed_out=timed_out)

    monkeypatch.setattr(MilpPlacement, "_run", reporting)
    with no_wall_clock():
        out = MilpPlacement(time_limit=0.01).pack(HARD, HARD_BOX)
    assert out.solver_status == "feasible"
    assert out.wall_cut is timed_out
    check_pack(out, HARD, HARD_BOX)


def test_equal_settings_give_equal_plans_and_statuses():
    with no_wall_clock():
        a, b = (MilpPlacement(time_limit=0.3, seed=2).pack(HARD, HARD_BOX) for _ in range(2))
    assert a.placed == b.placed
    assert (a.solver_status, a.gap) == (b.solver_status, b.gap)


def test_without_highspy_cbc_solves(monkeypatch):
    monkeypatch.setattr(pulp.HiGHS, "available", lambda self: False)
    used = []
    get_status = _CBC.get_status

    def spy(self, filename):
        used.append(filename)
        return get_status(self, filename)

    monkeypatch.setattr(_CBC, "get_status", spy)
    with no_wall_clock():
        out = MilpPlacement(time_limit=1.0, solver="highs").pack(TWO_OF_THREE, BOX)
    assert used, "CBC did not run"
    assert (out.solver_status, len(out.placed)) == ("optimal", 2)


def test_a_solver_failure_is_reported_and_the_heuristic_plan_returned(monkeypatch):
    def broken(self, lp):
        raise pulp.PulpSolverError("broken on purpose")

    monkeypatch.setattr("packing.strategies.milp._HiGHS.callSolver", broken)
    with no_wall_clock():
        out = MilpPlacement(time_limit=1.0).pack(TWO_OF_THREE, BOX)
        heuristic = BlockBuilding(time_limit=0.2).pack(TWO_OF_THREE, BOX)
    assert (out.solver_status, out.gap) == ("failed", None)
    assert out.placed == heuristic.placed


def test_above_max_pieces_it_is_block_building_with_the_whole_budget():
    pieces = make_pieces("a", (120, 80, 90), 5) + make_pieces("b", (90, 70, 60), 4, item_order=1)
    with no_wall_clock(), solver_runs() as runs:
        out = MilpPlacement(time_limit=0.3, max_pieces=8).pack(pieces, BOX)
        bb = BlockBuilding(time_limit=0.3).pack(pieces, BOX)
    assert runs == []
    assert (out.solver_status, out.gap) == (None, None)
    assert out.placed == bb.placed


def test_a_probe_budget_runs_no_solver():
    with no_wall_clock(), solver_runs() as runs:
        out = MilpPlacement(time_limit=1e-6).pack(HARD, HARD_BOX)
    assert runs == [] and out.solver_status is None and out.placed


@pytest.mark.parametrize(
    ("setting", "value"),
    [("solver", "gurobi"), ("max_pieces", 0), ("max_pieces", 2.5), ("warm_start", "yes")],
)
def test_bad_settings_are_input_errors_naming_the_setting(setting, value):
    s = get_strategy("milp", **{setting: value})
    with pytest.raises(PackingInputError) as info:
        s.pack(TWO_OF_THREE, BOX)
    assert info.value.field == setting


def test_rules_are_kept_by_the_solver_plan():
    # A floor-only, nothing-on-top drum, priorities and a FRONT door: the solver's plan is
    # kept only when validate_plan accepts it, so "failed" would mean a broken rule.
    box = ContainerType("f", "F", (600, 400, 400), max_payload_kg=40, loading_side="FRONT")
    pieces = (
        make_pieces("drum", (300, 350, 300), 1, weight_kg=20, rules=Rules(stack_on_top=False))
        + make_pieces("late", (200, 150, 200), 3, weight_kg=4, item_order=1)
        + make_pieces(
            "first", (200, 150, 200), 3, weight_kg=4, rules=Rules(unload_priority=2), item_order=2
        )
    )
    with no_wall_clock():
        out = MilpPlacement(time_limit=2.0).pack(pieces, box)
        plan = plan_containers(pieces, [box], strategy=MilpPlacement(), time_limit=4.0)
    assert out.solver_status in ("optimal", "feasible")
    check_pack(out, pieces, box)
    validate_plan(plan)


@settings(max_examples=15)
@given(
    pieces=cargo(max_items=3),
    container=st.one_of(container_st, small_container_st),
    ratio=st.sampled_from([0.0, 0.8, 1.0]),
)
def test_never_worse_than_its_heuristic_and_every_plan_is_valid(pieces, container, ratio):
    pieces = pieces[:8]
    with no_wall_clock(), solver_runs() as runs:
        out = MilpPlacement(time_limit=0.3).pack(pieces, container, support_ratio=ratio)
        heuristic = BlockBuilding(time_limit=0.3 * MilpPlacement.HEURISTIC_SHARE).pack(
            pieces, container, support_ratio=ratio
        )
        plan = plan_containers(
            pieces,
            [container],
            strategy="milp",
            support_ratio=ratio,
            time_limit=0.6,
            max_containers=2,
        )
    check_pack(out, pieces, container, ratio)
    assert out.placed_volume >= heuristic.placed_volume
    # "failed" would mean the solver's plan broke a rule validate_plan checks
    assert out.solver_status != "failed"
    assert all(r.status != "failed" for r in runs)
    if out.solver_status == "optimal":
        assert out.gap == 0.0
    if out.solver_status == "feasible" and out.gap is not None:
        assert out.gap > 0.0
    validate_plan(plan, support_ratio=ratio)


@settings(max_examples=8)
@given(pieces=cargo(max_items=2, rules=plain_rules_st), container=small_container_st)
def test_without_warm_start_the_heuristic_plan_is_still_the_floor(pieces, container):
    pieces = pieces[:8]
    with no_wall_clock():
        out = MilpPlacement(time_limit=0.3, warm_start=False).pack(pieces, container)
        heuristic = BlockBuilding(time_limit=0.3 * MilpPlacement.HEURISTIC_SHARE).pack(
            pieces, container
        )
    assert out.placed_volume >= heuristic.placed_volume
    assert out.solver_status != "failed"
    check_pack(out, pieces, container)
