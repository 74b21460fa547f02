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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from packing.geometry import extents
from packing.model import ContainerType, Piece

Space = tuple[int, int, int, int, int, int]  # x0, y0, z0, x1, y1, z1


@dataclass(slots=True)
class PieceType:
    """Identical pieces of one cargo item, as the engines see them.

    Attributes
    ----------
    index : int
        Position in the problem's type list.
    dims : tuple of int
        (L, H, W) [mm].
    orients : list of tuple
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
    orients: list[tuple[int, int, int, int]]
    pieces: list[Piece]
    weight_kg: float
    no_top: bool
    floor_only: bool
    priority: int
    manual_rank: int | None
    volume: int = field(init=False)

    def __post_init__(self) -> None:
        self.volume = self.dims[0] * self.dims[1] * self.dims[2]


def group_pieces(pieces: Sequence[Piece]) -> list[PieceType]:
    """Group pieces into types: one per cargo item (pieces of an item are identical)."""
    by_item: dict[str, list[Piece]] = {}
    for p in pieces:
        by_item.setdefault(p.item_id, []).append(p)
    types: list[PieceType] = []
    for i, (_, group) in enumerate(by_item.items()):
        first = group[0]
        orients = [(o, *extents(first.dims, o)) for o in first.orientations]
        r = first.rules
        types.append(
            PieceType(
                index=i,
                dims=first.dims,
                orients=orients,
                pieces=sorted(group, key=lambda p: p.instance, reverse=True),
                weight_kg=first.weight_kg,
                no_top=not r.stack_on_top,
                floor_only=not r.stack_under,
                priority=r.unload_priority,
                manual_rank=first.item_order if r.manual_order else None,
            )
        )
    return types


@dataclass(slots=True)
class Block:
    """A placed block: ``n`` = (nx, ny, nz) pieces of ``type_index`` at ``pos``."""

    type_index: int
    orientation: int
    pos: tuple[int, int, int]
    ext: tuple[int, int, int]  # one piece's extents
    n: tuple[int, int, int]

    @property
    def box(self) -> Space:
        x, y, z = self.pos
        return (
            x,
            y,
            z,
            x + self.ext[0] * self.n[0],
            y + self.ext[1] * self.n[1],
            z + self.ext[2] * self.n[2],
        )

    @property
    def count(self) -> int:
        return self.n[0] * self.n[1] * self.n[2]


def contains(outer: Space, inner: Space) -> bool:
    """Is cuboid ``inner`` inside cuboid ``outer`` (boundaries included)?"""
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and outer[2] <= inner[2]
        and inner[3] <= outer[3]
        and inner[4] <= outer[4]
        and inner[5] <= outer[5]
    )


def precedes(a: Space, b: Space, door: str) -> bool:
    """Must the piece at ``a`` be loaded before the piece at ``b``?

    True when ``b`` rests on ``a`` (its bottom at ``a``'s top, footprints overlapping), or
    when ``b`` lies between ``a`` and the door with overlapping projections on the door's
    plane (FRONT door at X = length, SIDE at Z = width, TOP at Y = height).
    """
    ax0, ay0, az0, ax1, ay1, az1 = a
    bx0, by0, bz0, bx1, by1, bz1 = b
    xz = ax0 < bx1 and bx0 < ax1 and az0 < bz1 and bz0 < az1
    if by0 == ay1 and xz:
        return True
    if door == "FRONT":
        return bx0 >= ax1 and ay0 < by1 and by0 < ay1 and az0 < bz1 and bz0 < az1
    if door == "SIDE":
        return bz0 >= az1 and ay0 < by1 and by0 < ay1 and ax0 < bx1 and bx0 < ax1
    return by0 >= ay1 and xz


def above_or_in_front(low: Space, other: Space, door: str) -> bool:
    """Does ``other`` lie on top of ``low`` or between ``low`` and the door?"""
    ax0, _, az0, ax1, ay1, az1 = low
    bx0, by0, bz0, bx1, _, bz1 = other
    if by0 >= ay1 and ax0 < bx1 and bx0 < ax1 and az0 < bz1 and bz0 < az1:
        return True
    return precedes(low, other, door)


class PackState:
    """Free space, support surfaces and placed blocks of one container.

    Parameters
    ----------
    container : ContainerType
    types : list of PieceType
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
        "blocks",
        "check_order",
        "counts",
        "door",
        "min_ext",
        "payload_left",
        "placed_volume",
        "spaces",
        "support_ratio",
        "tops",
        "types",
    )

    def __init__(
        self,
        container: ContainerType,
        types: list[PieceType],
        support_ratio: float,
        counts: list[int] | None = None,
    ) -> None:
        self.L, self.H, self.W = container.inner
        self.door = container.loading_side
        self.types = types
        self.counts = counts if counts is not None else [len(t.pieces) for t in types]
        self.support_ratio = support_ratio
        self.payload_left = (
            float("inf") if container.max_payload_kg is None else float(container.max_payload_kg)
        )
        self.spaces: list[Space] = [(0, 0, 0, self.L, self.H, self.W)]
        # Support surfaces by height: (x0, z0, x1, z1, may_support)
        self.tops: dict[int, list[tuple[int, int, int, int, bool]]] = {}
        self.blocks: list[Block] = []
        self.placed_volume = 0
        priorities = {t.priority for t in types}
        self.check_order = len(priorities) > 1 or any(t.manual_rank is not None for t in types)
        self.min_ext = self._min_extents()

    # -- copying ---------------------------------------------------------------------------
    def copy(self) -> PackState:
        new = object.__new__(PackState)
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
        new.check_order = self.check_order
        new.min_ext = self.min_ext
        return new

    # -- queries ---------------------------------------------------------------------------
    def _min_extents(self) -> tuple[int, int, int]:
        mx = my = mz = 1 << 60
        for t, c in zip(self.types, self.counts, strict=True):
            if c <= 0:
                continue
            for _, ex, ey, ez in t.orients:
                mx = min(mx, ex)
                my = min(my, ey)
                mz = min(mz, ez)
        return (mx, my, mz)

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
        bx1 = x + ex * nx
        bz1 = z + ez * nz
        touching = []
        covered = 0
        for r in rects:
            rx0, rz0, rx1, rz1, ok = r
            ix = min(bx1, rx1) - max(x, rx0)
            if ix <= 0:
                continue
            iz = min(bz1, rz1) - max(z, rz0)
            if iz <= 0:
                continue
            if not ok:
                return False
            covered += ix * iz
            touching.append(r)
        if covered == (bx1 - x) * (bz1 - z):
            return True
        need = self.support_ratio * ex * ez
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

    def allows(self, t: PieceType, box: Space) -> bool:
        """Stacking, unload-priority and MANUAL rules kept if a block of ``t`` fills ``box``.

        (Support is checked by :meth:`supported`; bounds and overlap hold for any block
        inside a free space.)
        """
        if t.no_top:
            x0, _, z0, x1, y1, z1 = box
            for b in self.blocks:
                bx0, by0, bz0, bx1, _, bz1 = b.box
                if by0 == y1 and bx0 < x1 and x0 < bx1 and bz0 < z1 and z0 < bz1:
                    return False  # something already placed would rest on it
        return self.order_ok(t, box)

    def order_ok(self, t: PieceType, box: Space) -> bool:
        """Unload priority and MANUAL order kept if a block of ``t`` goes at ``box``."""
        if not self.check_order:
            return True
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
        return t.manual_rank is None or self._manual_paths_ok(t, box)

    def _manual_paths_ok(self, t: PieceType, box: Space) -> bool:
        """No chain of precedences forces the new block before an earlier MANUAL piece,
        or after a later one."""
        rank = t.manual_rank
        assert rank is not None
        door = self.door
        boxes = [b.box for b in self.blocks]
        after = self._reachable(boxes, lambda a, b: precedes(a, b, door), box)
        before = self._reachable(boxes, lambda a, b: precedes(b, a, door), box)
        for indexes, wrong in ((after, lambda r: r < rank), (before, lambda r: r > rank)):
            for i in indexes:
                r = self.types[self.blocks[i].type_index].manual_rank
                if r is not None and wrong(r):
                    return False
        return True

    @staticmethod
    def _reachable(
        boxes: list[Space], edge: Callable[[Space, Space], bool], start: Space
    ) -> set[int]:
        """Indexes of the boxes reachable from ``start`` along ``edge``."""
        seen: set[int] = set()
        stack = [i for i, ob in enumerate(boxes) if edge(start, ob)]
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            stack.extend(j for j, ob in enumerate(boxes) if j not in seen and edge(boxes[i], ob))
        return seen

    def anchor(self, s: Space, bx: int, bz: int) -> tuple[int, int, int]:
        """Where a block of footprint ``bx × bz`` goes in space ``s``: on the space's floor,
        in the corner nearest to a container corner."""
        x0, y0, z0, x1, _, z1 = s
        x = x0 if x0 <= self.L - x1 else x1 - bx
        z = z0 if z0 <= self.W - z1 else z1 - bz
        return (x, y0, z)

    # -- changes ---------------------------------------------------------------------------
    def place(self, blk: Block) -> None:
        """Put a block in; updates spaces, support surfaces, counts and payload."""
        t = self.types[blk.type_index]
        cnt = blk.count
        self.counts[blk.type_index] -= cnt
        if self.counts[blk.type_index] < 0:
            raise RuntimeError("placed more pieces than the type holds")
        if t.weight_kg > 0:
            self.payload_left -= t.weight_kg * cnt
        self.placed_volume += t.volume * cnt
        self.blocks.append(blk)
        box = blk.box
        bx0, _, bz0, bx1, by1, bz1 = box
        self.tops.setdefault(by1, []).append((bx0, bz0, bx1, bz1, not t.no_top))
        if self.counts[blk.type_index] == 0:
            self.min_ext = self._min_extents()
        self._split_spaces(box)

    def _split_spaces(self, box: Space) -> None:
        bx0, by0, bz0, bx1, by1, bz1 = box
        mx, my, mz = self.min_ext
        keep: list[Space] = []
        new: list[Space] = []
        for s in self.spaces:
            x0, y0, z0, x1, y1, z1 = s
            if bx0 >= x1 or bx1 <= x0 or by0 >= y1 or by1 <= y0 or bz0 >= z1 or bz1 <= z0:
                keep.append(s)
                continue
            if bx0 - x0 >= mx:
                new.append((x0, y0, z0, bx0, y1, z1))
            if x1 - bx1 >= mx:
                new.append((bx1, y0, z0, x1, y1, z1))
            if by0 - y0 >= my:
                new.append((x0, y0, z0, x1, by0, z1))
            if y1 - by1 >= my:
                new.append((x0, by1, z0, x1, y1, z1))
            if bz0 - z0 >= mz:
                new.append((x0, y0, z0, x1, y1, bz0))
            if z1 - bz1 >= mz:
                new.append((x0, y0, bz1, x1, y1, z1))
        # Drop new spaces contained in another space (kept or new).
        result = keep
        if new:
            new.sort(key=lambda s: (s[3] - s[0]) * (s[4] - s[1]) * (s[5] - s[2]), reverse=True)
            accepted: list[Space] = []
            for s in new:
                if not any(contains(o, s) for o in keep) and not any(
                    contains(o, s) for o in accepted
                ):
                    accepted.append(s)
            result = keep + accepted
        if self.min_ext != (1 << 60, 1 << 60, 1 << 60):
            result = [
                s for s in result if s[3] - s[0] >= mx and s[4] - s[1] >= my and s[5] - s[2] >= mz
            ]
        else:
            result = []
        self.spaces = result

    def drop_space(self, s: Space) -> None:
        self.spaces.remove(s)

    # -- results ---------------------------------------------------------------------------
    def piece_boxes(self) -> list[tuple[int, int, Space]]:
        """Every placed piece as ``(type_index, orientation, box)``."""
        out = []
        for b in self.blocks:
            ex, ey, ez = b.ext
            x, y, z = b.pos
            for i in range(b.n[0]):
                for j in range(b.n[1]):
                    for k in range(b.n[2]):
                        px, py, pz = x + i * ex, y + j * ey, z + k * ez
                        out.append(
                            (b.type_index, b.orientation, (px, py, pz, px + ex, py + ey, pz + ez))
                        )
        return out
