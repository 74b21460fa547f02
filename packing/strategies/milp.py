"""Exact placement of stacked columns on the floor, as a mixed-integer program (PuLP).

Pieces of one type are stacked into columns (full support by construction); a MILP then
chooses which columns stand on the floor, where, and turned by 90° or not, to maximise the
loaded volume — the relative-position model of Chen, Lee & Shen (1995), "An analytical
model for the container loading problem", EJOR 80(1), in the floor plane. Columns the
program had no room for, and any space left above, are then filled by the block-building
greedy, so every input gets a complete plan. Solved by HiGHS (highspy) with CBC as the
fallback; the time limit is the solver's.

Meant for small instances and for comparing optimizers; large instances keep only the
``max_columns`` largest columns in the program.
"""

from __future__ import annotations

from typing import NamedTuple

import pulp

from packing.errors import PackingInputError
from packing.geometry import Box, contains
from packing.state import Block, PackState
from packing.strategies.base import Budget, Strategy
from packing.strategies.blocks import SPACE_RULES, greedy


class Column(NamedTuple):
    """A column candidate: ``n_pieces`` pieces of one type stacked in one orientation.

    Attributes
    ----------
    type_index : int
        Index of the pieces' :class:`~packing.state.PieceType`.
    orientation : int
        Orientation index 0..5 of every piece.
    ex, ey, ez : int
        Extents of one piece along X, Y, Z [mm]; the column is ``n_pieces × ey`` tall.
    n_pieces : int
        Pieces in the column.
    """

    type_index: int
    orientation: int
    ex: int
    ey: int
    ez: int
    n_pieces: int


class ChosenColumn(NamedTuple):
    """A column the program put on the floor, where it stands and how it is turned.

    Attributes
    ----------
    x, z : int
        Floor position of the column's minimum corner [mm].
    ex, ez : int
        Footprint along X and Z, after any turn [mm].
    type_index : int
        Index of the pieces' :class:`~packing.state.PieceType`.
    orientation : int
        Orientation index 0..5 of every piece, after any turn.
    ey : int
        Height of one piece [mm].
    n_pieces : int
        Pieces in the column.
    """

    x: int
    z: int
    ex: int
    ez: int
    type_index: int
    orientation: int
    ey: int
    n_pieces: int


class _HiGHS(pulp.HiGHS):  # type: ignore[misc]
    """PuLP's HiGHS interface, also understanding HiGHS's node-limit stop.

    PuLP 3.3 maps HiGHS's time and iteration limits to "stopped with the incumbent" but
    not ``kSolutionLimit``, the status HiGHS reports when ``mip_max_nodes`` stops it.
    """

    def findSolutionValues(self, lp: pulp.LpProblem) -> tuple[int, int]:
        import highspy

        model = lp.solverModel
        if model.getModelStatus() != highspy.HighsModelStatus.kSolutionLimit:
            return super().findSolutionValues(lp)  # type: ignore[no-any-return]
        feasible = (
            model.getInfo().primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
        )
        values = list(model.getSolution().col_value) if feasible else []
        for var in lp.variables():
            var.varValue = values[var.index] if feasible else None
        if feasible:
            return pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible
        return pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound


def compact(columns: list[ChosenColumn]) -> None:
    """Slide the columns' footprints towards x = 0, then z = 0, replacing them in the list,
    until none moves (bottom-left compaction); never creates an overlap.

    Each footprint is ``(x, z, ex, ez)``, the first four fields of :class:`ChosenColumn`
    [mm]: position along X and Z, then extents.
    """
    moved = True
    while moved:
        moved = False
        for axis, field in ((0, "x"), (1, "z")):
            other = 1 - axis
            for i in sorted(range(len(columns)), key=lambda k: columns[k][axis]):
                r = columns[i]
                lo = 0
                for j, q in enumerate(columns):
                    if j == i:
                        continue
                    if q[other] < r[other] + r[other + 2] and r[other] < q[other] + q[other + 2]:
                        end = q[axis] + q[axis + 2]
                        if end <= r[axis]:
                            lo = max(lo, end)
                if lo < r[axis]:
                    columns[i] = r._replace(**{field: lo})
                    moved = True


class MilpPlacement(Strategy):
    """Columns on the floor by mixed-integer programming, the rest by greedy blocks.

    Parameters
    ----------
    time_limit : float or None
        Solver time budget [s]; None: 10 s.
    seed : int
        Random seed handed to the solver.
    max_columns : int
        Largest number of column candidates in the program.
    solver : {"highs", "cbc"}
        MILP solver.
    """

    name = "milp"
    default_time_limit = 10.0
    in_benchmark = False  # meant for small instances; BR problems take minutes
    NODES_PER_SECOND = 2000  # branch-and-bound nodes per second of time limit

    def __init__(
        self,
        *,
        time_limit: float | None = None,
        seed: int = 0,
        max_columns: int = 16,
        solver: str = "highs",
    ) -> None:
        super().__init__(time_limit=time_limit, seed=seed)
        self.max_columns = max_columns
        self.solver = solver

    def _columns(self, state: PackState) -> list[Column]:
        """Column candidates, largest first.

        For each type the vertical extent that makes the tallest columns is used; a type
        needs ``ceil(count / per_column)`` columns.
        """
        cols = []
        for t in state.types:
            count = min(state.counts[t.index], state.max_by_weight(t))
            if count <= 0:
                continue
            best = None
            for o, ex, ey, ez in t.orients:
                upright = ex <= state.L and ez <= state.W
                turned = ez <= state.L and ex <= state.W
                if ey > state.H or not (upright or turned):
                    continue
                per = 1 if (t.no_top or t.floor_only) else max(1, state.H // ey)
                key = (per * ey, -ex * ez)
                if best is None or key > best[0]:
                    best = (key, o, ex, ey, ez, per)
            if best is None:
                continue
            _, o, ex, ey, ez, per = best
            left = count
            while left > 0:
                n = min(per, left)
                cols.append(Column(t.index, o, ex, ey, ez, n))
                left -= n
        cols.sort(key=lambda c: -c.ex * c.ey * c.ez * c.n_pieces)
        return cols[: self.max_columns]

    def _solve(self, state: PackState, budget: Budget) -> PackState:
        if not isinstance(self.max_columns, int) or self.max_columns < 1:
            raise PackingInputError(
                "max_columns", f"must be an integer >= 1 (got {self.max_columns!r})"
            )
        if self.solver not in ("highs", "cbc"):
            raise PackingInputError("solver", f"must be 'highs' or 'cbc' (got {self.solver!r})")
        cols = self._columns(state)
        L, W = state.L, state.W
        prob = pulp.LpProblem("floor_columns", pulp.LpMaximize)
        n = len(cols)
        var = prob.add_variable
        sel = [var(f"s{j}", cat="Binary") for j in range(n)]
        rot = [var(f"r{j}", cat="Binary") for j in range(n)]
        x = [var(f"x{j}", 0, L, cat="Integer") for j in range(n)]
        z = [var(f"z{j}", 0, W, cat="Integer") for j in range(n)]
        wx, wz = [], []
        for j, (ti, o, ex, _ey, ez, _cnt) in enumerate(cols):
            turnable = any(
                oo != o and (e1, e3) == (ez, ex) for oo, e1, _e2, e3 in state.types[ti].orients
            )
            if not turnable or ex == ez:
                prob += rot[j] == 0
            wx.append(ex + (ez - ex) * rot[j])
            wz.append(ez + (ex - ez) * rot[j])
            m = max(ex, ez)
            prob += x[j] + wx[j] <= L + m * (1 - sel[j])
            prob += z[j] + wz[j] <= W + m * (1 - sel[j])
        mz = W + max((max(c.ex, c.ez) for c in cols), default=0)
        mx = L + max((max(c.ex, c.ez) for c in cols), default=0)
        for j in range(n):
            for k in range(j + 1, n):
                d = [var(f"d{j}_{k}_{i}", cat="Binary") for i in range(4)]
                prob += x[j] + wx[j] <= x[k] + mx * (1 - d[0])
                prob += x[k] + wx[k] <= x[j] + mx * (1 - d[1])
                prob += z[j] + wz[j] <= z[k] + mz * (1 - d[2])
                prob += z[k] + wz[k] <= z[j] + mz * (1 - d[3])
                prob += pulp.lpSum(d) >= sel[j] + sel[k] - 1
                same = cols[j][:5] == cols[k][:5]  # all but the number of pieces
                if same and cols[j].n_pieces >= cols[k].n_pieces:
                    prob += sel[j] >= sel[k]  # identical columns: use them in order
        if state.payload_left != float("inf"):
            prob += (
                pulp.lpSum(
                    sel[j] * state.types[c.type_index].weight_kg * c.n_pieces
                    for j, c in enumerate(cols)
                )
                <= state.payload_left
            )
        prob += pulp.lpSum(sel[j] * c.ex * c.ey * c.ez * c.n_pieces for j, c in enumerate(cols))
        # The node limit makes the search deterministic; the time limit is a safety cap.
        nodes = max(100, int(budget.seconds * self.NODES_PER_SECOND))
        cap = max(0.1, budget.HARD_FACTOR * budget.seconds)
        if self.solver == "highs":
            solver = _HiGHS(
                msg=False, timeLimit=cap, random_seed=self.seed, mip_max_nodes=nodes, threads=1
            )
        else:
            solver = pulp.PULP_CBC_CMD(
                msg=False,
                timeLimit=cap,
                threads=1,
                options=[f"randomSeed {self.seed}", f"maxNodes {nodes}"],
            )
        if n:
            prob.solve(solver)
        chosen: list[ChosenColumn] = []
        for j, (ti, o, ex, ey, ez, cnt) in enumerate(cols):
            if (sel[j].value() or 0) < 0.5:
                continue
            if (rot[j].value() or 0) > 0.5:
                o = next(
                    oo for oo, e1, e2, e3 in state.types[ti].orients if (e1, e2, e3) == (ez, ey, ex)
                )
                ex, ez = ez, ex
            px, pz = round(x[j].value()), round(z[j].value())
            chosen.append(ChosenColumn(px, pz, ex, ez, ti, o, ey, cnt))
        compact(chosen)
        for px, pz, ex, ez, ti, o, ey, cnt in chosen:
            box = Box(px, 0, pz, px + ex, ey * cnt, pz + ez)
            if state.counts[ti] < cnt or not self._free(state, box):
                continue
            if not state.allows(state.types[ti], box):
                continue
            state.place(Block(ti, o, (px, 0, pz), (ex, ey, ez), (1, cnt, 1)))
        return greedy(state, SPACE_RULES[0], budget)  # always finishes; its work is counted

    @staticmethod
    def _free(state: PackState, box: Box) -> bool:
        """Is ``box`` inside one free space (solver output checked, never trusted)?"""
        return any(contains(s, box) for s in state.spaces)
