"""The PDF report: a real PDF whose pages carry the plan's tables (and diagrams in full mode)."""

from __future__ import annotations

import base64
import datetime as dt
import re
import zlib

import pytest

from adapters.planning.schemas import PackingPlanInput, PackingPlanRecord, UnplacedItem
from adapters.report import render_pdf
from adapters.report.pdf import isometric_drawing
from tests.adapters.helpers import plan_body, sample_result


def _record(**result_changes: object) -> PackingPlanRecord:
    result = sample_result().model_copy(update=result_changes)
    return PackingPlanRecord(
        planId="pln_test",
        externalRef="ord-7",
        source="API",
        createdAt=dt.datetime(2025, 3, 1, 8, 0, tzinfo=dt.UTC),
        input=PackingPlanInput.model_validate(plan_body()),
        result=result,
    )


def _text(pdf: bytes) -> str:
    """Every content stream of the PDF, inflated where compressed."""
    out = []
    for match in re.finditer(rb"<<([^<>]*)>>\s*stream\r?\n(.*?)endstream", pdf, re.S):
        filters, data = match.group(1), match.group(2).strip()
        if b"ASCII85Decode" in filters:
            data = base64.a85decode(data.removesuffix(b"~>"), adobe=False)
        if b"FlateDecode" in filters:
            data = zlib.decompress(data)
        out.append(data.decode("latin-1"))
    return "\n".join(out)


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


@pytest.mark.parametrize("mode", ["summary", "full"])
def test_pdf_has_the_plan_tables(mode: str) -> None:
    pdf = render_pdf(_record(), mode=mode)  # type: ignore[arg-type]
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    text = _text(pdf)
    for expected in ("Vaccines", "pln_test", "Box 10 L", "box-10l", "PLUS_2_8", "Placements"):
        assert expected in text, expected


def test_full_mode_adds_3d_diagrams() -> None:
    summary = _text(render_pdf(_record(), mode="summary"))
    full = _text(render_pdf(_record(), mode="full"))
    assert "3D diagrams" in full and "3D diagrams" not in summary
    # each piece is drawn as three filled and stroked faces
    assert full.count("B*") - summary.count("B*") == 3 * len(sample_result().placements)


def test_unplaced_pieces_are_listed_with_their_reason() -> None:
    reason = "heavier than the 12 kg payload of every eligible container"
    record = _record(
        feasible=False,
        unplacedItems=[UnplacedItem(cargoItemId="a", instanceIndex=3, reason=reason)],
    )
    assert "Not placed" in _text(render_pdf(record))
    assert "heavier than the 12 kg payload" in _text(render_pdf(record))


def test_many_placements_flow_over_pages() -> None:
    base = sample_result().placements[0]
    placements = [
        base.model_copy(update={"instanceIndex": i, "loadStep": i + 1}) for i in range(400)
    ]
    pdf = render_pdf(_record(placements=placements))
    assert _pages(pdf) > 3


def test_isometric_drawing_scales_to_the_width() -> None:
    result = sample_result()
    drawing = isometric_drawing(result.containers[0], result.placements, width=300)
    assert drawing.width == 300
    # frame edges + 3 faces per piece + the caption
    assert len(drawing.contents) == 7 + 3 * len(result.placements) + 1


@pytest.mark.parametrize(
    "inner", [[300.0, 2000.0, 300.0], [1200.0, 1656.0, 800.0], [13600.0, 2700.0, 2480.0]]
)
def test_full_mode_fits_any_container_shape(inner: list[float]) -> None:
    # tall and deep containers used to overflow the page frame (a 500 from render-pdf)
    result = sample_result()
    tall = result.containers[0].model_copy(update={"innerUsableMm": inner})
    drawing = isometric_drawing(tall, result.placements)
    assert drawing.height <= 150 * 72 / 25.4 + 1e-6
    pdf = render_pdf(_record(containers=[tall, *result.containers[1:]]), mode="full")
    assert pdf.startswith(b"%PDF-")


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
    body = plan_body()
    body.update(planTitle=text, originCity=text, orderRef="o")
    record = _record(
        unplacedItems=[UnplacedItem(cargoItemId="v", instanceIndex=0, reason=text)]
    ).model_copy(update={"input": PackingPlanInput.model_validate(body)})
    pdf = render_pdf(record, mode="summary")
    assert pdf.startswith(b"%PDF-")
    assert b"/Link" not in pdf and b"/URI" not in pdf and b"/Subtype /Image" not in pdf
    # the markup's own characters are drawn as they came, word by word
    drawn = "".join(re.findall(r"\(((?:[^()\\]|\\.)*)\) Tj", _text(pdf)))
    drawn = re.sub(r"\\(.)", r"\1", drawn)
    for word in text.split():
        assert word in drawn, word
