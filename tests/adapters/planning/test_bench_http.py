"""The HTTP latency benchmark (scripts/bench_http.py) against a real server, so it never rots."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_two_thermo_requests_over_http_are_timed_and_fully_planned() -> None:
    run = subprocess.run(
        [sys.executable, "scripts/bench_http.py", "--requests", "2", "--warm-up", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "20 pieces × 5 SKUs THERMO, 2 requests" in run.stdout
    found = re.search(r"p50 (\d+) ms, p90 (\d+) ms, slowest (\d+) ms", run.stdout)
    assert found is not None, run.stdout
    p50, p90, slowest = (int(v) for v in found.groups())
    assert 0 < p50 <= p90 <= slowest
    assert "statuses {200: 2}; plans with pieces unplaced: 0" in run.stdout
