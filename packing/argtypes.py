"""Argument types of the command lines (``packplan``, ``python -m packing.benchrun``):
argparse reports a bad value as a usage error naming the option (status 2), never a
traceback."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from packing.errors import PackingInputError, seconds_value


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


def seconds(text: str) -> float:
    """A time limit: a finite number of seconds > 0."""
    try:
        return seconds_value("--time-limit", float(text))
    except (ValueError, PackingInputError):
        raise argparse.ArgumentTypeError(
            f"expected seconds > 0, a finite number (got {text!r})"
        ) from None
