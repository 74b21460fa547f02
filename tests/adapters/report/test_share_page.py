"""The share page: its figures, and caller text that can neither end its script elements
nor start new ones (the page is parsed as a browser's tokenizer would)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin

import pytest

from adapters.api.share_page import PageCache, json_for_html, share_page
from adapters.planning.schemas import PackingPlanInput, PackingPlanRecord, UnplacedItem
from adapters.report import figures
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
    "base", ["http://127.0.0.1:8000", "https://plans.example.org/packplan", "https://x.example/a/b"]
)
def test_the_3d_library_is_found_under_the_base_of_the_share_link(base: str) -> None:
    # a share link is PACKPLAN_PUBLIC_URL + /share/<token>, and that base may have a path (a
    # service behind a proxy under a prefix): the script is found beside the page
    parsed = _parse(share_page(_record("x")))
    src = parsed.scripts[0][0].get("src") or ""
    assert urljoin(f"{base}/share/tok3n", src) == f"{base}/share/assets/plotly.min.js"


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
        "assets/plotly.min.js",
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


def _rebuild(trace: dict[str, Any], geometry: dict[str, Any]) -> dict[str, list[Any]]:
    """What the page's script makes of a trace sent as boxes (``expand`` in the page), in
    Python: corners ``x + dx × bit``, 12 triangles per box, or the edge path with pen lifts."""
    boxes = trace["boxes"]
    bits = [(c & 1, (c >> 1) & 1, (c >> 2) & 1) for c in range(8)]
    out: dict[str, list[Any]] = {a: [] for a in ("x", "y", "z", "i", "j", "k")}
    for n in range(len(boxes) // 6):
        b = boxes[6 * n : 6 * n + 6]
        corners = [[b[a] + b[a + 3] * bit[a] for a in range(3)] for bit in bits]
        if trace["type"] == "mesh3d":
            for c in corners:
                for a, axis in enumerate("xyz"):
                    out[axis].append(c[a])
            for tri in geometry["triangles"]:
                for a, axis in enumerate("ijk"):
                    out[axis].append(8 * n + tri[a])
        else:
            for c in geometry["edgePath"]:
                for a, axis in enumerate("xyz"):
                    out[axis].append(None if c < 0 else corners[c][a])
    return out


def test_boxes_are_sent_once_and_rebuild_the_figures_exactly() -> None:
    rec = thermo()
    payload = _payload(_parse(share_page(rec)))
    geometry = payload["boxGeometry"]
    sent = {f["id"]: f["figure"] for f in payload["figures"]}
    pieces = sum(p.containerIndex == 0 for p in rec.result.placements)
    for fig_id, fig in (
        ("view-0", figures.container_figure(rec, 0, title=False)),
        ("steps-0", figures.load_steps_figure(rec, 0, panels=3 if pieces <= 12 else 6)),
    ):
        traces = sent[fig_id]["data"]
        assert len(traces) == len(fig.data)
        boxed = 0
        for source, trace in zip(fig.data, traces, strict=True):
            if (source.meta or {}).get("kind") not in {"piece", "edges", "fragile"}:
                continue
            boxed += 1
            # six numbers a box and one hover text a piece, no corners or paths
            assert not {"x", "y", "z", "i", "j", "k", "hovertext"} & set(trace)
            rebuilt = _rebuild(trace, geometry)
            for axis in ("x", "y", "z") + (("i", "j", "k") if source.type == "mesh3d" else ()):
                want = [None if v != v else float(v) for v in getattr(source, axis)]
                assert rebuilt[axis] == pytest.approx(want, nan_ok=True) or rebuilt[axis] == want
            if source.type == "mesh3d":
                if source.hovertext is None:
                    assert "hoverPerBox" not in trace
                else:
                    assert [t for t in trace["hoverPerBox"] for _ in range(8)] == list(
                        source.hovertext
                    )
        assert boxed >= 2


def test_a_large_plan_page_stays_small() -> None:
    """The page of a container of 600 pieces: geometry and hover text are sent per piece,
    not per corner and once more for every load-step panel it stands in."""
    rec = thermo()
    one = rec.result.placements[0]
    placements = [
        one.model_copy(
            update={
                "instanceIndex": n,
                "positionMm": [100.0 * (n % 20), 100.0 * (n // 200), 100.0 * ((n // 20) % 10)],
                "dimensionsMm": [100.0, 100.0, 100.0],
                "loadStep": n + 1,
            }
        )
        for n in range(600)
    ]
    big = rec.model_copy(
        update={"result": rec.result.model_copy(update={"placements": placements})}
    )
    page = share_page(big)
    # the geometry of one piece in the view and in (up to) six panels, its hover text twice
    assert len(page) < 600 * 2_500, len(page)


def test_the_page_cache_builds_a_plan_once_and_keeps_its_bytes_bound() -> None:
    import threading

    cache = PageCache(max_bytes=10)
    builds: list[str] = []
    gate = threading.Event()

    def build(text: str) -> Any:
        def make() -> str:
            gate.wait(5)
            builds.append(text)
            return text

        return make

    # readers of one plan at once wait for one build
    got: list[str] = []
    readers = [
        threading.Thread(target=lambda: got.append(cache.get("p1", build("aaaa"))))
        for _ in range(4)
    ]
    for t in readers:
        t.start()
    gate.set()
    for t in readers:
        t.join(10)
    assert got == ["aaaa"] * 4 and builds == ["aaaa"]
    assert cache.get("p1", build("other")) == "aaaa" and builds == ["aaaa"]
    # past max_bytes the least recently read page goes; a page larger than all is not kept
    cache.get("p2", build("bbbb"))
    cache.get("p1", build("x"))  # p1 read again: p2 is now the oldest
    cache.get("p3", build("cccc"))
    assert cache.get("p2", build("BBBB")) == "BBBB"
    assert cache.get("p1", build("y")) in {"aaaa", "y"}
    cache.get("huge", build("h" * 11))
    assert cache.get("huge", build("again")) == "again"
