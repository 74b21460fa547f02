"""Planner scaling table: pieces × SKUs × scenario → wall s, CPU s, containers, lower bound.

Each row is one :func:`adapters.planning.compute_plan` call, as a compute worker makes it
(catalog lookups, thermal filter, the packing plan, the mapping to the contract and its JSON),
with the service's default budget (``--time-limit``, 20 s), in a process set up as a worker
is (:func:`adapters.api.compute.start_worker`: the catalogs loaded, then the garbage
collector tuned, :func:`adapters.api.compute.tune_gc`; ``--default-gc`` leaves Python's
collector as it is, as a notebook plans). SKUs have random sizes of
10-60 × 5-40 × 10-50 cm and 0.2-8 kg (seeded, so every run plans the same cargo). The lower
bound is the fewest catalog boxes that could hold the cargo's volume and weight, whatever
their type (the thermal filter may rule the largest ones out, so it can be loose for THERMO).

Run from the repository root (``nox -s bench`` runs it after the benchmark tables)::

    python scripts/bench_scaling.py [--quick] [--time-limit S]

``--quick`` plans 20 and 1,000 pieces only, so CI keeps the table alive in seconds.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.api.compute import worker_gc
from adapters.planning import preload
from adapters.planning.catalogs import container_type
from adapters.planning.compute import compute_plan
from thermal.catalog import container_slugs

#: (pieces, SKUs) of a full run and of ``--quick``.
SIZES = [(20, 5), (200, 20), (1_000, 20), (3_000, 50), (9_000, 100), (10_000, 100)]
QUICK_SIZES = [(20, 5), (1_000, 20)]
SCENARIOS = ("PLAIN", "THERMO")


def body(pieces: int, skus: int, scenario: str, seed: int = 1) -> dict[str, Any]:
    """A plan input of ``pieces`` pieces spread evenly over ``skus`` random SKUs."""
    rnd = random.Random(seed)
    mode = "PLUS_2_8" if scenario == "THERMO" else "NONE"
    cargos = []
    for i in range(skus):
        cargos.append(
            {
                "id": f"sku{i}",
                "name": f"SKU {i}",
                "lengthCm": rnd.randint(10, 60),
                "widthCm": rnd.randint(10, 50),
                "heightCm": rnd.randint(5, 40),
                "weightKg": round(rnd.uniform(0.2, 8.0), 2),
                "quantity": pieces // skus + (1 if i < pieces % skus else 0),
                "temperatureMode": mode,
            }
        )
    return {
        "planTitle": f"scaling {pieces}x{skus}",
        "originCity": "Berlin",
        "destinationCity": "Munich",
        "transitHours": 24,
        "scenario": scenario,
        "cargos": cargos,
    }


def lower_bound(plan_input: dict[str, Any]) -> int:
    """Fewest catalog boxes of any types that hold the cargo's volume and weight."""
    types = [container_type(s) for s in container_slugs()]
    vol = sum(
        c["lengthCm"] * c["widthCm"] * c["heightCm"] * 1000 * c["quantity"]
        for c in plan_input["cargos"]
    )
    kg = sum(c["weightKg"] * c["quantity"] for c in plan_input["cargos"])
    by_volume = math.ceil(vol / max(t.inner_volume for t in types))
    payloads = [t.max_payload_kg for t in types if t.max_payload_kg is not None]
    by_weight = math.ceil(kg / max(payloads)) if len(payloads) == len(types) else 0
    return max(1, by_volume, by_weight)


def run(pieces: int, skus: int, scenario: str, time_limit: float) -> dict[str, Any]:
    """Plan one request; wall and CPU seconds of the computation and its JSON."""
    plan_input = body(pieces, skus, scenario)
    wall, cpu = time.perf_counter(), time.process_time()
    result = compute_plan(plan_input, use_mock_thermal=True, time_limit_s=time_limit)
    result.model_dump_json()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "pieces": pieces,
        "skus": skus,
        "scenario": scenario,
        "wall": wall,
        "cpu": cpu,
        "containers": len(result.containers),
        "placed": result.summary.totalPlaced,
        "lower_bound": lower_bound(plan_input),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/bench_scaling.py")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time-limit", type=float, default=20.0, help="budget of a request [s]")
    ap.add_argument(
        "--default-gc",
        action="store_true",
        help="keep Python's garbage collector as it is (default: tuned as a compute worker's)",
    )
    args = ap.parse_args(argv)
    preload()
    # (the caller's collector set back after: a test calls main in its own process)
    with nullcontext() if args.default_gc else worker_gc():
        _table(args)
    return 0


def _table(args: argparse.Namespace) -> None:
    sizes = QUICK_SIZES if args.quick else SIZES
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    setting = "Python's default collector" if args.default_gc else "a compute worker's collector"
    print(f"\n## Planner scaling: one compute per row, budget {args.time_limit:g} s, {setting}")
    print(f"load average before (1 / 5 / 15 min): {load}")
    print("| pieces | SKUs | scenario | wall s | CPU s | containers | lower bound | placed |")
    print("|---|---|---|---|---|---|---|---|")
    for pieces, skus in sizes:
        for scenario in SCENARIOS:
            r = run(pieces, skus, scenario, args.time_limit)
            print(
                f"| {r['pieces']} | {r['skus']} | {r['scenario']} | {r['wall']:.2f} "
                f"| {r['cpu']:.2f} | {r['containers']} | {r['lower_bound']} | {r['placed']} |",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
