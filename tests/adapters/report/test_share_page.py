"""The share page: its figures, and caller text that can neither end its script elements
nor start new ones (the page is parsed as a browser's tokenizer would)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

import pytest

from adapters.api.share_page import json_for_html, share_page
from adapters.planning.schemas import PackingPlanInput, PackingPlanRecord, UnplacedItem
from tests.adapters.helpers import cargo, plan_body, sample_result
from tests.adapters.report.plans import CREATED, pallet_load, thermo


class _Page(HTMLParser):
    """Script elements (attributes and raw content) and the visible text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self.tags: list[str] = []
        self._in_script: dict[str, str | None] | None = None
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "script":
            self._in_script = dict(attrs)
            self._buffer = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._in_script, "".join(self._buffer)))
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            self._buffer.append(data)
        else:
            self.text.append(data)

    def handle_comment(self, data: str) -> None:
        raise AssertionError(f"a comment opened in the page: {data[:60]!r}")


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def _payload(parsed: _Page) -> dict[str, Any]:
    data = [body for attrs, body in parsed.scripts if attrs.get("id") == "plan-data"]
    assert len(data) == 1
    payload: dict[str, Any] = json.loads(data[0])
    return payload


def _record(text: str) -> PackingPlanRecord:
    body = plan_body(
        planTitle=text,
        originCity=text,
        destinationCity="Казань " + text,
        cargos=[cargo("a", name=text)],
    )
    return PackingPlanRecord(
        planId="pln_share",
        externalRef=None,
        source="API",
        createdAt=CREATED,
        input=PackingPlanInput.model_validate(body),
        result=sample_result().model_copy(
            update={"unplacedItems": [UnplacedItem(cargoItemId="a", instanceIndex=2, reason=text)]}
        ),
    )


@pytest.mark.parametrize(
    "text",
    [
        "</script><script>alert(1)</script>",
        "<!--<script>",
        "</SCRIPT ><img src=x onerror=alert(1)>",
        "a\u2028b\u2029c & <b>d</b> \"'",
    ],
)
def test_caller_text_cannot_break_out_of_the_page(text: str) -> None:
    record = _record(text)
    page = share_page(record)
    parsed = _parse(page)
    # exactly the page's own scripts: plotly.js, the data, the code that draws
    assert [a.get("src") or a.get("id") or a.get("type") for a, _ in parsed.scripts] == [
        "/share/assets/plotly.min.js",
        "plan-data",
        None,
    ]
    assert "img" not in parsed.tags and "b" not in parsed.tags
    payload = _payload(parsed)
    # the payload round-trips: the record exactly as stored
    assert payload["plan"] == record.model_dump(mode="json")
    assert payload["plan"]["input"]["planTitle"] == text
    raw = next(body for attrs, body in parsed.scripts if attrs.get("id") == "plan-data")
    for char in ("<", ">", "&", "\u2028", "\u2029"):
        assert char not in raw
    # the text is shown as it came
    visible = "".join(parsed.text)
    assert visible.count(text) >= 3  # title, cargo name, unplaced reason


def test_json_for_html_keeps_the_value() -> None:
    value = {"a": "</script><!--<script>&\u2028\u2029", "b": [1, 2.5, None, True]}
    text = json_for_html(value)
    assert json.loads(text) == value
    assert not set("<>&\u2028\u2029") & set(text)


def test_the_page_embeds_the_figures() -> None:
    page = share_page(thermo())
    parsed = _parse(page)
    payload = _payload(parsed)
    ids = [f["id"] for f in payload["figures"]]
    assert ids == ["thermal-0", "view-0", "steps-0"]
    view = payload["figures"][1]["figure"]
    kinds = [t.get("meta", {}).get("kind") for t in view["data"]]
    assert {"piece", "edges", "steps", "door", "outline"} <= set(kinds)
    names = {t["name"] for t in view["data"] if t.get("meta", {}).get("kind") == "piece"}
    assert names == {"Вакцина ГамКовидВак", "Инсулин (α-форма)"}
    assert view["layout"]["scene"]["camera"]["up"] == {"x": 0, "y": 1, "z": 0}
    assert "template" not in view["layout"] and payload["template"]["layout"]
    # each figure has its element; no other host is asked for anything
    for fig_id in ids:
        assert f'id="{fig_id}"' in page
    assert "cdn" not in page.lower()
    text = "".join(parsed.text)
    for expected in ("Thermal check PLUS_2_8", "FRAGILE", "turned 90° about Y", "Москва"):
        assert expected in text, expected


def test_a_pallet_load_page_has_its_vehicles() -> None:
    record = pallet_load()
    payload = _payload(_parse(share_page(record)))
    ids = [f["id"] for f in payload["figures"]]
    for v in record.result.vehicles or []:
        assert f"vehicle-{v.vehicleIndex}" in ids
    assert sum(i.startswith("view-") for i in ids) == len(record.result.containers)
