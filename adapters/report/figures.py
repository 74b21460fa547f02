"""Plotly figures of a plan: the one drawing layer of notebooks, the share page and the PDF.

Every function takes a plan in any of the forms a caller has at hand (:func:`plan_view`):
a stored :class:`~adapters.planning.schemas.PackingPlanRecord`, a
:class:`~adapters.planning.schemas.CombinedPackingPlanResult` with or without its input, or
their JSON as dicts. Without the input the figures still draw, with cargo ids for names.

- :func:`container_figure`: one container in 3D, a box with visible edges per piece, a
  colour and a legend entry per cargo item, load step numbers, the door marked;
- :func:`load_steps_figure`: the same container after groups of load steps, for the loader;
- :func:`container_iso_figure` and :func:`load_steps_iso_figure`: the same two views as 2D
  isometric drawings (no WebGL), for static images: the PDF renders them in a fraction of
  the time Chromium takes to draw a 3D scene in software;
- :func:`vehicle_figure` and :func:`axle_load_figure`: PALLET_LOAD vehicles, their pallets,
  axle positions and loads against limits;
- :func:`thermal_figure`: a THERMO mode's route over time, ambient against the set point,
  and the load against the chosen containers' capacity.

Frame (docs/conventions.md): X along the container's length, Y up, Z along its width, the
origin at the inner back-left-bottom corner, sizes in mm. The 3D scenes draw plotly's x, y, z
as X, Y, Z with the camera's up vector on y, so height is up on screen.

Caller text (names, titles, cities) is HTML-escaped before it goes into a figure: plotly
reads a subset of HTML in labels and hover text, and a cargo name is data, never markup.
"""

from __future__ import annotations

import asyncio
import atexit
import colorsys
import contextlib
import heapq
import html
import itertools
import math
import os
import threading
from collections.abc import AsyncIterator, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from adapters.planning.schemas import (
    AxleLoad,
    CombinedModeReport,
    CombinedPackingPlanResult,
    ContainerAllocation,
    ItemPlacement,
    PackingCargoItem,
    PackingPlanInput,
    PackingPlanRecord,
    VehicleAllocation,
)

__all__ = [
    "PALETTE",
    "AxleState",
    "PlanView",
    "axle_load_figure",
    "axle_margin",
    "axle_states",
    "cargo_colours",
    "container_figure",
    "container_iso_figure",
    "load_steps_figure",
    "load_steps_iso_figure",
    "palette_colour",
    "plan_view",
    "rotation_text",
    "thermal_figure",
    "to_png",
    "vehicle_figure",
]

#: Kelly's colours of maximum contrast (without white and black), in his order: the first
#: ones differ most, all 20 stay distinguishable. Cargo item ``i`` gets ``PALETTE[i % 20]``,
#: lighter or darker on each further round (:func:`palette_colour`).
PALETTE: tuple[str, ...] = (
    "#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032",
    "#C2B280", "#848482", "#008856", "#E68FAC", "#0067A5",
    "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300",
    "#882D17", "#8DB600", "#654522", "#E25822", "#2B3D26",
)  # fmt: skip

#: Lightness change of each round through the palette after the first.
_ROUNDS: tuple[float, ...] = (0.0, 0.22, -0.15, 0.32, -0.25)

#: Colours of the drawing itself.
EDGE = "#1a1a1a"
OUTLINE = "#555555"
DOOR = "#e65100"
FRAGILE = "#e4002b"
EARLIER = "#d9d9d9"

PlanLike = Any
"""A :class:`PlanView`, a record, a result, or their JSON (see :func:`plan_view`)."""


# --------------------------------------------------------------------------- text helpers


#: The noncharacters U+FFFE and U+FFFF are no XML characters (nor is a reference to them):
#: plotly's image export, an SVG, fails on them, so figures show U+FFFD in their place.
_NOT_XML = str.maketrans({0xFFFE: "\ufffd", 0xFFFF: "\ufffd"})


def esc(text: object) -> str:
    """Caller text as plotly (and HTML) shows it literally. A quote is written ``&#34;``:
    plotly's labels read numeric references, not ``&quot;`` (it would show as typed).
    U+FFFE and U+FFFF, which no SVG may hold, are shown as U+FFFD."""
    escaped = html.escape(str(text), quote=True).replace("&quot;", "&#34;")
    return escaped.translate(_NOT_XML)


def num(value: float, digits: int = 1) -> str:
    """A number for people: thousands separated by a thin space, trailing zeros dropped."""
    if not math.isfinite(value):
        return str(value)
    text = f"{value:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text.replace(",", "\u2009")


def mm3(values: Sequence[float]) -> str:
    """``[a, b, c]`` as ``a × b × c`` (no unit)."""
    return " × ".join(num(v) for v in values)


def rotation_text(rotation: Sequence[int]) -> str:
    """A placement's ``rotation`` [rx, ry, rz] in words, e.g. ``turned 90° about Y``.

    The turns apply about X, then Y, then Z (docs/conventions.md#orientations); a turn about
    Y keeps the piece upright, one about X or Z tilts it.
    """
    turns = [f"90° about {axis}" for axis, r in zip("XYZ", rotation, strict=True) if r]
    if not turns:
        return "not turned"
    text = "turned " + ", then ".join(turns)
    if rotation[0] or rotation[2]:
        text += " (tilted)"
    return text


# --------------------------------------------------------------------------- colours


def _rgb(colour: str) -> tuple[float, float, float]:
    value = colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    return (int(value[0:2], 16) / 255, int(value[2:4], 16) / 255, int(value[4:6], 16) / 255)


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, c)) * 255):02x}" for c in rgb)


def lighten(colour: str, amount: float) -> str:
    """``colour`` with its HLS lightness moved by ``amount`` (−1 … 1), kept within 0.1 … 0.9."""
    h, lightness, s = colorsys.rgb_to_hls(*_rgb(colour))
    return _hex(colorsys.hls_to_rgb(h, max(0.1, min(0.9, lightness + amount)), s))


def mix(colour: str, other: str, share: float) -> str:
    """``share`` of ``other`` mixed into ``colour``."""
    a, b = _rgb(colour), _rgb(other)
    return _hex(x * (1 - share) + y * share for x, y in zip(a, b, strict=True))


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background``."""
    r, g, b = (
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in _rgb(background)
    )
    return "#000000" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.22 else "#ffffff"


def palette_colour(index: int) -> str:
    """Colour of the ``index``-th cargo item: distinct up to 20, then lighter or darker."""
    base = PALETTE[index % len(PALETTE)]
    shift = _ROUNDS[(index // len(PALETTE)) % len(_ROUNDS)]
    return base if shift == 0 else lighten(base, shift)


def cargo_colours(item_ids: Sequence[str], rules: Mapping[str, str | None]) -> dict[str, str]:
    """Colour per cargo item: the caller's ``rules.color`` wins, else the palette in order."""
    colours: dict[str, str] = {}
    for index, item_id in enumerate(dict.fromkeys(item_ids)):
        given = rules.get(item_id)
        colours[item_id] = _hex(_rgb(given)) if given else palette_colour(index)
    return colours


# --------------------------------------------------------------------------- plan access


@dataclass(frozen=True)
class PlanView:
    """A plan result with what the figures need from its input: names, rules, colours."""

    result: CombinedPackingPlanResult
    input: PackingPlanInput | None = None
    record: PackingPlanRecord | None = None
    cargos: Mapping[str, PackingCargoItem] = field(default_factory=dict)
    colours: Mapping[str, str] = field(default_factory=dict)

    def name(self, item_id: str) -> str:
        """The cargo item's name (its id when the input has none)."""
        item = self.cargos.get(item_id)
        return item.name if item is not None and item.name else item_id

    def fragile(self, item_id: str) -> bool:
        item = self.cargos.get(item_id)
        return bool(item is not None and item.rules is not None and item.rules.fragile)

    def unload_priority(self, item_id: str) -> int:
        """Higher is unloaded earlier; 0 is normal."""
        item = self.cargos.get(item_id)
        if item is None or item.rules is None or item.rules.unloadPriority is None:
            return 0
        return int(item.rules.unloadPriority)

    def weight_kg(self, item_id: str) -> float | None:
        item = self.cargos.get(item_id)
        return None if item is None else item.weightKg

    def colour(self, item_id: str) -> str:
        return self.colours.get(item_id, palette_colour(len(self.colours)))

    def container(self, index: int) -> ContainerAllocation:
        for c in self.result.containers:
            if c.containerIndex == index:
                return c
        raise IndexError(
            f"no container {index} in the plan; it has "
            + (", ".join(str(c.containerIndex) for c in self.result.containers) or "none")
        )

    def pieces(self, container_index: int) -> list[ItemPlacement]:
        """The container's pieces in load order."""
        return sorted(
            (p for p in self.result.placements if p.containerIndex == container_index),
            key=lambda p: (p.loadStep, p.cargoItemId, p.instanceIndex),
        )

    def mode_of(self, container: ContainerAllocation) -> CombinedModeReport | None:
        """The mode report the container belongs to (by its thermal profile's mode)."""
        for m in self.result.modes:
            if m.temperatureMode == container.thermalProfileUsed.mode:
                return m
        return None


def plan_view(
    plan: PlanLike, plan_input: PackingPlanInput | Mapping[str, Any] | None = None
) -> PlanView:
    """The plan in the form the figures read.

    Parameters
    ----------
    plan : PlanView, PackingPlanRecord, CombinedPackingPlanResult or dict
        A record (or its JSON with ``input`` and ``result``), or a result (or its JSON, a
        compute response's ``planId`` allowed).
    plan_input : PackingPlanInput or dict, optional
        The request of a bare result: gives cargo names, rules and colours.
    """
    if isinstance(plan, PlanView):
        return plan
    record: PackingPlanRecord | None = None
    given: PackingPlanInput | Mapping[str, Any] | None
    if isinstance(plan, PackingPlanRecord):
        record, result, given = plan, plan.result, plan_input or plan.input
    elif isinstance(plan, CombinedPackingPlanResult):
        result, given = plan, plan_input
    elif isinstance(plan, Mapping):
        if "result" in plan:
            result = CombinedPackingPlanResult.model_validate(plan["result"])
            given = plan_input or plan.get("input")
        else:
            result = CombinedPackingPlanResult.model_validate(
                {k: v for k, v in plan.items() if k != "planId"}
            )
            given = plan_input
    else:
        raise TypeError(f"expected a plan record or result, got {type(plan).__name__}")
    parsed = (
        None
        if given is None
        else given
        if isinstance(given, PackingPlanInput)
        else PackingPlanInput.model_validate(_without_nulls(given))
    )
    cargos = {c.id: c for c in parsed.cargos} if parsed is not None else {}
    ids = [*cargos, *(p.cargoItemId for p in result.placements)]
    rules = {c.id: (c.rules.color if c.rules is not None else None) for c in cargos.values()}
    return PlanView(result, parsed, record, cargos, cargo_colours(ids, rules))


def _without_nulls(value: Any) -> Any:
    """A request's JSON without its null fields (a dump of the input model writes them;
    the input model takes an absent field, never a null)."""
    if isinstance(value, Mapping):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


# --------------------------------------------------------------------------- 3D geometry

#: Faces of a box as quads of its corners; corner ``a + 2b + 4c`` is (X a, Y b, Z c).
_QUADS = ((0, 2, 6, 4), (1, 3, 7, 5), (0, 1, 5, 4), (2, 3, 7, 6), (0, 1, 3, 2), (4, 5, 7, 6))
_TRIANGLES = [t for a, b, c, d in _QUADS for t in ((a, b, c), (a, c, d))]
#: The 12 edges as one pen path (None lifts the pen): bottom, top, four uprights.
_EDGE_PATH = (0, 1, 5, 4, 0, None, 2, 3, 7, 6, 2, None, 0, 2, None, 1, 3, None, 5, 7, None, 4, 6)


#: Corner ``c`` of a box is its position plus ``_CORNER_BITS[c]`` × its dimensions.
_CORNER_BITS = np.array([(c & 1, (c >> 1) & 1, (c >> 2) & 1) for c in range(8)], dtype=float)
#: :data:`_EDGE_PATH` as corner indices, a pen lift (-1) closing each box's path.
_EDGE_INDEX = np.array([-1 if k is None else k for k in _EDGE_PATH] + [-1])


def box_geometry() -> dict[str, list[Any]]:
    """How a box is drawn, for a script that rebuilds traces from boxes (the share page):
    ``triangles`` (corner indices, 12) and ``edgePath`` (corner indices; -1 lifts the pen)."""
    return {
        "triangles": [list(t) for t in _TRIANGLES],
        "edgePath": [int(k) for k in _EDGE_INDEX],
    }


def box_array(pieces: Sequence[ItemPlacement]) -> np.ndarray:
    """Position and dimensions of each piece, one row ``x, y, z, dx, dy, dz`` [mm]."""
    return np.array([(*p.positionMm, *p.dimensionsMm) for p in pieces], dtype=float).reshape(-1, 6)


def mesh_arrays(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Corners (8 per box, ``n × 8`` rows of X, Y, Z) and triangles (12 per box, rows of
    corner indices) of ``box_array`` rows: what a ``Mesh3d`` of the boxes draws."""
    corners = boxes[:, None, :3] + boxes[:, None, 3:] * _CORNER_BITS[None]
    triangles = np.array(_TRIANGLES)[None] + 8 * np.arange(len(boxes))[:, None, None]
    return corners.reshape(-1, 3), triangles.reshape(-1, 3)


def edge_arrays(boxes: np.ndarray) -> np.ndarray:
    """The edges of ``box_array`` rows as one pen path (rows X, Y, Z; NaN lifts the pen,
    plotly draws it as a gap): 24 rows per box."""
    corners = boxes[:, None, :3] + boxes[:, None, 3:] * _CORNER_BITS[None]
    path: np.ndarray = corners[:, np.maximum(_EDGE_INDEX, 0)]
    path[:, _EDGE_INDEX < 0] = np.nan
    return path.reshape(-1, 3)


def piece_hover(view: PlanView, p: ItemPlacement) -> str:
    """Hover text of a piece: name, id, size, weight, step, rotation, fragile, priority."""
    weight = view.weight_kg(p.cargoItemId)
    lines = [
        f"<b>{esc(view.name(p.cargoItemId))}</b>",
        f"id {esc(p.cargoItemId)}, piece {p.instanceIndex + 1}",
        f"{mm3(p.dimensionsMm)} mm (L × H × W as placed)",
        f"{num(weight, 3)} kg" if weight is not None else "weight not given",
        f"load step {p.loadStep}",
        rotation_text(p.rotation),
        f"fragile: {'yes' if view.fragile(p.cargoItemId) else 'no'}",
        f"unload priority {view.unload_priority(p.cargoItemId)}",
        f"at X {num(p.positionMm[0])}, Y {num(p.positionMm[1])}, Z {num(p.positionMm[2])} mm",
    ]
    return "<br>".join(lines)


#: Where the camera looks from, per door side (plotly's normalised scene units, Y up).
_EYES: dict[str, tuple[float, float, float]] = {
    "FRONT": (1.45, 0.9, 0.98),
    "SIDE": (0.8, 0.94, 1.5),
    "TOP": (1.2, 1.4, 1.07),
}


def _towards_camera(container: ContainerAllocation) -> tuple[float, float, float]:
    """Unit vector from the scene towards the camera (the scene is drawn to scale)."""
    ex, ey, ez = _EYES[container.loadingSide.value]
    norm = math.sqrt(ex * ex + ey * ey + ez * ez)
    return (ex / norm, ey / norm, ez / norm)


def _door_face(
    container: ContainerAllocation,
) -> tuple[list[tuple[float, float, float]], tuple[float, float, float]]:
    """Corners of the door's face (as a closed path) and a point for its label, in front of
    the face's centre on the camera's side."""
    length, height, width = container.innerUsableMm
    side = container.loadingSide.value
    if side == "FRONT":
        path = [(length, 0, 0), (length, height, 0), (length, height, width), (length, 0, width)]
    elif side == "SIDE":
        path = [(0, 0, width), (length, 0, width), (length, height, width), (0, height, width)]
    else:
        path = [(0, height, 0), (length, height, 0), (length, height, width), (0, height, width)]
    cx = sum(q[0] for q in path) / 4
    cy = sum(q[1] for q in path) / 4
    cz = sum(q[2] for q in path) / 4
    e = _towards_camera(container)
    out = 0.12 * max(length, height, width)
    return [*path, path[0]], (cx + e[0] * out, cy + e[1] * out, cz + e[2] * out)


_DOOR_AXIS = {"FRONT": 0, "TOP": 1, "SIDE": 2}


def _label_points(
    container: ContainerAllocation,
    pieces: Sequence[ItemPlacement],
    everything: Sequence[ItemPlacement],
) -> list[tuple[float, float, float]]:
    """Where each piece's step number goes: the centre of its face towards the door when no
    other piece covers it, else of another face towards the camera that is free (the face
    the camera sees most when all are covered); a little out of the face towards the camera,
    so that the label (always facing the camera) does not sink into the box."""
    e = _towards_camera(container)
    door = _DOOR_AXIS[container.loadingSide.value]
    axes = [door, *sorted((a for a in range(3) if a != door), key=lambda a: -e[a])]
    out_by = 0.03 * max(container.innerUsableMm)
    nudge = 0.5
    lo = np.array([q.positionMm for q in everything], dtype=float).reshape(-1, 3)
    hi = lo + np.array([q.dimensionsMm for q in everything], dtype=float).reshape(-1, 3)

    def covered(point: Sequence[float]) -> bool:
        at = np.asarray(point, dtype=float)
        return bool(np.any(np.all((lo < at) & (at < hi), axis=1)))

    points = []
    for p in pieces:
        centre = [p.positionMm[i] + p.dimensionsMm[i] / 2 for i in range(3)]
        chosen = max(range(3), key=lambda a: e[a])
        for a in axes:
            probe = list(centre)
            probe[a] = p.positionMm[a] + p.dimensionsMm[a] + nudge
            if not covered(probe):
                chosen = a
                break
        face = list(centre)
        face[chosen] = p.positionMm[chosen] + p.dimensionsMm[chosen]
        points.append((face[0] + e[0] * out_by, face[1] + e[1] * out_by, face[2] + e[2] * out_by))
    return points


def _camera(container: ContainerAllocation) -> dict[str, Any]:
    """A view from the door's side and above, Y up."""
    eye = _EYES[container.loadingSide.value]
    return {
        "up": {"x": 0, "y": 1, "z": 0},
        "eye": {"x": eye[0], "y": eye[1], "z": eye[2]},
        "center": {"x": 0, "y": -0.08, "z": 0},
        "projection": {"type": "perspective"},
    }


def _scene(container: ContainerAllocation) -> dict[str, Any]:
    length, height, width = container.innerUsableMm
    pad = 0.04 * max(length, height, width)
    # room on the camera's side for the labels that stand out of the faces
    extra = 0.11 * max(length, height, width)

    def axis(title: str, top: float) -> dict[str, Any]:
        return {
            "title": {"text": title},
            "range": [-pad, top + extra],
            "backgroundcolor": "#f7f7f7",
            "gridcolor": "#dddddd",
            "showbackground": True,
            "zeroline": False,
        }

    return {
        "xaxis": axis("X length, mm", length),
        "yaxis": axis("Y height, mm", height),
        "zaxis": axis("Z width, mm", width),
        "aspectmode": "data",
        "camera": _camera(container),
        "dragmode": "orbit",
    }


def _container_traces(
    view: PlanView,
    container: ContainerAllocation,
    pieces: Sequence[ItemPlacement],
    *,
    scene: str = "scene",
    new_steps: set[int] | None = None,
    step_labels: bool = True,
    legend_seen: set[str] | None = None,
) -> list[dict[str, Any]]:
    """Traces of one container: per cargo item a mesh and its edges; step numbers; outline;
    door. ``new_steps``: pieces of other steps are drawn pale (load-step views).

    Plain dicts, for a figure made from them at once: plotly checks a whole figure's dict
    in far less time than it takes to make the same traces one object at a time (a
    load-step figure of 40 pieces in 6 panels: 200 → 80 ms)."""
    seen = legend_seen if legend_seen is not None else set()
    traces: list[dict[str, Any]] = []
    by_item: dict[str, list[ItemPlacement]] = {}
    for p in pieces:
        by_item.setdefault(p.cargoItemId, []).append(p)
    for item_id, group in by_item.items():
        for earlier in (False, True) if new_steps is not None else (False,):
            chosen = [
                p for p in group if new_steps is None or (p.loadStep not in new_steps) == earlier
            ]
            if not chosen:
                continue
            colour = view.colour(item_id)
            fill = mix(colour, "#ffffff", 0.72) if earlier else colour
            boxes = box_array(chosen)
            corners, triangles = mesh_arrays(boxes)
            # (numpy arrays: plotly takes them without checking every element, and writes
            # them as typed arrays; a load-step view's pale pieces carry no hover text,
            # their own step's panel has it)
            hover = (
                None
                if earlier
                else np.repeat(np.array([piece_hover(view, p) for p in chosen], dtype=object), 8)
            )
            show = item_id not in seen
            if show:
                seen.add(item_id)
            traces.append(
                dict(
                    type="mesh3d",
                    x=corners[:, 0],
                    y=corners[:, 1],
                    z=corners[:, 2],
                    i=triangles[:, 0],
                    j=triangles[:, 1],
                    k=triangles[:, 2],
                    color=fill,
                    flatshading=True,
                    lighting={"ambient": 0.55, "diffuse": 0.7, "specular": 0.05, "roughness": 1},
                    lightposition={"x": 1000, "y": 5000, "z": 3000},
                    name=esc(view.name(item_id)),
                    legendgroup=item_id,
                    showlegend=show,
                    hovertext=hover,
                    hoverinfo="skip" if earlier else "text",
                    scene=scene,
                    meta={"kind": "piece", "cargoItemId": item_id},
                )
            )
            edges = edge_arrays(boxes)
            traces.append(
                dict(
                    type="scatter3d",
                    x=edges[:, 0],
                    y=edges[:, 1],
                    z=edges[:, 2],
                    mode="lines",
                    line={"color": "#9a9a9a" if earlier else EDGE, "width": 2.5},
                    name=esc(view.name(item_id)) + " edges",
                    legendgroup=item_id,
                    showlegend=False,
                    hoverinfo="skip",
                    scene=scene,
                    meta={"kind": "edges", "cargoItemId": item_id},
                )
            )
    fragile = [
        p
        for p in pieces
        if view.fragile(p.cargoItemId) and (new_steps is None or p.loadStep in new_steps)
    ]
    if fragile:
        fragile_edges = edge_arrays(box_array(fragile))
        traces.append(
            dict(
                type="scatter3d",
                x=fragile_edges[:, 0],
                y=fragile_edges[:, 1],
                z=fragile_edges[:, 2],
                mode="lines",
                line={"color": FRAGILE, "width": 6},
                name="fragile (red edges)",
                legendgroup="fragile",
                showlegend="fragile" not in seen,
                hoverinfo="skip",
                scene=scene,
                meta={"kind": "fragile"},
            )
        )
        seen.add("fragile")
    labelled = [p for p in pieces if new_steps is None or p.loadStep in new_steps]
    if step_labels and labelled:
        points = _label_points(container, labelled, pieces)
        traces.append(
            dict(
                type="scatter3d",
                x=[q[0] for q in points],
                y=[q[1] for q in points],
                z=[q[2] for q in points],
                mode="text",
                text=[str(p.loadStep) for p in labelled],
                textfont={
                    "size": 13 if len(labelled) <= 60 else 10,
                    "color": [text_colour(view.colour(p.cargoItemId)) for p in labelled],
                    "family": "DejaVu Sans, Arial, sans-serif",
                },
                textposition="middle center",
                name="load step",
                showlegend=False,
                hoverinfo="skip",
                scene=scene,
                meta={"kind": "steps"},
            )
        )
    length, height, width = container.innerUsableMm
    outline = edge_arrays(np.array([[0.0, 0.0, 0.0, length, height, width]]))
    ox, oy, oz = outline[:, 0], outline[:, 1], outline[:, 2]
    traces.append(
        dict(
            type="scatter3d",
            x=ox,
            y=oy,
            z=oz,
            mode="lines",
            line={"color": OUTLINE, "width": 3},
            name="container",
            showlegend=False,
            hoverinfo="skip",
            scene=scene,
            meta={"kind": "outline"},
        )
    )
    path, label = _door_face(container)
    side = container.loadingSide.value
    traces.append(
        dict(
            type="scatter3d",
            x=[q[0] for q in path] + [None, label[0]],
            y=[q[1] for q in path] + [None, label[1]],
            z=[q[2] for q in path] + [None, label[2]],
            mode="lines+text",
            line={"color": DOOR, "width": 9},
            text=[""] * len(path) + ["", f"DOOR ({side})"],
            textfont={"size": 15, "color": DOOR, "family": "DejaVu Sans, Arial, sans-serif"},
            textposition="middle center",
            name=f"door ({side})",
            legendgroup="door",
            showlegend="door" not in seen,
            hoverinfo="skip",
            scene=scene,
            meta={"kind": "door", "loadingSide": side},
        )
    )
    seen.add("door")
    return traces


def container_title(view: PlanView, container: ContainerAllocation, pieces: int) -> str:
    return (
        f"#{container.containerIndex} {esc(container.containerTitle)} "
        f"({esc(container.containerSlug)}): {pieces} piece{'s' if pieces != 1 else ''}, "
        f"inner {mm3(container.innerUsableMm)} mm, door {container.loadingSide.value}"
    )


def container_figure(
    plan: PlanLike,
    container_index: int = 0,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    upto_step: int | None = None,
    step_labels: bool = True,
    title: bool = True,
    height: int = 620,
) -> go.Figure:
    """One container in 3D: every piece a box with edges, coloured per cargo item.

    Parameters
    ----------
    plan
        The plan (:func:`plan_view`).
    container_index : int, default 0
        The container's ``containerIndex``.
    plan_input : optional
        The request of a bare result (cargo names, rules, colours).
    upto_step : int, optional
        Draw the container after this load step: later pieces left out, earlier ones pale,
        this step's in colour.
    step_labels : bool, default True
        Print each piece's load step on its face towards the door.
    title : bool, default True
        Put the container's name and sizes above the scene.
    height : int, default 620
        Figure height [px].

    Returns
    -------
    plotly.graph_objects.Figure
        Legend by cargo name; hover with name, id, size, weight, step, rotation, fragile and
        unload priority; the door's face outlined and labelled; Y up.
    """
    view = plan_view(plan, plan_input)
    container = view.container(container_index)
    pieces = view.pieces(container_index)
    new_steps: set[int] | None = None
    heading = container_title(view, container, len(pieces))
    if upto_step is not None:
        pieces = [p for p in pieces if p.loadStep <= upto_step]
        new_steps = {upto_step}
        last = max((p.loadStep for p in view.pieces(container_index)), default=0)
        heading += f"<br>after load step {upto_step} of {last}"
    layout = {
        "title": {"text": heading if title else "", "x": 0.01, "font": {"size": 15}},
        "scene": _scene(container),
        "legend": {"title": {"text": "Cargo"}, "itemsizing": "constant", "x": 1.0, "y": 0.98},
        "margin": {
            "l": 0,
            "r": 0,
            "t": (60 if upto_step is None else 80) if title else 10,
            "b": 0,
        },
        "height": height,
        "template": "plotly_white",
        "font": {"family": "DejaVu Sans, Arial, sans-serif"},
        "hoverlabel": {"align": "left"},
    }
    traces = _container_traces(
        view, container, pieces, new_steps=new_steps, step_labels=step_labels
    )
    return go.Figure({"data": traces, "layout": layout})


def step_groups(steps: Sequence[int], panels: int) -> list[list[int]]:
    """``steps`` (sorted, distinct) cut into ``min(panels, len(steps))`` consecutive groups
    whose sizes differ by one at most."""
    count = min(panels, len(steps))
    if count <= 0:
        return []
    size, extra = divmod(len(steps), count)
    groups = []
    start = 0
    for n in range(count):
        end = start + size + (1 if n < extra else 0)
        groups.append(list(steps[start:end]))
        start = end
    return groups


def _steps_title(group: Sequence[int]) -> str:
    return f"step {group[0]}" if len(group) == 1 else f"steps {group[0]}–{group[-1]}"


def load_steps_figure(
    plan: PlanLike,
    container_index: int = 0,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    panels: int = 6,
    columns: int = 3,
    panel_height: int = 360,
    title: bool = True,
) -> go.Figure:
    """The container after each group of load steps, for the loader: one 3D panel per group.

    The load steps are cut into at most ``panels`` consecutive groups; each panel shows the
    container after its group, the group's pieces in colour with their step numbers and the
    pieces loaded before pale.
    """
    view = plan_view(plan, plan_input)
    container = view.container(container_index)
    pieces = view.pieces(container_index)
    groups = step_groups(sorted({p.loadStep for p in pieces}), panels) or [[]]
    cols = min(columns, len(groups))
    rows = math.ceil(len(groups) / cols)
    # the panels' places and titles, as plotly lays out subplots
    layout: dict[str, Any] = make_subplots(
        rows=rows,
        cols=cols,
        specs=[[{"type": "scene"}] * cols for _ in range(rows)],
        subplot_titles=[
            f"{n}. {_steps_title(g)}" if g else "empty" for n, g in enumerate(groups, start=1)
        ],
        horizontal_spacing=0.01,
        vertical_spacing=0.06 / rows,
    ).layout.to_plotly_json()
    seen: set[str] = set()
    traces: list[dict[str, Any]] = []
    for n, group in enumerate(groups):
        scene = "scene" if n == 0 else f"scene{n + 1}"
        upto = group[-1] if group else 0
        shown = [p for p in pieces if p.loadStep <= upto]
        traces += _container_traces(
            view, container, shown, scene=scene, new_steps=set(group), legend_seen=seen
        )
        settings = _scene(container)
        for axis in ("xaxis", "yaxis", "zaxis"):  # short titles: the panels are small
            settings[axis]["title"] = {"text": axis[0].upper()}
        layout[scene] = layout.get(scene, {}) | settings
    heading = f"Loading sequence of {container_title(view, container, len(pieces))}"
    layout |= {
        "title": {"text": heading if title else "", "x": 0.01, "font": {"size": 15}},
        "legend": {"title": {"text": "Cargo"}, "orientation": "h", "y": -0.02, "yanchor": "top"},
        "margin": {"l": 0, "r": 0, "t": 70 if title else 30, "b": 10},
        "height": panel_height * rows + (120 if title else 80),
        "template": "plotly_white",
        "font": {"family": "DejaVu Sans, Arial, sans-serif"},
    }
    # made from the dicts at once: plotly checks a figure's dict in a fraction of the time
    # its updates take
    return go.Figure({"data": traces, "layout": layout})


# --------------------------------------------------------------------------- isometric (2D)
#
# The PDF's container views: the 3D scene projected along the camera's direction onto the
# page (an axonometric view), every piece's three visible faces a filled path, drawn back to
# front. Plain 2D drawing, so a static image costs kaleido what any chart costs, where the
# WebGL scenes above take Chromium seconds each in software.

#: Corners of a box's outline as seen from a direction with X, Y and Z all positive (every
#: camera of :data:`_EYES`): the silhouette hexagon, in order around it.
_SILHOUETTE = (1, 3, 2, 6, 4, 5)
#: The faces such a camera sees (+X, +Y on top, +Z) as corner quads, with their axis.
_VISIBLE = ((0, (1, 3, 7, 5)), (1, (2, 3, 7, 6)), (2, (4, 5, 7, 6)))


@dataclass(frozen=True)
class Iso:
    """The projection of a container's frame onto the page: X, Y, Z [mm] to page x, y [mm],
    Y up (a higher point is higher on the page), scale kept (lengths along the page are
    true lengths of the projected lines)."""

    towards: tuple[float, float, float]
    right: tuple[float, float, float]
    up: tuple[float, float, float]

    @classmethod
    def of(cls, container: ContainerAllocation) -> Iso:
        ex, ey, ez = _towards_camera(container)
        norm = math.hypot(ex, ez)
        right = (ez / norm, 0.0, -ex / norm)
        # up = right × (−towards): Y has a positive share, so up stays up
        up = (-ey * ex / norm, norm, -ey * ez / norm)
        return cls((ex, ey, ez), right, up)

    def xy(self, points: Any) -> np.ndarray:
        """``points`` (…, 3) on the page: (…, 2)."""
        out: np.ndarray = np.asarray(points, dtype=float) @ np.array([self.right, self.up]).T
        return out

    def depth(self, points: Any) -> np.ndarray:
        """Distance towards the camera: larger is nearer."""
        out: np.ndarray = np.asarray(points, dtype=float) @ np.array(self.towards)
        return out


def _box_corners(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Corners (n, 8, 3) of boxes ``lo``–``hi`` (n, 3); corner ``a + 2b + 4c`` as above."""
    bits = np.array([[i & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], dtype=float)
    out: np.ndarray = lo[:, None, :] + (hi - lo)[:, None, :] * bits[None, :, :]
    return out


def paint_order(lo: np.ndarray, hi: np.ndarray, iso: Iso) -> list[int]:
    """Indices of the boxes ``lo``–``hi`` (n, 3) from the farthest to the nearest, so that
    each drawn over the ones before it hides what it hides (the painter's algorithm).

    Two boxes whose outlines on the page overlap are ordered by the axis that separates
    them: the one with the higher coordinate is nearer the camera (all of whose direction
    components are positive). Boxes that touch the page apart need no order; boxes that
    intersect (bad data) go by the depth of their centres, as does a cycle.
    """
    n = len(lo)
    if n == 0:
        return []
    corners = iso.xy(_box_corners(lo, hi))
    page_lo, page_hi = corners.min(axis=1), corners.max(axis=1)
    centre_depth = iso.depth((lo + hi) / 2)
    tol = 1e-6 * max(1.0, float(np.abs(hi).max()))
    overlap = np.all(
        (page_lo[:, None, :] < page_hi[None, :, :] - tol)
        & (page_lo[None, :, :] < page_hi[:, None, :] - tol),
        axis=2,
    )
    np.fill_diagonal(overlap, False)
    lower = np.any(hi[:, None, :] <= lo[None, :, :] + tol, axis=2)  # i below j on an axis
    higher = lower.T
    apart = lower | higher
    nearer_first = centre_depth[:, None] < centre_depth[None, :]
    same = centre_depth[:, None] == centre_depth[None, :]
    by_depth = nearer_first | (same & (np.arange(n)[:, None] < np.arange(n)[None, :]))
    before = overlap & ((lower & ~higher) | (~apart & by_depth))
    waiting = before.sum(axis=0)
    heap = [(float(centre_depth[i]), i) for i in range(n) if waiting[i] == 0]
    heapq.heapify(heap)
    done = np.zeros(n, dtype=bool)
    order: list[int] = []
    while len(order) < n:
        if not heap:  # a cycle: the farthest box left goes first
            rest = np.flatnonzero(~done)
            i = int(rest[np.argmin(centre_depth[rest])])
            heap.append((float(centre_depth[i]), i))
            waiting[i] = 0
        _, i = heapq.heappop(heap)
        if done[i]:
            continue
        done[i] = True
        order.append(i)
        for j in np.flatnonzero(before[i] & ~done):
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(heap, (float(centre_depth[j]), int(j)))
    return order


def _inside(point: np.ndarray, polygon: np.ndarray, margin: float) -> bool:
    """Whether ``point`` lies in the convex ``polygon`` (k, 2), ``margin`` inside its edges."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    rel = point - polygon
    cross = (edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0]) / np.where(lengths, lengths, 1)
    return bool(np.all(cross > margin) or np.all(cross < -margin))


def _path(points: np.ndarray) -> str:
    """An SVG path through ``points`` (k, 2), closed."""
    return "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in points) + "Z"


def _open_path(points: np.ndarray) -> str:
    return "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in points)


#: Shading of a piece's visible faces: the top lighter, the +Z side darker (X, Y, Z).
_SHADE = ((None, 0.0), ("#ffffff", 0.32), ("#000000", 0.24))


def _shade(colour: str, axis: int) -> str:
    other, share = _SHADE[axis]
    return colour if other is None else mix(colour, other, share)


def _iso_label_points(
    container: ContainerAllocation,
    pieces: Sequence[ItemPlacement],
    everything: Sequence[ItemPlacement],
) -> list[tuple[float, float, float]]:
    """Where each piece's step number goes: the centre of its top face when no piece stands
    on it, else of its face towards the door, else of its third visible face (the top when
    all are covered)."""
    door = _DOOR_AXIS[container.loadingSide.value]
    axes = list(dict.fromkeys([1, door, 0, 2]))
    lo = np.array([q.positionMm for q in everything], dtype=float).reshape(-1, 3)
    hi = lo + np.array([q.dimensionsMm for q in everything], dtype=float).reshape(-1, 3)
    points = []
    for p in pieces:
        centre = [p.positionMm[i] + p.dimensionsMm[i] / 2 for i in range(3)]
        chosen = 1
        for a in axes:
            probe = np.array(centre)
            probe[a] = p.positionMm[a] + p.dimensionsMm[a] + 0.5
            if not np.any(np.all((lo < probe) & (probe < hi), axis=1)):
                chosen = a
                break
        face = list(centre)
        face[chosen] = p.positionMm[chosen] + p.dimensionsMm[chosen]
        points.append((face[0], face[1], face[2]))
    return points


@dataclass
class _IsoPanel:
    """What one isometric view adds to a figure, on the axes ``x{n}``/``y{n}``."""

    shapes: list[dict[str, Any]]
    traces: list[Any]
    annotations: list[dict[str, Any]]
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def _iso_panel(
    view: PlanView,
    container: ContainerAllocation,
    pieces: Sequence[ItemPlacement],
    *,
    axes: str = "",
    new_steps: set[int] | None = None,
    step_labels: bool = True,
    legend_seen: set[str] | None = None,
    guides: bool = True,
) -> _IsoPanel:
    """One container projected on the page: walls and floor behind, the pieces back to
    front (three shaded faces and dark edges each, red edges for fragile ones), step
    numbers where they are seen, the front edges, the door outlined and named, and (with
    ``guides``) arrows along X, Y and Z with the inner sizes."""
    seen = legend_seen if legend_seen is not None else set()
    iso = Iso.of(container)
    xref, yref = f"x{axes}", f"y{axes}"
    length, height, width = (float(v) for v in container.innerUsableMm)
    shell = iso.xy(_box_corners(np.zeros((1, 3)), np.array([[length, height, width]])))[0]
    span = float(max(np.ptp(shell[:, 0]), np.ptp(shell[:, 1]), 1.0))
    shapes: list[dict[str, Any]] = []
    traces: list[Any] = []
    notes: list[dict[str, Any]] = []

    def shape(path: str, **style: Any) -> None:
        shapes.append({"type": "path", "path": path, "xref": xref, "yref": yref} | style)

    # the walls behind the pieces: floor, back wall (X = 0) and left wall (Z = 0)
    for quad, fill in (
        ((0, 1, 5, 4), "#ececec"),
        ((0, 2, 6, 4), "#f6f6f6"),
        ((0, 1, 3, 2), "#f3f3f3"),
    ):
        shape(
            _path(shell[list(quad)]),
            fillcolor=fill,
            line={"color": "#b0b0b0", "width": 1},
            layer="below",
            name="wall",
        )
    lo = np.array([p.positionMm for p in pieces], dtype=float).reshape(-1, 3)
    hi = lo + np.array([p.dimensionsMm for p in pieces], dtype=float).reshape(-1, 3)
    corners = iso.xy(_box_corners(lo, hi))
    order = paint_order(lo, hi, iso)
    rank = {i: n for n, i in enumerate(order)}
    for i in order:
        p = pieces[i]
        earlier = new_steps is not None and p.loadStep not in new_steps
        colour = view.colour(p.cargoItemId)
        fill = mix(colour, "#ffffff", 0.72) if earlier else colour
        fragile = not earlier and view.fragile(p.cargoItemId)
        line = (
            {"color": FRAGILE, "width": 2.2}
            if fragile
            else {"color": "#9a9a9a" if earlier else EDGE, "width": 1}
        )
        name = f"piece {p.cargoItemId}#{p.instanceIndex} step {p.loadStep}"
        for axis, quad in _VISIBLE:
            shape(
                _path(corners[i][list(quad)]),
                fillcolor=_shade(fill, axis),
                line=line,
                layer="below",
                name=name,
            )
    # the front edges of the container over the pieces, as if its walls were glass
    shape(
        _open_path(shell[[4, 5, 1, 3, 2, 6, 4, 5, 7, 3]])
        + "M"
        + f"{shell[7][0]:.1f},{shell[7][1]:.1f}L{shell[6][0]:.1f},{shell[6][1]:.1f}",
        line={"color": OUTLINE, "width": 1.5},
        layer="below",
        name="outline",
    )
    # step numbers: on the face chosen for each piece, unless a nearer piece hides it
    labelled = [k for k, p in enumerate(pieces) if new_steps is None or p.loadStep in new_steps]
    if step_labels and labelled:
        points = iso.xy(_iso_label_points(container, [pieces[k] for k in labelled], pieces))
        outlines = corners[:, list(_SILHOUETTE), :]
        margin = 1e-4 * span
        shown = [
            (k, point)
            for k, point in zip(labelled, points, strict=True)
            if not any(_inside(point, outlines[j], margin) for j in order[rank[k] + 1 :] if j != k)
        ]
        if shown:
            traces.append(
                go.Scatter(
                    x=[float(q[0]) for _, q in shown],
                    y=[float(q[1]) for _, q in shown],
                    xaxis=xref,
                    yaxis=yref,
                    mode="text",
                    text=[str(pieces[k].loadStep) for k, _ in shown],
                    textfont={
                        "size": 12 if len(shown) <= 40 else 9,
                        "color": [
                            text_colour(_shade(view.colour(pieces[k].cargoItemId), 1))
                            for k, _ in shown
                        ],
                        "family": "DejaVu Sans, Arial, sans-serif",
                    },
                    textposition="middle center",
                    hovertext=[piece_hover(view, pieces[k]) for k, _ in shown],
                    hoverinfo="text",
                    name="load step",
                    showlegend=False,
                    meta={"kind": "steps"},
                )
            )
    # the door's face outlined, its name outside it
    side = container.loadingSide.value
    door = _DOOR_AXIS[side]
    face = dict(_VISIBLE)[door]
    shape(
        _path(shell[list(face)]),
        line={"color": DOOR, "width": 4},
        layer="below",
        name=f"door {side}",
    )
    # the name outside the outline, beside the door's own silhouette edge: right of the
    # front wall, under the side wall, over the roof; so that it covers no piece
    a, b, outward = {
        "FRONT": (1, 3, np.array([1.0, 0.0])),
        "SIDE": (4, 5, np.array([0.0, -1.0])),
        "TOP": (3, 6, np.array([0.0, 1.0])),
    }[side]
    edge = (shell[a] + shell[b]) / 2
    beyond = float(np.max((shell - edge) @ outward)) if side == "TOP" else 0.0
    at = edge + outward * (beyond + 0.03 * span)
    notes.append(
        {
            "x": float(at[0]),
            "y": float(at[1]),
            "xref": xref,
            "yref": yref,
            "text": f"<b>DOOR ({side})</b>",
            "showarrow": False,
            "font": {"color": DOOR, "size": 13},
            "xanchor": _anchor(outward[0], "left", "right", "center"),
            "yanchor": _anchor(outward[1], "bottom", "top", "middle"),
            "name": "door",
        }
    )
    traces.append(
        go.Scatter(
            x=[None],
            y=[None],
            xaxis=xref,
            yaxis=yref,
            mode="lines",
            line={"color": DOOR, "width": 4},
            name=f"door ({side})",
            legendgroup="door",
            showlegend="door" not in seen,
            hoverinfo="skip",
            meta={"kind": "door", "loadingSide": side},
        )
    )
    seen.add("door")
    if guides:
        notes += _iso_guides(iso, shell, (length, height, width), side, xref, yref, span)
    # the legend: one entry per cargo item, fragile and earlier steps when drawn
    for item_id in dict.fromkeys(p.cargoItemId for p in pieces):
        if item_id in seen:
            continue
        seen.add(item_id)
        traces.append(
            _legend_entry(esc(view.name(item_id)), view.colour(item_id), EDGE, xref, yref, item_id)
        )
    if any(view.fragile(p.cargoItemId) for p in pieces) and "fragile" not in seen:
        seen.add("fragile")
        traces.append(
            _legend_entry("fragile (red edges)", "#ffffff", FRAGILE, xref, yref, "fragile")
        )
    if (
        new_steps is not None
        and "earlier" not in seen
        and any(p.loadStep not in new_steps for p in pieces)
    ):
        seen.add("earlier")
        traces.append(
            _legend_entry(
                "loaded before (pale)",
                mix("#9e9e9e", "#ffffff", 0.5),
                "#9a9a9a",
                xref,
                yref,
                "earlier",
            )
        )
    pad = 0.16 * span
    reach = np.vstack([shell, at + outward * 0.06 * span])
    x_range = (float(reach[:, 0].min() - pad), float(reach[:, 0].max() + pad))
    y_range = (float(reach[:, 1].min() - pad), float(reach[:, 1].max() + pad * 0.5))
    return _IsoPanel(shapes, traces, notes, x_range, y_range)


def _anchor(value: float, plus: str, minus: str, middle: str) -> str:
    return plus if value > 0.35 else minus if value < -0.35 else middle


def _legend_entry(name: str, fill: str, edge: str, xref: str, yref: str, group: str) -> Any:
    return go.Scatter(
        x=[None],
        y=[None],
        xaxis=xref,
        yaxis=yref,
        mode="markers",
        marker={
            "symbol": "square",
            "size": 13,
            "color": fill,
            "line": {"color": edge, "width": 1.5},
        },
        name=name,
        legendgroup=group,
        showlegend=True,
        hoverinfo="skip",
        meta={"kind": "legend", "cargoItemId": group},
    )


def _iso_guides(
    iso: Iso,
    shell: np.ndarray,
    size: tuple[float, float, float],
    side: str,
    xref: str,
    yref: str,
    span: float,
) -> list[dict[str, Any]]:
    """Arrows along X (length), Y (up) and Z (width) beside the container's outline, each
    pointing the way its coordinate grows and naming the inner size in mm."""
    # silhouette edges (corner indices): X along the bottom of the +Z wall (the top of the
    # back wall when the door is on the side), Z along the bottom of the +X wall, Y up
    # the corner away from the door's label
    edges = {
        "X": (2, 3) if side == "SIDE" else (4, 5),
        "Y": (1, 3) if side == "SIDE" else (4, 6),
        "Z": (1, 5),
    }
    words = {"X": "X length", "Y": "Y up", "Z": "Z width"}
    centre = shell.mean(axis=0)
    out: list[dict[str, Any]] = []
    for n, (axis, (a, b)) in enumerate(edges.items()):
        start, end = shell[a], shell[b]
        direction = (end - start) / max(float(np.hypot(*(end - start))), 1e-9)
        normal = np.array([-direction[1], direction[0]])
        if np.dot(normal, (start + end) / 2 - centre) < 0:
            normal = -normal
        gap = 0.045 * span
        tail, head = start + normal * gap, end + normal * gap
        out.append(
            {
                "x": float(head[0]),
                "y": float(head[1]),
                "ax": float(tail[0]),
                "ay": float(tail[1]),
                "xref": xref,
                "yref": yref,
                "axref": xref,
                "ayref": yref,
                "text": "",
                "showarrow": True,
                "arrowhead": 2,
                "arrowsize": 1.2,
                "arrowwidth": 1.6,
                "arrowcolor": "#37474f",
                "name": f"axis {axis}",
            }
        )
        label = (tail + head) / 2 + normal * gap * 0.6
        out.append(
            {
                "x": float(label[0]),
                "y": float(label[1]),
                "xref": xref,
                "yref": yref,
                "text": f"{words[axis]} → {num(size[n])} mm",
                "showarrow": False,
                "font": {"size": 11, "color": "#37474f"},
                # Y's label reads upwards along its arrow, the others level beside theirs
                "textangle": -90 if axis == "Y" else 0,
                "xanchor": "center"
                if axis == "Y"
                else _anchor(normal[0], "left", "right", "center"),
                "yanchor": "middle"
                if axis == "Y"
                else _anchor(normal[1], "bottom", "top", "middle"),
                "name": f"axis {axis} label",
            }
        )
    return out


def _iso_axes(panel: _IsoPanel, axes: str = "") -> dict[str, Any]:
    """Layout of a panel's axes: hidden, one scale on both (the drawing's proportions)."""
    hidden = {"visible": False, "showgrid": False, "zeroline": False, "fixedrange": True}
    return {
        f"xaxis{axes}": hidden | {"range": list(panel.x_range), "constrain": "domain"},
        f"yaxis{axes}": hidden
        | {
            "range": list(panel.y_range),
            "scaleanchor": f"x{axes}",
            "scaleratio": 1,
            "constrain": "domain",
        },
    }


def container_iso_figure(
    plan: PlanLike,
    container_index: int = 0,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    upto_step: int | None = None,
    step_labels: bool = True,
    title: bool = True,
    height: int = 620,
) -> go.Figure:
    """One container as a 2D isometric drawing, for static images (the PDF).

    The same view as :func:`container_figure` (from the door's side and above, Y up),
    projected onto the page: each piece's three visible faces shaded from its cargo colour
    with dark edges, drawn back to front; load step numbers on the top faces (on another
    visible face when a piece stands on it); the door's face outlined and named; arrows
    along X (length), Y (up) and Z (width) with the inner sizes; a legend by cargo name.
    No WebGL: kaleido draws it as fast as any 2D chart. Parameters as
    :func:`container_figure`.
    """
    view = plan_view(plan, plan_input)
    container = view.container(container_index)
    pieces = view.pieces(container_index)
    new_steps: set[int] | None = None
    heading = container_title(view, container, len(pieces))
    if upto_step is not None:
        pieces = [p for p in pieces if p.loadStep <= upto_step]
        new_steps = {upto_step}
        last = max((p.loadStep for p in view.pieces(container_index)), default=0)
        heading += f"<br>after load step {upto_step} of {last}"
    panel = _iso_panel(view, container, pieces, new_steps=new_steps, step_labels=step_labels)
    fig = go.Figure(panel.traces)
    fig.update_layout(
        _iso_axes(panel),
        shapes=panel.shapes,
        annotations=panel.annotations,
        title={"text": heading if title else "", "x": 0.01, "font": {"size": 15}},
        legend={"title": {"text": "Cargo"}, "itemsizing": "constant", "x": 1.0, "y": 0.98},
        margin={"l": 10, "r": 10, "t": (60 if upto_step is None else 80) if title else 10, "b": 10},
        height=height,
        template="plotly_white",
        font={"family": "DejaVu Sans, Arial, sans-serif"},
        hoverlabel={"align": "left"},
        plot_bgcolor="#ffffff",
    )
    return fig


def load_steps_iso_figure(
    plan: PlanLike,
    container_index: int = 0,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    panels: int = 6,
    columns: int = 3,
    panel_height: int = 360,
    title: bool = True,
) -> go.Figure:
    """The loading sequence of :func:`load_steps_figure` as 2D isometric panels (the PDF's):
    each panel the container after its group of steps, that group's pieces in colour with
    their step numbers, the pieces loaded before pale."""
    view = plan_view(plan, plan_input)
    container = view.container(container_index)
    pieces = view.pieces(container_index)
    groups = step_groups(sorted({p.loadStep for p in pieces}), panels) or [[]]
    cols = min(columns, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[
            f"{n}. {_steps_title(g)}" if g else "empty" for n, g in enumerate(groups, start=1)
        ],
        horizontal_spacing=0.01,
        vertical_spacing=0.06 / rows,
    )
    seen: set[str] = set()
    shapes: list[dict[str, Any]] = []
    notes = list(fig.layout.annotations)
    for n, group in enumerate(groups):
        axes = "" if n == 0 else str(n + 1)
        upto = group[-1] if group else 0
        shown = [p for p in pieces if p.loadStep <= upto]
        panel = _iso_panel(
            view,
            container,
            shown,
            axes=axes,
            new_steps=set(group),
            legend_seen=seen,
            guides=n == 0,
        )
        fig.add_traces(panel.traces)
        shapes += panel.shapes
        notes += panel.annotations
        fig.update_layout(_iso_axes(panel, axes))
    heading = f"Loading sequence of {container_title(view, container, len(pieces))}"
    fig.update_layout(
        shapes=shapes,
        annotations=notes,
        title={"text": heading if title else "", "x": 0.01, "font": {"size": 15}},
        legend={"title": {"text": "Cargo"}, "orientation": "h", "y": -0.02, "yanchor": "top"},
        margin={"l": 10, "r": 10, "t": 70 if title else 30, "b": 10},
        height=panel_height * rows + (120 if title else 80),
        template="plotly_white",
        font={"family": "DejaVu Sans, Arial, sans-serif"},
        hoverlabel={"align": "left"},
        plot_bgcolor="#ffffff",
    )
    return fig


# --------------------------------------------------------------------------- vehicles


@dataclass(frozen=True)
class _Body:
    length: float
    height: float
    width: float
    supports: tuple[tuple[str, float], ...]


def _vehicle_body(vehicle: VehicleAllocation, extent: float) -> _Body:
    """The vehicle's body and support positions from the catalog; when the slug is not
    there (an older record), a body just holding the pallets and the supports unknown."""
    try:
        from adapters.planning.catalogs import vehicle as catalog_vehicle

        v = catalog_vehicle(vehicle.vehicleSlug)
    except (KeyError, LookupError, ValueError, OSError):
        return _Body(extent, 2400.0, 2450.0, ())
    length, height, width = v.body.inner
    return _Body(
        float(length),
        float(height),
        float(width),
        ((v.front.name, v.front.position_mm), (v.rear.name, v.rear.position_mm)),
    )


def _deck_height_mm(slug: str) -> float:
    try:
        from data import load_table

        frame = load_table("pallet_templates")
        heights = frame.loc[frame["slug"] == slug, "deck_height_mm"].astype(float)
        return float(heights.iloc[0])
    except (LookupError, ValueError, OSError):
        return 144.0


def _pallet_boxes(
    view: PlanView, vehicle: VehicleAllocation
) -> list[tuple[int, tuple[float, float, float], tuple[float, float, float], float]]:
    """Per pallet of the vehicle: index, position and extents in the vehicle [mm], gross kg."""
    out = []
    for vp in vehicle.pallets:
        try:
            pallet = view.container(vp.containerIndex)
        except IndexError:
            continue
        length, _, width = pallet.innerUsableMm
        top = max(
            (p.positionMm[1] + p.dimensionsMm[1] for p in view.pieces(vp.containerIndex)),
            default=0.0,
        )
        height = math.ceil(_deck_height_mm(pallet.containerSlug) + top)
        dx, dz = (width, length) if vp.rotation[1] else (length, width)
        x, y, z = vp.positionMm
        out.append((vp.containerIndex, (x, y, z), (dx, float(height), dz), pallet.totalWeightKg))
    return out


def _axle_colour(load: float, limit: float, least: float | None = None) -> str:
    """Green up to 90 % of the limit, amber up to it, red over it or under the minimum."""
    if least is not None and load < least - AXLE_TOLERANCE_KG:
        return "#c62828"
    ratio = load / limit if limit > 0 else math.inf
    return "#2e7d32" if ratio <= 0.9 else "#f9a825" if ratio <= 1.0 + 1e-9 else "#c62828"


#: Tolerance of the axle bounds [kg] (1 g, as the planner checks them).
AXLE_TOLERANCE_KG = 1e-3


def axle_margin(load: AxleLoad) -> float:
    """Distance of a support's load to its nearer bound [kg]: the limit above, the minimum
    (0 when the support has none) below; negative when a bound is broken."""
    return min(load.maxKg - load.loadKg, load.loadKg - (load.minKg or 0.0))


class AxleState(NamedTuple):
    """The axle loads of a vehicle in one state: loaded, or after a stop.

    Attributes
    ----------
    label : str
        ``"loaded"`` or ``"after stop k"``.
    stop : int or None
        The stop (1 for the first); None for the loaded vehicle.
    unload_priority : int or None
        Priority of the pallets unloaded at the stop; None for the loaded vehicle.
    loads : list of AxleLoad
        Each support, front first.
    """

    label: str
    stop: int | None
    unload_priority: int | None
    loads: list[AxleLoad]


def axle_states(vehicle: VehicleAllocation) -> list[AxleState]:
    """The states whose axle loads a vehicle reports: the loaded vehicle first, then after
    each stop but the last (``axleLoadsByStop``)."""
    out = [AxleState("loaded", None, None, vehicle.axleLoads)]
    for s in vehicle.axleLoadsByStop or []:
        out.append(AxleState(f"after stop {s.stop}", s.stop, s.unloadPriority, s.axleLoads))
    return out


def vehicle_figure(
    plan: PlanLike,
    vehicle_index: int = 0,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    height: int = 620,
) -> go.Figure:
    """A PALLET_LOAD vehicle: its pallets seen from the side and from above, the axle
    positions under the body, and each axle's load against its limit.

    The body runs from its front wall (X = 0, behind the cab) to the rear doors (X = length);
    supports ahead of the front wall have a negative X.
    """
    view = plan_view(plan, plan_input)
    vehicles = view.result.vehicles or []
    match = [v for v in vehicles if v.vehicleIndex == vehicle_index]
    if not match:
        raise IndexError(
            f"no vehicle {vehicle_index} in the plan (PALLET_LOAD plans have vehicles)"
        )
    vehicle = match[0]
    pallets = _pallet_boxes(view, vehicle)
    extent = max((pos[0] + dims[0] for _, pos, dims, _ in pallets), default=1000.0)
    body = _vehicle_body(vehicle, extent)
    by_stop = bool(vehicle.axleLoadsByStop)
    fig = make_subplots(
        rows=2,
        cols=2,
        column_widths=[0.6, 0.4] if by_stop else [0.74, 0.26],
        row_heights=[0.5, 0.5],
        specs=[[{}, {"rowspan": 2}], [{}, None]],
        subplot_titles=[
            "Side view (rear doors on the right)",
            "Axle load by stop, kg (box: limit, dash: min)"
            if by_stop
            else "Axle load, kg (outline: limit)",
            "From above",
        ],
        horizontal_spacing=0.09,
        vertical_spacing=0.14,
    )
    # traces and notes are added at once at the end: plotly's cost per addition grows with
    # what the figure holds
    traces: list[tuple[Any, int, int]] = []
    notes: list[tuple[dict[str, Any], int, int]] = []

    def add_trace(trace: Any, row: int, col: int) -> None:
        traces.append((trace, row, col))

    def add_annotation(*, row: int, col: int, **note: Any) -> None:
        notes.append((note, row, col))

    wheel = 380.0
    lo = min([0.0, *(pos for _, pos in body.supports)]) - wheel * 1.6
    hi = body.length + wheel
    # the body: side (X–Y) and above (X–Z)
    for row, top in ((1, body.height), (2, body.width)):
        add_trace(
            go.Scatter(
                x=[0, body.length, body.length, 0, 0],
                y=[0, 0, top, top, 0],
                mode="lines",
                line={"color": OUTLINE, "width": 2},
                fill="toself",
                fillcolor="#f4f4f4",
                hoverinfo="skip",
                showlegend=False,
                meta={"kind": "body"},
            ),
            row=row,
            col=1,
        )
    if lo < 0:  # the cab ahead of the front wall
        add_trace(
            go.Scatter(
                x=[
                    lo + wheel * 0.4,
                    -80,
                    -80,
                    lo + wheel * 0.9,
                    lo + wheel * 0.4,
                    lo + wheel * 0.4,
                ],
                y=[0, 0, body.height * 0.85, body.height * 0.85, body.height * 0.45, 0],
                mode="lines",
                line={"color": "#9e9e9e", "width": 1.5},
                fill="toself",
                fillcolor="#e6e6e6",
                hoverinfo="skip",
                showlegend=False,
                meta={"kind": "cab"},
            ),
            row=1,
            col=1,
        )
    colours = {index: palette_colour(n) for n, (index, *_) in enumerate(pallets)}

    def overlap(b: Any, pos: Sequence[float], dims: Sequence[float], axis: int) -> bool:
        return bool(b[1][axis] < pos[axis] + dims[axis] and pos[axis] < b[1][axis] + b[2][axis])

    # seen from the side (+Z), nearer pallets (larger Z) hide those behind: drawn last;
    # seen from above, a pallet on a second deck hides the one under it: drawn last
    for row in (1, 2):
        order = sorted(pallets, key=lambda b: b[1][2] if row == 1 else b[1][1])
        for index, pos, dims, gross in order:
            colour = colours[index]
            a, da = (pos[1], dims[1]) if row == 1 else (pos[2], dims[2])
            hover = (
                f"<b>pallet #{index}</b><br>{num(gross)} kg gross<br>"
                f"{mm3(dims)} mm (L × H × W)<br>at X {num(pos[0])}, Z {num(pos[2])} mm"
            )
            add_trace(
                go.Scatter(
                    x=[pos[0], pos[0] + dims[0], pos[0] + dims[0], pos[0], pos[0]],
                    y=[a, a, a + da, a + da, a],
                    mode="lines",
                    line={"color": EDGE, "width": 1.5},
                    fill="toself",
                    fillcolor=colour,
                    name=f"pallet #{index}",
                    legendgroup=f"pallet-{index}",
                    showlegend=False,
                    hovertext=hover,
                    hoverinfo="text",
                    hoveron="fills",
                    meta={"kind": "pallet", "containerIndex": index},
                ),
                row=row,
                col=1,
            )
            if row == 2:
                # the top pallet of a stack names the one under it ("#upper/#lower") and
                # the mass of both
                if any(
                    b[1][1] > pos[1] and overlap(b, pos, dims, 0) and overlap(b, pos, dims, 2)
                    for b in pallets
                ):
                    continue
                under = [
                    b
                    for b in pallets
                    if b[1][1] < pos[1] and overlap(b, pos, dims, 0) and overlap(b, pos, dims, 2)
                ]
                text = (
                    f"#{index}/#{under[0][0]}<br>{num(gross + under[0][3], 0)} kg"
                    if under
                    else f"#{index}<br>{num(gross, 0)} kg"
                )
            else:
                # the nearest pallet of its column (at its level) names the ones behind it
                level = [
                    b
                    for b in pallets
                    if b[0] != index and overlap(b, pos, dims, 0) and overlap(b, pos, dims, 1)
                ]
                if any(b[1][2] > pos[2] for b in level):
                    continue
                behind = [b for b in level if b[1][2] < pos[2]]
                text = "<br>".join(f"#{i}" for i in [index, *(b[0] for b in behind)])
            add_annotation(
                x=pos[0] + dims[0] / 2,
                y=a + da / 2,
                text=text,
                showarrow=False,
                font={"size": 11, "color": text_colour(colour)},
                row=row,
                col=1,
            )
    loads = {a.name: a for a in vehicle.axleLoads}
    for name, position in body.supports:
        load = loads.get(name)
        colour = _axle_colour(load.loadKg, load.maxKg) if load else OUTLINE
        add_trace(
            go.Scatter(
                x=[position],
                y=[-wheel / 2],
                mode="markers+text",
                marker={"size": 26, "color": "#333333", "line": {"color": colour, "width": 4}},
                text=[
                    f"{esc(name)}<br>{num(load.loadKg, 0)} / {num(load.maxKg, 0)} kg"
                    if load
                    else esc(name)
                ],
                textposition="bottom center",
                textfont={"size": 11, "color": colour},
                hovertext=f"{esc(name)} at X {num(position)} mm",
                hoverinfo="text",
                showlegend=False,
                cliponaxis=False,  # the label of a support near the edge stays whole
                meta={"kind": "axle", "name": name},
            ),
            row=1,
            col=1,
        )
    add_annotation(
        x=body.length,
        y=body.height * 1.02,
        text="rear doors ▸",
        showarrow=False,
        xanchor="right",
        yanchor="bottom",
        font={"color": DOOR, "size": 12},
        row=1,
        col=1,
    )
    for trace in _axle_state_bars(vehicle) if by_stop else _axle_bars([vehicle], short=True):
        add_trace(trace, row=1, col=2)
    fig.add_traces(
        [t for t, _, _ in traces], rows=[r for _, r, _ in traces], cols=[c for *_, c in traces]
    )
    refs: dict[tuple[int, int], tuple[str, str]] = {}
    for row, col in {(r, c) for _, r, c in notes}:
        axes = fig.get_subplot(row, col)
        refs[row, col] = (
            axes.xaxis.plotly_name.replace("axis", ""),
            axes.yaxis.plotly_name.replace("axis", ""),
        )
    fig.update_layout(
        annotations=[
            *fig.layout.annotations,
            *({"xref": refs[r, c][0], "yref": refs[r, c][1], **note} for note, r, c in notes),
        ]
    )
    fig.update_xaxes(range=[lo, hi], title_text="X, mm", row=1, col=1)
    fig.update_xaxes(range=[lo, hi], title_text="X, mm", matches="x", row=2, col=1)
    fig.update_yaxes(range=[-wheel * 2.8, body.height * 1.15], title_text="Y, mm", row=1, col=1)
    fig.update_yaxes(
        range=[body.width * 1.05, -body.width * 0.05], title_text="Z, mm", row=2, col=1
    )
    fig.update_yaxes(title_text="kg", rangemode="tozero", row=1, col=2)
    total = sum(gross for *_, gross in pallets)
    fig.update_layout(
        title={
            "text": f"Vehicle #{vehicle.vehicleIndex} {esc(vehicle.vehicleTitle)} "
            f"({esc(vehicle.vehicleSlug)}): {len(pallets)} pallets, {num(total)} kg",
            "x": 0.01,
            "font": {"size": 15},
        },
        height=height,
        margin={"l": 60, "r": 20, "t": 70, "b": 40},
        template="plotly_white",
        font={"family": "DejaVu Sans, Arial, sans-serif"},
        showlegend=False,
        barmode="overlay",
    )
    return fig


def _axle_bars(vehicles: Sequence[VehicleAllocation], *, short: bool = False) -> list[Any]:
    labels: list[str] = []
    loads: list[float] = []
    limits: list[float] = []
    for v in vehicles:
        for a in v.axleLoads:
            labels.append(
                esc(a.name)
                if short
                else f"#{v.vehicleIndex} {esc(v.vehicleTitle)}<br>{esc(a.name)}"
            )
            loads.append(a.loadKg)
            limits.append(a.maxKg)
    return [
        go.Bar(
            x=labels,
            y=limits,
            name="limit",
            marker={"color": "rgba(0,0,0,0)", "line": {"color": "#212121", "width": 2}},
            hovertemplate="%{x}: limit %{y:,.0f} kg<extra></extra>",
            meta={"kind": "axle-limit"},
        ),
        go.Bar(
            x=labels,
            y=loads,
            name="load",
            marker={"color": [_axle_colour(a, b) for a, b in zip(loads, limits, strict=True)]},
            text=[
                f"{num(a, 0)} kg<br>{a / b:.0%}" if b else f"{num(a, 0)} kg"
                for a, b in zip(loads, limits, strict=True)
            ],
            textposition="inside",
            insidetextanchor="end",
            hovertemplate="%{x}: load %{y:,.1f} kg<extra></extra>",
            meta={"kind": "axle-load"},
            width=0.6,
        ),
    ]


def _axle_state_bars(vehicle: VehicleAllocation) -> list[Any]:
    """A multi-drop vehicle's axle loads grouped by state (loaded, after each stop but the
    last): per state an outlined bar at each support's limit, the load inside it (green,
    amber, red as :func:`_axle_colour`) and a dash at its minimum when it has one.

    Traces: ``axle-limit`` and ``axle-load`` for the loaded vehicle, ``axle-stop-limit`` and
    ``axle-stop-load`` for each stop (meta ``stop`` and ``unloadPriority``), ``axle-min``
    for the minima of every state.
    """
    traces: list[Any] = []
    min_x: list[list[str]] = [[], []]
    min_y: list[float] = []
    for label, stop, prio, loads in axle_states(vehicle):
        x = [[label] * len(loads), [esc(a.name) for a in loads]]
        meta: dict[str, Any] = {} if stop is None else {"stop": stop, "unloadPriority": prio}
        kind = "axle" if stop is None else "axle-stop"
        state = label if stop is None else f"{label} (unloadPriority {prio})"
        traces.append(
            go.Bar(
                x=x,
                y=[a.maxKg for a in loads],
                name="limit",
                marker={"color": "rgba(0,0,0,0)", "line": {"color": "#212121", "width": 2}},
                hovertemplate=f"{state}, %{{x}}: limit %{{y:,.0f}} kg<extra></extra>",
                meta={"kind": f"{kind}-limit", **meta},
            )
        )
        traces.append(
            go.Bar(
                x=x,
                y=[a.loadKg for a in loads],
                name=state,
                marker={"color": [_axle_colour(a.loadKg, a.maxKg, a.minKg) for a in loads]},
                text=[f"{num(a.loadKg, 0)}<br>{a.loadKg / a.maxKg:.0%}" for a in loads],
                textposition="inside",
                insidetextanchor="end",
                hovertext=[
                    f"{state}<br>{esc(a.name)}: {num(a.loadKg)} kg (limit {num(a.maxKg, 0)} kg"
                    + ("" if a.minKg is None else f", minimum {num(a.minKg, 0)} kg")
                    + f"; margin {num(axle_margin(a), 0)} kg)"
                    for a in loads
                ],
                hoverinfo="text",
                meta={"kind": f"{kind}-load", **meta},
                width=0.6,
            )
        )
        for a in loads:
            if a.minKg is not None:
                min_x[0].append(label)
                min_x[1].append(esc(a.name))
                min_y.append(a.minKg)
    if min_y:
        traces.append(
            go.Scatter(
                x=min_x,
                y=min_y,
                mode="markers",
                marker={"symbol": "line-ew", "size": 26, "line": {"color": "#212121", "width": 2}},
                name="minimum",
                hovertemplate="%{x}: minimum %{y:,.0f} kg<extra></extra>",
                meta={"kind": "axle-min"},
            )
        )
    return traces


def axle_load_figure(
    plan: PlanLike,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    height: int = 420,
) -> go.Figure:
    """Each axle of every vehicle: its load (bar, green ≤ 90 %, amber ≤ 100 %, red over)
    against its limit (outlined bar)."""
    view = plan_view(plan, plan_input)
    vehicles = view.result.vehicles or []
    fig = go.Figure(_axle_bars(vehicles))
    fig.update_layout(
        title={"text": "Axle loads against limits", "x": 0.01},
        barmode="overlay",
        yaxis={"title": {"text": "kg"}, "rangemode": "tozero"},
        height=height,
        template="plotly_white",
        font={"family": "DejaVu Sans, Arial, sans-serif"},
        legend={"orientation": "h", "y": 1.08},
        margin={"l": 60, "r": 20, "t": 70, "b": 60},
    )
    return fig


# --------------------------------------------------------------------------- thermal


def set_point_c(mode: str) -> float | None:
    """The mode's set point [°C] (None for modes without a thermal model)."""
    from thermal.modes import SET_POINTS_C

    return SET_POINTS_C.get(mode)


@dataclass(frozen=True)
class Capacity:
    """A chosen container's capacity for a mode: hot side (record), cold side (catalog)."""

    container: ContainerAllocation
    hot_dh: float
    cold_dh: float | None
    cold_reference_c: float | None


def capacities(view: PlanView, mode: CombinedModeReport) -> list[Capacity]:
    """The chosen containers of ``mode``, one per slug, with both sides' capacity."""
    out: list[Capacity] = []
    seen: set[str] = set()
    for c in view.result.containers:
        if c.thermalProfileUsed.mode != mode.temperatureMode or c.containerSlug in seen:
            continue
        seen.add(c.containerSlug)
        cold: float | None = None
        cold_ref: float | None = None
        try:
            from thermal.eligibility import profile_capacities

            rows = profile_capacities(mode.temperatureMode.value)
            rows = rows[
                (rows["container_slug"] == c.containerSlug)
                & (rows["coolant"] == (c.coolant.value if c.coolant else ""))
            ]
            if len(rows):
                cold = float(rows["cold_capacity_dh"].iloc[0])
                cold_ref = float(rows["cold_reference_ambient_c"].iloc[0])
        except (KeyError, LookupError, ValueError, OSError):
            pass
        out.append(Capacity(c, c.thermalProfileUsed.thermalCapacityDegreeHours, cold, cold_ref))
    return out


def thermal_modes(plan: PlanLike) -> list[CombinedModeReport]:
    """Modes of the plan that carry a thermal check (route segments)."""
    view = plan_view(plan)
    return [m for m in view.result.modes if m.thermalFilter.routeSegmentsUsed]


def thermal_figure(
    plan: PlanLike,
    mode: str | int = 0,
    *,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
    height: int = 560,
) -> go.Figure:
    """A THERMO mode's thermal check over the route.

    Top: each route segment as a step of its ambient over the hours since departure, the
    mode's set point as a line, segments numbered as in ``routeSegmentsUsed``. Bottom: the
    load with the safety margin accumulating over the route, split into the hot side
    (segments at or above the set point) and the cold side, against the capacity of each
    chosen container on that side.

    Parameters
    ----------
    mode : str or int, default 0
        The temperature mode (``"PLUS_2_8"``) or its index among the modes that have a
        route (:func:`thermal_modes`).
    """
    view = plan_view(plan, plan_input)
    modes = thermal_modes(view)
    if isinstance(mode, int):
        if not 0 <= mode < len(modes):
            raise IndexError(f"the plan has {len(modes)} modes with a thermal check")
        report = modes[mode]
    else:
        found = [m for m in modes if m.temperatureMode.value == mode]
        if not found:
            raise KeyError(f"mode {mode!r} has no thermal check in this plan")
        report = found[0]
    tf = report.thermalFilter
    segments = tf.routeSegmentsUsed or []
    set_point = set_point_c(report.temperatureMode.value)
    margin = tf.safetyMarginUsed or 0.0
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.5, 0.5],
        vertical_spacing=0.1,
        subplot_titles=[
            "Ambient along the route, °C",
            f"Load with the {margin:.0%} safety margin, °C·h",
        ],
    )
    t = 0.0
    xs: list[float | None] = []
    ys: list[float | None] = []
    hot: list[float] = [0.0]
    cold: list[float] = [0.0]
    times: list[float] = [0.0]
    hover: list[str] = []
    mids: list[float] = []
    for n, s in enumerate(segments, start=1):
        hours = s.hours or 0.0
        ambient = s.ambientC if s.ambientC is not None else math.nan
        load = (s.loadDegreeHours or 0.0) * (1 + margin)
        text = (
            f"<b>{n}. {esc(s.label or s.locationTypeKey or '')}</b><br>"
            f"{esc(s.cityKey or '')}, {esc(s.locationTypeKey or '')}<br>"
            f"{num(t)}–{num(t + hours)} h ({num(hours)} h)<br>"
            f"ambient {ambient:+.1f} °C ({esc(s.ambientSource.value if s.ambientSource else '')})<br>"
            f"load {num(s.loadDegreeHours or 0.0)} °C·h"
        )
        xs += [t, t + hours, None]
        ys += [ambient, ambient, None]
        hover += [text, text, ""]
        mids.append(t + hours / 2)
        is_hot = set_point is None or ambient >= set_point
        hot.append(hot[-1] + (load if is_hot else 0.0))
        cold.append(cold[-1] + (0.0 if is_hot else load))
        t += hours
        times.append(t)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            line={"color": "#37474f", "width": 4},
            name="ambient",
            hovertext=hover,
            hoverinfo="text",
            meta={"kind": "ambient"},
        ),
        row=1,
        col=1,
    )
    ambients = [s.ambientC for s in segments if s.ambientC is not None]
    if ambients:
        fig.add_trace(
            go.Scatter(
                x=mids,
                y=[(s.ambientC if s.ambientC is not None else 0.0) for s in segments],
                mode="text",
                text=[str(n) for n in range(1, len(segments) + 1)],
                textposition="top center",
                textfont={"size": 11, "color": "#37474f"},
                showlegend=False,
                hoverinfo="skip",
                meta={"kind": "segment-numbers"},
            ),
            row=1,
            col=1,
        )
    if set_point is not None:
        fig.add_trace(
            go.Scatter(
                x=[0, t],
                y=[set_point, set_point],
                mode="lines",
                line={"color": "#2e7d32", "width": 2, "dash": "dash"},
                name=f"set point {set_point:+g} °C",
                hoverinfo="name",
                meta={"kind": "set-point"},
            ),
            row=1,
            col=1,
        )
    for side, loads, colour, when in (
        ("hot", hot, "#d84315", "ambient ≥ set point"),
        ("cold", cold, "#0277bd", "ambient < set point"),
    ):
        fig.add_trace(
            go.Scatter(
                x=times,
                y=loads,
                mode="lines",
                line={"color": colour, "width": 3},
                name=f"load, {side} side ({when})",
                hovertemplate=f"%{{x:.1f}} h: %{{y:,.0f}} °C·h<extra>{side} side</extra>",
                meta={"kind": f"load-{side}"},
            ),
            row=2,
            col=1,
        )
    for cap in capacities(view, report):
        c = cap.container
        label = f"{esc(c.containerTitle)}{', ' + c.coolant.value if c.coolant else ''}"
        sides: list[tuple[float, str, str]] = [
            (cap.hot_dh, "#d84315", f"capacity hot side, {label}: {num(cap.hot_dh, 0)} °C·h")
        ]
        if cap.cold_dh is not None:
            sides.append(
                (cap.cold_dh, "#0277bd", f"capacity cold side, {label}: {num(cap.cold_dh, 0)} °C·h")
            )
        for value, colour, name in sides:
            fig.add_trace(
                go.Scatter(
                    x=[0, t],
                    y=[value, value],
                    mode="lines",
                    line={"color": colour, "width": 2, "dash": "dot"},
                    name=name,
                    hoverinfo="name",
                    meta={"kind": "capacity", "containerSlug": c.containerSlug},
                ),
                row=2,
                col=1,
            )
    required = tf.requiredLoadDegreeHours
    fig.update_xaxes(title_text="hours since departure", row=2, col=1)
    if ambients or set_point is not None:
        values = [*ambients, *([set_point] if set_point is not None else [])]
        low, high = min(values), max(values)
        room = max(3.0, 0.15 * (high - low))
        fig.update_yaxes(range=[low - room, high + room], row=1, col=1)
    fig.update_yaxes(title_text="°C", row=1, col=1)
    fig.update_yaxes(title_text="°C·h", rangemode="tozero", row=2, col=1)
    caption = f"{report.temperatureMode.value}"
    if set_point is not None:
        caption += f", set point {set_point:+g} °C"
    caption += f", {num(t)} h"
    if required is not None:
        caption += f": required {num(required, 0)} °C·h"
    fig.update_layout(
        title={"text": f"Thermal check {caption}", "x": 0.01, "font": {"size": 15}},
        height=height,
        template="plotly_white",
        font={"family": "DejaVu Sans, Arial, sans-serif"},
        legend={"orientation": "h", "y": -0.14, "yanchor": "top"},
        margin={"l": 60, "r": 20, "t": 70, "b": 40},
        hoverlabel={"align": "left"},
    )
    return fig


# --------------------------------------------------------------------------- static images

T = TypeVar("T")


#: Seconds Chromium may take to start, and to draw one figure, before it counts as hung.
BROWSER_START_TIMEOUT_S = 60.0
FIGURE_TIMEOUT_S = 90.0


class NoBrowserError(RuntimeError):
    """The Chromium that kaleido drives to draw figures was not found."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"Chromium was not found, and figures are drawn by it (scripts/system-deps.sh "
            f"installs it: apt-get install -y chromium); kaleido said: {detail}"
        )


class _Browser:
    """The process's long-lived Chromium (a kaleido instance), on an event loop of its own.

    Kaleido's browser takes about 3.5 s to start; kept open, a report pays that once per
    process. The browser lives on a daemon thread's event loop so sync callers, with or
    without a running loop of their own, hand it work alike; a lock makes one render at a
    time. Started by :func:`start_browser` (the render workers do so as they come up) or
    on first use, stopped at process exit.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: Any = None
        self._atexit = False

    @property
    def running(self) -> bool:
        return self._kaleido is not None

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="kaleido", daemon=True).start()
            self._loop = loop
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def _start(self) -> None:
        if self._kaleido is not None:
            return
        import kaleido
        from kaleido.errors import ChromeNotFoundError

        async def open_browser() -> Any:
            k = kaleido.Kaleido(n=1, mathjax=False, timeout=FIGURE_TIMEOUT_S)
            await k.open()
            return k

        try:
            self._kaleido = self._call(open_browser(), BROWSER_START_TIMEOUT_S)
        except ChromeNotFoundError as exc:
            raise NoBrowserError(str(exc)) from None
        if not self._atexit:
            atexit.register(self.stop)
            self._atexit = True

    def _stop(self) -> None:
        k, self._kaleido = self._kaleido, None
        if k is None:
            return
        with contextlib.suppress(Exception):  # already dead, or hung: killed below
            self._call(k.close(), 10.0)
        process = getattr(k, "subprocess", None)
        if process is not None and process.poll() is None:
            process.kill()

    def start(self) -> None:
        with self._lock:
            self._start()

    def stop(self) -> None:
        with self._lock:
            self._stop()

    def _alive(self) -> bool:
        process = getattr(self._kaleido, "subprocess", None)
        return process is None or process.poll() is None

    def render(self, figures: Iterable[tuple[go.Figure, int, int]], scale: float) -> list[bytes]:
        it = iter(figures)
        built: list[tuple[go.Figure, int, int]] = []
        with self._lock:
            for attempt in (1, 2):
                self._start()
                try:
                    if attempt == 1:
                        return self._stream(it, built, scale)
                    built.extend(it)
                    return self._call(
                        _render_all(self._kaleido, _each(built), scale),
                        FIGURE_TIMEOUT_S * len(built) + 10.0,
                    )
                except Exception:
                    died = not self._alive()
                    hung = False
                    if not died:  # a figure's own error leaves the browser as it was
                        try:
                            self._call(_tab_back(self._kaleido), 10.0)
                        except Exception:
                            hung = True
                    if died or hung:
                        self._stop()  # the next start is a new browser
                    if attempt == 2 or not died:
                        raise
            raise AssertionError("unreachable")

    def _stream(
        self,
        figures: Iterator[tuple[go.Figure, int, int]],
        built: list[tuple[go.Figure, int, int]],
        scale: float,
    ) -> list[bytes]:
        """Renders the figures as the caller builds them: Chromium draws one while Python
        builds the next. ``built`` keeps them for a second try."""
        loop = self._loop
        assert loop is not None
        queue: asyncio.Queue[tuple[go.Figure, int, int] | None] = asyncio.Queue()
        future = asyncio.run_coroutine_threadsafe(
            _render_all(self._kaleido, _drain(queue), scale), loop
        )
        try:
            for item in figures:
                built.append(item)
                loop.call_soon_threadsafe(queue.put_nowait, item)
                if future.done():  # failed: its error is raised below
                    break
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, None)
        try:
            return future.result(FIGURE_TIMEOUT_S * max(len(built), 1) + 10.0)
        except TimeoutError:
            future.cancel()
            raise


async def _drain(
    queue: asyncio.Queue[tuple[go.Figure, int, int] | None],
) -> AsyncIterator[tuple[go.Figure, int, int]]:
    while (item := await queue.get()) is not None:
        yield item


async def _each(
    items: Iterable[tuple[go.Figure, int, int]],
) -> AsyncIterator[tuple[go.Figure, int, int]]:
    for item in items:
        yield item


async def _tab_back(k: Any) -> None:
    """Waits for kaleido's tab to be free again (after a figure failed)."""
    tab = await asyncio.wait_for(k.tabs_ready.get(), 5.0)
    await k.tabs_ready.put(tab)


async def _render_all(
    k: Any, figures: AsyncIterator[tuple[go.Figure, int, int]], scale: float
) -> list[bytes]:
    """PNGs of ``figures``, drawn one after another on one page of ``k``.

    Kaleido's own ``calc_fig`` reloads its page after each figure (some 0.2 s); one page
    draws every figure of a call and is reloaded once at the end, so each call starts on a
    fresh page. That uses kaleido's tab directly; without it (another kaleido version),
    figures go through ``calc_fig``.
    """

    def opts(width: int, height: int) -> dict[str, Any]:
        return {"format": "png", "width": width, "height": height, "scale": scale}

    try:
        from kaleido import _profiler
        from kaleido._utils import fig_tools

        get_tab, put_tab = k._get_kaleido_tab, k._return_kaleido_tab
    except (ImportError, AttributeError):
        return [bytes(await k.calc_fig(f, opts=opts(w, h))) async for f, w, h in figures]
    tab = await get_tab()
    try:
        out = []
        async for fig, width, height in figures:
            spec = fig_tools.coerce_for_js(fig, None, opts(width, height))
            profile = _profiler.RenderTaskProfile(spec, None, tab.tab.target_id)
            png = await asyncio.wait_for(
                tab._calc_fig(spec, topojson=None, render_prof=profile, stepper=False),
                FIGURE_TIMEOUT_S,
            )
            out.append(bytes(png))
        return out
    finally:
        await asyncio.wait_for(put_tab(tab), 30.0)


_BROWSER = _Browser()


def _forget_in_child() -> None:
    """A forked child has no copy of the browser's thread: it starts a browser of its own,
    and leaves the parent's alone (also at its exit)."""
    global _BROWSER
    inherited = _BROWSER
    inherited._kaleido, inherited._loop, inherited._lock = None, None, threading.Lock()
    _BROWSER = _Browser()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def start_browser() -> None:
    """Starts this process's Chromium for :func:`to_png` now rather than on first use."""
    _BROWSER.start()


def stop_browser() -> None:
    """Stops this process's Chromium (it starts again on the next :func:`to_png`)."""
    _BROWSER.stop()


def to_png(figures: Iterable[tuple[go.Figure, int, int]], *, scale: float = 2.0) -> list[bytes]:
    """PNG images of ``(figure, width px, height px)``, rendered by kaleido (Chromium).

    The process's browser (:func:`start_browser`) draws them, started on first use and
    kept for later calls; a browser found dead is started again once. MathJax is off, so
    the page asks no other host for anything. ``figures`` may be a generator: each figure
    is drawn while the next is built.
    """
    it = iter(figures)
    first = next(it, None)
    if first is None:
        return []
    return _BROWSER.render(itertools.chain([first], it), scale)
