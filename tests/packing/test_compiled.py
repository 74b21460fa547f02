"""The engine's compiled modules and their plain sources (packing/compiled.py, setup.py)."""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import packing
from packing import compiled

ROOT = Path(__file__).resolve().parents[2]

#: Plans one shipped BR7 problem and prints which form ran and every placement.
PLAN = """
import json
import packing
from packing import plan_containers
from packing.instances import load_shipped

inst = load_shipped("BR7")[0]
r = plan_containers(inst.pieces(honour_flags=True), [inst.container_type()],
                    support_ratio=0.8, max_containers=1, time_limit=0.3)
print(json.dumps({
    "mode": packing.compiled.MODE,
    "files": [__import__(m, fromlist=["_"]).__file__ for m in packing.compiled.MODULES],
    "units": r.work_units,
    "placements": [[p.piece.item_id, *p.position, *p.extents]
                   for c in r.containers for p in c.placements],
}))
"""


def _plan(pure: bool) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PACKPLAN_PURE_PYTHON"}
    if pure:
        env["PACKPLAN_PURE_PYTHON"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", PLAN], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_the_compiled_and_the_plain_modules_plan_alike() -> None:
    plain, default = _plan(pure=True), _plan(pure=False)
    assert plain["mode"] == "source"
    assert all(str(f).endswith(".py") for f in plain["files"])  # type: ignore[attr-defined]
    # the default form is the one this process runs: compiled wherever the build compiled
    assert default["mode"] == packing.compiled.MODE
    if default["mode"] == "compiled":
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        assert all(str(f).endswith(suffixes) for f in default["files"])  # type: ignore[attr-defined]
    assert default["units"] == plain["units"]
    assert default["placements"] == plain["placements"]
    assert len(plain["placements"]) > 50  # type: ignore[arg-type]


def _layout(tmp_path: Path, *, source_newer: str | None) -> None:
    """Sources and extension modules of the compiled modules under ``tmp_path``; the
    extensions newer than their sources, except that of ``source_newer``."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in compiled.MODULES:
        src = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text("")
        ext = src.with_name(src.stem + suffix)
        ext.write_bytes(b"")
        os.utime(src, (1_000, 1_000))
        os.utime(ext, (2_000, 2_000))
        if name == source_newer:
            os.utime(src, (3_000, 3_000))


def test_fresh_extension_modules_are_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _layout(tmp_path, source_newer=None)
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("PACKPLAN_PURE_PYTHON", raising=False)
    assert compiled._choose() == "compiled"
    monkeypatch.setenv("PACKPLAN_PURE_PYTHON", "0")
    assert compiled._choose() == "compiled"
    monkeypatch.setenv("PACKPLAN_PURE_PYTHON", "1")
    assert compiled._choose() == "source"


def test_a_source_edited_after_the_build_runs_as_source_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _layout(tmp_path, source_newer="packing.state")
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("PACKPLAN_PURE_PYTHON", raising=False)
    with pytest.warns(RuntimeWarning, match=r"state\.py changed after it was compiled"):
        assert compiled._choose() == "source"


def test_without_extension_modules_the_sources_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _layout(tmp_path, source_newer=None)
    for ext in tmp_path.rglob("*" + importlib.machinery.EXTENSION_SUFFIXES[0]):
        ext.unlink()
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("PACKPLAN_PURE_PYTHON", raising=False)
    assert compiled._choose() == "source"
