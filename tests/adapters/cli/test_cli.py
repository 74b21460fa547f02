"""The keys and journal sub-commands, in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli import main
from adapters.store import Store, database_url, make_engine


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("PACKPLAN_SQLITE_PATH", str(path))
    return path


def _store(path: Path) -> Store:
    return Store(make_engine(database_url(None, path)))


def test_issue_prints_the_key_alone_and_stores_its_digest(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "issue", "--org", "acme", "--scopes", "packing:read, catalog:read"]) == 0
    out = capsys.readouterr()
    key = out.out.strip()
    assert out.out == key + "\n" and key.startswith("tbp_")
    info = _store(db).authenticate(key)
    assert info is not None and info.organisation == "acme" and not info.sandbox
    assert info.scopes == {"packing:read", "catalog:read"}
    assert key not in db.read_bytes().decode("latin-1")


def test_sandbox_flag_and_listing(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["keys", "issue", "--org", "acme", "--scopes", "packing:compute", "--sandbox"])
    key = capsys.readouterr().out.strip()
    assert main(["keys", "list", "--org", "acme"]) == 0
    listing = capsys.readouterr().out
    assert key[:12] in listing and key not in listing and "sandbox" in listing


@pytest.mark.parametrize("scopes", ["packing:all", ",", "catalog:read,nope"])
def test_unknown_scopes_are_refused(
    db: Path, scopes: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "issue", "--org", "acme", "--scopes", scopes]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "scope" in captured.err


def test_revoke(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["keys", "issue", "--org", "acme", "--scopes", "packing:read"])
    key = capsys.readouterr().out.strip()
    store = _store(db)
    info = store.authenticate(key)
    assert info is not None
    assert main(["keys", "revoke", info.key_id]) == 0
    assert store.authenticate(key) is None
    assert main(["keys", "revoke", info.key_id]) == 1


def test_journal_lists_newest_first(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import datetime as dt

    from adapters.store.models import JournalEntry

    main(["journal"])  # creates the schema
    capsys.readouterr()
    now = dt.datetime.now(dt.UTC)
    _store(db).add_journal(
        [
            JournalEntry(
                at=now + dt.timedelta(seconds=i),
                method="GET",
                route="/api/health",
                status=200 + i,
                duration_ms=1.0,
            )
            for i in range(3)
        ]
    )
    assert main(["journal", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and " 202 " in lines[1] and " 201 " in lines[2]


def test_the_package_runs_as_a_module():
    """``python -m adapters.cli`` is the ``packplan`` command (here: its usage error)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "bench", "br"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "usage: packplan bench br" in done.stderr


def test_serve_names_a_bad_setting_and_starts_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import adapters.cli.serve as serve

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("the service started on bad settings")

    monkeypatch.setattr(serve, "open_store", started)
    monkeypatch.setattr(serve.uvicorn, "run", started)
    monkeypatch.setenv("PACKPLAN_WORK_UNITS_PER_SECOND", "0")
    monkeypatch.setenv("PACKPLAN_COMPUTE_WORKERS", "two")
    monkeypatch.setenv("DATABASE_URL", "x" * 3)
    monkeypatch.setattr(serve, "Settings", _strict_database_url(serve.Settings))
    assert main(["serve", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "PACKPLAN_WORK_UNITS_PER_SECOND: Input should be greater than or equal to 5000000" in err
    assert "PACKPLAN_COMPUTE_WORKERS: Input should be a valid integer" in err
    # a setting read under an alias is named by its variable, without the prefix
    assert "\npackplan serve: DATABASE_URL: " in "\n" + err
    assert "Traceback" not in err


def _strict_database_url(base: type) -> type:
    """The service's settings with a database URL that must start with a scheme (the real
    one takes any text), to see how an aliased setting's error is named."""
    from pydantic import field_validator

    class Strict(base):  # type: ignore[misc,valid-type]
        @field_validator("database_url")
        @classmethod
        def _scheme(cls, v: str | None) -> str | None:
            if v is not None and "://" not in v:
                raise ValueError("must be a URL")
            return v

    return Strict


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["keys", "issue", "--org", "", "--scopes", "packing:read"], "--org: expected an"),
        (["keys", "issue", "--org", "   ", "--scopes", "packing:read"], "--org: expected an"),
        (["keys", "issue", "--org", "a\x1bb", "--scopes", "packing:read"], "control characters"),
        (["keys", "list", "--org", ""], "--org: expected an"),
        (["serve", "--port", "99999"], "--port: expected a whole number within 1..65535"),
        (["serve", "--port", "0"], "--port: expected a whole number within 1..65535"),
        (["serve", "--workers", "0"], "--workers: expected a whole number within 1..64"),
        (["journal", "--limit", "-2"], "--limit: expected a whole number >= 1"),
        (["journal", "--limit", "0"], "--limit: expected a whole number >= 1"),
    ],
)
def test_bad_options_are_usage_errors_naming_the_option(
    db: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err


def test_an_organisation_name_is_taken_without_surrounding_spaces(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "issue", "--org", "  acme ", "--scopes", "packing:read"]) == 0
    key = capsys.readouterr().out.strip()
    info = _store(db).authenticate(key)
    assert info is not None and info.organisation == "acme"
