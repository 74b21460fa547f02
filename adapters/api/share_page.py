"""The public page of a share link: an interactive 3D view of every container and the tables."""

from __future__ import annotations

import html
import json

from adapters.planning.schemas import PackingPlanRecord

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;font-size:.9rem}
th{background:#f3f3f3}.bad{color:#b00}.ok{color:#070}
.view{width:100%;max-width:900px;height:520px;border:1px solid #ddd;margin-bottom:1rem}
"""

# One mesh per placed piece, drawn in its container's frame: X length, Y up, Z width (mm).
_SCRIPT = """
const plan = JSON.parse(document.getElementById('plan-data').textContent);
const result = plan.result;
function box(p) {
  const [x, y, z] = p.positionMm, [dx, dy, dz] = p.dimensionsMm;
  const X = [x, x+dx, x+dx, x, x, x+dx, x+dx, x];
  const Z = [z, z, z+dz, z+dz, z, z, z+dz, z+dz];
  const Y = [y, y, y, y, y+dy, y+dy, y+dy, y+dy];
  return {type: 'mesh3d', x: X, y: Z, z: Y, flatshading: true, opacity: 1,
    i: [7,0,0,0,4,4,6,6,4,0,3,2], j: [3,4,1,2,5,6,5,2,0,1,6,3], k: [0,7,2,3,6,7,1,1,5,5,7,6],
    color: p.color || '#1f77b4', name: p.cargoItemId + ' #' + p.instanceIndex,
    hovertext: p.cargoItemId + ' #' + p.instanceIndex + ' step ' + p.loadStep,
    hoverinfo: 'text'};
}
function frame(c) {
  const [L, H, W] = c.innerUsableMm;
  const xs = [0,L,L,0,0,null,0,L,L,0,0,null,0,0,null,L,L,null,L,L,null,0,0];
  const ys = [0,0,W,W,0,null,0,0,W,W,0,null,0,0,null,0,0,null,W,W,null,W,W];
  const zs = [0,0,0,0,0,null,H,H,H,H,H,null,0,H,null,0,H,null,0,H,null,0,H];
  return {type: 'scatter3d', mode: 'lines', x: xs, y: ys, z: zs, hoverinfo: 'skip',
    line: {color: '#888'}, showlegend: false};
}
for (const c of result.containers) {
  const el = document.getElementById('view-' + c.containerIndex);
  const traces = result.placements.filter(p => p.containerIndex === c.containerIndex).map(box);
  traces.push(frame(c));
  Plotly.newPlot(el, traces, {margin: {l: 0, r: 0, t: 0, b: 0}, showlegend: false,
    scene: {aspectmode: 'data', xaxis: {title: 'length mm'}, yaxis: {title: 'width mm'},
            zaxis: {title: 'height mm'}}}, {responsive: true});
}
"""


def _e(value: object) -> str:
    return html.escape(str(value))


def _table(headers: list[str], rows: list[list[object]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _mm(values: list[float]) -> str:
    return " × ".join(f"{v:g}" for v in values)


def share_page(record: PackingPlanRecord) -> str:
    """The HTML page of a shared plan."""
    result = record.result
    title = record.input.planTitle or f"Packing plan {record.planId}"
    modes = _table(
        ["Mode", "Feasible", "Placed", "Requested", "Transit h", "Problem"],
        [
            [
                m.temperatureMode.value,
                "yes" if m.feasible else "no",
                m.placedCount,
                m.requestedCount,
                f"{m.transitHoursUsed:g}",
                (m.errorCode.value + ": " if m.errorCode else "") + (m.message or ""),
            ]
            for m in result.modes
        ],
    )
    views = "".join(
        f"<h3>#{c.containerIndex} {_e(c.containerTitle)} ({_e(c.containerSlug)})</h3>"
        f"<p>inner {_e(_mm(c.innerUsableMm))} mm, cargo {c.cargoWeightKg:g} kg, "
        f"total {c.totalWeightKg:g} kg</p>"
        f'<div class="view" id="view-{c.containerIndex}"></div>'
        for c in result.containers
    )
    placements = _table(
        ["Item", "Piece", "Container", "Step", "Position mm", "Size mm", "Rotation"],
        [
            [
                p.cargoItemId,
                p.instanceIndex,
                p.containerIndex,
                p.loadStep,
                _mm(p.positionMm),
                _mm(p.dimensionsMm),
                _mm([float(r) for r in p.rotation]),
            ]
            for p in result.placements
        ],
    )
    unplaced = (
        "<h2>Not placed</h2>"
        + _table(
            ["Item", "Piece", "Reason"],
            [[u.cargoItemId, u.instanceIndex, u.reason] for u in result.unplacedItems],
        )
        if result.unplacedItems
        else ""
    )
    data = json.dumps(record.model_dump(mode="json")).replace("</", "<\\/")
    status = (
        '<span class="ok">feasible</span>'
        if result.feasible
        else ('<span class="bad">not feasible</span>')
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{_e(title)}</title><style>{_STYLE}</style>
<script src="/share/assets/plotly.min.js"></script></head>
<body><h1>{_e(title)}</h1>
<p>{_e(record.input.originCity)} → {_e(record.input.destinationCity)},
scenario {_e(record.input.scenario.value)}, created {_e(record.createdAt.isoformat())}: {status};
{result.summary.totalPlaced} of {result.summary.totalRequested} pieces placed in
{len(result.containers)} containers.</p>
<h2>Modes</h2>{modes}
<h2>Containers</h2>{views}
<h2>Placements</h2>{placements}
{unplaced}
<script type="application/json" id="plan-data">{data}</script>
<script>{_SCRIPT}</script>
</body></html>"""


def not_found_page() -> str:
    """The page of an unknown or expired share link."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Link not found'
        "</title></head><body><h1>Link not found</h1><p>This share link does not exist or "
        "has expired. Ask the sender for a new link.</p></body></html>"
    )
