"""``packplan keys``: issue, list and revoke API keys.

``packplan keys issue --org NAME --scopes a,b [--sandbox]`` prints the new key alone on
stdout; it is shown only this once (the database keeps its SHA-256 digest).
Organisations are created on first use.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adapters.cli._args import organisation
from adapters.cli._store import open_store
from adapters.store import SCOPES, UnknownScopeError
from adapters.timestamps import iso_z


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("keys", help="issue, list and revoke API keys")
    sub = parser.add_subparsers(dest="keys_command", metavar="ACTION", required=True)

    issue = sub.add_parser("issue", help="issue a key; prints it once, alone on stdout")
    issue.add_argument(
        "--org", required=True, type=organisation, help="organisation (created on first use)"
    )
    issue.add_argument(
        "--scopes", required=True, help=f"comma-separated, from: {', '.join(SCOPES)}"
    )
    issue.add_argument("--sandbox", action="store_true", help="sandbox key (reduced limits)")
    issue.set_defaults(func=_issue)

    listing = sub.add_parser("list", help="list an organisation's keys")
    listing.add_argument("--org", required=True, type=organisation)
    listing.set_defaults(func=_list)

    revoke = sub.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("id", help="key id as shown by 'keys list' (key_...)")
    revoke.set_defaults(func=_revoke)


def _issue(args: argparse.Namespace) -> int:
    scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
    if not scopes:
        print("packplan keys issue: --scopes names no scope", file=sys.stderr)
        return 2
    try:
        row, secret = open_store().issue_key(args.org, scopes, sandbox=args.sandbox)
    except UnknownScopeError as exc:
        print(f"packplan keys issue: {exc}", file=sys.stderr)
        return 2
    print(secret)
    print(
        f"issued {row.id} ({row.prefix}…) for {args.org}: {row.scopes}"
        + (" [sandbox]" if row.sandbox else ""),
        file=sys.stderr,
    )
    return 0


def _list(args: argparse.Namespace) -> int:
    rows = open_store().list_keys(args.org)
    if not rows:
        print(f"no keys for organisation {args.org!r}", file=sys.stderr)
        return 0
    print(f"{'ID':<18} {'PREFIX':<14} {'KIND':<10} {'CREATED':<26} {'REVOKED':<26} SCOPES")
    for row in rows:
        print(
            f"{row.id:<18} {row.prefix:<14} {'sandbox' if row.sandbox else 'production':<10} "
            f"{iso_z(row.created_at):<26} "
            f"{iso_z(row.revoked_at) if row.revoked_at else '-':<26} {row.scopes}"
        )
    return 0


def _revoke(args: argparse.Namespace) -> int:
    if not open_store().revoke_key(args.id):
        print(f"packplan keys revoke: no active key {args.id!r}", file=sys.stderr)
        return 1
    print(f"revoked {args.id}", file=sys.stderr)
    return 0
