"""``packplan journal``: the newest entries of the request journal."""

from __future__ import annotations

import argparse
import json
from typing import Any

from adapters.cli._args import whole
from adapters.cli._store import open_store
from adapters.timestamps import iso_z


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("journal", help="show the request journal, newest first")
    parser.add_argument("--limit", type=whole(1), default=50, help="entries to show (default 50)")
    parser.add_argument("--org", default=None, help="only this organisation's requests")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> int:
    rows = open_store().journal(limit=max(1, args.limit), organisation=args.org)
    if not args.json:
        print(f"{'TIME':<25} {'METHOD':<7} {'STATUS':>6} {'MS':>9}  {'KEY':<18} {'ORG':<16} ROUTE")
    for row in rows:
        e = row.entry
        if args.json:
            record = {
                "at": iso_z(e.at),
                "method": e.method,
                "route": e.route,
                "keyId": e.key_id,
                "organisation": row.organisation,
                "status": e.status,
                "durationMs": e.duration_ms,
            }
            print(json.dumps(record))
        else:
            print(
                f"{iso_z(e.at):<25} {e.method:<7} {e.status:>6} {e.duration_ms:>9.1f}  "
                f"{e.key_id or '-':<18} {row.organisation or '-':<16} {e.route}"
            )
    return 0
