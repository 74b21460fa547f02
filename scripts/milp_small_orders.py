"""The exact MILP against block building on small seeded thermal-box orders.

For each of ``--orders`` random orders (6–12 parcels of 2–4 kinds, seeded) packed into a
small thermal box from the catalog, prints the MILP's status and gap, the placed volume
of the MILP and of block building, and the CPU seconds (this process and its children,
CBC running as one) beside the wall seconds of each. Run from the repository root::

    python scripts/milp_small_orders.py --orders 30 --time-limit 5
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import time

from packing import ContainerType, Rules, make_pieces
from packing.strategies import get_strategy

#: Parcel sizes (length, height, width) [mm] and masses [kg] of medical cold-chain orders.
PARCELS = [
    ((200, 150, 100), 1.2),
    ((250, 200, 150), 2.5),
    ((300, 200, 150), 3.0),
    ((150, 100, 100), 0.6),
    ((180, 120, 140), 1.0),
    ((220, 160, 120), 1.8),
    ((120, 80, 90), 0.4),
    ((160, 120, 100), 0.8),
    ((240, 180, 160), 2.2),
    ((100, 100, 60), 0.3),
]

#: Small thermal boxes of data/containers.csv: inner (length, height, width) [mm], payload.
BOXES = [
    ContainerType("vip-cube-28l", "VIP cube shipper 28 L", (300, 320, 300), max_payload_kg=25),
    ContainerType("eps-box-32l", "EPS box 32 L", (410, 270, 290), max_payload_kg=30),
    ContainerType("vip-cube-56l", "VIP cube shipper 56 L", (400, 380, 370), max_payload_kg=45),
]


def cpu_seconds() -> float:
    """CPU time of this process and its finished children [s]."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def order(seed: int) -> tuple[list, ContainerType]:
    """A seeded order of 6–12 parcels and the box it goes into."""
    rng = random.Random(seed)
    total = rng.randint(6, 12)
    kinds = rng.sample(range(len(PARCELS)), rng.randint(2, 4))
    counts = [1] * len(kinds)
    for _ in range(total - len(kinds)):
        counts[rng.randrange(len(kinds))] += 1
    pieces = []
    for k, (kind, n) in enumerate(zip(kinds, counts, strict=True)):
        dims, kg = PARCELS[kind]
        rules = Rules(stack_on_top=rng.random() > 0.15)
        pieces += make_pieces(f"p{kind}", dims, n, weight_kg=kg, rules=rules, item_order=k)
    return pieces, rng.choice(BOXES)


def timed(strategy, pieces, box):  # type: ignore[no-untyped-def]
    c0, w0 = cpu_seconds(), time.perf_counter()
    out = strategy.pack(pieces, box)
    return out, cpu_seconds() - c0, time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int, default=30)
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--first-seed", type=int, default=0)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}; time_limit {args.time_limit} s; {args.solver}")
    print(
        "seed box          n  all_vol  bb_vol  milp_vol  status    gap     milp_cpu/wall   bb_cpu/wall"
    )
    rows = []
    for seed in range(args.first_seed, args.first_seed + args.orders):
        pieces, box = order(seed)
        milp = get_strategy("milp", time_limit=args.time_limit, solver=args.solver, seed=0)
        m, m_cpu, m_wall = timed(milp, pieces, box)
        b, b_cpu, b_wall = timed(get_strategy("block-building"), pieces, box)
        total = sum(p.volume for p in pieces)
        gap = "-" if m.gap is None else f"{m.gap:.3f}"
        print(
            f"{seed:4d} {box.slug:13s} {len(pieces):2d} {total / 1e6:7.2f} {b.placed_volume / 1e6:7.2f} "
            f"{m.placed_volume / 1e6:8.2f}  {m.solver_status!s:9s} {gap:6s} "
            f"{m_cpu:6.2f}/{m_wall:6.2f}   {b_cpu:5.2f}/{b_wall:5.2f}",
            flush=True,
        )
        rows.append((m, b, m_cpu, m_wall))
    statuses: dict[str, int] = {}
    for m, *_ in rows:
        statuses[str(m.solver_status)] = statuses.get(str(m.solver_status), 0) + 1
    better = sum(m.placed_volume > b.placed_volume for m, b, *_ in rows)
    worse = sum(m.placed_volume < b.placed_volume for m, b, *_ in rows)
    print(f"statuses {statuses}; milp better than block building on {better}, worse on {worse}")
    print(
        f"milp cpu max {max(r[2] for r in rows):.2f} s, wall max {max(r[3] for r in rows):.2f} s; "
        f"load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
