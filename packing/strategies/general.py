"""General blocks: blocks of several piece types, made by putting two blocks side by side
or one on the other, kept where they fill nearly all of their bounding cuboid.

With many box types and few pieces of each, a simple block (``nx × ny × nz`` copies of one
piece) is mostly a single piece, and pieces of different sizes leave gaps and uneven tops
between them. Fanslau & Bortfeldt (2010, "A tree search algorithm for solving the
container loading problem", INFORMS J. Computing 22(2)) combine blocks into *general
blocks* whose pieces fill at least 98 % of their cuboid; the tree search then offers them
beside the simple blocks. Here a general block is two blocks (simple or general) of equal
height side by side along X or Z, or a block on another whose top is flat and wholly
covers the upper block's base, so every piece of it is fully supported; two rounds of
combination give blocks of up to four simple blocks.

A general block is placed as its simple blocks (:meth:`packing.state.PackState.place`
takes them together), so the state, the rules and the results see only simple blocks:
the support of the bottom ones is checked where the general block goes, the upper ones
rest wholly on them.

Only pieces that may carry others and need not stand on the floor take part, and no
general block is made for cargo with unload priorities or MANUAL order (their checks
would need the block's pieces one by one).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from packing.state import Block, PackState, PieceType
from packing.strategies.base import Budget
from packing.strategies.steps import Alive, GeneralTable, alive_blocks, fewer_alive, general_rows

#: Least share of its bounding cuboid a general block's pieces fill (Fanslau & Bortfeldt's
#: value; an exact fill of 1.0 loaded 2.4 points less on generated 80-type loads); cargo
#: of one or two pieces a type takes :data:`SPARSE_FILL` (:func:`min_fill`).
MIN_FILL = 0.98
#: Most simple blocks combined: the largest blocks of each type are cut (fewer copies of a
#: type per block) until the simple blocks are at most this many.
MAX_SIMPLE = 800
#: Most general blocks kept (largest volume first).
LIMIT = 1500
#: Rounds of combination (a round combines the blocks of the last round with all before).
ROUNDS = 2
#: General blocks are made only for cargo of at least this many types with pieces left,
#: and at most :data:`MAX_PIECES_PER_TYPE` pieces per type on average: with fewer types
#: or more copies of each, simple blocks already fill the container well (on the Bischoff
#: & Ratcliff sets BR3, BR5 and BR6, of 8 to 15 types, general blocks loaded 0.07 to 0.27
#: points less; on BR7, of 20, 0.03 more; on generated loads of 20, 40 and 80 types 0.5,
#: 1.3 and 3.0 more), and the work of making them grows with the copies.
MIN_TYPES = 16
MAX_PIECES_PER_TYPE = 12.0
#: Most candidate general blocks a free space offers the search (the best by score).
OFFERED = 64
#: Most block positions kept in the blocks alive by count of the pieces left (see
#: :class:`GeneralBlocks`): about 5 MB a search. On BR7 a 5 s search meets up to about 15,000
#: counts of 150 blocks alive on average, mostly each with one block more in than the last,
#: which :func:`~packing.strategies.steps.fewer_alive` finds cheaply from it; early counts
#: have up to 1,500 alive, so a bound on the entries alone would let a cache grow tenfold.
ALIVE_KEPT = 600_000


class GeneralBlock(NamedTuple):
    """Simple blocks combined into one cuboid.

    Attributes
    ----------
    bx, by, bz : int
        Extents of the bounding cuboid [mm].
    volume : int
        Volume of its pieces [mm³].
    needs : tuple of (type index, count)
        Pieces of each type it takes, by type index.
    weight_kg : float
        Mass of its pieces [kg].
    parts : tuple of Block
        Its simple blocks, lower ones first, their ``pos`` the offset [mm] of their minimum
        corner from the general block's.
    flat : bool
        Its top face is wholly covered at one height (another block may stand on all of it).
    """

    bx: int
    by: int
    bz: int
    volume: int
    needs: tuple[tuple[int, int], ...]
    weight_kg: float
    parts: tuple[Block, ...]
    flat: bool


def _needs_sum(
    a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...]:
    total = dict(a)
    for t, n in b:
        total[t] = total.get(t, 0) + n
    return tuple(sorted(total.items()))


def _simple_blocks(state: PackState, types: list[PieceType]) -> list[GeneralBlock]:
    """Every simple block of ``types`` that fits the container, with at most ``cap``
    copies of a type, ``cap`` halved from the most available until at most
    :data:`MAX_SIMPLE` remain (a single piece of each orientation always remains)."""
    counts = state.counts
    L, H, W = state.L, state.H, state.W
    cap = max((counts[t.index] for t in types), default=0)

    def listed(cap: int) -> list[GeneralBlock] | None:
        """The simple blocks of at most ``cap`` copies; None once over MAX_SIMPLE."""
        out: list[GeneralBlock] = []
        for t in types:
            c = min(counts[t.index], cap)
            for o, ex, ey, ez in t.orients:
                for nx in range(1, min(c, L // ex) + 1):
                    for ny in range(1, min(c // nx, H // ey) + 1):
                        for nz in range(1, min(c // (nx * ny), W // ez) + 1):
                            n = nx * ny * nz
                            out.append(
                                GeneralBlock(
                                    ex * nx,
                                    ey * ny,
                                    ez * nz,
                                    t.volume * n,
                                    ((t.index, n),),
                                    t.weight_kg * n,
                                    (Block(t.index, o, (0, 0, 0), (ex, ey, ez), (nx, ny, nz)),),
                                    True,
                                )
                            )
                if len(out) > MAX_SIMPLE and cap > 1:
                    return None
        return out

    while (out := listed(cap)) is None:
        cap //= 2
    if len(out) > MAX_SIMPLE:
        # single pieces of more types and orientations than that: the largest
        out.sort(key=lambda b: (-b.volume, b.parts[0].type_index, b.parts[0].orientation))
        out = out[:MAX_SIMPLE]
    return out


def _eligible(state: PackState) -> list[PieceType]:
    """The types with pieces left that may take part in general blocks."""
    return [
        t
        for t in state.types
        if state.counts[t.index] > 0 and not t.no_top and not t.floor_only and t.volume > 0
    ]


def make_general_blocks(state: PackState) -> tuple[list[GeneralBlock], int]:
    """The general blocks of the pieces still available in ``state``, largest volume first
    within each round (at most :data:`LIMIT`), and the work done: simple blocks listed
    plus block pairs tested.

    Every block returned fits the container, takes no more pieces of a type than are
    left, fills at least :func:`min_fill` of its cuboid, and holds at least two simple
    blocks.
    """
    made = _Made(state.types, _simple_blocks(state, _eligible(state)))
    while made.next_round(state, float("inf")):
        pass
    return made.blocks(), len(made.simple) + sum(p for _, p in made.rounds)


#: Cargo of fewer pieces than this a type on average (most types one or two pieces) ...
SPARSE_BELOW = 2.0
#: ... takes general blocks that fill at least this share of their cuboid: few pieces of a
#: type fill a cuboid to 0.98 less often. Generated loads of 100 types (1.5-2.2 pieces a
#: type), 5 s: seeds 1-20 90.82 % against 90.33 % at 0.98 (where 0.97 was chosen among 0.92
#: to 0.99: 88.86 % at 0.92, 89.25 % at 0.99), seeds 21-40 90.71 against 90.17 %, seeds
#: 41-60 90.41 against 90.32 %. For all cargo, 0.97 loaded 0.19 points less on 40 types
#: (4.8 pieces a type) and BR7 fell to 93.98 %: denser cargo keeps MIN_FILL.
SPARSE_FILL = 0.97


def min_fill(state: PackState) -> float:
    """Least share of its cuboid a general block of ``state``'s pieces left fills:
    :data:`SPARSE_FILL` for fewer than :data:`SPARSE_BELOW` pieces a type left on average,
    else :data:`MIN_FILL`."""
    counts = state.counts
    types = sum(1 for c in counts if c > 0)
    return SPARSE_FILL if sum(counts) < SPARSE_BELOW * types else MIN_FILL


def _combine(
    left: list[GeneralBlock],
    right: list[GeneralBlock],
    state: PackState,
    seen: set[tuple[int, int, int, tuple[tuple[int, int], ...]]],
) -> tuple[list[GeneralBlock], int]:
    """Each block of ``left`` with each of ``right``: beside it along X, along Z, or on
    it; the new blocks (not in ``seen``, which they are added to) and the pairs tested."""
    if not left or not right:
        return [], 0
    counts = state.counts
    a = np.array([b[:4] for b in left], dtype=np.int64)
    b = np.array([b[:4] for b in right], dtype=np.int64)
    a_flat = np.array([blk.flat for blk in left], dtype=bool)
    fill = min_fill(state)
    volume = a[:, 3, None] + b[None, :, 3]
    made: list[GeneralBlock] = []
    for axis in (0, 2, 1):
        if axis == 1:  # right on left: left's top flat, right's base within it
            bx = np.broadcast_to(a[:, 0, None], volume.shape)
            by = a[:, 1, None] + b[None, :, 1]
            bz = np.broadcast_to(a[:, 2, None], volume.shape)
            ok = (
                a_flat[:, None]
                & (b[None, :, 0] <= a[:, 0, None])
                & (b[None, :, 2] <= a[:, 2, None])
            )
        else:  # side by side: equal heights
            ok = a[:, 1, None] == b[None, :, 1]
            by = np.broadcast_to(a[:, 1, None], volume.shape)
            if axis == 0:
                bx = a[:, 0, None] + b[None, :, 0]
                bz = np.maximum(a[:, 2, None], b[None, :, 2])
            else:
                bx = np.maximum(a[:, 0, None], b[None, :, 0])
                bz = a[:, 2, None] + b[None, :, 2]
        ok &= (bx <= state.L) & (by <= state.H) & (bz <= state.W)
        ok &= volume >= fill * (bx * by * bz)
        for i, j in zip(*np.nonzero(ok), strict=True):
            lo, hi = left[i], right[j]
            needs = _needs_sum(lo.needs, hi.needs)
            if any(n > counts[t] for t, n in needs):
                continue
            ext = (int(bx[i, j]), int(by[i, j]), int(bz[i, j]))
            key = (*ext, needs)
            if key in seen:
                continue
            seen.add(key)
            ox, oy, oz = (
                (lo.bx, 0, 0) if axis == 0 else (0, lo.by, 0) if axis == 1 else (0, 0, lo.bz)
            )
            # lower ones first: a part goes in after those it stands on
            parts = tuple(
                sorted(
                    (*lo.parts, *(_moved(p, ox, oy, oz) for p in hi.parts)),
                    key=lambda p: p.pos[1],
                )
            )

            if axis == 0:
                flat = lo.flat and hi.flat and lo.bz == hi.bz
            elif axis == 2:
                flat = lo.flat and hi.flat and lo.bx == hi.bx
            else:
                flat = hi.flat and hi.bx == lo.bx and hi.bz == lo.bz
            made.append(
                GeneralBlock(
                    *ext, lo.volume + hi.volume, needs, lo.weight_kg + hi.weight_kg, parts, flat
                )
            )
    return made, 3 * len(left) * len(right)


class GeneralBlocks:
    """The general blocks of a search, with what the scan of each free space reads.

    The scan (:meth:`rows`) runs in the compiled steps (:func:`packing.strategies.steps.
    general_rows`) over the blocks whose pieces are all left. Those are found once for
    each count of the pieces left and kept (:data:`ALIVE_KEPT` positions at most): a
    search meets the same counts again and again (its passes start from the same states, a
    look-ahead completes siblings that differ only in where a block went), and a new count
    is mostly the last one with one block more in
    (:func:`~packing.strategies.steps.fewer_alive`).

    Parameters
    ----------
    blocks : list of GeneralBlock
    n_types : int
        Piece types of the search.
    """

    __slots__ = ("_alive", "_kept", "_last", "blocks", "table")

    def __init__(self, blocks: list[GeneralBlock], n_types: int) -> None:
        self.blocks = blocks
        order = sorted(range(len(blocks)), key=lambda k: (blocks[k].bx, k))
        takers: list[list[tuple[int, int]]] = [[] for _ in range(n_types)]
        for p, k in enumerate(order):
            for t, n in blocks[k].needs:
                takers[t].append((n, p))
        self.table = GeneralTable(
            tuple(order),
            tuple(blocks[k].bx for k in order),
            tuple(blocks[k].by for k in order),
            tuple(blocks[k].bz for k in order),
            tuple(blocks[k].volume for k in order),
            tuple(blocks[k].weight_kg for k in order),
            tuple(tuple(sorted(own, key=lambda np_: (-np_[0], np_[1]))) for own in takers),
            tuple(range(len(blocks))),
        )
        self._alive: dict[tuple[int, ...], Alive] = {}
        self._kept = 0  # positions held by _alive
        #: The counts of the last scan and its blocks alive (the next mostly has fewer).
        self._last: tuple[tuple[int, ...], Alive | None] = ((), None)

    def __len__(self) -> int:
        return len(self.blocks)

    def alive(self, counts: list[int]) -> Alive:
        """The blocks whose pieces are all among ``counts`` (pieces left of each type)."""
        key = tuple(counts)
        found = self._alive.get(key)
        if found is None:
            last_key, last = self._last
            if last is not None:
                found = fewer_alive(self.table, last, last_key, counts)
            if found is None:
                found = alive_blocks(self.table, counts)
            if self._kept + len(found.positions) > ALIVE_KEPT:
                self._alive.clear()
                self._kept = 0
            self._alive[key] = found
            self._kept += len(found.positions)
        self._last = (key, found)
        return found

    def rows(
        self,
        counts: list[int],
        space: tuple[int, int, int],
        mins: tuple[int, int, int],
        payload: float,
        max_footprint: float,
        footprint_weight: int,
        *,
        best_only: bool = False,
    ) -> list[tuple[int, tuple[int, int, int, int, int, int, int, int, int]]]:
        """The best :data:`OFFERED` general blocks for a free space of extents ``space``
        [mm], scored as :func:`packing.strategies.blocks.candidates` scores simple ones
        (volume less the slivers too thin for the smallest piece left, ``mins``; plus the
        footprint times ``footprint_weight``): ``(score, candidate fields)``, where the
        candidate's type index is ``-1 - k`` for general block ``k`` and its piece extents
        are the block's; the highest scores, ties to the lower index, by ascending index.

        Blocks whose pieces are not all left, heavier than ``payload`` [kg], or of a
        footprint over ``max_footprint`` [mm²] are left out. ``best_only``: the first of
        these rows with the highest score alone (what a greedy step takes).
        """
        return general_rows(
            self.table,
            self.alive(counts),
            space,
            mins,
            payload,
            max_footprint,
            footprint_weight,
            1 if best_only else OFFERED,
        )

    def place_at(
        self, state: PackState, k: int, pos: tuple[int, int, int]
    ) -> tuple[Block, ...] | None:
        """The simple blocks of general block ``k`` with its minimum corner at ``pos``,
        lower ones first, if the bottom ones are supported there; else None."""
        x, y, z = pos
        parts = self.blocks[k].parts
        if y > 0:
            for p in parts:
                (dx, dy, dz), (ex, _, ez), (nx, _, nz) = p.pos, p.ext, p.n
                if dy == 0 and not state.supported(x + dx, y, z + dz, ex, ez, nx, nz):
                    return None
        return tuple(_moved(p, x, y, z) for p in parts)


def _moved(b: Block, x: int, y: int, z: int) -> Block:
    """Simple block ``b`` moved by ``(x, y, z)`` [mm]."""
    return Block(
        b.type_index, b.orientation, (b.pos[0] + x, b.pos[1] + y, b.pos[2] + z), b.ext, b.n
    )


class _Made:
    """The simple blocks of one cargo and the general blocks of each round of combination
    made so far, with the pairs each round tested."""

    __slots__ = ("arrays", "rounds", "simple", "types")

    def __init__(self, types: list[PieceType], simple: list[GeneralBlock]) -> None:
        self.types = types
        self.simple = simple
        #: (blocks made, pairs tested) of each round made so far.
        self.rounds: list[tuple[list[GeneralBlock], int]] = []
        #: :class:`GeneralBlocks` of the first ``r`` rounds, by ``r``.
        self.arrays: dict[int, GeneralBlocks | None] = {}

    def blocks(self, rounds: int | None = None) -> list[GeneralBlock]:
        """The general blocks of the first ``rounds`` rounds (None: all made)."""
        return [b for made, _ in self.rounds[:rounds] for b in made]

    def next_pairs(self) -> int | None:
        """The pairs the next round would test; None when no round is left to make."""
        r = len(self.rounds)
        if r >= ROUNDS or (r and not self.rounds[-1][0]):
            return None
        newest = self.rounds[-1][0] if r else self.simple
        if sum(len(m) for m, _ in self.rounds) >= LIMIT:
            return None
        return 3 * len(newest) * (len(self.simple) + len(self.blocks()))

    def next_round(self, state: PackState, allowance: float) -> bool:
        """Make the next round if one is left and its pairs are within ``allowance``."""
        pairs = self.next_pairs()
        if pairs is None or pairs > allowance:
            return False
        pool = self.simple + self.blocks()
        newest = self.rounds[-1][0] if self.rounds else self.simple
        seen = {(b.bx, b.by, b.bz, b.needs) for b in pool}
        made, tested = _combine(newest, pool, state, seen)
        made.sort(key=lambda b: -b.volume)
        self.rounds.append((made[: LIMIT - len(self.blocks())], tested))
        return True


#: Simple and general blocks by type list and counts left (a plan packs the same cargo
#: more than once: its probes and the search proper).
_MADE: dict[tuple[int, tuple[int, ...]], _Made] = {}

#: Share of a search's units left that making general blocks may cost at most: a round
#: of combination is made only if its pairs (known before it is made) are within what is
#: left of that share, so a search with few units (a probe, one container of a large plan)
#: makes fewer rounds or none.
MAX_SHARE = 0.2


def general_blocks_for(state: PackState, units: float) -> tuple[GeneralBlocks | None, int]:
    """The general blocks of the pieces left in ``state``, and the work of making them: the
    simple blocks listed and the block pairs tested, the same whether made or reused.

    None where none are made: cargo of fewer than :data:`MIN_TYPES` types, of over
    :data:`MAX_PIECES_PER_TYPE` pieces per type, or with unload priorities or MANUAL order
    (at no work), or when not even the first round of combination is within
    :data:`MAX_SHARE` of the ``units`` the search has left (each pair priced at
    :attr:`~packing.strategies.base.Budget.GENERAL_PAIR`, each simple block listed the
    same; at no work when not even a single piece of each type and orientation is).
    """
    counts = state.counts
    types = sum(1 for c in counts if c > 0)
    if state.check_order or types < MIN_TYPES or sum(counts) > MAX_PIECES_PER_TYPE * types:
        return None, 0
    allowance = MAX_SHARE * units / Budget.GENERAL_PAIR
    orients = sum(len(t.orients) for t in state.types if counts[t.index] > 0)
    if 3 * min(MAX_SIMPLE, orients) ** 2 > allowance:
        return None, 0
    key = (id(state.types), tuple(counts))
    made = _MADE.get(key)
    if made is None or made.types is not state.types:
        if len(_MADE) >= 16:
            _MADE.clear()
        made = _MADE[key] = _Made(state.types, _simple_blocks(state, _eligible(state)))
    # the rounds already made count as if made now, so a search spends the same either way
    work = len(made.simple)
    rounds = 0
    while rounds < len(made.rounds) or made.next_round(state, allowance - work):
        blocks, pairs = made.rounds[rounds]
        if work + pairs > allowance:
            break
        work += pairs
        rounds += 1
        if not blocks:
            break
    if rounds not in made.arrays:
        blocks = made.blocks(rounds)
        made.arrays[rounds] = GeneralBlocks(blocks, len(state.types)) if blocks else None
    return made.arrays[rounds], work
