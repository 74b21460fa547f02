"""A plan in a notebook: ``show(plan)`` displays its tables and figures in one line.

>>> from adapters.report import show
>>> show(result, plan_input)          # doctest: +SKIP

A result or record of the contract shows the same when a cell ends with it (their
``_repr_html_`` calls :func:`show`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.planning import mapping
from adapters.planning.outcome import PlanOutcome
from adapters.planning.schemas import CombinedPackingPlanResult, PackingPlanInput
from adapters.report import figures
from adapters.report.figures import PlanLike, PlanView, mm3, num

#: Containers drawn in 3D by :func:`show` (the tables list them all).
MAX_CONTAINERS = 4


#: Columns of the temperature-modes table of the notebook view and the share page.
MODE_HEADERS = ("Mode", "Feasible", "Placed", "Transit", "Required load", "Problem")


def mode_rows(result: CombinedPackingPlanResult) -> list[list[str]]:
    """One row per temperature mode, as :data:`MODE_HEADERS` lists them (text, unescaped)."""
    return [
        [
            m.temperatureMode.value,
            "yes" if m.feasible else "no",
            f"{m.placedCount} of {m.requestedCount}",
            f"{num(m.transitHoursUsed)} h",
            "—"
            if m.thermalFilter.requiredLoadDegreeHours is None
            else f"{num(m.thermalFilter.requiredLoadDegreeHours, 0)} °C·h",
            ((m.errorCode.value + ": ") if m.errorCode else "") + (m.message or ""),
        ]
        for m in result.modes
    ]


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def plan_tables(view: PlanView) -> str:
    """The plan's modes, cargo and containers as HTML tables (all text escaped)."""
    result = view.result
    parts = [
        "<h4>Modes</h4>",
        _table(MODE_HEADERS, mode_rows(result)),
    ]
    if view.input is not None:
        parts += [
            "<h4>Cargo</h4>",
            _table(
                ["Id", "Name", "Quantity", "Mode", "Fragile", "Unload priority"],
                [
                    [
                        c.id,
                        view.name(c.id),
                        c.quantity,
                        c.temperatureMode.value if c.temperatureMode else "—",
                        "yes" if view.fragile(c.id) else "no",
                        view.unload_priority(c.id),
                    ]
                    for c in view.input.cargos
                ],
            ),
        ]
    parts += [
        "<h4>Containers</h4>",
        _table(
            ["#", "Container", "Inner L × H × W", "Door", "Pieces", "Cargo", "Total", "Volume"],
            [
                [
                    c.containerIndex,
                    f"{c.containerTitle} ({c.containerSlug})",
                    f"{mm3(c.innerUsableMm)} mm",
                    c.loadingSide.value,
                    len(view.pieces(c.containerIndex)),
                    f"{num(c.cargoWeightKg, 2)} kg",
                    f"{num(c.totalWeightKg, 2)} kg",
                    "—"
                    if c.metrics.volumeUtilization is None
                    else f"{c.metrics.volumeUtilization:.1%}",
                ]
                for c in result.containers
            ],
        ),
    ]
    if result.vehicles:
        parts += [
            "<h4>Axle loads</h4>",
            _table(
                ["Vehicle", "Axle", "Load", "Limit"],
                [
                    [
                        f"#{v.vehicleIndex} {v.vehicleTitle}",
                        a.name,
                        f"{num(a.loadKg)} kg",
                        f"{num(a.maxKg)} kg",
                    ]
                    for v in result.vehicles
                    for a in v.axleLoads
                ],
            ),
        ]
    return "".join(parts)


@dataclass
class PlanDisplay:
    """What :func:`show` returns: tables and figures that IPython displays."""

    view: PlanView
    figures: list[Any] = field(default_factory=list)

    @property
    def tables_html(self) -> str:
        return plan_tables(self.view)

    def _ipython_display_(self) -> None:
        import importlib

        ipd: Any = importlib.import_module("IPython.display")
        ipd.display(ipd.HTML(self.tables_html), *self.figures)

    def _repr_html_(self) -> str:
        """One self-contained piece of HTML (plotly.js embedded once), for other viewers."""
        figs = "".join(
            fig.to_html(full_html=False, include_plotlyjs=(n == 0))
            for n, fig in enumerate(self.figures)
        )
        return self.tables_html + figs


def show(
    plan: PlanLike | PlanOutcome,
    plan_input: PackingPlanInput | Mapping[str, Any] | None = None,
) -> PlanDisplay:
    """The plan's tables and figures, for a notebook cell.

    ``plan`` is any form :func:`~adapters.report.figures.plan_view` takes, or the use
    case's typed :class:`~adapters.planning.outcome.PlanOutcome` (mapped to the contract
    first).

    Figures: the first containers in 3D (:data:`MAX_CONTAINERS`), each vehicle of a
    PALLET_LOAD plan, each thermal check. Every figure function of
    :mod:`adapters.report.figures` gives more (load steps, a given container).
    """
    if isinstance(plan, PlanOutcome):
        plan = mapping.plan_result(plan)
    view = figures.plan_view(plan, plan_input)
    shown: list[Any] = []
    for c in view.result.containers[:MAX_CONTAINERS]:
        if view.pieces(c.containerIndex):
            shown.append(figures.container_figure(view, c.containerIndex, height=520))
    for v in view.result.vehicles or []:
        shown.append(figures.vehicle_figure(view, v.vehicleIndex))
    for n in range(len(figures.thermal_modes(view))):
        shown.append(figures.thermal_figure(view, n))
    return PlanDisplay(view, shown)
