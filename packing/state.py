"""The state of one container while it is being packed.

Free space is kept as *empty maximal spaces* (EMS): axis-aligned cuboids, each as large
as it can be, that together cover every free point of the container and may overlap each
other (Lai & Chan 1997; Parreño et al. 2008). Placing a cuboid splits every space it
intersects into at most six residual spaces; spaces inside others and spaces too small for
any remaining piece are dropped.

Every strategy places *blocks*: ``nx × ny × nz`` copies of one piece type in one
orientation (a single piece is the 1 × 1 × 1 block). A block is a solid cuboid, so the
pieces of its upper layers rest fully on its lower layer and only the bottom layer needs
the support check.

All lengths are integer millimetres; nothing is decided by float comparison.

The free spaces, the support surfaces and the orientations of each piece type are read
millions of times per search, so they are stored as plain tuples (the first two laid out
as :class:`Space` and :class:`SupportRect`): CPython reads the items of a tuple subclass
such as a NamedTuple about three times slower than those of a tuple, and as NamedTuples
they made a search execute about 11 % more instructions. The named forms come from
:meth:`PackState.free_spaces` and :meth:`PackState.supports_at`, and a strategy works on
the space it fills as a :class:`Space`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from typing import TYPE_CHECKING, Final, NamedTuple, cast

from mypy_extensions import mypyc_attr

from packing.geometry import (
    Box,
    above_or_in_front,
    extents,
    precedes,
    rests_on,
)
from packing.model import ContainerType, Piece

if TYPE_CHECKING:
    from packing.strategies.general import GeneralBlocks


#: What the rules' checks add to :attr:`PackState.checked`, the count that
#: :data:`~packing.strategies.base.Budget.CHECK` prices. A support surface (or, for a piece
#: of a block's bottom layer, a surface beside it) read by a support test counts 1; the test
#: itself, its call and the block it decides on, counts SUPPORT_TEST more; a placed block
#: read by the stacking and order rules counts BLOCK_READ, and so does a block a search
#: tries at a free space. A test reads 1 to 5 surfaces in most plans, but about 50 in a
#: trailer loaded with thousands of parcels, where the reads cost far less than the tests
#: (compiled: about 230 ns a test and 15 ns a surface beyond it). Priced at one rate, the
#: reads made such a plan's units 1.3-1.7 times its CPU while the other plans read 0.8-1.0.
#: (Final: the compiled module reads them as constants, not from the module's globals.)
SUPPORT_TEST: Final = 4
BLOCK_READ: Final = 2


@mypyc_attr(native_class=False)  # a NamedTuple's subclass stays a Python class when compiled
class Space(Box):
    """An empty maximal space: a free cuboid of the container, as large as it can be [mm].

    A :class:`~packing.geometry.Box` (minimum corner back, floor, left; maximum corner front,
    ceiling, right); :attr:`PackState.spaces` holds them as plain :data:`SpaceTuple` in this
    layout.
    """

    __slots__ = ()


class SupportRect(NamedTuple):
    """The top face of a placed block, a surface other blocks may stand on [mm].

    :attr:`PackState.tops` holds them as plain :data:`SupportTuple` in this layout, under
    the height of the face [mm].

    Attributes
    ----------
    x0, z0 : int
        Minimum corner of the face in the floor plane [mm].
    x1, z1 : int
        Maximum corner of the face in the floor plane [mm].
    may_support : bool
        False for pieces that allow nothing on top: nothing may rest on any part of it.
    """

    x0: int
    z0: int
    x1: int
    z1: int
    may_support: bool


#: A free space as stored: ``(x0, y0, z0, x1, y1, z1)`` [mm], the layout of :class:`Space`.
SpaceTuple = tuple[int, int, int, int, int, int]

#: A support surface as stored: ``(x0, z0, x1, z1, may_support)`` [mm], the layout of
#: :class:`SupportRect`.
SupportTuple = tuple[int, int, int, int, bool]


#: One allowed orientation of a piece type and its extents, as stored (plain, it is read
#: in the hottest loop): ``(orientation, ex, ey, ez)``, index 0..5 then extents along
#: X, Y, Z [mm].
OrientTuple = tuple[int, int, int, int]


class PieceBox(NamedTuple):
    """One placed piece of a final state.

    Attributes
    ----------
    type_index : int
        Index of its :class:`PieceType`.
    orientation : int
        Orientation index 0..5.
    box : Box
        The cuboid it fills [mm].
    """

    type_index: int
    orientation: int
    box: Box


@dataclass(slots=True)
class PieceType:
    """Identical pieces of one cargo item, as the engines see them.

    Attributes
    ----------
    index : int
        Position in the problem's type list.
    dims : tuple of int
        (L, H, W) [mm].
    orients : list of OrientTuple
        ``(orientation, ex, ey, ez)`` for every allowed distinct orientation [mm].
    pieces : list of Piece
        The pieces of this type still to be packed (popped as they are placed).
    weight_kg : float
        Mass of one piece [kg].
    no_top : bool
        Nothing may rest on these pieces.
    floor_only : bool
        These pieces stand on the container floor.
    priority : int
        Unload priority (higher is unloaded earlier).
    manual_rank : int or None
        Request order for MANUAL loading, None for OPTIMAL.
    """

    index: int
    dims: tuple[int, int, int]
    orients: list[OrientTuple]
    pieces: list[Piece]
    weight_kg: float
    no_top: bool
    floor_only: bool
    priority: int
    manual_rank: int | None
    volume: int = field(init=False)

    def __post_init__(self) -> None:
        self.volume = self.dims[0] * self.dims[1] * self.dims[2]


_ITEM_ID = attrgetter("item_id")
_INSTANCE = attrgetter("instance")


#: The orientations and extents of a piece, by its sides and allowed orientations: a plan
#: groups the pieces it offers each container (10,000 distinct pieces: 1,000 a container,
#: each piece a dozen times or more). Shared by the types made (no one changes them).
_ORIENTS: dict[tuple[tuple[int, ...], tuple[int, ...]], list[OrientTuple]] = {}
_ORIENTS_MOST = 20_000


def group_pieces(pieces: Sequence[Piece]) -> list[PieceType]:
    """Group pieces into types: one per cargo item (pieces of an item are identical)."""
    by_item: dict[str, list[Piece]] = {}
    # an item's pieces usually come together: runs are grouped without a lookup per piece
    for item, run in groupby(pieces, key=_ITEM_ID):
        group = by_item.get(item)
        if group is None:
            by_item[item] = list(run)
        else:
            group.extend(run)
    types: list[PieceType] = []
    for i, (_, group) in enumerate(by_item.items()):
        first = group[0]
        rules_key = (tuple(first.dims), tuple(first.rules.orientations))
        orients = _ORIENTS.get(rules_key)
        if orients is None:
            orients = [(o, *extents(first.dims, o)) for o in first.orientations]
            if len(_ORIENTS) >= _ORIENTS_MOST:
                _ORIENTS.clear()
            _ORIENTS[rules_key] = orients
        r = first.rules
        types.append(
            PieceType(
                index=i,
                dims=first.dims,
                orients=orients,
                pieces=sorted(group, key=_INSTANCE, reverse=True),
                weight_kg=first.weight_kg,
                no_top=not r.stack_on_top,
                floor_only=not r.stack_under,
                priority=r.unload_priority,
                manual_rank=first.item_order if r.manual_order else None,
            )
        )
    return types


#: :func:`type_min_extents`, the type indexes in order of them along each axis, the
#: indexes of the types that must stand on the floor and :func:`types_by_volume`'s list, by
#: type list (the list is kept to check identity; types do not change during a search).
_TYPE_MINS: dict[
    int,
    tuple[
        list[PieceType],
        list[tuple[int, int, int]],
        tuple[list[int], list[int], list[int]],
        list[int],
        list[PieceType],
    ],
] = {}


def _type_mins(
    types: list[PieceType],
) -> tuple[list[tuple[int, int, int]], tuple[list[int], list[int], list[int]], list[int]]:
    hit = _TYPE_MINS.get(id(types))
    if hit is not None and hit[0] is types:
        return hit[1], hit[2], hit[3]
    entry = _type_entry(types)
    return entry[1], entry[2], entry[3]


def _type_entry(
    types: list[PieceType],
) -> tuple[
    list[PieceType],
    list[tuple[int, int, int]],
    tuple[list[int], list[int], list[int]],
    list[int],
    list[PieceType],
]:
    """The entry of ``types`` in :data:`_TYPE_MINS`, made when there is none."""
    hit = _TYPE_MINS.get(id(types))
    if hit is not None and hit[0] is types:
        return hit
    mins = [
        (min(o[1] for o in t.orients), min(o[2] for o in t.orients), min(o[3] for o in t.orients))
        for t in types
    ]
    orders = (
        sorted(range(len(types)), key=lambda i: mins[i][0]),
        sorted(range(len(types)), key=lambda i: mins[i][1]),
        sorted(range(len(types)), key=lambda i: mins[i][2]),
    )
    floor_only = [t.index for t in types if t.floor_only]
    # (stable: types of equal volume keep their order)
    by_volume = sorted(types, key=lambda t: -t.volume * len(t.pieces))
    entry = (types, mins, orders, floor_only, by_volume)
    if len(_TYPE_MINS) >= 8:  # the searches running at once; keeps few type lists alive
        _TYPE_MINS.clear()
    _TYPE_MINS[id(types)] = entry
    return entry


def _axis_without(
    mins: list[tuple[int, int, int]], order: list[int], counts: list[int], at: list[int], axis: int
) -> tuple[int, int, int]:
    """:meth:`PackState.extents_without` along one axis: the smallest extent left, the
    second smallest and the type of the smallest, the walk's pointers (``at[axis]``, and
    ``at[3 + axis]`` when a type is left) moved on past the types used up. (Compiled, the three come back as
    plain numbers, not a tuple object.)"""
    none = 1 << 60
    n = len(order)
    k = at[axis]
    while k < n and counts[order[k]] <= 0:
        k += 1
    at[axis] = k
    if k >= n:
        return (none, none, -1)
    i = order[k]
    j = at[3 + axis]
    if j <= k:
        j = k + 1
    while j < n and counts[order[j]] <= 0:
        j += 1
    at[3 + axis] = j
    return (mins[i][axis], mins[order[j]][axis] if j < n else none, i)


def type_min_extents(types: list[PieceType]) -> list[tuple[int, int, int]]:
    """Smallest extent along X, Y, Z [mm] of each type over its orientations (computed once
    per type list)."""
    return _type_mins(types)[0]


def floor_only_types(types: list[PieceType]) -> list[int]:
    """Indexes of the types that must stand on the floor (computed once per type list)."""
    return _type_mins(types)[2]


def types_by_volume(types: list[PieceType]) -> list[PieceType]:
    """The types by the volume of all their pieces, largest first (equal volumes in the
    list's order; computed once per type list): no block of a type holds more than that, so
    a ranking that wants only the best block may stop at the first type whose volume falls
    below the best block's score."""
    return _type_entry(types)[4]


def _inside_any(s: SpaceTuple, spaces: list[SpaceTuple]) -> bool:
    """Is space ``s`` inside one of ``spaces`` (:func:`~packing.geometry.contains`, written
    out: the free-space update runs it for every pair of new and kept spaces)?"""
    a0, a1, a2, a3, a4, a5 = s
    for o0, o1, o2, o3, o4, o5 in spaces:
        if o0 <= a0 and o1 <= a1 and o2 <= a2 and a3 <= o3 and a4 <= o4 and a5 <= o5:
            return True
    return False


class Block:
    """A block of identical pieces: ``n`` = (nx, ny, nz) pieces of one type in one orientation.

    A plain class, not a dataclass: the compiled module builds its own ``__init__`` for
    it, where a dataclass's generated one would run as interpreted Python at every block
    a step makes. Blocks compare equal by their fields, as a dataclass's would.

    Attributes
    ----------
    type_index : int
        Index of the pieces' :class:`PieceType`.
    orientation : int
        Orientation index 0..5 of every piece.
    pos : tuple of int
        Minimum corner of the block (x, y, z) [mm].
    ext : tuple of int
        Extents of one piece along X, Y, Z [mm].
    n : tuple of int
        Pieces along X, Y, Z.
    """

    __slots__ = ("_box", "ext", "n", "orientation", "pos", "type_index")

    def __init__(
        self,
        type_index: int,
        orientation: int,
        pos: tuple[int, int, int],
        ext: tuple[int, int, int],
        n: tuple[int, int, int],
    ) -> None:
        self.type_index = type_index
        self.orientation = orientation
        self.pos = pos
        self.ext = ext
        self.n = n
        self._box: Box | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Block):
            return False
        return (
            self.type_index == other.type_index
            and self.orientation == other.orientation
            and self.pos == other.pos
            and self.ext == other.ext
            and self.n == other.n
        )

    def __repr__(self) -> str:
        return (
            f"Block(type_index={self.type_index!r}, orientation={self.orientation!r}, "
            f"pos={self.pos!r}, ext={self.ext!r}, n={self.n!r})"
        )

    @property
    def box(self) -> Box:
        """The cuboid the block fills [mm] (computed once)."""
        b = self._box
        if b is None:
            x, y, z = self.pos
            ext, n = self.ext, self.n
            b = self._box = Box(x, y, z, x + ext[0] * n[0], y + ext[1] * n[1], z + ext[2] * n[2])
        return b

    @property
    def count(self) -> int:
        return self.n[0] * self.n[1] * self.n[2]


#: What a search places in one step: a simple block, or the simple blocks of a general
#: block (:mod:`packing.strategies.general`), lower ones first.
Move = Block | tuple[Block, ...]


class PackState:
    """Free space, support surfaces and placed blocks of one container.

    Parameters
    ----------
    container : ContainerType or None
        None together with ``types`` None makes an empty shell whose fields the caller sets
        (:meth:`copy` does); one of the two alone is a TypeError.
    types : list of PieceType or None
        Shared with copies; only ``counts`` changes during packing.
    support_ratio : float
        Minimum fraction of a raised piece's base resting on tops at its bottom height.
    counts : list of int, optional
        Pieces of each type still available (default: all of them).
    """

    __slots__ = (
        "H",
        "L",
        "W",
        "back_x",
        "back_z",
        "blocks",
        "check_order",
        "checked",
        "counts",
        "door",
        "general",
        "min_at",
        "min_ext",
        "payload_left",
        "placed_volume",
        "rank_by_footprint",
        "spaces",
        "support_ratio",
        "tops",
        "types",
    )

    def __init__(
        self,
        container: ContainerType | None,
        types: list[PieceType] | None,
        support_ratio: float,
        counts: list[int] | None = None,
    ) -> None:
        if container is None and types is None:
            # an empty shell whose fields the caller sets (copy()): compiled (README,
            # "Compiled engine modules"), the class cannot be made without calling this
            return
        if container is None or types is None:
            raise TypeError("PackState needs both a container and its piece types")
        self.L, self.H, self.W = container.inner
        self.door = container.loading_side
        self.types = types
        self.counts = counts if counts is not None else [len(t.pieces) for t in types]
        self.support_ratio = support_ratio
        self.payload_left = (
            float("inf") if container.max_payload_kg is None else float(container.max_payload_kg)
        )
        self.spaces: list[SpaceTuple] = [(0, 0, 0, self.L, self.H, self.W)]
        # Support surfaces by the height of their top [mm].
        self.tops: dict[int, list[SupportTuple]] = {}
        self.blocks: list[Block] = []
        self.placed_volume = 0
        #: Rank candidate blocks by the floor area they cover before their volume (see
        #: :func:`packing.strategies.blocks.candidates`); set by the search.
        self.rank_by_footprint = False
        priorities = {t.priority for t in types}
        self.check_order = len(priorities) > 1 or any(t.manual_rank is not None for t in types)
        #: Fill from the wall opposite the door (along X for a FRONT door, Z for SIDE) rather
        #: than from the nearer end: with unload priorities or MANUAL order the pieces placed
        #: first must lie deepest, and one put by the door would leave no room before it.
        self.back_x = self.check_order and self.door == "FRONT"
        self.back_z = self.check_order and self.door == "SIDE"
        #: Where along each axis's order of the types' smallest extents the first type with
        #: pieces left stands (the first three), and the second (the last three): counts
        #: only fall, so each only moves on (:meth:`_min_extents`, :meth:`extents_without`).
        self.min_at = [0, 0, 0, 0, 0, 0]
        self.min_ext = self._min_extents()
        #: The checks' work so far, in surface reads (:data:`SUPPORT_TEST`,
        #: :data:`BLOCK_READ`): what a search's budget charges for them.
        self.checked = 0
        #: General blocks the search may place besides simple ones
        #: (:class:`packing.strategies.general.GeneralBlocks`), set by the search; shared
        #: with copies.
        self.general: GeneralBlocks | None = None

    # -- copying ---------------------------------------------------------------------------
    def copy(self) -> PackState:
        new = PackState(None, None, 0.0)
        new.L, new.H, new.W = self.L, self.H, self.W
        new.door = self.door
        new.types = self.types
        new.counts = list(self.counts)
        new.support_ratio = self.support_ratio
        new.payload_left = self.payload_left
        new.spaces = list(self.spaces)
        new.tops = {y: list(r) for y, r in self.tops.items()}
        new.blocks = list(self.blocks)
        new.placed_volume = self.placed_volume
        new.rank_by_footprint = self.rank_by_footprint
        new.check_order = self.check_order
        new.back_x, new.back_z = self.back_x, self.back_z
        new.min_at = list(self.min_at)
        new.min_ext = self.min_ext
        new.checked = 0
        new.general = self.general
        return new

    # -- queries ---------------------------------------------------------------------------
    def _min_extents(self) -> tuple[int, int, int]:
        """The smallest extents along X, Y, Z of the pieces left [mm] (``1 << 60`` for
        none), as :meth:`extents_without` finds them: from where the last call found them
        (:attr:`min_at`), so a state's calls together read each type once. Cargo of single
        pieces ends a type at every placement: a scan of every type each time cost a sixth
        of a plan of 151 pallets on vehicles."""
        e = self.extents_without()
        return (e[0], e[1], e[2])

    def extents_without(self) -> tuple[int, int, int, int, int, int, int, int, int]:
        """The smallest extents along X, Y, Z of the pieces left [mm] (``min_ext``), the
        second smallest (those left once every piece of the type with the smallest is
        placed; equal to the smallest when two types share it) and the index of the type
        with the smallest (the first in index order among equals; -1 for none). ``1 << 60``
        where there is none.

        Each along each axis is the next type with pieces left in the order of the types'
        smallest extents from where the last call found it (:attr:`min_at`: the first
        three, the smallest; the last three, the second): the calls of a state read each
        type once. A scan of every type for every candidate
        ranking, and the list of every type's it made, cost a tenth of a plan of 10,000
        distinct pieces."""
        mins, orders, _ = _type_mins(self.types)
        counts = self.counts
        at = self.min_at
        x = _axis_without(mins, orders[0], counts, at, 0)
        y = _axis_without(mins, orders[1], counts, at, 1)
        z = _axis_without(mins, orders[2], counts, at, 2)
        return (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])

    def max_by_weight(self, t: PieceType) -> int:
        """How many pieces of ``t`` the remaining payload allows."""
        if t.weight_kg <= 0 or self.payload_left == float("inf"):
            return 1 << 60
        # A tiny tolerance keeps exact sums (e.g. 3 × 0.1 kg into 0.3 kg) allowed.
        count = (self.payload_left + 1e-9) // t.weight_kg
        # a weight near zero (2.3e-308 kg) makes the quotient overflow to infinity
        return 1 << 60 if not count < 1 << 60 else int(count)

    def supported(self, x: int, y: int, z: int, ex: int, ez: int, nx: int, nz: int) -> bool:
        """Is a block bottom layer of ``nx × nz`` pieces of ``ex × ez`` at height ``y`` held?

        Every bottom piece needs ``support_ratio`` of its base on support surfaces at
        exactly ``y``, and no part of it may rest on a surface that must stay free.
        """
        if y == 0:
            return True
        rects = self.tops.get(y)
        if not rects:
            return False
        self.checked += SUPPORT_TEST + len(rects)
        bx1 = x + ex * nx
        bz1 = z + ez * nz
        touching = []
        covered = 0
        for r in rects:
            rx0, rz0, rx1, rz1, may_support = r
            ix = min(bx1, rx1) - max(x, rx0)
            if ix <= 0:
                continue
            iz = min(bz1, rz1) - max(z, rz0)
            if iz <= 0:
                continue
            if not may_support:
                return False
            covered += ix * iz
            touching.append(r)
        if covered == (bx1 - x) * (bz1 - z):
            return True
        need = self.support_ratio * ex * ez
        self.checked += nx * nz * len(touching)
        for i in range(nx):
            px0 = x + i * ex
            px1 = px0 + ex
            for k in range(nz):
                pz0 = z + k * ez
                pz1 = pz0 + ez
                c = 0
                for rx0, rz0, rx1, rz1, _ in touching:
                    ix = min(px1, rx1) - max(px0, rx0)
                    if ix <= 0:
                        continue
                    iz = min(pz1, rz1) - max(pz0, rz0)
                    if iz > 0:
                        c += ix * iz
                if c < need:
                    return False
        return True

    def allows(self, t: PieceType, box: Box) -> bool:
        """Stacking, unload-priority and MANUAL rules kept if a block of ``t`` fills ``box``.

        (Support is checked by :meth:`supported`; bounds and overlap hold for any block
        inside a free space.)
        """
        if t.no_top:
            self.checked += BLOCK_READ * len(self.blocks)
            if any(rests_on(b.box, box) for b in self.blocks):
                return False  # something already placed would rest on it
        return self.order_ok(t, box)

    def order_ok(self, t: PieceType, box: Box) -> bool:
        """Unload priority and MANUAL order kept if a block of ``t`` goes at ``box``."""
        if not self.check_order:
            return True
        self.checked += BLOCK_READ * len(self.blocks)
        door = self.door
        for b in self.blocks:
            o = self.types[b.type_index]
            ob = b.box
            if o.priority < t.priority and above_or_in_front(box, ob, door):
                return False
            if o.priority > t.priority and above_or_in_front(ob, box, door):
                return False
            if t.manual_rank is not None and o.manual_rank is not None:
                if o.manual_rank < t.manual_rank and precedes(box, ob, door):
                    return False
                if o.manual_rank > t.manual_rank and precedes(ob, box, door):
                    return False
        return self._manual_paths_ok(t, box)

    def _manual_paths_ok(self, t: PieceType, box: Box) -> bool:
        """No chain of precedences through the new block puts a later MANUAL piece before
        an earlier one: neither the new block itself (when it is MANUAL) nor any MANUAL
        piece that must go in before it is later than the new block or any MANUAL piece
        that must go in after it. A block of another item counts too: put between two
        MANUAL pieces it can link them in the wrong order.

        The precedences read are added to :attr:`checked` (the search's budget charges
        them): the chains are the costliest check of a plan with MANUAL pieces.
        """
        ranks = [self.types[b.type_index].manual_rank for b in self.blocks]
        rank = t.manual_rank
        if rank is None and all(r is None for r in ranks):
            return True
        door = self.door
        boxes = [b.box for b in self.blocks]
        before = self._reachable(boxes, lambda a, b: precedes(b, a, door), box)
        latest_before = max(
            (r for r in (rank, *(ranks[i] for i in before)) if r is not None), default=None
        )
        if latest_before is None:
            return True  # no MANUAL piece before it, nor itself: no chain to break
        after = self._reachable(boxes, lambda a, b: precedes(a, b, door), box)
        earliest_after = min(
            (r for r in (rank, *(ranks[i] for i in after)) if r is not None), default=None
        )
        return earliest_after is None or latest_before <= earliest_after

    def _reachable(
        self, boxes: list[Box], edge: Callable[[Box, Box], bool], start: Box
    ) -> set[int]:
        """Indexes of the boxes reachable from ``start`` along ``edge``; the edges read
        are added to :attr:`checked`."""
        seen: set[int] = set()
        stack = [i for i, ob in enumerate(boxes) if edge(start, ob)]
        read = len(boxes)
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            read += len(boxes) - len(seen)
            stack.extend(j for j, ob in enumerate(boxes) if j not in seen and edge(boxes[i], ob))
        self.checked += BLOCK_READ * read
        return seen

    def anchor(self, s: SpaceTuple, bx: int, bz: int) -> tuple[int, int, int]:
        """Where a block of footprint ``bx × bz`` goes in space ``s``: on the space's floor,
        in the corner nearest to a container corner (along the door's axis, when the order
        of the pieces matters, the corner away from the door: :attr:`back_x`)."""
        x0, y0, z0, x1, _, z1 = s
        x = x0 if self.back_x or x0 <= self.L - x1 else x1 - bx
        z = z0 if self.back_z or z0 <= self.W - z1 else z1 - bz
        return (x, y0, z)

    # -- changes ---------------------------------------------------------------------------
    def place(self, blk: Move) -> int:
        """Put a block in (or the simple blocks of a general block, lower ones first);
        updates spaces, support surfaces, counts and payload.

        Returns
        -------
        int
            The work of the update: free spaces examined, plus containment tests of the
            new spaces (what a search's :class:`~packing.strategies.base.Budget` charges).
        """
        if isinstance(blk, tuple):
            return sum(self.place(b) for b in blk)
        t = self.types[blk.type_index]
        cnt = blk.count
        self.counts[blk.type_index] -= cnt
        if self.counts[blk.type_index] < 0:
            raise RuntimeError("placed more pieces than the type holds")
        if t.weight_kg > 0:
            self.payload_left -= t.weight_kg * cnt
        self.placed_volume += t.volume * cnt
        self.blocks.append(blk)
        # the block's cuboid as a plain tuple (its named Box is made when first asked for)
        bx0, by0, bz0 = blk.pos
        ext, n = blk.ext, blk.n
        bx1, by1, bz1 = bx0 + ext[0] * n[0], by0 + ext[1] * n[1], bz0 + ext[2] * n[2]
        self.tops.setdefault(by1, []).append((bx0, bz0, bx1, bz1, not t.no_top))
        min_grew = False
        if self.counts[blk.type_index] == 0:
            # the smallest extents left can grow only along an axis where this type had them
            old = self.min_ext
            ex, ey, ez = type_min_extents(self.types)[blk.type_index]
            if ex == old[0] or ey == old[1] or ez == old[2]:
                self.min_ext = self._min_extents()
                min_grew = self.min_ext != old
        return self._split_spaces((bx0, by0, bz0, bx1, by1, bz1), min_grew)

    def _split_spaces(self, box: SpaceTuple, min_grew: bool) -> int:
        """Replace every space ``box`` cuts into by its residual spaces that can still
        hold a piece, and drop those inside another space; returns the work done (spaces
        examined and containment tests).

        Every free space can hold the smallest extents left (``min_ext``) along each
        axis; a residual space keeps its parent's extents but along the axis it was cut,
        which is checked. So only when ``min_grew`` (the last piece of a type went in and
        ``min_ext`` grew) are all the spaces filtered again."""
        bx0, by0, bz0, bx1, by1, bz1 = box
        mx, my, mz = self.min_ext
        # The kept spaces are the list's own objects: compiled, a space read into its six
        # fields and appended would be built anew (a tuple and its integers) at every step,
        # for every space, which cost most of this loop with thousands of spaces. So the
        # loop holds each as a plain object beside its fields.
        keep: list[object] = []
        # (face, space): the residual spaces, each with the face of the box it lies against
        new: list[tuple[int, SpaceTuple]] = []
        # the kept spaces that lie against each face of the box (see below)
        touching: list[list[object]] = [[], [], [], [], [], []]
        for kept in cast("list[object]", self.spaces):
            x0, y0, z0, x1, y1, z1 = cast(SpaceTuple, kept)
            # overlaps(box, s), written out: this loop is the hottest of the engine
            if bx0 >= x1 or bx1 <= x0 or by0 >= y1 or by1 <= y0 or bz0 >= z1 or bz1 <= z0:
                keep.append(kept)
                if x1 == bx0:
                    touching[0].append(kept)
                if x0 == bx1:
                    touching[1].append(kept)
                if y1 == by0:
                    touching[2].append(kept)
                if y0 == by1:
                    touching[3].append(kept)
                if z1 == bz0:
                    touching[4].append(kept)
                if z0 == bz1:
                    touching[5].append(kept)
                continue
            if bx0 - x0 >= mx:
                new.append((0, (x0, y0, z0, bx0, y1, z1)))
            if x1 - bx1 >= mx:
                new.append((1, (bx1, y0, z0, x1, y1, z1)))
            if by0 - y0 >= my:
                new.append((2, (x0, y0, z0, x1, by0, z1)))
            if y1 - by1 >= my:
                new.append((3, (x0, by1, z0, x1, y1, z1)))
            if bz0 - z0 >= mz:
                new.append((4, (x0, y0, z0, x1, y1, bz0)))
            if z1 - bz1 >= mz:
                new.append((5, (x0, y0, bz1, x1, y1, z1)))
        # Drop new spaces contained in another space (kept or new). A residual space lies
        # against a face of the box and overlaps the box's inside along the other two axes
        # (its parent overlapped the box along every axis), so a kept space (which does not
        # overlap the box) can hold it only by lying against the same face: the residual
        # space cut off below x = bx0 fits only in a kept space that ends at x = bx0. A new
        # space of another face cannot hold it either: that one ends at its own face, so
        # it does not reach into the box along an axis where this one does (or, for the
        # opposite face, lies on the other side of the box). Only the spaces of the same
        # face are tested, and the work counts those tests (the budget's price of a split
        # was fitted to this count: the spaces examined, the new ones sorted, the tests).
        work = len(self.spaces)
        result = cast("list[SpaceTuple]", keep)
        if new:
            new.sort(
                key=lambda fs: (
                    (fs[1][3] - fs[1][0]) * (fs[1][4] - fs[1][1]) * (fs[1][5] - fs[1][2])
                ),
                reverse=True,
            )
            work += len(new)
            accepted: list[SpaceTuple] = []
            # the accepted new spaces by face, the only ones that can hold a new space
            by_face: list[list[SpaceTuple]] = [[], [], [], [], [], []]
            for face, s in new:
                against = cast("list[SpaceTuple]", touching[face])
                work += len(against)
                if _inside_any(s, against):
                    continue
                work += len(by_face[face])
                if not _inside_any(s, by_face[face]):
                    accepted.append(s)
                    by_face[face].append(s)
            result = result + accepted
        if min_grew:
            if self.min_ext == (1 << 60, 1 << 60, 1 << 60):
                result = []  # every piece is in
            else:
                kept_all: list[object] = []
                for kept in cast("list[object]", result):  # the same objects, as above
                    x0, y0, z0, x1, y1, z1 = cast(SpaceTuple, kept)
                    if x1 - x0 >= mx and y1 - y0 >= my and z1 - z0 >= mz:
                        kept_all.append(kept)
                result = cast("list[SpaceTuple]", kept_all)
        self.spaces = result
        return work

    def drop_space(self, s: SpaceTuple) -> None:
        """Forget free space ``s`` (a :class:`Space` or its plain tuple)."""
        self.spaces.remove(s)

    def free_spaces(self) -> list[Space]:
        """The free spaces, named [mm]."""
        return [Space._make(s) for s in self.spaces]

    def supports_at(self, height: int) -> list[SupportRect]:
        """The surfaces whose top is at ``height`` [mm], named."""
        return [SupportRect._make(r) for r in self.tops.get(height, ())]

    # -- results ---------------------------------------------------------------------------
    def piece_boxes(self) -> list[PieceBox]:
        """Every placed piece, block by block."""
        out = []
        for b in self.blocks:
            ex, ey, ez = b.ext
            x, y, z = b.pos
            for i in range(b.n[0]):
                for j in range(b.n[1]):
                    for k in range(b.n[2]):
                        px, py, pz = x + i * ex, y + j * ey, z + k * ez
                        box = Box(px, py, pz, px + ex, py + ey, pz + ez)
                        out.append(PieceBox(b.type_index, b.orientation, box))
        return out
