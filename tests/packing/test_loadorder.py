import pytest

from packing.loadorder import load_steps


def test_support_comes_first_whatever_the_position():
    # b rests on a although b lies further back; a must still be loaded first
    boxes = [(10, 0, 0, 20, 10, 10), (0, 10, 0, 20, 20, 10)]
    assert load_steps(boxes, "FRONT", [None, None]) == [1, 2]


@pytest.mark.parametrize(
    ("door", "expected"), [("FRONT", [1, 2]), ("SIDE", [2, 1]), ("TOP", [1, 2])]
)
def test_door_order(door, expected):
    # two floor boxes: one at the back (low x, high z), one nearer the front door
    boxes = [(0, 0, 10, 10, 10, 20), (10, 0, 0, 20, 10, 10)]
    assert load_steps(boxes, door, [None, None]) == expected


def test_manual_ranks_go_in_order():
    boxes = [(0, 0, 0, 10, 10, 10), (10, 0, 0, 20, 10, 10), (20, 0, 0, 30, 10, 10)]
    # the piece nearest the door belongs to the first MANUAL item
    steps = load_steps(boxes, "TOP", [2, 1, 0])
    assert steps == [3, 2, 1]
