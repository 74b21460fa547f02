"""Proved lower bounds of MPV instances: the least bin count not shown infeasible.

For each instance the search starts at the best bound of the boxes' shapes (the larger of
the MPV code's shipped bound and :func:`packing.bounds.fewest_containers`) and asks
:func:`packing.exact.fits_in_bins` whether the boxes fit that many bins. A proof of
"no" raises the bound by one and asks again; the first answer that is not a proof ("yes",
or "unknown" when ``--time-limit`` runs out) stops it. The bound printed is therefore a
proved lower bound, and the instance's optimum when the answer was "yes".

Run from the repository root, on the benchmark folder (or a class folder, or files)::

    python scripts/prove_mpv.py ../shared/bench/mpv/class7_n050 [--time-limit S] [--workers N]

The last line sums the bounds; a plan's bins over the proved sum is what no method can
close.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from packing.bench import _mpv_key, mpv_pieces
from packing.bounds import fewest_containers
from packing.errors import PackingInputError
from packing.exact import fits_in_bins
from packing.instances import read_mpv, read_mpv_bounds


class Proved(NamedTuple):
    """One instance's row: its bounds, the proved one and the last answer asked."""

    name: str
    mpv: int | None
    shape: int
    proved: int
    last: str
    seconds: float


def prove(path: Path, shipped: int | None, time_limit: float, workers: int) -> Proved:
    """The proved bound of one instance file, with the answers that led to it."""
    inst = read_mpv(path)
    shape = fewest_containers(mpv_pieces(inst), inst.container_type())
    start = max(shipped or 0, shape)
    boxes = [bt.dims for bt in inst.box_types for _ in range(bt.quantity)]
    bins, seconds = start, 0.0
    while True:
        a = fits_in_bins(inst.container, boxes, bins, time_limit=time_limit, workers=workers)
        seconds += a.seconds
        if a.answer != "INFEASIBLE":
            break
        bins += 1
    return Proved(f"{path.parent.name}/{path.stem}", shipped, shape, bins, a.answer, seconds)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/prove_mpv.py")
    ap.add_argument("paths", nargs="+", help="MPV folders or instance files (classC_nNNN/NN.txt)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds a question")
    ap.add_argument("--workers", type=int, default=2, help="solver threads")
    args = ap.parse_args(argv)
    files: list[Path] = []
    for given in map(Path, args.paths):
        if given.is_dir():
            files += sorted(given.glob("*.txt")) or sorted(given.glob("class*_n*/*.txt"))
        else:
            files.append(given)
    if not files:
        print("error: no MPV instance files (classC_nNNN/NN.txt) in " + " ".join(args.paths))
        return 2
    print("| instance | MPV bound | shape bound | proved bound | last answer | solver s |")
    print("|---|---|---|---|---|---|")
    total = 0
    try:
        for f in files:
            csv = next(
                (
                    p
                    for p in (f.parent / "bounds_mpv.csv", f.parent.parent / "bounds_mpv.csv")
                    if p.exists()
                ),
                None,
            )
            shipped = None
            if csv is not None:
                shipped = read_mpv_bounds(csv).get(_mpv_key(f), (None, None))[0]
            r = prove(f, shipped, args.time_limit, args.workers)
            total += r.proved
            print(
                f"| {r.name} | {r.mpv if r.mpv is not None else '–'} | {r.shape} "
                f"| {r.proved}{' (optimum)' if r.last == 'FEASIBLE' else ''} | {r.last} "
                f"| {r.seconds:.1f} |",
                flush=True,
            )
    except (PackingInputError, OSError, ValueError) as exc:
        print(f"error: {exc}")
        return 2
    print(f"| all | | | {total} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
