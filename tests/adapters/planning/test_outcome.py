"""The use case's typed outcome in a notebook: short reprs, the plan view via show()."""

from __future__ import annotations

import datetime as dt

from adapters.planning.compute import plan_outcome
from adapters.report.notebook import show
from tests.adapters.report.plans import THERMO


def test_outcome_repr_is_short_and_html_shows_the_plan() -> None:
    body = {**THERMO, "cargos": [{**THERMO["cargos"][0], "name": "<script>alert(1)</script>"}]}
    outcome = plan_outcome(body, use_mock_thermal=False, today=dt.date(2027, 1, 10))
    assert repr(outcome) == "PlanOutcome(modes=[PLUS_2_8: 6/6], total_requested=6)"
    (mode,) = outcome.modes
    assert repr(mode) == (
        "ModeOutcome(mode='PLUS_2_8', placed=6/6, containers=1, feasible=True, error=None)"
    )
    shown = show(outcome)
    assert [type(f).__name__ for f in shown.figures] == ["Figure", "Figure"]  # 3D, thermal
    html = outcome._repr_html_()
    assert "<table" in html and "Thermal check" in html
    assert "<script>alert(1)</script>" not in html  # no input given: names are cargo ids
    named = show(outcome, body)._repr_html_()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in named
    assert "<script>alert(1)</script>" not in named


def _two_drops() -> dict:
    return {
        "scenario": "PALLET",
        "originCity": "Berlin",
        "destinationCity": "Munich",
        "cargos": [
            {"id": "first", "name": "First stop", "lengthCm": 90, "widthCm": 66, "heightCm": 47,
             "weightKg": 55.59, "quantity": 5, "temperatureMode": "NONE",
             "rules": {"allowedRotations": "ALL", "allowTilt": True, "unloadPriority": 2}},
            {"id": "last", "name": "Last stop", "lengthCm": 19, "widthCm": 68, "heightCm": 52,
             "weightKg": 35.16, "quantity": 6, "temperatureMode": "NONE"},
        ],
    }  # fmt: skip


def test_a_mode_of_several_drops_keeps_the_work_and_the_cut_of_its_plans(monkeypatch) -> None:
    # Each drop is palletized by a plan of its own: the mode's result adds up their work
    # units and says so when a safety net cut one of them (here every net lies at the start)
    from packing.strategies.base import Budget

    quiet = plan_outcome(_two_drops(), use_mock_thermal=True, time_limit_s=1.0)
    (mode,) = quiet.modes
    assert mode.packed is not None and not mode.packed.wall_cut
    assert mode.packed.work_units > 0
    monkeypatch.setattr(Budget, "HARD_FACTOR", 0.0)
    monkeypatch.setattr(Budget, "HARD_FLOOR_S", 0.0)
    cut = plan_outcome(_two_drops(), use_mock_thermal=True, time_limit_s=1.0)
    (mode,) = cut.modes
    assert mode.packed is not None and mode.packed.wall_cut
    assert mode.placed == 11  # cut searches still place everything (greedy passes)


def test_a_request_runs_inside_one_wall_clock_net_of_its_whole_budget(monkeypatch) -> None:
    # The request's net, REQUEST_NET_FACTOR × its budget, is the outermost: the plans of its
    # modes run inside it (their own nets then stand aside), so a request is bounded as a
    # whole and ends before its worker is stopped
    from adapters.planning.compute import REQUEST_NET_FACTOR
    from packing.strategies.base import Budget

    entered: list[tuple[float, float | None, bool]] = []
    wall_net = Budget.wall_net

    def recording(seconds: float, factor: float | None = None):  # type: ignore[no-untyped-def]
        outermost = Budget.current_wall_deadline() == float("inf")
        entered.append((seconds, factor, outermost))
        return wall_net(seconds, factor)

    monkeypatch.setattr(Budget, "wall_net", recording)
    body = {**_two_drops(), "scenario": "PLAIN"}
    body["cargos"] = [{**c, "temperatureMode": "PLUS_2_8"} for c in body["cargos"]]
    body["cargos"][1]["temperatureMode"] = "NONE"  # two modes, two plans
    outcome = plan_outcome(body, use_mock_thermal=True, time_limit_s=7.0)
    assert len(outcome.modes) == 2
    assert entered[0] == (7.0, REQUEST_NET_FACTOR, True)
    assert len(entered) > 2 and not any(outermost for _, _, outermost in entered[1:])
