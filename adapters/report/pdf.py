"""PDF report of a stored plan (reportlab).

``summary``: the plan's facts in tables (modes, containers, placements, unplaced pieces).
``full``: the same, and per container an isometric 3D diagram of the placed pieces, drawn as
vector graphics so the report needs no browser.
"""

from __future__ import annotations

import io
import math
from typing import Literal
from xml.sax.saxutils import escape

from reportlab.graphics.shapes import Drawing, Line, Polygon, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from adapters.planning.schemas import ContainerAllocation, ItemPlacement, PackingPlanRecord

ReportMode = Literal["summary", "full"]

_TABLE_STYLE = TableStyle(
    [
        ("FONT", (0, 0), (-1, -1), "Helvetica", 8),
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 8),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eeeeee")),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#999999")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
)


def _table(headers: list[str], rows: list[list[str]]) -> Table:
    table = Table([headers, *rows], repeatRows=1, hAlign="LEFT")
    table.setStyle(_TABLE_STYLE)
    return table


def _g(value: float) -> str:
    return f"{value:,.6g}"


def _mm3(values: list[float]) -> str:
    return " × ".join(f"{v:g}" for v in values)


def _colour(text: str) -> colors.Color:
    try:
        return colors.HexColor(text)
    except (ValueError, TypeError):
        return colors.HexColor("#1f77b4")


_COS30 = math.cos(math.radians(30))


def _iso(x: float, y: float, z: float) -> tuple[float, float]:
    """Isometric projection: X (length) to the right-down, Z (width) to the left-down, Y up."""
    return ((x - z) * _COS30, y + (x + z) * 0.5)


def isometric_drawing(
    container: ContainerAllocation,
    placements: list[ItemPlacement],
    width: float = 160 * mm,
    max_height: float = 150 * mm,
) -> Drawing:
    """An isometric diagram of the container's inner space and its pieces, in load order.

    Scaled to fit ``width`` × ``max_height`` [pt] whatever the container's proportions, so
    that it always fits a landscape A4 page.
    """
    length, height, depth = container.innerUsableMm
    corners = [_iso(x, y, z) for x in (0.0, length) for y in (0.0, height) for z in (0.0, depth)]
    min_u = min(u for u, _ in corners)
    max_u = max(u for u, _ in corners)
    max_v = max(v for _, v in corners)
    span_u = max(max_u - min_u, 1.0)
    scale = min(width / span_u, (max_height - 14) / max(max_v, 1.0))
    draw_height = max_v * scale + 14
    drawing = Drawing(width, draw_height)

    def point(x: float, y: float, z: float) -> tuple[float, float]:
        u, v = _iso(x, y, z)
        return ((u - min_u) * scale, draw_height - 14 - v * scale + 0.0)

    # painter's order: far pieces first (small x + z), lower first
    ordered = sorted(placements, key=lambda p: (p.positionMm[0] + p.positionMm[2], p.positionMm[1]))
    edges = [
        ((0, 0, 0), (length, 0, 0)),
        ((0, 0, 0), (0, 0, depth)),
        ((0, 0, 0), (0, height, 0)),
        ((length, 0, 0), (length, height, 0)),
        ((0, 0, depth), (0, height, depth)),
        ((0, height, 0), (length, height, 0)),
        ((0, height, 0), (0, height, depth)),
    ]
    for a, b in edges:
        pa, pb = point(*a), point(*b)
        drawing.add(Line(pa[0], pa[1], pb[0], pb[1], strokeColor=colors.grey, strokeWidth=0.5))
    for p in ordered:
        x, y, z = p.positionMm
        dx, dy, dz = p.dimensionsMm
        base = _colour(p.color)
        faces = [
            # top
            [(x, y + dy, z), (x + dx, y + dy, z), (x + dx, y + dy, z + dz), (x, y + dy, z + dz)],
            # front (x = x + dx)
            [(x + dx, y, z), (x + dx, y + dy, z), (x + dx, y + dy, z + dz), (x + dx, y, z + dz)],
            # side (z = z + dz)
            [(x, y, z + dz), (x + dx, y, z + dz), (x + dx, y + dy, z + dz), (x, y + dy, z + dz)],
        ]
        for shade, face in zip((1.0, 0.8, 0.6), faces, strict=True):
            fill = colors.Color(base.red * shade, base.green * shade, base.blue * shade)
            pts = [c for corner in face for c in point(*corner)]
            drawing.add(Polygon(pts, fillColor=fill, strokeColor=colors.black, strokeWidth=0.3))
    drawing.add(
        String(
            0,
            draw_height - 10,
            f"#{container.containerIndex} {container.containerTitle}",
            fontName="Helvetica-Bold",
            fontSize=8,
        )
    )
    return drawing


def render_pdf(record: PackingPlanRecord, *, mode: ReportMode = "summary") -> bytes:
    """The PDF report of ``record``.

    Parameters
    ----------
    record : PackingPlanRecord
        The stored plan.
    mode : {"summary", "full"}
        ``full`` adds an isometric 3D diagram per container.

    Returns
    -------
    bytes
        A PDF document.
    """
    styles = getSampleStyleSheet()
    buffer = io.BytesIO()
    title = record.input.planTitle or f"Packing plan {record.planId}"
    doc = SimpleDocTemplate(
        buffer,
        pagesize=landscape(A4),
        leftMargin=12 * mm,
        rightMargin=12 * mm,
        topMargin=12 * mm,
        bottomMargin=12 * mm,
        title=title,
        author="packplan",
    )
    result = record.result
    story: list[object] = [
        # paragraphs read markup: every caller string goes in escaped, as text
        Paragraph(escape(title), styles["Title"]),
        Paragraph(
            escape(
                f"Plan {record.planId}"
                + (f", order {record.externalRef}" if record.externalRef else "")
                + f", created {record.createdAt.isoformat()}; "
                f"{record.input.originCity} → {record.input.destinationCity}; "
                f"scenario {record.input.scenario.value}; "
                f"{'feasible' if result.feasible else 'not feasible'}; "
                f"{result.summary.totalPlaced} of {result.summary.totalRequested} pieces placed."
            ),
            styles["Normal"],
        ),
        Spacer(1, 4 * mm),
        Paragraph("Modes", styles["Heading2"]),
        _table(
            ["Mode", "Feasible", "Placed", "Requested", "Transit h", "Required °C·h", "Problem"],
            [
                [
                    m.temperatureMode.value,
                    "yes" if m.feasible else "no",
                    str(m.placedCount),
                    str(m.requestedCount),
                    _g(m.transitHoursUsed),
                    _g(m.thermalFilter.requiredLoadDegreeHours)
                    if m.thermalFilter.requiredLoadDegreeHours is not None
                    else "",
                    ((m.errorCode.value + ": ") if m.errorCode else "") + (m.message or ""),
                ]
                for m in result.modes
            ],
        ),
        Paragraph("Containers", styles["Heading2"]),
        _table(
            ["#", "Container", "Coolant", "Inner mm", "Cargo kg", "Total kg", "Volume %", "Pieces"],
            [
                [
                    str(c.containerIndex),
                    f"{c.containerTitle} ({c.containerSlug})",
                    c.coolant.value if c.coolant else "—",
                    _mm3(c.innerUsableMm),
                    _g(c.cargoWeightKg),
                    _g(c.totalWeightKg),
                    f"{c.metrics.volumeUtilization * 100:.1f}"
                    if c.metrics.volumeUtilization is not None
                    else "",
                    str(sum(1 for p in result.placements if p.containerIndex == c.containerIndex)),
                ]
                for c in result.containers
            ],
        ),
        Paragraph("Containers by type", styles["Heading2"]),
        _table(
            ["Container type", "Count"],
            [[slug, str(n)] for slug, n in sorted(result.summary.byContainerType.items())],
        ),
    ]
    if result.unplacedItems:
        story += [
            Paragraph("Not placed", styles["Heading2"]),
            _table(
                ["Item", "Piece", "Reason"],
                [
                    [
                        u.cargoItemId,
                        str(u.instanceIndex),
                        Paragraph(escape(u.reason), styles["BodyText"]),
                    ]
                    for u in result.unplacedItems
                ],
            ),
        ]
    story += [
        Paragraph("Placements (load order)", styles["Heading2"]),
        _table(
            ["Container", "Step", "Item", "Piece", "Position mm", "Size mm", "Rotation"],
            [
                [
                    str(p.containerIndex),
                    str(p.loadStep),
                    p.cargoItemId,
                    str(p.instanceIndex),
                    _mm3(p.positionMm),
                    _mm3(p.dimensionsMm),
                    " ".join(str(r) for r in p.rotation),
                ]
                for p in sorted(result.placements, key=lambda p: (p.containerIndex, p.loadStep))
            ],
        ),
    ]
    if mode == "full":
        story.append(Paragraph("3D diagrams", styles["Heading2"]))
        for c in result.containers:
            pieces = [p for p in result.placements if p.containerIndex == c.containerIndex]
            story.append(KeepTogether([isometric_drawing(c, pieces), Spacer(1, 4 * mm)]))
    doc.build(story)
    return buffer.getvalue()
