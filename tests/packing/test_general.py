"""General blocks (packing/strategies/general.py): what they hold, when they are made, and
that plans with them keep every rule."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import ContainerType, Rules, make_pieces
from packing.generate import heterogeneous_instance
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS, Box, overlaps
from packing.state import PackState, group_pieces
from packing.strategies.base import Budget, materialize
from packing.strategies.blocks import SPACE_RULES, BlockBuilding, greedy
from packing.strategies.general import (
    MAX_PIECES_PER_TYPE,
    MAX_SHARE,
    MIN_FILL,
    MIN_TYPES,
    GeneralBlock,
    best_of,
    general_blocks_for,
    make_general_blocks,
)
from tests.packing.checks import check_pack

HETERO = heterogeneous_instance(40, seed=3)
ROOM = ContainerType("room", "Room", (2000, 1000, 2000))


def _state(pieces, container=None, ratio=0.8):
    return PackState(container or HETERO.container_type(), group_pieces(pieces), ratio)


def _boxes(b: GeneralBlock) -> list[Box]:
    return [p.box for p in b.parts]


def _check_block(state: PackState, b: GeneralBlock) -> None:
    """One general block: its parts inside its cuboid, apart, each upper one wholly on
    parts below; its volume, weight and pieces those of its parts, within what is left;
    at least MIN_FILL of the cuboid filled; inside the container."""
    assert len(b.parts) >= 2
    assert b.bx <= state.L and b.by <= state.H and b.bz <= state.W
    boxes = _boxes(b)
    for box in boxes:
        assert box.x0 >= 0 and box.x1 <= b.bx and box.y0 >= 0 and box.y1 <= b.by
        assert box.z0 >= 0 and box.z1 <= b.bz
    assert not any(overlaps(p, q) for p, q in combinations(boxes, 2))
    for box in boxes:
        if box.y0 > 0:
            below = [q for q in boxes if q.y1 == box.y0]
            held = sum(
                max(0, min(box.x1, q.x1) - max(box.x0, q.x0))
                * max(0, min(box.z1, q.z1) - max(box.z0, q.z0))
                for q in below
            )
            assert held == (box.x1 - box.x0) * (box.z1 - box.z0)
    counts: dict[int, int] = {}
    for p in b.parts:
        counts[p.type_index] = counts.get(p.type_index, 0) + p.count
        t = state.types[p.type_index]
        assert (p.orientation, *p.ext) in t.orients
        assert not t.no_top and not t.floor_only
    assert tuple(sorted(counts.items())) == b.needs
    assert all(n <= state.counts[t] for t, n in b.needs)
    volume = sum(state.types[t].volume * n for t, n in b.needs)
    assert b.volume == volume >= MIN_FILL * b.bx * b.by * b.bz
    weight = sum(state.types[t].weight_kg * n for t, n in b.needs)
    assert abs(b.weight_kg - weight) < 1e-9


def test_general_blocks_fill_their_cuboid_with_pieces_that_are_left():
    state = _state(HETERO.pieces(honour_flags=True))
    blocks, work = make_general_blocks(state)
    assert len(blocks) > 100 and work > len(blocks)
    assert any(len(b.parts) > 2 for b in blocks)  # the second round combines the first's
    assert any(b.parts[-1].pos[1] > 0 for b in blocks)  # one on another, too
    # lower parts first
    assert all([p.pos[1] for p in b.parts] == sorted(p.pos[1] for p in b.parts) for b in blocks)
    for b in blocks:
        _check_block(state, b)


def test_pieces_that_take_nothing_on_top_or_must_stand_on_the_floor_take_no_part():
    pieces = (
        make_pieces("a", (400, 300, 200), 4)
        + make_pieces("b", (400, 300, 150), 4, item_order=1)
        + make_pieces("glass", (400, 300, 200), 4, rules=Rules(stack_on_top=False), item_order=2)
        + make_pieces("engine", (400, 300, 150), 4, rules=Rules(stack_under=False), item_order=3)
    )
    state = _state(pieces, ROOM)
    blocks, _ = make_general_blocks(state)
    assert blocks and {t for b in blocks for t, _ in b.needs} == {0, 1}


def _kinds(types: int, each: int, **kw) -> list:
    """``each`` pieces of each of ``types`` sizes that combine (equal heights)."""
    return [
        p
        for i in range(types)
        for p in make_pieces(f"k{i}", (200 + 10 * i, 300, 150 + 10 * (i % 4)), each, **kw)
    ]


def test_none_are_made_for_few_types_many_pieces_per_type_or_unload_priorities():
    made = general_blocks_for(_state(_kinds(MIN_TYPES, 4), ROOM), 1e12)
    assert made[0] is not None and made[1] > 0
    assert general_blocks_for(_state(_kinds(MIN_TYPES - 1, 4), ROOM), 1e12) == (None, 0)
    many = int(MAX_PIECES_PER_TYPE) + 1
    assert general_blocks_for(_state(_kinds(MIN_TYPES, many), ROOM), 1e12) == (None, 0)
    ordered = _kinds(MIN_TYPES, 4) + make_pieces(
        "b", (400, 300, 250), 4, rules=Rules(unload_priority=1), item_order=1
    )
    assert general_blocks_for(_state(ordered, ROOM), 1e12) == (None, 0)


def test_a_search_with_few_units_makes_fewer_rounds_or_none():
    state = _state(HETERO.pieces(honour_flags=True))
    full, full_work = general_blocks_for(state, 1e12)
    assert full is not None and any(len(b.parts) > 2 for b in full.blocks)
    # made once; reused, they are charged the same work
    assert general_blocks_for(state.copy(), 1e12) == (full, full_work)
    assert general_blocks_for(state, 1000) == (None, 0)  # a probe's units: none, no work
    # the fewest units (in steps of 2) that make any: the first round only, within the share
    units = 1000
    made, work = general_blocks_for(state, units)
    while made is None:
        units *= 2
        made, work = general_blocks_for(state, units)
    assert all(len(b.parts) == 2 for b in made.blocks)
    assert work <= MAX_SHARE * units / Budget.GENERAL_PAIR < full_work
    assert {id(b) for b in made.blocks} <= {id(b) for b in full.blocks}


def test_the_search_keeps_them_where_they_load_more():
    inst = heterogeneous_instance(80, seed=0)
    pieces = inst.pieces(honour_flags=True)
    state = _state(pieces, inst.container_type())
    BlockBuilding(time_limit=0.5)._solve(state, Budget(0.5))
    assert state.general is not None  # kept for the search
    loaded = {}
    for general in (True, False):
        pack = BlockBuilding(time_limit=0.5, general_blocks=general).pack(
            pieces, inst.container_type(), support_ratio=0.8
        )
        check_pack(pack, pieces, inst.container_type())
        loaded[general] = sum(q.extents[0] * q.extents[1] * q.extents[2] for q in pack.placed)
    assert loaded[True] > loaded[False]


def test_general_blocks_must_be_switched_on_or_off():
    from packing.errors import PackingInputError

    pieces = make_pieces("a", (400, 300, 200), 2)
    try:
        BlockBuilding(general_blocks="yes").pack(pieces, ROOM)  # type: ignore[arg-type]
    except PackingInputError as e:
        assert e.field == "general_blocks"
    else:
        raise AssertionError("a setting that is not a bool was taken")


#: Sides of a few sizes, so that pieces of different items match and combine.
_side = st.sampled_from([100, 150, 200, 300, 400])
#: The rules that leave general blocks possible (unload priorities and MANUAL order
#: switch them off for the whole cargo).
_stacking_rules = st.builds(
    Rules,
    orientations=st.sampled_from([FLOOR_ORIENTATIONS, ALL_ORIENTATIONS, (0,)]),
    stack_on_top=st.sampled_from([True, True, True, False]),
    stack_under=st.sampled_from([True, True, True, False]),
    fragile=st.booleans(),
)


@st.composite
def _matching_cargo(draw):
    pieces = []
    for i in range(draw(st.integers(MIN_TYPES - 2, MIN_TYPES + 6))):
        pieces += make_pieces(
            f"item{i}",
            (draw(_side), draw(_side), draw(_side)),
            draw(st.integers(1, 2)),
            weight_kg=draw(st.sampled_from([0.0, 2.0, 7.5])),
            rules=draw(_stacking_rules),
            item_order=i,
        )
    return pieces


@settings(max_examples=40)
@given(
    pieces=_matching_cargo(),
    size=st.tuples(st.integers(400, 1200), st.integers(300, 900), st.integers(400, 1200)),
    payload=st.sampled_from([None, 40.0]),
    ratio=st.sampled_from([0.0, 0.8, 1.0]),
)
def test_plans_with_general_blocks_keep_every_rule(pieces, size, payload, ratio):
    container = ContainerType("c", "C", size, max_payload_kg=payload)
    pack = BlockBuilding(time_limit=0.2).pack(pieces, container, support_ratio=ratio)
    check_pack(pack, pieces, container, ratio)
    state = _state(pieces, container, ratio)
    blocks, _ = make_general_blocks(state)
    for b in blocks:
        _check_block(state, b)
    # a greedy pass and a look-ahead pass offered every general block made
    state.general, _ = general_blocks_for(state, 1e12)
    for final in (
        greedy(state.copy(), SPACE_RULES[0]),
        BlockBuilding._lookahead(state.copy(), 2, SPACE_RULES[1], Budget(0.05)),
    ):
        check_pack(materialize(final), pieces, container, ratio)


@given(scores=st.lists(st.integers(-3, 3), min_size=2, max_size=80), data=st.data())
def test_the_best_general_blocks_offered_are_chosen_alike_on_any_cpu(scores, data):
    # the highest scores, ties to the lower position: a choice numpy's SIMD paths cannot
    # change (np.argpartition's among equal scores follows the CPU)
    n = data.draw(st.integers(1, len(scores) - 1))
    chosen = np.flatnonzero(best_of(np.array(scores, dtype=np.int64), n)).tolist()
    assert chosen == sorted(sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:n])
