"""``packplan bench br|mpv|compare``: benchmark runs as JSON, comparisons as CSV.

Progress bars go to stderr, results to stdout (or the CSV file). Solvers that print from
native code (HiGHS's banner) are kept off stdout while a run lasts, so what lands there
is only the JSON or CSV.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from packing.argtypes import seconds, whole
from packing.bench import BrRunResult, MpvRunResult, br_problems, parse_range, run_br, run_mpv
from packing.compare import Problem, compare, random_problems
from packing.errors import PackingInputError
from packing.generate import BR_SET_TYPES
from packing.instances import SHIPPED_SETS
from packing.strategies import DEFAULT_STRATEGY, STRATEGIES

#: Sets ``packplan bench compare`` takes: the shipped ones, and the other Bischoff &
#: Ratcliff sets, made by their generator.
COMPARABLE_SETS = SHIPPED_SETS + tuple(
    f"BR{k}" for k in range(len(BR_SET_TYPES)) if f"BR{k}" not in SHIPPED_SETS
)


def _ratio(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a ratio 0..1 (got {text!r})") from None
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"expected a ratio 0..1 (got {text})")
    return v


def _names(valid: Sequence[str], what: str, *, empty_ok: bool) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        bad = [n for n in names if n not in valid]
        if bad or not (names or empty_ok):
            raise argparse.ArgumentTypeError(
                f"unknown {what} {bad[0] if bad else text!r}; expected a comma-separated "
                f"list of {', '.join(valid)}"
            )
        return names

    return parse


@contextlib.contextmanager
def _stdout_kept_clean() -> Iterator[None]:
    """While the block runs, file descriptor 1 points at stderr (native libraries that
    print, such as HiGHS, then cannot mix into the results on stdout)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout descriptor at all: nothing to protect
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bench", help="run a benchmark set (JSON) or compare strategies over instance sets (CSV)"
    )
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    br = kinds.add_parser("br", help="Bischoff & Ratcliff container loading (one file)")
    br.add_argument(
        "file",
        help="BR file, e.g. ../shared/bench/br/BR1.txt, or a shipped set: BR1 … BR7 "
        "(its first 5 problems), or any other set BR0 … BR18 (its 100 problems, made by the "
        "sets' own generator)",
    )
    br.add_argument(
        "--instances", default=None, help="1-based problem numbers, e.g. 1-20 (default: all)"
    )
    mpv = kinds.add_parser(
        "mpv", help="Martello-Pisinger-Vigo 3D bin packing (a class folder or the set)"
    )
    mpv.add_argument(
        "dir",
        help="folder, e.g. ../shared/bench/mpv/class1_n050, or a shipped set: MPV1, MPV4 … "
        "MPV8 (its first instances)",
    )
    for q in (br, mpv):
        q.add_argument(
            "--strategy",
            choices=sorted(STRATEGIES),
            default=None,
            help=f"default: {DEFAULT_STRATEGY}",
        )
        q.add_argument("--time-limit", type=seconds, default=None, help="seconds per instance")
        q.add_argument("--json", action="store_true", help="print JSON (the only output format)")
    br.add_argument(
        "--support", type=_ratio, default=0.8, help="minimum supported base fraction (default 0.8)"
    )
    for q in (br, mpv):
        q.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    cmp = kinds.add_parser(
        "compare",
        help="strategies over the shipped BR/MPV sets and random orders, one CSV row per run",
    )
    cmp.add_argument("output", help="CSV file to write, or - for stdout")
    default_strategies = [n for n, cls in STRATEGIES.items() if cls.in_benchmark]
    cmp.add_argument(
        "--strategies",
        type=_names(sorted(STRATEGIES), "strategy", empty_ok=False),
        default=default_strategies,
        help=f"comma-separated names (default: {','.join(default_strategies)})",
    )
    cmp.add_argument(
        "--sets",
        type=_names(COMPARABLE_SETS, "set", empty_ok=True),
        default=list(SHIPPED_SETS),
        help="comma-separated sets, '' for none (default: the shipped "
        + ",".join(SHIPPED_SETS)
        + "; any other Bischoff & Ratcliff set BR0 … BR18 is made by its generator, 100 "
        "problems)",
    )
    cmp.add_argument(
        "--instances",
        type=whole(1),
        default=None,
        help="first N problems of each set (default: every shipped one)",
    )
    cmp.add_argument(
        "--random", type=whole(0), default=0, help="seeded random parcel orders to add (default 0)"
    )
    cmp.add_argument("--parcels", type=whole(1), default=40, help="parcels per random order")
    cmp.add_argument("--seed", type=whole(0), default=0, help="seed of the random orders")
    cmp.add_argument(
        "--time-limit",
        type=seconds,
        default=None,
        help="seconds per strategy call (default: each strategy's own)",
    )
    cmp.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=_run)


def _compare(args: argparse.Namespace) -> int:
    if args.output != "-":  # refused before the runs, not after them
        out = Path(args.output)
        if out.is_dir() or not out.parent.is_dir():
            why = "is a folder" if out.is_dir() else f"has no folder {str(out.parent)!r}"
            print(
                f"packplan bench compare: output {args.output!r} {why}; expected a CSV file "
                "in an existing folder, or - for stdout",
                file=sys.stderr,
            )
            return 2
    instances: list[str | Problem] = list(args.sets)
    if args.random:
        instances += random_problems(args.random, parcels=args.parcels, seed=args.seed)
    if not instances:
        print(
            "packplan bench compare: no instance to run (no --sets and no --random)",
            file=sys.stderr,
        )
        return 2
    try:
        with _stdout_kept_clean():
            table = compare(
                args.strategies,
                instances,
                time_limit=args.time_limit,
                limit=args.instances,
                progress=not args.no_progress,
            )
    except PackingInputError as exc:
        print(f"packplan bench compare: {exc}", file=sys.stderr)
        return 2
    if args.output == "-":
        table.to_csv(sys.stdout, index=False, float_format="%.6g")
        return 0
    try:
        table.to_csv(args.output, index=False, float_format="%.6g")
    except OSError as exc:
        print(f"packplan bench compare: {exc}", file=sys.stderr)
        return 2
    print(f"{len(table)} rows written to {args.output}", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.kind == "compare":
        return _compare(args)
    out: BrRunResult | MpvRunResult
    try:
        if args.kind == "br":
            numbers = (
                parse_range(args.instances, len(br_problems(args.file))) if args.instances else None
            )
            with _stdout_kept_clean():
                out = run_br(
                    args.file,
                    numbers,
                    strategy=args.strategy,
                    time_limit=args.time_limit,
                    support=args.support,
                    progress=not args.no_progress,
                )
        else:
            with _stdout_kept_clean():
                out = run_mpv(
                    args.dir,
                    strategy=args.strategy,
                    time_limit=args.time_limit,
                    progress=not args.no_progress,
                )
    except (PackingInputError, OSError) as exc:  # an unknown strategy is an input error too
        print(f"packplan bench: {exc}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0
