"""The public page of a share link: the plan's figures (:mod:`adapters.report.figures`) and
its tables.

Safety: every piece of text shown is HTML-escaped, and the one JSON payload (the record and
the figures) sits in a ``<script type="application/json">`` with ``<``, ``>``, ``&``,
U+2028 and U+2029 written as ``\\u`` escapes (``\\u2028``), so no caller text (``</script>``,
``<!--<script>``) can end the element or start another; the page's script reads it with
``JSON.parse``. plotly.js comes from this service (``/share/assets/plotly.min.js``), no
other host; the page names it relative to its own address, so a service behind a proxy under
a path (``PACKPLAN_PUBLIC_URL`` with a path) serves it too.

3D scenes are drawn when they come near the viewport and released when they leave it:
browsers keep only about 16 WebGL contexts per page.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adapters.planning.schemas import PackingPlanRecord
from adapters.report import figures
from adapters.report.figures import PlanView, mm3, num, rotation_text
from adapters.report.notebook import MODE_HEADERS, mode_rows

#: Containers drawn in 3D on one page; the tables list every container.
MAX_CONTAINER_FIGURES = 30

_STYLE = """
:root{color-scheme:light}
body{font-family:system-ui,"DejaVu Sans",sans-serif;margin:0;color:#1d1d1d;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:1.25rem 1.5rem 3rem}
h1{font-size:1.6rem;margin:.2rem 0 .6rem}h2{margin:2rem 0 .5rem;font-size:1.3rem}
h3{margin:1.4rem 0 .4rem;font-size:1.1rem}
table{border-collapse:collapse;margin:.4rem 0 1rem;background:#fff}
th,td{border:1px solid #cfcfcf;padding:.25rem .5rem;text-align:left;font-size:.88rem;
vertical-align:top}
th{background:#efefef}.bad{color:#b71c1c;font-weight:600}.ok{color:#1b5e20;font-weight:600}
.facts td:nth-child(odd){font-weight:600;background:#f6f6f6}
.figure{width:100%;border:1px solid #ddd;background:#fff;margin:.3rem 0 1rem}
.swatch{display:inline-block;width:.9em;height:.9em;border:1px solid #333;
vertical-align:-.1em}
.fragile{color:#b71c1c;font-weight:700}
details{margin:.3rem 0 1rem}summary{cursor:pointer;font-weight:600}
.note{color:#555;font-size:.9rem}
"""

_SCRIPT = """
(function () {
  const payload = JSON.parse(document.getElementById('plan-data').textContent);
  const byId = new Map(payload.figures.map(f => [f.id, f.figure]));
  const config = {responsive: true, displaylogo: false};
  const BITS = [[0,0,0],[1,0,0],[0,1,0],[1,1,0],[0,0,1],[1,0,1],[0,1,1],[1,1,1]];
  const TRIANGLES = payload.boxGeometry.triangles, EDGE_PATH = payload.boxGeometry.edgePath;
  // A trace sent as boxes (x, y, z, dx, dy, dz each) drawn in full: a mesh of 8 corners
  // and 12 triangles per box, or its edges as one pen path (null lifts the pen).
  function expand(t) {
    const b = t.boxes;
    if (!b) return t;
    const x = [], y = [], z = [];
    const put = (q, c) => {
      x.push(b[q] + b[q + 3] * BITS[c][0]);
      y.push(b[q + 1] + b[q + 4] * BITS[c][1]);
      z.push(b[q + 2] + b[q + 5] * BITS[c][2]);
    };
    if (t.type === 'mesh3d') {
      const i = [], j = [], k = [];
      for (let q = 0, base = 0; q < b.length; q += 6, base += 8) {
        for (let c = 0; c < 8; c++) put(q, c);
        for (const tri of TRIANGLES) { i.push(base + tri[0]); j.push(base + tri[1]); k.push(base + tri[2]); }
      }
      Object.assign(t, {x, y, z, i, j, k});
      if (t.hoverPerBox) t.hovertext = t.hoverPerBox.flatMap(h => [h, h, h, h, h, h, h, h]);
    } else {
      for (let q = 0; q < b.length; q += 6) {
        for (const c of EDGE_PATH) {
          if (c < 0) { x.push(null); y.push(null); z.push(null); } else put(q, c);
        }
      }
      Object.assign(t, {x, y, z});
    }
    delete t.boxes;
    delete t.hoverPerBox;
    return t;
  }
  function draw(el) {
    if (el.dataset.drawn) return;
    const fig = byId.get(el.id);
    if (!fig) return;
    el.dataset.drawn = '1';
    fig.data.forEach(expand);
    const layout = Object.assign({}, fig.layout, {template: payload.template});
    Plotly.newPlot(el, fig.data, layout, config);
  }
  function release(el) {
    if (!el.dataset.drawn) return;
    Plotly.purge(el);
    delete el.dataset.drawn;
  }
  const els = Array.from(document.querySelectorAll('.figure'));
  if (!('IntersectionObserver' in window)) { els.forEach(draw); return; }
  const seen = new IntersectionObserver(entries => {
    for (const e of entries) {
      if (e.isIntersecting) draw(e.target);
      else if (e.target.dataset.webgl) release(e.target);
    }
  }, {rootMargin: '400px 0px'});
  els.forEach(el => seen.observe(el));
})();
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def json_for_html(value: Any) -> str:
    """JSON that is safe inside an HTML ``<script>`` element: ``<``, ``>``, ``&`` and the
    line separators U+2028 and U+2029 appear only as ``\\u`` escapes (``\\u2028``) (they can occur
    only inside JSON strings, where the escapes mean the same characters)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], cls: str = "") -> str:
    """A table of escaped text; cells given as :class:`_Html` go in as they are."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class _Html(str):
    """Markup this module built itself (never caller text)."""


def _cell(value: object) -> str:
    return str(value) if isinstance(value, _Html) else _e(value)


def _facts(pairs: Sequence[tuple[str, object]], columns: int = 3) -> str:
    rows = []
    for i in range(0, len(pairs), columns):
        row: list[object] = []
        for label, value in pairs[i : i + columns]:
            row += [label, value]
        rows.append(row + [""] * (2 * columns - len(row)))
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="facts"><tbody>{body}</tbody></table>'


def _swatch(colour: str) -> _Html:
    return _Html(f'<span class="swatch" style="background:{_e(colour)}"></span>')


def _fragile(view: PlanView, item_id: str) -> object:
    return _Html('<span class="fragile">FRAGILE</span>') if view.fragile(item_id) else "—"


#: Traces of boxes (:func:`adapters.report.figures.mesh_arrays`, ``edge_arrays``) that the
#: page sends as the boxes alone, six numbers each, and the page's script draws in full.
_BOX_KINDS = frozenset({"piece", "edges", "fragile"})


def _boxes(trace: Any) -> list[float]:
    """The ``x, y, z, dx, dy, dz`` rows [mm] of a trace of boxes, flattened: the first and
    the far corner of each box (corner 7 of a mesh's eight; the edge path's ninth point)."""
    points = np.column_stack([np.asarray(trace[a], dtype=float) for a in ("x", "y", "z")])
    per_box, far = (8, 7) if trace.type == "mesh3d" else (24, 8)
    points = points.reshape(-1, per_box, 3)
    rows = np.concatenate([points[:, 0], points[:, far] - points[:, 0]], axis=1)
    return [round(float(v), 1) for v in rows.ravel()]


def _figure_json(fig: Any) -> dict[str, Any]:
    """A figure as plain JSON, its template left out (the page sends that once). Traces of
    boxes carry the boxes (``boxes``) and one hover text per box (``hoverPerBox``) in place
    of their corners, triangles and edge paths, which the page's script rebuilds: a plan of
    10,000 pieces would otherwise send hundreds of megabytes."""
    from plotly.utils import PlotlyJSONEncoder

    data: dict[str, Any] = fig.to_plotly_json()
    data.get("layout", {}).pop("template", None)
    for source, trace in zip(fig.data, data.get("data", []), strict=True):
        meta = source.meta
        if not isinstance(meta, dict) or meta.get("kind") not in _BOX_KINDS:
            continue
        trace["boxes"] = _boxes(source)
        trace.pop("hovertext", None)
        if source.type == "mesh3d" and source.hovertext is not None:
            trace["hoverPerBox"] = [str(t) for t in np.asarray(source.hovertext)[::8]]
        for key in ("x", "y", "z", "i", "j", "k"):
            trace.pop(key, None)
    plain: dict[str, Any] = json.loads(json.dumps(data, cls=PlotlyJSONEncoder))
    return plain


def _div(fig_id: str, fig: Any, *, webgl: bool) -> str:
    height = int(fig.layout.height or 500)
    flag = ' data-webgl="1"' if webgl else ""
    return f'<div class="figure" id="{_e(fig_id)}"{flag} style="height:{height}px"></div>'


class PageCache:
    """Share pages by plan id, the most recently read kept up to ``max_bytes`` in all.

    A stored plan never changes, so neither does its page; a page of 10,000 pieces takes
    seconds of CPU to build, and every holder of a link may ask for it. Concurrent readers
    of one plan wait for one build. (Per process: each server process keeps its own.)
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[str, str] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}

    def __contains__(self, plan_id: object) -> bool:
        """Is the page of ``plan_id`` kept?"""
        with self._lock:
            return plan_id in self._pages

    def get(self, plan_id: str, build: Callable[[], str]) -> str:
        """The page of ``plan_id``, built by ``build()`` when not kept."""
        with self._lock:
            page = self._pages.get(plan_id)
            if page is not None:
                self._pages.move_to_end(plan_id)
                return page
            building = self._building.setdefault(plan_id, threading.Lock())
        with building:
            with self._lock:
                page = self._pages.get(plan_id)
            if page is not None:
                return page
            try:
                page = build()
            except BaseException:
                with self._lock:
                    self._building.pop(plan_id, None)
                raise
            # kept and no longer building in one step: a reader in between would build again
            with self._lock:
                self._building.pop(plan_id, None)
                if len(page) <= self.max_bytes:
                    self._pages[plan_id] = page
                    self._size += len(page)
                    while self._size > self.max_bytes:
                        _, old = self._pages.popitem(last=False)
                        self._size -= len(old)
            return page


#: The share pages of this process.
PAGES = PageCache()


def share_page(record: PackingPlanRecord) -> str:
    """The HTML page of a shared plan."""
    view = figures.plan_view(record)
    result = record.result
    plan_input = record.input
    title = plan_input.planTitle or f"Packing plan {record.planId}"
    payload_figures: list[dict[str, Any]] = []

    def place(fig_id: str, fig: Any, *, webgl: bool) -> str:
        payload_figures.append({"id": fig_id, "figure": _figure_json(fig)})
        return _div(fig_id, fig, webgl=webgl)

    status = (
        '<span class="ok">feasible</span>'
        if result.feasible
        else '<span class="bad">not feasible</span>'
    )
    created = record.createdAt.astimezone(dt.UTC).replace(microsecond=0, tzinfo=None)
    parts: list[str] = [
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(plan_input.originCity)} → {_e(plan_input.destinationCity)}, scenario "
        f"{_e(plan_input.scenario.value)}, created {_e(created.isoformat(sep=' '))} UTC: "
        f"{status}; {result.summary.totalPlaced} of {result.summary.totalRequested} pieces "
        f"placed in {len(result.containers)} container{'s' if len(result.containers) != 1 else ''}"
        + (
            f" on {len(result.vehicles)} vehicle{'s' if len(result.vehicles) != 1 else ''}"
            if result.vehicles is not None
            else ""
        )
        + ".</p>",
        "<h2>Temperature modes</h2>",
        _table(list(MODE_HEADERS), mode_rows(result)),
    ]
    if plan_input.cargos:
        parts += [
            "<h2>Cargo</h2>",
            _table(
                [
                    "",
                    "Id",
                    "Name",
                    "Size L × H × W",
                    "Weight",
                    "Quantity",
                    "Mode",
                    "Fragile",
                    "Unload priority",
                ],
                [
                    [
                        _swatch(view.colour(c.id)),
                        c.id,
                        view.name(c.id),
                        "—"
                        if c.lengthCm is None or c.heightCm is None or c.widthCm is None
                        else f"{mm3([c.lengthCm * 10, c.heightCm * 10, c.widthCm * 10])} mm",
                        "—" if c.weightKg is None else f"{num(c.weightKg, 3)} kg",
                        c.quantity,
                        c.temperatureMode.value if c.temperatureMode else "—",
                        _fragile(view, c.id),
                        view.unload_priority(c.id),
                    ]
                    for c in plan_input.cargos
                ],
            ),
        ]
    for n, m in enumerate(figures.thermal_modes(view)):
        tf = m.thermalFilter
        parts.append(f"<h2>Thermal check {_e(m.temperatureMode.value)}</h2>")
        parts.append(place(f"thermal-{n}", figures.thermal_figure(view, n), webgl=False))
        t = 0.0
        rows = []
        for k, s in enumerate(tf.routeSegmentsUsed or [], start=1):
            hours = s.hours or 0.0
            rows.append(
                [
                    k,
                    s.label or "—",
                    s.cityKey or "—",
                    s.locationTypeKey or "—",
                    f"{num(t)}–{num(t + hours)} h",
                    "—" if s.ambientC is None else f"{s.ambientC:+.1f} °C",
                    "—" if s.loadDegreeHours is None else f"{num(s.loadDegreeHours, 0)} °C·h",
                ]
            )
            t += hours
        parts.append(
            "<details><summary>Route segments</summary>"
            + _table(["#", "Segment", "City", "Place", "Time", "Ambient", "Load"], rows)
            + "</details>"
        )
    if result.vehicles:
        parts.append("<h2>Vehicles and axle loads</h2>")
        for v in result.vehicles:
            parts.append(
                place(
                    f"vehicle-{v.vehicleIndex}",
                    figures.vehicle_figure(view, v.vehicleIndex),
                    webgl=False,
                )
            )
            parts.append(
                _table(
                    ["Axle", "Load", "Limit", "Use"],
                    [
                        [
                            a.name,
                            f"{num(a.loadKg)} kg",
                            f"{num(a.maxKg)} kg",
                            f"{a.loadKg / a.maxKg:.0%}" if a.maxKg else "—",
                        ]
                        for a in v.axleLoads
                    ],
                )
            )
    parts.append("<h2>Containers</h2>")
    for count, c in enumerate(result.containers):
        pieces = view.pieces(c.containerIndex)
        parts.append(f"<h3>#{c.containerIndex} {_e(c.containerTitle)} ({_e(c.containerSlug)})</h3>")
        parts.append(
            _facts(
                [
                    ("Inner L × H × W", f"{mm3(c.innerUsableMm)} mm"),
                    ("Door", c.loadingSide.value),
                    ("Pieces", len(pieces)),
                    ("Cargo", f"{num(c.cargoWeightKg, 2)} kg"),
                    ("Total", f"{num(c.totalWeightKg, 2)} kg"),
                    (
                        "Volume used",
                        "—"
                        if c.metrics.volumeUtilization is None
                        else f"{c.metrics.volumeUtilization:.1%}",
                    ),
                ]
            )
        )
        if pieces and count < MAX_CONTAINER_FIGURES:
            parts.append(
                place(
                    f"view-{c.containerIndex}",
                    figures.container_figure(view, c.containerIndex, title=False),
                    webgl=True,
                )
            )
            if len(pieces) > 1:
                steps = figures.load_steps_figure(
                    view, c.containerIndex, panels=3 if len(pieces) <= 12 else 6
                )
                parts.append(
                    "<details><summary>Loading sequence</summary>"
                    + place(f"steps-{c.containerIndex}", steps, webgl=True)
                    + "</details>"
                )
        else:
            parts.append(f'<div id="view-{c.containerIndex}"></div>')
            if pieces:
                parts.append('<p class="note">Too many containers to draw them all here.</p>')
        parts.append(
            "<details><summary>Pieces in load order</summary>"
            + _table(
                [
                    "Step",
                    "",
                    "Cargo",
                    "Id",
                    "Piece",
                    "Position X, Y, Z, mm",
                    "Size L × H × W, mm",
                    "Rotation",
                    "Fragile",
                    "Unload priority",
                ],
                [
                    [
                        p.loadStep,
                        _swatch(view.colour(p.cargoItemId)),
                        view.name(p.cargoItemId),
                        p.cargoItemId,
                        p.instanceIndex + 1,
                        mm3(p.positionMm),
                        mm3(p.dimensionsMm),
                        rotation_text(p.rotation),
                        _fragile(view, p.cargoItemId),
                        view.unload_priority(p.cargoItemId),
                    ]
                    for p in pieces
                ],
            )
            + "</details>"
        )
    if result.unplacedItems:
        parts += [
            "<h2>Not placed</h2>",
            _table(
                ["Cargo", "Id", "Piece", "Reason"],
                [
                    [view.name(u.cargoItemId), u.cargoItemId, u.instanceIndex + 1, u.reason]
                    for u in result.unplacedItems
                ],
            ),
        ]
    payload = {
        "plan": record.model_dump(mode="json"),
        "template": _template(),
        "figures": payload_figures,
        "boxGeometry": figures.box_geometry(),
    }
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{_e(title)}</title><style>{_STYLE}</style>
<script src="assets/plotly.min.js"></script></head>
<body><main>
{"".join(parts)}
</main>
<script type="application/json" id="plan-data">{json_for_html(payload)}</script>
<script>{_SCRIPT}</script>
</body></html>"""


def _template() -> Any:
    """The figures' template (plotly_white), sent once for all of them."""
    import plotly.io as pio
    from plotly.utils import PlotlyJSONEncoder

    template = pio.templates["plotly_white"].to_plotly_json()
    return json.loads(json.dumps(template, cls=PlotlyJSONEncoder))


def not_found_page() -> str:
    """The page of an unknown or expired share link."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Link not found'
        "</title></head><body><h1>Link not found</h1><p>This share link does not exist or "
        "has expired. Ask the sender for a new link.</p></body></html>"
    )
