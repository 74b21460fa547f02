"""Block building specifics (packing/strategies/blocks.py): raised spaces, block ranking."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import packing.strategies.blocks as blocks_module
import packing.strategies.steps as steps_module
from packing import ContainerType, Piece, Rules, make_pieces
from packing.bench import distinct_pieces
from packing.generate import heterogeneous_instance
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.instances import load_shipped
from packing.state import Block, PackState, Space, group_pieces
from packing.strategies import general
from packing.strategies.base import Budget
from packing.strategies.blocks import (
    FOOTPRINT_SPENT_LEFT,
    SPACE_RULES,
    BlockBuilding,
    Ranked,
    block_at,
    candidates,
    greedy,
    next_blocks,
    offers_general,
    space_key_floor,
    space_key_floor_across,
    supported_part,
)
from packing.strategies.steps import _first_space
from tests.packing.checks import MIXED_SINGLES, check_pack, frozen_clock
from tests.strategies import cargo, container_st, plain_rules_st

CUBE = ContainerType("c", "C", (1000, 1000, 1000))


def test_the_floor_rules_fill_along_and_across_the_container():
    # a container 3 m long (X) and 1 m wide (Z): spaces on the floor by a side wall (far
    # from both ends) and by an end wall (away from the side walls), and one raised
    state = PackState(
        ContainerType("l", "L", (3000, 1000, 1000)),
        group_pieces(make_pieces("a", (10,) * 3, 1)),
        0.8,
    )
    by_side = (1000, 0, 0, 2000, 1000, 300)
    by_end = (0, 0, 300, 500, 1000, 700)
    raised = (0, 100, 0, 500, 1000, 300)
    spaces = [raised, by_end, by_side]
    assert min(spaces, key=lambda s: space_key_floor(state, s)) == by_end
    assert min(spaces, key=lambda s: space_key_floor_across(state, s)) == by_side
    assert sorted(spaces, key=lambda s: space_key_floor_across(state, s))[-1] == raised
    assert space_key_floor_across in SPACE_RULES and len(set(SPACE_RULES)) == len(SPACE_RULES)


@pytest.mark.parametrize(("door", "axis"), [("FRONT", 0), ("SIDE", 2)])
def test_with_unload_priorities_every_rule_fills_from_the_wall_opposite_the_door(door, axis):
    box = ContainerType("b", "B", (3000, 1000, 3000), loading_side=door)
    pieces = make_pieces("deep", (100,) * 3, 2) + make_pieces(
        "first-off", (100,) * 3, 1, rules=Rules(unload_priority=1)
    )
    state = PackState(box, group_pieces(pieces), 0.8)
    # two floor spaces as near to the walls across the door's axis: one by the wall
    # opposite the door, one nearer the door's end (but nearer to its wall)
    lo, hi = [0, 0, 0, 1000, 1000, 1000], [0, 0, 0, 1000, 1000, 1000]
    lo[axis], lo[axis + 3] = 200, 1200
    hi[axis], hi[axis + 3] = 1900, 2900
    near_back, near_door = tuple(lo), tuple(hi)
    for rule in SPACE_RULES:
        assert min([near_door, near_back], key=lambda s: rule(state, s)) == near_back
    # a block goes to the back of its space, never to the door's end of it
    assert state.anchor(near_door, 100, 100)[axis] == 1900
    # without priorities the nearer end wins, and the block goes to that end
    plain = PackState(box, group_pieces(make_pieces("a", (100,) * 3, 3)), 0.8)
    assert min([near_door, near_back], key=lambda s: space_key_floor(plain, s)) == near_door
    assert plain.anchor(near_door, 100, 100)[axis] == 2800


def test_a_raised_space_offers_its_part_over_the_surfaces():
    state = PackState(CUBE, group_pieces(make_pieces("a", (500, 200, 1000), 2)), 0.8)
    state.place(Block(0, 0, (0, 0, 0), (500, 200, 1000), (1, 1, 1)))
    [space] = [s for s in state.free_spaces() if s.y0 == 200]
    part = supported_part(state, space)
    assert part is not None and (part.x0, part.x1, part.z0, part.z1) == (0, 500, 0, 1000)
    assert (part.y0, part.y1) == (space.y0, space.y1)
    floor = next(s for s in state.free_spaces() if s.y0 == 0)
    assert supported_part(state, floor) is None


def test_a_block_that_takes_nothing_on_top_ranks_after_one_that_does():
    pieces = make_pieces(
        "glass", (500, 500, 500), 2, rules=Rules(stack_on_top=False)
    ) + make_pieces("carton", (500, 500, 500), 2, item_order=1)
    state = PackState(CUBE, group_pieces(pieces), 0.8)
    ranked = candidates(state, Space(0, 0, 0, 1000, 1000, 1000))
    assert state.types[ranked[0].type_index].pieces[0].item_id == "carton"
    glass = [c for c in ranked if state.types[c.type_index].pieces[0].item_id == "glass"]
    assert glass  # still offered, after the cartons


def test_taking_the_last_pieces_of_a_type_counts_the_room_only_they_could_fill():
    # 20 cartons 20 cm high stand 5 high in 1000 of the 1256 mm; the 256 mm left above
    # would take another carton, but these are the last cartons and glass is 300 mm high:
    # a block of fewer cartons that leaves room for the glass on top ranks first
    ct = ContainerType("c", "C", (1000, 1256, 800))
    pieces = make_pieces("carton", (400, 200, 300), 20) + make_pieces(
        "glass", (400, 300, 300), 6, rules=Rules(stack_on_top=False), item_order=1
    )
    state = PackState(ct, group_pieces(pieces), 0.8)
    first = candidates(state, Space(0, 0, 0, 1000, 1256, 800))[0]
    assert state.types[first.type_index].pieces[0].item_id == "carton"
    assert first.nx * first.ny * first.nz < 20
    assert 1256 - first.ny * first.ey >= 300


PALLET_1000L = ContainerType("p", "P", (1180, 1150, 760))


def _singles() -> list[Piece]:
    return [p for i, d in enumerate(MIXED_SINGLES) for p in make_pieces(f"s{i}", d, 1)]


def test_footprint_first_ranks_the_widest_block_first():
    pieces = make_pieces("cube", (400, 400, 400), 1) + make_pieces("board", (600, 50, 500), 1)
    state = PackState(CUBE, group_pieces(pieces), 0.8)
    space = Space(0, 0, 0, 1000, 1000, 1000)
    assert state.types[candidates(state, space)[0].type_index].pieces[0].item_id == "cube"
    state.rank_by_footprint = True
    first = candidates(state, space)[0]
    assert state.types[first.type_index].pieces[0].item_id == "board"
    assert first.ey == 50  # lying flat: the widest footprint of the board


def test_single_pieces_of_many_sizes_all_go_in_when_the_volume_ranking_leaves_some_out():
    # 35 % of the container by volume; ranked by volume alone, the greedy pass builds
    # towers of uneven height and the flat boards find no level surface
    pieces = _singles()
    by_volume = greedy(PackState(PALLET_1000L, group_pieces(pieces), 0.8), SPACE_RULES[0])
    assert sum(b.count for b in by_volume.blocks) < len(pieces)
    # a probe (a budget that buys no search) still runs the footprint-first pass
    pack = BlockBuilding(time_limit=1e-6).pack(pieces, PALLET_1000L, support_ratio=0.8)
    assert len(pack.placed) == len(pieces) and not pack.leftover
    check_pack(pack, pieces, PALLET_1000L)


def test_cargo_of_many_pieces_per_type_keeps_the_volume_ranking():
    # ten pieces of each size: the footprint-first pass is not tried
    pieces = [p for i, d in enumerate(MIXED_SINGLES[:4]) for p in make_pieces(f"s{i}", d, 10)]
    pack = BlockBuilding(time_limit=1e-6).pack(pieces, PALLET_1000L, support_ratio=0.8)
    state = PackState(PALLET_1000L, group_pieces(pieces), 0.8)
    alone = greedy(state, SPACE_RULES[0])
    assert sum(b.count for b in alone.blocks) == len(pack.placed)
    assert alone.placed_volume == pack.placed_volume


def test_single_pieces_beyond_the_container_volume_keep_the_volume_ranking():
    # more volume than the container holds: the pass that might place everything is moot
    small = ContainerType("s", "S", (800, 600, 600))
    pieces = _singles()
    pack = BlockBuilding(time_limit=1e-6).pack(pieces, small, support_ratio=0.8)
    alone = greedy(PackState(small, group_pieces(pieces), 0.8), SPACE_RULES[0])
    assert pack.placed_volume == alone.placed_volume
    assert sorted(q.position for q in pack.placed) == sorted(b.pos for b in alone.blocks)


def test_a_probe_skips_the_footprint_pass_when_the_first_left_out_too_much_of_its_room():
    # 100 pieces each of a size of their own, 0.81 of the pallet: the first pass leaves out
    # 18 % of them, 0.44 of the room it leaves, where a second pass past the spent budget
    # would not place them all either (it places 92.5 %, not everything)
    pieces = distinct_pieces(100)
    total = sum(p.volume for p in pieces)
    assert total <= PALLET_1000L.inner_volume
    alone = greedy(PackState(PALLET_1000L, group_pieces(pieces), 0.8), SPACE_RULES[0])
    room = PALLET_1000L.inner_volume - alone.placed_volume
    assert total - alone.placed_volume > FOOTPRINT_SPENT_LEFT * room
    state = PackState(PALLET_1000L, group_pieces(pieces), 0.8)
    state.rank_by_footprint = True
    wide = greedy(state, SPACE_RULES[0])
    assert alone.placed_volume < wide.placed_volume < total  # the pass it skips loads more
    pack = BlockBuilding(time_limit=1e-6).pack(pieces, PALLET_1000L, support_ratio=0.8)
    assert pack.placed_volume == alone.placed_volume
    assert sorted(q.position for q in pack.placed) == sorted(b.pos for b in alone.blocks)
    check_pack(pack, pieces, PALLET_1000L)
    # with units for it, the search runs that pass and keeps what it loaded or better
    searched = BlockBuilding(time_limit=0.5).pack(pieces, PALLET_1000L, support_ratio=0.8)
    assert searched.placed_volume >= wide.placed_volume


def _recomputing(state: PackState, width: int, rule, complete) -> PackState:
    """A look-ahead pass written plainly (the reference): every candidate block of a step is
    placed on a copy and rated by the packing ``complete`` makes of it, the best (the first
    of equals) is kept, and the best packing seen is returned."""
    best_seen = None
    while True:
        blocks = next_blocks(state, width, rule)
        if not blocks:
            break
        scores = []
        for b in blocks if len(blocks) > 1 else ():
            trial = state.copy()
            trial.place(b)
            done = complete(trial)
            scores.append(done.placed_volume)
            if best_seen is None or done.placed_volume > best_seen.placed_volume:
                best_seen = done
        pick = max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else 0
        state.place(blocks[pick])
    if best_seen is not None and best_seen.placed_volume > state.placed_volume:
        return best_seen
    return state


def _lookahead_recomputing(state: PackState, width: int, rule) -> PackState:
    """The look-ahead pass computing every candidate's completion (the reference)."""
    return _recomputing(state, width, rule, lambda trial: greedy(trial, rule))


def _two_steps_recomputing(state: PackState, width: int, rule) -> PackState:
    """A pass looking two steps ahead (the reference): each block is rated by the best
    greedy completion after each of the next step's blocks (after none: the state it
    leaves)."""

    def after_the_next(trial: PackState) -> PackState:
        done = []
        for b in next_blocks(trial, width, rule):
            t = trial.copy()
            t.place(b)
            done.append(greedy(t, rule))
        return max(done, key=lambda d: d.placed_volume) if done else trial  # first of best

    return _recomputing(state, width, rule, after_the_next)


@pytest.mark.parametrize(
    ("fast", "reference"),
    [
        (BlockBuilding._lookahead, _lookahead_recomputing),
        (BlockBuilding._two_steps, _two_steps_recomputing),
    ],
    ids=["depth 1", "depth 2"],
)
@settings(max_examples=25)
@given(
    pieces=cargo(max_items=8),
    container=container_st,
    width=st.sampled_from([2, 3, 4]),
    rule=st.sampled_from(SPACE_RULES),
)
def test_a_pass_chooses_exactly_what_recomputing_every_rating_chooses(
    fast, reference, pieces, container, width, rule
):
    # depth 1: the completion of the block picked last is the first candidate's completion
    # of the next step, and the pass reuses it; depth 2: each block is rated by the best
    # greedy completion after each of the next step's blocks. Either must choose exactly
    # what recomputing every rating chooses.
    types = group_pieces(pieces)
    budget = Budget(1e6)  # never spent: only the choices are compared
    quick = fast(PackState(container, types, 0.8), width, rule, budget)
    slow = reference(PackState(container, types, 0.8), width, rule)
    assert [(b.type_index, b.orientation, b.pos, b.n) for b in quick.blocks] == [
        (b.type_index, b.orientation, b.pos, b.n) for b in slow.blocks
    ]


@pytest.mark.parametrize(("types", "seed"), [(6, 0), (30, 1)])
def test_a_width_runs_under_the_rules_that_loaded_most_as_many_as_the_units_left_pay_for(
    monkeypatch, types, seed
):
    # each width's passes run under the rules whose packings loaded most so far (their
    # greedy passes, then their passes), as many as the units left could pay for at twice
    # the last width's cost per pass (at least one); the first width under as many as could
    # go on to the second, a pass of width 2 priced from the greedy pass. A short budget
    # takes the best rules wider rather than every rule stopping early (6 types: a later
    # width runs under fewer rules; 30 types: the first one does).
    inst = heterogeneous_instance(types, seed=seed)
    pieces, ct = inst.pieces(), inst.container_type()
    runs: list[tuple[int, object, int, int, int]] = []
    look = BlockBuilding._lookahead

    def recorded(state, width, rule, budget):
        before = budget.units
        done = look(state, width, rule, budget)
        runs.append((width, rule, before, budget.units, done.placed_volume))
        return done

    # the greedy passes before the first look-ahead: (rule, with general blocks, footprint
    # first, volume loaded)
    passes: list[tuple[object, bool, bool, int]] = []
    plain_greedy = blocks_module.greedy

    def recorded_greedy(state, rule, budget=None):
        done = plain_greedy(state, rule, budget)
        if not runs:
            passes.append(
                (rule, state.general is not None, state.rank_by_footprint, done.placed_volume)
            )
        return done

    monkeypatch.setattr(BlockBuilding, "_lookahead", staticmethod(recorded))
    monkeypatch.setattr(blocks_module, "greedy", recorded_greedy)
    # (tails=False: the searches of the tail run look-ahead passes of their own after the
    # widening; on a busy machine the wall-clock net would cut the passes)
    with frozen_clock():
        BlockBuilding(time_limit=0.2, tails=False).pack(pieces, ct, support_ratio=0.8)
    monkeypatch.undo()
    # what each rule's greedy passes loaded: without general blocks, and with them when
    # the search offers them (each rule's pass with them then counts as its own), the
    # footprint-first pass as the first rule's
    plain = {rule: v for rule, g, f, v in passes if not g and not f}
    mixed = {rule: v for rule, g, f, v in passes if g and not f}
    assert set(plain) == set(SPACE_RULES)
    offered = offers_general(plain, mixed)
    loaded = {rule: max(v, mixed.get(rule, 0) if offered else 0) for rule, v in plain.items()}
    loaded[SPACE_RULES[0]] = max([loaded[SPACE_RULES[0]]] + [v for _, _, f, v in passes if f])
    probe = Budget(1e6)
    first = greedy(PackState(ct, group_pieces(pieces), 0.8), SPACE_RULES[0], probe)
    first_pass = probe.spent * len(first.blocks) // 2
    widths = sorted({w for w, *_ in runs})
    assert widths[:2] == [2, 4]
    per_pass = None
    restricted = False
    for w in widths:
        rows = [row for row in runs if row[0] == w]
        ran = [r for _, r, *_ in rows]
        ranked = sorted(SPACE_RULES, key=lambda r: -loaded[r])
        assert ran == ranked[: len(ran)]  # the best so far first, no rule twice
        left = rows[0][2]
        if per_pass is not None:
            paid = max(1, left // (2 * per_pass))
        elif left < 3 * len(SPACE_RULES) * first_pass:
            paid = max(1, left // (3 * first_pass))
        else:
            paid = len(SPACE_RULES)
        if rows[-1][3] > 0:  # not cut by the budget: the policy decided how many ran
            assert len(ran) == min(paid, len(SPACE_RULES))
        else:
            assert len(ran) <= min(paid, len(SPACE_RULES))
        restricted |= len(ran) < len(SPACE_RULES) and paid < len(SPACE_RULES)
        per_pass = (left - rows[-1][3]) // len(ran)
        for _, r, *_, volume in rows:
            loaded[r] = max(loaded[r], volume)
    assert restricted  # this budget falls short of some width under every rule
    widest_first = len({r for w, r, *_ in runs if w == 2}) == len(SPACE_RULES)
    assert widest_first == (types == 6)


def test_a_later_width_runs_no_more_passes_than_the_units_left_pay_for(monkeypatch):
    # passes of a known price (width × 1/170 of the budget, each finished whatever it
    # costs): every width after the first runs exactly as many rules as the units left pay
    # for at twice the last width's price (at least one), and one of them stops there
    # with units left that a pass more would have spent (the test of the policy above sees
    # only budgets cut inside a pass, where a width without this cap runs as many). The
    # price: widths 2-16 under three rules cost 90 of the 170 parts, the greedy passes
    # about 2, so width 32 finds about 78 left, pays for two passes and stops with 14.
    inst = heterogeneous_instance(6, seed=0)
    pieces, ct = inst.pieces(), inst.container_type()
    limit = 0.2
    price = int(limit * Budget.RATE) // 170
    runs: list[tuple[int, int, int]] = []

    def priced(state, width, rule, budget):
        before = budget.units
        budget.spend(width * price)
        runs.append((width, before, budget.units))
        return greedy(state, rule)

    monkeypatch.setattr(BlockBuilding, "_lookahead", staticmethod(priced))
    BlockBuilding(time_limit=limit).pack(pieces, ct, support_ratio=0.8)
    widths = sorted({w for w, *_ in runs})
    assert len(widths) >= 4
    capped = False
    for last, w in pairwise(widths):
        rows = [row for row in runs if row[0] == w]
        left = rows[0][1]
        paid = max(1, left // (2 * last * price))
        assert len(rows) == min(paid, len(SPACE_RULES))
        capped |= len(rows) < len(SPACE_RULES) and rows[-1][2] > 0
    assert capped


def _first_block_by_repeated_min(state: PackState, rule):
    """The first feasible block of the space the rule picks, picking the rule's first space
    again after each space that holds none is dropped (the reference for the ranking)."""
    while state.spaces:
        s = Space._make(min(state.spaces, key=lambda sp: rule(state, sp)))
        for part in (s, supported_part(state, s)):
            if part is None:
                break
            for c in candidates(state, part):
                b = block_at(state, part, c)
                if b is not None:
                    return b
        state.drop_space(s)
    return None


@settings(max_examples=40)
@given(pieces=cargo(max_items=8), container=container_st, rule=st.sampled_from(SPACE_RULES))
def test_spaces_ranked_once_give_the_blocks_repeated_picks_give(pieces, container, rule):
    types = group_pieces(pieces)
    fast = greedy(PackState(container, types, 0.8), rule)
    slow = PackState(container, types, 0.8)
    while (b := _first_block_by_repeated_min(slow, rule)) is not None:
        slow.place(b)
    assert [(b.type_index, b.orientation, b.pos, b.n) for b in fast.blocks] == [
        (b.type_index, b.orientation, b.pos, b.n) for b in slow.blocks
    ]


@st.composite
def _container_and_spaces(draw):
    sides = [draw(st.integers(1, 1_000_000)) for _ in range(3)]
    spaces = []
    for _ in range(draw(st.integers(0, 40))):
        lo_hi = []
        for side in sides:
            a = draw(st.integers(0, side - 1))
            lo_hi.append((a, draw(st.integers(a + 1, side))))
        (x0, x1), (y0, y1), (z0, z1) = lo_hi
        spaces.append((x0, y0, z0, x1, y1, z1))
    # repeated spaces and spaces of equal keys too: the order among equals must hold
    spaces += draw(st.lists(st.sampled_from(spaces), max_size=5)) if spaces else []
    door = draw(st.sampled_from(["FRONT", "SIDE", "TOP"]))
    return ContainerType("k", "K", tuple(sides), None, None, door), spaces


@settings(max_examples=200)
@given(made=_container_and_spaces(), rule=st.sampled_from(SPACE_RULES))
def test_a_rules_cached_keys_order_the_spaces_as_its_key_tuples(made, rule):
    # the search's rules keep their keys packed into integers: the same order, ties too
    container, spaces = made
    state = PackState(container, [], 0.8)
    keys = steps_module._RuleKeys(state, rule)
    packed = sorted(range(len(spaces)), key=lambda i: keys[spaces[i]])
    assert packed == sorted(range(len(spaces)), key=lambda i: rule(state, spaces[i]))
    if spaces:
        assert isinstance(keys[spaces[0]], int)


def _steps_drop_what_repeated_picks_drop(pieces, container, rule) -> int:
    """Step by step, the block and the free spaces left (their order too) of
    ``next_blocks`` and of repeated picks that drop each space in turn; the most spaces
    one step dropped."""
    types = group_pieces(pieces)
    fast = PackState(container, types, 0.8)
    slow = PackState(container, types, 0.8)
    most = 0
    while True:
        before = len(fast.spaces)
        moves = next_blocks(fast, 1, rule)
        block = _first_block_by_repeated_min(slow, rule)
        assert fast.spaces == slow.spaces
        most = max(most, before - len(fast.spaces))
        if block is None:
            assert moves == []
            return most
        assert moves == [block]
        fast.place(moves[0])
        slow.place(block)


@settings(max_examples=40)
@given(pieces=cargo(max_items=8), container=container_st, rule=st.sampled_from(SPACE_RULES))
def test_a_step_drops_the_spaces_that_hold_no_block_as_picks_one_by_one_would(
    pieces, container, rule
):
    # the spaces past the rescans are dropped together when the step ends
    _steps_drop_what_repeated_picks_drop(pieces, container, rule)


def test_steps_that_drop_many_spaces_at_once_leave_what_picks_one_by_one_leave():
    # pieces each of a size of its own, a third of them bearing nothing: many free spaces
    # hold no block, and a step drops more of them than the first three and the few it
    # deletes one by one (_DROPS_ONE_BY_ONE) in one pass
    box = ContainerType("box", "Box", (1200, 1000, 800))
    rnd = random.Random(5)
    pieces = [
        Piece(
            f"p{i}",
            0,
            (rnd.randint(50, 400), rnd.randint(50, 300), rnd.randint(50, 400)),
            rules=Rules(stack_under=i % 3 != 0),
        )
        for i in range(120)
    ]
    for rule in SPACE_RULES:
        assert _steps_drop_what_repeated_picks_drop(pieces, box, rule) > 3 + 8


@settings(max_examples=40)
@given(
    pieces=cargo(max_items=8),
    container=container_st,
    rule=st.sampled_from(SPACE_RULES),
    general_blocks=st.booleans(),
)
def test_a_completion_charges_once_what_its_steps_charge_one_by_one(
    pieces, container, rule, general_blocks
):
    # greedy counts its work in a ledger and charges it when it ends: the same units and
    # the same counts by kind as a charge for each step's blocks and each placement
    types = group_pieces(pieces)
    whole, stepped = PackState(container, types, 0.8), PackState(container, types, 0.8)
    if general_blocks:
        whole.general = stepped.general = general.general_blocks_for(whole, 10**9)[0]
    with Budget.recording() as at_once:
        once = Budget(1.0)
        greedy(whole, rule, once)
    with Budget.recording() as by_step:
        steps = Budget(1.0)
        while nb := next_blocks(stepped, 1, rule, steps):
            steps.charge(splits=stepped.place(nb[0]))
    assert [b.pos for b in whole.blocks] == [b.pos for b in stepped.blocks]
    assert once.spent == steps.spent > 0
    assert at_once == by_step


def test_spaces_of_equal_rank_keep_the_order_repeated_picks_give():
    # a block in the middle of the floor leaves mirrored spaces on either side, equal by
    # both rules: which side is filled first must not change with the ranking
    box = ContainerType("b", "B", (1000, 600, 1000))
    pieces = make_pieces("a", (300, 300, 300), 9) + make_pieces(
        "b", (200, 250, 350), 7, item_order=1
    )
    types = group_pieces(pieces)
    for rule in SPACE_RULES:
        fast, slow = PackState(box, types, 0.8), PackState(box, types, 0.8)
        for state in (fast, slow):
            state.place(Block(0, 0, (350, 0, 350), (300, 300, 300), (1, 1, 1)))
        keys = [rule(fast, sp) for sp in fast.spaces]
        assert len(set(keys)) < len(keys)  # ties there are
        greedy(fast, rule)
        while (b := _first_block_by_repeated_min(slow, rule)) is not None:
            slow.place(b)
        assert [(b.type_index, b.orientation, b.pos, b.n) for b in fast.blocks] == [
            (b.type_index, b.orientation, b.pos, b.n) for b in slow.blocks
        ]


@settings(max_examples=60)
@given(
    pieces=cargo(max_items=8, rules=plain_rules_st),
    container=container_st,
    ratio=st.sampled_from([0.5, 0.8, 1.0]),
    steps=st.integers(1, 12),
)
def test_a_raised_space_offers_what_its_surfaces_can_hold(pieces, container, ratio, steps):
    # candidates() cuts the blocks of a raised space to what its surfaces can hold; the
    # same ranking without the support ratio (ratio 0 cuts nothing) is the reference:
    # every block offered is a reference block with as many or fewer pieces along X, and
    # a reference block not offered is one the support check refuses at every corner
    state = PackState(container, group_pieces(pieces), ratio)
    _greedy_steps(state, steps)
    unfiltered = state.copy()
    unfiltered.support_ratio = 0.0
    raised = [Space._make(s) for s in state.spaces if s[1] > 0]
    for s in raised:
        for part in (s, supported_part(state, s)):
            if part is None:
                continue
            offered = list(candidates(state, part))
            every = list(candidates(unfiltered, part))
            rows = {(c.type_index, c.orientation, c.ny, c.nz): c.nx for c in every}
            for c in offered:
                assert c.nx <= rows[(c.type_index, c.orientation, c.ny, c.nz)]
            for c in every:
                if c not in offered:
                    assert block_at(state, part, c) is None


def test_a_raised_space_over_a_small_surface_offers_only_what_it_holds():
    # a 200 × 200 mm top in a 1000 × 1000 mm space: at 0.8 support a 500 × 500 mm base
    # cannot be held (0.16 of it), a 220 × 220 mm base can (0.83), a row of two cannot
    state = PackState(
        CUBE,
        group_pieces(
            make_pieces("post", (200, 300, 200), 1)
            + make_pieces("wide", (500, 100, 500), 2, item_order=1)
            + make_pieces("small", (220, 100, 220), 2, item_order=2)
        ),
        0.8,
    )
    state.place(Block(0, 0, (0, 0, 0), (200, 300, 200), (1, 1, 1)))
    [space] = [Space._make(s) for s in state.spaces if s[1] == 300]
    names = {
        (state.types[c.type_index].pieces[0].item_id, c.nx * c.nz) for c in candidates(state, space)
    }
    assert names == {("small", 1)}
    assert block_at(state, space, candidates(state, space)[0]) is not None


def _over_a_top(base, cube, count, ratio, at=(0, 0, 0)):
    """A state with one ``base`` block placed at ``at`` and ``count`` cubes of ``cube`` to
    pack, and the free space above the base's top (the whole cube above it)."""
    state = PackState(
        CUBE,
        group_pieces(make_pieces("base", base, 1) + make_pieces("cube", cube, count, item_order=1)),
        ratio,
    )
    state.place(Block(0, 0, at, base, (1, 1, 1)))
    return state, Space(0, base[1], 0, 1000, 1000, 1000)


def _rows_along_x(state, space):
    return [c for c in candidates(state, space) if c.ny == 1 and c.nz == 1]


def test_a_block_that_exactly_covers_its_surface_is_offered():
    # full support asked: a row of two 200 × 200 mm bases covers a 400 × 200 mm top exactly
    state, space = _over_a_top((400, 300, 200), (200, 200, 200), 2, 1.0)
    [row] = [c for c in candidates(state, space) if (c.nx, c.nz) == (2, 1)]
    assert block_at(state, space, row) is not None


def test_a_row_too_long_for_the_surfaces_below_is_cut_to_what_they_hold():
    # five cubes would make a row of 1000 mm along X over a 400 × 200 mm top; at full
    # support two of them can stand there, and that block is offered and held
    state, space = _over_a_top((400, 300, 200), (200, 200, 200), 5, 1.0)
    rows = _rows_along_x(state, space)
    assert [c.nx for c in rows] == [2]
    block = block_at(state, space, rows[0])
    assert block is not None and block.box.x1 - block.box.x0 == 400


def test_a_row_is_cut_to_the_reach_of_the_surfaces_along_x():
    # a 200 × 1000 mm top has room for five 200 mm bases by area, but along X it reaches
    # one: at full support the row along X is a single cube
    state, space = _over_a_top((200, 300, 1000), (200, 200, 200), 5, 1.0)
    rows = _rows_along_x(state, space)
    assert [c.nx for c in rows] == [1]
    assert block_at(state, space, rows[0]) is not None


def test_a_row_may_hang_past_the_surfaces_at_both_ends():
    # a top at x 40..440 under a space from x 0: two 240 mm cubes from x 0 rest 200 of
    # their 240 mm (0.83) on it, enough at 0.8 support, though the row hangs past both ends
    state, space = _over_a_top((400, 300, 240), (240, 240, 240), 2, 0.8, at=(40, 0, 0))
    assert state.supported(0, 300, 0, 240, 240, 2, 1)
    rows = _rows_along_x(state, space)
    assert [c.nx for c in rows] == [2]


def _greedy_steps(state: PackState, steps: int) -> None:
    """Place up to ``steps`` blocks, each the greedy step's best (first space rule)."""
    for _ in range(steps):
        nb = next_blocks(state, 1, SPACE_RULES[0])
        if not nb:
            break
        state.place(nb[0])


def _with_general_blocks(state: PackState) -> None:
    """Give ``state`` general blocks, made for any number of types (two and more)."""
    min_types = general.MIN_TYPES
    general.MIN_TYPES = 2
    try:
        state.general, _ = general.general_blocks_for(state, 1e12)
    finally:
        general.MIN_TYPES = min_types


#: Rules without an unload order (which ranks by other terms first).
UNORDERED_RULES = st.builds(
    Rules,
    orientations=st.sampled_from([FLOOR_ORIENTATIONS, ALL_ORIENTATIONS, (0,)]),
    stack_on_top=st.booleans(),
    stack_under=st.booleans(),
)


@settings(max_examples=80)
@given(
    pieces=st.one_of(
        cargo(max_items=20, rules=plain_rules_st),
        cargo(max_items=20, rules=UNORDERED_RULES),
        cargo(max_items=20),
    ),
    container=container_st,
    ratio=st.sampled_from([0.0, 0.8, 1.0]),
    steps=st.integers(0, 10),
    footprint=st.booleans(),
    with_general=st.booleans(),
)
def test_a_ranking_for_the_best_only_gives_the_full_rankings_blocks(
    pieces, container, ratio, steps, footprint, with_general
):
    # a greedy step makes only the rows that can beat the best so far: its first block,
    # and every block read past it, must be the full ranking's
    state = PackState(container, group_pieces(pieces), ratio)
    state.rank_by_footprint = footprint
    if with_general:
        _with_general_blocks(state)
    _greedy_steps(state, steps)
    for s in map(Space._make, state.spaces):
        for part in (s, supported_part(state, s)):
            if part is None:
                continue
            full = candidates(state, part)
            best = candidates(state, part, best_only=True)
            assert best.made <= full.made
            assert bool(best) == bool(full)
            if full:
                assert best.first() == full.first()
                assert list(best) == list(full)


@settings(max_examples=60)
@given(
    sizes=st.lists(
        st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=4
    ),
    counts=st.lists(st.integers(1, 3), min_size=12, max_size=40),
    rules=st.sampled_from([Rules(), Rules(orientations=(0,)), Rules(stack_on_top=False)]),
    steps=st.integers(0, 8),
)
def test_a_ranking_for_the_best_only_breaks_ties_between_types_as_the_full_one(
    sizes, counts, rules, steps
):
    # many items of a few sizes (every size's blocks tie between the items that have it):
    # the scan for the best only goes largest type first and stops early; its first block
    # must still be the full ranking's, the one of the lowest type index
    box = ContainerType("c", "C", (240, 180, 300))
    pieces = [
        p
        for i, k in enumerate(counts)
        for p in make_pieces(
            f"i{i:02d}", tuple(10 * d for d in sizes[i % len(sizes)]), k, rules=rules
        )
    ]
    state = PackState(box, group_pieces(pieces), 0.8)
    _greedy_steps(state, steps)
    for s in map(Space._make, state.spaces):
        full = candidates(state, s)
        best = candidates(state, s, best_only=True)
        assert bool(best) == bool(full)
        if full:
            assert best.first() == full.first()
            assert best.pairs <= full.pairs


def test_a_space_too_thin_for_every_piece_left_along_one_axis_is_ranked_by_one_test():
    # pieces of 100 mm and more (general blocks too): a space 60 mm high holds none; its
    # ranking is empty, scans no type and no general block, and is charged as one type
    box = ContainerType("c", "C", (1000, 1000, 1000))
    pieces = [
        p for i in range(12) for p in make_pieces(f"i{i:02d}", (100 + 10 * i, 100 + 5 * i, 120), 2)
    ]
    state = PackState(box, group_pieces(pieces), 0.8)
    _with_general_blocks(state)
    thin = Space(0, 0, 0, 1000, 60, 1000)
    for best_only in (False, True):
        ranked = candidates(state, thin, best_only=best_only)
        assert not ranked
        assert (ranked.pairs, ranked.made, ranked.general_scans) == (1, 0, 0)
    # one that holds the smallest piece on its side is ranked as before
    assert candidates(state, Space(0, 0, 0, 1000, 100, 1000))


def test_a_tie_between_types_goes_to_the_lower_index_whatever_order_they_are_scanned_in():
    # two cubes of 100 mm (type 0) and two bricks of 200 mm (type 1, scanned first for the
    # best only: it has more volume): in a space of 200 × 100 × 100 mm both make a block
    # of the same volume and no waste, and the full ranking puts type 0's first
    box = ContainerType("c", "C", (200, 100, 100))
    pieces = make_pieces("a", (100, 100, 100), 2) + make_pieces("b", (200, 100, 100), 2)
    state = PackState(box, group_pieces(pieces), 0.8)
    floor = Space._make(state.spaces[0])
    full = candidates(state, floor)
    best = candidates(state, floor, best_only=True)
    assert full.first().type_index == 0 and full[1].type_index == 1
    assert full.first().volume == full[1].volume
    assert best.first() == full.first()


def test_a_ranking_for_the_best_only_stops_at_the_first_type_too_small_to_beat_it():
    # 300 distinct pieces on an empty pallet floor: the best block is found among the
    # largest, and the scan stops before the rest (their volume cannot beat it)
    pallet = ContainerType("p", "P", (1180, 1150, 760))
    state = PackState(pallet, group_pieces(distinct_pieces(300)), 0.8)
    floor = Space._make(state.spaces[0])
    full = candidates(state, floor)
    best = candidates(state, floor, best_only=True)
    assert best.first() == full.first()
    # (pairs: the orientations and types looked at, as charged)
    assert best.pairs * 100 < full.pairs
    with Budget.recording() as ops:
        next_blocks(state, 1, SPACE_RULES[0], Budget(1.0))
    assert ops["types"] == best.pairs


@given(scores=st.lists(st.integers(-5, 5), max_size=40), reads=st.integers(0, 3))
def test_unordered_candidates_read_as_a_stable_sort_by_score_would_give_them(scores, reads):
    # rows are ranked lazily: the best by one scan, the rest sorted only when read
    rows = [(i, 0, 0, 1, 1, 1, 1, 1, 1) for i in range(len(scores))]
    expected = [r for _, r in sorted(zip(scores, rows, strict=True), key=lambda p: -p[0])]
    ranked = Ranked(None, scored=list(zip(scores, rows, strict=True)))
    assert len(ranked) == len(rows)
    if rows:
        for _ in range(reads):  # reading the first any number of times sorts nothing
            assert tuple(ranked.first()) == expected[0] == tuple(ranked[0])
    assert [tuple(c) for c in ranked] == expected
    assert [tuple(c) for c in ranked[1:]] == expected[1:]
    with pytest.raises(ValueError):
        Ranked(None)


def test_block_sizes_examined_without_making_a_row_are_counted_and_charged():
    # thin parcels, 20 of each of 50 lengths, on an empty floor: a greedy step wanting the
    # best block only drops most block sizes unmade (too little volume to beat the best
    # so far); that work is counted as tests and charged as row tests
    box = ContainerType("van", "Van", (3200, 1800, 1700))
    pieces = [p for i in range(50) for p in make_pieces(f"t{i}", (70 + 10 * i, 30, 50), 20)]
    state = PackState(box, group_pieces(pieces), 0.8)
    floor = Space._make(state.spaces[0])
    full = candidates(state, floor)
    best = candidates(state, floor, best_only=True)
    assert full.tests == 0  # every size examined on the floor makes a row
    assert best.tests > best.made
    # and a row's smaller sizes are not examined once they cannot beat the best
    assert best.made + best.tests < full.made
    with Budget.recording() as ops:
        next_blocks(state, 1, SPACE_RULES[0], Budget(1.0))
    assert ops["row_tests"] == best.tests
    assert ops["rows"] == best.made


def _passes(monkeypatch) -> list[tuple[str, int, int]]:
    """Record ``(kind, width, volume loaded)`` of every look-ahead pass of a search."""
    runs: list[tuple[str, int, int]] = []
    for kind in ("_lookahead", "_two_steps"):
        run = getattr(BlockBuilding, kind)

        def recorded(state, width, rule, budget, kind=kind, run=run):
            done = run(state, width, rule, budget)
            runs.append((kind, width, done.placed_volume))
            return done

        monkeypatch.setattr(BlockBuilding, kind, staticmethod(recorded))
    return runs


def test_units_left_after_the_widest_pass_go_to_passes_two_steps_ahead(monkeypatch):
    # BR1 problem 3 (three types, cargo of 99.5 % of the container): the widening reaches
    # its widest pass on a tenth of a second's units; with a second, the passes two steps
    # ahead follow, widths 2, 4, ... again, spend what is left and load more than any
    # pass before them did
    problem = load_shipped("BR1")[2]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    runs = _passes(monkeypatch)
    # (tails=False: the searches of the tail run look-ahead passes of their own, which
    # would be counted with the widening's)
    with frozen_clock():
        pack = BlockBuilding(time_limit=1.0, tails=False).pack(pieces, ct, support_ratio=0.8)
    check_pack(pack, pieces, ct)
    kinds = [k for k, *_ in runs]
    first_deep = kinds.index("_two_steps")
    assert set(kinds[first_deep:]) == {"_two_steps"}  # only after every pass of depth 1
    assert max(w for k, w, _ in runs if k == "_lookahead") == 64  # the widest, max_width
    deep = [w for k, w, _ in runs if k == "_two_steps"]
    assert deep == sorted(deep) and deep[0] == 2 and len(set(deep)) > 1
    before = max(v for k, _, v in runs if k == "_lookahead")
    # (the repair of the widening's best packing runs before them and may load more)
    assert pack.placed_volume >= max(v for *_, v in runs) > before
    assert pack.work_units >= Budget(1.0).allowance  # the units left are spent


def _more_than_it_holds(kind: str) -> tuple[list[Piece], ContainerType]:
    """BR1 problem 3 made more than its container holds: by volume (the cargo twice over),
    by payload (1 kg a piece, a payload of one piece less) or by size (one piece more, a
    millimetre longer than the container)."""
    problem = load_shipped("BR1")[2]
    pieces, ct = problem.pieces(honour_flags=True), problem.container_type()
    if kind == "volume":
        return pieces + [replace(p, instance=p.instance + len(pieces)) for p in pieces], ct
    if kind == "payload":
        heavy = [replace(p, weight_kg=1.0) for p in pieces]
        return heavy, replace(ct, max_payload_kg=len(pieces) - 1.0)
    return [*pieces, Piece("long", 0, (ct.inner[0] + 1, 1, 1))], ct


@pytest.mark.parametrize("kind", ["volume", "payload", "size"])
def test_a_container_that_cannot_hold_all_the_cargo_gets_no_passes_two_steps_ahead(
    monkeypatch, kind
):
    # a container filled from a larger pool (one of a plan's many), or whose payload or
    # inner extents leave some piece out whatever the search does: once the widest pass
    # has run the search ends, its units unspent
    pieces, ct = _more_than_it_holds(kind)
    runs = _passes(monkeypatch)
    with frozen_clock():
        pack = BlockBuilding(time_limit=1.0).pack(pieces, ct, support_ratio=0.8)
    check_pack(pack, pieces, ct)
    assert max(w for _, w, _ in runs) == 64
    assert {k for k, *_ in runs} == {"_lookahead"}
    assert pack.work_units < Budget(1.0).allowance / 2


@settings(max_examples=25)
@given(
    pieces=cargo(max_items=8),
    container=container_st,
    width=st.sampled_from([2, 4, 8]),
    rule=st.sampled_from(SPACE_RULES),
    seconds=st.sampled_from([0.0, 1e-5, 1e-4, 1e-3]),
)
def test_a_pass_two_steps_ahead_on_a_short_budget_ends_complete_and_no_worse_than_greedy(
    pieces, container, width, rule, seconds
):
    # however soon its units run out, the pass returns a complete packing (no block fits
    # any more) that loads at least what the greedy pass loads
    types = group_pieces(pieces)
    done = BlockBuilding._two_steps(PackState(container, types, 0.8), width, rule, Budget(seconds))
    plain = greedy(PackState(container, types, 0.8), rule)
    assert done.placed_volume >= plain.placed_volume
    assert next_blocks(done.copy(), 1, rule) == []


@st.composite
def _spaces(draw):
    # free spaces of a 1,000 × 600 × 800 container, small extents so that keys tie often
    out = []
    for _ in range(draw(st.integers(1, 30))):
        x0, y0, z0 = (draw(st.integers(0, n // 100 - 1)) * 100 for n in (1000, 600, 800))
        x1 = x0 + draw(st.integers(1, (1000 - x0) // 100)) * 100
        y1 = y0 + draw(st.integers(1, (600 - y0) // 100)) * 100
        z1 = z0 + draw(st.integers(1, (800 - z0) // 100)) * 100
        out.append((x0, y0, z0, x1, y1, z1))
    return out


@given(
    spaces=_spaces(),
    corner=st.tuples(*(st.integers(1, 6).map(lambda n: 100 * n) for _ in range(3))),
    where=st.integers(0, 30),
    back_x=st.booleans(),
    back_z=st.booleans(),
    rule=st.sampled_from([*SPACE_RULES, lambda state, s: (s[3], -s[0], 0, s[5])]),
)
def test_a_rules_first_space_is_the_first_of_its_least_keys(
    spaces, corner, where, back_x, back_z, rule
):
    # the search's own rules are compared field by field without making their keys: the
    # same space as min() by the key (the first of equal keys), and any other rule by min()
    state = PackState(ContainerType("c", "C", (1000, 600, 800)), group_pieces([]), 0.0)
    state.back_x, state.back_z = back_x, back_z
    # two spaces in the corner that differ but tie under each of the search's rules (the
    # same corner, volume and footprint: X and Z extents swapped)
    a, b, c = corner
    spaces[where:where] = [(0, 0, 0, a, b, c), (0, 0, 0, c, b, a)]
    assert _first_space(state, spaces, rule) == min(spaces, key=lambda s: rule(state, s))
