"""The common suite: every registered strategy, the same checks (property tests included).

Like scikit-learn's ``check_estimator``: settings round trip, ``clone``, names and
instances giving the same plans, the plan's budget governing an instance, ``pack`` leaving
the settings alone. No check measures time: budgets are compared in the settings and work
units the strategies report, under a clock that stands still (:func:`frozen_clock`).
"""

import contextlib
import types
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import packing.planner
import packing.strategies.base
from packing import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    ContainerType,
    PackingInputError,
    Rules,
    Strategy,
    UnknownStrategyError,
    clone,
    get_strategy,
    make_pieces,
    plan_containers,
    validate_plan,
)
from tests.packing.checks import frozen_clock
from tests.strategies import cargo, container_st

NAMES = sorted(STRATEGIES)


def settings_for(name):
    return {"time_limit": 0.3} if name != "milp" else {"time_limit": 0.5, "max_pieces": 8}


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60)
@given(pieces=cargo(), container=container_st, ratio=st.sampled_from([0.0, 0.8, 1.0]))
def test_every_plan_is_valid_and_accounts_for_every_piece(name, pieces, container, ratio):
    strat = get_strategy(name, **settings_for(name))
    result = plan_containers(
        pieces, [container], strategy=strat, support_ratio=ratio, max_containers=3
    )
    validate_plan(result)
    seen = Counter((p.piece.item_id, p.piece.instance) for p in result.placements)
    seen.update((u.piece.item_id, u.piece.instance) for u in result.unplaced)
    assert seen == Counter(p.key for p in pieces)
    assert all(u.reason for u in result.unplaced)
    # weight kept: the plan holds exactly the mass of the placed pieces
    per_item = {p.item_id: p.weight_kg for p in pieces}
    assert sum(c.cargo_weight_kg for c in result.containers) == pytest.approx(
        sum(per_item[p.piece.item_id] for p in result.placements)
    )


@pytest.mark.parametrize("name", NAMES)
def test_identical_boxes_fill_a_container_exactly(name):
    # 4 × 3 × 2 boxes of 100 × 100 × 100 fill a 400 × 300 × 200 container completely
    c = ContainerType("c", "C", (400, 300, 200))
    pieces = make_pieces("a", (100, 100, 100), 24)
    r = plan_containers(pieces, [c], strategy=get_strategy(name, **settings_for(name)))
    validate_plan(r)
    assert len(r.containers) == 1 and not r.unplaced
    assert r.containers[0].volume_utilization == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_plan(name):
    pieces = make_pieces("a", (120, 80, 90), 20) + make_pieces(
        "b", (200, 150, 100), 7, item_order=1
    )
    c = ContainerType("c", "C", (600, 400, 400))
    runs = [
        plan_containers(
            pieces,
            [c],
            strategy=get_strategy(name, time_limit=5.0, seed=3),
        ).placements_frame()
        for _ in range(2)
    ]
    assert runs[0].equals(runs[1])


@pytest.mark.parametrize("name", NAMES)
def test_floor_only_and_nothing_on_top(name):
    floor = Rules(stack_under=False, stack_on_top=False)
    no_top = Rules(stack_on_top=False)
    pieces = make_pieces("f", (100, 100, 100), 6, rules=floor) + make_pieces(
        "n", (100, 100, 100), 6, rules=no_top, item_order=1
    )
    c = ContainerType("c", "C", (300, 300, 200))
    r = plan_containers(
        pieces, [c], strategy=get_strategy(name, **settings_for(name)), max_containers=1
    )
    validate_plan(r)
    for p in r.placements:
        if p.piece.item_id == "f":
            assert p.position[1] == 0
    # 6 floor cells; nothing may stand on either item, so exactly 6 pieces fit
    assert len(r.placements) == 6


def test_unknown_strategy_is_an_input_error_listing_valid_names():
    for bad in ("simulated-annealing", ["block-building"]):
        with pytest.raises(UnknownStrategyError, match="first-fit-decreasing") as info:
            get_strategy(bad)
        assert isinstance(info.value, PackingInputError) and isinstance(info.value, ValueError)
        assert info.value.field == "strategy"
        assert info.value.valid == NAMES
    with pytest.raises(UnknownStrategyError):  # before any work
        plan_containers(make_pieces("a", (1, 1, 1), 1), [C], strategy="simulated-annealing")


def test_settings_are_validated_when_solving():
    s = get_strategy("block-building", time_limit=-1)
    assert s.time_limit == -1  # stored as given
    with pytest.raises(PackingInputError, match="time_limit"):
        s.pack(make_pieces("a", (1, 1, 1), 1), ContainerType("c", "C", (5, 5, 5)))
    assert "max_width=64" in repr(get_strategy("block-building"))


# -- common checks, like scikit-learn's check_estimator ------------------------------------

C = ContainerType("c", "C", (600, 400, 400), loading_side="FRONT")
D = ContainerType("d", "D", (500, 300, 400), loading_side="SIDE")
CARGO = make_pieces("a", (120, 80, 90), 20) + make_pieces("b", (200, 150, 100), 7, item_order=1)


@contextlib.contextmanager
def budgets_used(most: float):
    """Record ``(time_limit, work_units)`` of every ``pack`` call while the block runs.

    A call whose strategy has a budget above ``most`` [s] fails at once, before it
    searches (so a strategy that ignored the plan's budget cannot make the test hang).
    """
    used: list[tuple[float, int]] = []
    pack = Strategy.pack

    def recording(self, *args, **kwargs):
        if self.time_limit is None or self.time_limit > most:
            pytest.fail(f"{self!r} packs with more than the plan's budget of {most} s")
        out = pack(self, *args, **kwargs)
        used.append((out.time_limit, out.work_units))
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Strategy, "pack", recording)
        yield used


def placements(result):
    return [
        (p.container_index, p.piece.key, p.position, p.orientation, p.load_step)
        for p in result.placements
    ]


@pytest.mark.parametrize("name", NAMES)
def test_registry_names_its_classes(name):
    cls = STRATEGIES[name]
    assert cls.name == name
    assert type(get_strategy(name)) is cls
    assert type(get_strategy()) is STRATEGIES[DEFAULT_STRATEGY]


@pytest.mark.parametrize("name", NAMES)
def test_get_params_and_set_params_round_trip(name):
    s = get_strategy(name)
    params = s.get_params()
    assert {"time_limit", "seed"} <= set(params)
    fresh = STRATEGIES[name]()
    assert fresh.set_params(**params) is fresh
    assert fresh.get_params() == params
    assert s.set_params(seed=7, time_limit=0.25).get_params() == {
        **params,
        "seed": 7,
        "time_limit": 0.25,
    }
    with pytest.raises(PackingInputError) as info:
        s.set_params(not_a_setting=1)
    assert info.value.field == "not_a_setting"


@pytest.mark.parametrize("name", NAMES)
def test_clone_gives_equal_settings_in_an_independent_object(name):
    s = get_strategy(name, seed=5)
    c = clone(s)
    assert c is not s and type(c) is type(s)
    assert c.get_params() == s.get_params()
    c.set_params(seed=9, time_limit=0.1)
    assert s.seed == 5 and s.time_limit is None
    o = clone(s, time_limit=0.1)
    assert o.get_params() == {**s.get_params(), "time_limit": 0.1}
    # get_strategy on an instance clones too, with the settings it is given
    g = get_strategy(s, seed=3)
    assert g is not s and g.seed == 3 and s.seed == 5
    with pytest.raises(PackingInputError, match="not_a_setting") as info:
        clone(s, not_a_setting=1)
    assert info.value.field == "not_a_setting"


def test_clone_refuses_what_is_not_a_strategy():
    with pytest.raises(TypeError, match="Strategy"):
        clone("block-building")  # type: ignore[type-var]


@pytest.mark.parametrize("name", NAMES)
def test_pack_and_plan_leave_the_settings_unchanged(name):
    s = get_strategy(name, **settings_for(name))
    before = s.get_params()
    s.pack(CARGO, C)
    assert s.get_params() == before
    plan_containers(CARGO, [C], strategy=s, time_limit=0.3, seed=4)
    assert s.get_params() == before


@pytest.mark.parametrize("name", NAMES)
def test_the_plan_budget_governs_an_instance(name):
    # An instance made with a huge budget packs with the plan's share of the plan's budget,
    # exactly as the same strategy given by name: same budgets, same work, same plan.
    huge = get_strategy(name, time_limit=1e6)
    with frozen_clock():
        with budgets_used(most=0.3) as by_instance:
            a = plan_containers(CARGO, [C, D], strategy=huge, time_limit=0.3)
        with budgets_used(most=0.3) as by_name:
            b = plan_containers(CARGO, [C, D], strategy=name, time_limit=0.3)
    assert by_instance == by_name
    assert len(by_instance) > 1 and all(0 < t <= 0.3 for t, _ in by_instance)
    assert placements(a) == placements(b)
    assert huge.time_limit == 1e6


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=12)
@given(pieces=cargo(max_items=3), container=container_st, limit=st.sampled_from([0.05, 0.3]))
def test_a_name_and_an_instance_make_the_same_plan(name, pieces, container, limit):
    with frozen_clock():
        by_name = plan_containers(pieces, [container], strategy=name, time_limit=limit)
        by_instance = plan_containers(
            pieces, [container], strategy=get_strategy(name), time_limit=limit
        )
    assert placements(by_name) == placements(by_instance)
    assert by_name.strategy == by_instance.strategy == name


def test_a_budget_charges_the_price_of_each_operation():
    from packing.strategies.base import Budget

    b = Budget(0.5)
    assert b.allowance == b.units == int(0.5 * Budget.RATE) and b.spent == 0
    b.tally = {}
    b.charge(rows=3, checks=2, splits=5)
    b.charge(rows=1, calls=1)
    assert b.spent == 4 * Budget.ROW + 2 * Budget.CHECK + 5 * Budget.SPLIT + Budget.CALL
    assert b.tally["rows"] == 4 and b.tally["checks"] == 2 and b.tally["calls"] == 1
    b.spend(b.units)
    assert b.exhausted() and not b.cut


def test_a_rate_sets_the_units_a_second_buys_and_plans_follow_it():
    from packing.instances import load_shipped
    from packing.strategies.base import Budget

    problem = load_shipped("BR7")[0]
    pieces, container = problem.pieces(honour_flags=True), problem.container_type()

    def plan():  # type: ignore[no-untyped-def]
        return plan_containers(pieces, [container], max_containers=1, time_limit=0.2)

    default = plan()
    try:
        Budget.use_rate(2 * Budget.DEFAULT_RATE)
        assert Budget(0.5).allowance == Budget.DEFAULT_RATE
        doubled, again = plan(), plan()
        # the same rate gives the same plan; twice the rate buys twice the search
        assert doubled.work_units == again.work_units > 1.5 * default.work_units
        assert placements(doubled) == placements(again)
        for bad in (0, -5, 1.5, True, "93000000"):
            with pytest.raises(PackingInputError) as info:
                Budget.use_rate(bad)  # type: ignore[arg-type]
            assert info.value.field == "units_per_second"
        assert Budget.RATE == 2 * Budget.DEFAULT_RATE  # a refused rate changes nothing
    finally:
        Budget.use_rate(None)
    assert Budget.RATE == Budget.DEFAULT_RATE
    assert placements(plan()) == placements(default)


def _clocks(mp: pytest.MonkeyPatch) -> tuple[list[float], list[float]]:
    """The engine's wall and CPU clocks, set by hand: ``([wall], [cpu])`` [s]."""
    wall, cpu = [100.0], [7.0]
    clock = types.SimpleNamespace(perf_counter=lambda: wall[0], thread_time=lambda: cpu[0])
    mp.setattr(packing.strategies.base, "time", clock)
    return wall, cpu


def test_a_search_is_stopped_by_its_cpu_time_never_by_a_busy_wall_clock():
    # A budget ends by its units; its safety net reads the CPU time of its thread, which
    # other processes do not advance: only past HARD_FACTOR × its time limit plus the
    # floor of that does it stop, and then it says so (``cut``).
    from packing.strategies.base import Budget

    with pytest.MonkeyPatch.context() as mp:
        wall, cpu = _clocks(mp)
        b = Budget(2.0)
        wall[0] += 1e6  # a machine so busy that days pass: no wall-clock net runs here
        cpu[0] += Budget.HARD_FACTOR * 2.0 + Budget.HARD_FLOOR_S - 0.01
        assert not b.exhausted() and not b.cut
        cpu[0] += 0.02
        assert b.exhausted() and b.cut


def test_the_outermost_call_alone_bounds_the_wall_clock():
    # Budget.wall_net: every budget made inside stops once HARD_FACTOR × the outermost
    # call's time limit plus the floor has passed on the wall clock; an inner call's own
    # (shorter or longer) limit does not move it, and outside no wall-clock net runs.
    from packing.strategies.base import Budget

    with pytest.MonkeyPatch.context() as mp:
        wall, _cpu = _clocks(mp)
        with Budget.wall_net(2.0):
            with Budget.wall_net(0.1):  # an inner call: the outer net stands
                inner = Budget(0.1)
            with Budget.wall_net(50.0):
                longer = Budget(50.0)
            wall[0] += Budget.HARD_FACTOR * 2.0 + Budget.HARD_FLOOR_S - 0.01
            assert not inner.exhausted() and not longer.exhausted()
            wall[0] += 0.02
            assert inner.exhausted() and inner.cut
            assert longer.exhausted() and longer.cut
        outside = Budget(0.1)
        wall[0] += 1e6
        assert not outside.exhausted() and not outside.cut
        assert Budget.current_wall_deadline() == float("inf")


@pytest.mark.parametrize("name", NAMES)
def test_every_strategy_reports_the_work_it_did(name):
    s = get_strategy(name, **settings_for(name))
    small = s.pack(CARGO[:5], C)
    full = s.pack(CARGO, C)
    assert 0 < small.work_units < full.work_units
    assert not full.wall_cut


def test_recording_counts_every_operation_a_plan_charges():
    from packing import plan_containers, planner
    from packing.generate import heterogeneous_instance
    from packing.strategies.base import Budget

    prices = Budget.prices()
    inst = heterogeneous_instance(10, seed=1)
    with Budget.recording() as ops:
        plan = plan_containers(
            inst.pieces(honour_flags=True),
            [inst.container_type()],
            max_containers=1,
            time_limit=0.2,
        )
    assert set(ops) == set(prices)
    # a plan of one container is the work of its searches, each operation at its price,
    # and the plan's own: whether each item fits the container, the shapes' bound (the
    # cargo needs more than one container), and the end of the plan (the load steps and
    # numbering of the container's pieces)
    pieces = inst.pieces(honour_flags=True)
    items = len({p.item_id for p in pieces})
    (load,) = plan.containers
    own = (
        items * planner.FIT_UNITS
        + len(pieces) * planner.SHAPE_BOUND_PIECE_UNITS
        + items * planner.SHAPE_BOUND_ITEM_UNITS
        + planner.finish_units(len(load.placements))
    )
    assert sum(prices[k] * n for k, n in ops.items()) + own == plan.work_units > 0
    assert Budget(1.0).tally is None  # recording ends with the block


@pytest.mark.parametrize("name", NAMES)
def test_a_boolean_seed_is_refused_by_name(name):
    """True is no seed: it was taken as 1."""
    box = ContainerType("c", "C", (400, 400, 400))
    with pytest.raises(PackingInputError) as info:
        get_strategy(name, seed=True, time_limit=0.1).pack(
            make_pieces("a", (100, 100, 100), 2), box
        )
    assert info.value.field == "seed"


def test_a_boolean_max_width_is_refused_by_name():
    box = ContainerType("c", "C", (400, 400, 400))
    strategy = get_strategy("block-building", max_width=True, time_limit=0.1)
    with pytest.raises(PackingInputError) as info:
        strategy.pack(make_pieces("a", (100, 100, 100), 2), box)
    assert info.value.field == "max_width"
