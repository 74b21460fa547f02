"""Argument types shared by the ``packplan`` commands: argparse reports a bad value as a
usage error naming the option (status 2), never a traceback."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from adapters.api.deps import control_problem


def whole(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number within ``minimum..maximum``."""
    span = f">= {minimum}" if maximum is None else f"within {minimum}..{maximum}"

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = minimum - 1
        if v < minimum or (maximum is not None and v > maximum):
            raise argparse.ArgumentTypeError(f"expected a whole number {span} (got {text!r})")
        return v

    return parse


def organisation(text: str) -> str:
    """An organisation's name: surrounding spaces dropped, not empty, no control characters."""
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("expected an organisation's name (got an empty one)")
    problem = control_problem(name)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"expected an organisation's name: {problem}")
    return name
