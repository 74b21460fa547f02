"""Charts of a strategy comparison (:func:`packing.compare.compare`'s table).

- :func:`utilisation_figure`: mean utilisation by set and strategy;
- :func:`quality_time_figure`: utilisation against CPU time, one point per run;
- :func:`containers_figure`: bin packing, containers used against the lower bound;
- :func:`solver_gap_figure`: the gap an exact solver reported, per instance, with its status;
- :func:`sweep_figure`: one setting of a strategy against utilisation and time.

Labels (strategy, set and instance names) are caller text: they are HTML-escaped before
plotly reads them, as in :mod:`adapters.report.figures`.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from adapters.report.figures import PALETTE, esc

__all__ = [
    "containers_figure",
    "quality_time_figure",
    "solver_gap_figure",
    "sweep_figure",
    "utilisation_figure",
]

_LABELS = ("strategy", "set", "instance", "settings", "status")


def _escaped(table: pd.DataFrame) -> pd.DataFrame:
    if table.empty:
        raise ValueError("table: the comparison table has no rows")
    out = table.copy()
    for col in _LABELS:
        if col in out:
            out[col] = out[col].map(esc)
    return out


def _colours(strategies: list[str]) -> dict[str, str]:
    return {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(strategies)}


def utilisation_figure(table: pd.DataFrame, *, height: int = 420) -> Any:
    """Mean utilisation [%] of each strategy in each set, as grouped bars.

    Loading sets (BR) show the loaded share of the one container; bin-packing sets (MPV,
    random orders) the cargo over the containers used. The hover gives the runs.
    """
    t = _escaped(table)
    means = (
        t.groupby(["set", "strategy"], sort=False)
        .agg(util=("utilisation_pct", "mean"), runs=("instance", "size"))
        .reset_index()
    )
    colours = _colours(list(t["strategy"].unique()))
    fig = go.Figure()
    for strat, rows in means.groupby("strategy", sort=False):
        fig.add_bar(
            x=rows["set"],
            y=rows["util"],
            name=strat,
            marker_color=colours[str(strat)],
            customdata=rows["runs"],
            hovertemplate="%{x}: %{y:.1f}% (mean of %{customdata} runs)<extra>"
            + str(strat)
            + "</extra>",
        )
    fig.update_layout(
        title="Volume utilisation by set and strategy",
        barmode="group",
        height=height,
        yaxis={"title": "utilisation [%]", "range": [0, 100]},
        xaxis={"title": "instance set"},
        legend={"title": "strategy"},
    )
    return fig


def quality_time_figure(table: pd.DataFrame, *, height: int = 420) -> Any:
    """Utilisation [%] against CPU time [s] (log scale), one point per run, a colour per
    strategy and a marker per kind of problem."""
    t = _escaped(table)
    colours = _colours(list(t["strategy"].unique()))
    symbols = {"loading": "circle", "bin-packing": "diamond"}
    fig = go.Figure()
    for (strat, kind), rows in t.groupby(["strategy", "kind"], sort=False):
        fig.add_scatter(
            x=rows["cpu_s"].clip(lower=1e-4),
            y=rows["utilisation_pct"],
            mode="markers",
            name=f"{strat} ({kind})",
            marker={"color": colours[str(strat)], "symbol": symbols.get(str(kind), "square")},
            customdata=rows[["instance", "wall_s"]],
            hovertemplate="%{customdata[0]}: %{y:.1f}% in %{x:.3f} s CPU "
            "(%{customdata[1]:.3f} s wall)<extra></extra>",
        )
    fig.update_layout(
        title="Quality against time (CPU seconds of each run)",
        height=height,
        xaxis={"title": "CPU time [s]", "type": "log"},
        yaxis={"title": "utilisation [%]"},
    )
    return fig


def containers_figure(table: pd.DataFrame, *, height: int = 420) -> Any:
    """Bin packing: containers each strategy used per set, against the sum of the lower
    bounds (a black marker)."""
    t = _escaped(table)
    t = t[t["kind"] == "bin-packing"]
    if t.empty:
        raise ValueError("table: no bin-packing rows (sets MPV… or random orders)")
    sums = t.groupby(["set", "strategy"], sort=False)["containers"].sum().reset_index()
    bounds = t.drop_duplicates(["set", "instance"]).groupby("set", sort=False)["lower_bound"].sum()
    colours = _colours(list(t["strategy"].unique()))
    fig = go.Figure()
    for strat, rows in sums.groupby("strategy", sort=False):
        fig.add_bar(
            x=rows["set"], y=rows["containers"], name=strat, marker_color=colours[str(strat)]
        )
    fig.add_scatter(
        x=list(bounds.index),
        y=list(bounds.values),
        mode="markers",
        name="lower bound",
        marker={"color": "black", "symbol": "line-ew-open", "size": 28, "line": {"width": 3}},
    )
    fig.update_layout(
        title="Containers used against the lower bound (sum over each set's instances)",
        barmode="group",
        height=height,
        yaxis={"title": "containers"},
        xaxis={"title": "instance set"},
    )
    return fig


def solver_gap_figure(table: pd.DataFrame, *, height: int = 420) -> Any:
    """The relative gap [%] each exact solver reported, per instance, labelled with its
    status; runs without a reported gap are listed in the title instead of drawn."""
    t = _escaped(table)
    with_gap = t[t["solver_gap_pct"].notna()]
    missing = t[t["solver_gap_pct"].isna()]
    fig = go.Figure()
    colours = _colours(list(t["strategy"].unique()))
    for strat, rows in with_gap.groupby("strategy", sort=False):
        fig.add_bar(
            x=rows["instance"],
            y=rows["solver_gap_pct"],
            name=strat,
            marker_color=colours[str(strat)],
            text=rows["status"],
            textposition="outside",
            hovertemplate="%{x}: gap %{y:.2f}% (%{text})<extra></extra>",
        )
    title = "Gap reported by the solver"
    if not missing.empty:
        title += (
            f"<br><sup>{len(missing)} of {len(t)} runs reported no gap (status: "
            + ", ".join(sorted(set(missing["status"])))
            + ")</sup>"
        )
    fig.update_layout(
        title=title,
        barmode="group",
        height=height,
        yaxis={"title": "relative gap [%]", "rangemode": "tozero"},
        xaxis={"title": "instance"},
    )
    return fig


def sweep_figure(table: pd.DataFrame, setting: str, *, height: int = 380) -> Any:
    """A parameter sweep: mean utilisation [%] and mean CPU time [s] against the value of
    one ``setting`` (read from the table's ``settings`` text), a line per set."""
    pattern = re.compile(rf"(?:^|, ){re.escape(setting)}=([^,]+)")

    def value(text: str) -> float:
        m = pattern.search(text)
        if m is None:
            raise ValueError(f"setting: {setting!r} is not in the settings {text!r}")
        return float(m.group(1))

    t = table.copy()
    t["value"] = t["settings"].map(value)
    t = _escaped(t)
    means = t.groupby(["set", "value"], sort=True)[["utilisation_pct", "cpu_s"]].mean()
    fig = make_subplots(rows=1, cols=2, subplot_titles=("utilisation [%]", "CPU time [s]"))
    colours = _colours(list(t["set"].unique()))
    for set_name, rows in means.reset_index().groupby("set", sort=False):
        for col, name in ((1, "utilisation_pct"), (2, "cpu_s")):
            fig.add_scatter(
                x=rows["value"],
                y=rows[name],
                mode="lines+markers",
                name=str(set_name),
                legendgroup=str(set_name),
                showlegend=col == 1,
                line={"color": colours[str(set_name)]},
                row=1,
                col=col,
            )
    fig.update_xaxes(title_text=esc(setting), type="log" if (t["value"] > 0).all() else "linear")
    fig.update_layout(title=f"Sweep of {esc(setting)}", height=height)
    return fig
