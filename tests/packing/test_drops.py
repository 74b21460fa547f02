"""Pallets holding several drops only where that saves a pallet (packing.drops)."""

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from packing import validate_plan
from packing.drops import drop_span, mix_drops, spans_apart
from packing.model import ContainerType, Rules, make_pieces
from packing.planner import plan_containers
from packing.result import PackResult

# an EUR pallet: 1200 × 800 deck, loads up to 1,656 mm high, loaded from the top
EUR = ContainerType(
    "eur", "EUR pallet", (1200, 1656, 800), max_payload_kg=1000, tare_kg=25, loading_side="TOP"
)
# 600 × 400 × 400 mm cartons (L × H × W), upright: four per layer, four layers
# (1,600 mm): 16 per pallet
CARTON = (600, 400, 400)


def _by_drop(quantities: dict[int, int], kg: float = 20.0) -> PackResult:
    """Each drop palletized on its own, the first stop first, indexes running on."""
    containers, index = [], 0
    for prio in sorted(quantities, reverse=True):
        pieces = make_pieces(
            f"drop{prio}",
            CARTON,
            quantities[prio],
            weight_kg=kg,
            rules=Rules.from_flags(allow_tilt=False, unload_priority=prio),
            item_order=prio,
        )
        r = plan_containers(pieces, [EUR], time_limit=1.0, container_offset=index)
        assert not r.unplaced
        containers += r.containers
        index += len(r.containers)
    return PackResult(containers, [], "by drop", 0.8)


def _drops(load) -> set[int]:  # type: ignore[no-untyped-def]
    return {p.piece.rules.unload_priority for p in load.placements}


def _no_later_drop_above_an_earlier_one(load) -> None:  # type: ignore[no-untyped-def]
    """Written out again: a piece unloaded later never lies above one unloaded earlier
    whose footprint it overlaps (the pallet is unloaded from the top)."""
    for a in load.placements:
        for b in load.placements:
            (ax, ay, az), (bx, by, bz) = a.position, b.position
            overlap = (
                ax < bx + b.extents[0]
                and bx < ax + a.extents[0]
                and az < bz + b.extents[2]
                and bz < az + a.extents[2]
            )
            if overlap and by >= ay + a.extents[1]:
                assert b.piece.rules.unload_priority >= a.piece.rules.unload_priority


def test_two_half_pallets_of_two_drops_become_one():
    separate = _by_drop({2: 6, 1: 6})
    assert len(separate.containers) == 2
    mixed = mix_drops(separate)
    [pallet] = mixed.containers
    assert pallet.index == 0 and _drops(pallet) == {1, 2}
    assert drop_span(pallet) == (1, 2)
    validate_plan(mixed)  # bounds, overlap, support, payload, unload order, load steps
    _no_later_drop_above_an_earlier_one(pallet)
    # the later drop lies lower: its pieces are on the deck
    assert min(p.position[1] for p in pallet.placements if p.piece.rules.unload_priority == 1) == 0
    # the input is left as it was
    assert len(separate.containers) == 2 and all(len(_drops(c)) == 1 for c in separate.containers)
    # the try that combined them is work of the plan's, and no net cut it
    assert mixed.work_units > separate.work_units
    assert not mixed.wall_cut


def test_mixing_says_when_a_safety_net_cut_a_try(monkeypatch):
    import packing.drops

    plan = packing.drops.plan_containers

    def cut(*args, **kwargs):  # a try whose search a safety net stopped
        r = plan(*args, **kwargs)
        r.wall_cut = True
        return r

    separate = _by_drop({2: 6, 1: 6})
    assert not separate.wall_cut
    monkeypatch.setattr(packing.drops, "plan_containers", cut)
    assert mix_drops(separate).wall_cut


def test_two_drops_filling_most_of_a_pallet_each_stay_apart():
    separate = _by_drop({2: 13, 1: 12})
    mixed = mix_drops(separate)
    assert [sorted(_drops(c)) for c in mixed.containers] == [[2], [1]]
    assert [c.index for c in mixed.containers] == [0, 1]


def test_full_pallets_stay_and_the_tails_combine():
    # 16 + 5 of drop 2, 16 + 6 of drop 1: the two tails (11 cartons) share a pallet
    separate = _by_drop({2: 21, 1: 22})
    assert len(separate.containers) == 4
    mixed = mix_drops(separate)
    assert len(mixed.containers) == 3
    assert sorted(len(_drops(c)) for c in mixed.containers) == [1, 1, 2]
    validate_plan(mixed)
    assert [c.index for c in mixed.containers] == [0, 1, 2]
    # each item keeps its instances 0..n-1, once each
    for item, n in (("drop2", 21), ("drop1", 22)):
        seen = sorted(p.piece.instance for p in mixed.placements if p.piece.item_id == item)
        assert seen == list(range(n))


def test_a_mixed_pallet_never_spans_another_pallets_drop():
    # drops 3 and 1 would share a pallet, but a full pallet of drop 2 would then be
    # behind a pallet still holding drop 1 at stop 2
    separate = _by_drop({3: 4, 2: 16, 1: 4})
    assert [len(c.placements) for c in separate.containers] == [4, 16, 4]
    mixed = mix_drops(separate)
    assert [sorted(_drops(c)) for c in mixed.containers] == [[3], [2], [1]]
    # with drop 2 on part of a pallet, drops 3 and 2 combine first; drop 2 then has no
    # pallet of its own, so drop 1 joins them
    chained = mix_drops(_by_drop({3: 4, 2: 4, 1: 4}))
    assert len(chained.containers) == 1
    validate_plan(chained)


def test_spans_apart():
    assert spans_apart((2, 3), (1, 2)) and spans_apart((1, 2), (2, 3))
    assert spans_apart((2, 2), (2, 2)) and spans_apart((2, 3), (3, 3))
    assert not spans_apart((1, 3), (2, 2))
    assert not spans_apart((1, 2), (1, 2))  # neither comes off before the other is touched


@settings(max_examples=10, deadline=None)
@given(quantities=st.dictionaries(st.integers(0, 3), st.integers(1, 20), min_size=1, max_size=4))
def test_mixing_keeps_every_piece_and_never_adds_a_pallet(quantities):
    separate = _by_drop(quantities, kg=15.0)
    mixed = mix_drops(separate, time_limit=2.0)
    assert len(mixed.containers) <= len(separate.containers)
    assert Counter(p.piece.key for p in mixed.placements) == Counter(
        p.piece.key for p in separate.placements
    )
    assert [c.index for c in mixed.containers] == list(range(len(mixed.containers)))
    validate_plan(mixed)
    spans = [drop_span(c) for c in mixed.containers]
    assert all(spans_apart(a, b) for a, b in combinations(spans, 2))
    # a pallet holding several drops exists only where the drops' pallets were combined
    mixed_pallets = sum(a != b for a, b in spans)
    assert mixed_pallets <= len(separate.containers) - len(mixed.containers)
    for c in mixed.containers:
        _no_later_drop_above_an_earlier_one(c)
