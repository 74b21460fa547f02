"""Readers of the benchmark instance files: Bischoff & Ratcliff, Martello–Pisinger–Vigo.

Lengths keep the files' units (centimetres for BR, abstract units for MPV) and are used
directly as the engine's integer lengths.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from packing.errors import PackingInputError
from packing.geometry import orientations_with_vertical
from packing.model import ContainerType, Piece, Rules, make_pieces


@dataclass(frozen=True, slots=True)
class BoxType:
    """One box-type line of an instance: dimensions (l, h, w), vertical flags, quantity."""

    number: int
    dims: tuple[int, int, int]  # (L, H, W): file's l, h, w
    vertical_ok: tuple[bool, bool, bool]
    quantity: int


@dataclass(frozen=True, slots=True)
class Instance:
    """A single-container (BR) or bin-packing (MPV) instance."""

    name: str
    container: tuple[int, int, int]  # (L, H, W)
    box_types: tuple[BoxType, ...]

    def container_type(self) -> ContainerType:
        return ContainerType(
            slug=self.name, title=self.name, inner=self.container, loading_side="TOP"
        )

    def pieces(self, *, honour_flags: bool = True) -> list[Piece]:
        """Every box as a piece; item ids are the 1-based box-type numbers."""
        out: list[Piece] = []
        for bt in self.box_types:
            orients = (
                orientations_with_vertical(bt.vertical_ok) if honour_flags else (0, 1, 2, 3, 4, 5)
            )
            out.extend(
                make_pieces(
                    str(bt.number),
                    bt.dims,
                    bt.quantity,
                    rules=Rules(orientations=orients),
                    item_order=bt.number,
                )
            )
        return out

    @property
    def cargo_volume(self) -> int:
        return sum(b.dims[0] * b.dims[1] * b.dims[2] * b.quantity for b in self.box_types)

    @property
    def container_volume(self) -> int:
        c = self.container
        return c[0] * c[1] * c[2]


def _ints(path: Path) -> list[int]:
    try:
        return [int(tok) for tok in path.read_text().split()]
    except ValueError as exc:
        raise PackingInputError(
            str(path), f"expected whitespace-separated integers ({exc})"
        ) from None


def read_br(path: str | Path) -> list[Instance]:
    """All problems of a Bischoff & Ratcliff file (format in the benchmark README).

    The file's container line is ``L W H`` and each box line ``i l fl w fw h fh q``; the
    container becomes (L, H, W) on the project's axes, each box (l, h, w) with its flags.
    """
    path = Path(path)
    v = _ints(path)
    pos = 0

    def take(n: int) -> list[int]:
        nonlocal pos
        if pos + n > len(v):
            raise PackingInputError(
                str(path), f"ends early: expected {n} more numbers at position {pos}"
            )
        out = v[pos : pos + n]
        pos += n
        return out

    (count,) = take(1)
    problems: list[Instance] = []
    for _ in range(count):
        number, _seed = take(2)
        cl, cw, ch = take(3)
        (ntypes,) = take(1)
        types = []
        for _ in range(ntypes):
            i, l_, fl, w, fw, h, fh, q = take(8)
            types.append(BoxType(i, (l_, h, w), (bool(fl), bool(fh), bool(fw)), q))
        problems.append(Instance(f"{path.stem}-{number}", (cl, ch, cw), tuple(types)))
    return problems


def read_mpv(path: str | Path) -> Instance:
    """One Martello–Pisinger–Vigo file: ``W H D``, ``n``, then ``w h d`` per box.

    Boxes keep their orientation; (w, h, d) map to the project's (X, Y, Z).
    """
    path = Path(path)
    v = _ints(path)
    if len(v) < 4:
        raise PackingInputError(str(path), "expected 'W H D' and a box count")
    bw, bh, bd, n = v[:4]
    if len(v) != 4 + 3 * n:
        raise PackingInputError(
            str(path), f"expected {n} boxes of 3 numbers (got {len(v) - 4} numbers)"
        )
    types = []
    for i in range(n):
        w, h, d = v[4 + 3 * i : 7 + 3 * i]
        types.append(BoxType(i + 1, (w, h, d), (False, True, False), 1))
    return Instance(f"{path.parent.name}/{path.stem}", (bw, bh, bd), tuple(types))


def read_mpv_bounds(path: str | Path) -> dict[tuple[int, int, int], tuple[int, int]]:
    """``bounds_mpv.csv``: (class, n, instance) -> (lower bound, 2-second B&B bins)."""
    out = {}
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            key = (int(row["class"]), int(row["n"]), int(row["instance"]))
            out[key] = (int(row["lb_mpv"]), int(row["ub_mpv_bb_2s"]))
    return out
