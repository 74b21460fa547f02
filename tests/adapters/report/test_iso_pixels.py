"""The isometric drawings as Chromium draws them: the pixels of a PNG rendered by kaleido say
which box is higher on the page and which one covers the other where they overlap."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adapters.planning.schemas import CargoRules, ItemPlacement, LoadingSide, PackingPlanRecord
from adapters.report import figures
from tests.adapters.report.plans import thermo

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists(),
    reason="needs Chromium (kaleido)",
)

#: Pure hues, far from the drawing's own colours (grey edges, orange door, red fragile mark).
GREEN = "#00c000"
BLUE = "#0040ff"


def _plan(
    boxes: list[tuple[str, list[float], list[float]]], inner: list[float]
) -> PackingPlanRecord:
    """The thermo plan's container at ``inner`` [mm] holding ``(item, low corner, high corner)``
    boxes in load-step order; ``vac`` is drawn green and ``ins`` blue."""
    rec = thermo()
    colour = {"vac": GREEN, "ins": BLUE}
    cargos = [
        c.model_copy(update={"rules": CargoRules(color=colour[c.id])}) for c in rec.input.cargos
    ]
    placements = [
        ItemPlacement(
            cargoItemId=item,
            instanceIndex=0,
            containerIndex=0,
            positionMm=lo,
            rotation=[0, 0, 0],
            dimensionsMm=[h - low for low, h in zip(lo, hi, strict=True)],
            loadStep=step,
            color=colour[item],
        )
        for step, (item, lo, hi) in enumerate(boxes, start=1)
    ]
    container = rec.result.containers[0].model_copy(
        update={"innerUsableMm": inner, "loadingSide": LoadingSide.FRONT}
    )
    result = rec.result.model_copy(update={"containers": [container], "placements": placements})
    return rec.model_copy(
        update={"input": rec.input.model_copy(update={"cargos": cargos}), "result": result}
    )


def _pixels(rec: PackingPlanRecord) -> np.ndarray:
    """The container's isometric drawing as an RGB array (rows top to bottom), no legend."""
    from PIL import Image

    fig: Any = figures.container_iso_figure(rec, 0, title=False, step_labels=False)
    fig.update_layout(showlegend=False)
    (png,) = figures.to_png([(fig, 900, 700)], scale=1.0)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB")).astype(int)


def _green(rgb: np.ndarray) -> np.ndarray:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return (g > r + 50) & (g > b + 50)


def _blue(rgb: np.ndarray) -> np.ndarray:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return (b > r + 50) & (b > g + 30)


def test_the_box_on_top_is_drawn_higher_on_the_image() -> None:
    # green on the floor, blue standing on it
    rec = _plan(
        [
            ("vac", [0.0, 0.0, 0.0], [300.0, 150.0, 250.0]),
            ("ins", [0.0, 150.0, 0.0], [300.0, 300.0, 250.0]),
        ],
        [400.0, 380.0, 370.0],
    )
    rgb = _pixels(rec)
    green, blue = _green(rgb), _blue(rgb)
    assert green.sum() > 500 and blue.sum() > 500
    green_rows, blue_rows = np.nonzero(green)[0], np.nonzero(blue)[0]
    # rows count downwards: the upper box's pixels sit on smaller rows
    assert blue_rows.mean() < green_rows.mean()
    assert blue_rows.min() < green_rows.min() and blue_rows.max() < green_rows.max()


def test_the_nearer_box_covers_the_overlap_where_centre_depth_gets_it_wrong() -> None:
    # a long flat box (green) and a short tall one (blue) standing in front of it: the
    # centres' depths would draw blue first and let green cover it; blue is the nearer
    inner = [3100.0, 2100.0, 1200.0]
    flat = ("vac", [0.0, 0.0, 0.0], [3000.0, 100.0, 1000.0])
    tall = ("ins", [0.0, 0.0, 1000.0], [250.0, 2000.0, 1150.0])
    iso = figures.Iso.of(_plan([flat, tall], inner).result.containers[0])
    lo = np.array([flat[1], tall[1]])
    hi = np.array([flat[2], tall[2]])
    centres = (lo + hi) / 2
    assert iso.depth(centres[1]) < iso.depth(centres[0])  # the naive order is wrong here

    both = _pixels(_plan([flat, tall], inner))
    alone_flat = _green(_pixels(_plan([flat], inner)))
    alone_tall = _blue(_pixels(_plan([tall], inner)))
    overlap = alone_flat & alone_tall
    assert overlap.sum() > 200, "the two boxes should overlap on the image"
    blue_share = _blue(both)[overlap].mean()
    green_share = _green(both)[overlap].mean()
    assert blue_share > 0.9 and green_share < 0.05
