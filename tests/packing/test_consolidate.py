"""Fewer containers after a plan is made (packing/consolidate.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import ContainerType, Rules, make_pieces, plan_containers, validate_plan
from packing import consolidate as consolidate_module
from packing.consolidate import (
    CHECK_UNITS,
    PAIR_UNITS,
    _Consolidator,
    consolidate,
    container_is_valid,
    plan_key,
)
from packing.errors import PackingInputError
from packing.model import Piece
from packing.strategies import clone, get_strategy
from packing.strategies.base import Budget, Packed, SinglePack
from tests.strategies import cargo, container_st

EUR = ContainerType("eur-1200x800", "EUR pallet", (1200, 1656, 800), (1200, 1800, 800), 1000.0)
#: Plan time limit [s]: the plans need far less, and a busy machine does not cut them short.
LIMIT = 20.0
PUR = ContainerType(
    "pur-pallet-1000l", "PUR pallet", (1180, 1150, 760), (1480, 1600, 1200), 800.0, "FRONT"
)


def mixed_cargo() -> list[Piece]:
    """6 glass boxes (nothing on top), 4 engines of 60 kg (floor only) and 20 cartons."""
    return (
        make_pieces("glass", (400, 300, 300), 6, weight_kg=4.0, rules=Rules(stack_on_top=False))
        + make_pieces(
            "engine",
            (500, 400, 400),
            4,
            weight_kg=60.0,
            rules=Rules(stack_under=False),
            item_order=1,
        )
        + make_pieces("carton", (400, 200, 300), 20, weight_kg=5.0, item_order=2)
    )


def tail_cargo() -> list[Piece]:
    """22 pieces of four sizes, the first floor only: the planner fills three PUR boxes one
    after another, where consolidation repacks them into two."""
    return (
        make_pieces("a", (300, 400, 500), 8, weight_kg=20.0, rules=Rules(stack_under=False))
        + make_pieces("b", (600, 500, 200), 5, weight_kg=20.0, item_order=1)
        + make_pieces("c", (700, 200, 400), 6, weight_kg=1.0, item_order=2)
        + make_pieces("d", (600, 200, 200), 3, weight_kg=60.0, item_order=3)
    )


def counting_pack(ratio: float = 0.8):  # type: ignore[no-untyped-def]
    """A pack function of the default strategy and the list of the sizes it was asked for."""
    calls: list[int] = []
    proto = get_strategy(None)

    def pack(pieces: list[Piece], ct: ContainerType, seconds: float) -> SinglePack:
        calls.append(len(pieces))
        return clone(proto, time_limit=seconds).pack(pieces, ct, support_ratio=ratio)

    return pack, calls


def alone(pieces: list[Piece], ct: ContainerType, ratio: float = 0.8) -> list:  # type: ignore[type-arg]
    """A plan of one container per piece (each packed by the strategy's greedy pass)."""
    plan = []
    for p in pieces:
        packed = get_strategy(None, time_limit=1e-6).pack([p], ct, support_ratio=ratio).placed
        assert len(packed) == 1
        plan.append((ct, packed))
    return plan


def keys(plan) -> Counter:  # type: ignore[no-untyped-def,type-arg]
    return Counter(q.piece.key for _, content in plan for q in content)


#: Cubes of 1 m (inside) and of 550 mm, the smaller one holding no 600 mm cube.
BIG = ContainerType("big", "Big", (1000, 1000, 1000), (1100, 1100, 1100))
SMALL = ContainerType("small", "Small", (550, 550, 550), (650, 650, 650))


def costly_pack(allowance: float):  # type: ignore[no-untyped-def]
    """The default strategy, but each search of several pieces is charged a third of
    ``allowance`` (or all its budget, when that is less); the sizes of those searches and
    of every call."""
    pack, calls = counting_pack()
    searches: list[int] = []

    def costly(pieces: list[Piece], ct: ContainerType, seconds: float) -> SinglePack:
        out = pack(pieces, ct, seconds)
        if len(pieces) > 1:
            searches.append(len(pieces))
            out.work_units = min(int(allowance * Budget.RATE) // 3, int(seconds * Budget.RATE))
        return out

    return costly, searches, calls


def units_at_downsizing(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """The units each consolidation starts downsizing with, recorded from now on."""
    seen: list[int] = []
    downsize = _Consolidator.downsize

    def recorded(self, plan):  # type: ignore[no-untyped-def]
        seen.append(self.units)
        return downsize(self, plan)

    monkeypatch.setattr(_Consolidator, "downsize", recorded)
    return seen


# --------------------------------------------------------------------------- the two plans users measured


def test_mixed_cargo_goes_on_one_eur_pallet():
    result = plan_containers(mixed_cargo(), [EUR], time_limit=LIMIT)
    assert len(result.containers) == 1
    assert not result.unplaced and len(result.placements) == 30
    validate_plan(result)
    engines = [p for p in result.placements if p.piece.item_id == "engine"]
    assert all(p.position[1] == 0 for p in engines)


def test_one_search_puts_the_mixed_cargo_on_one_eur_pallet():
    # the cargo fills 64 % of the pallet: the search alone finds the layout (engines 2 × 2
    # on the floor), not only the consolidation of a plan of two
    result = plan_containers(mixed_cargo(), [EUR], max_containers=1, time_limit=LIMIT)
    assert not result.unplaced and len(result.placements) == 30
    validate_plan(result)


def test_mixed_cargo_needs_two_pur_pallet_boxes():
    # an engine's 500 × 400 mm footprint goes twice on a 1180 × 760 mm floor, never three
    # times: two boxes are the fewest, and they suffice
    result = plan_containers(mixed_cargo(), [PUR], time_limit=LIMIT)
    assert len(result.containers) == 2
    assert not result.unplaced and len(result.placements) == 30
    validate_plan(result)
    for load in result.containers:
        engines = [p for p in load.placements if p.piece.item_id == "engine"]
        assert len(engines) == 2 and all(p.position[1] == 0 for p in engines)


def test_consolidate_limit_sets_the_steps_budget():
    """With ``consolidate_limit=0`` the step buys no search: the planner's own plan stays
    (more boxes than the two a consolidated plan needs); a negative limit names itself."""
    plain = plan_containers(tail_cargo(), [PUR], time_limit=LIMIT, consolidate_limit=0.0)
    assert len(plain.containers) > 2 and not plain.unplaced
    full = plan_containers(tail_cargo(), [PUR], time_limit=LIMIT, consolidate_limit=LIMIT)
    assert len(full.containers) == 2 and not full.unplaced
    validate_plan(full)
    with pytest.raises(PackingInputError) as info:
        plan_containers(mixed_cargo(), [PUR], consolidate_limit=-1.0)
    assert info.value.field == "consolidate_limit"


def test_a_plan_at_the_fewest_containers_buys_no_merging_search():
    """Four pieces that need four containers by volume: no move can save one, so the
    step goes straight to downsizing (one type: nothing to try) and spends nothing."""
    ct = ContainerType("c", "C", (500, 250, 250))
    plan = alone(make_pieces("a", (500, 250, 250), 4), ct)
    pack, calls = counting_pack()
    spent: list[int] = []
    out = consolidate(
        plan, [ct], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0, on_spent=spent.append
    )
    assert len(out) == 4 and not calls and spent == [0]


def test_the_steps_work_units_count_in_the_plans():
    """The plan reports the units of its consolidation step too: a step that empties a
    container spends some, and the plan's units grow by them."""
    without = plan_containers(tail_cargo(), [PUR], time_limit=LIMIT, consolidate_limit=0.0)
    within = plan_containers(tail_cargo(), [PUR], time_limit=LIMIT, consolidate_limit=LIMIT)
    assert len(within.containers) < len(without.containers)
    assert within.work_units > without.work_units


def test_checking_a_content_is_charged_by_its_pairs(monkeypatch):
    """The rule check of a repacked container compares its pieces pairwise: a downsize of
    1,000 pieces is charged for the pairs, and an allowance that cannot pay for the check
    declines the move rather than run past it (the check was charged per piece only, a
    tenth of its work on such a content)."""
    big = ContainerType("big", "Big", (2000, 1000, 1000), (2100, 1100, 1100))
    small = ContainerType("small", "Small", (1000, 500, 500), (1100, 600, 600))
    n = 1000
    plan = [(big, get_strategy(None).pack(make_pieces("cube", (50, 50, 50), n), big).placed)]
    assert len(plan[0][1]) == n
    pack, _ = counting_pack()
    check = CHECK_UNITS * n + PAIR_UNITS * n * n
    spent: list[int] = []
    out = consolidate(
        plan, [big, small], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0,
        on_spent=spent.append,
    )  # fmt: skip
    assert [ct.slug for ct, _ in out] == ["small"] and keys(out) == keys(plan)
    assert spent[0] >= check
    spent.clear()
    checked: list[int] = []
    monkeypatch.setattr(
        consolidate_module,
        "container_is_valid",
        lambda ct, content, ratio: checked.append(len(content)) or True,
    )
    tight = check / 2 / Budget.RATE
    out = consolidate(
        plan, [big, small], pack, support_ratio=0.8, search_limit=0.2,
        allowance=tight, on_spent=spent.append,
    )  # fmt: skip
    assert [ct.slug for ct, _ in out] == ["big"] and checked == []
    # what the searches spent stays counted, past the allowance or not
    assert spent[0] >= int(tight * Budget.RATE)


# --------------------------------------------------------------------------- the moves


def test_two_half_empty_containers_are_merged():
    ct = ContainerType("c", "C", (1000, 500, 500))
    pieces = make_pieces("a", (500, 250, 250), 4)
    plan = alone(pieces, ct)  # four containers of one piece each
    pack, calls = counting_pack()
    out = consolidate(plan, [ct], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0)
    assert len(out) == 1 and keys(out) == keys(plan)
    assert container_is_valid(ct, out[0][1], 0.8)
    assert calls


def test_the_last_container_goes_into_a_smaller_type():
    big = ContainerType("big", "Big", (1200, 1000, 800), (1300, 1100, 900))
    small = ContainerType("small", "Small", (600, 400, 400), (700, 500, 500))
    fill = make_pieces("fill", (1200, 1000, 800), 1)
    rest = make_pieces("rest", (300, 200, 200), 3, item_order=1)
    plan = [*alone(fill, big), (big, get_strategy(None).pack(rest, big).placed)]
    pack, _ = counting_pack()
    out = consolidate(plan, [big, small], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0)
    assert [ct.slug for ct, _ in out] == ["big", "small"]
    assert keys(out) == keys(plan)
    assert container_is_valid(small, out[1][1], 0.8)


def test_fruitless_merges_leave_the_downsizing_its_share(monkeypatch):
    """Moves that cannot remove a container leave the units kept for downsizing: four
    cubes of 600 mm (no two share a 1 m container) and one of 500 mm, each alone, with
    searches of several pieces that cost a third of the allowance each (or all their
    budget, when that is less). The downsizing starts with the kept fifth, less at most
    what the last search's setting up is charged beside its budget; before, the merges
    that failed spent the whole allowance and the 500 mm cube stayed in a 1 m container."""
    plan = alone(make_pieces("a", (600, 600, 600), 4), BIG)
    plan.append(alone(make_pieces("b", (500, 500, 500), 1, item_order=1), BIG)[0])
    allowance = 0.3  # a third of it is less than the search limit of 0.2 s
    costly, searches, calls = costly_pack(allowance)
    at_downsizing = units_at_downsizing(monkeypatch)
    # the bound of the pieces' shapes would tell that no move can remove a container (no
    # two of these cubes share one): without it, the moves are tried
    monkeypatch.setattr(consolidate_module, "shape_bound", lambda pieces, ct: 0)
    out = consolidate(
        plan, [BIG, SMALL], costly, support_ratio=0.8, search_limit=0.2, allowance=allowance
    )
    assert len(searches) >= 3  # the merges were tried, and failed
    assert [ct.slug for ct, _ in out] == ["big"] * 4 + ["small"]
    assert keys(out) == keys(plan)
    assert container_is_valid(SMALL, out[4][1], 0.8)
    assert calls[-1] == 1  # the downsizing's probe
    kept = consolidate_module.DOWNSIZE_SHARE * allowance * Budget.RATE
    setting_up = consolidate_module.CALL_UNITS + 2 * consolidate_module.PIECE_UNITS
    assert kept - setting_up <= at_downsizing[0] <= kept


def test_mixed_sizes_hold_what_two_small_containers_held():
    small = ContainerType("small", "Small", (500, 500, 500), (600, 600, 600))
    large = ContainerType("large", "Large", (1000, 500, 500), (1100, 600, 600))
    pieces = make_pieces("cube", (500, 500, 500), 2)
    plan = alone(pieces, small)
    pack, _ = counting_pack()
    out = consolidate(
        plan, [small, large], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0
    )
    assert [ct.slug for ct, _ in out] == ["large"] and keys(out) == keys(plan)


def test_two_containers_repacked_gather_their_volume_in_one():
    # 500 mm alone and 400 + 300 mm beside each other: repacked, 500 + 400 go together
    # and 300 stays; no container goes, but the emptier one holds less (a step closer)
    ct = ContainerType("c", "C", (1000, 500, 500))
    pieces = [
        *make_pieces("a", (500, 500, 500), 1),
        *make_pieces("b", (400, 500, 500), 1, item_order=1),
        *make_pieces("c", (300, 500, 500), 1, item_order=2),
    ]
    greedy = get_strategy(None, time_limit=1e-6)
    plan = [(ct, greedy.pack(pieces[:1], ct).placed), (ct, greedy.pack(pieces[1:], ct).placed)]
    pack, _ = counting_pack()
    c = _Consolidator([ct], pack, 0.8, 0.2, 1.0, None)
    out = c.concentrate(plan, 0)
    assert out is not None and keys(out) == keys(plan)
    held = sorted(sum(q.piece.volume for q in content) for _, content in out)
    assert held == [300 * 500 * 500, 900 * 500 * 500]
    assert all(container_is_valid(ct, content, 0.8) for _, content in out)


def test_a_plan_that_cannot_improve_is_returned_as_given():
    ct = ContainerType("c", "C", (500, 500, 500))
    plan = alone(make_pieces("cube", (500, 500, 500), 3), ct)
    pack, _ = counting_pack()
    out = consolidate(plan, [ct], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0)
    assert out == plan


def test_no_allowance_buys_no_search():
    ct = ContainerType("c", "C", (1000, 500, 500))
    plan = alone(make_pieces("a", (500, 250, 250), 4), ct)
    pack, calls = counting_pack()
    out = consolidate(plan, [ct], pack, support_ratio=0.8, search_limit=0.2, allowance=0.0)
    assert out == plan and calls == []


def test_a_passed_deadline_stops_the_step():
    ct = ContainerType("c", "C", (1000, 500, 500))
    plan = alone(make_pieces("a", (500, 250, 250), 4), ct)
    pack, calls = counting_pack()
    out = consolidate(
        plan, [ct], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0, cpu_deadline=0.0
    )
    assert out == plan and calls == []


def test_a_packing_that_breaks_a_rule_is_refused():
    ct = ContainerType("c", "C", (1000, 500, 500))
    pieces = make_pieces("a", (500, 250, 250), 2)
    plan = alone(pieces, ct)

    def overlapping(ps: list[Piece], c: ContainerType, seconds: float) -> SinglePack:
        return SinglePack([Packed(p, 0, (0, 0, 0), p.dims) for p in ps])

    out = consolidate(plan, [ct], overlapping, support_ratio=0.8, search_limit=0.2, allowance=1.0)
    assert out == plan
    assert not container_is_valid(ct, overlapping(pieces, ct, 0.1).placed, 0.8)


@pytest.mark.parametrize("door", ["TOP", "FRONT", "SIDE"])
def test_merged_containers_keep_unload_priority_and_manual_order(door):
    ct = ContainerType("c", "C", (1200, 600, 800), loading_side=door)
    pieces = make_pieces(
        "late", (400, 300, 400), 3, rules=Rules(unload_priority=0, manual_order=True)
    ) + make_pieces(
        "early", (400, 300, 400), 3, rules=Rules(unload_priority=1, manual_order=True), item_order=1
    )
    result = plan_containers(pieces, [ct], time_limit=2.0)
    assert len(result.containers) == 1
    validate_plan(result)


# --------------------------------------------------------------------------- properties


@settings(max_examples=25)
@given(pieces=cargo(max_items=3), container=container_st, ratio=st.sampled_from([0.0, 0.8]))
def test_consolidating_keeps_every_piece_and_rule_and_never_worsens(pieces, container, ratio):
    fits = [
        p
        for p in pieces
        if get_strategy(None, time_limit=1e-6).pack([p], container, support_ratio=ratio).placed
    ][:12]
    plan = alone(fits, container, ratio)
    pack, _ = counting_pack(ratio)
    out = consolidate(
        plan, [container], pack, support_ratio=ratio, search_limit=0.02, allowance=0.05
    )
    assert keys(out) == keys(plan)
    assert out == plan or plan_key(out) < plan_key(plan)
    for ct, content in out:
        assert content and container_is_valid(ct, content, ratio)


@settings(max_examples=15)
@given(pieces=cargo(max_items=3), container=container_st)
def test_plans_stay_valid_with_the_step(pieces, container):
    result = plan_containers(pieces, [container], time_limit=0.3)
    validate_plan(result)
    placed = {p.piece.key for p in result.placements} | {u.piece.key for u in result.unplaced}
    assert len(placed) == len(pieces)


def test_a_redistribution_stops_once_containers_in_a_row_take_nothing():
    """Eight containers of one 600 mm cube each and a ninth of two 100 mm cubes offered to
    them: the third container offered takes one of the two, the others none. The offers
    stop once REDISTRIBUTE_MISSES containers in a row after that one took nothing, and the
    cube left goes back into the ninth container, which then holds less."""
    ct = ContainerType("c", "C", (1000, 1000, 1000))
    plan = alone(make_pieces("a", (600, 600, 600), 8), ct)
    small = make_pieces("p", (100, 100, 100), 2, item_order=1)
    plan.append((ct, get_strategy(None).pack(small, ct).placed))
    pack, _ = counting_pack()
    offers: list[int] = []

    def some(pieces: list[Piece], ct: ContainerType, seconds: float) -> SinglePack:
        own = [p for p in pieces if p.item_id == "a"]
        if not own:  # the cube left, back into its container
            return pack(pieces, ct, seconds)
        offers.append(len(pieces))
        pool = [p for p in pieces if p.item_id == "p"]
        return pack(own + (pool[:1] if len(offers) == 3 else []), ct, seconds)

    c = _Consolidator([ct], some, 0.8, 0.2, 10.0, None)
    out = c.redistribute(plan, 8)
    assert offers == [3, 3, 3] + [2] * consolidate_module.REDISTRIBUTE_MISSES
    assert out is not None and keys(out) == keys(plan)
    assert [len(content) for _, content in out] == [1, 1, 2, 1, 1, 1, 1, 1, 1]


def test_nothing_is_kept_for_downsizing_when_no_content_fits_a_smaller_type(monkeypatch):
    """Four 600 mm cubes, each alone in a 1 m container, and a smaller type of 550 mm that
    none of them fits by volume: the moves may spend the whole allowance, and downsizing
    starts with what they left (here nothing), as before the units were kept."""
    plan = alone(make_pieces("a", (600, 600, 600), 4), BIG)
    allowance = 0.3
    costly, _, _ = costly_pack(allowance)
    at_downsizing = units_at_downsizing(monkeypatch)
    monkeypatch.setattr(consolidate_module, "shape_bound", lambda pieces, ct: 0)
    out = consolidate(
        plan, [BIG, SMALL], costly, support_ratio=0.8, search_limit=0.2, allowance=allowance
    )
    assert [ct.slug for ct, _ in out] == ["big"] * 4 and keys(out) == keys(plan)
    assert at_downsizing[0] <= 0


def test_no_move_is_tried_when_the_pieces_shapes_allow_no_fewer_containers(monkeypatch):
    """Four 600 mm cubes and one of 500 mm, each alone in a 1 m container: their volume
    fits in one, but no two of them share one, so five are the fewest. No merge is tried
    and the downsizing starts with the whole allowance, not the kept fifth."""
    plan = alone(make_pieces("a", (600, 600, 600), 4), BIG)
    plan.append(alone(make_pieces("b", (500, 500, 500), 1, item_order=1), BIG)[0])
    allowance = 0.3
    costly, searches, _ = costly_pack(allowance)
    at_downsizing = units_at_downsizing(monkeypatch)
    out = consolidate(
        plan, [BIG, SMALL], costly, support_ratio=0.8, search_limit=0.2, allowance=allowance
    )
    assert searches == []  # no search of several pieces: no merge was tried
    assert [ct.slug for ct, _ in out] == ["big"] * 4 + ["small"]
    assert keys(out) == keys(plan)
    assert at_downsizing == [int(allowance * Budget.RATE)]


def test_a_smaller_type_that_carries_more_is_not_bounded_by_the_largest_ones_payload():
    """Three 900 kg pieces, each alone in a small container that carries 30 t, and a large
    type that takes the small one inside but carries 1 t: one small container holds them
    all. The bound of the shapes in the largest type is a bound for the mix; its payload
    is not."""
    big = ContainerType("big", "Big", (2000, 2000, 2000), max_payload_kg=1000)
    small = ContainerType("small", "Small", (1000, 1000, 1000), max_payload_kg=30000)
    plan = alone(make_pieces("a", (100, 100, 100), 3, weight_kg=900.0), small)
    pack, _ = counting_pack()
    out = consolidate(plan, [big, small], pack, support_ratio=0.8, search_limit=0.2, allowance=1.0)
    assert [ct.slug for ct, _ in out] == ["small"] and keys(out) == keys(plan)


def _counting_spent(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    """Calls of :meth:`_Consolidator.spent` (the moves ask it before each try), counted."""
    calls: list[int] = []
    spent = _Consolidator.spent

    def counted(self):  # type: ignore[no-untyped-def]
        calls.append(1)
        return spent(self)

    monkeypatch.setattr(_Consolidator, "spent", counted)
    return calls


def test_a_merge_stops_at_the_first_container_too_full_to_join_the_emptied_one(monkeypatch):
    """Thirty 1 m containers each holding one 900 mm cube: no two fit in one by volume, so
    merging any of them tries no other (it once built every pair's pieces and asked the
    clocks for each, uncharged: seconds of CPU on plans of hundreds of containers)."""
    plan = alone(make_pieces("a", (900, 900, 900), 30), BIG)
    pack, calls = counting_pack()
    c = _Consolidator([BIG, SMALL], pack, 0.8, 0.2, 10.0, None)
    asked = _counting_spent(monkeypatch)
    assert c.merge(plan, 0) is None
    assert calls == [] and asked == []
    # a cube of 100 mm joins one of them, beside its cube
    plan.append((BIG, alone(make_pieces("b", (100, 100, 100), 1, item_order=1), BIG)[0][1]))
    merged = c.merge(plan, 30)
    assert merged is not None and len(merged) == 30 and keys(merged) == keys(plan)


def test_a_concentration_ends_once_what_is_left_cannot_pay_for_its_search(monkeypatch):
    """Thirty containers of one 500 mm cube each and units left that pay for no search of
    two pieces: concentrating the first tries one pair, not the other twenty-nine."""
    plan = alone(make_pieces("a", (500, 500, 500), 30), BIG)
    pack, calls = counting_pack()
    setting_up = consolidate_module.CALL_UNITS + 2 * consolidate_module.PIECE_UNITS
    c = _Consolidator([BIG], pack, 0.8, 0.2, (setting_up - 1) / Budget.RATE, None)
    asked = _counting_spent(monkeypatch)
    assert c.concentrate(plan, 0) is None
    assert calls == [] and c.unpaid
    assert len(asked) <= 3
    # with the units for it, the first pair is packed into one container
    rich = _Consolidator([BIG], pack, 0.8, 0.2, 10.0, None)
    out = rich.concentrate(plan, 0)
    assert out is not None and len(out) == 29 and keys(out) == keys(plan)
