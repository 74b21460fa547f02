"""Sessions by purpose: tests (lint, typecheck and the suite), lint, typecheck, bench, serve,
notebooks, cli."""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_external_run = False

PYTHON = "3.11"

#: Everything ruff checks and formats: code, tests, notebooks, scripts.
LINT_PATHS = (
    "packing",
    "thermal",
    "adapters",
    "data",
    "tests",
    "notebooks",
    "scripts",
    "noxfile.py",
    "setup.py",
)


def _extra(name: str) -> list[str]:
    """The pinned requirements of one optional-dependency group of pyproject.toml."""
    with open("pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["optional-dependencies"][name])


#: What an install of the package is made from besides its sources: its build files. (The
#: sources it compiles are judged by the build's own record, as ``packing.compiled`` does.)
BUILD_FILES = ("pyproject.toml", "setup.py")
#: The build's record of the sources it compiled and their SHA-256 (``setup.py``).
COMPILED_RECORD = Path("packing/_compiled_sources.json")


def _compiled_fresh() -> bool:
    """Did the last build compile every source it records, as the sources are now?"""
    if not COMPILED_RECORD.exists():
        return False
    record = json.loads(COMPILED_RECORD.read_text())
    return bool(record) and all(
        Path(src).exists()
        and hashlib.sha256(Path(src).read_bytes()).hexdigest() == digest
        and list(Path(src).parent.glob(Path(src).stem + ".*.so"))
        for src, digest in record.items()
    )


def _install(session: nox.Session, *extras: str) -> None:
    """Install the package (editable) with ``extras``, unless this virtualenv already holds
    it as built from the same build files and the compiled sources are unchanged: the build
    compiles three modules with mypyc (about two minutes), which every ``nox -s cli`` would
    otherwise wait for."""
    spec = "." if not extras else f".[{','.join(extras)}]"
    digest = hashlib.sha256(spec.encode())
    pure = os.environ.get("PACKPLAN_PURE_PYTHON", "0") not in ("", "0")
    digest.update(b"pure" if pure else b"compiled")
    for name in BUILD_FILES:
        digest.update(Path(name).read_bytes())
    stamp = Path(str(session.virtualenv.location)) / "packplan-build.sha256"
    built = pure or _compiled_fresh()
    if built and stamp.exists() and stamp.read_text() == digest.hexdigest():
        session.log("packplan is installed from these sources already")
        return
    session.install("-e", spec)
    stamp.write_text(digest.hexdigest())


def _lint(session: nox.Session) -> None:
    session.run("ruff", "check", *LINT_PATHS)
    session.run("ruff", "format", "--check", *LINT_PATHS)


def _typecheck(session: nox.Session) -> None:
    session.run("mypy", "packing", "thermal", "adapters")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The gates and the whole suite: ruff (lint and format), mypy, then pytest.

    Needs PostgreSQL and Redis on 127.0.0.1; arguments go to pytest.
    """
    session.run("bash", "scripts/system-deps.sh", external=True)
    _install(session, "test", "lint", "typecheck")
    _lint(session)
    _typecheck(session)
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff: lint rules and the format, over code, tests, notebooks and scripts."""
    session.install(*_extra("lint"))
    _lint(session)


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy with pinned versions; strict for the adapters (see pyproject.toml)."""
    _install(session, "test", "typecheck")
    _typecheck(session)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmark tables: BR container loading, MPV bin packing, a large plan, the work-unit
    calibration, the planner scaling table (pieces × SKUs × scenario), then compute
    latency over HTTP against a real server (20 THERMO pieces; 1,000 PLAIN pieces).

    ``nox -s bench`` runs the full tables; ``nox -s bench -- --quick`` a short pass. The
    other arguments go to ``packing.benchrun``.
    """
    _install(session)
    session.run("python", "-m", "packing.benchrun", *session.posargs)
    quick = ["--quick"] if "--quick" in session.posargs else []
    session.run("python", "scripts/bench_scaling.py", *quick)
    session.run("python", "scripts/bench_http.py", *(["--requests", "5"] if quick else []))
    if not quick:
        session.run(
            "python",
            "scripts/bench_http.py",
            "--pieces",
            "1000",
            "--skus",
            "20",
            "--scenario",
            "PLAIN",
            "--requests",
            "5",
        )


@nox.session(python=PYTHON)
def notebooks(session: nox.Session) -> None:
    """Executes every notebook in notebooks/ (the tests session runs them too)."""
    _install(session, "test")
    session.run("pytest", "tests/test_notebooks.py", *session.posargs)


@nox.session(python=PYTHON)
def cli(session: nox.Session) -> None:
    """Any ``packplan`` command, e.g. ``nox -s cli -- keys issue --org ACME --scopes ...``."""
    _install(session)
    session.run("packplan", *(session.posargs or ["--help"]))


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Runs the REST service (SQLite in ./var unless DATABASE_URL is set)."""
    session.run("bash", "scripts/system-deps.sh", external=True)
    _install(session)
    args = session.posargs or ["--host", "127.0.0.1", "--port", os.environ.get("PORT", "8000")]
    session.run("packplan", "serve", *args)
