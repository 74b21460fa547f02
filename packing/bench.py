"""Benchmark runs: BR single-container loading, MPV bin packing, a large plan.

Used by ``packplan bench`` (JSON for anyone to check) and ``nox -s bench`` (tables). A
strategy is a registered name or a strategy instance; either way each problem is packed
with clones of it that have the run's time limit (see :func:`packing.plan_containers`).
"""

from __future__ import annotations

import math
import random
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

from tqdm import tqdm

from packing.bounds import fewest_containers
from packing.errors import PackingInputError
from packing.generate import br_set, br_set_number
from packing.instances import (
    SHIPPED_SETS,
    Instance,
    load_shipped,
    read_br,
    read_mpv,
    read_mpv_bounds,
)
from packing.model import ContainerType, Piece, Rules, make_pieces
from packing.planner import plan_containers
from packing.strategies import Strategy
from packing.strategies.base import Budget


class BrInstanceResult(TypedDict):
    number: int
    utilization: float
    seconds: float
    cpuSeconds: float
    workUnits: int
    wallCut: bool
    placed: int
    total: int
    placements: list[list[int]]


class BrRunResult(TypedDict):
    instances: list[BrInstanceResult]
    meanUtilization: float
    meanSeconds: float
    meanCpuSeconds: float
    unitsPerCpuSecond: float


class MpvRunResult(TypedDict):
    instances: list[dict[str, object]]
    totalBins: int
    totalLowerBound: int
    totalBound: int
    totalBb2s: int
    meanSeconds: float
    meanCpuSeconds: float
    unitsPerCpuSecond: float


class LargeRunResult(TypedDict):
    pieces: int
    containers: int
    byType: dict[str, int]
    unplaced: int
    meanUtilization: float
    seconds: float
    cpuSeconds: float
    workUnits: int
    lowerBound: int


def parse_range(text: str, upper: int) -> list[int]:
    """``"1-20"``, ``"3"`` or ``"1,4,7-9"`` to a list of 1-based numbers within 1..upper."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            a, b = (int(v) for v in part.split("-", 1)) if "-" in part else (int(part),) * 2
        except ValueError:
            raise PackingInputError(
                "--instances", f"expected numbers such as 1-20 or 1,3,5 (got {text!r})"
            ) from None
        if b < a:
            raise PackingInputError(
                "--instances", f"a range runs upwards, such as 2-5 (got {part!r})"
            )
        out.extend(range(a, b + 1))
    bad = [n for n in out if not 1 <= n <= upper]
    if bad:
        raise PackingInputError("--instances", f"must lie within 1..{upper} (got {bad[0]})")
    seen: set[int] = set()
    for n in out:
        if n in seen:  # a problem run twice would count twice in the means
            raise PackingInputError("--instances", f"names problem {n} more than once")
        seen.add(n)
    return out


def run_br_instance(
    inst: Instance,
    number: int,
    *,
    strategy: str | Strategy | None,
    time_limit: float | None,
    support: float,
) -> BrInstanceResult:
    """Pack one BR instance into its single container; utilization as a fraction.

    ``seconds`` is wall time, ``cpuSeconds`` the process's CPU time [s]; ``workUnits`` the
    plan's work units (see :class:`packing.strategies.base.Budget`), ``wallCut`` whether
    a safety net cut a search (see :class:`~packing.strategies.base.Budget`).
    """
    start, cpu = time.perf_counter(), time.process_time()
    r = plan_containers(
        inst.pieces(honour_flags=True),
        [inst.container_type()],
        strategy=strategy,
        support_ratio=support,
        max_containers=1,
        time_limit=time_limit,
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    placements = [
        [*p.position, *p.extents, int(p.piece.item_id)] for c in r.containers for p in c.placements
    ]
    placed_volume = sum(p[3] * p[4] * p[5] for p in placements)
    return {
        "number": number,
        "utilization": placed_volume / inst.container_volume,
        "seconds": seconds,
        "cpuSeconds": cpu,
        "workUnits": r.work_units,
        "wallCut": r.wall_cut,
        "placed": len(placements),
        "total": sum(b.quantity for b in inst.box_types),
        "placements": placements,
    }


def br_problems(source: str | Path) -> list[Instance]:
    """The problems of a BR file, of a BR set shipped in the package, or of any set the
    sets' generator makes.

    Parameters
    ----------
    source : str or Path
        A file in the Bischoff & Ratcliff format; else, when no file of that name exists,
        the name of a shipped set (``"BR1"`` … ``"BR7"``: its first problems, see
        :func:`packing.instances.load_shipped`) or of any other set ``"BR0"`` …
        ``"BR18"`` (its 100 problems, made by :func:`packing.generate.br_set`).
    """
    name = str(source)
    if not Path(source).exists():
        if name in SHIPPED_SETS and name.startswith("BR"):
            return load_shipped(name)
        if br_set_number(name) is not None:
            return br_set(name)
    return read_br(source)


def run_br(
    path: str | Path,
    numbers: list[int] | None = None,
    *,
    strategy: str | Strategy | None = None,
    time_limit: float | None = None,
    support: float = 0.8,
    progress: bool = False,
) -> BrRunResult:
    """Run BR problems of a file or shipped set (see :func:`br_problems`); ``numbers`` are
    1-based (default: all).

    ``progress`` shows a progress bar on stderr (tqdm).
    """
    problems = br_problems(path)
    chosen = numbers or list(range(1, len(problems) + 1))
    rows = [
        run_br_instance(
            problems[n - 1], n, strategy=strategy, time_limit=time_limit, support=support
        )
        for n in tqdm(
            chosen, disable=not progress, file=sys.stderr, unit="problem", desc=Path(path).stem
        )
    ]
    k = max(1, len(rows))
    cpu = sum(r["cpuSeconds"] for r in rows)
    return {
        "instances": rows,
        "meanUtilization": sum(r["utilization"] for r in rows) / k,
        "meanSeconds": sum(r["seconds"] for r in rows) / k,
        "meanCpuSeconds": cpu / k,
        "unitsPerCpuSecond": sum(r["workUnits"] for r in rows) / max(cpu, 1e-9),
    }


def mpv_pieces(inst: Instance) -> list[Piece]:
    """The boxes of an MPV instance as pieces, as the classic benchmark has them: each box
    its own item, in its given orientation only."""
    return [
        p
        for bt in inst.box_types
        for p in make_pieces(
            str(bt.number), bt.dims, 1, rules=Rules(orientations=(0,)), item_order=bt.number
        )
    ]


#: An MPV instance file as the benchmark lays them out: ``classC_nNNN/NN.txt``.
_MPV_FOLDER = re.compile(r"class([0-9]+)_n([0-9]+)")


def _mpv_key(path: Path) -> tuple[int, int, int]:
    """(class, n, instance number) of an MPV file, from its folder and file name."""
    folder = _MPV_FOLDER.fullmatch(path.parent.name)
    if folder is None or re.fullmatch(r"[0-9]+", path.stem) is None:
        raise PackingInputError(
            str(path), "expected an MPV instance file classC_nNNN/NN.txt (e.g. class1_n050/01.txt)"
        )
    return int(folder[1]), int(folder[2]), int(path.stem)


def run_mpv(
    directory: str | Path,
    *,
    strategy: str | Strategy | None = None,
    time_limit: float | None = None,
    limit: int | None = None,
    progress: bool = False,
) -> MpvRunResult:
    """Pack every instance file of an MPV class folder (or the whole set) into fewest bins.

    No rotation and no support rule, as in the classic benchmark. ``bounds_mpv.csv`` is
    looked up in the folder or its parent. ``directory`` may also name a set shipped in the
    package (``"MPV1"``, ``"MPV4"`` … ``"MPV8"``: its first instances, with their lower
    bounds, see :func:`packing.instances.load_shipped`) when no such folder exists.
    ``limit`` keeps only the first instances. ``progress`` shows a progress bar on stderr
    (tqdm).

    Each instance row gives ``lowerBound`` (the shipped bound of the MPV code, None when
    there is none), ``shapeBound`` (:func:`packing.bounds.fewest_containers`, worked out
    outside the timed plan) and ``bound``, the larger of the two; the totals
    ``totalLowerBound`` and ``totalBound`` sum them.
    """
    name = str(directory)
    directory = Path(directory)
    todo: list[tuple[Path | Instance, tuple[int, int, int]]]
    bounds: Mapping[tuple[int, int, int], tuple[int | None, int | None]]
    if name in SHIPPED_SETS and name.startswith("MPV") and not directory.exists():
        todo, shipped_bounds = [], {}
        for inst in load_shipped(name):
            key = _mpv_key(Path(f"{inst.name}.txt"))  # class1_n050/01 → (1, 50, 1)
            todo.append((inst, key))
            shipped_bounds[key] = (inst.lower_bound, None)
        bounds = shipped_bounds
    else:
        files = sorted(directory.glob("*.txt")) or sorted(directory.glob("class*_n*/*.txt"))
        if not files:
            raise PackingInputError(
                name,
                "holds no MPV instance files (NN.txt); expected a folder such as "
                f"class1_n050 or a shipped set {[s for s in SHIPPED_SETS if s.startswith('MPV')]}",
            )
        bounds_file = next(
            (
                p
                for p in (directory / "bounds_mpv.csv", directory.parent / "bounds_mpv.csv")
                if p.exists()
            ),
            None,
        )
        bounds = read_mpv_bounds(bounds_file) if bounds_file else {}
        todo = [(f, _mpv_key(f)) for f in files]  # every name checked before any packing
    todo = todo[:limit] if limit else todo
    rows: list[dict[str, object]] = []
    bins = lbs = best_bounds = ubs = units = 0
    secs = cpus = 0.0
    for source, (c, n, number) in tqdm(
        todo,
        disable=not progress,
        file=sys.stderr,
        unit="instance",
        desc="MPV",
    ):
        inst = source if isinstance(source, Instance) else read_mpv(source)
        pieces = mpv_pieces(inst)
        start, cpu = time.perf_counter(), time.process_time()
        r = plan_containers(
            pieces,
            [inst.container_type()],
            strategy=strategy,
            support_ratio=0.0,
            time_limit=time_limit,
        )
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        lb, ub = bounds.get((c, n, number), (None, None))
        shape = fewest_containers(pieces, inst.container_type())
        bins += len(r.containers)
        lbs += lb or 0
        best_bounds += max(lb or 0, shape)
        ubs += ub or 0
        secs += seconds
        cpus += cpu
        units += r.work_units
        rows.append(
            {
                "class": c,
                "n": n,
                "number": number,
                "bins": len(r.containers),
                "lowerBound": lb,
                "shapeBound": shape,
                "bound": max(lb or 0, shape),
                "bb2s": ub,
                "unplaced": len(r.unplaced),
                "seconds": seconds,
                "cpuSeconds": cpu,
                "workUnits": r.work_units,
                "placements": [
                    [p.container_index, *p.position, *p.extents, int(p.piece.item_id)]
                    for cl in r.containers
                    for p in cl.placements
                ],
            }
        )
    k = max(1, len(rows))
    return {
        "instances": rows,
        "totalBins": bins,
        "totalLowerBound": lbs,
        "totalBound": best_bounds,
        "totalBb2s": ubs,
        "meanSeconds": secs / k,
        "meanCpuSeconds": cpus / k,
        "unitsPerCpuSecond": units / max(cpus, 1e-9),
    }


#: The smallest of :func:`run_large`'s vehicles: a van of 9.8 m³.
VAN = ContainerType("van", "Van", (3200, 1800, 1700), (3400, 2000, 1800), 1400.0, "FRONT")


def distinct_pieces(n: int) -> list[Piece]:
    """``n`` pieces each of a size of its own: sides 50-400 × 50-300 × 50-400 mm, 0.1-3 kg,
    drawn by ``random.Random(n)`` (the cargo of :func:`run_large` with ``distinct``)."""
    rnd = random.Random(n)
    pieces: list[Piece] = []
    for i in range(n):
        dims = (rnd.randint(50, 400), rnd.randint(50, 300), rnd.randint(50, 400))
        kg = round(rnd.uniform(0.1, 3.0), 2)
        pieces += make_pieces(f"d{i}", dims, 1, weight_kg=kg, item_order=i)
    return pieces


def run_large(
    pieces_total: int = 10_000,
    *,
    strategy: str | Strategy | None = None,
    time_limit: float | None = None,
    distinct: bool = False,
) -> LargeRunResult:
    """One plan of ``pieces_total`` pieces (8 parcel sizes) over three vehicle types; with
    ``distinct``, pieces each of a size of its own (sides 50-400 × 50-300 × 50-400 mm,
    0.1-3 kg, drawn by ``random.Random(pieces_total)``) over three pallet shippers of
    0.15-1 m³, each holding up to about a hundred of them.

    ``lowerBound`` is the fewest containers of any types that hold the volume and weight.
    """
    pieces = []
    if distinct:
        pieces = distinct_pieces(pieces_total)
        types = [
            ContainerType("chest", "Chest", (690, 435, 500), (980, 720, 800), 120.0, "TOP"),
            ContainerType("eur", "EUR pallet", (980, 590, 780), (1200, 800, 1250), 400.0, "FRONT"),
            ContainerType(
                "pallet", "Pallet", (1180, 760, 1150), (1480, 1200, 1600), 800.0, "FRONT"
            ),
        ]
    else:
        sizes = [
            (400, 300, 300),
            (300, 200, 200),
            (600, 400, 400),
            (250, 250, 250),
            (500, 300, 400),
            (350, 150, 250),
            (200, 100, 150),
            (450, 350, 300),
        ]
        per = pieces_total // len(sizes)
        for i, d in enumerate(sizes):
            q = per + (1 if i < pieces_total - per * len(sizes) else 0)
            pieces += make_pieces(f"p{i}", d, q, weight_kg=2.0 + i, item_order=i)
        types = [
            VAN,
            ContainerType(
                "truck-7m", "Truck 7 m", (7200, 2400, 2450), (7400, 2700, 2550), 9000.0, "FRONT"
            ),
            ContainerType(
                "box-13m",
                "Trailer 13.6 m",
                (13600, 2700, 2480),
                (13700, 3000, 2550),
                24000.0,
                "FRONT",
            ),
        ]
    start, cpu = time.perf_counter(), time.process_time()
    r = plan_containers(pieces, types, strategy=strategy, time_limit=time_limit)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    volume = sum(p.volume for p in pieces)
    kg = sum(p.weight_kg for p in pieces)
    return {
        "pieces": len(pieces),
        "containers": len(r.containers),
        "byType": {
            t.slug: sum(1 for c in r.containers if c.container.slug == t.slug) for t in types
        },
        "unplaced": len(r.unplaced),
        "meanUtilization": sum(c.volume_utilization for c in r.containers)
        / max(1, len(r.containers)),
        "seconds": seconds,
        "cpuSeconds": cpu,
        "workUnits": r.work_units,
        "lowerBound": max(
            -(-volume // max(t.inner_volume for t in types)),
            math.ceil(kg / max(t.max_payload_kg or math.inf for t in types) - 1e-9),
        ),
    }


class RatePlan(TypedDict):
    plan: str
    workUnits: int
    cpuSeconds: float
    unitsPerCpuSecond: float


class RateMeasurement(TypedDict):
    plans: list[RatePlan]
    unitsPerCpuSecond: int
    defaultRate: int


#: The plans :func:`measure_rate` times: (set, problem index) of the shipped benchmarks at
#: their default budgets (plans of a shorter budget spend their units differently: MPV class
#: 4 at 1 s does 0.7 of the units per CPU second it does at its default budget). Container
#: loading of few to many box types and bin packing of four MPV classes, among them the
#: kinds of the lowest (MPV class 5, BR7) and highest (MPV class 4) units per CPU second;
#: ``quick`` plans the two of :data:`QUICK_RATE_PLANS`.
RATE_PLANS: tuple[tuple[str, int], ...] = (
    ("BR7", 0),
    ("MPV4", 0),
    ("BR1", 0),
    ("BR4", 0),
    ("MPV5", 0),
    ("MPV1", 0),
    ("MPV6", 0),
)
QUICK_RATE_PLANS: tuple[tuple[str, int], ...] = (("BR4", 0), ("MPV4", 0))


def measure_rate(*, quick: bool = False, progress: bool = False, runs: int = 2) -> RateMeasurement:
    """The work units this machine does in a CPU second of planning, measured on plans of
    the shipped benchmarks at their default budgets (:data:`RATE_PLANS`, about 17 CPU
    seconds a run on the reference machine; ``quick``: :data:`QUICK_RATE_PLANS`, about 4;
    a machine that does fewer units a second takes longer in proportion).

    A time limit buys ``Budget.RATE`` units a second; where that is the measured
    ``unitsPerCpuSecond`` (:meth:`~packing.strategies.base.Budget.use_rate`, or the
    service's ``PACKPLAN_WORK_UNITS_PER_SECOND``) a time limit means CPU seconds of this
    machine. Plans of different kinds do different numbers of units per CPU second (the
    prices are a fit, ±25 % across kinds), so the rate is the geometric midpoint of the
    plans' lowest and highest: the one that keeps every plan of the set nearest 1 × (the
    smallest largest ratio either way), rounded to three significant digits. A first,
    untimed plan warms the caches. Measure on an otherwise idle machine: another process
    on the same core makes each unit cost more.

    Each plan is planned ``runs`` times (the same plan and units each time) and its least
    CPU time counts: what else runs on a shared host only ever adds to a run's CPU time,
    and on the project's 2-core host one plan's CPU time varied by up to ×1.9 from run to
    run within an hour (2026-12-07), so the least of two keeps a burst out of the rate.

    Raises
    ------
    PackingInputError
        ``runs`` not a whole number >= 1 (``field`` names it).

    Returns
    -------
    RateMeasurement
        ``plans``: each plan's units, CPU seconds and units per CPU second;
        ``unitsPerCpuSecond``: the rate; ``defaultRate``: ``Budget.DEFAULT_RATE``.
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise PackingInputError("runs", f"must be a whole number >= 1 (got {runs!r})")
    chosen = QUICK_RATE_PLANS if quick else RATE_PLANS

    def plan(name: str, index: int, seconds: float | None) -> tuple[int, float]:
        inst = load_shipped(name)[index]
        if name.startswith("BR"):
            pieces, ratio, cap = inst.pieces(honour_flags=True), 0.8, 1
        else:
            pieces, ratio, cap = mpv_pieces(inst), 0.0, None
        cpu = time.process_time()
        r = plan_containers(
            pieces,
            [inst.container_type()],
            support_ratio=ratio,
            max_containers=cap,
            time_limit=seconds,
        )
        return r.work_units, time.process_time() - cpu

    plan("BR1", 0, 0.05)  # warm-up: imports, caches
    rows: list[RatePlan] = []
    for name, index in tqdm(
        chosen, disable=not progress, file=sys.stderr, unit="plan", desc="calibrate"
    ):
        units, cpu = plan(name, index, None)
        for _ in range(runs - 1):
            cpu = min(cpu, plan(name, index, None)[1])
        rows.append(
            {
                "plan": f"{name} #{index + 1}",
                "workUnits": units,
                "cpuSeconds": cpu,
                "unitsPerCpuSecond": units / max(cpu, 1e-9),
            }
        )
    rates = [r["unitsPerCpuSecond"] for r in rows]
    rate = math.sqrt(min(rates) * max(rates))
    return {
        "plans": rows,
        "unitsPerCpuSecond": int(float(f"{rate:.3g}")),
        "defaultRate": Budget.DEFAULT_RATE,
    }
