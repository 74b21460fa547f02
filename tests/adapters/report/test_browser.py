"""The process's long-lived Chromium behind ``figures.to_png``: kept between calls, started
again once when it died, left working after a figure fails."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.report import figures
from tests.adapters.report.plans import pallet_load

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists(),
    reason="needs Chromium (kaleido)",
)

PNG = b"\x89PNG\r\n\x1a\n"


def _fig() -> Any:
    return figures.axle_load_figure(pallet_load())


def _process() -> Any:
    return figures._BROWSER._kaleido.subprocess


def test_the_browser_is_kept_between_calls() -> None:
    figures.start_browser()
    before = _process().pid
    (png,) = figures.to_png([(_fig(), 300, 200)], scale=1.0)
    assert png.startswith(PNG)
    assert _process().pid == before and _process().poll() is None


def test_a_dead_browser_is_started_again_once() -> None:
    figures.start_browser()
    dead = _process()
    dead.kill()
    dead.wait(timeout=60)
    pngs = figures.to_png([(_fig(), 300, 200), (_fig(), 320, 200)], scale=1.0)
    assert [p[:8] for p in pngs] == [PNG, PNG]
    assert _process().pid != dead.pid and _process().poll() is None


def test_a_failing_figure_leaves_the_browser_working() -> None:
    figures.start_browser()
    before = _process().pid

    def built() -> Iterator[tuple[Any, int, int]]:
        yield _fig(), 300, 200
        raise ValueError("no such figure")

    with pytest.raises(ValueError, match="no such figure"):
        figures.to_png(built(), scale=1.0)
    (png,) = figures.to_png([(_fig(), 300, 200)], scale=1.0)
    assert png.startswith(PNG) and _process().pid == before


def test_an_empty_list_needs_no_browser() -> None:
    assert figures.to_png([], scale=1.0) == []
    assert figures.to_png(iter(()), scale=1.0) == []


def test_stopped_it_starts_on_first_use() -> None:
    figures.stop_browser()
    assert not figures._BROWSER.running
    (png,) = figures.to_png([(_fig(), 300, 200)], scale=1.0)
    assert png.startswith(PNG) and figures._BROWSER.running


def test_a_forked_child_leaves_the_parents_browser_alone() -> None:
    import os

    figures.start_browser()
    parent = _process()
    pid = os.fork()
    if pid == 0:  # the child holds no browser of its own (nor the parent's)
        code = 0 if not figures._BROWSER.running else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert parent.poll() is None
    (png,) = figures.to_png([(_fig(), 300, 200)], scale=1.0)
    assert png.startswith(PNG) and _process().pid == parent.pid
