"""Bin fitting (packing/binfit.py): every piece once, every rule kept, fewer containers."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import packing.planner as planner_module
from packing import ContainerType, Rules, make_pieces, plan_containers, validate_plan
from packing.binfit import bin_fit
from packing.errors import PackingInputError
from packing.instances import load_shipped
from packing.planner import fits_container
from packing.strategies.base import Budget, SinglePack
from tests.packing.checks import check_pack
from tests.strategies import cargo, container_st


def _mpv_pieces(name: str, number: int):
    inst = load_shipped(name)[number]
    pieces = [
        p
        for bt in inst.box_types
        for p in make_pieces(
            str(bt.number), bt.dims, 1, rules=Rules(orientations=(0,)), item_order=bt.number
        )
    ]
    return pieces, inst.container_type()


@settings(max_examples=40, deadline=None)
@given(pieces=cargo(max_items=6), container=container_st, ratio=st.sampled_from([0.0, 0.8]))
def test_every_piece_goes_in_once_and_every_container_keeps_every_rule(pieces, container, ratio):
    pieces = [p for p in pieces if fits_container(p, container)]
    budgets = Budget(0.01), Budget(0.01)
    first = bin_fit(pieces, container, support_ratio=ratio, budget=budgets[0])
    assert first is not None
    keys = Counter(q.piece.key for content in first for q in content)
    assert keys == Counter(p.key for p in pieces)
    for content in first:
        assert content  # no empty container
        check_pack(SinglePack(placed=list(content)), [q.piece for q in content], container, ratio)
    again = bin_fit(pieces, container, support_ratio=ratio, budget=budgets[1])
    assert again is not None
    # equal units give equal plans; only the wall-clock net (a machine many times slower
    # than the reference) may stop a pass early, and then the two need not agree
    assume(not (budgets[0].cut or budgets[1].cut))
    assert [[(q.piece.key, q.position, q.extents) for q in c] for c in first] == [
        [(q.piece.key, q.position, q.extents) for q in c] for c in again
    ]


def test_a_spent_budget_still_places_every_piece():
    pieces, container = _mpv_pieces("MPV5", 0)
    plan = bin_fit(pieces, container, support_ratio=0.0, budget=Budget(1e-9))
    assert plan is not None
    assert sum(len(c) for c in plan) == len(pieces)


def test_a_piece_that_fits_no_empty_container_gives_none():
    box = ContainerType("b", "B", (500, 500, 500))
    pieces = make_pieces("a", (400, 400, 400), 2) + make_pieces("long", (900, 100, 100), 1)
    assert bin_fit(pieces, box, support_ratio=0.8, budget=Budget(0.01)) is None


def test_all_containers_open_at_once_need_fewer_than_filling_one_after_another():
    # MPV class 5, instance 2: bin fitting needs 9 (bound 8); the containers filled one
    # after another by block building needed 10 before general blocks of its boxes (one a
    # type) could fill 97 % of their cuboid, 9 since
    pieces, container = _mpv_pieces("MPV5", 1)
    fitted = bin_fit(pieces, container, support_ratio=0.0, budget=Budget(0.05))
    assert fitted is not None and len(fitted) == 9


def test_the_planner_takes_the_bin_fitted_plan_when_it_needs_fewer_containers(monkeypatch):
    # MPV class 1, instance 1, at 0.2 s: 15 bins with bin fitting, 16 without (so from 0.05
    # to 0.3 s under the prices of 2026-12-07, 14:30, but at 0.1 s, where the fill without
    # finds 15 too). (MPV class 5, instance 2, the case before, needs 9 either way
    # since its boxes, one a type, take general blocks that fill 97 % of their cuboid.)
    pieces, container = _mpv_pieces("MPV1", 0)
    with_fit = plan_containers(pieces, [container], support_ratio=0.0, time_limit=0.2)
    validate_plan(with_fit)
    monkeypatch.setattr(planner_module, "BINFIT_MAX_PIECES", 0)
    without = plan_containers(pieces, [container], support_ratio=0.0, time_limit=0.2)
    assert not with_fit.unplaced and not without.unplaced
    assert len(with_fit.containers) == 15 < len(without.containers) == 16


def test_plans_of_more_pieces_than_the_limit_skip_bin_fitting(monkeypatch):
    calls = []
    monkeypatch.setattr(
        planner_module._Planner,
        "bin_fit",
        lambda self, pieces, ct, bound=None: calls.append(len(pieces)),
    )
    box = ContainerType("b", "B", (1000, 1000, 1000))
    pieces = make_pieces("a", (300, 300, 300), planner_module.BINFIT_MAX_PIECES + 1)
    plan_containers(pieces, [box], time_limit=0.05)
    assert calls == []
    # within the limit and the probe above the bound (8 bins, its probe more): bin
    # fitting is tried
    pieces, container = _mpv_pieces("MPV5", 1)
    plan_containers(pieces, [container], support_ratio=0.0, time_limit=0.05)
    assert calls == [len(pieces)]
    # five cubes no two of which share a box: the probe's five boxes are the fewest their
    # shapes allow (their volume allows two), so bin fitting is not tried
    calls.clear()
    plan = plan_containers(make_pieces("c", (600, 600, 600), 5), [box], time_limit=0.05)
    assert len(plan.containers) == 5 and calls == []


def test_plans_of_other_strategies_and_capped_plans_are_not_bin_fitted(monkeypatch):
    calls = []
    real = planner_module.bin_fit
    monkeypatch.setattr(planner_module, "bin_fit", lambda *a, **k: calls.append(1) or real(*a, **k))
    pieces, container = _mpv_pieces("MPV5", 1)
    plan_containers(pieces, [container], support_ratio=0.0, time_limit=0.05)
    assert calls  # block building, uncapped, above the bound: bin fitted
    calls.clear()
    for strategy in ("first-fit-decreasing", "best-area-fit"):
        plan = plan_containers(
            pieces, [container], strategy=strategy, support_ratio=0.0, time_limit=0.05
        )
        assert plan.strategy == strategy and not plan.unplaced
    # a cap below the volume bound: the search decides what goes into the capped containers
    plan_containers(pieces, [container], support_ratio=0.0, time_limit=0.05, max_containers=2)
    assert calls == []


def test_bad_arguments_name_the_argument():
    pieces, container = _mpv_pieces("MPV5", 1)
    with pytest.raises(PackingInputError) as info:
        bin_fit(pieces, container, support_ratio=1.5, budget=Budget(0.01))
    assert info.value.field == "support_ratio"
    with pytest.raises(PackingInputError) as info:
        bin_fit(pieces, container, support_ratio=0.0, budget=Budget(0.01), bound=0)
    assert info.value.field == "bound"


def test_every_container_a_pass_opens_is_charged(monkeypatch):
    # bin fitting sets up a new state for every container a pass opens: each is charged
    # as one open (a spent budget: exactly one pass)
    import packing.binfit as binfit

    opened = []
    open_bin = binfit._Bins.open

    def counting(self):
        opened.append(1)
        return open_bin(self)

    monkeypatch.setattr(binfit._Bins, "open", counting)
    pieces, container = _mpv_pieces("MPV5", 1)
    with Budget.recording() as ops:
        fitted = bin_fit(pieces, container, support_ratio=0.0, budget=Budget(1e-9))
    assert fitted is not None
    assert ops["opens"] == len(opened) >= len(fitted) > 1
    assert ops["calls"] == 1  # one pass


def test_ruin_and_recreate_empties_a_container_of_a_poor_plan():
    # four half-container slabs spread over three containers (two, one, one): refilling
    # the containers with the emptiest one's slab in the pool ends with two full ones
    import random

    import packing.binfit as binfit
    from packing.state import PackState, group_pieces

    box = ContainerType("b", "B", (1000, 1000, 1000))
    pieces = make_pieces("slab", (500, 1000, 1000), 4, rules=Rules(orientations=(0,)))
    types = group_pieces(pieces)
    empty = PackState(box, types, 0.0)
    poor = [empty.copy() for _ in range(3)]
    budget = Budget(0.05)
    for state, n in zip(poor, (2, 1, 1), strict=True):
        _, left = binfit._fill_into([state], [types[0]] * n, budget)
        assert not left
    fewer = binfit._one_fewer(poor, empty, budget, 1, random.Random(0))
    assert [st.placed_volume for st in fewer] == [2 * 500 * 1000 * 1000] * 2
    assert sum(len(c) for c in binfit._contents(fewer)) == 4


def _record_refills(monkeypatch):
    """The pieces of every refill of bin fitting (``_fill_into``) from here on, in order."""
    import packing.binfit as binfit

    sequences = []
    fill_into = binfit._fill_into

    def recording(states, sequence, budget):
        sequences.append(list(sequence))
        return fill_into(states, sequence, budget)

    monkeypatch.setattr(binfit, "_fill_into", recording)
    return sequences


def test_ruin_and_recreate_is_charged_per_piece_it_refills(monkeypatch):
    # every refill step pays REPACK_PIECE for each piece it takes up, besides the prices
    # of its placements: no step is free work
    import packing.binfit as binfit

    refills = _record_refills(monkeypatch)
    spent = []
    spend = Budget.spend

    def recording(self, units=1):
        spent.append(units)
        spend(self, units)

    monkeypatch.setattr(Budget, "spend", recording)
    pieces, container = _mpv_pieces("MPV5", 1)
    fitted = bin_fit(pieces, container, support_ratio=0.0, budget=Budget(0.3))
    assert fitted is not None and sum(len(c) for c in fitted) == len(pieces)
    taken = [len(seq) for seq in refills]
    steps = [n * binfit.REPACK_PIECE for n in taken[:-1] or taken]
    assert taken and spent[: len(steps)] == steps


def test_ruin_and_recreate_refills_in_each_of_the_orders(monkeypatch):
    # unshaken, every refill takes its pieces largest first by one of ORDERS' keys, and
    # the steps draw every key (not volume alone)
    import packing.binfit as binfit

    monkeypatch.setattr(binfit, "SHAKE", 0.0)
    sequences = _record_refills(monkeypatch)
    pieces, container = _mpv_pieces("MPV5", 1)
    fitted = bin_fit(pieces, container, support_ratio=0.0, budget=Budget(0.3))
    assert fitted is not None and sum(len(c) for c in fitted) == len(pieces)
    assert len(sequences) > 10

    def keys_sorting(seq):
        return {
            name for name, key in binfit.ORDERS if all(key(a) >= key(b) for a, b in pairwise(seq))
        }

    matched = [keys_sorting(seq) for seq in sequences]
    assert all(matched)
    # every key orders some refill that no other key does
    assert {m for ms in matched if len(ms) == 1 for m in ms} == {n for n, _ in binfit.ORDERS}
