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
