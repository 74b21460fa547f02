"""The PDF report: a real PDF, its font embedded, whose pages carry the plan's tables (and
the rendered figures in full mode), read back as a reader's copy and search would."""

from __future__ import annotations

import datetime as dt
import io
import shutil
import subprocess
from collections.abc import Iterable
from typing import Any

import pytest
from pypdf import PdfReader

from adapters.planning.schemas import (
    LoadingSide,
    PackingPlanInput,
    PackingPlanRecord,
    UnplacedItem,
)
from adapters.report import figures, pdf, render_pdf
from tests.adapters.helpers import cargo, plan_body, sample_result
from tests.adapters.report.plans import pallet_load, pdf_text, thermo, three_drops


def _record(**result_changes: object) -> PackingPlanRecord:
    result = sample_result().model_copy(update=result_changes)
    return PackingPlanRecord(
        planId="pln_test",
        externalRef="ord-7",
        source="API",
        createdAt=dt.datetime(2025, 3, 1, 8, 0, 5, 250000, tzinfo=dt.UTC),
        input=PackingPlanInput.model_validate(plan_body()),
        result=result,
    )


def _n(value: float, digits: int = 1) -> str:
    """A number as the report prints it, as text extraction gives it back (the thin space
    between thousands comes back as a space)."""
    return figures.num(value, digits).replace("\u2009", " ")


def _fonts(data: bytes) -> set[str]:
    """Base names of the fonts the pages use (subset prefixes dropped)."""
    reader = PdfReader(io.BytesIO(data))
    return {
        str(font.get_object()["/BaseFont"]).lstrip("/").split("+")[-1]
        for page in reader.pages
        for font in page["/Resources"]["/Font"].values()
    }


def _images(data: bytes) -> int:
    """Image XObjects drawn on the pages."""
    reader = PdfReader(io.BytesIO(data))
    return sum(len(page.images) for page in reader.pages)


def _pages(data: bytes) -> int:
    return len(PdfReader(io.BytesIO(data)).pages)


@pytest.fixture
def fake_png(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, int, int]]:
    """Figures rendered as blank PNGs of the asked size, without a browser: for tests of the
    layout. The figures asked for are recorded."""
    from PIL import Image

    asked: list[tuple[Any, int, int]] = []

    def to_png(figs: Iterable[tuple[Any, int, int]], *, scale: float = 1.0) -> list[bytes]:
        figs = list(figs)  # the report hands a generator
        asked.extend(figs)
        out = []
        for _, width, height in figs:
            buffer = io.BytesIO()
            Image.new("RGB", (width // 4, height // 4), "#cccccc").save(buffer, format="PNG")
            out.append(buffer.getvalue())
        return out

    monkeypatch.setattr(figures, "to_png", to_png)
    return asked


def test_summary_pdf_has_the_plan_tables() -> None:
    data = render_pdf(_record(), mode="summary")
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    text = pdf_text(data)
    for expected in ("Vaccines", "pln_test", "Box 10 L", "box-10l", "PLUS_2_8", "Box a", "ord-7"):
        assert expected in text, expected
    assert _images(data) == 0


def test_the_font_is_embedded_and_cyrillic_greek_and_signs_are_real_text() -> None:
    body = plan_body(
        planTitle="Москва → Казань: α, β, γ at ≤ 8 °C, 3 × 4",
        originCity="Москва",
        destinationCity="Казань",
        cargos=[cargo("a", name="Инсулин (α-форма)")],
    )
    record = _record().model_copy(update={"input": PackingPlanInput.model_validate(body)})
    data = render_pdf(record)
    assert b"/FontFile2" in data  # the TrueType font program is in the file
    assert _fonts(data) == {"DejaVuSans", "DejaVuSans-Bold"}
    text = pdf_text(data)
    for expected in ("Москва", "Казань", "Инсулин (α-форма)", "α, β, γ", "°C", "→", "≤", "×"):
        assert expected in text, expected
    # what poppler extracts too, where it is installed (pdftotext)
    if shutil.which("pdftotext"):
        out = subprocess.run(
            ["pdftotext", "-enc", "UTF-8", "-", "-"], input=data, capture_output=True, check=True
        ).stdout.decode()
        assert "Москва → Казань" in out and "Инсулин (α-форма)" in out


def test_arabic_and_hebrew_print_joined_and_right_to_left() -> None:
    arabic, hebrew = "شحنة لقاحات", "משלוח תרופות"
    long_name = "لقاحات الإنفلونزا الموسمية للأطفال والبالغين في المستشفيات الكبرى"
    body = plan_body(
        planTitle=f"{arabic} 12",
        cargos=[cargo("a", name=hebrew), cargo("b", name=long_name)],
    )
    record = _record().model_copy(update={"input": PackingPlanInput.model_validate(body)})
    data = render_pdf(record)
    assert _fonts(data) == {"DejaVuSans", "DejaVuSans-Bold"}
    # drawn left to right: the first word on the right, the number after it on the left
    joined = "\ufeb7\ufea4\ufee8\ufe94 \ufedf\ufed8\ufe8e\ufea3\ufe8e\ufe95"  # ﺷﺤﻨﺔ ﻟﻘﺎﺣﺎﺕ
    assert pdf.visual(f"{arabic} 12") == "12 " + joined[::-1]
    assert pdf.visual(hebrew) == hebrew[::-1] and pdf.visual("Box 7") == "Box 7"
    # a reader (pypdf) reads the drawn runs back in reading order: joined letters, no others
    text = pdf_text(data)
    assert joined in text and hebrew in text
    # a long name breaks into lines of the cell, its first words on the first line
    lines = pdf._lines(long_name, 30).split("\n")
    assert len(lines) > 1 and lines[0].endswith(pdf.visual("لقاحات"))
    assert "شحنة" not in text and "لقاحات" not in text  # no unjoined letters left


@pytest.mark.skipif(
    not any(f.is_file() for f in pdf.FALLBACK_FONT_FILES),
    reason="the CJK font (fonts-wqy-zenhei, scripts/system-deps.sh) is not installed",
)
def test_chinese_japanese_and_korean_text_is_real_text_in_the_fallback_font() -> None:
    title = "Заголовок 标题 テスト 한국어"
    body = plan_body(planTitle=title, cargos=[cargo("a", name="疫苗 <b>測試</b> 백신")])
    record = _record().model_copy(update={"input": PackingPlanInput.model_validate(body)})
    data = render_pdf(record)
    assert _fonts(data) == {"DejaVuSans", "DejaVuSans-Bold", f"{pdf.FALLBACK_FONT}-0"}
    text = pdf_text(data)
    for expected in ("Заголовок", "标题", "テスト", "한국어", "疫苗", "測試", "백신", "<b>"):
        assert expected in text, expected
    # every drawn character has a glyph in the font that draws it: no empty boxes
    reader = PdfReader(io.BytesIO(data))
    assert "\x00" not in "".join(page.extract_text() for page in reader.pages)


@pytest.mark.skipif(
    not any(f.is_file() for f in pdf.EMOJI_FONT_FILES),
    reason="the emoji font (fonts-symbola, scripts/system-deps.sh) is not installed",
)
def test_emoji_print_in_the_emoji_font_and_newer_ones_are_named() -> None:
    body = plan_body(planTitle="📦 Vaccines ❄ → 🚚", cargos=[cargo("a", name="💉 Insulin 🥶")])
    record = _record().model_copy(update={"input": PackingPlanInput.model_validate(body)})
    data = render_pdf(record)
    assert _fonts(data) == {"DejaVuSans", "DejaVuSans-Bold", pdf.EMOJI_FONT}
    text = pdf_text(data)
    for expected in ("📦 Vaccines ❄ → 🚚", "💉 Insulin"):
        assert expected in text, expected
    # 🥶 (Unicode 11) is in no font here: the warning names it, and only it
    assert "print as empty boxes: U+1F976 (the stored plan keeps them)" in text
    assert pdf.markup("a📦<b>") == f'a<font name="{pdf.EMOJI_FONT}">📦</font>&lt;b&gt;'
    # characters beyond U+FFFF are mapped back as UTF-16, which readers decode
    cmap = pdf._to_unicode_cmap(lambda name, subset: "<01> <1F4E6>\n<02> <0041>")
    assert cmap("F", [0x1F4E6, 0x41]) == "<01> <D83DDCE6>\n<02> <0041>"


def test_names_rules_rotations_dates_and_units() -> None:
    body = plan_body(
        cargos=[cargo("a", name="Vaccine cartons", rules={"fragile": True, "unloadPriority": 3})]
    )
    turned = [
        p.model_copy(update={"rotation": [0, 90, 0]}) if p.instanceIndex == 1 else p
        for p in sample_result().placements
    ]
    record = _record(placements=turned).model_copy(
        update={"input": PackingPlanInput.model_validate(body)}
    )
    text = pdf_text(render_pdf(record))
    for expected in (
        "Vaccine cartons",
        "FRAGILE",
        "turned 90° about Y",
        "not turned",
        "2025-03-01 08:00:05 UTC",
        "100 × 60 × 80 mm",
        "300 × 200 × 200 mm",
        "0.5 kg",
    ):
        assert expected in text, expected
    assert "08:00:05.25" not in text and "+00:00" not in text
    assert " cm" not in text  # one unit of length: mm
    # cell by cell: the fragile mark, then the unload priority of the item
    assert "FRAGILE\n3\n" in text


def test_thermal_check_in_detail() -> None:
    record = thermo()
    text = pdf_text(render_pdf(record))
    mode = record.result.modes[0]
    segments = mode.thermalFilter.routeSegmentsUsed or []
    assert "Thermal check: PLUS_2_8 (set point +5 °C)" in text
    container = record.result.containers[0]
    capacity = container.thermalProfileUsed.thermalCapacityDegreeHours
    assert f"{_n(capacity, 0)} °C·h" in text
    assert f"{_n(container.thermalProfileUsed.holdHoursAtRefAmbient)} h at +30 °C" in text
    assert "Reserve" in text and "Route segments" in text
    for s in segments:
        assert s.label is not None and s.label in text.replace("\n", " ")
        assert f"{s.ambientC:+.1f} °C" in text
    assert "Вакцина ГамКовидВак" in text and "Инсулин (α-форма)" in text
    assert "ЗАК-17" in text


def test_vehicles_and_axle_loads_of_a_pallet_load_plan() -> None:
    record = pallet_load()
    text = pdf_text(render_pdf(record))
    assert "Vehicles and axle loads" in text
    for v in record.result.vehicles or []:
        assert v.vehicleTitle in text
        for a in v.axleLoads:
            assert a.name in text
            assert f"{_n(a.loadKg, 2)} kg" in text
            assert f"{_n(a.maxKg, 2)} kg" in text
    assert "Таблетки" in text and "FRAGILE" in text


def test_axle_loads_after_each_stop_of_a_three_drop_plan() -> None:
    record = three_drops()
    [v] = record.result.vehicles or []
    stops = v.axleLoadsByStop or []
    assert [s.unloadPriority for s in stops] == [3, 2]
    text = pdf_text(render_pdf(record))
    assert "Axle loads after each stop" in text
    table = text[text.index("Axle loads after each stop") :]
    lines = [line.strip() for line in table.splitlines()]
    for s in stops:
        for a in s.axleLoads:
            margin = min(a.maxKg - a.loadKg, a.loadKg - (a.minKg or 0.0))
            minimum = "—" if a.minKg is None else f"{_n(a.minKg, 2)} kg"
            row = [
                str(s.stop),
                str(s.unloadPriority),
                a.name,
                f"{_n(a.loadKg, 2)} kg",
                minimum,
                f"{_n(a.maxKg, 2)} kg",
                f"{_n(margin, 2)} kg",
            ]
            # the row's cells, in order, as consecutive lines of the extracted text
            assert any(lines[i : i + len(row)] == row for i in range(len(lines))), row
    # a one-drop plan has no such table
    assert "Axle loads after each stop" not in pdf_text(render_pdf(pallet_load()))


def test_full_mode_places_rendered_figures() -> None:
    # (with the next, the tests here that run Chromium): each figure is a real kaleido image
    record = thermo()
    data = render_pdf(record, mode="full")
    # the container's isometric view, its loading sequence and the thermal chart
    assert _images(data) == 3
    assert render_pdf(record, mode="summary").count(b"/Subtype /Image") == 0
    text = pdf_text(data)
    assert "Loading sequence of container #0" in text
    assert "could not be drawn" not in text


def test_full_mode_draws_the_figures_of_names_holding_noncharacters() -> None:
    # U+FFFE and U+FFFF are text a caller may send, but no XML character: plotly's image
    # export (an SVG) failed on them, and every figure of the report was left out
    record = thermo()
    cargos = [c.model_copy(update={"name": f"{c.name} \ufffe\uffff"}) for c in record.input.cargos]
    odd = record.model_copy(update={"input": record.input.model_copy(update={"cargos": cargos})})
    data = render_pdf(odd, mode="full")
    assert "could not be drawn" not in pdf_text(data)
    assert _images(data) == 3


def test_full_mode_of_a_pallet_load_plan_draws_vehicles(fake_png: list[Any]) -> None:
    record = pallet_load()
    data = render_pdf(record, mode="full")
    titles = [fig.layout.title.text or "" for fig, _, _ in fake_png]
    assert sum(t.startswith("Vehicle #") for t in titles) == len(record.result.vehicles or [])
    assert _images(data) == len(fake_png)


@pytest.mark.parametrize(
    "inner", [[300.0, 2000.0, 300.0], [1200.0, 1656.0, 800.0], [13600.0, 2700.0, 2480.0]]
)
def test_full_mode_fits_any_container_shape(inner: list[float], fake_png: list[Any]) -> None:
    # tall and deep containers used to overflow the page frame (a 500 from render-pdf)
    result = sample_result()
    shaped = result.containers[0].model_copy(
        update={"innerUsableMm": inner, "loadingSide": LoadingSide.FRONT}
    )
    data = render_pdf(_record(containers=[shaped]), mode="full")
    assert data.startswith(b"%PDF-") and _images(data) == 2


def test_full_mode_without_a_browser_still_gives_the_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> list[bytes]:
        raise RuntimeError("no Chromium")

    monkeypatch.setattr(figures, "to_png", broken)
    text = pdf_text(render_pdf(_record(), mode="full"))
    assert "could not be drawn" in text and "Box 10 L" in text


def test_full_mode_on_a_server_without_chromium_says_so_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import kaleido
    from kaleido.errors import ChromeNotFoundError

    def missing(*args: object, **kwargs: object) -> None:
        raise ChromeNotFoundError("Kaleido v1 and later requires Chrome to be installed.")

    monkeypatch.setattr(kaleido, "Kaleido", missing)
    browser = figures._Browser()
    with pytest.raises(figures.NoBrowserError, match=r"Chromium was not found.*requires Chrome"):
        browser.start()
    monkeypatch.setattr(figures, "_BROWSER", browser)
    try:
        with caplog.at_level("WARNING", logger=pdf.log.name):
            text = pdf_text(render_pdf(_record(), mode="full"))
    finally:
        loop = browser._loop
        if loop is not None:  # the browser's event-loop thread
            loop.call_soon_threadsafe(loop.stop)
    assert "no browser to draw them was found" in text and "Box 10 L" in text
    [entry] = [r for r in caplog.records if r.name == pdf.log.name]
    assert "Chromium was not found" in entry.getMessage() and entry.exc_info is None


def test_a_large_plan_draws_at_most_the_budget_of_containers(fake_png: list[Any]) -> None:
    base = sample_result()
    count = pdf.MAX_CONTAINER_FIGURES + 2
    containers = [base.containers[0].model_copy(update={"containerIndex": i}) for i in range(count)]
    placements = [
        p.model_copy(update={"containerIndex": i}) for i in range(count) for p in base.placements
    ]
    text = pdf_text(render_pdf(_record(containers=containers, placements=placements), mode="full"))
    # a view and a loading sequence for each container drawn, the first ones
    assert len(fake_png) == 2 * pdf.MAX_CONTAINER_FIGURES
    assert "The figures of 2 containers of this large plan are left out" in text.replace("\n", " ")
    assert "Box 10 L" in text


def test_full_mode_draws_containers_in_2d_without_webgl(fake_png: list[Any]) -> None:
    record = thermo()
    render_pdf(record, mode="full")
    kinds = {type(trace).__name__ for fig, _, _ in fake_png for trace in fig.data}
    assert kinds and not kinds & {"Mesh3d", "Scatter3d", "Surface", "Cone"}
    assert not any("scene" in fig.to_dict()["layout"] for fig, _, _ in fake_png)


def test_unplaced_pieces_are_listed_with_their_reason() -> None:
    reason = "heavier than the 12 kg payload of every eligible container"
    record = _record(
        feasible=False,
        unplacedItems=[UnplacedItem(cargoItemId="a", instanceIndex=3, reason=reason)],
    )
    text = pdf_text(render_pdf(record))
    assert "Not placed" in text
    assert "heavier than the 12 kg payload" in text.replace("\n", " ")


def test_many_placements_flow_over_pages() -> None:
    base = sample_result().placements[0]
    placements = [
        base.model_copy(update={"instanceIndex": i, "loadStep": i + 1}) for i in range(400)
    ]
    data = render_pdf(_record(placements=placements))
    assert _pages(data) > 3


@pytest.mark.parametrize(
    "text",
    [
        '<img src="/etc/hostname"/>',
        '<a href="http://example.invalid">pay here</a>',
        "<b>unclosed",
        "</para>",
        "<!--<script>alert(1)</script>",
        "&amp; &lt; & <",
    ],
)
def test_caller_text_is_printed_as_text_never_read_as_markup(text: str) -> None:
    body = plan_body(cargos=[cargo("a", name=text)])
    body.update(planTitle=text, originCity=text, orderRef="o")
    record = _record(
        unplacedItems=[UnplacedItem(cargoItemId="v", instanceIndex=0, reason=text)]
    ).model_copy(update={"input": PackingPlanInput.model_validate(body)})
    data = render_pdf(record, mode="summary")
    assert data.startswith(b"%PDF-")
    assert b"/Link" not in data and b"/URI" not in data and b"/Subtype /Image" not in data
    # the markup's own characters are drawn as they came, word by word
    drawn = pdf_text(data)
    for word in text.split():
        assert word in drawn, word
    # and only the embedded font draws anything
    assert _fonts(data) == {"DejaVuSans", "DejaVuSans-Bold"}


@pytest.mark.parametrize(
    "text",
    ["short", "Вакцина " * 12, "x" * 150, "a " + "y" * 90 + " b", "疫苗 " * 5 + "z" * 40, ""],
)
def test_a_cell_line_fits_its_column_and_keeps_every_character(text: str) -> None:
    """The pieces table sets caller text as plain lines (fast for thousands of rows): each
    line fits the column, and the lines give back the text (spaces at breaks aside)."""
    from reportlab.lib.units import mm
    from reportlab.pdfbase import pdfmetrics

    pdf.register_fonts()
    lines = pdf._lines(text, 22).split("\n")
    room = 22 * mm - 6
    assert all(pdfmetrics.stringWidth(line, pdf.FONT, pdf.CELL_SIZE) <= room for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_a_plan_of_many_pieces_draws_at_most_the_budget_of_pieces(
    fake_png: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drawing costs per piece: containers are drawn while their pieces fit the budget."""
    base = sample_result()
    per = len(base.placements)
    monkeypatch.setattr(pdf, "MAX_FIGURE_PIECES", 2 * per + 1)
    containers = [base.containers[0].model_copy(update={"containerIndex": i}) for i in range(4)]
    placements = [
        p.model_copy(update={"containerIndex": i}) for i in range(4) for p in base.placements
    ]
    text = pdf_text(render_pdf(_record(containers=containers, placements=placements), mode="full"))
    assert len(fake_png) == 2 * 2  # a view and a loading sequence of the first two
    assert "The figures of 2 containers of this large plan are left out" in text.replace("\n", " ")
    assert f"{2 * per + 1:,} pieces are drawn per report" in text.replace("\n", " ")


def test_characters_no_font_draws_are_named_in_a_note() -> None:
    # emoji newer than Unicode 10, which no font here has
    body = plan_body(planTitle="Cold chain 🧊", cargos=[cargo("a", name="Box 🥶 and 🧊")])
    record = _record().model_copy(update={"input": PackingPlanInput.model_validate(body)})
    text = pdf_text(render_pdf(record)).replace("\n", " ")
    assert "no glyph in the report's fonts" in text
    assert "U+1F9CA, U+1F976" in text  # in order of first appearance, each once
    # a plan whose text every font draws gets no such note
    assert "no glyph" not in pdf_text(render_pdf(_record()))
