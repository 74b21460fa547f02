import pytest

from packing.geometry import (
    ROTATIONS,
    cm_to_mm,
    distinct_orientations,
    extents,
    orientation_of_rotation,
    orientations_with_vertical,
)

# decisions §1: extents on (X, Y, Z) and their only rotation encodings
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
