"""The steps of block building: which free space to fill, the blocks that fit it and how
they rank, where a block goes, and the greedy completion that rates a search's choices.

:mod:`packing.strategies.blocks` searches with these steps; they are kept apart because they
are the engine's hot path: the package's build compiles this module, :mod:`packing.state`
and :mod:`packing.geometry` with mypyc (README, "Compiled engine modules"), and the search itself
stays plain Python that a notebook or a test may inspect or patch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple, cast, overload

from packing.geometry import Box
from packing.state import (
    BLOCK_READ,
    Block,
    Move,
    PackState,
    Space,
    SpaceTuple,
    floor_only_types,
    type_min_extents,
    types_by_volume,
)
from packing.strategies.base import Budget


class Candidate(NamedTuple):
    """A block that fits a free space: ``nx × ny × nz`` pieces of one type, one orientation.

    Attributes
    ----------
    volume : int
        Volume of the pieces in the block [mm³].
    type_index : int
        Index of the pieces' :class:`~packing.state.PieceType`; ``-1 - k`` for general
        block ``k`` of the state's :attr:`~packing.state.PackState.general` (its extents
        are then the general block's, its orientation 0 and its counts 1).
    orientation : int
        Orientation index 0..5 of every piece.
    ex, ey, ez : int
        Extents of one piece along X, Y, Z [mm].
    nx, ny, nz : int
        Pieces along X, Y, Z.
    """

    volume: int
    type_index: int
    orientation: int
    ex: int
    ey: int
    ez: int
    nx: int
    ny: int
    nz: int


#: The fields of a :class:`Candidate` as a plain tuple.
Row = tuple[int, int, int, int, int, int, int, int, int]


class Ledger:
    """The work of one step or one greedy completion, counted by kind as it is done and
    charged to a :class:`~packing.strategies.base.Budget` at once at its end
    (:meth:`charge`): the same units and the same counts as a charge at every turn, since a
    charge is a sum of counts times prices, without a call to the budget at every turn (on
    a balanced fill's searches of 20 types, 4,700 calls a search, a sixth of its CPU). Only
    for work during which nothing reads the budget: a completion never looks at it."""

    __slots__ = (
        "checks",
        "general_scans",
        "keyed_rows",
        "row_tests",
        "rows",
        "spaces",
        "splits",
        "types",
    )

    def __init__(self) -> None:
        self.spaces = 0
        self.types = 0
        self.general_scans = 0
        self.rows = 0
        self.keyed_rows = 0
        self.row_tests = 0
        self.checks = 0
        self.splits = 0

    def add_ranked(self, ranked: Ranked, checks: int, spaces: int = 0) -> None:
        """Count making (and reading) ``ranked``'s rows, as :meth:`Ranked.charge` charges
        them, with the caller's ``checks`` and ``spaces``."""
        n = ranked.made
        self.spaces += spaces
        self.types += ranked.pairs
        self.general_scans += ranked.general_scans
        if ranked.keyed:
            self.keyed_rows += n
        else:
            self.rows += n
        self.row_tests += ranked.tests
        self.checks += checks

    def charge(self, budget: Budget) -> None:
        """Charge ``budget`` for everything counted, in one call."""
        budget.charge(
            spaces=self.spaces,
            types=self.types,
            general_scans=self.general_scans,
            rows=self.rows,
            keyed_rows=self.keyed_rows,
            row_tests=self.row_tests,
            checks=self.checks,
            splits=self.splits,
        )


class Ranked(Sequence[Candidate]):
    """Candidates of one space, best first, each made a :class:`Candidate` when read.

    A space has hundreds of candidates and a step reads only the first few, so the ranking
    keeps the fields of each as a plain tuple (cheaper to build) until it is read. Rows not
    yet in order (``scored``) are ``(score, fields)`` pairs, ranked by score, ties
    in the order given: the best is found by one scan, and the full sort waits until a
    reader wants more than the first (a greedy step mostly takes the first).

    ``rest`` (for rows made for the best only, see :func:`candidates`): makes every row,
    called once a reader wants more than the first.
    """

    __slots__ = (
        "_first",
        "_rest",
        "_rows",
        "_scored",
        "by_volume",
        "general_scans",
        "keyed",
        "made",
        "pairs",
        "tests",
    )

    def __init__(
        self,
        rows: list[Row] | None,
        pairs: int = 0,
        keyed: bool = False,
        general: bool = False,
        *,
        tests: int = 0,
        scored: list[tuple[int, Row]] | None = None,
        rest: Callable[[], Ranked] | None = None,
        made: int = -1,
        by_volume: bool = False,
    ) -> None:
        if (rows is None) == (scored is None):
            raise ValueError("give either the rows in order or the scored rows")
        self._rows = rows
        self._scored = scored
        self._first: Row | None = None
        #: Were the scored rows made largest type first (:func:`candidates` for the best
        #: only), not in the types' order? Ties for the first then go to the lower type.
        self.by_volume = by_volume
        # (no rows made for the best only means no rows at all: nothing more to make)
        self._rest = rest if scored else None
        #: Rows made (the work done; with ``rest``, those of both makings once read past the
        #: first). ``made`` (when >= 0): rows made for the best only, of which ``scored``
        #: keeps those that were the best so far when made (the others cannot be the first).
        self.made = made if made >= 0 else len(rows if rows is not None else scored or ())
        #: (type, orientation) pairs examined to generate the rows (the work done).
        self.pairs = pairs
        #: Block sizes examined that made no row (too little volume to beat the best
        #: row, or no piece the surfaces hold): work done beside the rows made.
        self.tests = tests
        #: Were the rows ranked by the slower keyed sort (unload priority, floor rule)?
        self.keyed = keyed
        #: Scans of the general blocks done for these rows: 1 when ``general`` (one scan,
        #: see :meth:`packing.strategies.general.GeneralBlocks.rows`); rows made again for
        #: a reader past the first scan again where the first scan kept the best alone.
        self.general_scans = 1 if general else 0

    def charge(self, budget: Budget, *, checks: int, spaces: int = 0) -> None:
        """Charge ``budget`` for making (and reading) these rows: the (type, orientation)
        pairs, the general blocks' scans, the rows made (by the keyed sort or not) and the
        sizes examined without a row, besides the caller's ``checks`` and ``spaces``."""
        ledger = Ledger()
        ledger.add_ranked(self, checks, spaces)
        ledger.charge(budget)

    def _ordered(self) -> list[Row]:
        if self._rest is not None:
            full = self._rest()
            self._rest = None
            self._rows, self._scored = full._ordered(), None
            self.pairs += full.pairs
            self.made += full.made
            self.tests += full.tests
            self.general_scans += full.general_scans
        rows = self._rows
        if rows is None:
            scored = self._scored
            assert scored is not None
            scored.sort(key=_SCORE, reverse=True)  # stable: equal scores keep their order
            rows = self._rows = [c for _, c in scored]
            self._scored = None
        return rows

    def first(self) -> Candidate:
        """The best candidate (the first), without ranking the rest."""
        return Candidate._make(self._first_row())

    def _first_row(self) -> Row:
        if self._rows is not None:
            return self._rows[0]
        if self._first is None:
            assert self._scored is not None
            # the first of the highest scores, as the stable sort puts first
            top, first = max(self._scored, key=_SCORE)
            if self.by_volume:
                # rows made largest type first: the first of the rows made in the types'
                # order, of a type's rows (made in their order either way) the first, of
                # the types the lowest index, the general blocks' (negative indexes, made
                # after every type's) after them
                at = first[1]
                for score, row in self._scored:
                    i = row[1]
                    if score == top and i >= 0 and (at < 0 or i < at):
                        first, at = row, i
            self._first = first
        return self._first

    def __len__(self) -> int:
        """Rows held (for the best only, until read past the first: those kept, which may
        be the first; there are rows exactly when every row would give some)."""
        rows = self._rows if self._rows is not None else self._scored
        assert rows is not None
        return len(rows)

    @overload
    def __getitem__(self, i: int) -> Candidate: ...
    @overload
    def __getitem__(self, i: slice) -> list[Candidate]: ...
    def __getitem__(self, i: int | slice) -> Candidate | list[Candidate]:
        if isinstance(i, slice):
            return [Candidate._make(r) for r in self._ordered()[i]]
        if i == 0 and self:
            return self.first()
        return Candidate._make(self._ordered()[i])

    def __iter__(self) -> Iterator[Candidate]:
        return map(Candidate._make, self.rows())

    def rows(self) -> Iterator[Row]:
        """The candidates in order as plain rows (the fields of :class:`Candidate`), the
        steps' own way to read them (no named tuple made for each)."""
        if self._rows is None and self._scored:
            yield self._first_row()
            # (the full ranking's first is the same row)
            yield from islice(self._ordered(), 1, None)
        else:
            yield from self._ordered()


def _wall_distances(state: PackState, s: SpaceTuple) -> tuple[int, int]:
    """A space's distance from the walls along X and along Z [mm], from the nearer end;
    along the door's axis, when the order of the pieces matters (``PackState.back_x``,
    ``back_z``), from the wall opposite the door, so the first pieces placed lie deepest."""
    x0, _, z0, x1, _, z1 = s
    dx = x0 if state.back_x else min(x0, state.L - x1)
    dz = z0 if state.back_z else min(z0, state.W - z1)
    return dx, dz


def space_key_corner(state: PackState, s: SpaceTuple) -> tuple[int, int, int, int]:
    """Fanslau & Bortfeldt's rule: the distance vector of the space's nearest bottom corner
    to the container's corner, sorted ascending; ties to the larger space."""
    x0, y0, z0, x1, y1, z1 = s
    dx, dz = _wall_distances(state, s)
    a, b, c = sorted((dx, y0, dz))
    return (a, b, c, -(x1 - x0) * (y1 - y0) * (z1 - z0))


def space_key_floor(state: PackState, s: SpaceTuple) -> tuple[int, int, int, int]:
    """Lowest space first, then nearest to a wall along X, then along Z."""
    x0, y0, z0, x1, _, z1 = s
    dx, dz = _wall_distances(state, s)
    return (y0, dx, dz, -(x1 - x0) * (z1 - z0))


def space_key_floor_across(state: PackState, s: SpaceTuple) -> tuple[int, int, int, int]:
    """Lowest space first, then nearest to a wall along Z (a side wall), then along X: the
    floor rule filling across the container before along it."""
    x0, y0, z0, x1, _, z1 = s
    dx, dz = _wall_distances(state, s)
    return (y0, dz, dx, -(x1 - x0) * (z1 - z0))


#: A rule ranking free spaces (lowest key first). Its key may depend on the space and the
#: container alone: :func:`next_blocks` ranks the spaces once and drops some on the way.
SpaceRule = Callable[[PackState, SpaceTuple], tuple[int, int, int, int]]
#: The rules of a search's passes, each width in turn. Passes of one width under other rules
#: end in other packings; past a width of about 16 a wider pass rarely loads more (BR7: the
#: same loads at three times the budget), so a third rule buys more than width does.
SPACE_RULES: tuple[SpaceRule, ...] = (space_key_corner, space_key_floor, space_key_floor_across)

#: Cargo of at most this many pieces per type on average (mostly single pieces of many
#: sizes) that the container might hold whole also gets a greedy pass that ranks blocks by
#: footprint first, when the ranking by volume leaves pieces out
#: (:meth:`BlockBuilding._solve`).
FEW_PIECES_PER_TYPE = 2.0


#: The score of a ``(score, candidate fields)`` row.
_SCORE = itemgetter(0)


#: Types with pieces left that a candidate ranking passes over (their smallest extents do
#: not fit the space) per type it looks at, in work: the test reads three extents; a type
#: looked at goes on to its payload, volume and orientations.
PASSED_PER_TYPE = 8


def candidates(
    state: PackState,
    s: SpaceTuple,
    *,
    best_only: bool = False,
    general_rows: list[tuple[int, Row]] | None = None,
) -> Ranked:
    """Blocks that fit space ``s``, best first.

    Every simple block ``nx × ny × nz`` of every available type and allowed orientation
    that fits the space and the count is a candidate. They are ranked by volume less the
    slivers of the space they leave too thin for any piece still left once the block is in
    (a block whose width leaves 3 cm beside it wastes that strip; a block that takes the
    last pieces of an item of several wastes what only they could fill), less the space
    above a block nothing may rest on.

    Where the state has general blocks (:mod:`packing.strategies.general`), the best of
    those that fit are candidates too, scored the same way (with ``best_only``, the best
    one, until a reader wants more).

    With ``state.rank_by_footprint`` the floor area a block covers ranks first and that
    score only breaks ties: for cargo of many single pieces, wide flat pieces go down
    first and leave large level surfaces for the rest, where the largest volume first
    builds towers of uneven height that nothing else can stand on.

    With ``best_only`` (a greedy step, which mostly takes the best), rows that cannot
    beat the best score found so far are not made: a block's score is at most its
    volume. The first candidate is the same; reading past it ranks every row then
    (:class:`Ranked` calls ``candidates`` again), so the order read is the same too.
    ``general_rows``: the general blocks' rows for this space and state, when already
    scanned (no scan is done then).
    """
    x0, y0, z0, x1, y1, z1 = s
    sx, sy, sz = x1 - x0, y1 - y0, z1 - z0
    counts = state.counts
    # the smallest extents of the pieces left, the second smallest and the type of the
    # smallest, along X, Y, Z (what is left once a block takes a type's last pieces)
    f0, f1, f2, s0, s1, s2, i0, i1, i2 = state.extents_without()
    if sx < f0 or sy < f1 or sz < f2:
        # no piece left fits the space along one axis (nor then a general block, made of
        # them): one test, where the scan would pass over every type (of distinct pieces,
        # a third of the types passed over in a plan, in a third of its rankings)
        return Ranked([], 1, False)
    usual = (f0, f1, f2)
    # (score, fields of the Candidate): the hottest loop of the engine builds plain tuples
    scored: list[tuple[int, tuple[int, int, int, int, int, int, int, int, int]]] = []
    pairs = 0
    tested = 0  # block sizes examined (rows made or not)
    made = 0  # rows made for the best only (those kept and those that could not be first)
    payload = state.payload_left
    by_weight = payload != float("inf")
    by_footprint = state.rank_by_footprint
    # a footprint [mm²] outweighs any volume score: scores lie within ± the container's volume
    footprint_weight = 2 * state.L * state.H * state.W + 1
    types = state.types
    mins = type_min_extents(types)
    # On the floor, pieces that must stand there come first while any are left: the others
    # can go on top of them, they cannot go on top of the others.
    floor_first = y0 == 0 and any(counts[i] > 0 for i in floor_only_types(types))
    keyed = state.check_order or floor_first
    # the best score so far, when only the best row is wanted: rows of less volume cannot
    # beat it (their score is their volume less waste); never with a footprint score or a
    # keyed order, where other terms rank first
    prune = best_only and not keyed and not by_footprint
    best = -(1 << 62)
    # In a raised space a block must rest on the surfaces at its floor: every piece of its
    # bottom layer needs the support ratio of its base on them (PackState.supported). So a
    # piece wider than those surfaces allow is no candidate, and a row along X is cut to
    # the pieces they can hold: at most their area at the ratio, and for the last piece
    # the ratio of its length within their reach along X (fewer rows along Z are
    # candidates of their own). The support check decides where the block goes; this
    # offers the block the surfaces can take instead of one the check would refuse.
    ratio = state.support_ratio
    raised = y0 > 0 and ratio > 0
    reach_x = reach_z = 1 << 60
    max_footprint = float("inf")
    if raised:
        area = 0
        lx = lz = 1 << 60
        hx = hz = -(1 << 60)
        for rx0, rz0, rx1, rz1, may_support in state.tops.get(y0, ()):
            if not may_support:
                continue
            ix0 = rx0 if rx0 > x0 else x0
            ix1 = rx1 if rx1 < x1 else x1
            iz0 = rz0 if rz0 > z0 else z0
            iz1 = rz1 if rz1 < z1 else z1
            if ix1 <= ix0 or iz1 <= iz0:
                continue
            # the tops at one height are faces of disjoint blocks: their areas add up
            area += (ix1 - ix0) * (iz1 - iz0)
            lx, lz = min(lx, ix0), min(lz, iz0)
            hx, hz = max(hx, ix1), max(hz, iz1)
        if area == 0:
            return Ranked([], len(types), False)
        reach_x, reach_z = hx - lx, hz - lz
        # the bottom layer's pieces each need ratio × their base on at most ``area``
        # (a hair of slack for the rounding of the float ratio)
        max_footprint = area / ratio * (1 + 1e-9)
    general = state.general
    scanned = general is not None and general_rows is None
    if general_rows is None:
        general_rows = (
            general.rows(
                counts,
                (sx, sy, sz),
                usual,
                payload,
                max_footprint,
                footprint_weight if by_footprint else 0,
                best_only=prune,
            )
            if general is not None
            else []
        )
    if prune and general_rows:
        best = max(general_rows, key=_SCORE)[0]
    # the types with pieces left whose smallest extents fit the space, looked at (a
    # used-up type or one the space cannot hold is passed over first: cargo of many sizes
    # meets many spaces that hold few of them or none)
    # For the best row only, the types go largest volume first (of all their pieces, which
    # bounds any block of theirs), and the scan stops at the first that cannot beat the best
    # row so far, nor can any after it; the first row stays the one the scan in the types'
    # order finds (:meth:`Ranked._first_row` breaks ties by type).
    alive = 0
    passed = 0  # types with pieces left passed over (charged PASSED_PER_TYPE to a type)
    for t in types_by_volume(types) if prune else types:
        i = t.index
        r = counts[i]
        if r <= 0:
            continue
        if prune and t.volume * len(t.pieces) < best:
            break
        tx, ty, tz = mins[i]
        if tx > sx or ty > sy or tz > sz:
            passed += 1
            continue  # no orientation fits the space (cargo of many sizes: most, in most)
        alive += 1
        if t.floor_only and y0 != 0:
            continue
        weight = t.weight_kg
        if by_weight and weight > 0 and r * weight * (1 + 1e-12) > payload:
            # state.max_by_weight(t), inlined (this loop is the hottest of the engine),
            # when the payload left may not hold every piece left of the type (a
            # division per type cost a twentieth of a plan of distinct pieces)
            w = (payload + 1e-9) // weight
            if w < r:
                r = int(w)
                if r <= 0:
                    continue
        v = t.volume
        if v * r < best:
            continue  # all of this type left makes no block to beat the best row so far
        # once a block takes the last of several identical pieces, only the other types
        # can fill what it leaves (not applied to an item of one piece: for cargo of
        # single pieces it would count for every block and only reorder them; on the MPV
        # set that cost bins)
        left = counts[i] if len(t.pieces) > 1 else 1 << 60
        no_top = t.no_top
        single_layer = no_top or t.floor_only
        pairs += len(t.orients)
        for o, ex, ey, ez in t.orients:
            if ex > sx or ey > sy or ez > sz:
                continue
            if (ex if ex < reach_x else reach_x) * (ez if ez < reach_z else reach_z) < (
                ratio * ex * ez
            ):
                continue  # no piece of this base can be held here (as PackState.supported)
            mx, my, mz = sx // ex, sy // ey, sz // ez
            if single_layer:
                my = 1
            if v * min(r, mx * my * mz) < best:
                continue  # no block of this orientation can beat the best row so far
            if raised:
                # a row may hang past the surfaces at both ends, each end piece by up to
                # (1 - ratio) of its length (a hair of slack for floats)
                reach_row = int((reach_x + 2 * (1 - ratio) * ex) / ex + 1e-9)
                if reach_row <= 0:
                    continue
                # rows deeper than the surfaces' area can hold one piece of are cut to
                # none below: not generated (one more for the rounding of the floats)
                deepest = int(max_footprint // (ex * ez)) + 1
                if deepest < mz:
                    mz = deepest
            vx = v * mx  # volume of a full row along X, one piece high and deep
            # (no more layers than pieces left: a block of more would hold none)
            for ny in range(my if my < r else r, 0, -1):
                if vx * ny * mz < best:
                    break  # no block of ny or fewer layers can beat the best row so far
                by = ny * ey
                ry = sy - by
                q = r // ny
                row = vx * ny
                for nz in range(mz if mz < q else q, 0, -1):
                    if row * nz < best:
                        break  # nor of nz or fewer rows along Z
                    tested += 1
                    bz = nz * ez
                    rz = sz - bz
                    qx = r // (ny * nz)
                    nx = mx if mx < qx else qx
                    if raised:
                        held = int(max_footprint // (ex * bz))
                        if reach_row < held:
                            held = reach_row
                        if held < nx:
                            nx = held
                    if nx <= 0:
                        continue
                    vol = v * nx * ny * nz
                    if vol < best:
                        continue
                    bx = nx * ex
                    if nx * ny * nz >= left:  # what is left once the block is in
                        mnx = s0 if i == i0 else f0
                        mny = s1 if i == i1 else f1
                        mnz = s2 if i == i2 else f2
                    else:
                        mnx, mny, mnz = f0, f1, f2
                    rx = sx - bx
                    waste = 0
                    if 0 < rx < mnx:
                        waste += rx * by * bz
                    if 0 < rz < mnz:
                        waste += rz * by * bx
                    if 0 < ry < mny or (no_top and ry > 0):
                        waste += ry * bx * bz
                    score = vol - waste
                    if by_footprint:
                        score += bx * bz * footprint_weight
                    elif prune:
                        made += 1
                        if score < best:
                            continue  # made, but after a better row: never the first
                        best = score
                    scored.append((score, (vol, t.index, o, ex, ey, ez, nx, ny, nz)))
    if not prune:
        made = len(scored)
    tests = tested - made
    made += len(general_rows)
    looked = pairs + alive + passed // PASSED_PER_TYPE  # the types' work, as charged
    scored.extend(general_rows)
    if keyed:
        scored.sort(
            key=lambda c: (
                types[c[1][1]].priority if state.check_order else 0,  # c[1][1]: type_index
                0 if floor_first and c[1][1] >= 0 and types[c[1][1]].floor_only else 1,
                -c[0],
            )
        )
        return Ranked([c for _, c in scored], looked, keyed, scanned, tests=tests)
    return Ranked(
        None,
        looked,
        False,
        scanned,
        scored=scored,
        # (reading past the first ranks every row: the general blocks are scanned again
        # for all their rows, where this scan gave the best one)
        rest=(lambda: candidates(state, s, general_rows=None if scanned else general_rows))
        if prune
        else None,
        tests=tests,
        made=made,
        by_volume=prune,
    )


class GeneralTable(NamedTuple):
    """A search's general blocks as the scan of a free space reads them
    (:func:`general_rows`): by ascending extent along X, ties by index; a block's place in
    this order is its *position*.

    Tuples: a search holds them all along, and the garbage collector stops tracking a tuple
    of numbers, where it would traverse a list's every element at each full collection.

    Attributes
    ----------
    ids : tuple of int
        The block's index in the search's general blocks, by position.
    bx, by, bz : tuple of int
        Its extents along X, Y, Z [mm].
    volume : tuple of int
        Volume of its pieces [mm³].
    weight : tuple of float
        Mass of its pieces [kg].
    takers : tuple of tuple of (int, int)
        For each piece type, ``(pieces, position)`` of every block that takes pieces of
        it, most pieces first.
    positions : tuple of int
        ``0 .. n - 1``, the positions themselves (to be shared, not made anew by a scan).
    """

    ids: tuple[int, ...]
    bx: tuple[int, ...]
    by: tuple[int, ...]
    bz: tuple[int, ...]
    volume: tuple[int, ...]
    weight: tuple[float, ...]
    takers: tuple[tuple[tuple[int, int], ...], ...]
    positions: tuple[int, ...]


class Alive(NamedTuple):
    """The general blocks whose pieces are all left, for one count of the pieces left.

    Attributes
    ----------
    positions : tuple of int
        Their positions in the :class:`GeneralTable`, ascending.
    least : tuple of int
        The least extent along X, Y and Z among them [mm] (a space smaller along one axis
        takes none).
    """

    positions: tuple[int, ...]
    least: tuple[int, int, int]


def alive_blocks(table: GeneralTable, counts: list[int]) -> Alive:
    """The general blocks of ``table`` whose pieces are all among ``counts`` (pieces left of
    each type)."""
    n = len(table.ids)
    dead = [False] * n
    for t in range(len(counts)):
        left = counts[t]
        for need, p in table.takers[t]:
            if need <= left:
                break
            dead[p] = True
    every: tuple[object, ...] = table.positions  # kept boxed: no new number per block
    kept: list[object] = []
    for p in range(n):
        if not dead[p]:
            kept.append(every[p])
    return _alive(table, tuple(kept))  # type: ignore[arg-type]


def fewer_alive(
    table: GeneralTable,
    known: Alive,
    known_counts: tuple[int, ...],
    counts: list[int],
) -> Alive | None:
    """:func:`alive_blocks` for ``counts`` from ``known``, the blocks alive for
    ``known_counts``, where no type has more pieces left in ``counts`` (else None): those
    of ``known`` that take no more pieces of a type than ``counts`` has. A search mostly
    asks after one block more has gone in, which leaves fewer pieces of one type."""
    dead: list[bool] | None = None
    for t in range(len(counts)):
        left, before = counts[t], known_counts[t]
        if left > before:
            return None
        if left < before:
            for need, p in table.takers[t]:
                if need <= left:
                    break
                if dead is None:
                    dead = [False] * len(table.ids)
                dead[p] = True
    if dead is None:
        return known
    positions = known.positions
    boxed: tuple[object, ...] = positions  # kept boxed: no new number per block
    kept: list[object] = []
    for i in range(len(positions)):
        if not dead[positions[i]]:
            kept.append(boxed[i])
    if len(kept) == len(positions):
        return known
    return _alive(table, tuple(kept))  # type: ignore[arg-type]


def _alive(table: GeneralTable, positions: tuple[int, ...]) -> Alive:
    far = 1 << 62
    ly = lz = far
    bys, bzs = table.by, table.bz
    for p in positions:
        if bys[p] < ly:
            ly = bys[p]
        if bzs[p] < lz:
            lz = bzs[p]
    return Alive(positions, (table.bx[positions[0]] if positions else far, ly, lz))


def general_rows(
    table: GeneralTable,
    alive: Alive,
    space: tuple[int, int, int],
    mins: tuple[int, int, int],
    payload: float,
    max_footprint: float,
    footprint_weight: int,
    offered: int,
) -> list[tuple[int, Row]]:
    """The best ``offered`` general blocks of ``alive`` for a free space of extents
    ``space`` [mm]: the scan of :meth:`packing.strategies.general.GeneralBlocks.rows`.

    A block is left out where it does not fit the space, is heavier than ``payload`` [kg]
    or has a footprint over ``max_footprint`` [mm²]. It is scored as :func:`candidates`
    scores a simple block: its volume less the slivers too thin for the smallest piece
    left (``mins``), plus its footprint times ``footprint_weight``. Where more than
    ``offered`` fit, the highest scores are kept, ties to the lower index; the rows come
    by ascending index as ``(score, candidate fields)``, the candidate's type index
    ``-1 - k`` for block ``k``, its piece extents the block's.
    """
    sx, sy, sz = space
    lx, ly, lz = alive.least
    if sx < lx or sy < ly or sz < lz:
        return []
    mnx, mny, mnz = mins
    ids, bxs, bys, bzs = table.ids, table.bx, table.by, table.bz
    volumes, weights = table.volume, table.weight
    by_weight = payload != _FAR
    by_footprint = max_footprint != _FAR
    heaviest = payload + 1e-9
    found: list[tuple[int, int, int]] = []  # (index, score, position)
    one = offered == 1  # the best alone: kept as the scan goes
    best_k = best_p = -1
    best = 0
    for p in alive.positions:
        bx = bxs[p]
        if bx > sx:
            break  # and every later one, by ascending extent along X
        by = bys[p]
        if by > sy:
            continue
        bz = bzs[p]
        if bz > sz:
            continue
        if by_weight and weights[p] > heaviest:
            continue
        if by_footprint and bx * bz > max_footprint:
            continue
        score = volumes[p]
        rx = sx - bx
        if 0 < rx < mnx:
            score -= rx * by * bz
        rz = sz - bz
        if 0 < rz < mnz:
            score -= rz * by * bx
        ry = sy - by
        if 0 < ry < mny:
            score -= ry * bx * bz
        if footprint_weight:
            score += bx * bz * footprint_weight
        if one:
            k = ids[p]
            if best_k < 0 or score > best or (score == best and k < best_k):
                best, best_k, best_p = score, k, p
        else:
            found.append((ids[p], score, p))
    if best_k >= 0:
        found.append((best_k, best, best_p))
    elif len(found) > offered:
        found.sort(key=_best_lowest)
        del found[offered:]
    found.sort()  # by index (each block once)
    return [
        (score, (volumes[p], -1 - k, 0, bxs[p], bys[p], bzs[p], 1, 1, 1)) for k, score, p in found
    ]


_FAR = float("inf")


def _best_lowest(row: tuple[int, int, int]) -> tuple[int, int]:
    """Order of :func:`general_rows`' choice: the highest score first, ties to the lower
    index."""
    return (-row[1], row[0])


def block_at(state: PackState, s: SpaceTuple, c: Row) -> Move | None:
    """The block of candidate ``c`` in space ``s`` if every rule allows it, else None; for
    a general block (a negative type index), its simple blocks, lower ones first.

    The block stands on the space's floor; its corner is the space corner nearest to a
    container corner, or failing support there, the next nearest of the four.
    """
    _, ti, o, ex, ey, ez, nx, ny, nz = c
    bx, by, bz = ex * nx, ey * ny, ez * nz
    x0, y, z0, x1, _, z1 = s
    first = state.anchor(s, bx, bz)
    # the nearest corner first, then the others of the space's floor
    xs = (first[0], x0 + x1 - bx - first[0]) if x1 - x0 > bx else (first[0],)
    zs = (first[2], z0 + z1 - bz - first[2]) if z1 - z0 > bz else (first[2],)
    if ti < 0:
        general = state.general
        if general is None:
            raise ValueError("a general block's candidate for a state without general blocks")
        for x in xs:
            for z in zs:
                parts = general.place_at(state, -1 - ti, (x, y, z))
                if parts is not None:
                    return parts
        return None
    t = state.types[ti]
    if y == 0 and not state.check_order and not t.no_top:
        return Block(ti, o, first, (ex, ey, ez), (nx, ny, nz))
    for x in xs:
        for z in zs:
            if not state.supported(x, y, z, ex, ez, nx, nz):
                continue
            if (state.check_order or t.no_top) and not state.allows(
                t, Box(x, y, z, x + bx, y + by, z + bz)
            ):
                continue
            return Block(ti, o, (x, y, z), (ex, ey, ez), (nx, ny, nz))
    return None


def supported_part(state: PackState, s: SpaceTuple) -> Space | None:
    """The part of raised space ``s`` over the bounding rectangle of the surfaces that may
    carry pieces at its floor; None for a space on the floor, a space with no such surface
    under it, or one that lies within that rectangle already."""
    part = _supported_part(state, s)
    return None if part is None else Space._make(part)


def _supported_part(state: PackState, s: SpaceTuple) -> SpaceTuple | None:
    """:func:`supported_part` as a plain tuple."""
    x0, y0, z0, x1, y1, z1 = s
    if y0 == 0:
        return None
    far = 1 << 60
    lx, lz, hx, hz = far, far, -far, -far
    for rx0, rz0, rx1, rz1, may_support in state.tops.get(y0, ()):
        if not may_support or rx0 >= x1 or rx1 <= x0 or rz0 >= z1 or rz1 <= z0:
            continue
        lx, lz = min(lx, max(rx0, x0)), min(lz, max(rz0, z0))
        hx, hz = max(hx, min(rx1, x1)), max(hz, min(rz1, z1))
    if hx < 0 or (lx, lz, hx, hz) == (x0, z0, x1, z1):
        return None
    return (lx, y0, lz, hx, y1, hz)


class _RuleKeys(dict[SpaceTuple, Any]):
    """A rule's sort keys of free spaces, computed once per space: a search ranks the same
    spaces again at every step, and a dict lookup costs a fraction of the key.

    The rule is given a state that holds the container alone (extents and door, and
    whether it fills from the wall opposite the door): a key may depend on the space and
    the container only, and the cache keeps no search's spaces or pieces alive.

    The keys of the search's own rules (:data:`SPACE_RULES`) are packed into one integer
    each, field after field, which orders the spaces as the key tuple does: its first
    three fields are distances within the container (at least 0, below ``2 ** bits``,
    ``bits`` those of its longest side) and the last a volume or floor area, negated (at
    most the container's volume). A sort of thousands of spaces by such integers took a
    third of the CPU of a sort by the tuples, which compares them field by field. Other
    rules keep their tuples.
    """

    def __init__(self, state: PackState, rule: SpaceRule) -> None:
        super().__init__()
        container = PackState(
            None, None, 0.0
        )  # an empty shell: the container's extents and door only
        container.L, container.H, container.W = state.L, state.H, state.W
        container.door = state.door
        container.back_x, container.back_z = state.back_x, state.back_z
        self.container = container
        self.rule = rule
        self.packed = (
            rule is space_key_corner or rule is space_key_floor or rule is space_key_floor_across
        )
        self.bits = max(state.L, state.H, state.W).bit_length()
        self.last = (state.L * state.H * state.W).bit_length() + 1

    def __missing__(self, s: SpaceTuple) -> Any:
        a, b, c, d = self.rule(self.container, s)
        if not self.packed:
            k: Any = (a, b, c, d)
        else:
            bits, last = self.bits, self.last
            k = (((((a << bits) | b) << bits) | c) << last) | (d + (1 << (last - 1)))
        self[s] = k
        return k


#: Keys by rule and container (extents, door, filled from the back). Bounded: a search's
#: spaces come back step after step, older searches' spaces need not stay.
_KEYS: dict[tuple[SpaceRule, int, int, int, str, bool, bool], _RuleKeys] = {}
_KEYS_PER_RULE = 20_000


def _rule_keys(state: PackState, rule: SpaceRule) -> _RuleKeys:
    key = (rule, state.L, state.H, state.W, state.door, state.back_x, state.back_z)
    keys = _KEYS.get(key)
    if keys is None or len(keys) > _KEYS_PER_RULE:
        if len(_KEYS) >= 12:  # three rules of four container types
            _KEYS.clear()
        keys = _KEYS[key] = _RuleKeys(state, rule)
    return keys


def _in_rule_order(
    state: PackState, rule: SpaceRule, ledger: Ledger | None
) -> Iterator[tuple[int, SpaceTuple]]:
    """The free spaces in the order repeated picks of the rule's first would give, while
    the caller drops each space it is given before asking for the next: the first by one
    scan, the next :data:`_RESCANS` by a scan each of what is left, the rest sorted once
    (a rule's key depends on the space and the container alone, so dropping a space
    changes no other's key, and the stable sort keeps the list's order among equal keys as
    repeated picks do). Each comes with its index in ``state.spaces`` when it was found
    by a scan, so the caller drops it at once without searching the list; from the sort,
    with ``-1 - i``, ``i`` its index in ``state.spaces`` when they were sorted, which the
    caller keeps valid by dropping those spaces only once it stops asking
    (:func:`_drop_at`).

    The work is charged as one scan and, from the second space on, two more; a sort, when
    the step gets that far, is charged too, about ``n log2 n`` (a few scans cost less than
    the sort they spare: most steps whose first space holds no block find one in the
    next)."""
    spaces = state.spaces
    if not spaces:
        return
    if ledger is not None:
        ledger.spaces += len(spaces)
    at = _first_at(state, spaces, rule)
    yield at, spaces[at]
    if not state.spaces:
        return
    if ledger is not None:
        ledger.spaces += 2 * len(state.spaces)
    for _ in range(_RESCANS):
        at = _first_at(state, state.spaces, rule)
        yield at, state.spaces[at]
        if not state.spaces:
            return
    spaces = state.spaces
    if ledger is not None:
        # a sort reads each space about log2(n) times, the scans above charged 2n: the
        # rest, in halves (a sort's read costs less than a scan's)
        ledger.spaces += len(spaces) * max(0, len(spaces).bit_length() - 4) // 2
    # (read as objects: compiled, a space read as its tuple type would be built anew)
    keys = cast("dict[object, Any]", _rule_keys(state, rule))
    ranks = [keys[s] for s in cast("list[object]", spaces)]
    for i in sorted(range(len(spaces)), key=ranks.__getitem__):
        yield -1 - i, spaces[i]


#: Spaces after the first that :func:`_in_rule_order` picks by a scan before it sorts the
#: rest.
_RESCANS = 2


def _first_space(state: PackState, spaces: list[SpaceTuple], rule: SpaceRule) -> SpaceTuple:
    """The first of ``spaces`` with the least key of ``rule``: ``min(spaces, key=...)``."""
    return spaces[_first_at(state, spaces, rule)]


def _first_at(state: PackState, spaces: list[SpaceTuple], rule: SpaceRule) -> int:
    """The index of :func:`_first_space`'s space, for the search's own rules computed and
    compared field by field (no key tuple made, and the last field, the space's size, only
    when the others tie: a greedy step asks this of every free space)."""
    corner = rule is space_key_corner
    if not corner and rule is not space_key_floor and rule is not space_key_floor_across:
        keys = _rule_keys(state, rule)
        return min(range(len(spaces)), key=lambda i: keys[spaces[i]])
    across = rule is space_key_floor_across
    length, width = state.L, state.W
    back_x, back_z = state.back_x, state.back_z
    first = 0
    k0 = k1 = k2 = k3 = 0
    for i, s in enumerate(spaces):
        x0, y0, z0, x1, y1, z1 = s
        # _wall_distances, inlined
        dx = x0 if back_x or x0 <= length - x1 else length - x1
        dz = z0 if back_z or z0 <= width - z1 else width - z1
        if corner:  # (dx, y0, dz) ascending, then the larger space
            a, b, c = dx, y0, dz
            if a > b:
                a, b = b, a
            if b > c:
                b, c = c, b
                if a > b:
                    a, b = b, a
        elif across:
            a, b, c = y0, dz, dx
        else:
            a, b, c = y0, dx, dz
        if i > 0 and (a > k0 or (a == k0 and (b > k1 or (b == k1 and c > k2)))):
            continue  # the common case: decided before the size is needed
        # the size: the volume (corner), or the floor area, larger first
        d = -(x1 - x0) * (z1 - z0)
        if corner:
            d *= y1 - y0
        if i == 0 or a < k0 or b < k1 or c < k2 or d < k3:
            # (past the test above, the key is at most the best's in order, so it is less
            # exactly when one of its fields is)
            first, k0, k1, k2, k3 = i, a, b, c, d
    return first


def next_blocks(
    state: PackState, width: int, rule: SpaceRule, budget: Budget | None = None
) -> list[Move]:
    """Up to ``width`` feasible blocks for the space the rule picks; spaces that hold no
    feasible block are dropped on the way. Empty when the container is done. Its work is
    charged to ``budget``."""
    if budget is None:
        return _next_blocks(state, width, rule, None)
    ledger = Ledger()
    found = _next_blocks(state, width, rule, ledger)
    ledger.charge(budget)
    return found


def _next_blocks(
    state: PackState, width: int, rule: SpaceRule, ledger: Ledger | None
) -> list[Move]:
    """:func:`next_blocks`, its work counted in ``ledger`` (None: not counted).

    The spaces that hold no block are dropped: those found by a scan at once (the next
    scan reads the list), those from the sorted rest all together when the step ends
    (:func:`_drop_at`), as removing each would search the list again."""
    dropped: list[int] = []
    for at, picked in _in_rule_order(state, rule, ledger):
        s = picked  # the space to fill
        found: list[Move] = []
        shapes = set()
        # A raised space may reach beyond the surfaces it stands on: when its own
        # candidates give too few blocks, those of its part above the surfaces follow.
        own = True  # the space's own candidates (then those of its supported part)
        for part in (s, _supported_part(state, s)):
            if part is None or len(found) >= width:
                break
            # one block wanted: rows that cannot be the best are not made until needed
            cands = candidates(state, part, best_only=width == 1)
            checked = state.checked
            tried = 0
            for c in cands.rows():
                # (type, extents of the block)
                shape = (c[1], c[3] * c[6], c[4] * c[7], c[5] * c[8])
                if shape in shapes:
                    continue
                tried += 1
                b = block_at(state, part, c)
                if b is not None:
                    shapes.add(shape)
                    found.append(b)
                    if len(found) >= width:
                        break
            if ledger is not None:
                # What this step read: (for the supported part, the surfaces at its
                # floor) the (type, orientation) pairs and candidate blocks, the blocks
                # tried and the surfaces (and blocks) checked for them.
                ledger.add_ranked(
                    cands,
                    BLOCK_READ * tried
                    + state.checked
                    - checked
                    + (0 if own else len(state.tops.get(part[1], ()))),
                )
            own = False
        if found:
            if dropped:
                _drop_at(state, dropped)
            return found
        if at >= 0:
            del state.spaces[at]
        else:
            dropped.append(-1 - at)
    if dropped:
        _drop_at(state, dropped)
    return []


def _drop_at(state: PackState, dropped: list[int]) -> None:
    """Drop the free spaces at the indexes ``dropped`` (distinct, any order): a few one by
    one from the last, more in one pass."""
    if len(dropped) <= _DROPS_ONE_BY_ONE:
        for i in sorted(dropped, reverse=True):
            del state.spaces[i]
        return
    gone = set(dropped)
    kept: list[object] = []
    # (as objects: compiled, a space read as its tuple type would be built anew)
    for i, s in enumerate(cast("list[object]", state.spaces)):
        if i not in gone:
            kept.append(s)
    state.spaces = cast("list[SpaceTuple]", kept)


#: Spaces :func:`_drop_at` deletes one by one; more go in one pass.
_DROPS_ONE_BY_ONE = 8


def greedy(state: PackState, rule: SpaceRule, budget: Budget | None = None) -> PackState:
    """Complete ``state`` in place, always taking the best feasible block.

    Its work is charged to ``budget``, at once when it ends (:class:`Ledger`); a completion
    always finishes (an exhausted budget only stops the search that calls it).
    """
    ledger = None if budget is None else Ledger()
    while True:
        nb = _next_blocks(state, 1, rule, ledger)
        if not nb:
            break
        splits = state.place(nb[0])
        if ledger is not None:
            ledger.splits += splits
    if budget is not None and ledger is not None:
        ledger.charge(budget)
    return state
