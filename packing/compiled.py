"""Which form of the engine's hot modules runs: compiled by mypyc, or the plain sources.

The build compiles :mod:`packing.geometry`, :mod:`packing.state` and
:mod:`packing.strategies.steps` to C extension modules beside their sources (``setup.py``).
Python imports an extension module before a source of the same name, so a source edited
after the build would be ignored. The plain sources run instead, the same plans more
slowly, when

- ``PACKPLAN_PURE_PYTHON`` is set (to 1, or any value but 0), or
- a source changed after it was compiled (a warning then says to reinstall:
  ``pip install -e .``; every nox session reinstalls).

:data:`MODE` tells which form runs: ``"compiled"`` or ``"source"``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules the build compiles.
MODULES = ("packing.geometry", "packing.state", "packing.strategies.steps")

_ROOT = Path(__file__).resolve().parent.parent


def _source(name: str) -> Path:
    return _ROOT.joinpath(*name.split(".")).with_suffix(".py")


def _builds(name: str) -> list[Path]:
    src = _source(name)
    return [
        src.with_name(src.stem + suffix)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        if src.with_name(src.stem + suffix).exists()
    ]


class _Sources(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' plain sources ahead of their extension modules."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _source(fullname))


def _choose() -> str:
    if os.environ.get("PACKPLAN_PURE_PYTHON", "0") not in ("", "0"):
        return "source"
    built = {name: _builds(name) for name in MODULES}
    if not all(built.values()):
        return "source"  # installed without a compiler, or not built
    stale = [
        str(_source(name))
        for name, builds in built.items()
        if _source(name).stat().st_mtime > max(b.stat().st_mtime for b in builds)
    ]
    if stale:
        warnings.warn(
            f"{', '.join(stale)} changed after it was compiled: the plain sources run "
            "(the same plans, more slowly); reinstall (pip install -e .) to compile again",
            RuntimeWarning,
            stacklevel=3,
        )
        return "source"
    return "compiled"


MODE = _choose()
if MODE == "source" and not any(isinstance(f, _Sources) for f in sys.meta_path):
    sys.meta_path.insert(0, _Sources())
