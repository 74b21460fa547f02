"""``packplan bench br|mpv``: benchmark runs printed as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from packing.bench import BrRunResult, MpvRunResult, parse_range, run_br, run_mpv
from packing.errors import PackingInputError
from packing.instances import read_br
from packing.strategies import DEFAULT_STRATEGY, STRATEGIES


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds > 0 (got {text!r})") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected seconds > 0 (got {text})")
    return v


def _ratio(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a ratio 0..1 (got {text!r})") from None
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"expected a ratio 0..1 (got {text})")
    return v


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("bench", help="run a benchmark set and print the results as JSON")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    br = kinds.add_parser("br", help="Bischoff & Ratcliff container loading (one file)")
    br.add_argument("file", help="BR file, e.g. ../shared/bench/br/BR1.txt")
    br.add_argument(
        "--instances", default=None, help="1-based problem numbers, e.g. 1-20 (default: all)"
    )
    mpv = kinds.add_parser(
        "mpv", help="Martello-Pisinger-Vigo 3D bin packing (a class folder or the set)"
    )
    mpv.add_argument("dir", help="folder, e.g. ../shared/bench/mpv/class1_n050")
    for q in (br, mpv):
        q.add_argument(
            "--strategy",
            choices=sorted(STRATEGIES),
            default=None,
            help=f"default: {DEFAULT_STRATEGY}",
        )
        q.add_argument("--time-limit", type=_positive, default=None, help="seconds per instance")
        q.add_argument("--json", action="store_true", help="print JSON (the only output format)")
    br.add_argument(
        "--support", type=_ratio, default=0.8, help="minimum supported base fraction (default 0.8)"
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    out: BrRunResult | MpvRunResult
    try:
        if args.kind == "br":
            numbers = (
                parse_range(args.instances, len(read_br(args.file))) if args.instances else None
            )
            out = run_br(
                args.file,
                numbers,
                strategy=args.strategy,
                time_limit=args.time_limit,
                support=args.support,
            )
        else:
            out = run_mpv(args.dir, strategy=args.strategy, time_limit=args.time_limit)
    except (PackingInputError, OSError) as exc:  # an unknown strategy is an input error too
        print(f"packplan bench: {exc}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0
