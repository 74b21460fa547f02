"""Plans in a notebook: short reprs and escaped HTML tables (packing/result.py, model.py)."""

from __future__ import annotations

import re

import pytest

from packing import ContainerType, get_strategy, make_pieces, plan_containers

BOX = ContainerType("crate", "Crate <b>big</b>", (1000, 500, 500), max_payload_kg=400)


@pytest.fixture(scope="module")
def plan():
    pieces = make_pieces("s", (250, 250, 250), 40, weight_kg=2.0, name="<script>alert(1)</script>")
    pieces += make_pieces("big", (2000, 100, 100), 2, name="too long")  # fits nowhere
    return plan_containers(pieces, [BOX], time_limit=0.5)


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_plan_repr_is_one_short_line(plan):
    text = repr(plan)
    assert text == (
        f"PackResult(strategy='block-building', containers={len(plan.containers)}, "
        f"placed=40/42, utilisation=83.3%, seconds={plan.seconds:.2f})"
    )
    assert len(plan.containers) == 3  # 16 cubes fill one crate exactly
    assert len(text) < 200


def test_a_large_plan_keeps_its_repr_and_table_short():
    pieces = make_pieces("p", (100, 100, 100), 6000, name="parcel")
    big = plan_containers(pieces, [BOX], time_limit=0.5)
    assert len(big.containers) == 24 and len(repr(big)) < 200
    html = big._repr_html_()
    assert len(html) < 20_000
    assert "24 containers, 6000 of 6000 pieces placed" in _text(html)
    assert html.count("<tr") <= 22  # header, 20 rows and the "..." row of the 24
    assert "..." in html


def test_container_repr_and_items(plan):
    load = plan.containers[0]
    assert repr(load) == (
        "ContainerLoad(index=0, container='crate', pieces=16, utilisation=100.0%, cargo_kg=32)"
    )
    items = load.items_frame()
    assert items.to_dict("records") == [
        {"item_id": "s", "name": "<script>alert(1)</script>", "pieces": 16, "weight_kg": 32.0}
    ]


def test_html_escapes_caller_text(plan):
    for html in (plan._repr_html_(), plan.containers[0]._repr_html_(), BOX._repr_html_()):
        assert "<script>" not in html and "<b>big</b>" not in html
    shown = plan.containers[0]._repr_html_()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert "Crate &lt;b&gt;big&lt;/b&gt;" in BOX._repr_html_()


def test_plan_html_lists_containers_and_unplaced_reasons(plan):
    html = plan._repr_html_()
    text = _text(html)
    assert html.count("<table") == 2
    assert "3 containers, 40 of 42 pieces placed" in text
    assert "size" in text and "larger" in text  # the unplaced pieces' kind and reason


def test_container_type_html_has_its_sizes():
    text = _text(BOX._repr_html_())
    assert "1000×500×500" in text and "0.250" in text and "400" in text and "TOP" in text


def test_strategy_html_lists_its_settings():
    strat = get_strategy("block-building", max_width=8, time_limit=0.5)
    html = strat._repr_html_()
    text = _text(html)
    assert "BlockBuilding" in text and "block-building" in text
    assert "max_width8" in text and "time_limit0.5" in text and "seed0" in text


def test_tables_have_their_dtypes_with_rows_or_without():
    """An empty plan's tables have the dtypes of a full one (an empty table of object
    columns turned a concatenation of plans' tables to object), and masses are floats
    even when given as whole numbers."""
    import pandas as pd

    from packing.result import ContainerLoad

    box = ContainerType("c", "C", (1000, 1000, 1000))
    full = plan_containers(make_pieces("a", (100, 100, 100), 2, weight_kg=2), [box], time_limit=0.1)
    empty = plan_containers(make_pieces("b", (2000, 100, 100), 1), [box], time_limit=0.1)
    assert not empty.containers and len(full.containers) == 1
    for table in ("placements_frame", "containers_frame", "unplaced_frame"):
        a, b = getattr(full, table)(), getattr(empty, table)()
        assert a.dtypes.to_dict() == b.dtypes.to_dict(), table
        assert pd.concat([a, b]).dtypes.to_dict() == a.dtypes.to_dict(), table
    placed = full.placements_frame()
    assert placed["weight_kg"].dtype == "float64"
    assert all(placed[c].dtype == "int64" for c in ["instance", "x_mm", "dz_mm", "load_step"])
    assert full.containers_frame()["cargo_kg"].dtype == "float64"
    assert empty.unplaced_frame()["instance"].dtype == "int64"
    items = full.containers[0].items_frame()
    no_items = ContainerLoad(0, box).items_frame()
    assert no_items.empty and no_items.dtypes.to_dict() == items.dtypes.to_dict()
    assert items["weight_kg"].dtype == "float64" and items["pieces"].dtype == "int64"
