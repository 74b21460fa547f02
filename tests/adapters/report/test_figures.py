"""The figure layer: what each plotly figure of a plan carries, checked on its traces."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.planning.schemas import LoadingSide, PackingPlanInput, PackingPlanRecord
from adapters.report import figures, show
from tests.adapters.helpers import cargo, plan_body, sample_result
from tests.adapters.report.plans import (
    CREATED,
    THERMO,
    pallet_load,
    record,
    thermo,
    three_drops,
)


def _kind(fig: Any, kind: str) -> list[Any]:
    return [t for t in fig.data if (t.meta or {}).get("kind") == kind]


def _sample(**changes: Any) -> PackingPlanRecord:
    body = plan_body(**changes)
    return PackingPlanRecord(
        planId="pln_sample",
        externalRef=None,
        source="API",
        createdAt=CREATED,
        input=PackingPlanInput.model_validate(body),
        result=sample_result(),
    )


def test_container_figure_draws_every_piece_as_a_box_with_edges() -> None:
    rec = thermo()
    pieces = [p for p in rec.result.placements if p.containerIndex == 0]
    fig = figures.container_figure(rec, 0)
    meshes, edges = _kind(fig, "piece"), _kind(fig, "edges")
    items = {p.cargoItemId for p in pieces}
    # one mesh and one edge trace per cargo item
    assert len(meshes) == len(edges) == len(items)
    assert sum(len(m.x) for m in meshes) == 8 * len(pieces)
    assert sum(len(m.i) for m in meshes) == 12 * len(pieces)
    # 12 edges per box: 16 pen points and 8 pen lifts
    assert sum(len(e.x) for e in edges) == 24 * len(pieces)
    assert all(e.mode == "lines" and e.line.width >= 2 for e in edges)
    outline = _kind(fig, "outline")
    assert len(outline) == 1


def test_legend_is_by_cargo_name_and_hover_tells_the_piece() -> None:
    rec = thermo()
    fig = figures.container_figure(rec, 0)
    legend = {t.name for t in _kind(fig, "piece") if t.showlegend}
    assert legend == {"Вакцина ГамКовидВак", "Инсулин (α-форма)"}
    hover = " ".join(text for m in _kind(fig, "piece") for text in m.hovertext)
    for expected in ("Вакцина ГамКовидВак", "id vac", "load step 1", "kg", "mm", "not turned"):
        assert expected in hover, expected
    insulin = next(m for m in _kind(fig, "piece") if m.meta["cargoItemId"] == "ins")
    assert "fragile: yes" in insulin.hovertext[0]
    assert "unload priority 2" in insulin.hovertext[0]
    # fragile pieces get red edges and a legend entry saying so
    fragile = _kind(fig, "fragile")
    assert len(fragile) == 1 and fragile[0].showlegend


def test_step_numbers_door_and_axes() -> None:
    rec = thermo()
    fig = figures.container_figure(rec, 0)
    steps = _kind(fig, "steps")
    pieces = [p for p in rec.result.placements if p.containerIndex == 0]
    assert len(steps) == 1
    assert sorted(steps[0].text, key=int) == sorted((str(p.loadStep) for p in pieces), key=int)
    door = _kind(fig, "door")
    assert len(door) == 1 and door[0].meta["loadingSide"] == rec.result.containers[0].loadingSide
    assert any("DOOR" in t for t in door[0].text)
    scene = fig.layout.scene
    assert scene.camera.up.to_plotly_json() == {"x": 0, "y": 1, "z": 0}
    assert "height" in scene.yaxis.title.text and "mm" in scene.yaxis.title.text
    assert "length" in scene.xaxis.title.text and "width" in scene.zaxis.title.text
    assert scene.aspectmode == "data"


@pytest.mark.parametrize("side", ["FRONT", "SIDE", "TOP"])
def test_the_door_face_lies_on_its_side(side: str) -> None:
    rec = _sample()
    container = rec.result.containers[0].model_copy(update={"loadingSide": LoadingSide(side)})
    rec = rec.model_copy(
        update={"result": rec.result.model_copy(update={"containers": [container]})}
    )
    door = _kind(figures.container_figure(rec, 0), "door")[0]
    length, height, width = container.innerUsableMm
    axis, value = {"FRONT": ("x", length), "SIDE": ("z", width), "TOP": ("y", height)}[side]
    coordinates = [v for v in getattr(door, axis) if v is not None][:5]
    assert coordinates == [value] * 5


def test_colours_are_distinct_for_twenty_items_and_a_given_colour_wins() -> None:
    first = [figures.palette_colour(i) for i in range(20)]
    assert len(set(first)) == 20
    assert figures.palette_colour(20) not in first
    colours = figures.cargo_colours(["a", "b", "c"], {"b": "#0f0"})
    assert colours == {"a": figures.PALETTE[0], "b": "#00ff00", "c": figures.PALETTE[2]}
    body = plan_body(cargos=[cargo("a", rules={"color": "#123456"})])
    fig = figures.container_figure(sample_result(), 0, plan_input=body)
    assert _kind(fig, "piece")[0].color == "#123456"


def test_caller_text_in_a_figure_is_escaped() -> None:
    name = "<b>Box</b> & <script>alert(1)</script>"
    body = plan_body(cargos=[cargo("a", name=name)])
    fig = figures.container_figure(sample_result(), 0, plan_input=body)
    mesh = _kind(fig, "piece")[0]
    assert mesh.name == "&lt;b&gt;Box&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt;"
    assert "<script>" not in json.dumps(fig.to_plotly_json(), default=str)
    # quotes as numeric references, which plotly's labels read (it shows "&quot;" as typed)
    quoted = figures.container_figure(
        sample_result(), 0, plan_input=plan_body(cargos=[cargo("a", name="{\"a\":1} 'x'")])
    )
    assert _kind(quoted, "piece")[0].name == "{&#34;a&#34;:1} &#x27;x&#x27;"


def test_a_plan_in_any_form() -> None:
    rec = thermo()
    as_json = json.loads(rec.model_dump_json())
    result_json = {**as_json["result"], "planId": rec.planId}
    for plan, plan_input in (
        (rec, None),
        (rec.result, THERMO),
        (as_json, None),
        (result_json, THERMO),
    ):
        view = figures.plan_view(plan, plan_input)
        assert view.name("vac") == "Вакцина ГамКовидВак"
    # without its input a result still draws, with ids for names
    fig = figures.container_figure(rec.result, 0)
    assert {t.name for t in _kind(fig, "piece")} == {"vac", "ins"}
    with pytest.raises(IndexError, match="no container 9"):
        figures.container_figure(rec, 9)


def test_load_steps_show_each_piece_new_once() -> None:
    rec = thermo()
    pieces = [p for p in rec.result.placements if p.containerIndex == 0]
    fig = figures.load_steps_figure(rec, 0, panels=4)
    scenes = {t.scene for t in fig.data}
    assert len(scenes) == 4
    labelled = [s for t in _kind(fig, "steps") for s in t.text]
    assert sorted(labelled, key=int) == sorted((str(p.loadStep) for p in pieces), key=int)
    assert all(fig.layout[s].camera.up.y == 1 for s in scenes)
    # hover text on the pieces of each panel's own steps only (the pale ones have none)
    hovered = [text for m in _kind(fig, "piece") if m.hovertext is not None for text in m.hovertext]
    assert len(hovered) == 8 * len(pieces)
    assert all(m.hoverinfo == "skip" for m in _kind(fig, "piece") if m.hovertext is None)
    # the container after step 3: three pieces, the third in colour
    after = figures.container_figure(rec, 0, upto_step=3)
    assert sum(len(m.x) for m in _kind(after, "piece")) == 8 * 3
    assert list(_kind(after, "steps")[0].text) == ["3"]
    assert "after load step 3" in after.layout.title.text


def test_vehicle_figure_has_pallets_axles_and_loads() -> None:
    rec = pallet_load()
    vehicle = rec.result.vehicles[0]  # type: ignore[index]
    fig = figures.vehicle_figure(rec, vehicle.vehicleIndex)
    pallets = _kind(fig, "pallet")
    assert len(pallets) == 2 * len(vehicle.pallets)  # side view and from above
    axles = _kind(fig, "axle")
    assert [a.meta["name"] for a in axles] == [a.name for a in vehicle.axleLoads]
    loads = _kind(fig, "axle-load")[0]
    limits = _kind(fig, "axle-limit")[0]
    assert list(loads.y) == [a.loadKg for a in vehicle.axleLoads]
    assert list(limits.y) == [a.maxKg for a in vehicle.axleLoads]
    whole = figures.axle_load_figure(rec)
    assert list(_kind(whole, "axle-load")[0].y) == [
        a.loadKg
        for v in rec.result.vehicles or []
        for a in v.axleLoads  # every vehicle's axles
    ]
    with pytest.raises(IndexError):
        figures.vehicle_figure(thermo(), 0)


def test_vehicle_figure_of_three_drops_has_the_axle_loads_after_each_stop() -> None:
    rec = three_drops()
    [vehicle] = rec.result.vehicles or []
    stops = vehicle.axleLoadsByStop or []
    assert [s.unloadPriority for s in stops] == [3, 2]
    fig = figures.vehicle_figure(rec, vehicle.vehicleIndex)
    # the loaded vehicle as before, on the "loaded" group
    [loaded] = _kind(fig, "axle-load")
    assert list(loaded.y) == [a.loadKg for a in vehicle.axleLoads]
    assert list(loaded.x[0]) == ["loaded", "loaded"]
    # one load and one limit trace per stop, with the stop's loads and limits
    loads = _kind(fig, "axle-stop-load")
    limits = _kind(fig, "axle-stop-limit")
    assert [(t.meta["stop"], t.meta["unloadPriority"]) for t in loads] == [(1, 3), (2, 2)]
    assert [(t.meta["stop"], t.meta["unloadPriority"]) for t in limits] == [(1, 3), (2, 2)]
    for trace, limit, stop in zip(loads, limits, stops, strict=True):
        assert list(trace.y) == [a.loadKg for a in stop.axleLoads]
        assert list(limit.y) == [a.maxKg for a in stop.axleLoads]
        assert list(trace.x[0]) == [f"after stop {stop.stop}"] * len(stop.axleLoads)
        assert list(trace.x[1]) == [a.name for a in stop.axleLoads]
    # the rear (drive) axle's minimum share in every state
    [minima] = _kind(fig, "axle-min")
    states = [vehicle.axleLoads] + [s.axleLoads for s in stops]
    assert list(minima.y) == [a.minKg for loads_ in states for a in loads_ if a.minKg is not None]
    assert len(minima.y) == 3
    # a one-drop vehicle keeps the loaded vehicle's bars only
    single = figures.vehicle_figure(pallet_load(), 0)
    assert not _kind(single, "axle-stop-load") and not _kind(single, "axle-min")


def test_vehicle_figure_of_pallets_stacked_two_high() -> None:
    from tests.adapters.planning.test_compute_pallet_load import _one_layer_pallets

    rec = record(_one_layer_pallets(False))
    [vehicle] = rec.result.vehicles or []
    fig = figures.vehicle_figure(rec, vehicle.vehicleIndex)
    # every pallet drawn from the side at its own height, its deck on the one below
    drawn = _kind(fig, "pallet")  # side view first, then from above
    side = {t.meta["containerIndex"]: min(t.y) for t in drawn[: len(drawn) // 2]}
    assert side == {p.containerIndex: p.positionMm[1] for p in vehicle.pallets}
    # seen from above, each stack is named once: "#upper/#lower"
    stacks = [a.text for a in fig.layout.annotations if "/#" in (a.text or "")]
    upper = {p.containerIndex for p in vehicle.pallets if p.positionMm[1] > 0}
    assert len(stacks) == len(upper) == 20
    assert {int(t.split("/")[0].lstrip("#")) for t in stacks} == upper


def test_axle_margin_is_the_distance_to_the_nearer_bound() -> None:
    from adapters.planning.schemas import AxleLoad

    assert figures.axle_margin(AxleLoad(name="a", loadKg=4600, maxKg=4800)) == 200
    near_min = AxleLoad(name="a", loadKg=2100, maxKg=8500, minKg=2000)
    assert figures.axle_margin(near_min) == 100
    over = AxleLoad(name="a", loadKg=5000, maxKg=4800, minKg=1000)
    assert figures.axle_margin(over) == -200


def test_thermal_figure_runs_the_route_and_compares_load_with_capacity() -> None:
    rec = thermo()
    mode = rec.result.modes[0]
    tf = mode.thermalFilter
    fig = figures.thermal_figure(rec, "PLUS_2_8")
    ambient = _kind(fig, "ambient")[0]
    segments = tf.routeSegmentsUsed or []
    hours = [x for x in ambient.x if x is not None]
    assert hours[0] == 0 and hours[-1] == pytest.approx(mode.transitHoursUsed)
    assert [y for y in ambient.y if y is not None][::2] == [s.ambientC for s in segments]
    set_point = _kind(fig, "set-point")[0]
    assert list(set_point.y) == [5.0, 5.0]
    hot, cold = _kind(fig, "load-hot")[0], _kind(fig, "load-cold")[0]
    assert hot.y[-1] + cold.y[-1] == pytest.approx(tf.requiredLoadDegreeHours)
    capacity = _kind(fig, "capacity")
    container = rec.result.containers[0]
    assert capacity[0].y[0] == container.thermalProfileUsed.thermalCapacityDegreeHours
    assert len(capacity) == 2  # hot and cold side
    assert figures.thermal_modes(rec) == [mode]
    with pytest.raises(KeyError):
        figures.thermal_figure(rec, "MINUS_25_15")


def test_rotation_in_words() -> None:
    assert figures.rotation_text([0, 0, 0]) == "not turned"
    assert figures.rotation_text([0, 90, 0]) == "turned 90° about Y"
    assert figures.rotation_text([90, 0, 90]) == "turned 90° about X, then 90° about Z (tilted)"


def test_show_gives_tables_and_figures_to_a_notebook() -> None:
    rec = thermo()
    shown = show(rec)
    page = shown._repr_html_()
    assert "Вакцина ГамКовидВак" in page and "<table" in page
    assert "Thermal check" in page
    assert [type(f).__name__ for f in shown.figures] == ["Figure", "Figure"]
    small = show(sample_result(), plan_body())
    assert len(small.figures) == 1


def test_a_plan_with_twenty_five_cargo_items_keeps_them_apart() -> None:
    body = {
        **THERMO,
        "scenario": "PLAIN",
        "cargos": [cargo(f"c{i}", quantity=1) for i in range(25)],
    }
    rec = record(body)
    fig = figures.container_figure(rec, 0)
    colours = [m.color for m in _kind(fig, "piece")]
    assert len(colours) == len(set(colours))


def test_to_png_works_inside_a_running_event_loop() -> None:
    # a route handler may call it from async code: the browser then runs in its own thread
    import asyncio

    fig = figures.axle_load_figure(pallet_load())

    async def handler() -> list[bytes]:
        return figures.to_png([(fig, 400, 300)], scale=1.0)

    (png,) = asyncio.run(handler())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_a_result_and_a_record_display_themselves_in_a_notebook() -> None:
    from tests.adapters.helpers import sample_result

    result = sample_result()
    html = result._repr_html_()
    assert "<table" in html and "plotly" in html.lower()
