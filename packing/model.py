"""Domain types of the packing library, in integer millimetres and kilograms."""

from __future__ import annotations

import functools
import html
import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Literal, TypeGuard

import numpy as np

from packing.errors import PackingInputError
from packing.geometry import (
    ALL_ORIENTATIONS,
    FLOOR_ORIENTATIONS,
    MAX_MM,
    ROTATIONS,
    Dims,
    distinct_orientations,
    extents,
)

LoadingSide = Literal["TOP", "FRONT", "SIDE"]
LOADING_SIDES: tuple[str, ...] = ("TOP", "FRONT", "SIDE")


def _is_number(value: object) -> TypeGuard[float]:
    """A real number that is not a boolean (``True`` is no length or mass)."""
    if type(value) is int or type(value) is float:  # the common case, without the ABCs
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


#: Longest side of a container [mm] (1 km): its volume, and any sum of the volumes or areas
#: of pieces that do not overlap inside it, then stays an exact 64-bit integer in the numpy
#: arrays of the strategies, metrics and checks.
MAX_CONTAINER_MM = 10**6


def _is_whole(value: object) -> bool:
    """A whole number (an int or a NumPy integer) that is not a boolean."""
    if type(value) is int:  # the common case, without the ABCs
        return True
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_dims(field: str, dims: object, who: Callable[[], str], most: int = MAX_MM) -> None:
    """Three whole, finite millimetres > 0 and at most ``most``, else
    :class:`PackingInputError` naming ``field``."""
    ok = False
    if isinstance(dims, tuple | list | np.ndarray) and len(dims) == 3:
        ok = all(_is_number(d) and math.isfinite(d) and 0 < d <= most and int(d) == d for d in dims)
    if not ok:
        raise PackingInputError(
            field, f"must be three whole millimetres > 0 and <= {most:,} (got {dims!r}, {who()})"
        )


def _plain_dims(dims: Sequence[float]) -> Dims:
    """Checked sides (:func:`_check_dims`) as a tuple of Python ints."""
    return (int(dims[0]), int(dims[1]), int(dims[2]))


def _check_kg(field: str, value: object, who: Callable[[], str], *, none: bool = False) -> None:
    """A finite mass >= 0 [kg] (or None with ``none``), else :class:`PackingInputError`."""
    if none and value is None:
        return
    if not (_is_number(value) and math.isfinite(value) and value >= 0):
        expected = "a finite number >= 0" + (" or None" if none else "")
        raise PackingInputError(field, f"must be {expected} (got {value!r}, {who()})")


@dataclass(frozen=True, slots=True)
class Rules:
    """Handling rules of a piece.

    Attributes
    ----------
    orientations : tuple of int
        Allowed orientation indexes (see :mod:`packing.geometry`).
    stack_on_top : bool
        False: no piece may rest on this piece.
    stack_under : bool
        False: the piece stands on the container floor.
    fragile : bool
        A mark for diagrams and reports; no packing effect.
    manual_order : bool
        True: pieces keep the request order (item, then instance) in the load steps.
    unload_priority : int
        Higher is unloaded earlier; no lower-priority piece may lie between such a piece
        and the door or on top of it.
    """

    orientations: tuple[int, ...] = FLOOR_ORIENTATIONS
    stack_on_top: bool = True
    stack_under: bool = True
    fragile: bool = False
    manual_order: bool = False
    unload_priority: int = 0

    def __post_init__(self) -> None:
        if not self.orientations or any(o not in ALL_ORIENTATIONS for o in self.orientations):
            raise PackingInputError(
                "rules.orientations",
                f"must be a non-empty subset of 0..5 (got {self.orientations})",
            )
        for flag in ("stack_on_top", "stack_under", "fragile", "manual_order"):
            value = getattr(self, flag)
            if not isinstance(value, bool | np.bool_):
                # ("no" is a true value: a flag given as text would mean its opposite)
                raise PackingInputError(f"rules.{flag}", f"must be True or False (got {value!r})")
        if not _is_whole(self.unload_priority):
            raise PackingInputError(
                "unload_priority", f"must be a whole number >= 0 (got {self.unload_priority!r})"
            )
        if self.unload_priority < 0:
            raise PackingInputError("unload_priority", f"must be >= 0 (got {self.unload_priority})")
        # plain Python values for the engine's compiled modules (see Piece)
        object.__setattr__(self, "orientations", tuple(int(o) for o in self.orientations))
        for flag in ("stack_on_top", "stack_under", "fragile", "manual_order"):
            object.__setattr__(self, flag, bool(getattr(self, flag)))
        object.__setattr__(self, "unload_priority", int(self.unload_priority))

    @classmethod
    def from_flags(
        cls,
        *,
        allow_tilt: bool | None = None,
        allowed_rotations: str | None = None,
        allow_stack_on_top: bool | None = None,
        allow_stack_under: bool | None = None,
        fragile: bool | None = None,
        loading_order: str | None = None,
        unload_priority: int | None = None,
    ) -> Rules:
        """Rules from handling flags, each None meaning its default.

        Tilting is allowed when ``allowed_rotations`` is ``"ALL"``, or when it is absent and
        ``allow_tilt`` is true; ``allow_tilt=False`` always forbids it.
        """
        for name, flag in (("allow_tilt", allow_tilt), ("fragile", fragile)):
            if flag is not None and not isinstance(flag, bool | np.bool_):
                # ("no" is a true value: a flag given as text would mean its opposite)
                raise PackingInputError(name, f"must be True, False or None (got {flag!r})")
        if unload_priority is not None and not _is_whole(unload_priority):
            raise PackingInputError(
                "unload_priority", f"must be a whole number >= 0 (got {unload_priority!r})"
            )
        if allowed_rotations not in (None, "FLOOR_90", "ALL"):
            raise PackingInputError(
                "allowed_rotations", f"must be FLOOR_90 or ALL (got {allowed_rotations!r})"
            )
        if loading_order not in (None, "OPTIMAL", "MANUAL"):
            raise PackingInputError(
                "loading_order", f"must be OPTIMAL or MANUAL (got {loading_order!r})"
            )
        if allow_tilt is False:
            tilt = False
        elif allowed_rotations is not None:
            tilt = allowed_rotations == "ALL"
        else:
            tilt = bool(allow_tilt)
        return cls(
            orientations=ALL_ORIENTATIONS if tilt else FLOOR_ORIENTATIONS,
            stack_on_top=True if allow_stack_on_top is None else allow_stack_on_top,
            stack_under=True if allow_stack_under is None else allow_stack_under,
            fragile=bool(fragile),
            manual_order=loading_order == "MANUAL",
            unload_priority=0 if unload_priority is None else int(unload_priority),
        )


@functools.lru_cache(maxsize=4096)
def _distinct_orientations(dims: Dims, allowed: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`~packing.geometry.distinct_orientations`, once per size and rule (a plan asks
    for the orientations of every item's pieces at each container it fills)."""
    return distinct_orientations(dims, allowed)


@dataclass(frozen=True, slots=True)
class Piece:
    """One physical piece of cargo.

    Attributes
    ----------
    item_id : str
        Id of the cargo item the piece belongs to.
    instance : int
        Index of the piece within its item (0-based).
    dims : tuple of int
        Length, height, width [mm], the base orientation.
    weight_kg : float
        Mass of the piece [kg].
    rules : Rules
        Handling rules.
    item_order : int
        Position of the item in the request; orders MANUAL pieces.
    name : str
        Name used in reports.
    color : str
        Hex colour for diagrams.
    """

    item_id: str
    instance: int
    dims: Dims
    weight_kg: float = 0.0
    rules: Rules = field(default_factory=Rules)
    item_order: int = 0
    name: str = ""
    color: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.item_id, str):
            raise PackingInputError("item_id", f"must be text (got {self.item_id!r})")

        def who() -> str:  # for the messages only: built when one is raised
            return f"piece {self.item_id}#{self.instance}"

        if not _is_whole(self.instance):
            raise PackingInputError(
                "instance", f"must be a whole number >= 0 (got {self.instance!r}, {who()})"
            )
        if self.instance < 0:
            raise PackingInputError(
                "instance", f"must be a whole number >= 0 (got {self.instance!r}, {who()})"
            )
        _check_dims("dims", self.dims, who)
        _check_kg("weight_kg", self.weight_kg, who)
        if not _is_whole(self.item_order):
            raise PackingInputError(
                "item_order", f"must be a whole number (got {self.item_order!r}, {who()})"
            )
        # The engine's compiled modules take Python ints and floats: whole millimetres given
        # as floats (100.0), NumPy numbers (a DataFrame's rows) or a list are stored as such.
        object.__setattr__(self, "instance", int(self.instance))
        object.__setattr__(self, "dims", _plain_dims(self.dims))
        object.__setattr__(self, "weight_kg", float(self.weight_kg))
        object.__setattr__(self, "item_order", int(self.item_order))

    @property
    def volume(self) -> int:
        """Volume [mm³]."""
        return self.dims[0] * self.dims[1] * self.dims[2]

    @property
    def orientations(self) -> tuple[int, ...]:
        """Allowed orientations with distinct extents."""
        return _distinct_orientations(tuple(self.dims), tuple(self.rules.orientations))

    @property
    def key(self) -> tuple[str, int]:
        return (self.item_id, self.instance)

    def with_instance(self, instance: int) -> Piece:
        """This piece with another instance index (a whole number >= 0; this piece itself
        when it has that one). Its other fields were checked when it was made and are not
        checked again: a plan renumbers every piece it places, and a checked copy cost 8 µs
        a piece, a tenth of a second on 10,000 pieces."""
        if instance == self.instance:
            return self
        if not _is_whole(instance) or instance < 0:
            raise PackingInputError(
                "instance", f"must be a whole number >= 0 (got {instance!r}, piece {self.item_id})"
            )
        new = object.__new__(Piece)
        for name in _PIECE_FIELDS:
            object.__setattr__(new, name, getattr(self, name))
        object.__setattr__(new, "instance", int(instance))
        return new


#: The fields of a :class:`Piece`, in order.
_PIECE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Piece))


def make_pieces(
    item_id: str,
    dims: Dims,
    quantity: int,
    *,
    weight_kg: float = 0.0,
    rules: Rules | None = None,
    item_order: int = 0,
    name: str = "",
    color: str = "",
) -> list[Piece]:
    """The ``quantity`` identical pieces of one cargo item."""
    if not _is_whole(quantity) or quantity < 1:
        raise PackingInputError(
            "quantity", f"must be a whole number >= 1 (got {quantity!r}, item {item_id!r})"
        )
    r = rules if rules is not None else Rules()
    return [
        Piece(item_id, i, dims, weight_kg, r, item_order, name or item_id, color)
        for i in range(int(quantity))
    ]


@dataclass(frozen=True, slots=True)
class ContainerType:
    """A kind of container (or pallet, or vehicle body).

    Attributes
    ----------
    slug, title : str
        Identifier and human-readable name.
    inner : tuple of int
        Usable inner length, height, width [mm].
    outer : tuple of int
        Outer length, height, width [mm]; defaults to ``inner``.
    max_payload_kg : float or None
        Maximum cargo mass [kg]; None: unlimited.
    loading_side : {"TOP", "FRONT", "SIDE"}
        Door: FRONT opens at X = length, SIDE at Z = width, TOP at Y = height.
    tare_kg : float
        Mass of the empty container with its coolant [kg].
    """

    slug: str
    title: str
    inner: Dims
    outer: Dims | None = None
    max_payload_kg: float | None = None
    loading_side: str = "TOP"
    tare_kg: float = 0.0

    def __post_init__(self) -> None:
        def who() -> str:
            return f"container {self.slug!r}"

        _check_dims("inner", self.inner, who, MAX_CONTAINER_MM)
        if self.outer is not None:
            _check_dims("outer", self.outer, who, MAX_CONTAINER_MM)
        if self.loading_side not in LOADING_SIDES:
            raise PackingInputError(
                "loading_side",
                f"must be one of TOP, FRONT, SIDE (got {self.loading_side!r}, container {self.slug!r})",
            )
        _check_kg("max_payload_kg", self.max_payload_kg, who, none=True)
        _check_kg("tare_kg", self.tare_kg, who)
        # plain ints and floats for the engine's compiled modules (see Piece)
        object.__setattr__(self, "inner", _plain_dims(self.inner))
        if self.outer is not None:
            object.__setattr__(self, "outer", _plain_dims(self.outer))
        if self.max_payload_kg is not None:
            object.__setattr__(self, "max_payload_kg", float(self.max_payload_kg))
        object.__setattr__(self, "tare_kg", float(self.tare_kg))

    @property
    def inner_volume(self) -> int:
        """Inner usable volume [mm³]."""
        return self.inner[0] * self.inner[1] * self.inner[2]

    @property
    def outer_dims(self) -> Dims:
        return self.outer if self.outer is not None else self.inner

    @property
    def outer_volume(self) -> int:
        """Outer volume [mm³]."""
        o = self.outer_dims
        return o[0] * o[1] * o[2]

    def _repr_html_(self) -> str:
        """One table row for a notebook: names, inner and outer size [mm], payload, door."""

        def dims(d: Dims) -> str:
            return "×".join(str(v) for v in d)

        cells = [
            self.slug,
            self.title,
            dims(self.inner),
            dims(self.outer_dims),
            f"{self.inner_volume / 1e9:.3f}",
            "—" if self.max_payload_kg is None else f"{self.max_payload_kg:g}",
            self.loading_side,
        ]
        heads = ["slug", "title", "inner mm", "outer mm", "inner m³", "payload kg", "door"]
        row = "".join(f"<td>{html.escape(str(c))}</td>" for c in cells)
        head = "".join(f"<th>{h}</th>" for h in heads)
        return f"<table><thead><tr>{head}</tr></thead><tbody><tr>{row}</tr></tbody></table>"


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a piece went.

    Attributes
    ----------
    piece : Piece
    container_index : int
        Index of the physical container in the plan.
    position : tuple of int
        Minimum corner (X, Y, Z) [mm] from the inner back-left-bottom corner.
    orientation : int
        Orientation index (see :mod:`packing.geometry`).
    extents : tuple of int
        Extents along X, Y, Z as placed [mm].
    load_step : int
        Loading order within the container, 1 is first (0: not yet assigned).
    """

    piece: Piece
    container_index: int
    position: Dims
    orientation: int
    extents: Dims
    load_step: int = 0

    @property
    def rotation(self) -> tuple[int, int, int]:
        return ROTATIONS[self.orientation]

    @property
    def max_corner(self) -> Dims:
        p, e = self.position, self.extents
        return (p[0] + e[0], p[1] + e[1], p[2] + e[2])

    def with_(self, **changes: object) -> Placement:
        return replace(self, **changes)  # type: ignore[arg-type]


#: Why a piece was left out, for programs (the reason is for people).
UNPLACED_KINDS: tuple[str, ...] = ("size", "weight", "cap", "space")


@dataclass(frozen=True, slots=True)
class Unplaced:
    """A piece that is not in the plan, with a reason a dispatcher understands.

    Attributes
    ----------
    piece : Piece
    reason : str
        A sentence for people.
    kind : {"size", "weight", "cap", "space"}
        ``size``: larger than every container; ``weight``: heavier than every payload it
        fits; ``cap``: beyond ``max_containers``; ``space``: no room left beside the rest.
    """

    piece: Piece
    reason: str
    kind: str = "space"


def floor_area(pieces: Iterable[Piece]) -> int:
    """The floor the pieces that must stand on it cover at least [mm²]: each piece that
    nothing may go under (``stack_under`` false) takes its smallest footprint over its
    orientations, and no two share floor. Pallets on a vehicle are such pieces, and their
    floor, not their volume, bounds the vehicles they need."""
    return sum(_footprint(p) for p in pieces if not p.rules.stack_under)


def _footprint(piece: Piece) -> int:
    """The smallest floor area ``piece`` covers over its orientations [mm²]."""
    return min(e[0] * e[2] for e in (extents(piece.dims, o) for o in piece.orientations))


def containers_needed(
    types: Sequence[ContainerType], volume: int, weight_kg: float, floor_mm2: int = 0
) -> int:
    """Fewest containers, of ``types`` mixed, that could hold ``volume`` [mm³] and
    ``weight_kg`` [kg] with pieces that must stand on the floor covering ``floor_mm2`` of
    it (:func:`floor_area`); 0 for nothing. None holds more than the largest inner volume,
    nor more than the largest payload when every type has one, nor more floor than the
    largest floor."""
    if volume <= 0 or not types:
        return 0
    n = -(-volume // max(t.inner_volume for t in types))
    payloads = [t.max_payload_kg for t in types]
    if weight_kg > 0 and all(payloads):
        n = max(n, math.ceil(weight_kg / max(m for m in payloads if m) - 1e-9))
    if floor_mm2 > 0:
        n = max(n, -(-floor_mm2 // max(t.inner[0] * t.inner[2] for t in types)))
    return n
