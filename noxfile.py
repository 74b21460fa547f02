"""Sessions by purpose: tests, lint, typecheck, bench, serve, notebooks."""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_external_run = False

PYTHON = "3.11"


def _install(session: nox.Session, *extras: str) -> None:
    spec = "." if not extras else f".[{','.join(extras)}]"
    session.install("-e", spec)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The whole test suite (needs PostgreSQL and Redis on 127.0.0.1)."""
    session.run("bash", "scripts/system-deps.sh", external=True)
    _install(session, "test")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff over the code base."""
    session.install("ruff")
    session.run("ruff", "check", "packing", "thermal", "adapters", "tests", "noxfile.py")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy; strict for the adapters (see pyproject.toml)."""
    _install(session, "test")
    session.install("mypy", "pandas-stubs")
    session.run("mypy", "packing", "thermal", "adapters")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmark tables: BR container loading, MPV bin packing, a large plan.

    ``nox -s bench`` runs the full tables; ``nox -s bench -- --quick`` a short pass.
    """
    _install(session)
    session.run("python", "-m", "packing.benchrun", *session.posargs)


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
