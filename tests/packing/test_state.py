"""Invariants of the packing state: free spaces and support surfaces after packing."""

from hypothesis import given, settings

from packing import ContainerType, Rules, make_pieces
from packing.geometry import Box, contains, overlaps
from packing.state import (
    BLOCK_READ,
    SUPPORT_TEST,
    Block,
    PackState,
    Space,
    SupportRect,
    group_pieces,
    type_min_extents,
)
from packing.strategies.blocks import SPACE_RULES, greedy, next_blocks
from tests.strategies import cargo, container_st


@settings(max_examples=40)
@given(pieces=cargo(), container=container_st)
def test_free_spaces_stay_free_and_supports_are_block_tops(pieces, container):
    state = greedy(PackState(container, group_pieces(pieces), 0.8), SPACE_RULES[0])
    inner = Box(0, 0, 0, *container.inner)
    boxes = [b.box for b in state.blocks]
    for s in state.free_spaces():
        assert isinstance(s, Space) and s.x0 < s.x1 and s.y0 < s.y1 and s.z0 < s.z1
        assert contains(inner, s)
        assert not any(overlaps(s, b) for b in boxes)
    for b in boxes:
        tops = state.supports_at(b.y1)
        assert all(isinstance(r, SupportRect) for r in tops)
        assert (b.x0, b.z0, b.x1, b.z1) in [(r.x0, r.z0, r.x1, r.z1) for r in tops]


def _spaces_after(spaces, box, min_ext, min_grew):
    """The free spaces after ``box`` goes in, by the definition: every space it cuts into
    replaced by its residual spaces that hold ``min_ext``, largest first, each dropped when
    inside a kept space or one taken before it (every pair tested); and the work a
    placement counts for it: the spaces examined, the new ones, and for each new one the
    kept spaces against the same face of the box, then (when none holds it) the new ones
    of that face taken before it."""
    keep, new = [], []
    mx, my, mz = min_ext
    bx0, by0, bz0, bx1, by1, bz1 = box
    for s in spaces:
        if not overlaps(Box(*box), Box(*s)):
            keep.append(s)
            continue
        x0, y0, z0, x1, y1, z1 = s
        for cut, face, piece in (
            (bx0 - x0 >= mx, 0, (x0, y0, z0, bx0, y1, z1)),
            (x1 - bx1 >= mx, 1, (bx1, y0, z0, x1, y1, z1)),
            (by0 - y0 >= my, 2, (x0, y0, z0, x1, by0, z1)),
            (y1 - by1 >= my, 3, (x0, by1, z0, x1, y1, z1)),
            (bz0 - z0 >= mz, 4, (x0, y0, z0, x1, y1, bz0)),
            (z1 - bz1 >= mz, 5, (x0, y0, bz1, x1, y1, z1)),
        ):
            if cut:
                new.append((face, piece))
    new.sort(
        key=lambda fs: (fs[1][3] - fs[1][0]) * (fs[1][4] - fs[1][1]) * (fs[1][5] - fs[1][2]),
        reverse=True,
    )
    accepted = []
    work = len(spaces) + len(new)
    # the coordinate of each face of the box, and which end of a space lies against it
    faces = ((0, 3, bx0), (0, 0, bx1), (1, 4, by0), (1, 1, by1), (2, 5, bz0), (2, 2, bz1))
    for face, s in new:
        _, end, at = faces[face]
        work += sum(1 for o in keep if o[end] == at)
        if any(contains(Box(*o), Box(*s)) for o in keep):
            continue
        work += sum(1 for f, _ in accepted if f == face)
        if not any(contains(Box(*o), Box(*s)) for _, o in accepted):
            accepted.append((face, s))
    result = keep + [s for _, s in accepted]
    if min_grew:
        result = [
            s for s in result if s[3] - s[0] >= mx and s[4] - s[1] >= my and s[5] - s[2] >= mz
        ]
    return result, work


@settings(max_examples=40)
@given(pieces=cargo(max_items=12), container=container_st)
def test_new_spaces_are_those_of_testing_every_pair_and_the_work_is_the_tests_made(
    pieces, container
):
    # the new free spaces are tested only against the spaces against the same face of the
    # block: the spaces left must be those of testing them against every kept space and
    # every new one taken before, and the work the budget is charged counts the tests made
    state = PackState(container, group_pieces(pieces), 0.8)
    blocks = next_blocks(state, 1, SPACE_RULES[0])
    while blocks:
        before, min_before = list(state.spaces), state.min_ext
        work = state.place(blocks[0])
        expected, expected_work = _spaces_after(
            before, blocks[0].box, state.min_ext, state.min_ext != min_before
        )
        assert state.spaces == expected
        assert work == expected_work
        blocks = next_blocks(state, 1, SPACE_RULES[0])


def test_a_piece_of_another_item_may_not_link_manual_pieces_in_the_wrong_order():
    # Request order: "early" before "late". A plain wall of cartons across the width in
    # front of "late" and behind the "early" piece at the door would have to go in after
    # "late" and before that "early" piece: the chain puts "late" first, so the wall may
    # not go there, though neither MANUAL piece is placed after the other directly (bin
    # fitting once placed it there).
    early = make_pieces("early", (51, 50, 50), 2, rules=Rules(manual_order=True), item_order=0)
    late = make_pieces("late", (50, 50, 51), 1, rules=Rules(manual_order=True), item_order=1)
    wall = make_pieces("wall", (50, 50, 301), 1, item_order=2)
    container = ContainerType("c", "C", inner=(400, 300, 301), loading_side="FRONT")
    state = PackState(container, group_pieces(early + late + wall), 0.0)
    t_early, t_late, t_wall = state.types
    state.place(Block(t_early.index, 0, (0, 0, 0), (51, 50, 50), (1, 1, 1)))
    state.place(Block(t_early.index, 0, (349, 0, 0), (51, 50, 50), (1, 1, 1)))
    state.place(Block(t_late.index, 0, (51, 0, 250), (50, 50, 51), (1, 1, 1)))
    assert not state.allows(t_wall, Box(299, 0, 0, 349, 50, 301))
    # above them it stands in front of neither
    assert state.allows(t_wall, Box(299, 50, 0, 349, 100, 301))


@settings(max_examples=40)
@given(pieces=cargo(), container=container_st)
def test_every_free_space_holds_the_smallest_pieces_left_and_none_lies_in_another(
    pieces, container
):
    # spaces are filtered again only when the last piece of a type goes in (the smallest
    # extents left grow); in between, every new space must still hold them
    state = PackState(container, group_pieces(pieces), 0.8)
    while True:
        blocks = next_blocks(state, 1, SPACE_RULES[0])
        if not blocks:
            break
        state.place(blocks[0])
        left = [t for t in state.types if state.counts[t.index] > 0]
        if not left:
            assert state.spaces == []
            break
        mx = min(ex for t in left for _, ex, _, _ in t.orients)
        my = min(ey for t in left for _, _, ey, _ in t.orients)
        mz = min(ez for t in left for _, _, _, ez in t.orients)
        assert state.min_ext == (mx, my, mz)
        for i, s in enumerate(state.spaces):
            assert s[3] - s[0] >= mx and s[4] - s[1] >= my and s[5] - s[2] >= mz
            assert not any(contains(o, s) for j, o in enumerate(state.spaces) if j != i)


def test_a_copy_finds_the_smallest_extents_left_of_its_own_counts():
    # each state walks the types in order of their smallest extents from where it last
    # stopped; a copy that runs out of the smallest type must not move the original on
    small = make_pieces("small", (100, 100, 100), 1)
    mid = make_pieces("mid", (100, 500, 500), 1)
    large = make_pieces("large", (200, 300, 400), 2)
    container = ContainerType("c", "C", (1000, 1000, 1000))
    original = PackState(container, group_pieces(small + mid + large), 0.8)
    assert original.min_ext == (100, 100, 100)
    copy = original.copy()
    copy.place(Block(0, 0, (0, 0, 0), (100, 100, 100), (1, 1, 1)))
    assert copy.min_ext == (100, 300, 100)  # upright by default
    # the last of a type as narrow as the smallest: the original looks again
    original.place(Block(1, 0, (0, 0, 0), (100, 500, 500), (1, 1, 1)))
    assert original.min_ext == (100, 100, 100)
    copy.place(Block(1, 0, (0, 0, 500), (100, 500, 500), (1, 1, 1)))
    assert copy.min_ext == (200, 300, 200)
    copy.place(Block(2, 0, (200, 0, 0), (200, 300, 400), (2, 1, 1)))
    assert copy.min_ext == (1 << 60, 1 << 60, 1 << 60)


def _extents_without_by_definition(state):
    """Along each axis: the smallest extent of the types with pieces left, the second
    smallest (the smallest once the first such type in index order is gone) and that type."""
    out_f, out_s, out_i = [], [], []
    mins = type_min_extents(state.types)
    left = [t.index for t in state.types if state.counts[t.index] > 0]
    for axis in range(3):
        ranked = sorted(left, key=lambda i: (mins[i][axis], i))
        out_f.append(mins[ranked[0]][axis] if ranked else 1 << 60)
        out_s.append(mins[ranked[1]][axis] if len(ranked) > 1 else 1 << 60)
        out_i.append(ranked[0] if ranked else -1)
    return (*out_f, *out_s, *out_i)


@settings(max_examples=40)
@given(pieces=cargo(max_items=24), container=container_st)
def test_the_extents_left_without_a_type_are_those_of_the_definition_at_every_step(
    pieces, container
):
    # the candidates' slivers read the smallest extents left and, once a block takes the
    # last pieces of a type, those of the other types: walked from where the last call
    # stopped, they must be those of the pieces left, in the state and in a copy of it
    state = PackState(container, group_pieces(pieces), 0.8)
    copies: list[PackState] = []
    _fill_checking_extents(state, SPACE_RULES[0], copies)
    for copy in copies:  # each copy walks its own counts on from where it was made
        _fill_checking_extents(copy, SPACE_RULES[1])


def _fill_checking_extents(state, rule, copies=None):
    """Fill ``state`` greedily by ``rule``, its extents left checked against the definition
    before every step; copies of the states of the first three steps into ``copies``."""
    while True:
        got = state.extents_without()
        assert got == _extents_without_by_definition(state)
        assert got[:3] == state.min_ext
        blocks = next_blocks(state, 1, rule)
        if not blocks:
            return
        if copies is not None and len(copies) < 3:
            copies.append(state.copy())
        state.place(blocks[0])


def test_the_second_smallest_extent_walks_on_past_used_up_types_and_ties_go_to_the_first():
    # three types share the smallest length along X (100): the smallest's type is the
    # first of them in index order and the second smallest is 100 too; once the middle
    # one and then the first are used up, the third is the smallest and the next size the
    # second (the walk for the second must not stop at a used-up type). Along Y and Z the
    # smallest is "d" (200) and the second the next type's (300).
    pieces = (
        make_pieces("a", (100, 300, 300), 1, rules=Rules(orientations=(0,)))
        + make_pieces("b", (100, 300, 300), 1, rules=Rules(orientations=(0,)))
        + make_pieces("c", (100, 300, 300), 1, rules=Rules(orientations=(0,)))
        + make_pieces("d", (150, 200, 200), 2, rules=Rules(orientations=(0,)))
    )
    state = PackState(ContainerType("c", "C", (1000, 1000, 1000)), group_pieces(pieces), 0.8)
    assert state.extents_without() == (100, 200, 200, 100, 300, 300, 0, 3, 3)
    state.place(Block(1, 0, (0, 0, 0), (100, 300, 300), (1, 1, 1)))  # "b"
    assert state.extents_without() == (100, 200, 200, 100, 300, 300, 0, 3, 3)
    copy = state.copy()
    state.place(Block(0, 0, (100, 0, 0), (100, 300, 300), (1, 1, 1)))  # "a"
    assert state.extents_without() == (100, 200, 200, 150, 300, 300, 2, 3, 3)
    state.place(Block(2, 0, (200, 0, 0), (100, 300, 300), (1, 1, 1)))  # "c"
    assert state.extents_without() == (150, 200, 200, 1 << 60, 1 << 60, 1 << 60, 3, 3, 3)
    # the copy made before kept its own walk: "a" and "c" are still there
    assert copy.extents_without() == (100, 200, 200, 100, 300, 300, 0, 3, 3)
    copy.place(Block(0, 0, (100, 0, 0), (100, 300, 300), (1, 1, 1)))
    assert copy.extents_without() == (100, 200, 200, 150, 300, 300, 2, 3, 3)


def _raised_state(surfaces: int) -> PackState:
    """An empty trailer whose support surfaces at 300 mm are ``surfaces`` squares of
    100 mm in a row along its length."""
    trailer = ContainerType("t", "T", (13600, 2700, 2480), (13700, 3000, 2550), 24000.0, "FRONT")
    state = PackState(trailer, [], 0.8)
    state.tops = {300: [(i * 100, 0, i * 100 + 100, 100, True) for i in range(surfaces)]}
    return state


def test_a_support_test_counts_itself_and_each_surface_it_reads():
    """A test of a raised block counts SUPPORT_TEST and one per surface at its height: a
    test among 50 surfaces is charged far less than 50 tests (the tests, not the reads,
    cost the CPU), one on the floor nothing."""
    one, fifty = _raised_state(1), _raised_state(50)
    assert one.supported(0, 300, 0, 100, 100, 1, 1)
    assert fifty.supported(4900, 300, 0, 100, 100, 1, 1)
    assert one.checked == SUPPORT_TEST + 1
    assert fifty.checked == SUPPORT_TEST + 50 < 50 * one.checked
    assert one.supported(0, 0, 0, 100, 100, 1, 1) and one.checked == SUPPORT_TEST + 1
    # partly covered: each bottom piece reads the surfaces it touches once more
    assert not fifty.supported(4950, 300, 0, 100, 100, 1, 1)
    assert fifty.checked == 2 * (SUPPORT_TEST + 50) + 1


def test_the_stacking_rule_counts_each_placed_block_it_reads():
    """A piece that nothing may rest on reads every placed block: BLOCK_READ each."""
    van = ContainerType("v", "V", (3000, 1800, 1800), (3100, 2000, 1900), 1500.0, "FRONT")
    pieces = make_pieces("a", (500, 400, 300), 3) + make_pieces(
        "b", (500, 400, 300), 1, rules=Rules(stack_on_top=False)
    )
    state = greedy(PackState(van, group_pieces(pieces), 0.8), SPACE_RULES[0])
    assert len(state.blocks) >= 2
    glass = next(t for t in state.types if t.no_top)
    before = state.checked
    state.allows(glass, Box(2000, 0, 0, 2500, 400, 300))
    assert state.checked - before == BLOCK_READ * len(state.blocks)
