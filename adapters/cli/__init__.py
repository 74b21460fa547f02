"""The ``packplan`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (called with the parsed
arguments, returning the exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Modules that contribute sub-commands, in the order ``--help`` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "adapters.cli.bench",
    "adapters.cli.calibrate",
    "adapters.cli.keys",
    "adapters.cli.journal",
    "adapters.cli.serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="packplan", description="Packing planning: library tools and the REST service."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`
        sys.stderr.close()
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
