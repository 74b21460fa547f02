"""``python -m packing.benchrun [--quick] [--sets BR1,BR7] [--bench-dir DIR]``: tables.

Full run: every registered strategy meant for large instances (``in_benchmark``) on
BR1..BR15 (first 20 problems each, flags honoured, support 0.8; a set with no file in the
bench folder, such as the strongly heterogeneous BR8..BR15, is made by the sets' own
generator, :func:`packing.generate.br_set`), MPV classes 1, 4-8
(n = 50; with ``--mpv-all`` every size), generated heterogeneous cargo of 10 to 80 box
types (:func:`packing.generate.heterogeneous_instance`, 5 instances each), one plan of
10,000 pieces of 8 sizes and one of 10,000 distinct pieces (:func:`packing.bench.run_large`),
then the calibration of the work units: units spent per CPU second by set, against
:attr:`~packing.strategies.base.Budget.RATE` (block building). ``--quick`` runs 1 problem per
set of BR1..BR7, one instance of 20 box types, two MPV instances, 1,000 pieces of 8 sizes and
1,500 distinct ones, so CI keeps the benchmark code alive in a minute or so. Seconds are wall
seconds, CPU the process's CPU time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import data
from packing.argtypes import seconds, whole
from packing.bench import br_problems, run_br, run_br_instance, run_large, run_mpv
from packing.errors import PackingInputError, UnknownStrategyError
from packing.generate import br_set_number, heterogeneous_instance
from packing.strategies import DEFAULT_STRATEGY, STRATEGIES, get_strategy
from packing.strategies.base import Budget

#: Box types of the rows of the heterogeneous-cargo table (BR1–BR7 have 3–20).
HETEROGENEOUS_TYPES = (10, 20, 40, 80)
#: The BR sets of a full run (BR1–BR7 weakly, BR8–BR15 strongly heterogeneous) and of a
#: quick one.
FULL_SETS = ",".join(f"BR{k}" for k in range(1, 16))
QUICK_SETS = ",".join(f"BR{k}" for k in range(1, 8))

#: The strategies of a default run: the registered ones meant for large instances.
STRATEGY_NAMES = tuple(name for name, cls in STRATEGIES.items() if cls.in_benchmark)


def _strategy_names(text: str) -> list[str]:
    """``"a,b"`` to registered strategy names; an unknown one is a usage error."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        try:
            get_strategy(n)
        except UnknownStrategyError as exc:
            raise argparse.ArgumentTypeError(exc.message) from None
    return names


def _bench_dir(given: str | None) -> Path | None:
    """The folder of the full benchmark sets (``br/``, ``mpv/``): ``given``, else
    ``shared/bench`` beside the repository; None when there is none.

    Raises
    ------
    PackingInputError
        ``given`` holds no ``br/`` and ``mpv/`` folders (``field`` is ``--bench-dir``).
    """
    if given:
        folder = Path(given)
        if not (folder / "br").is_dir() or not (folder / "mpv").is_dir():
            raise PackingInputError("--bench-dir", f"{given!r} holds no br/ and mpv/ folders")
        return folder
    here = Path(__file__).resolve().parent.parent
    for cand in (here.parent / "shared" / "bench", here / "shared" / "bench"):
        if cand.exists():
            return cand
    return None


def write_shipped_bench(folder: Path) -> None:
    """The subset of the benchmark sets shipped in ``data/bench`` (the first problems of
    BR1–BR7, three MPV instances of classes 1 and 4–8 at n = 50, their bounds) laid out in
    ``folder`` as the full sets are: ``br/BR1.txt``, ``mpv/class1_n050/01.txt``,
    ``mpv/bounds_mpv.csv``."""
    (folder / "br").mkdir(parents=True, exist_ok=True)
    (folder / "mpv").mkdir(exist_ok=True)
    for name in data.bench_files():
        text = data.bench_text(name)
        if name.startswith("BR"):
            (folder / "br" / name).write_text(text)
        elif name == "bounds_mpv.csv":
            (folder / "mpv" / name).write_text(text)
        elif name.startswith("mpv_"):
            cls_n, number = name.removeprefix("mpv_").removesuffix(".txt").rsplit("_", 1)
            (folder / "mpv" / cls_n).mkdir(exist_ok=True)
            (folder / "mpv" / cls_n / f"{number}.txt").write_text(text)


def _br_count(path: Path) -> int:
    """Problems in a BR file (its first line)."""
    with path.open(encoding="utf-8", errors="replace") as f:  # (read_br names bad bytes)
        first = f.readline().split()
    return int(first[0]) if first and first[0].isdigit() else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m packing.benchrun")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--sets",
        default=None,
        help=f"BR sets, comma-separated (default {FULL_SETS}; quick {QUICK_SETS})",
    )
    ap.add_argument("--strategies", type=_strategy_names, default=list(STRATEGY_NAMES))
    ap.add_argument("--time-limit", type=seconds, default=None, help="seconds per instance")
    ap.add_argument("--bench-dir", default=None)
    ap.add_argument("--mpv-all", action="store_true")
    ap.add_argument(
        "--problems", type=whole(1), default=None, help="BR problems per set (default 20; quick 1)"
    )
    args = ap.parse_args(argv)
    try:
        return _run(ap, args)
    except (PackingInputError, OSError) as exc:  # a bench folder or file that cannot be read
        ap.error(str(exc))


def _run(ap: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    root = _bench_dir(args.bench_dir)
    with tempfile.TemporaryDirectory(prefix="packplan-bench-") as scratch:
        if root is None:
            root = Path(scratch)
            write_shipped_bench(root)
            print(
                "The full benchmark sets (shared/bench beside the repository) are not here: "
                "these tables use the subset shipped in data/bench (the first BR problems of "
                "each set, 3 MPV instances per class, n = 50). Pass --bench-dir for the full "
                "sets.\n"
            )
            args.mpv_all = False
        return _tables(ap, args, root)


def _br_source(root: Path, name: str) -> Path | str:
    """A set's file in the bench folder, else its name (a set the generator makes)."""
    path = root / "br" / f"{name}.txt"
    return path if path.is_file() else name


def _tables(ap: argparse.ArgumentParser, args: argparse.Namespace, root: Path) -> int:
    if args.sets is None:
        args.sets = QUICK_SETS if args.quick else FULL_SETS
    names = args.sets.split(",")
    for name in names:
        if not (root / "br" / f"{name}.txt").is_file() and br_set_number(name) is None:
            known = sorted(p.stem for p in (root / "br").glob("*.txt"))
            ap.error(
                f"--sets: unknown set {name!r}; expected some of {', '.join(known)} "
                "(files) or BR0..BR18 (made by their generator)"
            )
    wanted = args.problems or (1 if args.quick else 20)
    # (a set with no file: the problems br_problems gives for its name, the shipped ones
    # of BR1 … BR7 or a generated set's 100)
    counts = [
        _br_count(src) if isinstance(src := _br_source(root, name), Path) else len(br_problems(src))
        for name in names
    ]
    n = min([wanted, *counts])
    if n < wanted:
        print(f"(the BR files hold {n} problems: {n} per set, not {wanted})\n")
    strategies: list[str] = args.strategies

    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"load average before (1 / 5 / 15 min): {load}\n")
    print(f"## BR container loading: first {n} problems per set, flags honoured, support 0.8")
    print(
        "| set | "
        + " | ".join(f"{s} util | {s} s/inst | {s} CPU s/inst" for s in strategies)
        + " |"
    )
    print("|---|" + "---|---|---|" * len(strategies))
    means: dict[str, list[float]] = {s: [] for s in strategies}
    calibration: list[tuple[str, float]] = []
    for name in names:
        cells = []
        for s in strategies:
            r = run_br(
                _br_source(root, name),
                list(range(1, n + 1)),
                strategy=s,
                time_limit=args.time_limit,
            )
            means[s].append(r["meanUtilization"])
            cells += [
                f"{100 * r['meanUtilization']:.2f}%",
                f"{r['meanSeconds']:.2f}",
                f"{r['meanCpuSeconds']:.2f}",
            ]
            if s == DEFAULT_STRATEGY:
                calibration.append((name, r["unitsPerCpuSecond"]))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(
        "| mean | " + " | ".join(f"{100 * sum(v) / len(v):.2f}% | | " for v in means.values()) + "|"
    )

    seeds = 1 if args.quick else 5
    print(
        f"\n## Heterogeneous cargo ({DEFAULT_STRATEGY}; {seeds} instance(s) of "
        "packing.generate.heterogeneous_instance per row, support 0.8)"
    )
    print("| box types | utilisation | s/inst | CPU s/inst | wall cut |\n|---|---|---|---|---|")
    for types in (20,) if args.quick else HETEROGENEOUS_TYPES:
        rows = [
            run_br_instance(
                heterogeneous_instance(types, seed=seed),
                seed + 1,
                strategy=DEFAULT_STRATEGY,
                time_limit=args.time_limit,
                support=0.8,
            )
            for seed in range(seeds)
        ]
        cpu = sum(r["cpuSeconds"] for r in rows)
        print(
            f"| {types} | {100 * sum(r['utilization'] for r in rows) / seeds:.2f}% "
            f"| {sum(r['seconds'] for r in rows) / seeds:.2f} | {cpu / seeds:.2f} "
            f"| {sum(r['wallCut'] for r in rows)} |",
            flush=True,
        )
        calibration.append(
            (f"{types} box types", sum(r["workUnits"] for r in rows) / max(cpu, 1e-9))
        )

    print("\n## MPV 3D bin packing (no rotation, no support rule): bins vs lower bounds")
    print(
        "(MPV bound: the MPV code's, shipped; best bound: the larger of it and the bound of "
        "the boxes' shapes, packing.bounds)"
    )
    print(
        "| folder | bins (block-building) | MPV bound | over it | best bound | over it "
        "| B&B 2 s | s/inst | CPU s/inst |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    classes = [1] if args.quick else [1, 4, 5, 6, 7, 8]
    sizes = [50] if (args.quick or not args.mpv_all) else [50, 100, 150]
    sums = [0, 0, 0]
    for c in classes:
        for size in sizes:
            folder = root / "mpv" / f"class{c}_n{size:03d}"
            m = run_mpv(folder, time_limit=args.time_limit, limit=2 if args.quick else None)
            bins, lb, best = m["totalBins"], m["totalLowerBound"], m["totalBound"]
            sums = [sums[0] + bins, sums[1] + lb, sums[2] + best]
            print(
                f"| {folder.name} | {bins} | {lb} | {_over(bins, lb)} | {best} "
                f"| {_over(bins, best)} | {m['totalBb2s']} "
                f"| {m['meanSeconds']:.2f} | {m['meanCpuSeconds']:.2f} |",
                flush=True,
            )
            calibration.append((folder.name, m["unitsPerCpuSecond"]))

    bins, lb, best = sums
    print(f"| all | {bins} | {lb} | {_over(bins, lb)} | {best} | {_over(bins, best)} | | | |")

    total = 1000 if args.quick else 10_000
    distinct = 1500 if args.quick else 10_000
    print(
        f"\n## One plan of {total} pieces (8 sizes) over three vehicle types, and one of "
        f"{distinct} distinct pieces over three pallet shippers"
    )
    print(
        "| pieces | containers | lower bound | by type | unplaced | mean util | seconds "
        "| CPU s |\n|---|---|---|---|---|---|---|---|"
    )
    for n, kind in ((total, False), (distinct, True)):
        big = run_large(n, distinct=kind)
        label = f"{big['pieces']} distinct" if kind else str(big["pieces"])
        print(
            f"| {label} | {big['containers']} | {big['lowerBound']} | {big['byType']} "
            f"| {big['unplaced']} | {100 * big['meanUtilization']:.1f}% | {big['seconds']:.2f} "
            f"| {big['cpuSeconds']:.2f} |",
            flush=True,
        )
        name = f"plan of {n} distinct pieces" if kind else f"plan of {n} pieces"
        calibration.append((name, big["workUnits"] / max(big["cpuSeconds"], 1e-9)))

    print(f"\n## Work units per CPU second ({DEFAULT_STRATEGY}; RATE = {Budget.RATE:,})")
    print("| set | units per CPU s | / RATE |\n|---|---|---|")
    for name, ups in calibration:
        print(f"| {name} | {ups:,.0f} | {ups / Budget.RATE:.2f} |")
    return 0


def _over(bins: int, bound: int) -> str:
    """How far ``bins`` lie over ``bound`` [%], or a dash without a bound."""
    return f"{100 * (bins - bound) / bound:.2f}%" if bound else "–"


if __name__ == "__main__":
    sys.exit(main())
