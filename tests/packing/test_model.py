from dataclasses import replace

import pytest

from packing.errors import PackingInputError
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.model import ContainerType, Piece, Rules, make_pieces
from packing.planner import plan_containers


@pytest.mark.parametrize(
    ("kwargs", "tilt"),
    [
        ({}, False),
        ({"allow_tilt": True}, True),
        ({"allowed_rotations": "ALL"}, True),
        ({"allowed_rotations": "FLOOR_90", "allow_tilt": True}, False),
        ({"allowed_rotations": "ALL", "allow_tilt": False}, False),  # the stricter rule wins
    ],
)
def test_tilt_rules(kwargs, tilt):
    r = Rules.from_flags(**kwargs)
    assert r.orientations == (ALL_ORIENTATIONS if tilt else FLOOR_ORIENTATIONS)


def test_rule_defaults():
    r = Rules.from_flags()
    assert (r.stack_on_top, r.stack_under, r.fragile, r.manual_order, r.unload_priority) == (
        True,
        True,
        False,
        False,
        0,
    )
    m = Rules.from_flags(loading_order="MANUAL", allow_stack_on_top=False, unload_priority=3)
    assert m.manual_order and not m.stack_on_top and m.unload_priority == 3


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"allowed_rotations": "SIDEWAYS"}, "allowed_rotations"),
        ({"loading_order": "FAST"}, "loading_order"),
        ({"allow_tilt": "false"}, "allow_tilt"),
        ({"allow_tilt": 0}, "allow_tilt"),
        ({"fragile": "no"}, "fragile"),
        ({"unload_priority": 2.5}, "unload_priority"),
        ({"unload_priority": float("nan")}, "unload_priority"),
        ({"unload_priority": float("inf")}, "unload_priority"),
        ({"unload_priority": "3"}, "unload_priority"),
        ({"unload_priority": True}, "unload_priority"),
        ({"unload_priority": -1}, "unload_priority"),
    ],
)
def test_bad_rules_name_the_field(kwargs, field):
    with pytest.raises(PackingInputError, match=field):
        Rules.from_flags(**kwargs)


def test_piece_and_container_validation():
    with pytest.raises(PackingInputError, match=r"dims.*got \(0, 1, 1\)"):
        Piece("a", 0, (0, 1, 1))
    with pytest.raises(PackingInputError, match="weight_kg"):
        Piece("a", 0, (1, 1, 1), -1.0)
    with pytest.raises(PackingInputError, match="loading_side"):
        ContainerType("c", "C", (10, 10, 10), loading_side="BACK")
    with pytest.raises(PackingInputError, match="quantity"):
        make_pieces("a", (1, 1, 1), 0)


def test_make_pieces_numbers_instances():
    ps = make_pieces("a", (10, 20, 30), 3, weight_kg=2.0)
    assert [p.instance for p in ps] == [0, 1, 2]
    assert ps[0].volume == 6000


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Rules(stack_on_top="no"), "rules.stack_on_top"),
        (lambda: Rules(fragile=1), "rules.fragile"),
        (lambda: Rules(unload_priority=1.5), "unload_priority"),
        (lambda: Rules(unload_priority=True), "unload_priority"),
        (lambda: make_pieces("a", (100, 100, 100), 2.5), "quantity"),
        (lambda: make_pieces("a", (100, 100, 100), "3"), "quantity"),
        (lambda: make_pieces("a", (100, 100, 100), True), "quantity"),
    ],
)
def test_flags_and_counts_of_the_wrong_type_are_named(make, field):
    with pytest.raises(PackingInputError) as info:
        make()
    assert info.value.field == field


def test_numpy_numbers_and_flags_from_a_table_are_taken():
    import numpy as np

    rules = Rules(fragile=np.bool_(True), unload_priority=np.int64(2))
    assert rules.fragile and rules.unload_priority == 2
    assert len(make_pieces("a", (100, 100, 100), np.int64(3), rules=rules)) == 3


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Piece("a", 0, (NAN, 1, 1)), "dims"),
        (lambda: Piece("a", 0, (INF, 1, 1)), "dims"),
        (lambda: Piece("a", 0, (None, 1, 1)), "dims"),
        (lambda: Piece("a", 0, (True, 1, 1)), "dims"),
        (lambda: Piece("a", 0, 5), "dims"),
        (lambda: Piece("a", 0, "abc"), "dims"),
        (lambda: Piece("a", 0, None), "dims"),
        (lambda: Piece("a", 0, (1, 1, 1), "5"), "weight_kg"),
        (lambda: Piece("a", 0, (1, 1, 1), None), "weight_kg"),
        (lambda: Piece("a", 0, (1, 1, 1), True), "weight_kg"),
        (lambda: Piece("a", "x", (1, 1, 1)), "instance"),
        (lambda: Piece("a", -1, (1, 1, 1)), "instance"),
        (lambda: Piece("a", 1.5, (1, 1, 1)), "instance"),
        (lambda: Piece(None, 0, (1, 1, 1)), "item_id"),
        (lambda: make_pieces(5, (1, 1, 1), 2), "item_id"),
        (lambda: ContainerType("c", "C", (NAN, 1, 1)), "inner"),
        (lambda: ContainerType("c", "C", (INF, 1, 1)), "inner"),
        (lambda: ContainerType("c", "C", (None, 1, 1)), "inner"),
        (lambda: ContainerType("c", "C", (1, 1, 1), outer=(1, 1)), "outer"),
        (lambda: ContainerType("c", "C", (1, 1, 1), outer=(0, 1, 1)), "outer"),
        (lambda: ContainerType("c", "C", (1, 1, 1), outer=(NAN, 1, 1)), "outer"),
        (lambda: ContainerType("c", "C", (1, 1, 1), max_payload_kg=NAN), "max_payload_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), max_payload_kg=INF), "max_payload_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), max_payload_kg="5"), "max_payload_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), max_payload_kg=True), "max_payload_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), tare_kg=-1), "tare_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), tare_kg=NAN), "tare_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), tare_kg="5"), "tare_kg"),
        (lambda: ContainerType("c", "C", (1, 1, 1), tare_kg=None), "tare_kg"),
    ],
)
def test_bad_sizes_and_masses_are_named(make, field):
    """Not-a-number, infinite, missing, boolean or textual sizes and masses are refused
    by name, never with a bare ValueError, OverflowError or TypeError from inside."""
    with pytest.raises(PackingInputError) as info:
        make()
    assert info.value.field == field


@pytest.mark.parametrize(
    ("make", "field", "most"),
    [
        (lambda: ContainerType("c", "C", (5 * 10**9, 1, 1)), "inner", "1,000,000"),
        (lambda: ContainerType("c", "C", (10**6 + 1, 1, 1)), "inner", "1,000,000"),
        (lambda: ContainerType("c", "C", (1, 1, 1), outer=(1, 10**7, 1)), "outer", "1,000,000"),
        (lambda: Piece("a", 0, (1, 1, 10**9 + 1)), "dims", "1,000,000,000"),
    ],
)
def test_sizes_beyond_what_64_bit_sums_hold_are_refused_by_name(make, field, most):
    # containers of 5e9 mm sides gave areas and volumes past int64 in the numpy checks
    with pytest.raises(PackingInputError, match=f"<= {most} ") as info:
        make()
    assert info.value.field == field
    assert ContainerType("c", "C", (10**6, 10**6, 10**6)).inner_volume == 10**18
    assert Piece("a", 0, (10**9, 1, 1)).dims == (10**9, 1, 1)


def test_sizes_from_numpy_and_whole_floats_are_taken():
    import numpy as np

    box = ContainerType("c", "C", np.array([1200, 800, 1000]), outer=[1300, 900, 1100])
    piece = Piece("a", np.int64(0), (100.0, np.int64(100), 100), np.float64(2.5))
    assert box.inner_volume == 1200 * 800 * 1000 and piece.volume == 100**3


def test_numbers_from_numpy_floats_and_lists_are_stored_plain_and_planned():
    # the engine's compiled modules take Python ints, floats, bools and tuples: what the
    # checks take (a DataFrame's rows, whole millimetres as floats, lists) must plan too,
    # where it raised a TypeError from inside the engine
    import numpy as np

    rules = Rules(
        orientations=[np.int64(0), 1.0],
        stack_on_top=np.bool_(True),
        unload_priority=np.int64(1),
    )
    pieces = [
        Piece("a", np.int64(k), np.array([300, 200, 100]), np.float32(2.0), rules, np.int64(0))
        for k in range(3)
    ] + make_pieces("b", [250.0, np.int32(150), 100], np.int64(2), weight_kg=np.int64(1))
    box = ContainerType(
        "c", "C", [1200.0, np.int64(800), 1000], max_payload_kg=np.int64(500), tare_kg=np.int8(3)
    )
    for p in pieces:
        assert type(p.dims) is tuple and all(type(d) is int for d in p.dims)
        assert type(p.instance) is int and type(p.item_order) is int
        assert type(p.weight_kg) is float
    assert rules.orientations == (0, 1) and all(type(o) is int for o in rules.orientations)
    assert type(rules.stack_on_top) is bool and type(rules.unload_priority) is int
    assert type(box.inner) is tuple and all(type(d) is int for d in box.inner)
    assert type(box.max_payload_kg) is float and type(box.tare_kg) is float
    plan = plan_containers(pieces, [box], time_limit=0.2)
    assert not plan.unplaced and sum(len(c.placements) for c in plan.containers) == 5


def test_an_item_order_that_is_no_whole_number_is_named():
    for order in (1.5, "1", None, True):
        with pytest.raises(PackingInputError) as info:
            Piece("a", 0, (1, 1, 1), item_order=order)
        assert info.value.field == "item_order"


def test_a_piece_with_another_instance_keeps_everything_else():
    (piece,) = make_pieces("a", (100, 200, 300), 1, weight_kg=2.5, item_order=4, color="#123456")
    assert piece.with_instance(0) is piece
    other = piece.with_instance(7)
    assert other.instance == 7 and other.key == ("a", 7)
    assert replace(other, instance=0) == piece
    with pytest.raises(PackingInputError, match="instance"):
        piece.with_instance(-1)
    with pytest.raises(PackingInputError, match="instance"):
        piece.with_instance(1.5)  # type: ignore[arg-type]
