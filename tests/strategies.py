"""Hypothesis strategies shared by the test suite: random cargo sets, rules, containers."""

from __future__ import annotations

from hypothesis import strategies as st

from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.model import ContainerType, Piece, Rules, make_pieces

rules_st = st.builds(
    Rules,
    orientations=st.sampled_from([FLOOR_ORIENTATIONS, ALL_ORIENTATIONS, (0,)]),
    stack_on_top=st.booleans(),
    stack_under=st.booleans(),
    fragile=st.booleans(),
    manual_order=st.booleans(),
    unload_priority=st.integers(0, 2),
)

plain_rules_st = st.just(Rules())


@st.composite
def cargo(draw, max_items: int = 5, rules=rules_st) -> list[Piece]:  # type: ignore[no-untyped-def]
    """A list of pieces: up to ``max_items`` items of 1..12 identical pieces each."""
    n = draw(st.integers(1, max_items))
    pieces: list[Piece] = []
    for i in range(n):
        dims = (draw(st.integers(50, 400)), draw(st.integers(50, 400)), draw(st.integers(50, 400)))
        pieces += make_pieces(
            f"item{i}",
            dims,
            draw(st.integers(1, 12)),
            weight_kg=draw(st.sampled_from([0.0, 0.5, 2.0, 7.5])),
            rules=draw(rules),
            item_order=i,
        )
    return pieces


container_st = st.builds(
    ContainerType,
    slug=st.just("c"),
    title=st.just("C"),
    inner=st.tuples(st.integers(400, 1200), st.integers(300, 900), st.integers(300, 900)),
    max_payload_kg=st.sampled_from([None, 30.0, 100.0]),
    loading_side=st.sampled_from(["TOP", "FRONT", "SIDE"]),
)


@st.composite
def multidrop_pallets(draw, max_pallets: int = 24, max_drops: int = 3):  # type: ignore[no-untyped-def]
    """Loaded EUR pallets (1200 × 800 mm deck) for up to ``max_drops`` stops: each with a
    loaded height of 300..1800 mm, a gross mass of 30..1000 kg, an unload priority
    0..max_drops−1 and its centre of gravity anywhere on the deck's middle half. A pallet
    of priority p ≥ 1 may hold a second, later drop q < p too: a share of 10..90 % of its
    mass (the tare with it) with a centre of gravity of its own."""
    from packing.vehicles import Drop, Pallet

    def cog() -> tuple[float, float]:
        return (float(draw(st.integers(300, 900))), float(draw(st.integers(200, 600))))

    n = draw(st.integers(1, max_pallets))
    out = []
    for i in range(n):
        dims = (1200, draw(st.integers(300, 1800)), 800)
        gross = float(draw(st.integers(30, 1000)))
        prio = draw(st.integers(0, max_drops - 1))
        if prio >= 1 and draw(st.booleans()):
            later = draw(st.integers(0, prio - 1))
            share = draw(st.integers(10, 90)) / 100 * gross
            drops = (Drop(prio, gross - share, cog()), Drop(later, share, cog()))
            (ax, az), (bx, bz) = drops[0].cog_mm, drops[1].cog_mm
            whole = (
                (ax * (gross - share) + bx * share) / gross,
                (az * (gross - share) + bz * share) / gross,
            )
            out.append(Pallet(i, dims, gross, prio, whole, drops))
        else:
            out.append(Pallet(i, dims, gross, prio, cog()))
    return out


#: Containers small beside :func:`cargo`'s pieces, so that few orders fit whole.
small_container_st = st.builds(
    ContainerType,
    slug=st.just("s"),
    title=st.just("S"),
    inner=st.tuples(st.integers(300, 600), st.integers(200, 500), st.integers(200, 500)),
    max_payload_kg=st.sampled_from([None, 10.0, 30.0]),
    loading_side=st.sampled_from(["TOP", "FRONT", "SIDE"]),
)
