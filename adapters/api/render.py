"""PDF reports off the event loop and off the server's threads, in a pool of their own.

Rendering is CPU work whose length grows with the plan; it runs in ``workers`` processes with
``queue`` more waiting places and a time limit. A render that finds every slot taken is
refused at once (503 with ``Retry-After``); one that overruns its limit is stopped with its
worker (500). Reads and ``/api/health`` never wait behind renders.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from adapters.api.workers import WorkerPool, watch_parent

log = logging.getLogger(__name__)

#: What a worker runs: ``(record_json, mode) -> PDF bytes``.
RenderTask = Callable[[str, str], bytes]


class RenderBusy(Exception):
    """Every render slot is taken."""


class RenderTimeout(Exception):
    """The render overran its time limit; its worker was replaced."""


class RenderCrashed(Exception):
    """The worker process died during the render."""


def render_in_worker(record_json: str, mode: str) -> bytes:
    """Runs in a worker process: the PDF report of a stored plan record."""
    from adapters.planning.schemas import PackingPlanRecord
    from adapters.report import render_pdf

    record = PackingPlanRecord.model_validate_json(record_json)
    return render_pdf(record, mode="full" if mode == "full" else "summary")


def start_render_worker(server_pid: int) -> None:
    """Runs once in every new worker: watches the server, loads the report code, and starts
    the worker's Chromium, so the first full report does not wait some 3.5 s for it.

    A browser that will not start is left to the first full render to try again (and to
    report); summaries need none.
    """
    watch_parent(server_pid)
    import adapters.report  # noqa: F401  (reportlab's import is most of a first render)
    from adapters.report import figures

    try:
        figures.start_browser()
    except figures.NoBrowserError as exc:  # a known cause needs no traceback
        log.warning("the render worker's browser did not start: %s", exc)
    except Exception:
        log.warning("the render worker's browser did not start", exc_info=True)


#: Time a render may take per piece of the plan [s], beyond the settings' time limit: the
#: pieces table and figures grow with the pieces (a plan of 10,000 took 9.5 s as a summary
#: and 24 s in full on a busy host), so a valid plan is never cut for its size alone.
RENDER_S_PER_PIECE = 0.003


class RenderPool(WorkerPool):
    """The render workers; ``time_limit_s`` bounds one render [s], plus
    :data:`RENDER_S_PER_PIECE` for each piece of its plan."""

    busy_error = RenderBusy
    overran_error = RenderTimeout
    died_error = RenderCrashed
    what = "render"

    def __init__(
        self, *, workers: int, queue: int, time_limit_s: float, task: RenderTask = render_in_worker
    ) -> None:
        self.task = task
        super().__init__(workers=workers, queue=queue, deadline_s=time_limit_s)

    def initializer(self) -> tuple[Callable[..., None], tuple[Any, ...]]:
        _, args = super().initializer()
        return start_render_worker, args

    async def render(self, record_json: str, mode: str, pieces: int = 0) -> bytes:
        """The PDF of a plan of ``pieces`` placed pieces, rendered in a worker.

        Raises
        ------
        RenderBusy
            Every slot is taken.
        RenderTimeout
            The render overran its time limit; its worker was replaced.
        RenderCrashed
            The worker process died.
        """
        deadline = self.deadline_s + RENDER_S_PER_PIECE * max(0, pieces)
        return await self.run(self.task, record_json, mode, deadline_s=deadline)
