"""Refit the work-unit prices to this machine: how much CPU each kind of operation costs.

A search's budget counts operations (:meth:`packing.strategies.base.Budget.charge`) and
prices each kind in work units; ``Budget.RATE`` units make one CPU second. This script
plans a calibration set of every kind of instance, records the operations of each plan
(:meth:`~packing.strategies.base.Budget.recording`) and its CPU time, and fits the prices
by relative least squares (each plan's priced operations ÷ RATE against its CPU seconds,
each plan weighted by the square root of its CPU seconds), held within a quarter and four
times the current prices and pulled weakly towards them where the runs say little. It
prints the fitted prices, to copy into ``Budget``, and the calibration by set before and
after: units per CPU second ÷ RATE, which the issue asks to keep within 0.7-1.3 on every
kind of instance.

Run it from the repository root on an otherwise idle machine (CPU time is what it
measures), with the benchmark instances in ``../shared/bench``::

    python scripts/fit_prices.py [--quick] [--bench-dir DIR] [--keep-level] [--rows FILE]

``--quick`` runs 12 of the 73 plans (about a minute: each is planned twice, see
:func:`measure`) to try the script, not to refit.
``--keep-level`` rescales the fit so that the runs' geometric mean of units per CPU second
stays what the current prices give: a refit on a host that runs slower or faster than when
``RATE`` was set then changes only what the kinds of work cost relative to each other, not
what a second of budget buys. ``--rows FILE`` saves the measured runs (or reads them when
the file exists), so a fit can be repeated without planning again.

The fit has limits: work that no operation counts (the thermal check and the mapping of a
compute, consolidation's own charges) is spread over the prices of the rest, and the
bounds are relative to the current prices, so a refit starts from the last one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import lsq_linear

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scaling import body

from adapters.planning.compute import compute_plan
from packing import Piece, plan_containers
from packing.bench import VAN, br_problems, distinct_pieces, mpv_pieces, run_br_instance, run_large
from packing.generate import heterogeneous_instance
from packing.instances import read_mpv
from packing.strategies.base import Budget

#: Weight of the pull towards the current prices (relative to one run's residual).
PRIOR = 0.3


def _bench_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    here = Path(__file__).resolve().parents[1]
    for cand in (here.parent / "shared" / "bench", here / "shared" / "bench"):
        if cand.is_dir():
            return cand
    raise SystemExit("benchmark instances not found; pass --bench-dir (holding br/ and mpv/)")


def _one_container(inst: Any, seconds: float) -> None:
    """Plan a container-loading instance into its one container, as the BR benchmark does."""
    run_br_instance(inst, 0, strategy=None, time_limit=seconds, support=0.8)


def calibration_set(bench: Path, quick: bool) -> list[tuple[str, Callable[[], object]]]:
    """(set name, run) pairs; a run plans once."""
    runs: list[tuple[str, Callable[[], object]]] = []
    problems = (1,) if quick else (1, 2, 3)
    budgets = (1.0,) if quick else (1.0, 3.0)
    for name in ("BR1", "BR4", "BR7"):
        insts = br_problems(bench / "br" / f"{name}.txt")
        for n in problems:
            for t in budgets:

                def br(inst: Any = insts[n - 1], t: float = t) -> None:
                    _one_container(inst, t)

                runs.append((name, br))
    for types in (10, 20, 40, 80):
        for seed in problems[:2]:
            for t in budgets:

                def het(types: int = types, seed: int = seed, t: float = t) -> None:
                    _one_container(heterogeneous_instance(types, seed=seed), t)

                runs.append((f"generated, {types} types", het))
    for cls in (1, 4, 5, 6, 7, 8) if not quick else (1, 6):
        files = sorted((bench / "mpv" / f"class{cls}_n050").glob("*.txt"))
        for path in files[: 1 if quick else 4]:

            def mpv(path: Path = path) -> None:
                # as run_mpv plans an instance: no rotation, no support rule, default budget
                inst = read_mpv(path)
                plan_containers(mpv_pieces(inst), [inst.container_type()], support_ratio=0.0)

            runs.append((f"MPV class {cls}", mpv))
    if not quick:
        # the generated sets of many box types (BR12: 70 types of 1.9 boxes each)
        insts12 = br_problems("BR12")
        for n in problems[:2]:
            for t in budgets:

                def br12(inst: Any = insts12[n - 1], t: float = t) -> None:
                    _one_container(inst, t)

                runs.append(("BR12", br12))

        # (run_large times its plan alone, not the making of its pieces: measure)
        def large() -> object:
            return run_large()  # 10,000 parcels of 8 sizes over three vehicle types

        runs.append(("plan of 10,000 pieces, 8 sizes", large))

        def distinct() -> object:
            return run_large(2_000, distinct=True)  # pieces of a size each, over pallet shippers

        runs.append(("plan of 2,000 distinct pieces", distinct))

        def distinct_10k() -> object:
            return run_large(10_000, distinct=True, time_limit=5.0)  # a request's most pieces

        runs.append(("plan of 10,000 distinct pieces", distinct_10k))
        for n in (500, 1_000):
            cargo = distinct_pieces(n)  # made once, outside the timed runs

            def van(cargo: list[Piece] = cargo) -> None:
                plan_containers(cargo, [VAN], time_limit=2.0)

            runs.append((f"van of {n:,} distinct pieces", van))
    for pieces, skus in ((1_000, 20),) if quick else ((1_000, 20), (10_000, 100)):
        for scenario in ("PLAIN", "THERMO"):

            def compute(pieces: int = pieces, skus: int = skus, scenario: str = scenario) -> None:
                result = compute_plan(body(pieces, skus, scenario), use_mock_thermal=True)
                result.model_dump_json()

            runs.append((f"compute, {pieces:,} {scenario}", compute))
    for per_sku in (20,) if quick else (20, 100):

        def thin(per_sku: int = per_sku) -> None:
            # 50 SKUs of thin parcels: many block sizes per piece type, most of them tested
            # and dropped (Budget.ROW_TEST)
            result = compute_plan(thin_body(per_sku), use_mock_thermal=True, time_limit_s=2.0)
            result.model_dump_json()

        runs.append((f"compute, {50 * per_sku:,} PLAIN thin parcels", thin))
    return runs


def thin_body(per_sku: int) -> dict[str, Any]:
    """A PLAIN plan input of 50 SKUs of thin parcels (7-56 × 5 × 3 cm), ``per_sku`` each."""
    return {
        "planTitle": f"thin parcels {50 * per_sku}",
        "originCity": "Moscow",
        "destinationCity": "Kazan",
        "scenario": "PLAIN",
        "cargos": [
            {
                "id": f"t{i}",
                "name": f"Thin {i}",
                "lengthCm": 7 + i,
                "widthCm": 5,
                "heightCm": 3,
                "weightKg": 2.5,
                "quantity": per_sku,
                "temperatureMode": "NONE",
            }
            for i in range(50)
        ],
    }


def measure(
    runs: list[tuple[str, Callable[[], object]]],
) -> list[tuple[str, dict[str, int], float]]:
    """Each run's operation counts and CPU seconds (after one unmeasured run of the first
    and the last, so that no run carries the loading of modules and catalogs).

    A run is timed as it plans, then planned again to count its operations (the same
    plan: the search is deterministic): counting adds to every charge, which with the
    compiled engine modules made charge-heavy plans (MPV's bin fitting) look 40 % dearer.
    A run that returns a dict with ``cpuSeconds`` (:func:`~packing.bench.run_large`) is
    timed by it: the plan alone, not the making of its pieces.
    """
    runs[0][1]()
    runs[-1][1]()
    out = []
    for i, (name, run) in enumerate(runs, 1):
        cpu = time.process_time()
        got = run()
        cpu = time.process_time() - cpu
        if isinstance(got, dict) and "cpuSeconds" in got:
            cpu = float(got["cpuSeconds"])
        with Budget.recording() as ops:
            run()
        out.append((name, dict(ops), cpu))
        print(f"  {i}/{len(runs)} {name}: {cpu:.2f} CPU s", file=sys.stderr, flush=True)
    return out


def fit(rows: list[tuple[str, dict[str, int], float]], current: np.ndarray) -> np.ndarray:
    """Prices [units] that make each run's priced operations ÷ RATE its CPU seconds.

    Each run's relative residual is weighted by the square root of its CPU seconds: a run
    of a hundredth of a second (a bin packing that its probe already solves) is mostly
    the planner's own work, which no price counts, and says little about the prices."""
    kinds = list(Budget.KINDS)
    weight = np.sqrt([cpu for _, _, cpu in rows])
    a = np.array([[ops.get(k, 0) / cpu / Budget.RATE for k in kinds] for _, ops, cpu in rows])
    a = a * weight[:, None]
    b = weight
    # the weak pull towards the current prices, one row per price
    prior = PRIOR * np.diag(1.0 / current)
    a = np.vstack([a, prior])
    b = np.concatenate([b, np.full(len(kinds), PRIOR)])
    res = lsq_linear(a, b, bounds=(current / 4, current * 4))
    return np.asarray(res.x)


def ratios(
    rows: list[tuple[str, dict[str, int], float]], prices: np.ndarray
) -> dict[str, list[float]]:
    """Units per CPU second ÷ RATE of each run, by set."""
    kinds = list(Budget.KINDS)
    out: dict[str, list[float]] = {}
    for name, ops, cpu in rows:
        units = sum(p * ops.get(k, 0) for k, p in zip(kinds, prices, strict=True))
        out.setdefault(name, []).append(units / cpu / Budget.RATE)
    return out


def by_set(rows: list[tuple[str, dict[str, int], float]], prices: np.ndarray) -> dict[str, float]:
    """Units per CPU second ÷ RATE of each set as a whole (its units ÷ its CPU seconds)."""
    kinds = list(Budget.KINDS)
    units: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for name, ops, c in rows:
        units[name] = units.get(name, 0.0) + sum(
            p * ops.get(k, 0) for k, p in zip(kinds, prices, strict=True)
        )
        cpu[name] = cpu.get(name, 0.0) + c
    return {name: units[name] / cpu[name] / Budget.RATE for name in units}


def _level(rows: list[tuple[str, dict[str, int], float]], prices: np.ndarray) -> float:
    """Geometric mean over the runs of units per CPU second ÷ RATE at ``prices``."""
    every = [x for v in ratios(rows, prices).values() for x in v]
    return float(np.exp(np.mean(np.log(every))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/fit_prices.py")
    ap.add_argument("--quick", action="store_true", help="12 of the plans, to try the script")
    ap.add_argument("--bench-dir", default=None)
    ap.add_argument(
        "--keep-level",
        action="store_true",
        help="scale the fitted prices so that the geometric mean of units per CPU second "
        "over the runs stays as the current prices give it: the refit then changes what "
        "the kinds of work cost relative to each other, not what a second buys (a host "
        "running slower or faster than when RATE was set changes no budget)",
    )
    ap.add_argument(
        "--rows", default=None, help="JSON file: read the runs from it if it exists, else save them"
    )
    args = ap.parse_args(argv)
    load = load_after = "(runs read from file)"
    if args.rows and Path(args.rows).exists():
        rows = [(n, o, c) for n, o, c in json.loads(Path(args.rows).read_text())]
        if args.quick or args.bench_dir:
            print(f"runs read from {args.rows}: --quick and --bench-dir ignored", file=sys.stderr)
    else:
        runs = calibration_set(_bench_dir(args.bench_dir), args.quick)
        load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
        rows = measure(runs)
        load_after = " / ".join(f"{v:.2f}" for v in os.getloadavg())
        if args.rows:
            Path(args.rows).write_text(json.dumps(rows))
    current = np.array([float(p) for p in Budget.prices().values()])
    fitted = fit(rows, current)
    if args.keep_level:
        fitted *= _level(rows, current) / _level(rows, fitted)
    fitted = np.maximum(1, np.round(fitted))
    before, after = ratios(rows, current), ratios(rows, fitted)
    cpu = sum(c for _, _, c in rows)
    print(f"\n## Work-unit prices refitted on {len(rows)} plans ({cpu:.0f} CPU s)")
    print(f"load average (1 / 5 / 15 min) before: {load}; after: {load_after}")
    print("| price | now | fitted |")
    print("|---|---|---|")
    for name, c, f in zip(Budget.KINDS.values(), current, fitted, strict=True):
        print(f"| {name} | {c:g} | {f:g} |")
    now_set, fitted_set = by_set(rows, current), by_set(rows, fitted)
    print("\n| set | runs | units per CPU s ÷ RATE now: the set, each run | fitted |")
    print("|---|---|---|---|")
    for name in before:
        b, a = before[name], after[name]
        print(
            f"| {name} | {len(b)} | {now_set[name]:.2f}: {min(b):.2f}-{max(b):.2f} "
            f"| {fitted_set[name]:.2f}: {min(a):.2f}-{max(a):.2f} |"
        )
    every = [x for v in after.values() for x in v]
    print(f"\nfitted: every run within {min(every):.2f}-{max(every):.2f} of RATE")
    print("\nTo use them, in packing/strategies/base.py (class Budget; its comments say which")
    print("prices are kept at their set values whatever a fit says):")
    for name, f in zip(Budget.KINDS.values(), fitted, strict=True):
        print(f"    {name} = {int(f)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
