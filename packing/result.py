"""Results of planning: containers with their placements, unplaced pieces, tables."""

from __future__ import annotations

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


@dataclass(slots=True)
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
        return self.cargo_volume / self.container.inner_volume


@dataclass(slots=True)
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
        type (without the plan's container cap), sorted by boxes, then outer volume.
    work_units : int
        Work units the plan's searches spent (see :class:`packing.strategies.base.Budget`).
    wall_cut : bool
        The wall-clock safety net stopped a search or the plan before its work units were
        spent: only then may the plan depend on the machine's speed or load.
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
        cols = [
            "item_id",
            "instance",
            "container_index",
            "x_mm",
            "y_mm",
            "z_mm",
            "dx_mm",
            "dy_mm",
            "dz_mm",
            "rx",
            "ry",
            "rz",
            "load_step",
            "weight_kg",
        ]
        return pd.DataFrame(rows, columns=cols)

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
        cols = ["container_index", "slug", "title", "pieces", "cargo_kg", "volume_utilization"]
        return pd.DataFrame(rows, columns=cols)

    def unplaced_frame(self) -> pd.DataFrame:
        rows = [
            {"item_id": u.piece.item_id, "instance": u.piece.instance, "reason": u.reason}
            for u in self.unplaced
        ]
        return pd.DataFrame(rows, columns=["item_id", "instance", "reason"])
