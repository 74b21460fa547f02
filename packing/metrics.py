"""Container metrics exactly as decisions §4 defines them.

All inputs are integer millimetres and kilograms; outputs use the units their names say.
"""

from __future__ import annotations

import math

import numpy as np

from packing.result import ContainerLoad

_MM3_PER_M3 = 1e9
_MM2_PER_M2 = 1e6


def _metric(used: float, max_: float) -> dict[str, float]:
    """``{used, max, percent}`` with percent = 100 × used / max (0 when max is 0)."""
    pct = 100.0 * used / max_ if max_ > 0 else 0.0
    return {
        "used": round(used, 6),
        "max": round(max_, 6),
        "percent": round(min(max(pct, 0.0), 100.0), 4),
    }


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
    wx = np.diff(xs)
    wz = np.diff(zs)
    return int((grid * np.outer(wx, wz)).sum())


def container_metrics(load: ContainerLoad) -> dict[str, object]:
    """The ContainerMetrics object of one container (decisions §4).

    volumeUtilization = cargo volume / inner usable volume; lossRatio = 1 − inner / outer
    volume; weightUtilization = cargo kg / payload (absent without a payload limit);
    floorLengthCm, widthCm, heightCm = largest X, Z, Y reached [cm]; floorAreaM2 = union of
    the pieces' footprints [m²]; centerOfGravityMm of the cargo (mass-weighted, volume-
    weighted when every piece weighs 0); cogOffset = horizontal distance of that centre
    from the floor centre / half the floor diagonal; cogHeightRatio = its height / inner
    height; rotationsUsed = pieces placed with a non-zero rotation.
    """
    c = load.container
    L, H, W = c.inner
    inner_v = c.inner_volume
    ps = load.placements
    cargo_v = sum(p.piece.volume for p in ps)
    cargo_kg = load.cargo_weight_kg
    out: dict[str, object] = {
        "volumeUtilization": round(cargo_v / inner_v, 6),
        "lossRatio": round(max(0.0, 1.0 - inner_v / c.outer_volume), 6),
        "itemCount": len(ps),
        "volumeM3": _metric(cargo_v / _MM3_PER_M3, inner_v / _MM3_PER_M3),
    }
    if c.max_payload_kg:
        out["weightUtilization"] = round(min(1.0, cargo_kg / c.max_payload_kg), 6)
    max_x = max((p.position[0] + p.extents[0] for p in ps), default=0)
    max_y = max((p.position[1] + p.extents[1] for p in ps), default=0)
    max_z = max((p.position[2] + p.extents[2] for p in ps), default=0)
    out["floorLengthCm"] = _metric(max_x / 10, L / 10)
    out["widthCm"] = _metric(max_z / 10, W / 10)
    out["heightCm"] = _metric(max_y / 10, H / 10)
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
    out["floorAreaM2"] = _metric(area / _MM2_PER_M2, L * W / _MM2_PER_M2)
    payload = c.max_payload_kg if c.max_payload_kg is not None else cargo_kg
    out["massKg"] = _metric(cargo_kg, payload)
    if ps:
        w = np.array([p.piece.weight_kg for p in ps], dtype=float)
        if w.sum() <= 0:
            w = np.array([p.piece.volume for p in ps], dtype=float)
        centres = np.array([[p.position[k] + p.extents[k] / 2 for k in range(3)] for p in ps])
        cog = (centres * w[:, None]).sum(axis=0) / w.sum()
        out["centerOfGravityMm"] = [round(float(v), 3) for v in cog]
        half_diag = math.hypot(L, W) / 2
        off = math.hypot(cog[0] - L / 2, cog[2] - W / 2)
        out["cogOffset"] = round(min(1.0, off / half_diag), 6)
        out["cogHeightRatio"] = round(min(1.0, float(cog[1]) / H), 6)
    out["rotationsUsed"] = sum(1 for p in ps if p.orientation != 0)
    return out
