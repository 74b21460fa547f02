"""Latency of compute requests over HTTP: a real ``packplan serve``, timed at the client.

Starts the service on a free port with SQLite in a temporary folder (``--workers`` server
processes, the default compute pool), issues an API key through the command line, sends
``--warm-up`` untimed requests and then ``--requests`` timed ones of one body, one at a
time, and prints p50, p90 and the slowest, from sending the request to reading the whole
response. Bodies are those of ``scripts/bench_scaling.py`` (seeded random SKUs) on a lane of
the city catalog (``--origin``, ``--destination``; 24 h in transit), so THERMO requests
run the real thermal check; a request whose plan leaves pieces unplaced fails the run.

Run from the repository root::

    python scripts/bench_http.py [--pieces 20] [--skus 5] [--scenario THERMO] [--requests 40]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.bench_scaling import body


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(base: str, server: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if server.poll() is not None:
            raise SystemExit(f"the service exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/api/health", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    raise SystemExit(f"the service did not answer {base}/api/health within {seconds:g} s")


def _post(url: str, key: str, data: bytes) -> tuple[int, float, int]:
    """Status, seconds until the whole response was read, and pieces placed."""
    req = urllib.request.Request(
        url, data=data, headers={"X-Api-Key": key, "content-type": "application/json"}
    )
    start = time.perf_counter()
    placed = 0
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            raw = r.read()
            status = r.status
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        status = exc.code
    seconds = time.perf_counter() - start
    if status == 200:
        placed = len(json.loads(raw)["placements"])
    return status, seconds, placed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/bench_http.py")
    ap.add_argument("--pieces", type=int, default=20)
    ap.add_argument("--skus", type=int, default=5)
    ap.add_argument("--scenario", choices=("PLAIN", "THERMO"), default="THERMO")
    ap.add_argument("--requests", type=int, default=40)
    ap.add_argument("--warm-up", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2, help="server processes")
    ap.add_argument("--origin", default="Moscow")
    ap.add_argument("--destination", default="Kazan")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PACKPLAN_SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"),
            "PACKPLAN_RATE_PRODUCTION_PER_MINUTE": "100000",
        }
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        cli = [sys.executable, "-m", "adapters.cli"]
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [*cli, "serve", "--port", str(port), "--workers", str(args.workers)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_up(base, server)
            issued = subprocess.run(
                [*cli, "keys", "issue", "--org", "bench", "--scopes", "packing:compute"],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            key = next(w for w in issued.stdout.split() if w.startswith("tbp_"))
            url = f"{base}/api/v1/packing/compute"
            request = body(args.pieces, args.skus, args.scenario)
            request.update(originCity=args.origin, destinationCity=args.destination)
            data = json.dumps(request).encode()
            for _ in range(args.warm_up):
                _post(url, key, data)
            load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
            times: list[float] = []
            statuses: dict[int, int] = {}
            short = 0
            for _ in range(args.requests):
                status, seconds, placed = _post(url, key, data)
                statuses[status] = statuses.get(status, 0) + 1
                short += placed < args.pieces
                times.append(seconds)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    times.sort()
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(
        f"{args.pieces} pieces × {args.skus} SKUs {args.scenario}, {args.requests} requests "
        f"after {args.warm_up} warm-ups, {args.workers} server processes; load before "
        f"(1 / 5 / 15 min) {load}"
    )
    print(
        f"p50 {1000 * statistics.median(times):.0f} ms, p90 {1000 * p90:.0f} ms, "
        f"slowest {1000 * times[-1]:.0f} ms; statuses {statuses}; plans with pieces "
        f"unplaced: {short}"
    )
    return 0 if set(statuses) == {200} and not short else 1


if __name__ == "__main__":
    sys.exit(main())
