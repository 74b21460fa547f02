"""Whether boxes fit into a given number of bins, decided exactly by constraint programming.

A research tool beside the planner, not a planning strategy: it answers "do these boxes,
kept in their given orientation, fit into ``bins`` identical bins?" with a proof either way
or, when the time runs out first, "unknown". The benchmark uses it to prove that a bin
count no plan reaches cannot be reached at all (an instance's optimum), which no bound of
the boxes' shapes shows.

The model (OR-Tools CP-SAT) lays the bins side by side along X: a box in bin ``k`` at
``x`` sits at ``X = k * W + x`` and stays inside its bin. Two boxes then overlap in no bin
exactly when they are apart along X, Y or Z of that row. Three redundant cumulative
constraints (the boxes' cross-sections along each axis never exceed the row's) and one
disjunctive (boxes over half the bin in Y and Z, pairwise apart along the row) let the
solver prove most infeasible counts at once; the first boxes (largest first) are kept to
the first bins, which breaks the bins' symmetry. No support rule, no weight.

OR-Tools is imported when a question is asked, so the planner never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from packing.errors import PackingInputError

Answer = Literal["FEASIBLE", "INFEASIBLE", "UNKNOWN"]


@dataclass(frozen=True, slots=True)
class FitAnswer:
    """The answer to one question.

    Attributes
    ----------
    answer : {"FEASIBLE", "INFEASIBLE", "UNKNOWN"}
        ``INFEASIBLE`` is a proof that no packing into ``bins`` bins exists.
    bins : int
        The bin count asked about.
    placements : tuple of (bin, x, y, z)
        One per box in the order given, when ``FEASIBLE``; empty otherwise.
    seconds : float
        The solver's wall time.
    """

    answer: Answer
    bins: int
    placements: tuple[tuple[int, int, int, int], ...]
    seconds: float


def fits_in_bins(
    bin_dims: tuple[int, int, int],
    boxes: Sequence[tuple[int, int, int]],
    bins: int,
    *,
    time_limit: float = 60.0,
    workers: int = 2,
) -> FitAnswer:
    """Decide whether ``boxes`` (integer sides, fixed orientation) fit into ``bins`` bins.

    Raises
    ------
    PackingInputError
        A side that is not a positive integer, a box larger than the bin, ``bins`` < 1 or a
        ``time_limit`` that is not positive.
    """
    from ortools.sat.python import cp_model

    if type(bins) is not int or bins < 1:
        raise PackingInputError("bins", f"expected a whole number of at least 1, got {bins}")
    if not time_limit > 0:
        raise PackingInputError("time_limit", f"expected seconds above 0, got {time_limit}")
    for where, dims in [("bin_dims", bin_dims)] + [(f"boxes[{i}]", b) for i, b in enumerate(boxes)]:
        if (
            not isinstance(dims, tuple | list)
            or len(dims) != 3
            or any(type(v) is not int or v < 1 for v in dims)
        ):
            raise PackingInputError(where, f"expected three positive whole sides, got {dims!r}")
    W, H, D = bin_dims
    for i, (w, h, d) in enumerate(boxes):
        if w > W or h > H or d > D:
            raise PackingInputError(
                f"boxes[{i}]", f"{(w, h, d)} does not fit the bin {bin_dims} as given"
            )
    order = sorted(range(len(boxes)), key=lambda i: -(boxes[i][0] * boxes[i][1] * boxes[i][2]))
    items = [boxes[i] for i in order]
    m = cp_model.CpModel()
    b = [m.new_int_var(0, bins - 1, f"b{i}") for i in range(len(items))]
    x = [m.new_int_var(0, W - w, f"x{i}") for i, (w, _, _) in enumerate(items)]
    y = [m.new_int_var(0, H - h, f"y{i}") for i, (_, h, _) in enumerate(items)]
    z = [m.new_int_var(0, D - d, f"z{i}") for i, (_, _, d) in enumerate(items)]
    row = [m.new_int_var(0, bins * W, f"X{i}") for i in range(len(items))]
    for i in range(len(items)):
        m.add(row[i] == b[i] * W + x[i])
    for i in range(min(len(items), bins)):
        m.add(b[i] <= i)  # box i opens at most the (i+1)-th bin: the bins' order is free
    along_x = [m.new_fixed_size_interval_var(row[i], it[0], f"ix{i}") for i, it in enumerate(items)]
    along_y = [m.new_fixed_size_interval_var(y[i], it[1], f"iy{i}") for i, it in enumerate(items)]
    along_z = [m.new_fixed_size_interval_var(z[i], it[2], f"iz{i}") for i, it in enumerate(items)]
    m.add_cumulative(along_x, [h * d for _, h, d in items], H * D)
    # boxes over half the bin in Y and in Z are never apart in Y or Z: in a row, pairwise
    # apart in X (a disjunctive the solver reasons on at once)
    m.add_no_overlap([along_x[i] for i, (_, h, d) in enumerate(items) if 2 * h > H and 2 * d > D])
    m.add_cumulative(along_y, [w * d for w, _, d in items], bins * W * D)
    m.add_cumulative(along_z, [w * h for w, h, _ in items], bins * W * H)
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            (wi, hi, di), (wj, hj, dj) = items[i], items[j]
            apart = []
            for a, la, c, lc in (
                (row[i], wi, row[j], wj),
                (y[i], hi, y[j], hj),
                (z[i], di, z[j], dj),
            ):
                before, after = m.new_bool_var(""), m.new_bool_var("")
                m.add(a + la <= c).only_enforce_if(before)
                m.add(c + lc <= a).only_enforce_if(after)
                apart += [before, after]
            m.add_bool_or(apart)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers)
    status = solver.solve(m)
    seconds = float(solver.wall_time)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        placed: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * len(items)
        for k, i in enumerate(order):
            placed[i] = (
                int(solver.value(b[k])),
                int(solver.value(x[k])),
                int(solver.value(y[k])),
                int(solver.value(z[k])),
            )
        return FitAnswer("FEASIBLE", bins, tuple(placed), seconds)
    if status == cp_model.INFEASIBLE:
        return FitAnswer("INFEASIBLE", bins, (), seconds)
    return FitAnswer("UNKNOWN", bins, (), seconds)
