"""The searches of the tail of a block search's best packing (BlockBuilding._tails)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import PackingInputError
from packing.generate import heterogeneous_instance
from packing.instances import load_shipped
from packing.state import PackState, group_pieces
from packing.strategies.base import Budget, materialize
from packing.strategies.blocks import (
    SPACE_RULES,
    TAIL_KEEP,
    BlockBuilding,
    greedy,
    tail_widths,
)
from tests.packing.checks import check_pack, frozen_clock
from tests.strategies import cargo, container_st


@settings(max_examples=30)
@given(
    pieces=cargo(max_items=8),
    container=container_st,
    rule=st.sampled_from(SPACE_RULES),
    seconds=st.sampled_from([0.0, 1e-4, 1e-3, 0.02]),
    seeded=st.booleans(),
)
def test_a_search_of_the_tail_keeps_every_rule_and_the_seed(
    pieces, container, rule, seconds, seeded
):
    # whatever its units, the packing keeps every rule validate_plan checks (no overlap,
    # inside, supported at 80 %, nothing on pieces that take nothing on top, payload),
    # loads at least the packing it started from, and keeps the blocks the state came with
    types = group_pieces(pieces)
    initial = PackState(container, types, 0.8)
    start = greedy(initial.copy(), rule)
    if seeded and start.blocks:
        initial.place(start.blocks[0])  # a seed's block
    with frozen_clock():
        done = BlockBuilding._tails(initial, start, Budget(seconds), [2, 4], {}, None)
    assert done.placed_volume >= start.placed_volume
    assert done.blocks[: len(initial.blocks)] == start.blocks[: len(initial.blocks)]
    check_pack(materialize(done), pieces, container)  # (a seed's block put back twice fails)


def test_each_tail_is_searched_from_the_first_blocks_of_the_best_packing(monkeypatch):
    # BR7 problem 1 from a greedy packing, its first block a seed's: every pass starts
    # from the first blocks of the best packing at that moment, the seed's and as many of
    # the rest as its share keeps, and a pass that loads more becomes the best the next
    # one is cut from
    problem = load_shipped("BR7")[0]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    initial = PackState(ct, group_pieces(pieces), 0.8)
    start = greedy(initial.copy(), SPACE_RULES[0])
    initial.place(start.blocks[0])  # a seed's block, which every pass keeps first
    fixed = 1
    best = [start]
    starts: list[tuple[int, int]] = []
    lookahead = BlockBuilding._lookahead

    def recorded(state, width, rule, budget):
        n = len(best[-1].blocks)
        assert state.blocks == best[-1].blocks[: len(state.blocks)]
        starts.append((len(state.blocks), n))
        done = lookahead(state, width, rule, budget)
        if done.placed_volume > best[-1].placed_volume:
            best.append(done)
        return done

    monkeypatch.setattr(BlockBuilding, "_lookahead", staticmethod(recorded))
    with frozen_clock(), Budget.recording() as ops:
        done = BlockBuilding._tails(initial, start, Budget(1.0), [2, 4], {}, None)
    assert len(starts) == 2 * len(TAIL_KEEP) * len(SPACE_RULES)  # every width, share, rule
    shares = [TAIL_KEEP[(i // len(SPACE_RULES)) % len(TAIL_KEEP)] for i in range(len(starts))]
    assert [kept for kept, _ in starts] == [
        fixed + int((n - fixed) * k) for (_, n), k in zip(starts, shares, strict=True)
    ]
    assert len(best) > 1 and done is best[-1]  # a tail searched again loads more
    assert done.placed_volume > start.placed_volume
    assert ops["replays"] > 0  # the blocks put back are charged
    check_pack(materialize(done), pieces, ct)


def test_a_search_gives_the_tails_what_the_repair_leaves(monkeypatch):
    # BR7 problem 1: the tails run after the repair, with the best packing and the units it
    # left, and the search keeps what they return; with tails=False (or on cargo with a
    # loading order) they never run
    problem = load_shipped("BR7")[0]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    calls: list[str] = []
    seen: list[tuple[int, int]] = []
    repair, tails = BlockBuilding._repair, BlockBuilding._tails

    def recorded_repair(initial, best, budget):
        calls.append("repair")
        done = repair(initial, best, budget)
        seen.append((done.placed_volume, budget.units))
        return done

    def recorded_tails(initial, best, budget, widths, loaded, general):
        calls.append("tails")
        assert (best.placed_volume, budget.units) == seen[-1]
        assert widths == tail_widths(64)
        done = tails(initial, best, budget, widths, loaded, general)
        seen.append((done.placed_volume, budget.units))
        return done

    monkeypatch.setattr(BlockBuilding, "_repair", staticmethod(recorded_repair))
    monkeypatch.setattr(BlockBuilding, "_tails", staticmethod(recorded_tails))
    monkeypatch.setattr(BlockBuilding, "_two_steps", staticmethod(lambda s, w, r, b: s))
    with frozen_clock():
        pack = BlockBuilding(time_limit=0.5).pack(pieces, ct, support_ratio=0.8)
    check_pack(pack, pieces, ct)
    assert calls == ["repair", "tails"]
    assert seen[0][1] > 0  # the repair left units
    assert pack.placed_volume == seen[-1][0]  # (no pass two steps ahead here)
    calls.clear()
    with frozen_clock():
        BlockBuilding(time_limit=0.5, tails=False).pack(pieces, ct, support_ratio=0.8)
    assert calls == ["repair"]
    calls.clear()
    ordered = [
        replace(p, rules=replace(p.rules, unload_priority=int(p.item_id) % 2)) for p in pieces
    ]
    with frozen_clock():
        BlockBuilding(time_limit=0.2).pack(ordered, ct, support_ratio=0.8)
    assert calls == []


def test_the_tails_offer_the_general_blocks_the_search_offers(monkeypatch):
    # a generated load of 40 types, whose search offers general blocks: every pass of the
    # tails is offered the same ones
    problem = heterogeneous_instance(40, seed=2)
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    offered: list[object] = []
    tails, lookahead = BlockBuilding._tails, BlockBuilding._lookahead
    inside = [False]

    def recorded_tails(initial, best, budget, widths, loaded, general):
        assert general is not None
        offered.append(general)
        inside[0] = True
        try:
            return tails(initial, best, budget, widths, loaded, general)
        finally:
            inside[0] = False

    def recorded_lookahead(state, width, rule, budget):
        if inside[0]:
            offered.append(state.general)
        return lookahead(state, width, rule, budget)

    monkeypatch.setattr(BlockBuilding, "_tails", staticmethod(recorded_tails))
    monkeypatch.setattr(BlockBuilding, "_lookahead", staticmethod(recorded_lookahead))
    with frozen_clock():
        pack = BlockBuilding(time_limit=1.0, max_width=2, repair=False).pack(
            pieces, ct, support_ratio=0.8
        )
    check_pack(pack, pieces, ct)
    assert len(offered) > 1
    assert all(g is offered[0] for g in offered)


def test_the_tails_run_without_the_repair(monkeypatch):
    # repair=False: no repair runs; the tails still search the best packing with the
    # units the widening left (it stops at width 4 here)
    problem = load_shipped("BR7")[0]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    calls: list[str] = []
    tails = BlockBuilding._tails

    def recorded(initial, best, budget, widths, loaded, general):
        calls.append("tails")
        return tails(initial, best, budget, widths, loaded, general)

    monkeypatch.setattr(BlockBuilding, "_tails", staticmethod(recorded))
    monkeypatch.setattr(
        BlockBuilding, "_repair", staticmethod(lambda i, b, u: calls.append("repair") or b)
    )
    with frozen_clock():
        pack = BlockBuilding(time_limit=0.3, max_width=4, repair=False).pack(
            pieces, ct, support_ratio=0.8
        )
    check_pack(pack, pieces, ct)
    assert calls == ["tails"]


@pytest.mark.parametrize(
    ("max_width", "widths"), [(64, [8, 16, 32, 64]), (20, [8, 16]), (8, [8]), (4, [4]), (1, [1])]
)
def test_the_tails_keep_within_the_widest_look_ahead(max_width, widths):
    assert tail_widths(max_width) == widths


def test_the_tails_setting_must_be_a_boolean():
    problem = load_shipped("BR1")[0]
    with pytest.raises(PackingInputError) as err:
        BlockBuilding(tails=1).pack(  # type: ignore[arg-type]
            problem.pieces(honour_flags=True), problem.container_type()
        )
    assert err.value.field == "tails"
