"""PDF report of a stored plan (reportlab).

``summary``: the plan's facts in tables: modes, the thermal check with its route, the cargo
with names and handling rules, each container and its pieces in load order, vehicles and
axle loads (PALLET_LOAD), pieces not placed.
``full``: the same, and the figures of :mod:`adapters.report.figures` rendered by kaleido
(Chromium) as images: each container as an isometric drawing and its loading sequence next
to its tables (at most :data:`MAX_CONTAINER_FIGURES` containers), each vehicle, each
thermal check.

Text is set in DejaVu Sans, embedded from matplotlib's data files (a package dependency,
not a font that happens to be installed): Latin, Cyrillic, Greek and the signs the report
uses (° × → ≤ ·) print as real, extractable glyphs. Chinese, Japanese and Korean characters,
which DejaVu lacks, are set in WenQuanYi Zen Hei (Debian's fonts-wqy-zenhei, installed by
``scripts/system-deps.sh``; embedded as a subset). Arabic and Hebrew text is drawn as it
reads: Arabic letters joined into their contextual forms (arabic-reshaper) and right-to-left
runs in visual order by the Unicode bidirectional algorithm (python-bidi), line by line in
table cells (:func:`visual`). Emoji and the symbols neither font has are set in Symbola
(Debian's fonts-symbola, outline glyphs of Unicode 10 and older). Not covered: newer emoji
and the letters of scripts no font here has, which print as DejaVu's empty box (the report
names them in a warning). Units: mm for every length, kg, h, °C and °C·h; times in UTC.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, partial
from itertools import groupby
from pathlib import Path
from typing import Any, Literal, TypeAlias
from xml.sax.saxutils import escape

import arabic_reshaper
from bidi import get_display
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, StyleSheet1, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics, ttfonts
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    Image,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from adapters.planning.schemas import (
    CombinedModeReport,
    ContainerAllocation,
    PackingPlanRecord,
    VehicleAllocation,
)
from adapters.report import figures
from adapters.report.figures import PlanView, mm3, num, rotation_text

log = logging.getLogger(__name__)

ReportMode = Literal["summary", "full"]

FONT = "DejaVuSans"
FONT_BOLD = "DejaVuSans-Bold"
#: Font size of table cells [pt].
CELL_SIZE = 7.5

#: Width of the page's frame: landscape A4 less 12 mm margins [pt].
FRAME_WIDTH = landscape(A4)[0] - 24 * mm


# --------------------------------------------------------------------------- fonts and styles


def font_files() -> tuple[Path, Path]:
    """DejaVu Sans and DejaVu Sans Bold as matplotlib ships them."""
    import matplotlib

    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    return folder / "DejaVuSans.ttf", folder / "DejaVuSans-Bold.ttf"


#: The font for the characters DejaVu Sans lacks (Chinese, Japanese, Korean): WenQuanYi Zen
#: Hei, which ``scripts/system-deps.sh`` installs (Debian's fonts-wqy-zenhei). Without it
#: such characters print as DejaVu's empty box.
FALLBACK_FONT = "WenQuanYiZenHei"
FALLBACK_FONT_FILES = (
    Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"),
    Path("/usr/share/fonts/wqy-zenhei/wqy-zenhei.ttc"),
)
#: The font for emoji and the symbols neither font before has (📦 ❄ 🚚 …, Unicode 10 and
#: older, drawn in outline): Symbola, which ``scripts/system-deps.sh`` installs (Debian's
#: fonts-symbola). Without it they print as DejaVu's empty box.
EMOJI_FONT = "Symbola"
EMOJI_FONT_FILES = (
    Path("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"),
    Path("/usr/share/fonts/truetype/symbola/Symbola.ttf"),
)
#: The fonts after DejaVu Sans, in the order a character missing there is looked up.
_FALLBACKS = ((FALLBACK_FONT, FALLBACK_FONT_FILES), (EMOJI_FONT, EMOJI_FONT_FILES))


#: A ToUnicode entry whose character lies beyond U+FFFF, as reportlab writes it: the code
#: point in 5 or 6 hex digits, which the PDF format reads as no character (it wants UTF-16).
_ASTRAL_ENTRY = re.compile(r"<([0-9A-F]{2})> <([0-9A-F]{5,6})>")


def _as_utf16(entry: re.Match[str]) -> str:
    code = int(entry[2], 16) - 0x10000
    return f"<{entry[1]}> <{0xD800 + (code >> 10):04X}{0xDC00 + (code & 0x3FF):04X}>"


def _to_unicode_cmap(make: Any) -> Any:
    """reportlab's ToUnicode CMap maker, with characters beyond U+FFFF (emoji, rare CJK)
    written as UTF-16 surrogate pairs, so that readers copy and search them."""

    def made(fontname: str, subset: Sequence[int]) -> str:
        return _ASTRAL_ENTRY.sub(_as_utf16, make(fontname, subset))

    made.astral_fixed = True  # type: ignore[attr-defined]
    return made


@cache
def register_fonts() -> None:
    """Registers the report's fonts with reportlab (once per process)."""
    from reportlab.lib.fonts import addMapping

    if not getattr(ttfonts.makeToUnicodeCMap, "astral_fixed", False):
        ttfonts.makeToUnicodeCMap = _to_unicode_cmap(ttfonts.makeToUnicodeCMap)

    regular, bold = font_files()
    pdfmetrics.registerFont(TTFont(FONT, str(regular)))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(bold)))
    for italic in (0, 1):
        addMapping(FONT, 0, italic, FONT)
        addMapping(FONT, 1, italic, FONT_BOLD)
    for name, files in _FALLBACKS:
        found = next((f for f in files if f.is_file()), None)
        if found is None:
            continue
        pdfmetrics.registerFont(TTFont(name, str(found), subfontIndex=0))
        for bold_flag in (0, 1):
            for italic in (0, 1):
                addMapping(name, bold_flag, italic, name)


@cache
def _glyphs(font: str) -> frozenset[int]:
    """The code points ``font`` (registered) has glyphs for."""
    register_fonts()
    try:
        face = pdfmetrics.getFont(font).face
    except KeyError:
        return frozenset()
    return frozenset(face.charToGlyph)


def _font_of(c: str) -> str:
    """The font that draws ``c``: DejaVu Sans, else the first fallback that has it, else
    DejaVu Sans (its empty box)."""
    code = ord(c)
    if code in _glyphs(FONT):
        return FONT
    return next((name for name, _ in _FALLBACKS if code in _glyphs(name)), FONT)


def _needs_fallback(text: str) -> bool:
    """Does ``text`` hold a character DejaVu Sans lacks and a fallback font has?"""
    dejavu = _glyphs(FONT)
    if all(ord(c) in dejavu for c in text):
        return False
    return any(_font_of(c) != FONT for c in text)


def undrawable(record: PackingPlanRecord) -> list[str]:
    """The characters of the plan's text (its input and result) that neither DejaVu Sans nor
    a fallback font (CJK, emoji) can draw, in order of first appearance (whitespace and
    control characters aside)."""
    known = _glyphs(FONT).union(*(_glyphs(name) for name, _ in _FALLBACKS))
    seen: dict[str, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, str):
            for c in value:
                if ord(c) not in known and not c.isspace() and c.isprintable():
                    seen.setdefault(c, None)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    # (a placement's text is its cargo id, which the input holds: not read 10,000 times)
    walk(record.input.model_dump(mode="json"))
    walk(record.result.model_dump(mode="json", exclude={"placements"}))
    return list(seen)


#: Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan,
#: Mandaic and their presentation forms): text without them needs no reordering.
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def visual(text: str) -> str:
    """``text`` in the order it is drawn left to right: Arabic letters joined into their
    contextual forms (arabic-reshaper) and right-to-left runs reversed by the Unicode
    bidirectional algorithm (python-bidi), numbers and Latin words within them kept as they
    read. Text without right-to-left letters comes back unchanged."""
    if _RIGHT_TO_LEFT.search(text) is None:
        return text
    return str(get_display(arabic_reshaper.reshape(text)))


def markup(text: object) -> str:
    """``text`` escaped for a paragraph (caller text is printed, never read as markup), in
    visual order (:func:`visual`), each run of characters DejaVu Sans lacks set in the
    first fallback font that has them (:func:`_font_of`)."""
    value = visual(str(text))
    if not _needs_fallback(value):
        return escape(value)
    out: list[str] = []
    for font, run in groupby(value, key=_font_of):
        piece = escape("".join(run))
        out.append(piece if font == FONT else f'<font name="{font}">{piece}</font>')
    return "".join(out)


@cache
def styles() -> StyleSheet1:
    """The sample style sheet, every style set in the embedded font."""
    register_fonts()
    sheet = getSampleStyleSheet()
    for name in sheet.byName:
        style = sheet[name]
        if isinstance(style, ParagraphStyle):
            bold = name.startswith(("Heading", "Title")) or "Bold" in style.fontName
            style.fontName = FONT_BOLD if bold else FONT
    sheet.add(ParagraphStyle("Cell", parent=sheet["BodyText"], fontSize=7.5, leading=9))
    sheet.add(ParagraphStyle("CellBold", parent=sheet["Cell"], fontName=FONT_BOLD))
    sheet.add(ParagraphStyle("Note", parent=sheet["BodyText"], fontSize=8.5, leading=11))
    sheet.add(
        ParagraphStyle(
            "Warn", parent=sheet["Note"], textColor=colors.HexColor("#b71c1c"), fontName=FONT_BOLD
        )
    )
    sheet["Title"].fontSize = 17
    sheet["Title"].leading = 21
    sheet["Heading2"].fontSize = 13
    sheet["Heading2"].spaceBefore = 8
    sheet["Heading3"].fontSize = 11
    for name in ("Heading2", "Heading3"):
        sheet[name].keepWithNext = 1
    return sheet


def _table_style() -> TableStyle:
    return TableStyle(
        [
            ("FONT", (0, 0), (-1, -1), FONT, CELL_SIZE),
            ("FONT", (0, 0), (-1, 0), FONT_BOLD, CELL_SIZE),
            ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
            ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#9e9e9e")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 2),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ("LEFTPADDING", (0, 0), (-1, -1), 3),
            ("RIGHTPADDING", (0, 0), (-1, -1), 3),
        ]
    )


Cell: TypeAlias = Any  # a string or a reportlab Flowable


def P(text: object, style: str = "Cell") -> Paragraph:
    """A paragraph of ``text``, escaped: caller text is always printed, never read as markup
    (characters DejaVu Sans lacks in the fallback font, see :func:`markup`)."""
    return Paragraph(markup(text), styles()[style])


def _table(
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    widths: Sequence[float] | None = None,
    extra: Sequence[tuple[Any, ...]] = (),
) -> Table:
    table = Table(
        [[P(h, "CellBold") for h in headers], *[list(r) for r in rows]],
        colWidths=None if widths is None else [w * mm for w in widths],
        repeatRows=1,
        hAlign="LEFT",
    )
    style = _table_style()
    for command in extra:
        style.add(*command)
    table.setStyle(style)
    return table


def _facts(pairs: Sequence[tuple[str, str]], columns: int = 3) -> Table:
    """Label–value pairs laid out in ``columns`` columns."""
    cells: list[list[Cell]] = []
    for i in range(0, len(pairs), columns):
        row: list[Cell] = []
        for label, value in pairs[i : i + columns]:
            row += [P(label, "CellBold"), P(value)]
        row += [""] * (2 * columns - len(row))
        cells.append(row)
    width = FRAME_WIDTH / columns
    table = Table(cells, colWidths=[width * 0.36, width * 0.64] * columns, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 7.5),
                ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#bdbdbd")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
            ]
        )
    )
    return table


# --------------------------------------------------------------------------- formatting


def utc(moment: dt.datetime) -> str:
    """``2026-01-10 08:30:12 UTC``: UTC, whole seconds."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.replace(microsecond=0, tzinfo=None).isoformat(sep=" ") + " UTC"


def kg(value: float | None) -> str:
    return "—" if value is None else f"{num(value, 2)} kg"


def pct(fraction: float | None) -> str:
    return "—" if fraction is None else f"{fraction * 100:.1f} %"


def dh(value: float | None) -> str:
    return "—" if value is None else f"{num(value, 0)} °C·h"


def _mode_problem(m: CombinedModeReport) -> str:
    return ((m.errorCode.value + ": ") if m.errorCode else "") + (m.message or "")


# --------------------------------------------------------------------------- sections


def _header(view: PlanView, record: PackingPlanRecord) -> list[Flowable]:
    result = record.result
    plan_input = record.input
    title = plan_input.planTitle or f"Packing plan {record.planId}"
    facts = [
        ("Plan", record.planId),
        ("Order", record.externalRef or "—"),
        ("Created", utc(record.createdAt)),
        ("Route", f"{plan_input.originCity} → {plan_input.destinationCity}"),
        ("Scenario", plan_input.scenario.value),
        ("Result", "feasible" if result.feasible else "NOT feasible"),
        ("Pieces placed", f"{result.summary.totalPlaced} of {result.summary.totalRequested}"),
        ("Containers", str(len(result.containers))),
        ("Send date", plan_input.sendDate.isoformat() if plan_input.sendDate else "—"),
    ]
    if result.vehicles is not None:
        facts.append(("Vehicles", str(len(result.vehicles))))
    if plan_input.receiveDate:
        facts.append(("Receive date", plan_input.receiveDate.isoformat()))
    if plan_input.transitHours is not None:
        facts.append(("Transit given", f"{num(plan_input.transitHours)} h"))
    return [P(title, "Title"), _facts(facts), Spacer(1, 3 * mm)]


def _modes(view: PlanView) -> list[Flowable]:
    rows = [
        [
            P(m.temperatureMode.value),
            P("yes" if m.feasible else "NO"),
            P(f"{m.placedCount} of {m.requestedCount}"),
            P(f"{num(m.transitHoursUsed)} h"),
            P(dh(m.thermalFilter.requiredLoadDegreeHours)),
            P(_mode_problem(m) or "—"),
        ]
        for m in view.result.modes
    ]
    return [
        P("Temperature modes", "Heading2"),
        _table(
            ["Mode", "Feasible", "Placed", "Transit", "Required load", "Problem"],
            rows,
            [26, 20, 20, 18, 26, 163],
        ),
    ]


def _cargo(view: PlanView) -> list[Flowable]:
    plan_input = view.input
    if plan_input is None:
        return []
    placed: dict[str, int] = {}
    for p in view.result.placements:
        placed[p.cargoItemId] = placed.get(p.cargoItemId, 0) + 1
    rows = []
    for c in plan_input.cargos:
        size = (
            "—"
            if c.lengthCm is None or c.heightCm is None or c.widthCm is None
            else mm3([c.lengthCm * 10, c.heightCm * 10, c.widthCm * 10]) + " mm"
        )
        rules = c.rules
        rows.append(
            [
                _swatch(view.colour(c.id)),
                P(c.id),
                P(view.name(c.id)),
                P(size),
                P(kg(c.weightKg)),
                P(str(c.quantity) if c.includedInPacking else f"{c.quantity} (not packed)"),
                P(placed.get(c.id, 0)),
                P(c.temperatureMode.value if c.temperatureMode else "—"),
                P(
                    "FRAGILE" if view.fragile(c.id) else "—",
                    "CellBold" if view.fragile(c.id) else "Cell",
                ),
                P(view.unload_priority(c.id)),
                P(
                    ", ".join(
                        text
                        for text, on in (
                            ("no tilting", rules is not None and rules.allowTilt is False),
                            (
                                "nothing on top",
                                rules is not None and rules.allowStackOnTop is False,
                            ),
                            ("floor only", rules is not None and rules.allowStackUnder is False),
                            (
                                "manual order",
                                rules is not None
                                and rules.loadingOrder is not None
                                and rules.loadingOrder.value == "MANUAL",
                            ),
                        )
                        if on
                    )
                    or "—"
                ),
            ]
        )
    return [
        P("Cargo", "Heading2"),
        _table(
            [
                "",
                "Id",
                "Name",
                "Size L × H × W",
                "Weight, piece",
                "Quantity",
                "Placed",
                "Mode",
                "Fragile",
                "Unload priority",
                "Other rules",
            ],
            rows,
            [5, 20, 56, 34, 20, 18, 14, 24, 18, 18, 46],
        ),
    ]


def _cell_text(text: str, width_mm: float) -> Cell:
    """A cell of caller text: plain lines (:func:`_lines`), or a paragraph when part of it
    needs the fallback font (a plain-string cell has one font)."""
    return P(text) if _needs_fallback(text) else _lines(text, width_mm)


def _lines(text: object, width_mm: float) -> str:
    """``text`` broken into the lines a table cell ``width_mm`` wide holds in the cell font
    (its padding taken off), for a plain-string cell; a word wider than the cell is cut."""
    room = width_mm * mm - 6
    value = str(text)
    # right-to-left text is shaped before it is measured and put in visual order line by
    # line, so that its first words stay on the first line
    rtl = _RIGHT_TO_LEFT.search(value) is not None
    if rtl:
        value = arabic_reshaper.reshape(value)
    out: list[str] = []
    for line in simpleSplit(value, FONT, CELL_SIZE, room) or [""]:
        while pdfmetrics.stringWidth(line, FONT, CELL_SIZE) > room and len(line) > 1:
            cut = len(line)
            while cut > 1 and pdfmetrics.stringWidth(line[:cut], FONT, CELL_SIZE) > room:
                cut -= max(1, cut // 8)
            out.append(line[:cut])
            line = line[cut:]
        out.append(line)
    return "\n".join(str(get_display(line)) for line in out) if rtl else "\n".join(out)


def _swatch(colour: str) -> Table:
    """A small square of the cargo item's colour in the figures."""
    cell = Table([[""]], colWidths=[3 * mm], rowHeights=[3 * mm])
    cell.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), FONT, 7.5),
                ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor(colour)),
                ("BOX", (0, 0), (-1, -1), 0.3, colors.black),
            ]
        )
    )
    return cell


def _thermal(view: PlanView, images: dict[str, bytes]) -> list[Flowable]:
    story: list[Flowable] = []
    for m in figures.thermal_modes(view):
        tf = m.thermalFilter
        set_point = figures.set_point_c(m.temperatureMode.value)
        margin = tf.safetyMarginUsed
        head = f"Thermal check: {m.temperatureMode.value}"
        if set_point is not None:
            head += f" (set point {set_point:+g} °C)"
        # with its chart a thermal check starts a page: facts, capacities and chart together
        chart = m.temperatureMode.value in images
        story += [CondPageBreak(FRAME_HEIGHT if chart else 60 * mm), P(head, "Heading2")]
        facts = [
            ("Transit", f"{num(m.transitHoursUsed)} h"),
            ("Route map", tf.mapSource.value if tf.mapSource else "—"),
            ("Weather forecast used", "yes" if tf.weatherUsed else "no"),
            ("Load of the route", dh(tf.rawLoadDegreeHours)),
            ("Safety margin", "—" if margin is None else f"{margin * 100:g} %"),
            ("Required load", dh(tf.requiredLoadDegreeHours)),
        ]
        story.append(_facts(facts))
        required = tf.requiredLoadDegreeHours or 0.0
        hot_required, cold_required = _sides(view, m)
        cap_rows = []
        for cap in figures.capacities(view, m):
            c = cap.container
            profile = c.thermalProfileUsed
            reserve = (cap.hot_dh / hot_required - 1) if hot_required > 0 else None
            cold_reserve = (
                (cap.cold_dh / cold_required - 1)
                if cap.cold_dh is not None and cold_required > 0
                else None
            )
            cap_rows.append(
                [
                    P(f"{c.containerTitle} ({c.containerSlug})"),
                    P(c.coolant.value if c.coolant else "—"),
                    P(f"{num(profile.holdHoursAtRefAmbient)} h at +30 °C"),
                    P(dh(cap.hot_dh)),
                    P(dh(hot_required)),
                    P(_reserve(reserve)),
                    P(dh(cap.cold_dh)),
                    P(dh(cold_required)),
                    P(_reserve(cold_reserve)),
                ]
            )
        if cap_rows:
            story += [
                Spacer(1, 2 * mm),
                P(
                    f"The chosen containers against the required load of {dh(required)} "
                    "(segments at or above the set point load the hot side, colder ones the "
                    "cold side; each side must stay within the container's capacity):",
                    "Note",
                ),
                _table(
                    [
                        "Container",
                        "Coolant",
                        "Hold time",
                        "Capacity, hot side",
                        "Required, hot side",
                        "Reserve, hot",
                        "Capacity, cold side",
                        "Required, cold side",
                        "Reserve, cold",
                    ],
                    cap_rows,
                    [62, 16, 28, 26, 26, 20, 26, 26, 20],
                ),
            ]
        if m.temperatureMode.value in images:
            story += [
                Spacer(1, 2 * mm),
                _image(images[m.temperatureMode.value], FRAME_WIDTH * 0.92, 100 * mm),
            ]
        t = 0.0
        rows = []
        for n, s in enumerate(tf.routeSegmentsUsed or [], start=1):
            hours = s.hours or 0.0
            rows.append(
                [
                    P(n),
                    P(s.label or "—"),
                    P(s.cityKey or "—"),
                    P(s.locationTypeKey or "—"),
                    P(f"{num(t)}–{num(t + hours)} h"),
                    P(f"{num(hours)} h"),
                    P("—" if s.ambientC is None else f"{s.ambientC:+.1f} °C"),
                    P(s.ambientSource.value if s.ambientSource else "—"),
                    P(
                        "—"
                        if s.ambientC is None or set_point is None
                        else "hot"
                        if s.ambientC >= set_point
                        else "cold"
                    ),
                    P(dh(s.loadDegreeHours)),
                ]
            )
            t += hours
        story += [
            Spacer(1, 2 * mm),
            P("Route segments", "Heading3"),
            _table(
                [
                    "#",
                    "Segment",
                    "City",
                    "Place",
                    "Time since departure",
                    "Duration",
                    "Ambient",
                    "Ambient from",
                    "Side",
                    "Load",
                ],
                rows,
                [8, 72, 30, 32, 28, 19, 18, 26, 12, 28],
            ),
        ]
        rejected = tf.rejectedSlugs or []
        if rejected:
            story += [
                Spacer(1, 2 * mm),
                P("Containers that do not withstand the load", "Heading3"),
                _table(
                    ["Container", "Reason"],
                    [[P(r.slug), P(r.reason)] for r in rejected],
                    [45, 228],
                ),
            ]
    return story


def _sides(view: PlanView, m: CombinedModeReport) -> tuple[float, float]:
    """Required load of the hot and the cold side (safety margin included) [°C·h]."""
    tf = m.thermalFilter
    set_point = figures.set_point_c(m.temperatureMode.value)
    factor = 1 + (tf.safetyMarginUsed or 0.0)
    hot = cold = 0.0
    for s in tf.routeSegmentsUsed or []:
        load = (s.loadDegreeHours or 0.0) * factor
        if set_point is None or s.ambientC is None or s.ambientC >= set_point:
            hot += load
        else:
            cold += load
    return hot, cold


def _reserve(fraction: float | None) -> str:
    if fraction is None:
        return "—"
    if fraction < 0:
        return f"SHORT by {-fraction * 100:.0f} %"
    return f"{fraction * 100:.0f} %"


#: Height of the page's frame: landscape A4 less the margins [pt].
FRAME_HEIGHT = landscape(A4)[1] - 26 * mm


def _image(png: bytes, width: float, max_height: float = FRAME_HEIGHT - 12 * mm) -> Image:
    """An image at most ``width`` pt wide and ``max_height`` pt tall, its proportions kept."""
    from reportlab.lib.utils import ImageReader

    w, h = ImageReader(io.BytesIO(png)).getSize()
    scale = min(width / w, max_height / h)
    image = Image(io.BytesIO(png), width=w * scale, height=h * scale)
    image.hAlign = "LEFT"
    return image


def _container(view: PlanView, c: ContainerAllocation, images: dict[str, bytes]) -> list[Flowable]:
    pieces = view.pieces(c.containerIndex)
    metrics = c.metrics
    profile = c.thermalProfileUsed
    facts = [
        ("Inner L × H × W", f"{mm3(c.innerUsableMm)} mm"),
        ("Door", c.loadingSide.value),
        ("Pieces", str(len(pieces))),
        ("Cargo", kg(c.cargoWeightKg)),
        ("Tare with coolant", kg(c.tareWithCoolantKg)),
        ("Total", kg(c.totalWeightKg)),
        ("Volume used", pct(metrics.volumeUtilization)),
        ("Payload used", pct(metrics.weightUtilization)),
        ("Coolant", c.coolant.value if c.coolant else "—"),
    ]
    if profile.mode.value != "NONE":
        facts += [
            ("Thermal profile", profile.mode.value),
            ("Hold time", f"{num(profile.holdHoursAtRefAmbient)} h at +30 °C"),
            ("Capacity", dh(profile.thermalCapacityDegreeHours)),
        ]
    if metrics.centerOfGravityMm is not None:
        facts.append(("Centre of gravity X, Y, Z", f"{mm3(metrics.centerOfGravityMm)} mm"))
    key = f"container-{c.containerIndex}"
    story: list[Flowable] = [
        # with its figure a container starts a page: heading, facts and figure together
        CondPageBreak(FRAME_HEIGHT if key in images else 50 * mm),
        P(f"Container #{c.containerIndex}: {c.containerTitle} ({c.containerSlug})", "Heading2"),
        _facts(facts),
        Spacer(1, 2 * mm),
    ]
    if key in images:
        story += [_image(images[key], FRAME_WIDTH * 0.9), Spacer(1, 2 * mm)]
    # A container may hold thousands of pieces: every cell a plain string (set in the
    # table's font, never read as markup), caller text broken into lines once per item, and
    # the colour a cell background, not a table of its own.
    items = {p.cargoItemId for p in pieces}
    names = {i: _cell_text(view.name(i), 60) for i in items}
    ids = {i: _cell_text(i, 22) for i in items}
    rows = [
        [
            str(p.loadStep),
            "",
            names[p.cargoItemId],
            ids[p.cargoItemId],
            str(p.instanceIndex + 1),
            mm3(p.positionMm),
            mm3(p.dimensionsMm),
            rotation_text(p.rotation),
            kg(view.weight_kg(p.cargoItemId)),
            "FRAGILE" if view.fragile(p.cargoItemId) else "—",
            str(view.unload_priority(p.cargoItemId)),
        ]
        for p in pieces
    ]
    cell_styles: list[tuple[Any, ...]] = []
    for n, p in enumerate(pieces, start=1):
        cell_styles.append(
            ("BACKGROUND", (1, n), (1, n), colors.HexColor(view.colour(p.cargoItemId)))
        )
        if view.fragile(p.cargoItemId):
            cell_styles.append(("FONT", (9, n), (9, n), FONT_BOLD, CELL_SIZE))
    if rows:
        story += [
            P(f"Pieces of container #{c.containerIndex} in load order", "Heading3"),
            _table(
                [
                    "Step",
                    "",
                    "Cargo",
                    "Id",
                    "Piece",
                    "Position X, Y, Z, mm",
                    "Size L × H × W, mm",
                    "Rotation",
                    "Weight",
                    "Fragile",
                    "Unload priority",
                ],
                rows,
                [11, 5, 60, 22, 11, 34, 34, 44, 18, 15, 19],
                cell_styles,
            ),
        ]
    key = f"steps-{c.containerIndex}"
    if key in images:
        story += [
            CondPageBreak(120 * mm),
            P(f"Loading sequence of container #{c.containerIndex}", "Heading3"),
            _image(images[key], FRAME_WIDTH * 0.9),
        ]
    return story


def _vehicles(view: PlanView, images: dict[str, bytes]) -> list[Flowable]:
    vehicles = view.result.vehicles
    if vehicles is None:
        return []
    story: list[Flowable] = [CondPageBreak(60 * mm), P("Vehicles and axle loads", "Heading2")]
    if not vehicles:
        story.append(P("No vehicle carries pallets in this plan.", "Note"))
    for v in vehicles:
        story += _vehicle(view, v, images)
    return story


def _vehicle(view: PlanView, v: VehicleAllocation, images: dict[str, bytes]) -> list[Flowable]:
    key = f"vehicle-{v.vehicleIndex}"
    story: list[Flowable] = [
        # with its figure a vehicle starts a page: heading, figure and tables together
        CondPageBreak(FRAME_HEIGHT if key in images else 70 * mm),
        P(f"Vehicle #{v.vehicleIndex}: {v.vehicleTitle} ({v.vehicleSlug})", "Heading3"),
        P(
            f"{len(v.pallets)} pallets, cargo {kg(v.cargoWeightKg)} (pallets with their load).",
            "Note",
        ),
    ]
    over = []
    axle_rows = []
    for a in v.axleLoads:
        use = a.loadKg / a.maxKg if a.maxKg else None
        if use is not None and use > 1:
            over.append(a.name)
        axle_rows.append(
            [
                P(a.name),
                P(kg(a.loadKg)),
                P(kg(a.maxKg)),
                P(pct(use), "CellBold" if use is not None and use > 0.9 else "Cell"),
            ]
        )
    story.append(_table(["Axle", "Load", "Limit", "Use"], axle_rows, [40, 28, 28, 20]))
    if over:
        story.append(P("Over the limit: " + ", ".join(over), "Warn"))
    story += _stop_axles(v)
    pallet_rows = []
    for vp in v.pallets:
        try:
            pallet = view.container(vp.containerIndex)
        except IndexError:
            continue
        pallet_rows.append(
            [
                P(f"#{vp.containerIndex}"),
                P(pallet.containerTitle),
                P(mm3(vp.positionMm)),
                P(rotation_text(vp.rotation)),
                P(len(view.pieces(vp.containerIndex))),
                P(kg(pallet.totalWeightKg)),
            ]
        )
    story += [
        Spacer(1, 2 * mm),
        _table(
            ["Pallet", "Template", "Position X, Y, Z, mm", "Rotation", "Pieces", "Gross"],
            pallet_rows,
            [16, 60, 40, 44, 16, 26],
        ),
    ]
    if key in images:
        story.insert(3, _image(images[key], FRAME_WIDTH * 0.92, 105 * mm))
        story.insert(4, Spacer(1, 2 * mm))
    return story


def _stop_axles(v: VehicleAllocation) -> list[Flowable]:
    """A multi-drop vehicle's axle loads after each stop but the last: per stop and support
    its load, minimum, limit and margin (distance to the nearer bound)."""
    if not v.axleLoadsByStop:
        return []
    rows = []
    for state in figures.axle_states(v)[1:]:
        for a in state.loads:
            margin = figures.axle_margin(a)
            rows.append(
                [
                    P(state.stop),
                    P(state.unload_priority),
                    P(a.name),
                    P(kg(a.loadKg)),
                    P(kg(a.minKg)),
                    P(kg(a.maxKg)),
                    P(kg(margin), "CellBold" if margin < 0 else "Cell"),
                ]
            )
    return [
        Spacer(1, 2 * mm),
        P(
            "Axle loads after each stop (the pallets of the stop's unload priority are off; "
            "after the last stop the vehicle is empty). Margin: distance to the nearer bound.",
            "Note",
        ),
        _table(
            ["Stop", "Unload priority", "Axle", "Load", "Minimum", "Limit", "Margin"],
            rows,
            [14, 26, 40, 28, 28, 28, 28],
        ),
    ]


def _unplaced(view: PlanView) -> list[Flowable]:
    items = view.result.unplacedItems
    if not items:
        return []
    return [
        CondPageBreak(40 * mm),
        P("Not placed", "Heading2"),
        _table(
            ["Cargo", "Id", "Piece", "Reason"],
            [
                [P(view.name(u.cargoItemId)), P(u.cargoItemId), P(u.instanceIndex + 1), P(u.reason)]
                for u in items
            ],
            [60, 25, 14, 174],
        ),
    ]


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class _Wanted:
    key: str
    build: Any
    width: int
    height: int


#: Containers of one report drawn at most: a large plan gets the first containers' figures
#: and a note says how many are left out; the tables list every piece. A container's view
#: and loading sequence took Chromium about 1.1 s together (on two shared, busy cores), on
#: top of its start of about 3.5 s: 8 containers keep a report near 12 s at worst.
MAX_CONTAINER_FIGURES = 8
#: Pieces drawn at most in one report's container figures: drawing costs about 5 ms of CPU
#: a piece (its faces, labels and the load-step panels), so a plan of thousands of pieces
#: gets the figures of its first containers up to this many pieces (a container larger than
#: this alone is not drawn), and the note says how many are left out.
MAX_FIGURE_PIECES = 1_500


def _figures(view: PlanView) -> tuple[list[_Wanted], int]:
    """The figures of the full report, and how many containers go without theirs.

    Containers are drawn as 2D isometric projections (:func:`figures.container_iso_figure`),
    not as the WebGL scenes of the share page: Chromium draws WebGL in software, some
    4.5 CPU-seconds per image, where a 2D figure costs a fraction of a second.
    """
    flat: list[_Wanted] = []
    for m in figures.thermal_modes(view):
        code = m.temperatureMode.value
        flat.append(_Wanted(code, partial(figures.thermal_figure, view, code), 1200, 560))
    for v in view.result.vehicles or []:
        build = partial(figures.vehicle_figure, view, v.vehicleIndex)
        flat.append(_Wanted(f"vehicle-{v.vehicleIndex}", build, 1200, 600))
    drawn = pieces = 0
    left_out = 0
    for c in view.result.containers:
        i = c.containerIndex
        n = len(view.pieces(i))
        if n == 0:
            continue
        if drawn == MAX_CONTAINER_FIGURES or pieces + n > MAX_FIGURE_PIECES:
            left_out += 1
            continue
        drawn += 1
        pieces += n
        build = partial(figures.container_iso_figure, view, i, title=False)
        flat.append(_Wanted(f"container-{i}", build, 1200, 660))
        if n > 1:
            panels = 3 if n <= 12 else 6
            build = partial(figures.load_steps_iso_figure, view, i, panels=panels, title=False)
            flat.append(_Wanted(f"steps-{i}", build, 1200, 460 if panels == 3 else 820))
    return flat, left_out


def _rgb_png(png: bytes) -> bytes:
    """The image without its alpha channel, on white (a smaller PDF, the same picture)."""
    from PIL import Image as PILImage

    with PILImage.open(io.BytesIO(png)) as image:
        if image.mode not in ("RGBA", "LA", "P"):
            return png
        flat = PILImage.new("RGB", image.size, "white")
        rgba = image.convert("RGBA")
        flat.paste(rgba, mask=rgba.getchannel("A"))
        out = io.BytesIO()
        # only a step on the way: reportlab decodes it and compresses the pixels anew, so
        # the fastest compression gives the same PDF
        flat.save(out, format="PNG", optimize=False, compress_level=1)
        return out.getvalue()


def _render(view: PlanView) -> tuple[dict[str, bytes], str | None]:
    """The full report's images by key, and a note for the reader when some are missing."""
    wanted, left_out = _figures(view)
    try:
        pngs = figures.to_png(((w.build(), w.width, w.height) for w in wanted), scale=1.6)
    except figures.NoBrowserError as exc:  # a known cause needs no traceback
        log.warning("the report's figures were not drawn: %s", exc)
        return (
            {},
            "The figures could not be drawn: no browser to draw them was found; the tables "
            "are complete.",
        )
    except Exception as exc:  # the tables still make a report
        log.exception("rendering the report's figures failed")
        return (
            {},
            f"The figures could not be drawn ({type(exc).__name__}); the tables are complete.",
        )
    note = (
        f"The figures of {left_out} container{'s' if left_out != 1 else ''} of this large "
        f"plan are left out (at most {MAX_CONTAINER_FIGURES} containers and "
        f"{MAX_FIGURE_PIECES:,} pieces are drawn per report); the tables are complete."
        if left_out
        else None
    )
    return {w.key: _rgb_png(png) for w, png in zip(wanted, pngs, strict=True)}, note


# --------------------------------------------------------------------------- the report


def render_pdf(record: PackingPlanRecord, *, mode: ReportMode = "summary") -> bytes:
    """The PDF report of ``record``.

    Parameters
    ----------
    record : PackingPlanRecord
        The stored plan.
    mode : {"summary", "full"}
        ``full`` adds the figures: each container drawn in isometric projection and its
        loading sequence, each vehicle, each thermal check (rendered by kaleido, which
        needs Chromium).

    Returns
    -------
    bytes
        A PDF document with its font embedded.
    """
    styles()
    view = figures.plan_view(record)
    images: dict[str, bytes] = {}
    note: str | None = None
    if mode == "full":
        images, note = _render(view)
    buffer = io.BytesIO()
    title = record.input.planTitle or f"Packing plan {record.planId}"
    doc = SimpleDocTemplate(
        buffer,
        pagesize=landscape(A4),
        leftMargin=12 * mm,
        rightMargin=12 * mm,
        topMargin=12 * mm,
        bottomMargin=14 * mm,
        title=title,
        author="packplan",
        subject=f"Packing plan {record.planId}",
        initialFontName=FONT,
    )
    story: list[Flowable] = _header(view, record)
    if note:
        story.append(P(note, "Warn"))
    missing = undrawable(record)
    if missing:
        shown = ", ".join(f"U+{ord(c):04X}" for c in missing[:12])
        more = f" and {len(missing) - 12} more" if len(missing) > 12 else ""
        story.append(
            P(
                "Some characters of this plan's text have no glyph in the report's fonts and "
                f"print as empty boxes: {shown}{more} (the stored plan keeps them).",
                "Warn",
            )
        )
    story += _modes(view)
    story += _cargo(view)
    story += _thermal(view, images)
    story += _vehicles(view, images)
    for c in view.result.containers:
        story += _container(view, c, images)
    story += _unplaced(view)
    by_type = view.result.summary.byContainerType
    if by_type:
        story += [
            CondPageBreak(30 * mm),
            P("Containers by type", "Heading2"),
            _table(
                ["Container type", "Count"],
                [[P(slug), P(n)] for slug, n in sorted(by_type.items())],
                [60, 20],
            ),
        ]
    footer = f"{record.planId} · {utc(record.createdAt)}"

    def on_page(canvas: Any, document: Any) -> None:
        canvas.saveState()
        canvas.setFont(FONT, 7)
        canvas.setFillColor(colors.HexColor("#616161"))
        canvas.drawString(12 * mm, 7 * mm, footer)
        canvas.drawRightString(landscape(A4)[0] - 12 * mm, 7 * mm, f"page {document.page}")
        canvas.restoreState()

    doc.build(story, onFirstPage=on_page, onLaterPages=on_page)
    return buffer.getvalue()


__all__ = ["ReportMode", "render_pdf"]
