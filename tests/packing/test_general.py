"""General blocks (packing/strategies/general.py): what they hold, when they are made, and
that plans with them keep every rule."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from packing import ContainerType, Rules, make_pieces
from packing.generate import heterogeneous_instance
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS, Box, overlaps
from packing.state import PackState, group_pieces
from packing.strategies import blocks as blocks_module
from packing.strategies import general as general_module
from packing.strategies.base import Budget, materialize
from packing.strategies.blocks import SPACE_RULES, BlockBuilding, greedy, offers_general
from packing.strategies.general import (
    MAX_PIECES_PER_TYPE,
    MAX_SHARE,
    MIN_FILL,
    MIN_TYPES,
    OFFERED,
    SPARSE_BELOW,
    SPARSE_FILL,
    GeneralBlock,
    GeneralBlocks,
    general_blocks_for,
    make_general_blocks,
    min_fill,
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
    at least the cargo's least fill (min_fill) of the cuboid; inside the container."""
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
    assert b.volume == volume >= min_fill(state) * b.bx * b.by * b.bz
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


def test_offered_by_the_best_greedy_pass_under_any_rule():
    corner, floor, across = SPACE_RULES
    assert offers_general({corner: 90, floor: 80}, {corner: 85, floor: 92})
    assert offers_general({corner: 90}, {corner: 90})  # equal loads keep them
    assert not offers_general({corner: 90, floor: 95}, {corner: 94, floor: 93})
    # only the rules both ran count; no pass with them, no general blocks
    assert not offers_general({corner: 90}, {corner: 89, across: 99})
    assert not offers_general({corner: 90}, {})


def test_a_first_rule_that_loads_less_with_them_does_not_decide(monkeypatch):
    # generated load 8 of 80 types: the first rule's greedy pass loads less with general
    # blocks, another rule's more; without them the search loaded 4 points less at 5 s
    inst = heterogeneous_instance(80, seed=8)
    state = _state(inst.pieces(honour_flags=True), inst.container_type())
    seen = []
    decide = blocks_module.offers_general

    def spy(plain, mixed):
        seen.append((dict(plain), dict(mixed)))
        return decide(plain, mixed)

    monkeypatch.setattr(blocks_module, "offers_general", spy)
    BlockBuilding(time_limit=0.5)._solve(state, Budget(0.5))
    [(plain, mixed)] = seen
    first = SPACE_RULES[0]
    assert mixed[first] < plain[first]
    assert state.general is not None


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


def _scan(blocks, counts, space, mins, payload, max_footprint, footprint_weight, offered):
    """The rows of a general blocks' scan, as the plain statement of what it offers."""
    sx, sy, sz = space
    scored = []
    for k, b in enumerate(blocks):
        if any(n > counts[t] for t, n in b.needs):
            continue
        if b.bx > sx or b.by > sy or b.bz > sz or b.weight_kg > payload + 1e-9:
            continue
        if b.bx * b.bz > max_footprint:
            continue
        rx, ry, rz = sx - b.bx, sy - b.by, sz - b.bz
        score = b.volume
        score -= rx * b.by * b.bz if 0 < rx < mins[0] else 0
        score -= rz * b.by * b.bx if 0 < rz < mins[2] else 0
        score -= ry * b.bx * b.bz if 0 < ry < mins[1] else 0
        score += b.bx * b.bz * footprint_weight
        scored.append((score, k, b))
    chosen = sorted(scored, key=lambda r: (-r[0], r[1]))[:offered]
    return [
        (score, (b.volume, -1 - k, 0, b.bx, b.by, b.bz, 1, 1, 1))
        for score, k, b in sorted(chosen, key=lambda r: r[1])
    ]


_extent = st.integers(1, 12).map(lambda n: 100 * n)


@st.composite
def _general_blocks(draw):
    n_types = draw(st.integers(1, 5))
    blocks = []
    for _ in range(draw(st.integers(0, 90))):
        bx, by, bz = draw(_extent), draw(_extent), draw(_extent)
        kinds = draw(st.lists(st.integers(0, n_types - 1), min_size=1, max_size=3, unique=True))
        needs = tuple(sorted((t, draw(st.integers(1, 4))) for t in kinds))
        volume = draw(st.integers(bx * by * bz // 2, bx * by * bz))
        weight = draw(st.sampled_from([0.0, 5.0, 12.5, 40.0]))
        blocks.append(GeneralBlock(bx, by, bz, volume, needs, weight, (), True))
    return n_types, blocks


@settings(max_examples=150)
@given(
    made=_general_blocks(),
    data=st.data(),
    payload=st.sampled_from([float("inf"), 20.0, 60.0]),
    max_footprint=st.sampled_from([float("inf"), 250_000.0, 1_000_000.0]),
    footprint_weight=st.sampled_from([0, 7]),
)
def test_a_scan_offers_the_best_general_blocks_that_fit_and_are_left(
    made, data, payload, max_footprint, footprint_weight
):
    # the compiled scan, its blocks alive kept by count and found from the last count, gives
    # what a plain scan of every block gives, for counts that fall (a search going deeper)
    # and rise again (the next pass), and for the best alone
    n_types, blocks = made
    general = GeneralBlocks(blocks, n_types)
    counts_st = st.lists(st.integers(0, 6), min_size=n_types, max_size=n_types)
    counts = data.draw(counts_st)
    for _ in range(data.draw(st.integers(1, 8))):
        if data.draw(st.booleans()):
            counts = data.draw(counts_st)  # anything, more pieces of a type too
        else:  # fewer pieces of some types
            counts = [c - data.draw(st.integers(0, c)) for c in counts]
        space = (data.draw(_extent), data.draw(_extent), data.draw(_extent))
        mins = (data.draw(_extent), data.draw(_extent), data.draw(_extent))
        args = (counts, space, mins, payload, max_footprint, footprint_weight)
        assert general.rows(*args) == _scan(blocks, *args, OFFERED)
        assert general.rows(*args, best_only=True) == _scan(blocks, *args, 1)
        assert general.alive(counts) == general.alive(counts)  # kept, and the same


def test_the_best_general_blocks_offered_are_chosen_alike_among_equal_scores():
    # 100 blocks alike but for their index: the first OFFERED are offered, the first alone
    # is the best
    blocks = [GeneralBlock(200, 200, 200, 8_000_000, ((0, 1),), 1.0, (), True)] * 100
    general = GeneralBlocks(blocks, 1)
    args = ([1], (1000, 1000, 1000), (100, 100, 100), float("inf"), float("inf"), 0)
    assert [r[1][1] for r in general.rows(*args)] == [-1 - k for k in range(OFFERED)]
    assert [r[1][1] for r in general.rows(*args, best_only=True)] == [-1]


def test_the_blocks_alive_kept_are_bounded_by_their_positions(monkeypatch):
    # 40 blocks of one piece of a type each: every count kept holds at most 40 positions,
    # and the cache is emptied before it would hold more than ALIVE_KEPT of them
    monkeypatch.setattr(general_module, "ALIVE_KEPT", 100)
    blocks = [
        GeneralBlock(100, 100, 100, 10**6, ((t % 4, 1 + t % 3),), 1.0, (), True) for t in range(40)
    ]
    kept = GeneralBlocks(blocks, 4)
    for left in range(200):
        counts = [left % 5, left % 3, left % 4, left % 2]
        alive = kept.alive(counts)
        assert [kept.table.ids[p] for p in alive.positions] == sorted(
            k for k, b in enumerate(blocks) if all(n <= counts[t] for t, n in b.needs)
        )
        assert kept._kept == sum(len(a.positions) for a in kept._alive.values()) <= 100


def test_cargo_of_one_or_two_pieces_a_type_takes_looser_general_blocks():
    """Fewer than SPARSE_BELOW pieces a type on average: general blocks may fill
    SPARSE_FILL of their cuboid; more: MIN_FILL. Sparse cargo's blocks include some that
    fill less than MIN_FILL, and each keeps every other property."""
    sparse = heterogeneous_instance(100, seed=1)
    pieces = sparse.pieces(honour_flags=True)
    types = len(sparse.box_types)
    assert len(pieces) < SPARSE_BELOW * types
    state = _state(pieces, sparse.container_type())
    assert min_fill(state) == SPARSE_FILL < MIN_FILL
    blocks, _ = make_general_blocks(state)
    for b in blocks:
        _check_block(state, b)
    assert any(b.volume < MIN_FILL * b.bx * b.by * b.bz for b in blocks)
    # the same cargo with three pieces of each type: the usual fill
    dense = [q for bt in sparse.box_types for q in make_pieces(str(bt.number), bt.dims, 3)]
    assert len(dense) >= SPARSE_BELOW * types
    assert min_fill(_state(dense, sparse.container_type())) == MIN_FILL
