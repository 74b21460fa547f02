"""Utilization and balance metrics of a loaded container.

All inputs are integer millimetres and kilograms; outputs use the units their names say.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from packing.result import ContainerLoad

_MM3_PER_M3 = 1e9
_MM2_PER_M2 = 1e6


class Metric(NamedTuple):
    """A used quantity against its maximum; ``percent`` = 100 × used / max (0..100)."""

    used: float
    max: float
    percent: float


def _metric(used: float, max_: float) -> Metric:
    """Used against max, with percent = 100 × used / max (0 when max is 0)."""
    pct = 100.0 * used / max_ if max_ > 0 else 0.0
    return Metric(round(used, 6), round(max_, 6), round(min(max(pct, 0.0), 100.0), 4))


@dataclass(frozen=True, slots=True)
class ContainerMetrics:
    """Utilization and balance of one loaded container.

    Attributes
    ----------
    volume_utilization : float
        Cargo volume / inner usable volume (0..1).
    loss_ratio : float
        1 − inner usable volume / outer volume (0..1): what walls and coolant take.
    weight_utilization : float or None
        Cargo mass / payload (0..1); None without a payload limit.
    item_count : int
        Pieces in the container.
    volume_m3 : Metric
        Cargo volume against inner volume [m³].
    floor_length_cm, width_cm, height_cm : Metric
        Largest X, Z and Y reached by the cargo against the inner length, width, height [cm].
    floor_area_m2 : Metric
        Union of the pieces' footprints against the floor area [m²].
    mass_kg : Metric
        Cargo mass against the payload (the cargo mass itself when unlimited) [kg].
    center_of_gravity_mm : tuple of float or None
        Centre of gravity of the cargo (X, Y, Z) [mm], mass-weighted (volume-weighted when
        every piece weighs 0); None for an empty container.
    cog_offset : float or None
        Horizontal distance of that centre from the floor centre / half the floor diagonal.
    cog_height_ratio : float or None
        Height of that centre / inner height.
    rotations_used : int
        Pieces placed with a non-zero rotation.
    """

    volume_utilization: float
    loss_ratio: float
    weight_utilization: float | None
    item_count: int
    volume_m3: Metric
    floor_length_cm: Metric
    width_cm: Metric
    height_cm: Metric
    floor_area_m2: Metric
    mass_kg: Metric
    center_of_gravity_mm: tuple[float, float, float] | None
    cog_offset: float | None
    cog_height_ratio: float | None
    rotations_used: int


def union_area(rects: list[tuple[int, int, int, int]]) -> int:
    """Area of the union of axis-aligned rectangles ``(x0, z0, x1, z1)`` [mm²].

    Exact, by coordinate compression.
    """
    if not rects:
        return 0
    r = np.asarray(rects, dtype=np.int64)
    xs = np.unique(np.concatenate([r[:, 0], r[:, 2]]))
    zs = np.unique(np.concatenate([r[:, 1], r[:, 3]]))
    grid = np.zeros((len(xs) - 1, len(zs) - 1), dtype=bool)
    xi0 = np.searchsorted(xs, r[:, 0])
    xi1 = np.searchsorted(xs, r[:, 2])
    zi0 = np.searchsorted(zs, r[:, 1])
    zi1 = np.searchsorted(zs, r[:, 3])
    for a, b, c, d in zip(xi0, xi1, zi0, zi1, strict=True):
        grid[a:b, c:d] = True
    # the covered length of each strip along X, then the strips' areas in Python integers
    # (exact for any coordinates int64 holds; cell areas could overflow it)
    covered = (grid * np.diff(zs)).sum(axis=1)
    return sum(int(w) * int(c) for w, c in zip(np.diff(xs), covered, strict=True))


def container_metrics(load: ContainerLoad) -> ContainerMetrics:
    """The utilization and balance metrics of one loaded container.

    volume_utilization = cargo volume / inner usable volume; loss_ratio = 1 − inner / outer
    volume; weight_utilization = cargo kg / payload (None without a payload limit);
    floor_length_cm, width_cm, height_cm = largest X, Z, Y reached [cm]; floor_area_m2 =
    union of the pieces' footprints [m²]; center_of_gravity_mm of the cargo (mass-weighted,
    volume-weighted when every piece weighs 0); cog_offset = horizontal distance of that
    centre from the floor centre / half the floor diagonal; cog_height_ratio = its height /
    inner height; rotations_used = pieces placed with a non-zero rotation.
    """
    c = load.container
    L, H, W = c.inner
    inner_v = c.inner_volume
    ps = load.placements
    cargo_v = sum(p.piece.volume for p in ps)
    cargo_kg = load.cargo_weight_kg
    weight_util = round(min(1.0, cargo_kg / c.max_payload_kg), 6) if c.max_payload_kg else None
    max_x = max((p.position[0] + p.extents[0] for p in ps), default=0)
    max_y = max((p.position[1] + p.extents[1] for p in ps), default=0)
    max_z = max((p.position[2] + p.extents[2] for p in ps), default=0)
    area = union_area(
        [
            (
                p.position[0],
                p.position[2],
                p.position[0] + p.extents[0],
                p.position[2] + p.extents[2],
            )
            for p in ps
        ]
    )
    payload = c.max_payload_kg if c.max_payload_kg is not None else cargo_kg
    cog: tuple[float, float, float] | None = None
    cog_offset = cog_height = None
    if ps:
        w = np.array([p.piece.weight_kg for p in ps], dtype=float)
        if w.sum() <= 0:
            w = np.array([p.piece.volume for p in ps], dtype=float)
        centres = np.array([[p.position[k] + p.extents[k] / 2 for k in range(3)] for p in ps])
        centre = (centres * w[:, None]).sum(axis=0) / w.sum()
        cog = (round(float(centre[0]), 3), round(float(centre[1]), 3), round(float(centre[2]), 3))
        half_diag = math.hypot(L, W) / 2
        off = math.hypot(centre[0] - L / 2, centre[2] - W / 2)
        cog_offset = round(min(1.0, off / half_diag), 6)
        cog_height = round(min(1.0, float(centre[1]) / H), 6)
    return ContainerMetrics(
        volume_utilization=round(cargo_v / inner_v, 6),
        loss_ratio=round(max(0.0, 1.0 - inner_v / c.outer_volume), 6),
        weight_utilization=weight_util,
        item_count=len(ps),
        volume_m3=_metric(cargo_v / _MM3_PER_M3, inner_v / _MM3_PER_M3),
        floor_length_cm=_metric(max_x / 10, L / 10),
        width_cm=_metric(max_z / 10, W / 10),
        height_cm=_metric(max_y / 10, H / 10),
        floor_area_m2=_metric(area / _MM2_PER_M2, L * W / _MM2_PER_M2),
        mass_kg=_metric(cargo_kg, payload),
        center_of_gravity_mm=cog,
        cog_offset=cog_offset,
        cog_height_ratio=cog_height,
        rotations_used=sum(1 for p in ps if p.orientation != 0),
    )
