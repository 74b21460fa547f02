"""Orientations, rotation encoding, integer-millimetre conversion and box predicates.

Axes follow the project's convention: X along the container's length, Y vertical,
Z along its width. A piece's base orientation puts its length on X, height on Y and
width on Z; dimensions are always given in that order, ``(L, H, W)``.

The box predicates (:func:`contains`, :func:`overlaps`, :func:`rests_on`,
:func:`precedes`, :func:`above_or_in_front`) are the one definition of these relations
in the engine; :mod:`packing.validate` checks plans with its own, independent code.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, overload

if TYPE_CHECKING:
    import numpy as np

Dims = tuple[int, int, int]


class Box(NamedTuple):
    """An axis-aligned cuboid: its minimum corner, then its maximum corner [mm].

    Attributes
    ----------
    x0, y0, z0 : int
        Minimum corner: back, bottom, left [mm].
    x1, y1, z1 : int
        Maximum corner: front, top, right [mm].
    """

    x0: int
    y0: int
    z0: int
    x1: int
    y1: int
    z1: int


#: Any six coordinates ``(x0, y0, z0, x1, y1, z1)`` [mm]: a :class:`Box`, a free space,
#: or a plain tuple.
BoxLike = tuple[int, int, int, int, int, int]

#: Six coordinate columns of many boxes (numpy arrays) [mm], as :func:`precedes` also takes.
BoxColumns = tuple[
    "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"
]

#: The six orientations: index -> (source dimension on X, on Y, on Z), indexes into (L, H, W).
ORIENTATION_AXES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),  # (L, H, W)
    (2, 1, 0),  # (W, H, L)
    (0, 2, 1),  # (L, W, H)
    (1, 0, 2),  # (H, L, W)
    (2, 0, 1),  # (W, L, H)
    (1, 2, 0),  # (H, W, L)
)

#: The only allowed rotation encoding of each orientation, ``[rx, ry, rz]`` in degrees.
ROTATIONS: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0),
    (0, 90, 0),
    (90, 0, 0),
    (0, 0, 90),
    (90, 0, 90),
    (0, 90, 90),
)

#: Orientations that keep the piece's height vertical (rotation in the floor plane only).
FLOOR_ORIENTATIONS: tuple[int, ...] = (0, 1)
ALL_ORIENTATIONS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)

#: Which source dimension (0 = L, 1 = H, 2 = W) stands vertical in each orientation.
VERTICAL_DIM: tuple[int, ...] = tuple(axes[1] for axes in ORIENTATION_AXES)


def extents(dims: Dims, orientation: int) -> Dims:
    """Extents along (X, Y, Z) of a piece with ``dims`` = (L, H, W) in an orientation.

    Parameters
    ----------
    dims : tuple of int
        Piece length, height, width [mm].
    orientation : int
        Orientation index 0..5 (see :data:`ORIENTATION_AXES`).

    Returns
    -------
    tuple of int
        Extents along X, Y, Z [mm].
    """
    a = ORIENTATION_AXES[orientation]
    return (dims[a[0]], dims[a[1]], dims[a[2]])


def rotation_of(orientation: int) -> tuple[int, int, int]:
    """The ``[rx, ry, rz]`` encoding of an orientation [degrees]."""
    return ROTATIONS[orientation]


def orientation_of_rotation(rotation: Iterable[int]) -> int:
    """The orientation index of a rotation encoding; raises ``ValueError`` for any other."""
    rot = tuple(int(r) for r in rotation)
    try:
        return ROTATIONS.index(rot)
    except ValueError:
        raise ValueError(
            f"rotation must be one of {[list(r) for r in ROTATIONS]} (got {list(rot)})"
        ) from None


def distinct_orientations(dims: Dims, allowed: Iterable[int]) -> tuple[int, ...]:
    """Allowed orientations with pairwise different extents (cubes and squares count once).

    The first orientation (lowest index) of each group of identical extents is kept.
    """
    seen: set[Dims] = set()
    out: list[int] = []
    for o in sorted(set(allowed)):
        e = extents(dims, o)
        if e not in seen:
            seen.add(e)
            out.append(o)
    return tuple(out)


def orientations_with_vertical(vertical_ok: tuple[bool, bool, bool]) -> tuple[int, ...]:
    """Orientations whose vertical dimension is allowed to stand vertical.

    Parameters
    ----------
    vertical_ok : tuple of bool
        For (L, H, W): may this dimension stand vertical? (the benchmark files' flags)
    """
    return tuple(o for o in ALL_ORIENTATIONS if vertical_ok[VERTICAL_DIM[o]])


#: Longest length the library represents [mm] (1,000 km): longer input is held at this
#: value, which no container holds, so such a piece is reported as too large.
MAX_MM = 10**9


def cm_to_mm(value_cm: float) -> int:
    """Centimetres to whole millimetres, rounded up so a piece is never made smaller.

    A tolerance of 1e-9 mm keeps values such as ``12.3`` cm (123.00000000000001 mm in
    binary floating point) at 123 mm.
    """
    if not math.isfinite(value_cm) or value_cm <= 0:
        raise ValueError(f"a length must be a finite number of cm > 0 (got {value_cm})")
    mm = value_cm * 10.0
    if not mm < MAX_MM:  # also catches 1e308 cm, whose mm overflow to infinity
        return MAX_MM
    return max(1, math.ceil(mm - 1e-9))


# -- box predicates ----------------------------------------------------------------------


def contains(outer: BoxLike, inner: BoxLike) -> bool:
    """Is cuboid ``inner`` inside cuboid ``outer`` (boundaries included)?

    Parameters
    ----------
    outer, inner : tuple of int
        ``(x0, y0, z0, x1, y1, z1)`` [mm].
    """
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and outer[2] <= inner[2]
        and inner[3] <= outer[3]
        and inner[4] <= outer[4]
        and inner[5] <= outer[5]
    )


def overlaps(a: BoxLike, b: BoxLike) -> bool:
    """Do the interiors of cuboids ``a`` and ``b`` intersect (touching faces do not count)?

    Parameters
    ----------
    a, b : tuple of int
        ``(x0, y0, z0, x1, y1, z1)`` [mm].
    """
    return (
        a[0] < b[3] and b[0] < a[3] and a[1] < b[4] and b[1] < a[4] and a[2] < b[5] and b[2] < a[5]
    )


def rests_on(upper: BoxLike, lower: BoxLike) -> bool:
    """Does ``upper`` stand on ``lower``: its bottom at ``lower``'s top, footprints overlapping?

    Parameters
    ----------
    upper, lower : tuple of int
        ``(x0, y0, z0, x1, y1, z1)`` [mm].
    """
    return (
        upper[1] == lower[4]
        and upper[0] < lower[3]
        and lower[0] < upper[3]
        and upper[2] < lower[5]
        and lower[2] < upper[5]
    )


@overload
def precedes(a: BoxLike, b: BoxLike, door: str) -> bool: ...
@overload
def precedes(a: BoxLike, b: BoxColumns, door: str) -> np.ndarray: ...
def precedes(a: Any, b: Any, door: str) -> Any:
    """Must the piece at ``a`` be loaded before the piece at ``b``?

    True when ``b`` rests on ``a`` (its bottom at ``a``'s top, footprints overlapping), or
    when ``b`` lies between ``a`` and the door with overlapping projections on the door's
    plane (FRONT door at X = length, SIDE at Z = width, TOP at Y = height). This is the
    relation behind the load steps, the MANUAL order and the door side.

    Parameters
    ----------
    a : tuple of int
        ``(x0, y0, z0, x1, y1, z1)`` of one box [mm].
    b : tuple of int, or tuple of six numpy arrays
        One box [mm], or the coordinate columns of many (then the answer is one boolean
        per box: the row of the relation, as :mod:`packing.loadorder` computes it).
    door : {"TOP", "FRONT", "SIDE"}
        Loading side of the container.

    Returns
    -------
    bool or numpy.ndarray of bool
    """
    ax0, ay0, az0, ax1, ay1, az1 = a
    bx0, by0, bz0, bx1, by1, bz1 = b
    # ``&`` and ``|`` rather than ``and``/``or``: one definition for boxes and columns.
    xo = (ax0 < bx1) & (bx0 < ax1)
    zo = (az0 < bz1) & (bz0 < az1)
    if door == "FRONT":
        toward = (bx0 >= ax1) & (ay0 < by1) & (by0 < ay1) & zo
    elif door == "SIDE":
        toward = (bz0 >= az1) & (ay0 < by1) & (by0 < ay1) & xo
    else:
        toward = (by0 >= ay1) & xo & zo
    return ((by0 == ay1) & xo & zo) | toward


def above_or_in_front(low: BoxLike, other: BoxLike, door: str) -> bool:
    """Does ``other`` lie anywhere above ``low`` or between ``low`` and the door?

    The unload-priority relation: such an ``other`` must not have a lower unload priority
    than ``low``. Unlike :func:`precedes`, ``other`` need not touch ``low``.

    Parameters
    ----------
    low, other : tuple of int
        ``(x0, y0, z0, x1, y1, z1)`` [mm].
    door : {"TOP", "FRONT", "SIDE"}
        Loading side of the container.
    """
    ax0, _, az0, ax1, ay1, az1 = low
    bx0, by0, bz0, bx1, _, bz1 = other
    if by0 >= ay1 and ax0 < bx1 and bx0 < ax1 and az0 < bz1 and bz0 < az1:
        return True
    return precedes(low, other, door)
