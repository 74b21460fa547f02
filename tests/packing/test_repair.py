"""The repair of a block search's best packing (BlockBuilding._repair)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import ContainerType, PackingInputError, Piece, Rules
from packing.generate import heterogeneous_instance
from packing.geometry import rests_on
from packing.instances import load_shipped
from packing.state import PackState, group_pieces
from packing.strategies import blocks
from packing.strategies.base import Budget, materialize
from packing.strategies.blocks import (
    REPAIR_POOL,
    SPACE_RULES,
    BlockBuilding,
    greedy,
    repairs,
    top_blocks,
)
from tests.packing.checks import check_pack, frozen_clock
from tests.strategies import cargo, container_st


@settings(max_examples=40)
@given(pieces=cargo(max_items=8), container=container_st, rule=st.sampled_from(SPACE_RULES))
def test_the_top_blocks_are_those_nothing_rests_on_highest_first(pieces, container, rule):
    state = greedy(PackState(container, group_pieces(pieces), 0.8), rule)
    tops = top_blocks(state.blocks)
    boxes = [b.box for b in state.blocks]
    expected = [i for i, low in enumerate(boxes) if not any(rests_on(up, low) for up in boxes)]
    assert sorted(tops) == expected
    heights = [boxes[i][4] for i in tops]
    assert heights == sorted(heights, reverse=True)


@settings(max_examples=30)
@given(
    pieces=cargo(max_items=8),
    container=container_st,
    rule=st.sampled_from(SPACE_RULES),
    seconds=st.sampled_from([0.0, 1e-4, 1e-3, 0.02]),
)
def test_a_repair_loads_at_least_its_start_and_keeps_every_rule(pieces, container, rule, seconds):
    # whatever its units, the repaired packing keeps every rule validate_plan checks
    # (no overlap, inside, supported at 80 %, nothing on pieces that take nothing on top,
    # payload) and loads at least the packing it started from
    types = group_pieces(pieces)
    initial = PackState(container, types, 0.8)
    start = greedy(initial.copy(), rule)
    with frozen_clock():
        done = BlockBuilding._repair(initial, start, Budget(seconds))
    assert done.placed_volume >= start.placed_volume
    check_pack(materialize(done), pieces, container)


def test_the_repair_fills_the_ragged_top_of_a_load_of_many_types():
    # a greedy packing of a generated load of 100 box types leaves the top of the load
    # ragged; the repair takes groups of the blocks nothing rests on out and fills their
    # room again, loading more (every move it keeps loads more than the last)
    problem = heterogeneous_instance(100, seed=1)
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    initial = PackState(ct, group_pieces(pieces), 0.8)
    start = greedy(initial.copy(), SPACE_RULES[0])
    with frozen_clock(), Budget.recording() as ops:
        done = BlockBuilding._repair(initial, start, Budget(0.3))
    assert done.placed_volume > start.placed_volume
    assert ops["replays"] > 0  # the blocks put back are charged
    check_pack(materialize(done), pieces, ct)


def test_a_single_containers_load_keeps_units_back_for_the_repair(monkeypatch):
    # BR7 problem 1 (one container's load): the repair runs on the best packing with the
    # share kept back (less what the search's last completion spent past its own 85 %)
    problem = load_shipped("BR7")[0]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    seen: list[tuple[int, int]] = []
    repair = BlockBuilding._repair

    def recorded(initial, best, budget):
        seen.append((best.placed_volume, budget.units))
        done = repair(initial, best, budget)
        seen.append((done.placed_volume, budget.units))
        return done

    monkeypatch.setattr(BlockBuilding, "_repair", staticmethod(recorded))
    with frozen_clock():
        pack = BlockBuilding(time_limit=0.5).pack(pieces, ct, support_ratio=0.8)
    check_pack(pack, pieces, ct)
    (before, units), (after, _) = seen
    assert units >= blocks.REPAIR_SHARE * Budget(0.5).allowance / 2
    assert pack.placed_volume == after >= before


def test_a_container_filled_from_a_larger_pool_is_planned_as_without_the_repair():
    # BR1 problem 3 twice over: one container of a plan's many, left as it was
    problem = load_shipped("BR1")[2]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    pieces = pieces + [replace(p, instance=p.instance + len(pieces)) for p in pieces]
    state = PackState(ct, group_pieces(pieces), 0.8)
    assert sum(len(t.pieces) * t.volume for t in state.types) > REPAIR_POOL * ct.inner_volume
    assert not repairs(state)
    with frozen_clock():
        packs = [
            BlockBuilding(time_limit=0.3, repair=flag).pack(pieces, ct, support_ratio=0.8)
            for flag in (True, False)
        ]
    assert packs[0].placed == packs[1].placed
    assert packs[0].work_units == packs[1].work_units


def test_cargo_with_a_loading_order_gets_no_repair():
    # unload priorities: the repair would move blocks placed early to the end of the order
    ct = ContainerType("c", "C", (1000, 1000, 1000))
    pieces = [
        *(Piece("a", i, (300, 300, 300), 1.0, Rules(unload_priority=1)) for i in range(4)),
        *(Piece("b", i, (200, 200, 200), 1.0, Rules(unload_priority=2)) for i in range(4)),
    ]
    state = PackState(ct, group_pieces(pieces), 0.8)
    assert state.check_order
    assert not repairs(state)


def test_the_repair_setting_must_be_a_boolean():
    problem = load_shipped("BR1")[0]
    with pytest.raises(PackingInputError) as err:
        BlockBuilding(repair="yes").pack(  # type: ignore[arg-type]
            problem.pieces(honour_flags=True), problem.container_type()
        )
    assert err.value.field == "repair"


def test_the_repair_ends_once_every_piece_is_in(monkeypatch):
    # a generated load of 8 types in a container of 1.25 × its volume: the greedy packing
    # leaves pieces out, a repair loads them all, and no completion runs after that (its
    # units are left for what comes after it)
    problem = heterogeneous_instance(8, seed=1)
    pieces = problem.pieces(honour_flags=True)
    volume = sum(p.volume for p in pieces)
    length, height, width = problem.container_type().inner
    f = (volume / 0.8 / (length * height * width)) ** (1 / 3)
    ct = ContainerType("c", "C", (int(length * f), int(height * f), int(width * f)))
    initial = PackState(ct, group_pieces(pieces), 0.8)
    start = greedy(initial.copy(), SPACE_RULES[0])
    assert start.placed_volume < volume
    loads: list[int] = []
    complete = blocks.greedy

    def recorded(state, rule, budget=None):
        done = complete(state, rule, budget)
        loads.append(done.placed_volume)
        return done

    monkeypatch.setattr(blocks, "greedy", recorded)
    with frozen_clock():
        budget = Budget(0.2)
        done = BlockBuilding._repair(initial, start, budget)
    assert done.placed_volume == volume
    assert loads[-1] == volume and volume not in loads[:-1]
    assert budget.units > 0
    check_pack(materialize(done), pieces, ct)


def test_a_search_of_cargo_with_a_loading_order_runs_no_repair(monkeypatch):
    # BR7 problem 1 with unload priorities: the search keeps no units back and never
    # calls the repair
    problem = load_shipped("BR7")[0]
    ct = problem.container_type()
    pieces = [
        replace(p, rules=replace(p.rules, unload_priority=int(p.item_id) % 2))
        for p in problem.pieces(honour_flags=True)
    ]
    calls: list[int] = []
    monkeypatch.setattr(
        BlockBuilding, "_repair", staticmethod(lambda i, b, u: calls.append(1) or b)
    )
    with frozen_clock():
        BlockBuilding(time_limit=0.2).pack(pieces, ct, support_ratio=0.8)
    assert calls == []
    plain = problem.pieces(honour_flags=True)
    with frozen_clock():
        BlockBuilding(time_limit=0.2).pack(plain, ct, support_ratio=0.8)
    assert calls == [1]
