"""The request journal: every request, written in small batches off the request path.

An entry holds time, method, route template, key id, organisation, status and duration; never
bodies or secrets.
"""

from __future__ import annotations

import datetime as dt
import logging
import queue
import threading
import unicodedata

from adapters.store import Store
from adapters.store.models import JournalEntry

log = logging.getLogger(__name__)


def _printable(route: str) -> str:
    """``route`` with its control characters percent-encoded again, as the request wrote them
    (a preflight's route is its raw path; PostgreSQL refuses NUL in text, which failed the
    whole batch of entries written with it)."""
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode()) if unicodedata.category(c) == "Cc" else c
        for c in route
    )


class JournalWriter:
    """Collects entries and writes them every ``flush_s`` seconds from a background thread."""

    def __init__(self, store: Store, *, flush_s: float = 0.5) -> None:
        self._store = store
        self._flush_s = flush_s
        self._queue: queue.SimpleQueue[JournalEntry] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="journal-writer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def record(
        self,
        *,
        method: str,
        route: str,
        key_id: str | None,
        organisation_id: int | None,
        status: int,
        duration_ms: float,
        at: dt.datetime | None = None,
    ) -> None:
        self._queue.put(
            JournalEntry(
                at=at or dt.datetime.now(dt.UTC),
                method=method[:10],
                route=_printable(route)[:200],
                key_id=key_id,
                organisation_id=organisation_id,
                status=status,
                duration_ms=round(duration_ms, 3),
            )
        )

    def flush(self) -> None:
        """Writes every entry collected so far."""
        batch: list[JournalEntry] = []
        while True:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if batch:
            try:
                self._store.add_journal(batch)
            except Exception:
                log.exception("could not write %d journal entries", len(batch))

    def _run(self) -> None:
        while not self._stop.wait(self._flush_s):
            self.flush()
        self.flush()

    def stop(self) -> None:
        """Stops the thread after a last flush."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self.flush()
