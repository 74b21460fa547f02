"""The common suite: every registered strategy, the same checks (property tests included)."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import (
    STRATEGIES,
    ContainerType,
    PackingInputError,
    Rules,
    UnknownStrategyError,
    get_strategy,
    make_pieces,
    plan_containers,
    validate_plan,
)
from tests.strategies import cargo, container_st

NAMES = sorted(STRATEGIES)


def settings_for(name):
    return {"time_limit": 0.3} if name != "milp" else {"time_limit": 0.5, "max_columns": 6}


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
            strategy=get_strategy(name, time_limit=5.0, seed=3)
            if name != "milp"
            else get_strategy(name, time_limit=5.0, seed=3, max_columns=4),
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


def test_unknown_strategy_lists_valid_names():
    with pytest.raises(UnknownStrategyError, match="first-fit-decreasing"):
        get_strategy("simulated-annealing")


def test_settings_are_validated_when_solving():
    s = get_strategy("block-building", time_limit=-1)
    assert s.time_limit == -1  # stored as given
    with pytest.raises(PackingInputError, match="time_limit"):
        s.pack(make_pieces("a", (1, 1, 1), 1), ContainerType("c", "C", (5, 5, 5)))
    assert "max_width=64" in repr(get_strategy("block-building"))


def test_milp_node_limit_gives_a_valid_repeatable_plan():
    # 30 distinct boxes and a tiny budget: HiGHS stops at its node limit, not at optimality
    pieces = [
        p
        for i in range(30)
        for p in make_pieces(
            f"b{i}", (60 + 7 * i % 90, 50 + 11 * i % 70, 40 + 13 * i % 80), 1, item_order=i
        )
    ]
    c = ContainerType("c", "C", (500, 300, 300))
    plans = [
        plan_containers(pieces, [c], strategy=get_strategy("milp", time_limit=0.01, max_columns=16))
        for _ in range(2)
    ]
    for plan in plans:
        validate_plan(plan)
    assert plans[0].placements_frame().equals(plans[1].placements_frame())
