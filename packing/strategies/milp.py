"""An exact 3D packing of one container as a mixed-integer program (PuLP; HiGHS or CBC).

Every piece is a choice of the program: placed or not, one of its allowed orientations
(``rules.orientations``; keep-upright is the subset that keeps the height vertical), and a
position. Pairs of placed pieces are kept apart by the relative-position formulation of
Chen, Lee & Shen (1995), "An analytical model for the container loading problem", EJOR
80(1): 68–76 — for each pair, binaries *left of*, *right of*, *behind*, *in front of*,
*below*, *above*, at least one of them chosen. The objective is the placed volume; the
container's bounds and payload, and the rules :func:`packing.validate.validate_plan`
checks, are constraints:

- **support** — a piece off the floor rests on placed pieces whose tops are at its
  bottom, on at least ``support_ratio`` of its base. The supported area is the sum of
  products of overlaps along X and Z; each product ``u · v`` is replaced by McCormick's
  (1976) lower envelope ``ez·u + ex·v − ex·ez`` (the piece's base ``ex × ez``), which is
  exact when a supporter spans the piece along X or along Z (stacks, rows, bridges) and
  an under-estimate for corner overlaps. The rule is therefore never broken, and the
  program may give up some packings that lean on corner overlaps only.
- **nothing on top** — no supporter may be such a piece, and a piece above it (with
  overlapping footprints) keeps at least one grid step of air;
- **floor only** — the piece stands at height 0;
- **unload priority** — no lower-priority piece above a higher one, nor between it and
  the door (the *above* / *towards the door* binaries of such pairs are fixed to 0,
  which is exact);
- **MANUAL order** — a transitive "loaded before" relation over the placed pieces,
  at least every *below* and *towards the door* binary chosen, must not put a later
  MANUAL item before an earlier one and may have no cycle (stricter than needed, as the
  binaries chosen may be more than the contacts that force an order).

Positions lie on the grid of the greatest common divisor of the container's and the
pieces' lengths (10 mm for centimetre data).

The default strategy (block building) packs first: its plan is handed to the solver as
its starting solution, and whatever the solver returns, the better of the two plans (by
placed volume) is kept, so the program is never worse than the heuristic. The solver's
work is a node allowance, in proportion to ``time_limit`` and inversely to the program's
nonzero coefficients; with HiGHS (one thread, seeded) equal inputs and settings give
equal plans and statuses, while CBC's search is not repeatable run to run. The solver counts
wall time: it stops at the size of the budget's safety net (``Budget.net_seconds``) from the
start of the search, or at the outermost call's wall-clock net, whichever comes first; a
run stopped there (not on its node allowance) marks the result ``wall_cut``.
Above ``max_pieces`` pieces the strategy is block building alone.

How far this gets (2-core machine shared with other work, ``time_limit`` 5 s): on 30
seeded orders of 6–12 parcels into 28–56 L thermal boxes, 21 proven optimal (13 of them
because every parcel fits) and 9 stopped with gaps of 14–23 % to the bound, at most 4.2 CPU
seconds each; with 30 s, 4 of those 9 were proven too (block building 3.6 % below the
optimum on one, optimal on 3). Where the pieces stack freely the bound rarely leaves the
total volume of the order: proving that the last parcels cannot all fit is the hard part
of this model, even with the valid inequalities it carries (cross-section bounds along
each axis and the floor area of the pieces on the floor, see
:func:`_cross_section_cuts`).

The result carries what the solver itself reported (:attr:`SinglePack.solver_status`,
:attr:`SinglePack.gap`): ``"optimal"`` when the returned plan is proven best among the
plans the program can express (see the limits above), ``"feasible"`` with the relative
gap to the solver's bound otherwise. The heuristic's plan can lie outside the program
when it leans on corner overlaps: then the solver rejects the start (2 of the 17 orders
above that went to the solver), and should that plan beat the program's bound, the
status is ``"feasible"`` with no gap.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any, ClassVar, NamedTuple

import pulp

from packing.errors import PackingInputError, PlanValidationError
from packing.loadorder import load_steps
from packing.model import ContainerType, Piece, Placement
from packing.result import ContainerLoad, PackResult
from packing.state import Block, OrientTuple, PackState
from packing.strategies.base import Budget, SinglePack, Strategy, materialize
from packing.strategies.blocks import BlockBuilding
from packing.validate import validate_plan

#: What ``solver_status`` may say (see :class:`~packing.strategies.base.SinglePack`).
SOLVER_STATUSES: tuple[str, ...] = ("optimal", "feasible", "infeasible", "failed")

#: Axis of the door: a piece beyond another along it lies between that piece and the door.
_DOOR_AXIS = {"FRONT": 0, "TOP": 1, "SIDE": 2}


class Outcome(NamedTuple):
    """What the solver reported about a program.

    Attributes
    ----------
    status : str
        ``"optimal"``, ``"feasible"``, ``"infeasible"`` or ``"failed"``, from the solver's
        own status (HiGHS's model status; CBC's first solution line).
    bound : float or None
        Proven upper bound on the placed volume [mm³]; None when the solver gave none.
    nodes : int
        Branch-and-bound nodes the solver explored.
    detail : str
        The solver's own words for its status.
    has_solution : bool
        The solver returned an integer solution (its variables' values are a plan).
    timed_out : bool
        The solver stopped at its wall-clock cap (the budget's safety net, see
        :meth:`MilpPlacement._run`), not on its node allowance or a proof: the plan may
        then depend on the machine, and the result says so (``wall_cut``).
    """

    status: str
    bound: float | None
    nodes: int
    detail: str
    has_solution: bool = False
    timed_out: bool = False


class _Slot(NamedTuple):
    """One piece in the program: its type and the orientations that fit the container."""

    type_index: int
    orients: list[OrientTuple]


@dataclass
class _Program:
    """The MILP and its variables, positions in grid steps of ``grid`` mm."""

    prob: pulp.LpProblem
    slots: list[_Slot]
    grid: int
    vol_unit: int
    placed: list[pulp.LpVariable]
    orient: list[list[pulp.LpVariable]]
    pos: list[tuple[pulp.LpVariable, pulp.LpVariable, pulp.LpVariable]]
    floor: list[pulp.LpVariable]
    rel: dict[tuple[int, int, int], pulp.LpVariable]
    fixed: set[tuple[int, int, int]]
    supp: dict[tuple[int, int], tuple[pulp.LpVariable, pulp.LpVariable, pulp.LpVariable]]
    before: dict[tuple[int, int], pulp.LpVariable] = field(default_factory=dict)


def _quiet_highs() -> Any:
    """A ``highspy.Highs`` whose logging is off before it does anything.

    The constructor enables HiGHS's callbacks, which prints HiGHS's banner on standard
    output unless ``output_flag`` is already false (HiGHS 1.16); setting the option is the
    one call that may come first without logging, so it goes in before the callbacks.
    """
    import highspy

    class QuietHighs(highspy.Highs):
        def enableCallbacks(self) -> Any:
            self.setOptionValue("output_flag", False)
            return super().enableCallbacks()  # type: ignore[no-untyped-call]

    model = QuietHighs()  # type: ignore[no-untyped-call]
    model.setOptionValue("output_flag", False)  # older HiGHS: no callbacks in the constructor
    return model


class _HiGHS(pulp.HiGHS):  # type: ignore[misc]
    """PuLP's HiGHS interface that starts from the variables' initial values and keeps
    HiGHS's own status, bound and node count (PuLP calls a run stopped by a limit
    "Optimal")."""

    def __init__(self, *, start: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start = start
        self.outcome: Outcome | None = None

    def createAndConfigureSolver(self, lp: pulp.LpProblem) -> None:
        """PuLP's set-up of the HiGHS model, with HiGHS's logging off from the start: the
        model is built quiet (:func:`_quiet_highs`), so nothing reaches standard output,
        not even the banner HiGHS prints once a model is used with logging on."""
        model = lp.solverModel = _quiet_highs()
        for key, value in (
            ("mip_rel_gap", self.gapRel),
            ("mip_abs_gap", self.gapAbs),
            ("threads", self.threads),
            ("time_limit", None if self.timeLimit is None else float(self.timeLimit)),
            *self.optionsDict.items(),
        ):
            if value is not None:
                model.setOptionValue(key, value)

    def callSolver(self, lp: pulp.LpProblem) -> None:
        import highspy

        model = lp.solverModel
        if self.start:
            sol = highspy.HighsSolution()
            sol.col_value = [float(v.varValue or 0.0) for v in lp.variables()]
            sol.value_valid = True
            model.setSolution(sol)
        model.run()

    def findSolutionValues(self, lp: pulp.LpProblem) -> tuple[int, int]:
        import highspy

        model = lp.solverModel
        ms = model.getModelStatus()
        info = model.getInfo()
        has = info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
        values = list(model.getSolution().col_value) if has else []
        for var in lp.variables():
            var.varValue = values[var.index] if has else None
        S = highspy.HighsModelStatus
        stopped = (
            S.kTimeLimit,
            S.kIterationLimit,
            S.kSolutionLimit,
            S.kInterrupt,
            S.kObjectiveBound,
            S.kObjectiveTarget,
            S.kMemoryLimit,
        )
        # PuLP hands HiGHS the negated objective of a maximisation.
        bound = -info.mip_dual_bound if math.isfinite(info.mip_dual_bound) else None
        if ms == S.kOptimal:
            status = "optimal"
        elif ms in (S.kInfeasible, S.kUnboundedOrInfeasible):
            status = "infeasible"
        elif ms in stopped:
            status = "feasible"
        else:
            status = "failed"
        self.outcome = Outcome(
            status,
            bound,
            int(info.mip_node_count),
            model.modelStatusToString(ms),
            has,
            ms == S.kTimeLimit,
        )
        return pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound


class _CBC(pulp.PULP_CBC_CMD):  # type: ignore[misc]
    """PuLP's bundled CBC that keeps CBC's own first solution line (PuLP calls a run
    stopped on a limit with a solution "Optimal")."""

    status_line = ""

    def get_status(self, filename: str) -> tuple[int, int]:
        with open(filename) as f:
            self.status_line = f.readline().strip()
        return super().get_status(filename)  # type: ignore[no-any-return]


def _cbc_outcome(status_line: str, log: str, unit: int) -> Outcome:
    """Status, bound [mm³] and nodes from CBC's solution line and log (objective in
    ``unit`` mm³)."""
    first = status_line.split(" - ")[0].strip()
    nodes_m = re.search(r"Enumerated nodes:\s+(\d+)", log)
    nodes = int(nodes_m.group(1)) if nodes_m else 0
    bound: float | None = None
    # A maximisation's summary states its bound as "Upper bound", in the objective's sense.
    m = re.search(r"Upper bound:\s+(-?[\d.eE+-]+)", log)
    if m:
        bound = float(m.group(1)) * unit
    elif first == "Optimal":
        # a proven optimum is its own bound
        m = re.search(r"Objective value:\s+(-?[\d.eE+-]+)", log)
        bound = float(m.group(1)) * unit if m else None
    if first == "Optimal":
        status = "optimal"
    elif first.startswith("Stopped"):
        status = "feasible"
    elif "nfeasible" in first:
        status = "infeasible"
    else:
        status = "failed"
    # A run stopped before any integer solution writes its relaxation's values instead.
    has = status in ("optimal", "feasible") and "no integer solution" not in status_line
    return Outcome(
        status,
        bound,
        nodes,
        status_line or "no solution file line",
        has,
        # with or without an integer solution: "Stopped on time (no integer solution ..."
        status_line.startswith("Stopped on time"),
    )


class MilpPlacement(Strategy):
    """Every piece placed by one mixed-integer program, warm-started by block building.

    Parameters
    ----------
    time_limit : float or None
        Budget of one container [s]; None: 5 s. A fifth goes to the block-building
        heuristic, the rest buys the solver's node allowance (``WORK_PER_SECOND``
        divided by the program's nonzero coefficients, nodes per second); the solver stops
        at the size of the budget's safety net on the wall clock (see the module).
    seed : int
        Random seed handed to the solver.
    solver : {"highs", "cbc"}
        MILP solver: HiGHS through highspy, or the CBC that PuLP bundles. HiGHS falls back
        to CBC when highspy is not installed.
    warm_start : bool
        Hand the heuristic's plan to the solver as its starting solution. (The better of
        the two plans is returned either way.)
    max_pieces : int
        Largest number of pieces given to the program; with more, the strategy is block
        building alone (``solver_status`` None).
    """

    name = "milp"
    default_time_limit = 5.0
    in_benchmark = False  # meant for small instances
    #: Share of the budget spent by the heuristic before the solver starts.
    HEURISTIC_SHARE = 0.2
    #: Solver work per second of budget, counted as branch-and-bound nodes times the
    #: program's nonzero coefficients (a node's work grows with them): 2.9 to 4.6 million
    #: a CPU second on the project's 2-core machine, on orders of 10 and 12 parcels.
    WORK_PER_SECOND = 3_000_000
    #: What a CBC node costs in HiGHS nodes (2.6 to 3.3 times the CPU time on the same
    #: programs): CBC's node allowance is divided by it.
    CBC_NODE_COST = 3.0
    #: HiGHS options beyond the settings: its primal heuristics (RINS, RENS, feasibility
    #: jump) are off, as the program starts from the block-building plan; on an order of
    #: 11 parcels they took about 60 % of the solver's CPU time for the same bound.
    HIGHS_OPTIONS: ClassVar[dict[str, object]] = {
        "mip_heuristic_effort": 0.0,
        "mip_heuristic_run_rins": False,
        "mip_heuristic_run_rens": False,
        "mip_heuristic_run_feasibility_jump": False,
        "mip_heuristic_run_root_reduced_cost": False,
    }

    def __init__(
        self,
        *,
        time_limit: float | None = None,
        seed: int = 0,
        solver: str = "highs",
        warm_start: bool = True,
        max_pieces: int = 12,
    ) -> None:
        super().__init__(time_limit=time_limit, seed=seed)
        self.solver = solver
        self.warm_start = warm_start
        self.max_pieces = max_pieces

    # -- the common interface ----------------------------------------------------------------

    def pack(
        self,
        pieces: Sequence[Piece],
        container: ContainerType,
        *,
        support_ratio: float = 0.8,
    ) -> SinglePack:
        """Pack ``pieces`` into one ``container`` (see :meth:`Strategy.pack`).

        The result's ``solver_status`` and ``gap`` say what the solver proved about the
        returned plan: ``"optimal"`` (gap 0.0), ``"feasible"`` (the relative gap between
        the plan's placed volume and the solver's bound, None when the solver proved no
        bound), ``"infeasible"`` (which a program whose pieces are all optional can only
        be by a solver's error) or ``"failed"`` (the heuristic's plan is returned); None
        for both when no solver ran (more than ``max_pieces`` pieces, or a budget too
        small to buy one node).
        """
        self._outcome: tuple[str | None, float | None] = (None, None)
        out = super().pack(pieces, container, support_ratio=support_ratio)
        out.solver_status, out.gap = self._outcome
        del self._outcome
        return out

    def _check_settings(self) -> None:
        if self.solver not in ("highs", "cbc"):
            raise PackingInputError("solver", f"must be 'highs' or 'cbc' (got {self.solver!r})")
        if not isinstance(self.warm_start, bool):
            raise PackingInputError(
                "warm_start", f"must be True or False (got {self.warm_start!r})"
            )
        if (
            not isinstance(self.max_pieces, int)
            or isinstance(self.max_pieces, bool)
            or self.max_pieces < 1
        ):
            raise PackingInputError(
                "max_pieces", f"must be an integer >= 1 (got {self.max_pieces!r})"
            )

    def _solve(self, state: PackState, budget: Budget) -> PackState:
        started = time.perf_counter()
        self._check_settings()
        slots = _slots(state)
        if len(slots) > self.max_pieces:
            return BlockBuilding()._solve(state, budget)
        share = Budget(budget.seconds * self.HEURISTIC_SHARE)
        heuristic = BlockBuilding()._solve(state.copy(), share)
        budget.spend(share.spent)
        total = sum(state.types[s.type_index].volume for s in slots)
        if heuristic.placed_volume == total:
            # Every piece that fits the container alone is placed: nothing can be better.
            self._outcome = ("optimal", 0.0)
            return heuristic
        # the allowance in seconds of the reference machine, whose CPU second buys
        # WORK_PER_SECOND of solver work: with a machine's own rate (Budget.use_rate) the
        # nodes scale as the units do, so a time limit means CPU seconds here too
        work = (
            budget.allowance
            / Budget.DEFAULT_RATE
            * (1.0 - self.HEURISTIC_SHARE)
            * self.WORK_PER_SECOND
        )
        if work < len(slots) ** 2:  # not one node of even the smallest program
            return heuristic
        program = _build(state, slots)
        nonzeros = sum(len(c) for c in program.prob.constraints())
        nodes = int(work / nonzeros)
        if nodes < 1:
            return heuristic
        if self.warm_start:
            _set_start(program, state, heuristic)
        outcome = self._run(program, budget, nodes, started)
        if outcome.timed_out:
            budget.cut = True  # a safety net stopped the solver: the result says wall_cut
        # a node costs its share of the seconds that bought it, in the budget's units
        budget.spend(int(outcome.nodes * nonzeros / self.WORK_PER_SECOND * Budget.DEFAULT_RATE))
        solved = _decode(program, state) if outcome.has_solution else None
        if solved is not None and not _valid(solved, state):
            solved = None
            outcome = outcome._replace(status="failed", detail="solver plan breaks a rule")
        best = heuristic
        if solved is not None and solved.placed_volume > heuristic.placed_volume:
            best = solved
        self._outcome = _status_of(outcome, best.placed_volume, total, program.vol_unit)
        return best

    # -- solving -----------------------------------------------------------------------------

    def _run(self, program: _Program, budget: Budget, nodes: int, started: float) -> Outcome:
        """Solve with the chosen solver within ``nodes`` nodes and the wall-clock cap."""
        # the solver counts wall time: the budget's net counted from the start of the
        # search, and no later than the outermost call's wall-clock net
        now = time.perf_counter()
        cap = max(
            0.05,
            min(budget.net_seconds(budget.seconds) - (now - started), budget.wall_deadline - now),
        )
        use_highs = self.solver == "highs" and pulp.HiGHS().available()
        if use_highs:
            # Objective steps are whole volume units: a gap below one closes the proof.
            highs = _HiGHS(
                start=self.warm_start,
                msg=False,
                timeLimit=cap,
                threads=1,
                gapRel=0.0,
                gapAbs=0.999,
                random_seed=self.seed,
                mip_max_nodes=nodes,
                **self.HIGHS_OPTIONS,
            )
            try:
                program.prob.solve(highs)
            except Exception as exc:  # any solver error is a "failed" run
                return Outcome("failed", None, 0, f"HiGHS: {exc}")
            out = highs.outcome
            if out is None:
                return Outcome("failed", None, 0, "HiGHS gave no status")
            if out.bound is not None:
                out = out._replace(bound=out.bound * program.vol_unit)
            return out
        fd, log_path = tempfile.mkstemp(prefix="packplan-cbc-", suffix=".log")
        os.close(fd)
        cbc = _CBC(
            msg=False,
            timeLimit=cap,
            threads=1,
            gapRel=0.0,
            gapAbs=0.999,
            warmStart=self.warm_start,
            logPath=log_path,
            # CBC's preprocessing together with a MIP start has reported wrong optima
            # (1 run in 6 on a small program, against 0 in 16 without it).
            options=[
                f"randomSeed {self.seed}",
                f"maxNodes {max(1, int(nodes / self.CBC_NODE_COST))}",
                "preprocess off",
            ],
        )
        try:
            program.prob.solve(cbc)
            with open(log_path) as f:
                log = f.read()
        except Exception as exc:  # any solver error is a "failed" run
            return Outcome("failed", None, 0, f"CBC: {exc}")
        finally:
            os.remove(log_path)
        return _cbc_outcome(cbc.status_line, log, program.vol_unit)


# -- the program -----------------------------------------------------------------------------


def _slots(state: PackState) -> list[_Slot]:
    """The pieces the program may place: those with an orientation that fits the empty
    container and a weight within the payload (each type's pieces in a row)."""
    out = []
    for t in state.types:
        fit = [o for o in t.orients if o[1] <= state.L and o[2] <= state.H and o[3] <= state.W]
        if not fit:
            continue
        n = min(state.counts[t.index], state.max_by_weight(t))
        out += [_Slot(t.index, fit)] * n
    return out


def _build(state: PackState, slots: list[_Slot]) -> _Program:
    """The relative-position program over ``slots`` (see the module's docstring)."""
    types = state.types
    lengths = [state.L, state.H, state.W] + [e for s in slots for o in s.orients for e in o[1:]]
    g = reduce(math.gcd, lengths)
    size = (state.L // g, state.H // g, state.W // g)
    vol_unit = reduce(math.gcd, [types[s.type_index].volume for s in slots], 0) or 1
    n = len(slots)
    prob = pulp.LpProblem("milp_3d", pulp.LpMaximize)
    var = prob.add_variable
    placed = [var(f"p{i}", cat="Binary") for i in range(n)]
    orient = [
        [var(f"o{i}_{k}", cat="Binary") for k in range(len(s.orients))] for i, s in enumerate(slots)
    ]
    pos = [
        tuple(var(f"{a}{i}", 0, size[d], cat="Integer") for d, a in enumerate("xyz"))
        for i in range(n)
    ]
    floor = [var(f"f{i}", cat="Binary") for i in range(n)]
    # extents of slot i along each axis [grid steps], as expressions of its orientation
    ext = [
        [
            pulp.lpSum(o[1 + d] // g * v for o, v in zip(s.orients, orient[i], strict=True))
            for d in range(3)
        ]
        for i, s in enumerate(slots)
    ]
    mins = [[min(o[1 + d] for o in s.orients) // g for d in range(3)] for s in slots]
    prob += pulp.lpSum(
        types[s.type_index].volume // vol_unit * placed[i] for i, s in enumerate(slots)
    )
    for i, s in enumerate(slots):
        t = types[s.type_index]
        prob += pulp.lpSum(orient[i]) == placed[i]
        for d in range(3):
            prob += pos[i][d] + ext[i][d] <= size[d]
        prob += pos[i][1] <= size[1] * (1 - floor[i])
        prob += floor[i] <= placed[i]
        if t.floor_only:
            prob += pos[i][1] == 0
    # the placed volume fits the container; the payload holds the placed weight
    prob += (
        pulp.lpSum(types[s.type_index].volume // vol_unit * placed[i] for i, s in enumerate(slots))
        <= (state.L * state.H * state.W) // vol_unit
    )
    if state.payload_left != float("inf"):
        prob += (
            pulp.lpSum(types[s.type_index].weight_kg * placed[i] for i, s in enumerate(slots))
            <= state.payload_left + 1e-9
        )
    _cross_section_cuts(prob, slots, orient, size, g)
    # the footprints of the pieces on the floor fit the floor
    prob += (
        pulp.lpSum(
            pulp.lpSum(
                o[1] // g * (o[3] // g) * v for o, v in zip(s.orients, orient[i], strict=True)
            )
            - max(o[1] // g * (o[3] // g) for o in s.orients) * (placed[i] - floor[i])
            for i, s in enumerate(slots)
        )
        <= size[0] * size[2]
    )
    door = _DOOR_AXIS[state.door]
    rel: dict[tuple[int, int, int], pulp.LpVariable] = {}
    fixed_rel: set[tuple[int, int, int]] = set()
    for i in range(n):
        if i + 1 < n and slots[i + 1].type_index == slots[i].type_index:
            j = i + 1  # identical pieces: placed in order, and in order along X
            prob += placed[i] >= placed[j]
            prob += pos[i][0] <= pos[j][0] + size[0] * (1 - placed[j])
        for j in range(i + 1, n):
            chosen = []
            for a, b in ((i, j), (j, i)):
                ta, tb = types[slots[a].type_index], types[slots[b].type_index]
                for d in range(3):
                    r = var(f"r{d}_{a}_{b}", cat="Binary")  # a before b along axis d
                    rel[(d, a, b)] = r
                    chosen.append(r)
                    fixed = mins[a][d] + mins[b][d] > size[d]
                    if d == 0 and ta is tb and a > b:
                        fixed = True  # identical pieces run along X in order
                    if d == 1 and tb.floor_only:
                        fixed = True  # b stands on the floor: nothing below it
                    if tb.priority < ta.priority and d in (1, door):
                        fixed = True  # b would be above a, or between a and the door
                    if fixed:
                        prob += r == 0
                        fixed_rel.add((d, a, b))
                        continue
                    gap = 1 if d == 1 and ta.no_top else 0  # air above a no-stack piece
                    prob += pos[a][d] + ext[a][d] + gap <= pos[b][d] + (size[d] + 1) * (1 - r)
            prob += pulp.lpSum(chosen) >= placed[i] + placed[j] - 1
    supp = _support(prob, state, slots, placed, orient, pos, floor, ext, size, g)
    program = _Program(prob, slots, g, vol_unit, placed, orient, pos, floor, rel, fixed_rel, supp)
    ranks = {types[s.type_index].manual_rank for s in slots} - {None}
    if len(ranks) > 1:
        _manual_order(program, state, door)
    return program


def _cross_section_cuts(
    prob: pulp.LpProblem,
    slots: list[_Slot],
    orient: list[list[pulp.LpVariable]],
    size: tuple[int, int, int],
    g: int,
) -> None:
    """Valid inequalities from lines through the container (they tighten the bound).

    A line along axis ``d`` crosses pieces whose extents along ``d`` sum to at most the
    container's size ``S``. Weighting each piece by a dual-feasible function of its extent
    and integrating over the cross-section gives ``Σ f(e_d) · (area across d) ≤ S ·
    cross-section`` (Fekete & Schepers 2004, "A general framework for bounds for
    higher-dimensional orthogonal packing problems", Math. Meth. Oper. Res. 60(2)). Used
    here: ``f(e) = S`` for ``e > S − ε``, ``e`` otherwise, ``ε`` the smallest extent of
    any piece along ``d``; and, for ``k`` = 1, 2, 3, at most ``k`` pieces longer than
    ``S / (k + 1)`` on a line.
    """
    for d in range(3):
        S = size[d]
        a, b = [e for e in range(3) if e != d]
        cross = size[a] * size[b]
        exts = [
            [(o[1 + d] // g, o[1 + a] // g * (o[1 + b] // g)) for o in s.orients] for s in slots
        ]
        eps = min(e for row in exts for e, _ in row)
        if eps <= S / 2:
            prob += (
                pulp.lpSum(
                    (S if e > S - eps else e) * area * v
                    for row, vs in zip(exts, orient, strict=True)
                    for (e, area), v in zip(row, vs, strict=True)
                )
                <= S * cross
            )
        for k in (1, 2, 3):
            long = [
                area * v
                for row, vs in zip(exts, orient, strict=True)
                for (e, area), v in zip(row, vs, strict=True)
                if e * (k + 1) > S
            ]
            if long:
                prob += pulp.lpSum(long) <= k * cross


def _support(
    prob: pulp.LpProblem,
    state: PackState,
    slots: list[_Slot],
    placed: list[pulp.LpVariable],
    orient: list[list[pulp.LpVariable]],
    pos: list[Any],
    floor: list[pulp.LpVariable],
    ext: list[list[Any]],
    size: tuple[int, int, int],
    g: int,
) -> dict[tuple[int, int], tuple[pulp.LpVariable, pulp.LpVariable, pulp.LpVariable]]:
    """Support constraints: ``s[i, j]`` says piece i rests on piece j, ``u``, ``v`` are
    (at most) their overlaps along X and Z [grid steps]."""
    types = state.types
    var = prob.add_variable
    n = len(slots)
    L, H, W = size
    supp = {}
    for i in range(n):
        if types[slots[i].type_index].floor_only:
            continue
        terms: list[list[Any]] = [[] for _ in slots[i].orients]
        on = []
        for j in range(n):
            if j == i or types[slots[j].type_index].no_top:
                continue
            s = var(f"s_{i}_{j}", cat="Binary")
            u = var(f"u_{i}_{j}", 0, L)
            v = var(f"v_{i}_{j}", 0, W)
            supp[(i, j)] = (s, u, v)
            on.append(s)
            prob += s <= placed[j]
            top = pos[j][1] + ext[j][1]
            prob += pos[i][1] >= top - H * (1 - s)
            prob += pos[i][1] <= top + H * (1 - s)
            for d, c, var_ in ((0, L, u), (2, W, v)):
                prob += var_ <= pos[i][d] + ext[i][d] - pos[j][d] + c * (1 - s)
                prob += var_ <= pos[j][d] + ext[j][d] - pos[i][d] + c * (1 - s)
                prob += var_ <= ext[i][d]
                prob += var_ <= ext[j][d]
                prob += var_ <= c * s
                prob += var_ >= s  # a supporter overlaps the base
            for k, o in enumerate(slots[i].orients):
                ex, ez = o[1] // g, o[3] // g
                terms[k].append(ez * u + ex * v - ex * ez * s)
        prob += pulp.lpSum(on) >= placed[i] - floor[i]
        ratio = state.support_ratio
        for k, o in enumerate(slots[i].orients):
            ex, ez = o[1] // g, o[3] // g
            area = ex * ez
            prob += pulp.lpSum(terms[k]) >= ratio * area * (orient[i][k] - floor[i]) - (
                max(1, len(terms[k])) * area + ratio * area
            ) * (1 - orient[i][k])
    return supp


def _manual_order(program: _Program, state: PackState, door: int) -> None:
    """A transitive, acyclic "loaded before" relation that keeps the MANUAL request order."""
    prob, slots, types = program.prob, program.slots, state.types
    n = len(slots)
    before = program.before
    for a in range(n):
        for b in range(n):
            if a != b:
                before[(a, b)] = prob.add_variable(f"t_{a}_{b}", cat="Binary")
    for (a, b), t in before.items():
        prob += t >= program.rel[(1, a, b)]  # b above a
        if door != 1:
            prob += t >= program.rel[(door, a, b)]  # b between a and the door
        if a < b:
            prob += t + before[(b, a)] <= 1
        ra, rb = types[slots[a].type_index].manual_rank, types[slots[b].type_index].manual_rank
        if ra is not None and rb is not None and rb < ra:
            prob += t == 0  # b's item comes first in the request
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if len({a, b, c}) == 3:
                    prob += before[(a, c)] >= before[(a, b)] + before[(b, c)] - 1


# -- warm start, decoding, checking ----------------------------------------------------------


def _set_start(program: _Program, state: PackState, plan: PackState) -> None:
    """The heuristic's plan as the program's initial values (pieces of a type in X order)."""
    g = program.grid
    by_type: dict[int, list[tuple[int, Any]]] = {}
    for tidx, o, box in plan.piece_boxes():
        by_type.setdefault(tidx, []).append((o, box))
    for v in program.prob.variables():
        v.setInitialValue(0)
    boxes: dict[int, Any] = {}
    seen: dict[int, int] = {}
    for i, s in enumerate(program.slots):
        k = seen.get(s.type_index, 0)
        seen[s.type_index] = k + 1
        mine = sorted(by_type.get(s.type_index, []), key=lambda ob: (ob[1].x0, ob[1].y0, ob[1].z0))
        if k >= len(mine):
            continue
        o, box = mine[k]
        oi = next((m for m, ot in enumerate(s.orients) if ot[0] == o), None)
        if oi is None:
            continue
        boxes[i] = box
        program.placed[i].setInitialValue(1)
        program.orient[i][oi].setInitialValue(1)
        for d, c in enumerate((box.x0, box.y0, box.z0)):
            program.pos[i][d].setInitialValue(c // g)
        program.floor[i].setInitialValue(1 if box.y0 == 0 else 0)
    lo = {i: (b.x0, b.y0, b.z0) for i, b in boxes.items()}
    hi = {i: (b.x1, b.y1, b.z1) for i, b in boxes.items()}
    types = state.types
    for i in boxes:
        for j in boxes:
            if i >= j:
                continue
            for a, b in ((i, j), (j, i)):
                for d in range(3):
                    if (d, a, b) in program.fixed:
                        continue
                    gap = g if d == 1 and types[program.slots[a].type_index].no_top else 0
                    if hi[a][d] + gap <= lo[b][d]:
                        program.rel[(d, a, b)].setInitialValue(1)
                        break
                else:
                    continue
                break
    for (i, j), (s, u, v) in program.supp.items():
        if i in boxes and j in boxes and lo[i][1] > 0 and hi[j][1] == lo[i][1]:
            ox = min(hi[i][0], hi[j][0]) - max(lo[i][0], lo[j][0])
            oz = min(hi[i][2], hi[j][2]) - max(lo[i][2], lo[j][2])
            ex, ez = hi[i][0] - lo[i][0], hi[i][2] - lo[i][2]
            if ox > 0 and oz > 0 and ez * ox + ex * oz > ex * ez:
                s.setInitialValue(1)
                u.setInitialValue(ox // g)
                v.setInitialValue(oz // g)
    if program.before:
        edges = {
            (a, b)
            for (d, a, b), r in program.rel.items()
            if r.varValue and (d == 1 or d == _DOOR_AXIS[state.door])
        }
        closure = set(edges)
        while True:
            more = {(a, c) for a, b in closure for b2, c in closure if b == b2 and a != c}
            if more <= closure:
                break
            closure |= more
        for (a, b), t in program.before.items():
            t.setInitialValue(1 if (a, b) in closure else 0)


def _decode(program: _Program, state: PackState) -> PackState | None:
    """The solver's plan as a state (None when the solver gave no solution)."""
    if program.placed and program.placed[0].varValue is None:
        return None
    g = program.grid
    pieces = []
    for i, s in enumerate(program.slots):
        if (program.placed[i].varValue or 0.0) < 0.5:
            continue
        k = max(range(len(s.orients)), key=lambda m: program.orient[i][m].varValue or 0.0)
        o, ex, ey, ez = s.orients[k]
        x, y, z = (round(v.varValue or 0.0) * g for v in program.pos[i])
        pieces.append((y, x, z, Block(s.type_index, o, (x, y, z), (ex, ey, ez), (1, 1, 1))))
    out = state.copy()
    for *_, blk in sorted(pieces, key=lambda p: p[:3]):
        if out.counts[blk.type_index] < 1:
            return None
        out.place(blk)
    return out


def _valid(solved: PackState, state: PackState) -> bool:
    """Does the solver's plan keep every rule? (checked by :func:`validate_plan`)"""
    pack = materialize(solved)
    container = ContainerType(
        "milp",
        "milp",
        (state.L, state.H, state.W),
        max_payload_kg=None if state.payload_left == float("inf") else state.payload_left,
        loading_side=state.door,
    )
    boxes = [
        (p[0], p[1], p[2], p[0] + e[0], p[1] + e[1], p[2] + e[2]) for _, _, p, e in pack.placed
    ]
    ranks = [q.piece.item_order if q.piece.rules.manual_order else None for q in pack.placed]
    steps = load_steps(boxes, state.door, ranks)
    # The pieces of an item are identical: number them in load order, as plans do.
    seen: dict[str, int] = {}
    placements = []
    for step, q in sorted(zip(steps, pack.placed, strict=True), key=lambda sq: sq[0]):
        k = seen.get(q.piece.item_id, 0)
        seen[q.piece.item_id] = k + 1
        piece = replace(q.piece, instance=k)
        placements.append(Placement(piece, 0, q.position, q.orientation, q.extents, step))
    result = PackResult([ContainerLoad(0, container, placements)], [], "milp", state.support_ratio)
    try:
        validate_plan(result)
    except PlanValidationError:
        return False
    return True


def _status_of(outcome: Outcome, placed: int, total: int, unit: int) -> tuple[str, float | None]:
    """``(solver_status, gap)`` of the returned plan, which placed ``placed`` mm³, every
    placed volume being a multiple of ``unit`` mm³ and at most ``total`` mm³."""
    if outcome.status in ("infeasible", "failed"):
        return outcome.status, None
    bound = outcome.bound
    if outcome.status == "optimal" and bound is None:
        bound = float(placed)
    if bound is None:
        return "feasible", None
    bound = min(bound, float(total))
    if placed >= bound + unit:
        # The returned (heuristic) plan beats the program's own bound: it leans on a
        # support the program under-estimates, so the bound proves nothing about it.
        return "feasible", None
    if bound - placed < unit:  # no plan places less than a unit more
        return "optimal", 0.0
    return "feasible", (bound - placed) / placed if placed else math.inf
