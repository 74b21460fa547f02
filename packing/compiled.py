"""Which form of the engine's hot modules runs: compiled by mypyc, or the plain sources.

The build compiles :mod:`packing.geometry`, :mod:`packing.state` and
:mod:`packing.strategies.steps` to C extension modules beside their sources (``setup.py``)
and records each source's SHA-256 in ``packing/_compiled_sources.json``. Python imports an
extension module before a source of the same name, so a source edited after the build
would be ignored. The plain sources run instead, the same plans more slowly, when

- ``PACKPLAN_PURE_PYTHON`` is set (to anything but 0),
- a source differs from the one compiled (a warning then says to reinstall:
  ``pip install -e .``; a nox session reinstalls when a compiled source changed), or
- the extension modules or the record are missing (installed without a compiler).

:data:`MODE` tells which form runs: ``"compiled"`` or ``"source"``.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
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


_SUFFIXES = importlib.machinery.EXTENSION_SUFFIXES


def _builds(name: str) -> list[Path]:
    src = _source(name)
    return [
        src.with_name(src.stem + suffix)
        for suffix in _SUFFIXES
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


def pure_python_asked() -> bool:
    """Is ``PACKPLAN_PURE_PYTHON`` set to anything but 0 (or empty)?"""
    return os.environ.get("PACKPLAN_PURE_PYTHON", "0") not in ("", "0")


def _choose() -> str:
    if pure_python_asked():
        return "source"
    record = _ROOT / "packing" / "_compiled_sources.json"
    group = _ROOT / "packing" / "_compiled__mypyc"
    if not all(_builds(name) for name in MODULES) or not record.exists():
        return "source"  # installed without a compiler, or not built
    if not any(group.with_name(group.name + s).exists() for s in _SUFFIXES):
        return "source"
    compiled = json.loads(record.read_text())
    stale = [
        str(_source(name))
        for name in MODULES
        if compiled.get(str(_source(name).relative_to(_ROOT).as_posix()))
        != hashlib.sha256(_source(name).read_bytes()).hexdigest()
    ]
    if stale:
        warnings.warn(
            f"{', '.join(stale)} differs from the source compiled: the plain sources run "
            "(the same plans, more slowly); reinstall (pip install -e .) to compile again",
            RuntimeWarning,
            stacklevel=3,
        )
        return "source"
    return "compiled"


MODE = _choose()
if MODE == "source" and not any(isinstance(f, _Sources) for f in sys.meta_path):
    sys.meta_path.insert(0, _Sources())
