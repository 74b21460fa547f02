"""Each rule of docs/conventions.md (cargo rules, support, payload) on small hand-made cases."""

import pytest

from packing import ContainerType, Rules, make_pieces, plan_containers, validate_plan
from packing.errors import PackingInputError, PlanValidationError
from packing.model import Placement
from packing.result import ContainerLoad, PackResult


def one(pieces, inner=(1000, 1000, 1000), **kw):
    c = ContainerType(
        "c", "C", inner, loading_side=kw.pop("door", "TOP"), max_payload_kg=kw.pop("payload", None)
    )
    r = plan_containers(pieces, [c], time_limit=1.0, **kw)
    validate_plan(r)
    return r


def test_tall_piece_needs_tilt():
    # 900 mm tall piece into a 500 mm high container: only tilting makes it fit
    upright = one(make_pieces("a", (300, 900, 300), 1), inner=(1000, 500, 1000))
    assert upright.unplaced and "larger" in upright.unplaced[0].reason
    tilted = one(
        make_pieces("a", (300, 900, 300), 1, rules=Rules(orientations=tuple(range(6)))),
        inner=(1000, 500, 1000),
    )
    assert not tilted.unplaced and tilted.placements[0].rotation != (0, 0, 0)


def test_payload_caps_each_container():
    r = one(make_pieces("a", (100, 100, 100), 10, weight_kg=3.0), payload=10.0)
    assert not r.unplaced
    assert all(c.cargo_weight_kg <= 10.0 for c in r.containers)
    assert len(r.containers) == 4  # 3 + 3 + 3 + 1 pieces


def test_too_heavy_piece_reason_names_both_masses():
    r = one(make_pieces("a", (100, 100, 100), 1, weight_kg=15.0), payload=12.0)
    assert (
        r.unplaced[0].reason
        == "heavier (15 kg) than the 12 kg payload of every eligible container it fits into"
    )


def test_max_containers_cap_reason():
    r = one(make_pieces("a", (600, 600, 600), 3), max_containers=2)
    assert len(r.containers) == 2 and len(r.unplaced) == 1
    assert "capped at 2 containers (max_containers)" in r.unplaced[0].reason


@pytest.mark.parametrize("door", ["TOP", "FRONT", "SIDE"])
def test_unload_priority_keeps_high_priority_reachable(door):
    low = make_pieces("low", (200, 200, 200), 20)
    high = make_pieces("high", (200, 200, 200), 10, rules=Rules(unload_priority=5), item_order=1)
    r = one(low + high, inner=(1000, 600, 600), door=door, max_containers=1)
    assert len(r.placements) >= 20  # validate_plan (in one()) checked the priority rule


@pytest.mark.parametrize("door", ["TOP", "FRONT", "SIDE"])
def test_manual_items_keep_request_order(door):
    a = make_pieces("a", (250, 250, 250), 8, rules=Rules(manual_order=True), item_order=0)
    b = make_pieces("b", (250, 250, 250), 8, rules=Rules(manual_order=True), item_order=1)
    r = one(a + b, inner=(1000, 500, 500), door=door, max_containers=1)
    steps = sorted((p.load_step, p.piece.item_id, p.piece.instance) for p in r.placements)
    seq = [(item, inst) for _, item, inst in steps]
    assert seq == sorted(seq)


def test_front_door_loads_back_to_front():
    r = one(make_pieces("a", (250, 250, 250), 16), inner=(1000, 500, 500), door="FRONT")
    by_step = sorted(r.placements, key=lambda p: p.load_step)
    # a piece on the floor never comes after a floor piece nearer the door in the same lane
    for i, p in enumerate(by_step):
        for q in by_step[i + 1 :]:
            same_lane = p.position[1] == q.position[1] and p.position[2] == q.position[2]
            assert not (same_lane and q.position[0] < p.position[0])


def _plan(placements, inner=(100, 100, 100), door="TOP", payload=None):
    c = ContainerType("c", "C", inner, loading_side=door, max_payload_kg=payload)
    return PackResult([ContainerLoad(0, c, placements)], [], "hand", 0.8)


def _pl(item, inst, pos, dims=(50, 50, 50), step=1, rules=None, weight=0.0):
    from packing.model import Piece

    return Placement(Piece(item, inst, dims, weight, rules or Rules()), 0, pos, 0, dims, step)


@pytest.mark.parametrize(
    ("placements", "message"),
    [
        ([_pl("a", 0, (60, 0, 0))], "outside"),
        ([_pl("a", 0, (0, 0, 0), step=1), _pl("b", 0, (25, 0, 0), step=2)], "overlap"),
        ([_pl("a", 0, (0, 0, 0), step=1), _pl("b", 0, (20, 50, 0), step=2)], "rests on 60%"),
        ([_pl("a", 0, (0, 0, 0), step=2), _pl("b", 0, (0, 50, 0), step=1)], "loaded before"),
        (
            [
                _pl("a", 0, (0, 0, 0), step=1, rules=Rules(stack_on_top=False)),
                _pl("b", 0, (0, 50, 0), step=2),
            ],
            "nothing on top",
        ),
        ([_pl("a", 0, (0, 50, 0), rules=Rules(stack_under=False))], "must stand on the floor"),
        ([_pl("a", 0, (0, 0, 0), weight=8.0)], "exceeds the 5 kg payload"),
        (
            [
                _pl("a", 0, (0, 0, 0), step=1, rules=Rules(unload_priority=2)),
                _pl("b", 0, (0, 50, 0), step=2),
            ],
            "blocks the unloading",
        ),
        ([_pl("a", 0, (0, 0, 0), step=1), _pl("a", 0, (50, 0, 0), step=2)], "appears 2 times"),
    ],
)
def test_validate_plan_catches(placements, message):
    with pytest.raises(PlanValidationError, match=message):
        validate_plan(_plan(placements, payload=5.0))


def test_a_piece_far_outside_is_reported_not_an_overflow():
    # coordinates past what 64-bit arrays hold: the piece is outside, and said to be
    far = _pl("a", 0, (2**63, 0, 0), step=1)
    with pytest.raises(PlanValidationError, match="outside the inner space") as info:
        validate_plan(_plan([far, _pl("b", 0, (0, 0, 0), step=2)]))
    assert "overlap" not in str(info.value)
    # the load steps are still checked
    with pytest.raises(PlanValidationError, match=r"load steps are not 1\.\.2"):
        validate_plan(_plan([_pl("a", 0, (2**63, 0, 0), step=1), _pl("b", 0, (0, 0, 0), step=1)]))


def test_support_ratio_is_a_parameter():
    plan = _plan([_pl("a", 0, (0, 0, 0), step=1), _pl("b", 0, (20, 50, 0), step=2)])
    validate_plan(plan, support_ratio=0.6)  # 60 % rests on a: enough for 0.6
    with pytest.raises(PlanValidationError):
        validate_plan(plan, support_ratio=0.61)


def test_unplaced_kinds_tell_programs_why():
    c = ContainerType("c", "C", (500, 500, 500), max_payload_kg=10.0)
    pieces = (
        make_pieces("big", (600, 100, 100), 1)
        + make_pieces("heavy", (100, 100, 100), 1, weight_kg=11.0, item_order=1)
        + make_pieces("many", (500, 500, 500), 2, item_order=2)
    )
    r = plan_containers(pieces, [c], max_containers=1, time_limit=1.0)
    validate_plan(r)
    kinds = {u.piece.item_id: u.kind for u in r.unplaced}
    assert kinds == {"big": "size", "heavy": "weight", "many": "cap"}


@pytest.mark.parametrize("ratio", [float("nan"), 2.5, -0.1, "0.8", True])
def test_validate_plan_refuses_a_support_ratio_outside_0_to_1(ratio):
    """A NaN ratio made every support check pass; 2.5 asked for more than a whole base."""
    box = ContainerType("c", "C", (400, 400, 400))
    plan = plan_containers(make_pieces("a", (200, 200, 200), 8), [box], time_limit=0.1)
    with pytest.raises(PackingInputError) as info:
        validate_plan(plan, support_ratio=ratio)
    assert info.value.field == "support_ratio"


@pytest.mark.parametrize("result", [None, [], "plan"])
def test_validate_plan_names_a_result_that_is_no_plan(result):
    with pytest.raises(PackingInputError) as info:
        validate_plan(result)
    assert info.value.field == "result"
