"""``packplan calibrate``: the work units this machine does in a CPU second.

A planning budget of ``t`` seconds buys ``t × rate`` work units. The default rate was
fitted on the project's reference machine; this command measures this machine's own (see
:func:`packing.bench.measure_rate`) and prints the setting that makes a budget mean CPU
seconds here: ``PACKPLAN_WORK_UNITS_PER_SECOND`` for the service, or
``Budget.use_rate(...)`` in a notebook. It measures with the garbage collector set as in
the service's compute workers (:func:`adapters.api.compute.tune_gc`); a notebook with
Python's default collector does a few per cent fewer units a second (109,000,000 against
112,000,000 on the machine of 2026-12-06), unless it calls ``tune_gc()`` too.
"""

from __future__ import annotations

import argparse
import json
import os

from adapters.api.compute import worker_gc
from packing.argtypes import whole
from packing.bench import measure_rate


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "calibrate",
        help="measure the work units this machine does in a CPU second",
        description="Plans a few shipped benchmark problems at their default budgets, each "
        "twice (--runs) and timed by its least CPU time (about 17 CPU seconds a run; --quick "
        "about 4), and prints the units per CPU second this machine does, and the setting "
        "that makes a planning budget mean CPU seconds here. Run it on an otherwise idle "
        "machine.",
    )
    p.add_argument("--quick", action="store_true", help="two short plans: a rough figure")
    p.add_argument(
        "--runs",
        type=whole(1, 10),
        default=2,
        help="times each plan is planned; its least CPU time counts (default 2: a burst of "
        "another process's work on a shared host only adds CPU time)",
    )
    p.add_argument("--json", action="store_true", help="the measurement as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with worker_gc():  # as the compute workers plan
        m = measure_rate(quick=args.quick, progress=not args.json, runs=args.runs)
    if args.json:
        print(json.dumps(m, indent=2))
        return 0
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"load average (1 / 5 / 15 min): {load}")
    print(f"{'plan':<22} {'work units':>14} {'CPU s':>7} {'units / CPU s':>15}")
    for r in m["plans"]:
        print(
            f"{r['plan']:<22} {r['workUnits']:>14,} {r['cpuSeconds']:>7.2f} "
            f"{r['unitsPerCpuSecond']:>15,.0f}"
        )
    rate, default = m["unitsPerCpuSecond"], m["defaultRate"]
    print(
        f"\nthis machine: {rate:,} units per CPU second "
        f"({rate / default:.2f} × the default {default:,})"
    )
    print("for the service:  PACKPLAN_WORK_UNITS_PER_SECOND=" + str(rate))
    print(f"in Python:        Budget.use_rate({rate})")
    return 0
