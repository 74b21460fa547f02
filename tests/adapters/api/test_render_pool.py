"""The render pool's time limit grows with the plan's pieces: a valid large plan is not cut
for its size alone, a stuck render still is."""

from __future__ import annotations

import asyncio
import time

from adapters.api.render import RENDER_S_PER_PIECE, RenderPool, RenderTimeout

#: Upper bound of any wait here [s]; only a broken pool comes near it.
BOUND_S = 120


def sleeping_render(record_json: str, mode: str) -> bytes:
    """A render that takes ``mode`` seconds (runs in the worker process)."""
    time.sleep(float(mode))
    return b"%PDF-" + record_json.encode()


def test_the_render_limit_grows_with_the_pieces() -> None:
    async def run() -> tuple[BaseException | None, bytes]:
        pool = RenderPool(workers=1, queue=0, time_limit_s=0.3, task=sleeping_render)
        try:
            await pool.warm()
            cut: BaseException | None = None
            try:
                await pool.render("{}", "1.5", pieces=0)
            except RenderTimeout as exc:
                cut = exc
            # 2,000 pieces buy 0.3 s + 2,000 × RENDER_S_PER_PIECE: far past the 1.5 s
            assert 0.3 + 2_000 * RENDER_S_PER_PIECE > 1.5 + 3
            done = await pool.render("{}", "1.5", pieces=2_000)
            return cut, done
        finally:
            pool.shutdown()

    cut, done = asyncio.run(asyncio.wait_for(run(), BOUND_S))
    assert isinstance(cut, RenderTimeout)
    assert done == b"%PDF-{}"
