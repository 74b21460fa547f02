"""Argument types shared by the ``packplan`` commands: argparse reports a bad value as a
usage error naming the option (status 2), never a traceback."""

from __future__ import annotations

import argparse

from adapters.api.deps import control_problem
from packing.argtypes import whole

__all__ = ["organisation", "whole"]


def organisation(text: str) -> str:
    """An organisation's name: surrounding spaces dropped, not empty, no control characters."""
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("expected an organisation's name (got an empty one)")
    problem = control_problem(name)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"expected an organisation's name: {problem}")
    return name
