"""Compare strategies over sets of instances: one call, one tidy table.

>>> from packing.compare import compare, random_problems
>>> table = compare(
...     ["block-building", "first-fit-decreasing"],
...     ["BR7", "MPV8", *random_problems(2, seed=1)],
...     time_limit=0.5,
...     limit=2,
... )  # doctest: +SKIP

Instances are :class:`Problem` objects: the shipped benchmark sets by name
(:func:`problems`: ``BR1`` … ``BR7`` container loading, ``MPV1``, ``MPV4`` … ``MPV8`` bin
packing), seeded random parcel orders (:func:`random_problems`), or any problem built by
hand. Strategies are registered names or instances with any settings; every run packs
with a :func:`~packing.strategies.clone`, so nothing passed in is changed.

How a problem is packed:

- ``"loading"`` (BR): one call of the strategy on the one container, with the run's time
  limit; the result is the volume it loads.
- ``"bin-packing"`` (MPV, random orders): containers are filled one after another, each
  by one call of the strategy on what is left, until every piece is in or a container
  takes none. Unlike :func:`packing.plan_containers` there is no search over container
  types and no repetition of a packing, so every container is the strategy's own work
  and the solver status and gap of each call are kept.

Every plan is checked by :func:`packing.validate_plan` before its row is written.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from tqdm import tqdm

from packing.bounds import fewest_containers
from packing.errors import (
    PackingInputError,
    count_value,
    ratio_value,
    seconds_value,
    seed_value,
)
from packing.generate import br_set, br_set_number
from packing.instances import SHIPPED_SETS, Instance, load_shipped
from packing.loadorder import load_steps
from packing.model import ContainerType, Piece, Placement, Rules, make_pieces
from packing.planner import lower_bound as volume_lower_bound
from packing.result import ContainerLoad, PackResult
from packing.strategies import Strategy, clone, get_strategy
from packing.strategies.base import SinglePack
from packing.validate import validate_plan

#: The container of generated orders: a roll cage of parcel networks, 800 × 720 mm base,
#: 1.6 m load height, 500 kg payload.
ROLL_CAGE = ContainerType(
    "roll-cage",
    "Roll cage 800 × 720 × 1600 mm",
    inner=(800, 1600, 720),
    max_payload_kg=500.0,
    loading_side="FRONT",
)

#: Columns of :func:`compare`'s table, in order.
COLUMNS: tuple[str, ...] = (
    "instance",
    "set",
    "kind",
    "strategy",
    "settings",
    "pieces",
    "placed",
    "utilisation_pct",
    "containers",
    "lower_bound",
    "gap_pct",
    "solver_gap_pct",
    "status",
    "cpu_s",
    "wall_s",
)

#: Kinds of problem: one container filled as much as possible, or every piece packed.
KINDS: tuple[str, ...] = ("loading", "bin-packing")

#: Solver statuses from best to worst; a plan of several containers reports its worst.
_STATUS_ORDER = ("optimal", "feasible", "infeasible", "failed")


class Problem(NamedTuple):
    """One instance to pack.

    Attributes
    ----------
    name : str
        Instance name (``BR7-3``, ``class1_n050/01``, ``random-0``).
    set : str
        Set it belongs to (``BR7``, ``MPV1``, ``random``).
    kind : {"loading", "bin-packing"}
        ``loading``: one container, as much volume as possible; ``bin-packing``: every
        piece into as few containers as possible.
    pieces : tuple of Piece
    container : ContainerType
    support_ratio : float
        Minimum supported fraction of a raised piece's base (0..1).
    lower_bound : int or None
        Bin packing: fewest containers any plan can use, as the set gives it (None: none
        given). The rows count against the largest of it, the volume and payload bound
        and the bound of the pieces' shapes (:func:`packing.bounds.fewest_containers`).
    """

    name: str
    set: str
    kind: str
    pieces: tuple[Piece, ...]
    container: ContainerType
    support_ratio: float
    lower_bound: int | None = None


def br_problem(inst: Instance, set_name: str) -> Problem:
    """A Bischoff & Ratcliff instance as a loading problem: flags honoured, support 0.8."""
    return Problem(
        inst.name,
        set_name,
        "loading",
        tuple(inst.pieces(honour_flags=True)),
        inst.container_type(),
        0.8,
    )


def mpv_problem(inst: Instance, set_name: str) -> Problem:
    """A Martello–Pisinger–Vigo instance as bin packing: no rotation, no support rule."""
    pieces = [
        p
        for bt in inst.box_types
        for p in make_pieces(
            str(bt.number), bt.dims, 1, rules=Rules(orientations=(0,)), item_order=bt.number
        )
    ]
    return Problem(
        inst.name,
        set_name,
        "bin-packing",
        tuple(pieces),
        inst.container_type(),
        0.0,
        inst.lower_bound,
    )


def problems(name: str, *, limit: int | None = None) -> list[Problem]:
    """The problems of a shipped benchmark set (see :func:`packing.instances.load_shipped`),
    or of a Bischoff & Ratcliff set the package does not ship, made by the sets' own
    generator (:func:`packing.generate.br_set`).

    Parameters
    ----------
    name : str
        ``"BR1"`` … ``"BR7"`` or ``"MPV1"``, ``"MPV4"`` … ``"MPV8"`` (shipped), or
        ``"BR0"``, ``"BR8"`` … ``"BR18"`` (100 problems each; BR8 … BR15 are the strongly
        heterogeneous sets, 30 to 100 box types).
    limit : int, optional
        Keep only the first ``limit`` problems.
    """
    if limit is not None:
        count_value("limit", limit, 1)
    if name not in SHIPPED_SETS and br_set_number(name) is not None:
        shipped = br_set(name)[:limit]
    else:
        shipped = load_shipped(name)[:limit]
    make = br_problem if name.startswith("BR") else mpv_problem
    return [make(inst, name) for inst in shipped]


def random_problems(
    count: int,
    *,
    parcels: int = 40,
    seed: int = 0,
    container: ContainerType = ROLL_CAGE,
    support_ratio: float = 0.8,
    kind: str = "bin-packing",
) -> list[Problem]:
    """``count`` seeded random parcel orders, as bin packing into ``container`` (or as
    loading of one ``container``).

    Orders come from :func:`packing.generate.random_order`, all drawn from one
    :class:`numpy.random.Generator` seeded with ``seed``; they are named ``random-0``, …
    (set ``random``).

    Parameters
    ----------
    count : int
        Orders (>= 1).
    parcels : int
        Pieces per order.
    seed : int
        Seed of the generator.
    container : ContainerType
        Container every order is packed into (default: :data:`ROLL_CAGE`).
    support_ratio : float
        Minimum supported fraction of a raised piece's base (0..1).
    kind : {"bin-packing", "loading"}
        ``bin-packing``: every parcel into as few containers as possible; ``loading``: as
        much as fits into one container (small orders for exact solvers).
    """
    from packing.generate import random_order

    count_value("count", count, 1)
    if kind not in KINDS:
        raise PackingInputError("kind", f"must be one of {list(KINDS)} (got {kind!r})")
    seed_value("seed", seed)
    ratio_value("support_ratio", support_ratio)
    if not isinstance(container, ContainerType):
        raise PackingInputError(
            "container", f"must be a ContainerType (got {type(container).__name__})"
        )
    rng = np.random.default_rng(seed)
    return [
        Problem(
            f"random-{k}",
            "random",
            kind,
            tuple(random_order(parcels, seed=rng)),
            container,
            support_ratio,
        )
        for k in range(count)
    ]


def _as_problems(instances: Iterable[str | Problem], limit: int | None) -> list[Problem]:
    if not isinstance(instances, str | Iterable) or isinstance(instances, Problem):
        instances = [instances]  # (a lone Problem, or something refused below)
    out: list[Problem] = []
    for item in [instances] if isinstance(instances, str) else instances:
        if isinstance(item, Problem):
            if item.kind not in KINDS:
                raise PackingInputError(
                    "instances",
                    f"problem {item.name!r}: kind must be one of {list(KINDS)} (got {item.kind!r})",
                )
            if not item.pieces:
                raise PackingInputError("instances", f"problem {item.name!r} has no pieces")
            out.append(item)
        elif isinstance(item, str):
            if item not in SHIPPED_SETS and br_set_number(item) is None:
                raise PackingInputError(
                    "instances",
                    f"{item!r} is not a shipped set; expected one of {list(SHIPPED_SETS)}, "
                    "another Bischoff & Ratcliff set BR0 … BR18 (made by its generator) "
                    "or Problem objects (random_problems())",
                )
            out.extend(problems(item, limit=limit))
        else:
            raise PackingInputError(
                "instances",
                f"expected set names or Problem objects (got {type(item).__name__})",
            )
    if not out:
        raise PackingInputError("instances", "holds no problem")
    return out


def _as_strategies(
    strategies: str | Strategy | Sequence[str | Strategy] | Mapping[str, str | Strategy],
) -> list[tuple[str, Strategy]]:
    if isinstance(strategies, str | Strategy):
        strategies = [strategies]
    if not isinstance(strategies, Iterable):
        raise PackingInputError(
            "strategies",
            "expected a strategy name or instance, a list of them or a mapping of labels "
            f"to them (got {type(strategies).__name__})",
        )
    if isinstance(strategies, Mapping):
        pairs = [(str(k), get_strategy(v)) for k, v in strategies.items()]
    else:
        pairs = []
        for s in strategies:
            strat = get_strategy(s)
            pairs.append((strat.name, strat))
    if not pairs:
        raise PackingInputError("strategies", "holds no strategy")
    return pairs


def settings_text(strategy: Strategy) -> str:
    """A strategy's settings as ``key=value`` pairs sorted by key (one string per setting
    combination, so tables group by it)."""
    return ", ".join(f"{k}={v!r}" for k, v in sorted(strategy.get_params().items()))


def _status(packs: Sequence[SinglePack]) -> tuple[str, float]:
    statuses = [p.solver_status for p in packs if p.solver_status is not None]
    gaps = [p.gap for p in packs if p.gap is not None]
    gap = 100.0 * max(gaps) if gaps else math.nan
    if not statuses:
        return "heuristic", gap
    rank = {s: i for i, s in enumerate(_STATUS_ORDER)}
    return max(statuses, key=lambda s: rank.get(s, len(rank))), gap


def _plan(problem: Problem, packs: Sequence[SinglePack], strategy: str) -> PackResult:
    ct = problem.container
    loads = []
    for idx, pack in enumerate(packs):
        boxes = [
            (pos[0], pos[1], pos[2], pos[0] + e[0], pos[1] + e[1], pos[2] + e[2])
            for _, _, pos, e in pack.placed
        ]
        ranks = [q.piece.item_order if q.piece.rules.manual_order else None for q in pack.placed]
        steps = load_steps(boxes, ct.loading_side, ranks)
        loads.append(
            ContainerLoad(
                idx,
                ct,
                [
                    Placement(q.piece, idx, q.position, q.orientation, q.extents, step)
                    for q, step in zip(pack.placed, steps, strict=True)
                ],
            )
        )
    return PackResult(loads, [], strategy, problem.support_ratio)


def run_problem(
    problem: Problem, strategy: Strategy, *, label: str | None = None, validate: bool = True
) -> dict[str, object]:
    """Pack one problem with one strategy (used as given: pass a clone) and return its row.

    See :func:`compare` for the columns.
    """
    cpu0, wall0 = time.process_time(), time.perf_counter()
    packs: list[SinglePack] = []
    remaining = list(problem.pieces)
    while remaining:
        pack = strategy.pack(remaining, problem.container, support_ratio=problem.support_ratio)
        if not pack.placed:
            break
        packs.append(pack)
        remaining = pack.leftover
        if problem.kind == "loading":
            break
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if validate:
        validate_plan(_plan(problem, packs, strategy.name))
    ct = problem.container
    placed_volume = sum(p.placed_volume for p in packs)
    total_volume = sum(p.volume for p in problem.pieces)
    n = len(packs)
    util = 100.0 * placed_volume / (n * ct.inner_volume) if n else 0.0
    lb: float
    if problem.kind == "loading":
        lb = math.nan
        bound = min(total_volume, ct.inner_volume)
        gap = 100.0 * (bound - placed_volume) / bound if bound else 0.0
    else:
        kg = sum(p.weight_kg for p in problem.pieces)
        lb = max(
            problem.lower_bound or 0,
            volume_lower_bound(ct, total_volume, kg),
            fewest_containers(problem.pieces, ct),
        )
        gap = 100.0 * (n - lb) / lb
    status, solver_gap = _status(packs)
    return {
        "instance": problem.name,
        "set": problem.set,
        "kind": problem.kind,
        "strategy": label or strategy.name,
        "settings": settings_text(strategy),
        "pieces": len(problem.pieces),
        "placed": sum(len(p.placed) for p in packs),
        "utilisation_pct": util,
        "containers": n,
        "lower_bound": lb,
        "gap_pct": gap,
        "solver_gap_pct": solver_gap,
        "status": status,
        "cpu_s": cpu,
        "wall_s": wall,
    }


def compare(
    strategies: str | Strategy | Sequence[str | Strategy] | Mapping[str, str | Strategy],
    instances: str | Iterable[str | Problem],
    *,
    time_limit: float | None = None,
    limit: int | None = None,
    progress: bool = True,
    validate: bool = True,
) -> pd.DataFrame:
    """Run every strategy on every problem and return one row per run.

    Parameters
    ----------
    strategies : str, Strategy, sequence of them, or mapping of label to them
        Registered names or instances with any settings (each run packs with a clone).
        With a mapping the keys label the rows; otherwise the strategy's name does, and
        ``settings`` tells apart instances of one strategy (a parameter sweep).
    instances : str or iterable of str and Problem
        Shipped set names (``"BR7"``, ``"MPV1"``; see
        :data:`packing.instances.SHIPPED_SETS`) and :class:`Problem` objects
        (:func:`random_problems`, :func:`problems`).
    time_limit : float, optional
        Budget of each strategy call [s]: one per loading problem, one per container of
        a bin-packing problem. None: each strategy's own ``time_limit`` (its default when
        that is None).
    limit : int, optional
        First problems of each named set.
    progress : bool
        Show a progress bar on stderr (tqdm).
    validate : bool
        Check every plan with :func:`packing.validate_plan` (a broken plan raises
        :class:`~packing.errors.PlanValidationError`).

    Returns
    -------
    pandas.DataFrame
        Columns (:data:`COLUMNS`): ``instance``, ``set``, ``kind``, ``strategy``,
        ``settings`` (the clone's settings as ``key=value`` text), ``pieces``,
        ``placed``, ``utilisation_pct`` (placed volume / volume of the containers used
        [%]), ``containers``, ``lower_bound`` (bin packing: fewest containers possible,
        the largest of the set's bound, the volume and payload bound and the bound of the
        pieces' shapes; NaN for loading), ``gap_pct``
        (bin packing: containers above the lower bound / lower bound [%]; loading:
        volume left out / the volume bound min(cargo, container) [%]),
        ``solver_gap_pct`` (the solver's own relative gap [%], the largest over the
        containers; NaN when no call reported one), ``status`` (the solver's status, the
        worst over the containers, or ``"heuristic"`` when no call reported one),
        ``cpu_s`` (CPU time of this process [s]) and ``wall_s`` (wall time [s]).

    Raises
    ------
    PackingInputError
        An unknown strategy or set name, a setting a strategy does not have, an empty
        ``strategies`` or ``instances`` (``field`` names the argument).
    """
    pairs = _as_strategies(strategies)
    todo = _as_problems(instances, limit)
    if time_limit is not None:
        seconds_value("time_limit", time_limit)
    runs = [(p, label, s) for p in todo for label, s in pairs]
    rows = []
    bar = tqdm(runs, disable=not progress, file=sys.stderr, unit="run", desc="compare")
    for problem, label, strat in bar:
        bar.set_postfix_str(f"{problem.name} {label}", refresh=False)
        run = clone(strat) if time_limit is None else clone(strat, time_limit=time_limit)
        rows.append(run_problem(problem, run, label=label, validate=validate))
    bar.close()
    return pd.DataFrame(rows, columns=list(COLUMNS))


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per set, strategy and settings of a :func:`compare` table: the number of runs,
    the means of utilisation, gap, CPU and wall seconds, and the sums of containers and
    lower bounds."""
    return (
        table.groupby(["set", "strategy", "settings"], sort=False)
        .agg(
            runs=("instance", "size"),
            utilisation_pct=("utilisation_pct", "mean"),
            containers=("containers", "sum"),
            lower_bound=("lower_bound", lambda s: s.sum(min_count=1)),
            gap_pct=("gap_pct", "mean"),
            cpu_s=("cpu_s", "mean"),
            wall_s=("wall_s", "mean"),
        )
        .reset_index()
    )
