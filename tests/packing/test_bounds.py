"""Lower bounds from the pieces' shapes (packing/bounds.py): never above a layout that
exists, and above the volume bound where shapes waste space."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import ContainerType, Rules, bounds, make_pieces, plan_containers, validate_plan
from packing.bounds import conflict_bound, dff_bound, fewest_containers, piece_kinds
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.model import containers_needed
from packing.planner import fits_container
from tests.strategies import cargo, container_st

FIXED = Rules(orientations=(0,))
TURNING = Rules(orientations=ALL_ORIENTATIONS)


@st.composite
def cut_containers(draw):  # type: ignore[no-untyped-def]
    """Pieces cut from ``k`` whole containers by random straight cuts (so ``k``
    containers hold them, each piece where it was cut), with the container, ``k`` and
    whether the pieces were turned (then they may turn any way)."""
    inner = tuple(draw(st.integers(4, 60)) for _ in range(3))
    k = draw(st.integers(1, 4))
    turned = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    blocks, leaves = [inner] * k, []
    while blocks:
        block = blocks.pop()
        axes = [a for a in range(3) if block[a] >= 2]
        if not axes or len(leaves) + len(blocks) >= 40 or rng.random() < 0.25:
            leaves.append(block)
            continue
        a = rng.choice(axes)
        at = rng.randint(1, block[a] - 1)
        blocks += [
            tuple(at if i == a else s for i, s in enumerate(block)),
            tuple(block[a] - at if i == a else s for i, s in enumerate(block)),
        ]
    pieces = []
    for n, leaf in enumerate(leaves):
        dims = tuple(rng.sample(leaf, 3)) if turned else leaf
        pieces += make_pieces(f"p{n}", dims, 1, rules=TURNING if turned else FIXED)
    return pieces, ContainerType("c", "c", inner), k, turned


@settings(max_examples=300)
@given(case=cut_containers())
def test_the_bounds_never_exceed_the_containers_the_pieces_were_cut_from(case):
    pieces, ct, k, _ = case
    kinds = piece_kinds(pieces, ct)
    assert sum(n for _, n in kinds) == len(pieces)  # every piece fits some way
    assert dff_bound(kinds, ct.inner) <= k
    assert conflict_bound(kinds, ct.inner) <= k
    assert fewest_containers(pieces, ct) <= k
    # and never below the volume bound
    volume = containers_needed([ct], sum(p.volume for p in pieces), 0.0)
    assert fewest_containers(pieces, ct) >= volume


@settings(max_examples=150)
@given(case=cut_containers())
def test_the_bounds_stay_valid_when_their_work_is_capped(case):
    # tiny caps: few functions on each axis, few values worked out, few kinds compared
    pieces, ct, k, _ = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bounds, "MAX_PRODUCTS", 50)
        mp.setattr(bounds, "MAX_TABLE", 40)
        mp.setattr(bounds, "MAX_CONFLICT_PAIRS", 30)
        mp.setattr(bounds, "MAX_CLIQUE_NODES", 3)
        assert fewest_containers(pieces, ct) <= k


@settings(max_examples=30)
@given(pieces=cargo(max_items=5), container=container_st)
def test_no_plan_uses_fewer_containers_than_the_bound(pieces, container):
    pieces = [p for p in pieces if fits_container(p, container)]
    if not pieces:
        return
    result = plan_containers(pieces, [container], support_ratio=0.0, time_limit=0.02)
    validate_plan(result)
    placed = [q.piece for load in result.containers for q in load.placements]
    assert len(result.containers) >= fewest_containers(placed, container)


def test_large_pieces_no_two_of_which_share_a_container_need_one_each():
    ct = ContainerType("c", "c", (10, 10, 10))
    pieces = make_pieces("big", (6, 6, 6), 5, rules=TURNING)
    assert containers_needed([ct], sum(p.volume for p in pieces), 0.0) == 2
    assert conflict_bound(piece_kinds(pieces, ct), ct.inner) == 5
    assert fewest_containers(pieces, ct) == 5
    result = plan_containers(pieces, [ct], support_ratio=0.0, time_limit=0.05)
    assert len(result.containers) == 5 and not result.unplaced


def test_pieces_in_a_row_count_as_a_one_dimensional_bin_packing():
    # along X: 7, 7, 7 and 4, 4, 4 of 10, every piece the container's full height and
    # width. Volume: 33 of 10 → 4; no two 7s and no 7 and 4 share a container → 4; the
    # function that counts a 7 as a whole container and a 4 as 4 → 3 + 1.2 → 5, the optimum
    ct = ContainerType("c", "c", (10, 10, 10))
    pieces = make_pieces("a", (7, 10, 10), 3, rules=FIXED) + make_pieces(
        "b", (4, 10, 10), 3, rules=FIXED
    )
    kinds = piece_kinds(pieces, ct)
    assert containers_needed([ct], sum(p.volume for p in pieces), 0.0) == 4
    assert conflict_bound(kinds, ct.inner) == 4
    assert dff_bound(kinds, ct.inner) == 5
    assert fewest_containers(pieces, ct) == 5
    result = plan_containers(pieces, [ct], support_ratio=0.0, time_limit=0.05)
    assert len(result.containers) == 5 and not result.unplaced


def test_a_piece_counts_in_the_orientations_that_fit():
    # 6 long and 10 wide, in a container 10 long and 6 wide: it fits only turned on the
    # floor, and then fills the container
    ct = ContainerType("c", "c", (10, 3, 6))
    turning = make_pieces("a", (6, 3, 10), 2, rules=Rules(orientations=FLOOR_ORIENTATIONS))
    assert piece_kinds(turning, ct) == [(((10, 3, 6),), 2)]
    assert fewest_containers(turning, ct) == 2
    assert piece_kinds(make_pieces("a", (6, 3, 10), 2, rules=FIXED), ct) == []
    result = plan_containers(turning, [ct], support_ratio=0.0, time_limit=0.05)
    assert len(result.containers) == 2 and not result.unplaced


def test_pieces_that_fit_no_way_are_left_out_and_nothing_gives_zero():
    ct = ContainerType("c", "c", (10, 10, 10))
    assert fewest_containers([], ct) == 0
    too_long = make_pieces("long", (11, 1, 1), 2, rules=FIXED)
    assert piece_kinds(too_long, ct) == []
    assert dff_bound([], ct.inner) == 0 and conflict_bound([], ct.inner) == 0
