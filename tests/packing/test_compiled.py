"""The engine's compiled modules and their plain sources (packing/compiled.py, setup.py)."""

from __future__ import annotations

import hashlib
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
from packing.strategies.base import Budget

Budget.HARD_FACTOR = 1e9  # the plan ends by work units alone, however slow the machine

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


def _layout(tmp_path: Path, *, edited: str | None = None, group: bool = True) -> None:
    """The compiled modules' sources, extension modules and record of what was compiled
    under ``tmp_path``, as a build leaves them; then the source of ``edited`` changed."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    record = {}
    for name in compiled.MODULES:
        src = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(f"# {name}\n")
        src.with_name(src.stem + suffix).write_bytes(b"")
        record[src.relative_to(tmp_path).as_posix()] = hashlib.sha256(src.read_bytes()).hexdigest()
    (tmp_path / "packing" / "_compiled_sources.json").write_text(json.dumps(record))
    if group:
        (tmp_path / "packing" / ("_compiled__mypyc" + suffix)).write_bytes(b"")
    if edited is not None:
        src = tmp_path.joinpath(*edited.split(".")).with_suffix(".py")
        src.write_text(src.read_text() + "x = 1\n")


def test_fresh_extension_modules_are_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _layout(tmp_path)
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("PACKPLAN_PURE_PYTHON", raising=False)
    assert compiled._choose() == "compiled"
    # a checkout that only touched the sources changes nothing
    for src in tmp_path.rglob("*.py"):
        os.utime(src, (4_000_000_000, 4_000_000_000))
    assert compiled._choose() == "compiled"
    monkeypatch.setenv("PACKPLAN_PURE_PYTHON", "0")
    assert compiled._choose() == "compiled"
    monkeypatch.setenv("PACKPLAN_PURE_PYTHON", "1")
    assert compiled._choose() == "source"


def test_a_source_edited_after_the_build_runs_as_source_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _layout(tmp_path, edited="packing.state")
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("PACKPLAN_PURE_PYTHON", raising=False)
    with pytest.warns(RuntimeWarning, match=r"state\.py differs from the source compiled"):
        assert compiled._choose() == "source"


def test_without_extension_modules_the_sources_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    monkeypatch.delenv("PACKPLAN_PURE_PYTHON", raising=False)
    _layout(tmp_path / "none")
    monkeypatch.setattr(compiled, "_ROOT", tmp_path / "none")
    for ext in (tmp_path / "none").rglob("*" + importlib.machinery.EXTENSION_SUFFIXES[0]):
        ext.unlink()
    assert compiled._choose() == "source"
    _layout(tmp_path / "no-group", group=False)
    monkeypatch.setattr(compiled, "_ROOT", tmp_path / "no-group")
    assert compiled._choose() == "source"
    _layout(tmp_path / "no-record")
    (tmp_path / "no-record" / "packing" / "_compiled_sources.json").unlink()
    monkeypatch.setattr(compiled, "_ROOT", tmp_path / "no-record")
    assert compiled._choose() == "source"
