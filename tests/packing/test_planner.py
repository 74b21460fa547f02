import math
import random
import time
import types
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import ContainerType, Rules, alternatives, make_pieces, plan_containers, validate_plan
from packing import planner as planner_module
from packing.errors import PackingInputError
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.model import Piece, floor_area
from packing.planner import lower_bound
from packing.result import PackResult
from packing.strategies import get_strategy
from packing.strategies.base import Budget
from packing.strategies.blocks import BlockBuilding
from tests.packing.checks import MIXED_SINGLES, frozen_clock
from tests.strategies import cargo, container_st, small_container_st

SMALL = ContainerType("small", "Small", (300, 300, 300), (400, 400, 400), None, "TOP")
LARGE = ContainerType("large", "Large", (600, 300, 300), (700, 400, 400), None, "TOP")


def test_one_container_of_the_smallest_type_that_holds_everything():
    r = plan_containers(make_pieces("a", (100, 100, 100), 20), [LARGE, SMALL], time_limit=2)
    validate_plan(r)
    assert [c.container.slug for c in r.containers] == ["small"]


def test_pieces_only_a_small_type_holds_get_it_when_no_type_holds_everything():
    # the heavy pieces fit only the payload-free cell, the light one only the bulk types;
    # the cell ranks below the three bulk types, which were the only ones tried
    bulk = [
        ContainerType(f"bulk{k}", "Bulk", (400 + 100 * k, 300, 300), (450 + 100 * k, 350, 350), 500)
        for k in range(3)
    ]
    cell = ContainerType("cell", "Cell", (210, 160, 110), (400, 400, 400))
    pieces = make_pieces("heavy", (200, 150, 100), 2, weight_kg=801.0) + make_pieces(
        "light", (300, 200, 120), 1
    )
    r = plan_containers(pieces, [*bulk, cell], time_limit=1)
    validate_plan(r)
    assert not r.unplaced
    assert sorted(c.container.slug for c in r.containers) == ["bulk0", "cell", "cell"]


def test_fewest_containers_before_outer_volume():
    # 40 cubes: one large (54 cells) beats two small (27 cells each)
    r = plan_containers(make_pieces("a", (100, 100, 100), 40), [SMALL, LARGE], time_limit=2)
    validate_plan(r)
    assert [c.container.slug for c in r.containers] == ["large"]


def test_container_offset_and_instance_order():
    r = plan_containers(
        make_pieces("a", (300, 300, 300), 3, rules=Rules(manual_order=True)),
        [SMALL],
        container_offset=4,
    )
    validate_plan(r)
    assert [c.index for c in r.containers] == [4, 5, 6]
    assert [p.piece.instance for p in r.placements] == [0, 1, 2]


def test_large_identical_loads_repeat_the_packing():
    r = plan_containers(make_pieces("a", (100, 100, 100), 2700), [SMALL], time_limit=5)
    validate_plan(r)
    assert len(r.containers) == 100 and not r.unplaced


def test_alternatives_per_type():
    alts = alternatives(make_pieces("a", (100, 100, 100), 40), [SMALL, LARGE], time_limit=2)
    assert [(a.container.slug, a.container.title, a.boxes) for a in alts] == [
        ("large", "Large", 1),
        ("small", "Small", 2),
    ]


def test_frames_for_notebooks():
    r = plan_containers(make_pieces("a", (100, 100, 100), 5, weight_kg=1.5), [SMALL])
    assert isinstance(r, PackResult)
    df = r.placements_frame()
    assert len(df) == 5 and df["weight_kg"].sum() == 7.5
    assert list(r.containers_frame()["slug"]) == ["small"]
    assert r.unplaced_frame().empty


def test_floor_only_pieces_get_the_floor_first():
    # 6 pieces allowing nothing on top, 4 that must stand on the floor: one 3 × 2 floor
    # holds the floor-only ones with no-top ones on them, plus the rest beside them
    no_top = make_pieces("a", (300, 150, 200), 6, rules=Rules(stack_on_top=False))
    floor = make_pieces("b", (300, 150, 200), 4, rules=Rules(stack_under=False), item_order=1)
    box = ContainerType("box", "Box", (600, 300, 600), (700, 400, 700))
    big = ContainerType("big", "Big", (1200, 300, 600), (1300, 400, 700))
    r = plan_containers(no_top + floor, [big, box], time_limit=2)
    validate_plan(r)
    assert [c.container.slug for c in r.containers] == ["box"] and not r.unplaced


# --- the budget: work units, anytime, independent of the load ---------------------------

MIXED_TYPES = [
    ContainerType("van", "Van", (1600, 900, 850), (1700, 1000, 900), 700.0, "FRONT"),
    ContainerType("box", "Box", (800, 600, 500), (850, 650, 550), 200.0, "FRONT"),
]


def _many_skus(n_sku: int, qty: int) -> list:
    pieces = []
    for i in range(n_sku):
        dims = (90 + 37 * (i % 7), 60 + 23 * (i % 5), 70 + 29 * (i % 4))
        pieces += make_pieces(f"s{i}", dims, qty, weight_kg=0.5 + (i % 9), item_order=i)
    return pieces


def _layout(result: PackResult) -> list:
    return [
        (p.container_index, p.piece.key, p.position, p.orientation, p.load_step)
        for p in result.placements
    ]


def _burn(stop) -> None:  # pragma: no cover - runs in a child process
    x = 0
    while not stop.is_set():
        x = (x * 31 + 7) % 1_000_003


def test_a_plan_is_the_same_with_a_cpu_burning_process_beside_it():
    # The budget is counted in work units, not read from the clock: a busy machine gives
    # the very same placements (the searches' nets read their own CPU time).
    import multiprocessing as mp

    pieces = _many_skus(12, 15)
    quiet = plan_containers(pieces, MIXED_TYPES, time_limit=0.4)
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    burners = [ctx.Process(target=_burn, args=(stop,), daemon=True) for _ in range(2)]
    for b in burners:
        b.start()
    try:
        busy = plan_containers(pieces, MIXED_TYPES, time_limit=0.4)
    finally:
        stop.set()
        for b in burners:
            b.join()
    assert not quiet.wall_cut and not busy.wall_cut
    assert _layout(busy) == _layout(quiet)
    assert busy.work_units == quiet.work_units > 0


def test_a_plan_inside_a_request_is_the_same_however_slow_its_wall_clock_runs():
    # Inside a request (Budget.wall_net far away), the plan's searches and its
    # consolidation are bounded by their CPU time alone: a wall clock that reads an hour
    # later at every look, as on a machine far busier than any, changes nothing (the
    # wall-clock nets of the searches themselves cut a plan of 2.05 s on a machine three
    # times busier than this one, running the plain modules).
    import packing.consolidate
    import packing.strategies.base

    pieces = _many_skus(20, 15)  # two containers: the consolidation step runs too
    with Budget.wall_net(1e12):
        quiet = plan_containers(pieces, MIXED_TYPES, time_limit=0.4)
    assert len(quiet.containers) == 2
    hour = [0.0]

    def racing() -> float:
        hour[0] += 3600.0
        return hour[0]

    clock = types.SimpleNamespace(
        perf_counter=racing, thread_time=time.thread_time, process_time=time.process_time
    )
    with pytest.MonkeyPatch.context() as mp:
        for module in (packing.strategies.base, packing.consolidate, planner_module):
            mp.setattr(module, "time", clock)
        with Budget.wall_net(1e12):
            busy = plan_containers(pieces, MIXED_TYPES, time_limit=0.4)
    assert hour[0] > 3600.0 * 10  # the clock was read, and raced
    assert not quiet.wall_cut and not busy.wall_cut
    assert _layout(busy) == _layout(quiet)
    assert busy.work_units == quiet.work_units > 0


def test_a_spent_budget_still_gives_a_complete_plan():
    # Anytime: a budget far too small for any search still places every piece (greedy
    # passes for what is left), and spends few units beyond it.
    pieces = _many_skus(30, 20)
    tiny = plan_containers(pieces, MIXED_TYPES, time_limit=0.001)
    validate_plan(tiny)
    assert not tiny.unplaced and len(tiny.placements) == len(pieces)
    roomy = plan_containers(pieces, MIXED_TYPES, time_limit=1.0)
    validate_plan(roomy)
    assert not roomy.unplaced
    assert tiny.work_units < roomy.work_units
    assert len(roomy.containers) <= len(tiny.containers)


def test_a_spent_budget_runs_no_mixed_fill_once_there_is_a_plan(monkeypatch):
    # past the budget the mixed fill, greedy passes over every container, no longer runs
    # once a plan exists; the seeded fill does (it holds large plans down)
    pieces = _many_skus(30, 20)
    called: list[str] = []
    for name in ("mixed", "seeded"):
        fill = getattr(planner_module._Planner, name)

        def spy(self, *args, _fill=fill, _name=name, **kw):
            called.append(_name)
            return _fill(self, *args, **kw)

        monkeypatch.setattr(planner_module._Planner, name, spy)
    tiny = plan_containers(pieces, MIXED_TYPES, time_limit=0.001)
    assert not tiny.unplaced and called == ["seeded"]
    roomy = plan_containers(pieces, MIXED_TYPES, time_limit=1.0)
    assert not roomy.unplaced and set(called) == {"mixed", "seeded"}
    # with no type that holds every piece alone, the mixed fill is the plan, budget or not
    called.clear()
    small = ContainerType("small", "Small", (300, 300, 300))
    long = ContainerType("long", "Long", (2000, 120, 120))
    rods = make_pieces("rod", (1500, 100, 100), 3) + make_pieces("cube", (250, 250, 250), 30)
    mixed = plan_containers(rods, [small, long], time_limit=0.001)
    validate_plan(mixed)
    assert not mixed.unplaced and called[:1] == ["mixed"]
    assert {c.container.slug for c in mixed.containers} == {"small", "long"}


def test_a_type_that_contains_a_probed_one_takes_its_plan_at_the_fewest_containers(monkeypatch):
    # 60 small pieces of one piece each fill one small box; a larger box, no shorter on any
    # side, holds that content as it is: no probe of its own, the same count
    rnd = random.Random(3)
    pieces = [
        Piece(f"p{i}", 0, tuple(rnd.randint(5, 12) * 10 for _ in range(3)), 0.2) for i in range(60)
    ]
    small = ContainerType("small", "Small", (600, 500, 500), (700, 600, 600), 50.0)
    large = ContainerType("large", "Large", (700, 600, 600), (750, 650, 650), 50.0)
    probed: list[str] = []
    single = planner_module._Planner.single_type

    def spy(self, pieces, ct, **kw):
        if kw.get("quick"):
            probed.append(ct.slug)
        return single(self, pieces, ct, **kw)

    monkeypatch.setattr(planner_module._Planner, "single_type", spy)
    checked: list[str] = []
    check = planner_module.container_is_valid

    def check_spy(ct, content, ratio):
        checked.append(ct.slug)
        return check(ct, content, ratio)

    monkeypatch.setattr(planner_module, "container_is_valid", check_spy)
    r = plan_containers(pieces, [small, large], time_limit=0.5)
    validate_plan(r)
    assert not r.unplaced and len(r.containers) == 1
    assert probed == ["small"]
    assert {(a.container.slug, a.boxes) for a in r.alternatives} == {("small", 1), ("large", 1)}
    # through the same door the content keeps every rule but the payload as it is: that
    # alone is checked, not the whole content
    assert checked == []
    # a larger type with the same door takes a content only within its payload (12 kg here)
    planner = planner_module._Planner([small, large], get_strategy(), 0.8, 1.0)
    [(_, content)] = planner.single_type(pieces, small, quick=True)
    assert sum(q.piece.weight_kg for q in content) == pytest.approx(12.0)
    for payload, takes in ((11.9, False), (12.0, True)):
        roomy = ContainerType("roomy", "Roomy", (700, 600, 600), (750, 650, 650), payload)
        taken = planner.within([(small, content)], roomy)
        assert (taken == [(roomy, content)]) if takes else taken is None
    assert checked == []
    # a content that breaks a rule in the larger type (its door: unload priorities that
    # block each other from the side) is probed there instead
    side = ContainerType("side", "Side", (700, 600, 600), (750, 650, 650), 50.0, "SIDE")
    drops = [replace(p, rules=Rules(unload_priority=i % 3)) for i, p in enumerate(pieces)]
    first = planner_module._Planner([small, side], get_strategy(), 0.8, 1.0)
    [(_, content)] = first.single_type(drops, small, quick=True)
    assert not planner_module.container_is_valid(side, content, 0.8)
    probed.clear()
    r = plan_containers(drops, [small, side], time_limit=0.5)
    validate_plan(r)
    assert probed == ["small", "side"]


def test_the_plan_stays_within_its_budget_in_work_units():
    # Searches draw on the plan's budget: a larger budget buys more work, and the plan's
    # overrun is bounded by the greedy passes that complete it (here far below a second's
    # worth of units).
    from packing.strategies.base import Budget

    pieces = _many_skus(20, 20)
    spent = []
    for limit in (0.05, 0.2):
        r = plan_containers(pieces, MIXED_TYPES, time_limit=limit)
        validate_plan(r)
        assert r.work_units <= (limit + 0.5) * Budget.RATE
        spent.append(r.work_units)
    assert spent[0] < spent[1]


def test_the_plan_charges_its_own_work_the_fitting_checks_and_its_end(monkeypatch):
    # On a probe's budget (and no consolidation) the searches are greedy passes whatever the
    # units left, so dearer checks and a dearer end change the units alone: by the checks
    # of each item against each type, and by each container's load steps and numbering.
    pieces = _many_skus(12, 40)
    items = len({p.item_id for p in pieces})

    def plan():
        return plan_containers(pieces, MIXED_TYPES, time_limit=1e-6, consolidate_limit=0)

    base = plan()
    validate_plan(base)
    monkeypatch.setattr(planner_module, "FIT_UNITS", planner_module.FIT_UNITS + 1_000)
    monkeypatch.setattr(
        planner_module, "FINISH_PIECE_UNITS", planner_module.FINISH_PIECE_UNITS + 10
    )
    monkeypatch.setattr(planner_module, "FINISH_PAIR_UNITS", planner_module.FINISH_PAIR_UNITS + 1)
    dearer = plan()
    assert _layout(dearer) == _layout(base)
    sizes = [len(c.placements) for c in base.containers]
    assert len(sizes) > 1
    extra = items * len(MIXED_TYPES) * 1_000 + sum(10 * n + n * n for n in sizes)
    assert dearer.work_units - base.work_units == extra


def test_many_pieces_per_item_are_planned_with_the_search_bounded_by_the_container():
    # 4,000 pieces of 20 items: a search is given only what a container can hold, so the
    # plan is complete and fast; every piece is placed exactly once.
    pieces = _many_skus(20, 200)
    r = plan_containers(pieces, MIXED_TYPES, time_limit=0.2)
    validate_plan(r)
    assert not r.unplaced
    keys = [p.piece.key for p in r.placements]
    assert len(keys) == len(set(keys)) == len(pieces)


@settings(max_examples=25)
@given(pieces=cargo(), container=container_st, limit=st.sampled_from([0.001, 0.05]))
def test_any_budget_gives_a_complete_plan_and_the_same_plan_twice(pieces, container, limit):
    # Anytime and deterministic: whatever the budget, every piece is placed or unplaced
    # because it fits no container alone or found no room (never for lack of time), and
    # planning again gives the very same placements.
    first = plan_containers(pieces, [container, MIXED_TYPES[1]], time_limit=limit)
    again = plan_containers(pieces, [container, MIXED_TYPES[1]], time_limit=limit)
    validate_plan(first)
    assert _layout(first) == _layout(again) and first.work_units == again.work_units
    placed = {p.piece.key for p in first.placements}
    unplaced = {u.piece.key for u in first.unplaced}
    assert placed | unplaced == {p.key for p in pieces} and not placed & unplaced
    assert all(u.kind in ("size", "weight", "space") and u.reason for u in first.unplaced)


def test_pieces_of_one_item_must_be_alike():
    # fitting and counts are decided per item: a piece unlike the others of its item is an
    # input error naming the item, not a wrong reason on the other piece
    ct = ContainerType("a", "A", (600, 400, 400), (650, 450, 450), 100.0)
    pieces = [Piece("x", 0, (5000, 100, 100), 1.0), Piece("x", 1, (100, 100, 100), 1.0)]
    with pytest.raises(PackingInputError) as info:
        plan_containers(pieces, [ct], time_limit=0.5)
    assert info.value.field == "pieces" and "'x'" in str(info.value)


def test_twenty_single_pieces_of_twenty_sizes_take_one_pallet_box():
    # 365 L of single pieces: the greedy pass that ranks by volume builds towers that the
    # flat boards cannot stand on and needed two 450 L boxes; laid widest first they all
    # go into one box, at every budget
    types = [
        ContainerType("p450", "450 L", (980, 780, 590), (1200, 800, 1250)),
        ContainerType("p650", "650 L", (1000, 950, 690), (1220, 1020, 1420)),
        ContainerType("p1000", "1000 L", (1180, 1150, 760), (1480, 1200, 1600)),
    ]
    pieces = [p for i, d in enumerate(MIXED_SINGLES) for p in make_pieces(f"s{i}", d, 1)]
    for limit in (0.05, 0.2, 1.0):
        result = plan_containers(pieces, types, time_limit=limit)
        assert len(result.containers) == 1 and not result.unplaced
        validate_plan(result)


def test_a_cap_that_leaves_cargo_out_still_gets_a_search():
    # more cargo than one container holds, capped at one container (the container loading
    # problem): the probe's count equals the volume bound, yet the search decides what goes
    # in, so it is not skipped
    rnd = random.Random(3)
    box = ContainerType("box", "Box", (1800, 1000, 1000))
    pieces = [
        p
        for i in range(30)
        for p in make_pieces(
            f"t{i}",
            (rnd.randint(150, 600), rnd.randint(120, 500), rnd.randint(100, 400)),
            rnd.randint(1, 3),
            item_order=i,
        )
    ]
    assert sum(p.volume for p in pieces) > box.inner_volume
    probe = BlockBuilding(time_limit=1e-6).pack(pieces, box, support_ratio=0.8)
    plan = plan_containers(pieces, [box], max_containers=1, time_limit=0.3)
    validate_plan(plan)
    assert len(plan.containers) == 1 and plan.unplaced
    placed = sum(p.piece.volume for p in plan.containers[0].placements)
    assert placed > probe.placed_volume
    assert {u.kind for u in plan.unplaced} == {"cap"}


def test_a_fill_that_cannot_end_with_fewer_containers_is_abandoned():
    # The mixed and seeded fills stop once the containers they opened and the fewest that
    # could hold the rest exceed the best full placement's: they could only rank below it.
    from packing.planner import _Planner

    pieces = _many_skus(20, 30)
    ranked = sorted(MIXED_TYPES, key=lambda ct: -ct.inner_volume)

    def mixed(beat: int | None) -> tuple[list | None, int]:
        planner = _Planner(MIXED_TYPES, BlockBuilding(), 0.8, 0.05)
        plan = planner.mixed(pieces, ranked, beat)
        return plan, planner.budget.spent

    whole, whole_units = mixed(None)
    assert whole is not None and sum(len(c) for _, c in whole) == len(pieces)
    n = len(whole)
    assert n >= 3
    same, same_units = mixed(n)
    assert same == whole and same_units == whole_units  # it can tie: it runs to the end
    assert mixed(n - 1)[0] is None  # it ends with n > n - 1
    by_volume = -(-sum(p.volume for p in pieces) // max(ct.inner_volume for ct in MIXED_TYPES))
    by_weight = math.ceil(sum(p.weight_kg for p in pieces) / 700.0)  # the van's payload
    fewest = max(by_volume, by_weight)
    assert 1 < fewest < n - 2
    hopeless, hopeless_units = mixed(fewest - 1)  # nothing could hold it in fewer
    assert hopeless is None and hopeless_units == 0
    stopped, stopped_units = mixed(n - 2)
    assert stopped is None and 0 < stopped_units < whole_units


def _near_full(box: ContainerType, seed: int, share: float = 1.0) -> list[Piece]:
    """Single pieces of random sizes up to (but not over) ``share`` of ``box``'s inner
    volume."""
    rnd = random.Random(seed)
    pieces: list[Piece] = []
    volume = 0
    while True:
        dims = (rnd.randint(150, 500), rnd.randint(120, 400), rnd.randint(100, 350))
        if volume + math.prod(dims) > share * box.inner_volume:
            return pieces
        volume += math.prod(dims)
        pieces += make_pieces(f"t{len(pieces)}", dims, 1)


def test_a_type_that_must_take_everything_and_is_far_from_it_gets_a_first_search_only():
    # All of it in one container of this type would beat the best probe's one container of
    # a larger type; the search that tries gets a quarter of its limit first, and when that
    # leaves out more than TO_FEWER_GAP of the container's volume it ends there.
    import packing.planner as planner_module
    from packing.planner import _Planner, _pool_of

    box = ContainerType("box", "Box", (1200, 1000, 900))
    pieces = _near_full(box, 5)  # the volume allows one container: the bound cannot tell
    first = _Planner([box], BlockBuilding(), 0.8, 0.2)
    first.register(pieces)
    quarter = first.pack_one(_pool_of(pieces), box, limit=planner_module.TO_FEWER_FIRST * 0.2)
    left = sum(p.volume for p in pieces) - sum(q.piece.volume for q in quarter.placed)
    assert left > planner_module.TO_FEWER_GAP * box.inner_volume
    searched = _Planner([box], BlockBuilding(), 0.8, 0.2)
    assert len(searched.single_type(pieces, box)) > 1
    tried = _Planner([box], BlockBuilding(), 0.8, 0.2)
    assert tried.to_fewer(pieces, box, 1) is None
    assert tried.budget.spent == quarter.work_units < searched.budget.spent / 2


def test_a_type_close_to_taking_everything_gets_the_full_search(monkeypatch):
    # Within TO_FEWER_GAP after its first search, the last container gets the search it
    # would have had without the first: the plan is the single-type plan's whenever that
    # plan needs no more containers than the best probe's, even when the plan's units
    # leave no room for the first search (here the first search is a greedy pass and any
    # gap counts as close, so the full search always follows).
    import packing.planner as planner_module
    from packing.planner import QUICK_LIMIT, _Planner

    monkeypatch.setattr(planner_module, "TO_FEWER_FIRST", QUICK_LIMIT)
    monkeypatch.setattr(planner_module, "TO_FEWER_GAP", 1.0)
    p450 = ContainerType("p450", "450 L", (980, 780, 590), (1200, 800, 1250))
    box = ContainerType("box", "Box", (1200, 1000, 900))
    cases = [
        ([p for i, d in enumerate(MIXED_SINGLES) for p in make_pieces(f"s{i}", d, 1)], p450),
        (_near_full(box, 5), box),
        (_near_full(box, 31, 0.8), box),  # a greedy pass leaves 6 of 45 out, the search none
        (_many_skus(6, 4), box),
    ]
    for pieces, ct in cases:
        for beat in (1, 2):
            # each search's limit is all the plan's units
            plan = _Planner([ct], BlockBuilding(), 0.8, 0.2).single_type(pieces, ct)
            tried = _Planner([ct], BlockBuilding(), 0.8, 0.2).to_fewer(pieces, ct, beat)
            assert tried == (plan if len(plan) <= beat else None)


def test_a_plan_finds_the_smaller_type_that_takes_everything_after_a_close_first_search():
    # 70 % of the smaller box's volume in single pieces: its greedy probe needs two boxes,
    # the larger box's one; the smaller box's search gets a quarter of its limit first,
    # leaves out a few pieces, and then its whole limit, which fits them all
    box = ContainerType("box", "Box", (1200, 1000, 900))
    big = ContainerType("big", "Big", (1500, 1200, 1000))
    pieces = _near_full(box, 38, 0.7)
    probe = BlockBuilding(time_limit=1e-6).pack(pieces, box, support_ratio=0.8)
    assert probe.leftover
    result = plan_containers(pieces, [box, big], time_limit=0.45, consolidate_limit=0)
    validate_plan(result)
    assert [c.container.slug for c in result.containers] == ["box"] and not result.unplaced
    assert [(a.container.slug, a.boxes) for a in result.alternatives] == [("box", 1), ("big", 1)]


@pytest.mark.parametrize("limit", [float("nan"), float("inf"), -1.0, 0, "3", True])
def test_a_time_limit_must_be_a_finite_number_of_seconds(limit):
    box = ContainerType("c", "C", inner=(1000, 1000, 1000))
    pieces = make_pieces("a", (100, 100, 100), 3)
    with pytest.raises(PackingInputError, match="time_limit: must be a finite number of seconds"):
        plan_containers(pieces, [box], time_limit=limit)
    with pytest.raises(PackingInputError, match="time_limit: must be a finite number of seconds"):
        get_strategy("block-building", time_limit=limit).pack(pieces, box)


_BOX = ContainerType("box", "Box", (600, 400, 400))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"support_ratio": "0.5"}, "support_ratio"),
        ({"support_ratio": None}, "support_ratio"),
        ({"support_ratio": True}, "support_ratio"),
        ({"max_containers": float("nan")}, "max_containers"),
        ({"max_containers": float("inf")}, "max_containers"),
        ({"max_containers": 2.5}, "max_containers"),
        ({"max_containers": "3"}, "max_containers"),
        ({"max_containers": True}, "max_containers"),
        ({"container_offset": -1}, "container_offset"),
        ({"container_offset": 2.5}, "container_offset"),
        ({"container_offset": None}, "container_offset"),
        ({"container_offset": "1"}, "container_offset"),
        ({"container_types": _BOX}, "container_types"),
        ({"container_types": None}, "container_types"),
        ({"container_types": "box"}, "container_types"),
        ({"container_types": ["box"]}, "container_types"),
        ({"container_types": [None]}, "container_types"),
        ({"pieces": None}, "pieces"),
        ({"pieces": make_pieces("a", (100, 100, 100), 1)[0]}, "pieces"),
        ({"pieces": [None]}, "pieces"),
        ({"pieces": "abc"}, "pieces"),
    ],
)
def test_arguments_of_the_wrong_kind_are_named(kwargs, field):
    """Counts, ratios and lists of the wrong kind are refused by name before any work,
    never with a TypeError or AttributeError from inside the planner."""
    args = {
        "pieces": make_pieces("a", (100, 100, 100), 3),
        "container_types": [_BOX],
        "time_limit": 0.1,
    } | kwargs
    with pytest.raises(PackingInputError) as info:
        plan_containers(args.pop("pieces"), args.pop("container_types"), **args)
    assert info.value.field == field


def test_a_strategy_refuses_a_support_ratio_that_is_no_number():
    with pytest.raises(PackingInputError) as info:
        get_strategy("first-fit-decreasing").pack(
            make_pieces("a", (100, 100, 100), 1), _BOX, support_ratio="0.8"
        )
    assert info.value.field == "support_ratio"


def test_two_different_types_of_one_slug_are_refused():
    """Alternatives and the plan's choice tell types apart by slug: two different types
    of one slug gave each other's box counts."""
    big = ContainerType("c", "big", (1000, 1000, 1000))
    small = ContainerType("c", "small", (500, 500, 500))
    with pytest.raises(PackingInputError, match="slug 'c'") as info:
        plan_containers(make_pieces("a", (500, 500, 500), 8), [big, small], time_limit=0.1)
    assert info.value.field == "container_types"


def test_a_type_listed_twice_and_pieces_from_a_generator_are_taken():
    pieces = make_pieces("a", (100, 100, 100), 4)
    once = plan_containers(pieces, [_BOX], time_limit=0.1)
    twice = plan_containers(iter(pieces), [_BOX, _BOX], time_limit=0.1)
    assert [c.container.slug for c in twice.containers] == ["box"]
    assert once.placements_frame().equals(twice.placements_frame())


def _sku_order(pieces: int, skus: int, seed: int, *, priority=None) -> list[Piece]:
    """``pieces`` pieces spread evenly over ``skus`` random carton sizes (seeded)."""
    rnd = random.Random(seed)
    out: list[Piece] = []
    for i in range(skus):
        dims = (rnd.randint(10, 60) * 10, rnd.randint(5, 40) * 10, rnd.randint(10, 50) * 10)
        rules = Rules(unload_priority=priority(i)) if priority else Rules()
        n = pieces // skus + (1 if i < pieces % skus else 0)
        out += [Piece(f"s{i}", j, dims, 1.0, rules) for j in range(n)]
    return out


PALLET_BOX = ContainerType("box", "Box", (1180, 1150, 760))


def _no_balancing(monkeypatch) -> None:
    """Plan as without balanced fills: none of the full searches, none after them."""
    monkeypatch.setattr(planner_module, "BALANCE_FROM", math.inf)
    monkeypatch.setattr(planner_module, "BALANCE_SLACKS", ())


def test_a_balanced_fill_leaves_the_last_containers_no_worse_cargo(monkeypatch):
    # 600 pieces of 10 sizes: filled one after another, the first containers take what packs
    # best and the last ones are left the awkward pieces (18 containers); offered only
    # their share of each size, the containers share the awkward pieces (16). (At 0.25 s:
    # 0.15-0.4 s give 15-16 against 18; at 0.5 s and more both plans need 18, as on the
    # plain engine at 1.5 s: README, 2026-12-06 and 2026-12-07.)
    pieces = _sku_order(600, 10, seed=4)
    balanced = plan_containers(pieces, [PALLET_BOX], time_limit=0.25)
    _no_balancing(monkeypatch)
    plain = plan_containers(pieces, [PALLET_BOX], time_limit=0.25)
    for r in (balanced, plain):
        validate_plan(r)
        assert not r.unplaced
        assert sum(len(c.placements) for c in r.containers) == len(pieces)
    assert len(balanced.containers) < len(plain.containers)


def test_a_balanced_offer_is_each_items_share_and_at_least_one_piece():
    pieces = _sku_order(600, 10, seed=4) + make_pieces("one", (100, 100, 100), 1)
    planner = planner_module._Planner([PALLET_BOX], get_strategy(), 0.8, 1.0)
    planner.register(pieces)
    pool = planner_module._pool_of(pieces)
    volume = sum(p.volume for p in pieces)
    left = volume / (planner_module.BALANCE_FILL * PALLET_BOX.inner_volume)
    offer = planner._share_of(pool, PALLET_BOX)
    assert offer["one"] == pool["one"]
    for item, lst in pool.items():
        assert (
            offer[item] == lst[: max(1, math.ceil(len(lst) * planner_module.BALANCE_SLACK / left))]
        )
        assert len(offer[item]) < len(lst) or len(lst) == 1
    # what one container and a half hold is offered whole
    few = {"s0": pool["s0"][:3]}
    assert planner._share_of(few, PALLET_BOX) == few


def test_no_balanced_fill_under_a_binding_cap_an_unload_order_or_manual_order(monkeypatch):
    # under a cap that leaves pieces out the containers take what packs best; with unload
    # priorities or MANUAL order each container would take pieces of every drop: all plan
    # as without balancing
    capped = _sku_order(600, 10, seed=4)
    ordered = _sku_order(600, 10, seed=4, priority=lambda i: i % 3)
    manual = [replace(p, rules=Rules(manual_order=True)) for p in capped]
    runs = [
        lambda: plan_containers(capped, [PALLET_BOX], time_limit=1, max_containers=10),
        lambda: plan_containers(ordered, [PALLET_BOX], time_limit=1),
        lambda: plan_containers(manual, [PALLET_BOX], time_limit=1),
    ]
    before = [run() for run in runs]
    _no_balancing(monkeypatch)
    after = [run() for run in runs]
    for a, b in zip(before, after, strict=True):
        assert _layout(a) == _layout(b)
        assert a.work_units == b.work_units


def test_a_cap_that_does_not_bind_balances_as_no_cap(monkeypatch):
    # a request's maxContainers above what the plan needs does not change the plan
    pieces = _sku_order(600, 10, seed=4)
    free = plan_containers(pieces, [PALLET_BOX], time_limit=0.25)
    capped = plan_containers(pieces, [PALLET_BOX], time_limit=0.25, max_containers=100)
    assert _layout(capped) == _layout(free)
    _no_balancing(monkeypatch)
    plain = plan_containers(pieces, [PALLET_BOX], time_limit=0.25, max_containers=100)
    assert len(capped.containers) < len(plain.containers)


def test_items_of_one_piece_each_spend_no_units_on_balanced_fills(monkeypatch):
    # every share of an item of one piece is that piece (pallets loaded onto vehicles are
    # such items): a balanced fill would repeat the plain one, so the plan spends exactly
    # what it spends without balancing (fills repeating the search spent 2/3 more)
    rnd = random.Random(7)
    truck = ContainerType("truck", "Truck", (13600, 2700, 2450))
    pallets = [Piece(f"p{i}", 0, (1200, rnd.randint(100, 160) * 10, 800), 300.0) for i in range(70)]
    balanced = plan_containers(pallets, [truck], time_limit=1)
    assert len(balanced.containers) == 2
    _no_balancing(monkeypatch)
    plain = plan_containers(pallets, [truck], time_limit=1)
    assert _layout(balanced) == _layout(plain)
    assert balanced.work_units == plain.work_units


def test_a_share_of_at_least_the_cargos_containers_is_a_plain_fill():
    ct = PALLET_BOX
    worth = 10 * planner_module.BALANCE_FILL * ct.inner_volume  # ten containers' worth
    assert planner_module._slack_of(3.0, ct, worth) == 3.0
    assert planner_module._slack_of(9.9, ct, worth) == 9.9
    assert planner_module._slack_of(10.0, ct, worth) is None
    assert planner_module._slack_of(None, ct, worth) is None
    # at most BALANCE_FROM containers' worth: every offer is the whole pool
    small = int(planner_module.BALANCE_FROM * planner_module.BALANCE_FILL * ct.inner_volume)
    assert planner_module._slack_of(1.0, ct, small) is None


def test_a_balanced_search_no_better_than_its_probe_is_followed_by_a_plain_fill(monkeypatch):
    # 200 pieces of 5 sizes: the balanced search needs no fewer containers than its quick
    # probe; a plain fill is the first of the fills that follow, so the plan is no worse
    # than without balancing
    pieces = _sku_order(200, 5, seed=11)
    shares: list[float | None] = []
    fill = planner_module._Planner.balanced_fill

    def spy(self, pieces, ct, beat, **kw):
        shares.append(kw.get("slack", planner_module.BALANCE_SLACK))
        return fill(self, pieces, ct, beat, **kw)

    monkeypatch.setattr(planner_module._Planner, "balanced_fill", spy)
    # (0.2-0.45 s: a budget where that holds under the prices of 2026-12-06, afternoon; from
    # 0.5 s the balanced search needs a container fewer than its probe)
    balanced = plan_containers(pieces, [PALLET_BOX], time_limit=0.3)
    assert shares[:2] == [planner_module.BALANCE_SLACK, None]
    validate_plan(balanced)
    _no_balancing(monkeypatch)
    plain = plan_containers(pieces, [PALLET_BOX], time_limit=0.3)
    assert not balanced.unplaced and not plain.unplaced
    assert len(balanced.containers) <= len(plain.containers)


def test_units_left_go_to_balanced_fills_with_other_shares(monkeypatch):
    # the fill offered three times each item's share needs 26 containers; with the units
    # left, fills offered other shares find 25, within the plan's units (at 0.75 s: at
    # 0.6-0.9 s the same, at 0.5 s both need 26)
    pieces = _sku_order(600, 10, seed=3)
    limit = 0.75
    more = plan_containers(pieces, [PALLET_BOX], time_limit=limit)
    monkeypatch.setattr(planner_module, "BALANCE_SLACKS", ())
    first = plan_containers(pieces, [PALLET_BOX], time_limit=limit)
    for r in (more, first):
        validate_plan(r)
        assert not r.unplaced
    assert (len(more.containers), len(first.containers)) == (25, 26)
    # the plan's limit and the consolidation's share of it; a search's last completion
    # may spend a little past it (Budget.spent)
    allowance = limit * (1 + planner_module.CONSOLIDATE_SHARE) * Budget.RATE
    assert first.work_units < more.work_units <= allowance * 1.01


def test_pieces_that_must_stand_on_the_floor_bound_the_containers_by_their_floor():
    container = ContainerType("c", "C", (6000, 2400, 2400))
    floor_only = Rules(orientations=FLOOR_ORIENTATIONS, stack_under=False)
    pieces = make_pieces("a", (1200, 500, 800), 20, weight_kg=10, rules=floor_only)
    # 20 footprints of 0.96 m² need 19.2 m² of floor, a container has 14.4: two, where
    # their volume (9.6 of 34.56 m³) allows one
    volume = sum(p.volume for p in pieces)
    assert floor_area(pieces) == 20 * 1200 * 800
    assert lower_bound(container, volume, 200.0) == 1
    assert lower_bound(container, volume, 200.0, floor_area(pieces)) == 2
    # each piece takes its smallest footprint; pieces that may stand on others take none
    on_side = make_pieces(
        "b", (1200, 500, 800), 1, rules=Rules(ALL_ORIENTATIONS, stack_under=False)
    )
    assert floor_area(on_side) == 500 * 800
    assert floor_area(make_pieces("c", (1200, 500, 800), 3)) == 0
    result = plan_containers(pieces, [container], time_limit=2.0)
    assert len(result.containers) == 2 and not result.unplaced
    # the probe meets the bound, so the consolidation does not try for one container (that
    # took 2 % of the budget)
    assert result.work_units < 0.005 * 2.0 * Budget.RATE
    # nor, with a shorter type beside, do full searches try for two (70 % of the budget)
    shorter = ContainerType("s", "S", (3600, 2400, 2400))
    pieces = make_pieces("a", (1200, 500, 800), 33, weight_kg=10, rules=floor_only)
    pieces += make_pieces("d", (1000, 700, 600), 16, weight_kg=10, rules=floor_only)
    result = plan_containers(pieces, [container, shorter], time_limit=2.0)
    assert lower_bound(container, volume, 0.0, floor_area(pieces)) == 3
    assert [c.container.slug for c in result.containers] == ["c"] * 3
    assert result.work_units < 0.1 * 2.0 * Budget.RATE


@settings(max_examples=40)
@given(pieces=cargo(), container=small_container_st)
def test_no_full_placement_needs_fewer_containers_than_the_lower_bound(pieces, container):
    # the floor term holds for any rules: pieces that must stand on the floor never share
    # it, so a plan with fewer containers than the bound would break a rule
    result = plan_containers(pieces, [container], time_limit=0.05)
    validate_plan(result)
    if result.unplaced:
        return
    bound = lower_bound(
        container,
        sum(p.volume for p in pieces),
        sum(p.weight_kg for p in pieces),
        floor_area(pieces),
    )
    assert len(result.containers) >= bound


# Pools of more items than a window (planner.WINDOW_ITEMS): a search is offered a window of
# them, so that a container's search does not cost more as the pool grows.

CRATE = ContainerType("crate", "Crate", (800, 600, 600), (900, 700, 700), None, "TOP")
CUBE = ContainerType("cube", "Cube", (600, 600, 600), (700, 700, 700), None, "TOP")


def _distinct(n: int, seed: int = 1) -> list[Piece]:
    rnd = random.Random(seed)
    return [
        Piece(
            f"d{i}",
            0,
            (rnd.randint(100, 400), rnd.randint(80, 300), rnd.randint(100, 400)),
            round(rnd.uniform(0.1, 3.0), 2),
            item_order=i,
        )
        for i in range(n)
    ]


def _record_offers(monkeypatch) -> list[dict]:
    offers: list[dict] = []
    pack_one = planner_module._Planner.pack_one

    def recording(self, pool, ct, **kwargs):
        offers.append(dict(pool))
        return pack_one(self, pool, ct, **kwargs)

    monkeypatch.setattr(planner_module._Planner, "pack_one", recording)
    return offers


def test_a_pool_of_many_items_offers_each_search_a_window_of_it(monkeypatch):
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 60)
    offers = _record_offers(monkeypatch)
    pieces = _distinct(300)
    r = plan_containers(pieces, [CRATE], time_limit=0.3)
    validate_plan(r)
    keys = [p.piece.key for p in r.placements]
    assert not r.unplaced and len(keys) == len(set(keys)) == len(pieces)
    assert offers and max(len(o) for o in offers) < len(pieces)
    floor = planner_module.WINDOW_CONTAINERS * CRATE.inner_volume
    for offer in offers:
        # the window's items, or more only while they held less than its volume
        if len(offer) > 60:
            held = [lst[0].volume * len(lst) for lst in offer.values()]
            assert sum(held[:-1]) < floor
    # a pool of no more items than a window is offered whole, as before
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 1000)
    offers.clear()
    plan_containers(pieces, [CRATE], time_limit=0.3)
    assert max(len(o) for o in offers) == len(pieces)


def test_a_window_deals_every_size_and_offers_what_a_container_left_after_the_rest(
    monkeypatch,
):
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 10)
    pieces = [Piece(f"c{i}", 0, (100 + i, 100 + i, 100 + i)) for i in range(100)]
    pool = {p.item_id: [p] for p in pieces}
    one = {p.item_id: p for p in pieces}
    window = planner_module._Window(pool, one, 0)
    first = window.view(0)
    # ten hands of ten: the first holds the largest piece and one of every tenth of sizes
    ranks = sorted(99 - int(item[1:]) for item in first)
    assert ranks == list(range(0, 100, 10))
    # a container takes half of them; the other half is offered again after every hand
    taken = list(first)[:5]
    for item in taken:
        del pool[item]
    seen = set(first)
    hands = []
    for _ in range(9):
        view = window.view(0)
        assert len(view) == 10 and not seen & set(view)
        seen |= set(view)
        hands.append(list(view))
    # (each hand offered and left whole goes behind the ones before it)
    assert list(window.view(0)) == list(first)[5:] + hands[0][:5]
    # fewer items left than a window: every one of them is offered
    for item in list(pool)[6:]:
        del pool[item]
    assert set(window.view(0)) == set(pool)


def test_a_window_holds_at_least_its_volume(monkeypatch):
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 10)
    pieces = [Piece(f"c{i}", 0, (100, 100, 100)) for i in range(100)]
    pool = {p.item_id: [p] for p in pieces}
    window = planner_module._Window(pool, {p.item_id: p for p in pieces}, 25 * 100**3)
    assert len(window.view(0)) == 25


def test_a_pool_of_many_items_probes_the_largest_type_first_and_gives_up_the_others(
    monkeypatch,
):
    pieces = _distinct(300)
    full = plan_containers(pieces, [CUBE, CRATE], time_limit=0.3)
    counts = {a.container.slug: a.boxes for a in full.alternatives}
    assert counts["cube"] > counts["crate"]  # the cube needs more containers
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 60)
    r = plan_containers(pieces, [CUBE, CRATE], time_limit=0.3)
    validate_plan(r)
    assert not r.unplaced
    # the crate's probe came first; the cube's fill was given up once it needed more
    assert [a.container.slug for a in r.alternatives] == ["crate"]


def test_of_many_items_a_type_one_container_behind_the_best_is_kept(monkeypatch):
    # 300 cubes of distinct sides of 96-100 mm: the 800 × 600 × 600 type holds 288 of them
    # (2 containers), the 400 one 144 (3, one behind: kept, it may still get a search for
    # fewer), the 200 one 72 (5: given up)
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 60)
    rnd = random.Random(3)
    pieces = [
        Piece(f"c{i}", 0, (rnd.randint(96, 100), rnd.randint(96, 100), rnd.randint(96, 100)))
        for i in range(300)
    ]
    types = [
        ContainerType(f"w{w}", "W", (w, 600, 600), (w + 100, 700, 700), None, "TOP")
        for w in (200, 400, 800)
    ]
    r = plan_containers(pieces, types, time_limit=0.3)
    validate_plan(r)
    assert {a.container.slug: a.boxes for a in r.alternatives} == {"w800": 2, "w400": 3}


@settings(max_examples=25)
@given(pieces=cargo(), container=container_st, limit=st.sampled_from([0.001, 0.05]))
def test_with_small_windows_any_plan_is_complete_valid_and_deterministic(pieces, container, limit):
    # windows of three items (and no volume floor): every fill goes through them
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(planner_module, "WINDOW_ITEMS", 3)
        mp.setattr(planner_module, "WINDOW_CONTAINERS", 0)
        first = plan_containers(pieces, [container, MIXED_TYPES[1]], time_limit=limit)
        again = plan_containers(pieces, [container, MIXED_TYPES[1]], time_limit=limit)
    validate_plan(first)
    assert _layout(first) == _layout(again) and first.work_units == again.work_units
    placed = [p.piece.key for p in first.placements]
    unplaced = [u.piece.key for u in first.unplaced]
    assert len(set(placed)) == len(placed) and not set(placed) & set(unplaced)
    assert set(placed) | set(unplaced) == {p.key for p in pieces}


def test_a_balanced_fill_of_a_window_offers_each_item_its_share_of_the_whole_pool():
    # 50 items of 4 pieces (1.2 m³, 4.9 crates at 85 %): a window of 10 of them holds one
    # crate's worth, but its items are offered their share of the whole pool, 3 of 4
    pieces = [p for i in range(50) for p in make_pieces(f"s{i}", (200, 150, 200), 4)]
    planner = planner_module._Planner([CRATE], get_strategy(None), 0.8, 1.0)
    planner.register(pieces)
    pool = planner_module._pool_of(pieces)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(planner_module, "WINDOW_ITEMS", 10)
        window = planner_module._Window(pool, planner._item, 0)
        view = window.view(sum(p.volume for p in pieces))
    share = planner._share_of(view, CRATE)
    assert len(share) == 10 and all(len(lst) == 3 for lst in share.values())


def test_a_pool_of_many_items_gets_no_full_search_or_mixed_fill_the_units_left_cannot_pay(
    monkeypatch,
):
    # a full search of a type must finish its greedy passes over every container past its
    # budget, a mixed fill too: of a pool of more items than a window, each runs only while
    # the units left pay for two (a search) or three (a mixed fill) fills as cheap as the
    # cheapest probe's; short budgets skip them, long ones run them
    monkeypatch.setattr(planner_module, "WINDOW_ITEMS", 40)
    pieces = _distinct(240)
    calls: list[tuple[str, int]] = []  # (what, units left when it began)
    probes: list[int] = []  # units the probes that placed everything spent
    single_type, mixed = planner_module._Planner.single_type, planner_module._Planner.mixed
    plain_fill = planner_module._Planner.plain_fill

    def probe(self, *args, **kwargs):
        before = self.budget.spent
        plan = plain_fill(self, *args, **kwargs)
        if plan is not None and planner_module._placed(plan) == len(pieces):
            probes.append(self.budget.spent - before)
        return plan

    def search(self, pool, ct, **kwargs):
        if kwargs.get("quick"):
            before = self.budget.spent
            plan = single_type(self, pool, ct, **kwargs)
            if planner_module._placed(plan) == len(pieces):
                probes.append(self.budget.spent - before)
            return plan
        calls.append(("search", self.budget.units))
        return single_type(self, pool, ct, **kwargs)

    def mixing(self, *args, **kwargs):
        calls.append(("mixed", self.budget.units))
        return mixed(self, *args, **kwargs)

    monkeypatch.setattr(planner_module._Planner, "plain_fill", probe)
    monkeypatch.setattr(planner_module._Planner, "single_type", search)
    monkeypatch.setattr(planner_module._Planner, "mixed", mixing)
    # (a type of the same inner sides as one whose probe needed the fewest containers its
    # volume allows takes that plan, a probe that fills nothing: it must not make a fill
    # look cheap)
    big = ContainerType("big", "Big", (1200, 1500, 1500), (1300, 1600, 1600), None, "TOP")
    twin = ContainerType("big-b", "Big B", big.inner, (1320, 1620, 1620), None, "TOP")
    mid = ContainerType("mid", "Mid", (1000, 1500, 1500), (1100, 1600, 1600), None, "TOP")
    # (the big types' probe needs the fewest containers volume allows: no full search)
    for kinds, longest in (([CRATE, CUBE], {"search", "mixed"}), ([big, twin, mid], {"mixed"})):
        ran: list[set[str]] = []  # what ran, by limit
        for limit in (0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2):
            calls.clear()
            probes.clear()
            with frozen_clock():
                r = plan_containers(pieces, kinds, time_limit=limit)
            validate_plan(r)
            assert not r.unplaced
            assert probes  # a probe placed everything: the searches are the optional part
            for what, left in calls:
                assert left >= (2 if what == "search" else 3) * min(probes)
            ran.append({what for what, _ in calls})
        assert ran[0] == set()  # a short budget skips them
        assert ran[-1] == longest  # a long one runs them
