"""Results of planning: containers with their placements, unplaced pieces, tables."""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

import pandas as pd

from packing.model import ContainerType, Placement, Unplaced


class Alternative(NamedTuple):
    """How many containers of one type the plan's pieces need using that type alone.

    Attributes
    ----------
    container : ContainerType
        The container type.
    boxes : int
        Containers of that type needed for every piece (without the plan's container cap).
    """

    container: ContainerType
    boxes: int


#: Rows of a table in a notebook view; longer tables show their head and tail.
HTML_MAX_ROWS = 20


def html_table(frame: pd.DataFrame) -> str:
    """A DataFrame as an HTML table for notebooks: every cell escaped (cargo names are
    data, never markup), at most :data:`HTML_MAX_ROWS` rows."""
    return frame.to_html(index=False, escape=True, max_rows=HTML_MAX_ROWS, border=0)


def _pct(fraction: float) -> str:
    return f"{100 * fraction:.1f}%"


@dataclass(slots=True, repr=False)
class ContainerLoad:
    """One physical container of a plan and what is in it."""

    index: int
    container: ContainerType
    placements: list[Placement] = field(default_factory=list)

    @property
    def cargo_weight_kg(self) -> float:
        """Mass of the cargo in the container [kg]."""
        return float(sum(p.piece.weight_kg for p in self.placements))

    @property
    def cargo_volume(self) -> int:
        """Volume of the cargo [mm³]."""
        return sum(p.piece.volume for p in self.placements)

    @property
    def volume_utilization(self) -> float:
        """Cargo volume / inner usable volume (0..1)."""
        return self.cargo_volume / self.container.inner_volume

    def __repr__(self) -> str:
        return (
            f"ContainerLoad(index={self.index}, container={self.container.slug!r}, "
            f"pieces={len(self.placements)}, utilisation={_pct(self.volume_utilization)}, "
            f"cargo_kg={self.cargo_weight_kg:g})"
        )

    def items_frame(self) -> pd.DataFrame:
        """One row per cargo item in the container: id, name, pieces, mass [kg]."""
        counts = Counter(p.piece.item_id for p in self.placements)
        names: dict[str, str] = {}
        mass: dict[str, float] = {}
        for p in self.placements:
            names.setdefault(p.piece.item_id, p.piece.name)
            mass[p.piece.item_id] = mass.get(p.piece.item_id, 0.0) + p.piece.weight_kg
        rows = [
            {"item_id": k, "name": names[k], "pieces": n, "weight_kg": round(mass[k], 3)}
            for k, n in counts.items()
        ]
        return _typed(rows, _ITEM_COLUMNS)

    def _repr_html_(self) -> str:
        c = self.container
        head = (
            f"<p><b>Container #{self.index}</b>: {html.escape(c.title)} "
            f"({html.escape(c.slug)}), inner {'×'.join(str(d) for d in c.inner)} mm, "
            f"{len(self.placements)} pieces, {_pct(self.volume_utilization)} of the volume, "
            f"{self.cargo_weight_kg:g} kg</p>"
        )
        return head + html_table(self.items_frame())


@dataclass(slots=True, repr=False)
class PackResult:
    """A packing plan.

    Attributes
    ----------
    containers : list of ContainerLoad
        Physical containers, ``index`` running from the plan's offset.
    unplaced : list of Unplaced
        Pieces not in the plan, each with a reason.
    strategy : str
        Name of the strategy used.
    support_ratio : float
        Support rule the plan was made with.
    seconds : float
        Wall time [s].
    alternatives : list of Alternative
        For every type that holds every piece alone, the containers needed using only that
        type (without the plan's container cap), sorted by boxes, then outer volume. Of
        cargo of more than :data:`packing.planner.WINDOW_ITEMS` items, only the types that
        needed at most one container more than the best type probed before them (largest
        first).
    work_units : int
        Work units the plan's searches spent (see :class:`packing.strategies.base.Budget`).
    wall_cut : bool
        A safety net stopped a search or the plan before its work units were spent (a
        search's CPU time, or the outermost call's wall clock, see
        :class:`packing.strategies.base.Budget`): only then may the plan depend on the
        machine's speed or load.
    """

    containers: list[ContainerLoad] = field(default_factory=list)
    unplaced: list[Unplaced] = field(default_factory=list)
    strategy: str = ""
    support_ratio: float = 0.8
    seconds: float = 0.0
    alternatives: list[Alternative] = field(default_factory=list)
    work_units: int = 0
    wall_cut: bool = False

    @property
    def placements(self) -> list[Placement]:
        return [p for c in self.containers for p in c.placements]

    @property
    def outer_volume(self) -> int:
        return sum(c.container.outer_volume for c in self.containers)

    @property
    def volume_utilization(self) -> float:
        """Cargo volume / inner volume of all the plan's containers (0..1; 0 without any)."""
        inner = sum(c.container.inner_volume for c in self.containers)
        return sum(c.cargo_volume for c in self.containers) / inner if inner else 0.0

    def _counts(self) -> tuple[int, int]:
        placed = sum(len(c.placements) for c in self.containers)
        return placed, placed + len(self.unplaced)

    def __repr__(self) -> str:
        placed, total = self._counts()
        return (
            f"PackResult(strategy={self.strategy!r}, containers={len(self.containers)}, "
            f"placed={placed}/{total}, utilisation={_pct(self.volume_utilization)}, "
            f"seconds={self.seconds:.2f})"
        )

    def _repr_html_(self) -> str:
        """Tables for a notebook: the containers, and the unplaced pieces by reason (the 3D
        view is the figure layer's, :func:`adapters.report.show`)."""
        placed, total = self._counts()
        n = len(self.containers)
        parts = [
            f"<p><b>Plan</b> ({html.escape(self.strategy)}): {n} "
            f"container{'' if n == 1 else 's'}, {placed} of {total} pieces placed, "
            f"{_pct(self.volume_utilization)} of the containers' volume, "
            f"{self.seconds:.2f} s</p>",
            html_table(self.containers_frame()),
        ]
        if self.unplaced:
            reasons = Counter((u.kind, u.reason) for u in self.unplaced)
            frame = pd.DataFrame(
                [{"kind": k, "reason": r, "pieces": n} for (k, r), n in reasons.items()],
                columns=["kind", "reason", "pieces"],
            )
            parts += ["<p><b>Unplaced</b></p>", html_table(frame)]
        return "".join(parts)

    def placements_frame(self) -> pd.DataFrame:
        """One row per placed piece: ids, container, position, extents [mm], rotation, step."""
        rows = [
            {
                "item_id": p.piece.item_id,
                "instance": p.piece.instance,
                "container_index": p.container_index,
                "x_mm": p.position[0],
                "y_mm": p.position[1],
                "z_mm": p.position[2],
                "dx_mm": p.extents[0],
                "dy_mm": p.extents[1],
                "dz_mm": p.extents[2],
                "rx": p.rotation[0],
                "ry": p.rotation[1],
                "rz": p.rotation[2],
                "load_step": p.load_step,
                "weight_kg": p.piece.weight_kg,
            }
            for p in self.placements
        ]
        return _typed(rows, _PLACEMENT_COLUMNS)

    def containers_frame(self) -> pd.DataFrame:
        """One row per container: type, piece count, cargo mass [kg], volume utilization."""
        rows = [
            {
                "container_index": c.index,
                "slug": c.container.slug,
                "title": c.container.title,
                "pieces": len(c.placements),
                "cargo_kg": c.cargo_weight_kg,
                "volume_utilization": c.volume_utilization,
            }
            for c in self.containers
        ]
        return _typed(rows, _CONTAINER_COLUMNS)

    def unplaced_frame(self) -> pd.DataFrame:
        """One row per piece left out: ids and the reason (a sentence for people)."""
        rows = [
            {"item_id": u.piece.item_id, "instance": u.piece.instance, "reason": u.reason}
            for u in self.unplaced
        ]
        return _typed(rows, _UNPLACED_COLUMNS)


#: Columns and dtypes of the tables of a plan: the same whether a table has rows or not
#: (an empty table of object columns turned every column of a concatenation to object),
#: and masses float even when every piece's mass was given as a whole number.
_PLACEMENT_COLUMNS: dict[str, str] = {
    "item_id": "str",
    **dict.fromkeys(["instance", "container_index", "x_mm", "y_mm", "z_mm"], "int64"),
    **dict.fromkeys(["dx_mm", "dy_mm", "dz_mm", "rx", "ry", "rz", "load_step"], "int64"),
    "weight_kg": "float64",
}
_CONTAINER_COLUMNS: dict[str, str] = {
    "container_index": "int64",
    "slug": "str",
    "title": "str",
    "pieces": "int64",
    "cargo_kg": "float64",
    "volume_utilization": "float64",
}
_UNPLACED_COLUMNS: dict[str, str] = {"item_id": "str", "instance": "int64", "reason": "str"}
_ITEM_COLUMNS: dict[str, str] = {
    "item_id": "str",
    "name": "str",
    "pieces": "int64",
    "weight_kg": "float64",
}


def _typed(rows: list[dict[str, object]], columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)
