"""Seeded containers: items that pack badly alone are spread over a plan's containers."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from packing import make_pieces, plan_containers, validate_plan
from packing.model import ContainerType, Rules
from packing.planner import _Planner
from packing.seeding import AWKWARD_FILL, awkward_items, pack_seeded
from packing.strategies import get_strategy
from packing.strategies.base import SinglePack
from packing.strategies.blocks import BlockBuilding
from tests.packing.checks import check_pack
from tests.strategies import cargo, container_st

# The inside of a 1,000 L pallet shipper (118 × 115 × 76 cm).
SHIPPER = ContainerType("shipper", "Shipper", (1180, 1150, 760), (1480, 1600, 1200), 800.0)


def six_skus() -> list:
    """120 upright cartons of six random sizes (seeded): one planner case in which the
    containers filled one after another leave a tail that seeded containers avoid."""
    rnd = random.Random(6)
    pieces = []
    for i in range(6):
        dims = (rnd.randint(100, 600), rnd.randint(50, 400), rnd.randint(100, 500))
        pieces += make_pieces(f"s{i}", dims, 20, weight_kg=1.0, item_order=i)
    return pieces


def test_awkward_items_are_those_a_container_alone_holds_badly():
    fills = {
        "column": (0.30, False),  # a third of a container, pieces left over: awkward
        "cube": (0.92, False),  # packs well alone
        "few": (0.20, True),  # every piece fits one container: nothing to spread
        "single": (0.10, False),  # one piece: nothing to spread
    }
    quantities = {"column": 50, "cube": 80, "few": 4, "single": 1}
    # one awkward item seeds every container: 50 pieces over 29 containers, 2 each
    assert awkward_items(fills, quantities, containers=29) == {"column": 2}
    assert awkward_items(fills, quantities, containers=100) == {"column": 1}
    assert awkward_items({"edge": (AWKWARD_FILL, False)}, {"edge": 9}, 3) == {}
    # two awkward items take turns: each seeds half the containers, 60 × 2 / 20 = 6 pieces
    two = {"a": (0.3, False), "b": (0.45, False)}
    assert awkward_items(two, {"a": 60, "b": 31}, containers=20) == {"a": 6, "b": 4}


def test_a_seed_block_starts_the_container_and_the_search_completes_it():
    # 41 × 30 × 42 cm upright boxes: a container alone takes 2 × 3 layers × 1 = 6 of them
    column = make_pieces("column", (410, 300, 420), 8, rules=Rules(orientations=(0, 1)))
    filler = make_pieces("filler", (200, 150, 190), 60, item_order=1)
    pieces = column + filler
    strategy = BlockBuilding(time_limit=0.05)
    pack = pack_seeded(strategy, pieces, SHIPPER, {"column": 2}, support_ratio=0.8)
    check_pack(pack, pieces, SHIPPER)  # every rule, every piece once
    # the seed stands in the container's first corner, two boxes side by side
    at_origin = [q for q in pack.placed if q.position == (0, 0, 0)]
    assert [q.piece.item_id for q in at_origin] == ["column"]
    assert Counter(q.piece.item_id for q in pack.placed)["column"] >= 2
    assert pack.work_units > 0
    again = pack_seeded(strategy, pieces, SHIPPER, {"column": 2}, support_ratio=0.8)
    assert again.placed == pack.placed and again.work_units == pack.work_units


def test_seeded_containers_save_a_container_of_the_tail():
    # The planner's two candidates of one type, compared on their own (the plan itself
    # also has bin fitting and consolidation, which may save the container another way):
    # filled one after another by full searches the containers leave a tail of 5; seeded,
    # with probes only, 4.
    pieces = six_skus()
    sequential = _Planner([SHIPPER], BlockBuilding(), 0.8, 1.0).single_type(pieces, SHIPPER)
    seeded = _Planner([SHIPPER], BlockBuilding(), 0.8, 1.0).seeded(pieces, SHIPPER, len(sequential))
    assert seeded is not None
    for plan in (sequential, seeded):
        placed = [q.piece for _, content in plan for q in content]
        assert Counter(p.key for p in placed) == Counter(p.key for p in pieces)
        for _, content in plan:
            check_pack(SinglePack(placed=list(content)), [q.piece for q in content], SHIPPER)
    assert (len(sequential), len(seeded)) == (5, 4)
    # the plan keeps the better candidate
    result = plan_containers(pieces, [SHIPPER], time_limit=1)
    validate_plan(result)
    assert not result.unplaced and len(result.containers) == 4


def test_seeded_plans_are_repeatable():
    pieces = six_skus()
    a = plan_containers(pieces, [SHIPPER], time_limit=1)
    b = plan_containers(pieces, [SHIPPER], time_limit=1)
    assert [
        (p.piece.key, p.position, p.orientation) for c in a.containers for p in c.placements
    ] == [(p.piece.key, p.position, p.orientation) for c in b.containers for p in c.placements]
    assert a.work_units == b.work_units


def test_other_strategies_are_not_seeded():
    """Seeding completes containers with block building: a plan of another strategy keeps
    that strategy's containers only."""
    planner = _Planner([SHIPPER], get_strategy("first-fit-decreasing"), 0.8, 1.0)
    assert planner.seeded(six_skus(), SHIPPER, 5) is None


@settings(max_examples=40, deadline=None)
@given(
    pieces=cargo(max_items=4),
    container=container_st,
    ratio=st.sampled_from([0.0, 0.8, 1.0]),
    data=st.data(),
)
def test_a_seeded_container_keeps_every_rule(pieces, container, ratio, data):
    items = sorted({p.item_id for p in pieces})
    seeds = {
        item: data.draw(st.integers(1, 6), label=f"seed {item}")
        for item in data.draw(st.lists(st.sampled_from(items), unique=True), label="seeded")
    }
    pack = pack_seeded(
        BlockBuilding(time_limit=0.01), pieces, container, seeds, support_ratio=ratio
    )
    check_pack(pack, pieces, container, ratio)
