"""Readers of the benchmark instance files: Bischoff & Ratcliff, Martello–Pisinger–Vigo.

Lengths keep the files' units (centimetres for BR, abstract units for MPV) and are used
directly as the engine's integer lengths.

A few problems of each set ship inside the package (``data/bench``, sources and licence
notes in ``data/README.md``): :func:`shipped_instances` lists them and
:func:`load_shipped` reads one set, so examples and notebooks need no files beside the
checkout.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

import data
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
    """A single-container (BR) or bin-packing (MPV) instance.

    Attributes
    ----------
    name : str
        ``BR7-3`` (file stem and problem number) or ``class1_n050/01``.
    container : tuple of int
        Container (L, H, W) in the file's units.
    box_types : tuple of BoxType
        The box types with their quantities.
    lower_bound : int or None
        Bin packing: a lower bound on the bins (MPV's L0/L1/L2 bound) when known.
    """

    name: str
    container: tuple[int, int, int]  # (L, H, W)
    box_types: tuple[BoxType, ...]
    lower_bound: int | None = None

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


def _ints(text: str, source: str) -> list[int]:
    try:
        return [int(tok) for tok in text.split()]
    except ValueError as exc:
        raise PackingInputError(source, f"expected whitespace-separated integers ({exc})") from None


def _read_text(path: Path) -> str:
    """A benchmark file's text; a file that is not UTF-8 text is an input error naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PackingInputError(
            str(path), f"is not UTF-8 text (byte {exc.start}); expected a benchmark file"
        ) from None


def read_br(path: str | Path) -> list[Instance]:
    """All problems of a Bischoff & Ratcliff file (format in the benchmark README).

    The file's container line is ``L W H`` and each box line ``i l fl w fw h fh q``; the
    container becomes (L, H, W) on the project's axes, each box (l, h, w) with its flags.
    """
    path = Path(path)
    return parse_br(_read_text(path), path.stem, source=str(path))


def parse_br(text: str, stem: str, *, source: str = "text") -> list[Instance]:
    """The problems of a Bischoff & Ratcliff file's text; instances are named ``stem-p``."""
    v = _ints(text, source)
    pos = 0

    def take(n: int) -> list[int]:
        nonlocal pos
        if pos + n > len(v):
            raise PackingInputError(
                source, f"ends early: expected {n} more numbers at position {pos}"
            )
        out = v[pos : pos + n]
        pos += n
        return out

    (count,) = take(1)
    if count < 0:
        raise PackingInputError(source, f"the problem count must be >= 0 (got {count})")
    problems: list[Instance] = []
    for _ in range(count):
        number, _seed = take(2)
        cl, cw, ch = take(3)
        if min(cl, cw, ch) <= 0:
            raise PackingInputError(
                source, f"problem {number}: container sides must be > 0 (got {cl} {cw} {ch})"
            )
        (ntypes,) = take(1)
        if ntypes < 0:
            raise PackingInputError(
                source, f"problem {number}: the box type count must be >= 0 (got {ntypes})"
            )
        types = []
        for _ in range(ntypes):
            i, l_, fl, w, fw, h, fh, q = take(8)
            if min(l_, w, h) <= 0 or q < 1:
                raise PackingInputError(
                    source,
                    f"box type {i} of problem {number}: sides must be > 0 and the quantity "
                    f">= 1 (got sides {l_} {w} {h}, quantity {q})",
                )
            if not {fl, fw, fh} <= {0, 1} or not (fl or fw or fh):
                raise PackingInputError(
                    source,
                    f"box type {i} of problem {number}: vertical flags must be 0 or 1 and at "
                    f"least one of them 1, or the box may stand no way up (got {fl}, {fw}, {fh})",
                )
            types.append(BoxType(i, (l_, h, w), (bool(fl), bool(fh), bool(fw)), q))
        problems.append(Instance(f"{stem}-{number}", (cl, ch, cw), tuple(types)))
    if pos < len(v):
        raise PackingInputError(
            source, f"{len(v) - pos} numbers after the {count} problems the file announces"
        )
    return problems


def read_mpv(path: str | Path) -> Instance:
    """One Martello–Pisinger–Vigo file: ``W H D``, ``n``, then ``w h d`` per box.

    Boxes keep their orientation; (w, h, d) map to the project's (X, Y, Z).
    """
    path = Path(path)
    return parse_mpv(_read_text(path), f"{path.parent.name}/{path.stem}", source=str(path))


def parse_mpv(
    text: str, name: str, *, source: str = "text", lower_bound: int | None = None
) -> Instance:
    """One Martello–Pisinger–Vigo instance from its file's text (see :func:`read_mpv`)."""
    v = _ints(text, source)
    if len(v) < 4:
        raise PackingInputError(source, "expected 'W H D' and a box count")
    bw, bh, bd, n = v[:4]
    if min(bw, bh, bd) <= 0 or n < 0:
        raise PackingInputError(
            source,
            f"bin sides must be > 0 and the box count >= 0 (got {bw} {bh} {bd}, {n} boxes)",
        )
    if len(v) != 4 + 3 * n:
        raise PackingInputError(
            source, f"expected {n} boxes of 3 numbers (got {len(v) - 4} numbers)"
        )
    types = []
    for i in range(n):
        w, h, d = v[4 + 3 * i : 7 + 3 * i]
        if min(w, h, d) <= 0:
            raise PackingInputError(source, f"box {i + 1}: sides must be > 0 (got {w} {h} {d})")
        types.append(BoxType(i + 1, (w, h, d), (False, True, False), 1))
    return Instance(name, (bw, bh, bd), tuple(types), lower_bound)


def read_mpv_bounds(path: str | Path) -> dict[tuple[int, int, int], tuple[int, int]]:
    """``bounds_mpv.csv``: (class, n, instance) -> (lower bound, 2-second B&B bins)."""
    path = Path(path)
    return _mpv_bounds(_read_text(path), source=str(path))


#: Columns of ``bounds_mpv.csv``.
_MPV_BOUNDS_COLUMNS = ("class", "n", "instance", "lb_mpv", "ub_mpv_bb_2s")


def _mpv_bounds(
    text: str, *, source: str = "bounds_mpv.csv"
) -> dict[tuple[int, int, int], tuple[int, int]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not set(_MPV_BOUNDS_COLUMNS) <= set(reader.fieldnames or ()):
        raise PackingInputError(
            source,
            f"expected the columns {', '.join(_MPV_BOUNDS_COLUMNS)} (got {reader.fieldnames})",
        )
    out = {}
    for row in reader:
        cells = [row[c] for c in _MPV_BOUNDS_COLUMNS]
        try:
            c, n, number, lb, ub = (int(v) for v in cells)
        except (TypeError, ValueError):
            got = ", ".join(repr(v) for v in cells)
            raise PackingInputError(
                source, f"line {reader.line_num}: expected whole numbers (got {got})"
            ) from None
        out[(c, n, number)] = (lb, ub)
    return out


#: Bischoff & Ratcliff sets shipped (the first problems of each OR-Library file).
SHIPPED_BR: tuple[str, ...] = tuple(f"BR{k}" for k in range(1, 8))
#: Martello–Pisinger–Vigo classes shipped (n = 50; the first instances of each class).
SHIPPED_MPV_CLASSES: tuple[int, ...] = (1, 4, 5, 6, 7, 8)
#: Every shipped set name: ``BR1`` … ``BR7``, ``MPV1``, ``MPV4`` … ``MPV8``.
SHIPPED_SETS: tuple[str, ...] = SHIPPED_BR + tuple(f"MPV{c}" for c in SHIPPED_MPV_CLASSES)


def _mpv_files(cls: int) -> list[str]:
    prefix = f"mpv_class{cls}_n050_"
    return [f for f in data.bench_files() if f.startswith(prefix)]


def load_shipped(name: str) -> list[Instance]:
    """The shipped problems of one benchmark set, read from inside the package.

    Parameters
    ----------
    name : str
        ``"BR1"`` … ``"BR7"`` (container loading: the first problems of the OR-Library
        file, names ``BR7-1`` …) or ``"MPV1"``, ``"MPV4"`` … ``"MPV8"`` (3D bin packing,
        n = 50 boxes, names ``class1_n050/01`` …, each with its lower bound).

    Returns
    -------
    list of Instance

    Raises
    ------
    PackingInputError
        ``name`` is not a shipped set (``field`` is ``name``; the message lists them).
    """
    if name not in SHIPPED_SETS:
        raise PackingInputError(
            "name",
            f"is not a shipped benchmark set; expected one of {list(SHIPPED_SETS)} (got {name!r})",
        )
    if name.startswith("BR"):
        return parse_br(data.bench_text(f"{name}.txt"), name, source=f"data/bench/{name}.txt")
    cls = int(name[3:])
    bounds = _mpv_bounds(data.bench_text("bounds_mpv.csv"))
    out = []
    for f in _mpv_files(cls):
        number = int(f.rsplit("_", 1)[1].removesuffix(".txt"))
        lb = bounds.get((cls, 50, number), (None, None))[0]
        out.append(
            parse_mpv(
                data.bench_text(f),
                f"class{cls}_n050/{number:02d}",
                source=f"data/bench/{f}",
                lower_bound=lb,
            )
        )
    return out


def shipped_instances() -> pd.DataFrame:
    """One row per shipped problem: ``set``, ``kind``, ``instance``, ``box_types``,
    ``boxes``, ``container`` (L × H × W in the file's units) and ``lower_bound`` (bins,
    MPV only).

    ``kind`` is ``"loading"`` (one container, maximise the loaded volume) or
    ``"bin-packing"`` (every box into fewest bins).
    """
    rows = []
    for s in SHIPPED_SETS:
        for inst in load_shipped(s):
            rows.append(
                {
                    "set": s,
                    "kind": "loading" if s.startswith("BR") else "bin-packing",
                    "instance": inst.name,
                    "box_types": len(inst.box_types),
                    "boxes": sum(b.quantity for b in inst.box_types),
                    "container": "×".join(str(d) for d in inst.container),
                    "lower_bound": inst.lower_bound,
                }
            )
    return pd.DataFrame(rows).astype({"lower_bound": "Int64"})
