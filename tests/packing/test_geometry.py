from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from packing import PlanValidationError, plan_containers, validate_plan
from packing import validate as validate_module
from packing.geometry import (
    ROTATIONS,
    Box,
    above_or_in_front,
    cm_to_mm,
    contains,
    distinct_orientations,
    extents,
    orientation_of_rotation,
    orientations_with_vertical,
    overlaps,
    precedes,
    rests_on,
)
from packing.model import Piece, Placement
from packing.validate import load_after
from tests.strategies import cargo, container_st

# docs/conventions.md#orientations: extents on (X, Y, Z) and their only rotation encodings
TABLE = [
    ((1, 2, 3), (0, 0, 0)),  # (L, H, W)
    ((3, 2, 1), (0, 90, 0)),  # (W, H, L)
    ((1, 3, 2), (90, 0, 0)),  # (L, W, H)
    ((2, 1, 3), (0, 0, 90)),  # (H, L, W)
    ((3, 1, 2), (90, 0, 90)),  # (W, L, H)
    ((2, 3, 1), (0, 90, 90)),  # (H, W, L)
]


@pytest.mark.parametrize("orientation", range(6))
def test_rotation_table(orientation):
    exts, rot = TABLE[orientation]
    assert extents((1, 2, 3), orientation) == exts
    assert ROTATIONS[orientation] == rot
    assert orientation_of_rotation(list(rot)) == orientation


def test_other_rotation_encodings_are_refused():
    with pytest.raises(ValueError, match="rotation must be one of"):
        orientation_of_rotation([90, 90, 0])


def test_cubes_and_squares_count_once():
    assert distinct_orientations((5, 5, 5), range(6)) == (0,)
    assert distinct_orientations((4, 4, 9), range(6)) == (0, 1, 2)
    assert distinct_orientations((4, 7, 4), (0, 1)) == (0,)


def test_vertical_flags_pick_orientations():
    # only H may stand vertical -> orientations 0 and 1
    assert orientations_with_vertical((False, True, False)) == (0, 1)
    # only L vertical -> orientations 3 and 4
    assert orientations_with_vertical((True, False, False)) == (3, 4)
    assert orientations_with_vertical((True, True, True)) == (0, 1, 2, 3, 4, 5)


@pytest.mark.parametrize(
    ("cm", "mm"), [(12.3, 123), (12.31, 124), (0.01, 1), (40, 400), (0.0001, 1)]
)
def test_cm_round_up_to_whole_mm(cm, mm):
    assert cm_to_mm(cm) == mm


def test_absurd_lengths_never_overflow():
    from packing.geometry import MAX_MM

    assert cm_to_mm(1e308) == MAX_MM
    for bad in (float("inf"), float("nan"), 0.0, -1.0):
        with pytest.raises(ValueError, match="finite number of cm > 0"):
            cm_to_mm(bad)


# -- box predicates ---------------------------------------------------------------------

DOORS = ["TOP", "FRONT", "SIDE"]


@st.composite
def boxes(draw, n_min: int = 1, n_max: int = 8):  # type: ignore[no-untyped-def]
    """Small integer boxes on a coarse grid, so that faces often touch or coincide."""
    out = []
    for _ in range(draw(st.integers(n_min, n_max))):
        lo = [draw(st.integers(0, 6)) for _ in range(3)]
        size = [draw(st.integers(1, 4)) for _ in range(3)]
        out.append(Box(*lo, *(a + b for a, b in zip(lo, size, strict=True))))
    return out


def test_box_names_its_corners():
    b = Box(1, 2, 3, 4, 5, 6)
    assert (b.x0, b.y0, b.z0, b.x1, b.y1, b.z1) == b == (1, 2, 3, 4, 5, 6)


def test_predicates_on_hand_made_boxes():
    floor = (0, 0, 0, 10, 10, 10)
    on_top = (5, 10, 0, 15, 20, 10)
    in_front = (10, 0, 0, 20, 10, 10)
    assert contains(floor, (2, 0, 2, 10, 5, 10)) and not contains(floor, on_top)
    assert overlaps(floor, (9, 9, 9, 11, 11, 11)) and not overlaps(floor, on_top)
    assert rests_on(on_top, floor) and not rests_on(floor, on_top)
    assert precedes(floor, on_top, "SIDE")  # support first, whatever the door
    assert precedes(floor, in_front, "FRONT") and not precedes(in_front, floor, "FRONT")
    assert not precedes(floor, in_front, "TOP")
    assert above_or_in_front(floor, (0, 50, 0, 5, 60, 5), "SIDE")  # above, not touching


@given(bs=boxes(2, 2))
def test_overlap_contain_and_rest_are_consistent(bs):
    a, b = bs
    assert overlaps(a, b) == overlaps(b, a)
    assert overlaps(a, a) and contains(a, a)
    if contains(a, b):
        assert overlaps(a, b)
    if rests_on(b, a):
        assert not overlaps(a, b)
        assert all(precedes(a, b, door) for door in DOORS)


@given(bs=boxes(), door=st.sampled_from(DOORS))
def test_precedes_on_columns_is_precedes_box_by_box(bs, door):
    a = np.asarray(bs, dtype=np.int64)
    columns = tuple(a[:, k] for k in range(6))
    for i, box in enumerate(bs):
        row = precedes(box, columns, door)
        assert row.tolist() == [precedes(box, other, door) for other in bs], i


@given(bs=boxes(), door=st.sampled_from(DOORS))
def test_the_validator_agrees_with_the_engine_on_load_order(bs, door):
    # validate_plan keeps its own precedence check (the oracle); the two must agree.
    a = np.asarray(bs, dtype=np.int64)
    for i, box in enumerate(bs):
        expected = [j != i and precedes(box, other, door) for j, other in enumerate(bs)]
        assert load_after(a, i, door).tolist() == expected


@given(
    bs=boxes(),
    door=st.sampled_from(DOORS),
    order=st.randoms(use_true_random=False),
    block=st.integers(1, 40),
)
def test_the_load_step_check_finds_the_same_pairs_in_blocks_of_rows(bs, door, order, block):
    # _check_steps compares the pieces' pairs a block of rows at a time: any block size
    # reports the pairs loaded out of order that a row at a time does, in the same order
    n = len(bs)
    steps = list(range(1, n + 1))
    order.shuffle(steps)
    ps = [
        Placement(Piece("p", i, (10, 10, 10), 1.0), 0, (0, 0, 0), 0, (10, 10, 10), step)
        for i, step in enumerate(steps)
    ]
    a = np.asarray(bs, dtype=np.int64)
    expected = [
        f"c: piece p#{j} (step {steps[j]}) is loaded before p#{i} (step {steps[i]}), which it "
        "rests on or blocks from the door"
        for i in range(n)
        for j in range(n)
        if load_after(a, i, door)[j] and steps[j] < steps[i]
    ]
    found: list[str] = []
    with patch.object(validate_module, "_PAIRS_PER_BLOCK", block * n):
        validate_module._check_steps("c", ps, a, door, found)
    assert found == expected


@given(
    pieces=cargo(max_items=3),
    container=container_st,
    order=st.randoms(use_true_random=False),
)
def test_the_validator_flags_exactly_the_load_steps_the_engine_forbids(pieces, container, order):
    plan = plan_containers(pieces, [container], strategy="first-fit-decreasing", max_containers=1)
    validate_plan(plan)
    if not plan.containers:
        return
    load = plan.containers[0]
    steps = list(range(1, len(load.placements) + 1))
    order.shuffle(steps)
    load.placements = [pl.with_(load_step=s) for pl, s in zip(load.placements, steps, strict=True)]
    box = [(*pl.position, *pl.max_corner) for pl in load.placements]
    door = container.loading_side
    forbidden = any(
        precedes(box[i], box[j], door) and steps[j] < steps[i]
        for i in range(len(box))
        for j in range(len(box))
        if i != j
    )
    try:
        validate_plan(plan)
        reported = False
    except PlanValidationError as exc:
        reported = any("rests on or blocks from the door" in v for v in exc.violations)
    event("out of order" if forbidden else "in order")
    assert reported == forbidden
