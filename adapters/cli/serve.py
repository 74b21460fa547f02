"""``packplan serve``: runs the REST service with uvicorn.

The schema is migrated once before the workers start. Settings come from the environment
(see :mod:`adapters.api.settings`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import uvicorn
from pydantic import AliasChoices, ValidationError

from adapters.api.http_protocol import JsonErrorsH11Protocol
from adapters.api.settings import Settings
from adapters.cli._args import whole
from adapters.cli._store import open_store


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the REST service")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=whole(1, 65535), default=8000, help="port (8000)")
    parser.add_argument(
        "--workers",
        type=whole(1, 64),
        default=1,
        help="server processes (1); each has its compute pool",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn log level (info)")
    parser.set_defaults(func=_serve)


def settings_errors() -> list[str]:
    """What is wrong with the service's settings in the environment, a line per variable
    (empty when they are valid)."""
    try:
        Settings()
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            var = _variable(str(err["loc"][0])) if err["loc"] else "settings"
            lines.append(f"{var}: {err['msg']} (got {err.get('input')!r})")
        return lines
    return []


def _variable(loc: str) -> str:
    """The environment variable of a setting, by its name or alias in an error: its first
    alias (``DATABASE_URL``), else the prefix and its name in upper case."""
    prefix = str(Settings.model_config.get("env_prefix", ""))
    for name, f in Settings.model_fields.items():
        alias = f.validation_alias
        if isinstance(alias, AliasChoices):
            choices = [str(c) for c in alias.choices]
        elif isinstance(alias, str):
            choices = [alias]
        else:
            choices = []
        if loc == name or loc in choices:
            return choices[0] if choices else f"{prefix}{name}".upper()
    return loc.upper()


def _serve(args: argparse.Namespace) -> int:
    problems = settings_errors()
    if problems:
        for line in problems:
            print(f"packplan serve: {line}", file=sys.stderr)
        return 2
    open_store().engine.dispose()  # migrate before the workers start
    uvicorn.run(
        "adapters.api.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=max(1, args.workers),
        log_level=args.log_level,
        access_log=False,
        proxy_headers=True,
        http=JsonErrorsH11Protocol,  # a request the parser refuses gets a JSON 400 too
    )
    return 0
