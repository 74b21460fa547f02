"""The 2D isometric drawings of the PDF: every piece a group of shaded faces, drawn back to
front, Y up on the page, the door marked, a legend by cargo name, and no WebGL."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from adapters.planning.schemas import ItemPlacement, LoadingSide, PackingPlanRecord
from adapters.report import figures
from tests.adapters.report.plans import pallet_load, thermo

_THREE_D = {"Mesh3d", "Scatter3d", "Surface", "Cone", "Isosurface", "Volume"}


def _pieces(fig: Any) -> dict[str, list[dict[str, Any]]]:
    """The pieces' face shapes by piece (the shape's name), in drawing order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for shape in fig.to_dict()["layout"].get("shapes", []):
        if shape.get("name", "").startswith("piece "):
            out.setdefault(shape["name"], []).append(shape)
    return out


def _points(path: str) -> np.ndarray:
    return np.array([[float(a), float(b)] for a, b in re.findall(r"(-?[\d.]+),(-?[\d.]+)", path)])


def _with(record: PackingPlanRecord, **container_changes: Any) -> PackingPlanRecord:
    container = record.result.containers[0].model_copy(update=container_changes)
    return record.model_copy(
        update={"result": record.result.model_copy(update={"containers": [container]})}
    )


def _stack(side: str = "FRONT") -> PackingPlanRecord:
    """Two pieces of the thermo plan's container: ``low`` on the floor, ``high`` on it."""
    rec = thermo()
    low, high = (
        ItemPlacement(
            cargoItemId=item,
            instanceIndex=0,
            containerIndex=0,
            positionMm=[0.0, y, 0.0],
            rotation=[0, 0, 0],
            dimensionsMm=[200.0, 100.0, 150.0],
            loadStep=step,
            color="#1f77b4",
        )
        for item, y, step in (("vac", 0.0, 1), ("ins", 100.0, 2))
    )
    rec = _with(rec, loadingSide=LoadingSide(side))
    return rec.model_copy(
        update={"result": rec.result.model_copy(update={"placements": [low, high]})}
    )


def test_the_iso_figure_has_no_3d_traces_and_draws_every_piece() -> None:
    rec = pallet_load()
    index = rec.result.containers[0].containerIndex
    pieces = [p for p in rec.result.placements if p.containerIndex == index]
    fig = figures.container_iso_figure(rec, index)
    assert not {type(t).__name__ for t in fig.data} & _THREE_D
    assert "scene" not in fig.to_dict()["layout"]
    drawn = _pieces(fig)
    assert len(drawn) == len(pieces)
    # three visible faces each, filled, in three shades of the cargo colour
    assert all(len(faces) == 3 for faces in drawn.values())
    assert all(len({f["fillcolor"] for f in faces}) == 3 for faces in drawn.values())
    steps = [t for t in fig.data if (t.meta or {}).get("kind") == "steps"]
    assert len(steps) == 1 and set(steps[0].text) <= {str(p.loadStep) for p in pieces}
    # the top layer is seen from above: its step numbers are printed
    top = max(p.positionMm[1] for p in pieces)
    assert {str(p.loadStep) for p in pieces if p.positionMm[1] == top} <= set(steps[0].text)


@pytest.mark.parametrize("side", ["FRONT", "SIDE", "TOP"])
def test_a_higher_piece_is_higher_on_the_page_and_drawn_after(side: str) -> None:
    fig = figures.container_iso_figure(_stack(side), 0)
    drawn = _pieces(fig)
    low = next(v for k, v in drawn.items() if k.startswith("piece vac"))
    high = next(v for k, v in drawn.items() if k.startswith("piece ins"))
    lowest = {
        k: min(_points(f["path"])[:, 1].min() for f in faces)
        for k, faces in (("low", low), ("high", high))
    }
    highest = {
        k: max(_points(f["path"])[:, 1].max() for f in faces)
        for k, faces in (("low", low), ("high", high))
    }
    assert lowest["high"] > lowest["low"] and highest["high"] > highest["low"]
    # the piece on top hides part of the one below, so it is drawn later
    names = [s.get("name", "") for s in fig.to_dict()["layout"]["shapes"]]
    assert max(i for i, n in enumerate(names) if n.startswith("piece vac")) < min(
        i for i, n in enumerate(names) if n.startswith("piece ins")
    )


def test_the_projection_keeps_y_up_and_the_depth_towards_the_camera() -> None:
    for side in ("FRONT", "SIDE", "TOP"):
        iso = figures.Iso.of(_stack(side).result.containers[0])
        assert iso.xy([0.0, 1000.0, 0.0])[1] > iso.xy([0.0, 0.0, 0.0])[1]
        # every axis grows towards the camera: a box with the larger coordinate is nearer
        for axis in range(3):
            step = np.zeros(3)
            step[axis] = 1.0
            assert iso.depth(step) > 0


def test_paint_order_puts_nearer_boxes_last() -> None:
    iso = figures.Iso.of(_stack("FRONT").result.containers[0])
    # a row along X (the door's axis), given farthest last
    lo = np.array([[400.0, 0, 0], [200.0, 0, 0], [0.0, 0, 0]])
    hi = lo + np.array([200.0, 100.0, 150.0])
    assert figures.paint_order(lo, hi, iso) == [2, 1, 0]
    # a long flat box under a short tall one in front of it: the centres' depths would
    # put the tall one first, the boxes' separation puts the flat one first
    lo = np.array([[0.0, 0, 0], [0.0, 0, 1000.0]])
    hi = np.array([[3000.0, 100.0, 1000.0], [100.0, 2000.0, 1100.0]])
    assert figures.paint_order(lo, hi, iso) == [0, 1]
    assert figures.paint_order(np.zeros((0, 3)), np.zeros((0, 3)), iso) == []


@pytest.mark.parametrize("side", ["FRONT", "SIDE", "TOP"])
def test_the_door_is_marked_and_named(side: str) -> None:
    rec = _with(thermo(), loadingSide=LoadingSide(side))
    fig = figures.container_iso_figure(rec, 0)
    layout = fig.to_dict()["layout"]
    doors = [s for s in layout["shapes"] if s.get("name") == f"door {side}"]
    assert len(doors) == 1 and doors[0]["line"]["color"] == figures.DOOR
    assert any(a.get("text") == f"<b>DOOR ({side})</b>" for a in layout["annotations"])
    # the door's outline is the face on its side: the corners share that coordinate
    iso = figures.Iso.of(rec.result.containers[0])
    length, height, width = rec.result.containers[0].innerUsableMm
    axis, value = {"FRONT": (0, length), "SIDE": (2, width), "TOP": (1, height)}[side]
    depth = iso.depth(np.eye(3)[axis] * value)
    shell = [(a, b, c) for a in (0, length) for b in (0, height) for c in (0, width)]
    on_face = [q for q in shell if q[axis] == value]
    assert len(on_face) == 4 and depth > 0
    drawn = _points(doors[0]["path"])
    assert len(drawn) == 4
    for corner in on_face:
        assert np.min(np.hypot(*(drawn - iso.xy(corner)).T)) < 0.1


def test_axes_arrows_name_the_directions_in_mm() -> None:
    rec = thermo()
    fig = figures.container_iso_figure(rec, 0)
    texts = [a.get("text", "") for a in fig.to_dict()["layout"]["annotations"]]
    length, height, width = rec.result.containers[0].innerUsableMm
    for word, size in (("X length", length), ("Y up", height), ("Z width", width)):
        assert any(t.startswith(word) and t.endswith(f"{figures.num(size)} mm") for t in texts)
    arrows = [a for a in fig.to_dict()["layout"]["annotations"] if a.get("showarrow")]
    assert len(arrows) == 3


def test_the_legend_is_by_cargo_name() -> None:
    fig = figures.container_iso_figure(thermo(), 0)
    legend = {t.name for t in fig.data if t.showlegend and (t.meta or {}).get("kind") == "legend"}
    assert legend == {"Вакцина ГамКовидВак", "Инсулин (α-форма)", "fragile (red edges)"}


def test_load_steps_iso_figure_shows_each_new_piece_once_in_colour() -> None:
    rec = pallet_load()
    index = rec.result.containers[0].containerIndex
    pieces = [p for p in rec.result.placements if p.containerIndex == index]
    fig = figures.load_steps_iso_figure(rec, index, panels=6)
    assert not {type(t).__name__ for t in fig.data} & _THREE_D
    layout = fig.to_dict()["layout"]
    assert "scene" not in layout
    axes = {s["xref"] for s in layout["shapes"] if s.get("name", "").startswith("piece ")}
    assert len(axes) == 6
    # a piece in its own panel is in colour; pale in the panels after
    view = figures.plan_view(rec)
    colours = {view.colour(p.cargoItemId) for p in pieces}
    bright = [
        s["name"]
        for s in layout["shapes"]
        if s.get("name", "").startswith("piece ") and s["fillcolor"] in colours
    ]
    assert len(bright) == len(set(bright)) == len(pieces)
    legend = [t.name for t in fig.data if t.showlegend and (t.meta or {}).get("kind") == "legend"]
    assert legend.count("Water 19 L") == 1 and "loaded before (pale)" in legend
