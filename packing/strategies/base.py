"""The strategy interface: pack pieces into one container; and ``clone``."""

from __future__ import annotations

import contextvars
import copy
import functools
import html
import inspect
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple, TypeVar

from packing.errors import PackingInputError, ratio_value, seconds_value
from packing.geometry import Dims
from packing.model import ContainerType, Piece
from packing.state import PackState, PieceType, group_pieces


class Packed(NamedTuple):
    """One piece as a strategy placed it in a container.

    Attributes
    ----------
    piece : Piece
    orientation : int
        Orientation index 0..5.
    position : tuple of int
        Minimum corner (x, y, z) [mm].
    extents : tuple of int
        Extents along X, Y, Z [mm].
    """

    piece: Piece
    orientation: int
    position: Dims
    extents: Dims


@dataclass(slots=True)
class SinglePack:
    """What a strategy put into one container.

    Attributes
    ----------
    placed : list of Packed
        Every placed piece with its orientation, position and extents [mm].
    leftover : list of Piece
        Pieces not placed.
    seconds : float
        Wall time used [s].
    time_limit : float
        The budget the strategy packed with [s] (its ``time_limit``, or its default).
    work_units : int
        Work units of the budget the search spent (see :class:`Budget`).
    solver_status : str or None
        What an exact solver proved, read from the solver itself: ``"optimal"``,
        ``"feasible"`` (stopped with a gap), ``"infeasible"`` or ``"failed"``; None for a
        heuristic search.
    gap : float or None
        Relative optimality gap the solver reported when it stopped (0.0 when proven
        optimal); None for a heuristic search.
    wall_cut : bool
        A safety net stopped the search before its work units were spent: its CPU time, or
        the wall clock of the outermost call (see :class:`Budget`); only then may the
        packing depend on the machine.
    """

    placed: list[Packed] = field(default_factory=list)
    leftover: list[Piece] = field(default_factory=list)
    seconds: float = 0.0
    time_limit: float = 0.0
    work_units: int = 0
    solver_status: str | None = None
    gap: float | None = None
    wall_cut: bool = False

    @property
    def placed_volume(self) -> int:
        """Volume of the placed pieces [mm³]."""
        return sum(e[0] * e[1] * e[2] for _, _, _, e in self.placed)


#: The wall-clock net of the outermost call running in this context (:meth:`Budget.wall_net`):
#: a :func:`time.perf_counter` value [s], inf when none runs.
_WALL_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar(
    "packing_wall_deadline", default=float("inf")
)


class Budget:
    """Search effort of one ``pack`` call (or of a whole plan), counted in work units.

    A unit prices the work the search actually does, operation by operation (see
    :meth:`charge`): free spaces scanned, (type, orientation) pairs and candidate blocks
    generated and ranked, block sizes examined without making a candidate, support and
    stacking checks, free-space splits, state copies, containers opened by bin fitting and
    the general blocks' making and scans.
    The prices were fitted so that one unit costs about the same CPU time on every kind of
    instance, and ``RATE`` makes a time limit of ``t`` seconds buy about ``t`` CPU seconds
    of search on the project's 2-core reference machine. A search ends when its units are
    spent, so equal inputs and settings give equal plans on any machine and under any load.

    The clocks are only safety nets, and neither reads the machine's load. A search that
    has used ``HARD_FACTOR × t + HARD_FLOOR_S`` seconds of its thread's CPU time stops early
    (``cut`` becomes True): only a machine several times slower than the reference per unit
    of work gets there, whatever else runs beside it. The wall clock bounds only the
    outermost call, the whole plan or request (:meth:`wall_net`): it stops every search
    inside once ``HARD_FACTOR ×`` that call's time limit ``+ HARD_FLOOR_S`` has passed
    since it started, so a machine many times busier still answers in time. Only when a
    net fires may a result depend on the machine.

    Parameters
    ----------
    seconds : float
        The time limit [s]; it buys ``seconds × RATE`` units.
    """

    #: Work units per CPU second of search on the reference machine (a unit is about
    #: 11 ns of CPU there, fine enough that the cheapest operations get their own price).
    DEFAULT_RATE = 93_000_000
    #: The units one second of a time limit buys in this process: :data:`DEFAULT_RATE`
    #: unless :meth:`use_rate` set this machine's own (``packplan calibrate`` measures it).
    RATE = DEFAULT_RATE
    #: The safety nets: a search stops once it has used ``HARD_FACTOR ×`` its time limit
    #: plus ``HARD_FLOOR_S`` of its thread's CPU time, and every search of an outermost
    #: call (:meth:`wall_net`) once that much of the call's time limit has passed on the
    #: wall clock (the floor keeps the short searches of a large plan clear of the CPU
    #: clock's granularity and a busy machine's scheduling pauses).
    HARD_FACTOR = 5.0
    HARD_FLOOR_S = 1.0
    #: Price [units] of one operation of each kind (see :meth:`charge`), fitted by
    #: ``scripts/fit_prices.py``: least squares of each plan's units ÷ RATE against its CPU
    #: seconds, relative, each plan weighted by the square root of its CPU seconds, over 73
    #: plans (BR1, BR4, BR7 and BR12 problems and generated loads of 10 to 80 box types at
    #: 1 and 3 s, four instances of each MPV class 1 and 4-8, a plan of 10,000 parcels,
    #: plans of 2,000 and 10,000 and of 500 and 1,000 distinct pieces, PLAIN and THERMO
    #: computes of 1,000 and 10,000 pieces, PLAIN computes of 1,000 and 5,000 thin parcels)
    #: on the reference machine, an AMD EPYC of 2 cores (README, "Benchmarks"), with the
    #: engine's hot modules compiled (``setup.py``). Refitted on 2026-12-07 at 13:25-13:32,
    #: once a greedy completion charged its work at once (no call to the budget at every
    #: turn, :class:`~packing.strategies.steps.Ledger`), the steps made no named tuples or
    #: interpreted blocks, and a sort of the free spaces was charged (about n log2 n,
    #: :func:`~packing.strategies.steps._in_rule_order`). The level: the fit made that
    #: hour's host read 1.0 on its plans of 1 and 3 s; the benchmark tables at their default
    #: budgets then read 0.69-1.07 by set (around 0.87), so the prices are the fit × 0.87.
    #: Hosts of this kind drift: that one ran a compute of 1,000 pieces, for about the same
    #: units, in 2.15 CPU s where the host of the day before had taken 1.38, so on another
    #: day a second of budget may buy from about 0.7 to 1.5 CPU seconds (``packplan
    #: calibrate`` measures a host's own ``RATE``). The plain modules
    #: (``PACKPLAN_PURE_PYTHON``) plan the same for the same units, at 1.3-2.6 times the
    #: CPU (measured before the speed-up). A price stands for the operation and the work
    #: that goes with it; KEYED_ROW, which no calibration plan uses much, keeps its set
    #: price.
    CALL = 156608
    PIECE = 101
    SPACE = 23
    TYPE = 15
    ROW = 20
    KEYED_ROW = 100
    ROW_TEST = 9
    #: A surface read by a support test; a test, a block tried and a block read by the
    #: rules count several (:data:`packing.state.SUPPORT_TEST`, ``BLOCK_READ``). Set by hand
    #: on 2026-12-07 at half the fitted 45, when those counts were 1 each and a read
    #: became half of one: the plans of BR1-BR7 and the generated loads, whose tests read
    #: about four surfaces each, are charged about as before, and a plan of 10,000 parcels,
    #: whose tests read about 48 in its trailers, about 0.55 times as much for its checks.
    CHECK = 23
    SPLIT = 1
    COPY = 345
    #: A container opened by bin fitting (:mod:`packing.binfit`): a new empty state.
    OPEN = 468
    #: The general blocks' prices: one scan of the general blocks for a free space (the
    #: compiled scan of those whose pieces are left, fitted with the rest), and one block
    #: pair tested while making them (fitted with the rest since 2026-11-27, when two runs
    #: of the fit script put it at 4 and 4).
    GENERAL_SCAN = 485
    GENERAL_PAIR = 2
    #: A placed block put back into a new state by the repair of a packing or a search of
    #: its tail (:meth:`~packing.strategies.blocks.BlockBuilding._repair`,
    #: :meth:`~packing.strategies.blocks.BlockBuilding._tails`): the free-space update
    #: of a placement beside the splits it is charged, which the search's prices fold into
    #: its other operations (fitted with the rest since 2026-12-07, 13:32; set by hand at
    #: 2,000 before, when on three generated loads each of 100 and 40 types and three BR7
    #: problems the repair spent 0.5-1.1 times the CPU per unit of the search around it).
    REPLAY = 1079

    #: The kinds of operation (the arguments of :meth:`charge`) and their price constants.
    KINDS: ClassVar[dict[str, str]] = {
        "calls": "CALL",
        "pieces": "PIECE",
        "spaces": "SPACE",
        "types": "TYPE",
        "rows": "ROW",
        "keyed_rows": "KEYED_ROW",
        "row_tests": "ROW_TEST",
        "checks": "CHECK",
        "splits": "SPLIT",
        "copies": "COPY",
        "opens": "OPEN",
        "general_scans": "GENERAL_SCAN",
        "general_pairs": "GENERAL_PAIR",
        "replays": "REPLAY",
    }

    #: The operation counts every new budget adds to while :meth:`recording` runs.
    _recording: ClassVar[dict[str, int] | None] = None

    __slots__ = ("allowance", "cpu_deadline", "cut", "seconds", "tally", "units", "wall_deadline")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.allowance = int(seconds * self.RATE)
        self.units = self.allowance
        self.cut = False
        #: The CPU-time net: :func:`time.thread_time` after which the search stops [s].
        self.cpu_deadline = time.thread_time() + self.net_seconds(seconds)
        #: The outermost call's wall-clock net (:meth:`wall_net`): the
        #: :func:`time.perf_counter` after which the search stops [s]; inf outside one.
        self.wall_deadline = self.current_wall_deadline()
        #: Operations counted by kind, when a calibration asks for them (else None).
        self.tally: dict[str, int] | None = Budget._recording

    @classmethod
    def net_seconds(cls, seconds: float) -> float:
        """How far past its start a safety net lies for a time limit of ``seconds``:
        ``HARD_FACTOR × seconds + HARD_FLOOR_S`` [s]."""
        return cls.HARD_FACTOR * seconds + cls.HARD_FLOOR_S

    @staticmethod
    def current_wall_deadline() -> float:
        """The wall-clock net of the outermost call running here (:meth:`wall_net`): a
        :func:`time.perf_counter` value [s], inf when none runs."""
        return _WALL_DEADLINE.get()

    @classmethod
    @contextmanager
    def wall_net(cls, seconds: float, factor: float | None = None) -> Iterator[None]:
        """Bound the wall-clock time of what runs inside: every budget made inside stops
        once ``factor × seconds + HARD_FLOOR_S`` (``factor`` None: ``HARD_FACTOR``) have
        passed since the ``with`` began, unless an outer ``wall_net`` of this thread (or
        context) is already running, whose net then stands. The outermost calls (a plan, a
        request, a strategy's ``pack`` called alone) enter it with their time limit; the
        searches inside them are bounded by their own CPU time only, so a busy machine does
        not change what they do.
        """
        if cls.current_wall_deadline() != float("inf"):
            yield
            return
        net = (cls.HARD_FACTOR if factor is None else factor) * seconds + cls.HARD_FLOOR_S
        token = _WALL_DEADLINE.set(time.perf_counter() + net)
        try:
            yield
        finally:
            _WALL_DEADLINE.reset(token)

    @classmethod
    def use_rate(cls, units_per_second: int | None) -> None:
        """Make one second of every later time limit in this process buy
        ``units_per_second`` work units (None: :data:`DEFAULT_RATE`).

        The prices are fitted on one reference machine; another machine runs a unit
        faster or slower, so there a time limit of ``t`` seconds costs other than ``t``
        CPU seconds. :func:`packing.bench.measure_rate` (``packplan calibrate``) measures
        the units a CPU second of this machine does; with that rate, a time limit means
        CPU seconds here. Plans stay deterministic for a given rate: equal inputs,
        settings and rate give equal plans on any machine and under any load.

        Raises
        ------
        PackingInputError
            ``units_per_second`` not a whole number >= 1 (``field`` names the argument).
        """
        cls.RATE = cls.valid_rate(units_per_second)

    @classmethod
    def valid_rate(cls, units_per_second: int | None) -> int:
        """The rate :meth:`use_rate` would set for ``units_per_second`` (None:
        :data:`DEFAULT_RATE`); raises :class:`PackingInputError` for anything but a whole
        number >= 1 (``field`` names the argument)."""
        if units_per_second is None:
            return cls.DEFAULT_RATE
        if (
            isinstance(units_per_second, bool)
            or not isinstance(units_per_second, int)
            or units_per_second < 1
        ):
            raise PackingInputError(
                "units_per_second", f"must be a whole number >= 1 (got {units_per_second!r})"
            )
        return units_per_second

    @classmethod
    def prices(cls) -> dict[str, int]:
        """The price [units] of each kind of operation, by the name :meth:`charge` gives it."""
        return {kind: getattr(cls, const) for kind, const in cls.KINDS.items()}

    @classmethod
    @contextmanager
    def recording(cls) -> Iterator[dict[str, int]]:
        """Count the operations of every budget created inside the ``with`` block, by
        kind (the names of :meth:`charge`'s arguments): what a refit of the prices needs
        of a whole plan (``scripts/fit_prices.py``). For one plan at a time: every budget
        made meanwhile, on any thread, adds to the same counts.

        Examples
        --------
        >>> from packing.strategies.base import Budget
        >>> with Budget.recording() as ops:
        ...     Budget(1.0).charge(rows=3, checks=2)
        >>> ops["rows"], ops["checks"]
        (3, 2)
        """
        previous = cls._recording
        counts: dict[str, int] = {}
        cls._recording = counts
        try:
            yield counts
        finally:
            cls._recording = previous

    def spend(self, units: int = 1) -> None:
        """Take ``units`` work units off the allowance."""
        self.units -= units

    def charge(
        self,
        *,
        calls: int = 0,
        pieces: int = 0,
        spaces: int = 0,
        types: int = 0,
        rows: int = 0,
        keyed_rows: int = 0,
        row_tests: int = 0,
        checks: int = 0,
        splits: int = 0,
        copies: int = 0,
        opens: int = 0,
        general_scans: int = 0,
        general_pairs: int = 0,
        replays: int = 0,
    ) -> None:
        """Spend the price of the operations a search step did.

        Parameters
        ----------
        calls : int
            ``pack`` calls (setting up a container's state and its result).
        pieces : int
            Pieces grouped into types or turned into placements.
        spaces : int
            Free spaces scanned to pick the next one to fill.
        types : int
            Piece types with pieces left whose smallest extents fit the space, looked at
            for candidate blocks, and their (type, orientation) pairs examined; the types
            with pieces left passed over count one for
            :data:`~packing.strategies.steps.PASSED_PER_TYPE` of them.
        rows : int
            Candidate blocks generated and ranked.
        keyed_rows : int
            Candidate blocks ranked by unload priority or floor rule (a slower sort).
        row_tests : int
            Block sizes examined that made no candidate (too little volume to beat the
            best so far, or none the surfaces under a raised space can hold; cargo of many
            thin pieces examines many).
        checks : int
            The rules' checks, in support surfaces read (:attr:`CHECK`).
        splits : int
            Free spaces examined by a placement's update, the new ones it makes, and the
            containment tests of those (against the spaces of the same face of the block).
        copies : int
            Spaces, surfaces and blocks copied for a trial completion.
        opens : int
            Empty containers set up by bin fitting (:mod:`packing.binfit`).
        general_scans : int
            Scans of the general blocks for a free space (:mod:`packing.strategies.general`).
        general_pairs : int
            Block pairs tested (and simple blocks listed) while making general blocks.
        replays : int
            Placed blocks put back into a new state by the repair of a packing or a
            search of its tail.
        """
        self.units -= (
            calls * self.CALL
            + pieces * self.PIECE
            + spaces * self.SPACE
            + types * self.TYPE
            + rows * self.ROW
            + keyed_rows * self.KEYED_ROW
            + row_tests * self.ROW_TEST
            + checks * self.CHECK
            + splits * self.SPLIT
            + copies * self.COPY
            + opens * self.OPEN
            + general_scans * self.GENERAL_SCAN
            + general_pairs * self.GENERAL_PAIR
            + replays * self.REPLAY
        )
        tally = self.tally
        if tally is not None:
            for kind, n in (
                ("calls", calls),
                ("pieces", pieces),
                ("spaces", spaces),
                ("types", types),
                ("rows", rows),
                ("keyed_rows", keyed_rows),
                ("row_tests", row_tests),
                ("checks", checks),
                ("splits", splits),
                ("copies", copies),
                ("opens", opens),
                ("general_scans", general_scans),
                ("general_pairs", general_pairs),
                ("replays", replays),
            ):
                tally[kind] = tally.get(kind, 0) + n

    @property
    def spent(self) -> int:
        """Work units spent so far (a completion may spend past the allowance)."""
        return self.allowance - self.units

    def past_wall_net(self) -> bool:
        """Has the wall-clock net of the outermost call (:meth:`wall_net`) passed?"""
        return time.perf_counter() >= self.wall_deadline

    def exhausted(self) -> bool:
        """Are the units spent (or has a safety net fired, setting ``cut``)?"""
        if self.units <= 0:
            return True
        if time.thread_time() >= self.cpu_deadline or time.perf_counter() >= self.wall_deadline:
            self.cut = True
            return True
        return False


class Strategy(ABC):
    """Packs a set of pieces into one container, as much of it as it can.

    Settings are keyword-only constructor arguments stored as given (scikit-learn style);
    they are validated when solving, and :meth:`pack` never changes them. Code that needs
    other settings works on a :func:`clone`: :func:`packing.plan_containers` packs with
    clones whose ``time_limit`` is each search's share of the plan's time limit.

    Parameters
    ----------
    time_limit : float or None
        Budget of one ``pack`` call [s]; None: the strategy's own default.
    seed : int
        Seed of every random choice; equal seeds give equal plans.
    """

    #: Registered name (see :data:`packing.strategies.STRATEGIES`).
    name: ClassVar[str] = ""
    #: Budget of one ``pack`` call when ``time_limit`` is None [s].
    default_time_limit: ClassVar[float] = 1.0
    #: Run by default in the benchmark tables (False for strategies meant for small
    #: instances only).
    in_benchmark: ClassVar[bool] = True

    def __init__(self, *, time_limit: float | None = None, seed: int = 0) -> None:
        self.time_limit = time_limit
        self.seed = seed

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def _repr_html_(self) -> str:
        """In a notebook: the strategy's name and a table of its settings (escaped)."""
        rows = "".join(
            f"<tr><td>{html.escape(k)}</td><td>{html.escape(repr(v))}</td></tr>"
            for k, v in self.get_params().items()
        )
        return (
            f"<p><b>{html.escape(type(self).__name__)}</b> ({html.escape(self.name)})</p>"
            f"<table><thead><tr><th>setting</th><th>value</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )

    def get_params(self) -> dict[str, object]:
        """The constructor settings as given, by name."""
        return {k: getattr(self, k) for k in _param_names(type(self))}

    def set_params(self, **params: object) -> Strategy:
        """Change settings in place and return the strategy; unknown names are refused.

        Raises
        ------
        PackingInputError
            For a name that is not a setting (``field`` is that name).
        """
        valid = self.get_params()
        for k, v in params.items():
            if k not in valid:
                raise PackingInputError(
                    k, f"is not a setting of {self.name}; expected one of {sorted(valid)}"
                )
            setattr(self, k, v)
        return self

    def _validate(self) -> float:
        limit = seconds_value(
            "time_limit", self.default_time_limit if self.time_limit is None else self.time_limit
        )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise PackingInputError("seed", f"must be an integer (got {self.seed!r})")
        return float(limit)

    def pack(
        self,
        pieces: Sequence[Piece],
        container: ContainerType,
        *,
        support_ratio: float = 0.8,
    ) -> SinglePack:
        """Pack ``pieces`` into one ``container``.

        Parameters
        ----------
        pieces : sequence of Piece
        container : ContainerType
        support_ratio : float
            Minimum fraction (0..1) of a raised piece's base resting on pieces directly
            below it.
        """
        ratio_value("support_ratio", support_ratio)
        limit = self._validate()
        start = time.perf_counter()
        types = group_pieces(pieces)
        state = PackState(container, types, support_ratio)
        with Budget.wall_net(limit):
            budget = Budget(limit)
            budget.charge(calls=1, pieces=len(pieces))
            final = self._solve(state, budget)
        out = materialize(final)
        budget.charge(pieces=len(out.placed))
        out.seconds = time.perf_counter() - start
        out.time_limit = limit
        out.work_units = budget.spent
        out.wall_cut = budget.cut
        return out

    @abstractmethod
    def _solve(self, state: PackState, budget: Budget) -> PackState:
        """Fill ``state`` (or a copy of it) within ``budget`` and return the final state."""


@functools.cache
def _param_names(cls: type[Strategy]) -> tuple[str, ...]:
    """Names of the keyword settings of a strategy class's constructor."""
    return tuple(k for k in inspect.signature(cls.__init__).parameters if k != "self")


S = TypeVar("S", bound=Strategy)


def clone(strategy: S, **overrides: object) -> S:
    """A new strategy of the same class and settings, with ``overrides`` applied.

    As :func:`sklearn.base.clone`: the settings are copied (deeply), nothing else is, and
    ``strategy`` is left as it was.

    Parameters
    ----------
    strategy : Strategy
    **overrides
        Settings to change, e.g. ``time_limit`` [s] or ``seed``.

    Returns
    -------
    Strategy
        A new instance of ``type(strategy)``.

    Raises
    ------
    TypeError
        ``strategy`` is not a :class:`Strategy`.
    PackingInputError
        An override is not a setting of the strategy (``field`` is its name).
    """
    if not isinstance(strategy, Strategy):
        raise TypeError(f"clone expects a Strategy (got {type(strategy).__name__})")
    params = {k: copy.deepcopy(v) for k, v in strategy.get_params().items()}
    for k in overrides:
        if k not in params:
            raise PackingInputError(
                k, f"is not a setting of {strategy.name}; expected one of {sorted(params)}"
            )
    params.update(overrides)
    return type(strategy)(**params)  # type: ignore[arg-type]


def materialize(state: PackState) -> SinglePack:
    """Turn the blocks of a final state into pieces with positions."""
    types: list[PieceType] = state.types
    pools = [list(t.pieces) for t in types]
    out = SinglePack()
    for tidx, orient, box in state.piece_boxes():
        piece = pools[tidx].pop()
        out.placed.append(
            Packed(
                piece,
                orient,
                (box.x0, box.y0, box.z0),
                (box.x1 - box.x0, box.y1 - box.y0, box.z1 - box.z0),
            )
        )
    for pool in pools:
        out.leftover.extend(reversed(pool))
    return out
