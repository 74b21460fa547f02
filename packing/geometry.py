"""Orientations, rotation encoding and integer-millimetre conversion.

Axes follow the project's convention: X along the container's length, Y vertical,
Z along its width. A piece's base orientation puts its length on X, height on Y and
width on Z; dimensions are always given in that order, ``(L, H, W)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

Dims = tuple[int, int, int]

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
