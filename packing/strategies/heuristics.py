"""Piece-by-piece heuristics over empty maximal spaces.

Both place one piece at a time, largest first, at the minimum corner of a free space.
They differ in one scoring hook (rectpack's split of independent axes):

- first-fit-decreasing takes the first space, in bottom-back-left order, that holds the piece;
- best-area-fit takes the space whose floor area is closest to the piece's footprint (the
  MaxRects best-area-fit rule of Jylänki 2010, lifted to three dimensions).
"""

from __future__ import annotations

from abc import abstractmethod

from packing.geometry import Box
from packing.state import Block, PackState, PieceType, SpaceTuple
from packing.strategies.base import Budget, Strategy


def _order(t: PieceType) -> tuple[int, int, int, int, int]:
    """Lower unload priority first (further from the door), MANUAL items in request order,
    pieces that must stand on the floor before the others, then larger pieces first."""
    manual = 0 if t.manual_rank is not None else 1
    return (t.priority, manual, t.manual_rank or 0, 0 if t.floor_only else 1, -t.volume)


class _PiecewiseStrategy(Strategy):
    """Shared loop: each piece goes where :meth:`score` is smallest."""

    default_time_limit = 10.0

    @abstractmethod
    def score(self, s: SpaceTuple, ex: int, ez: int) -> tuple[int, ...]:
        """Rank of putting a piece of footprint ``ex × ez`` [mm] at the minimum corner of
        free space ``s`` = ``(x0, y0, z0, x1, y1, z1)`` [mm]; lower wins."""

    def _solve(self, state: PackState, budget: Budget) -> PackState:
        for t in sorted(state.types, key=_order):
            while state.counts[t.index] > 0 and state.max_by_weight(t) > 0:
                best: tuple[tuple[int, ...], Block] | None = None
                for s in state.spaces:
                    x0, y0, z0, x1, y1, z1 = s
                    if t.floor_only and y0 != 0:
                        continue
                    for o, ex, ey, ez in t.orients:
                        if ex > x1 - x0 or ey > y1 - y0 or ez > z1 - z0:
                            continue
                        sc = self.score(s, ex, ez)
                        if best is not None and sc >= best[0]:
                            continue
                        if not state.supported(x0, y0, z0, ex, ez, 1, 1):
                            continue
                        box = Box(x0, y0, z0, x0 + ex, y0 + ey, z0 + ez)
                        if not state.allows(t, box):
                            continue
                        best = (sc, Block(t.index, o, (x0, y0, z0), (ex, ey, ez), (1, 1, 1)))
                # one pass always finishes; its work is counted for the record
                budget.charge(types=len(state.spaces) * len(t.orients))
                if best is None:
                    break  # identical pieces: if one finds no place, none of the rest will
                budget.charge(splits=state.place(best[1]))
        return state


class FirstFitDecreasing(_PiecewiseStrategy):
    """First fit decreasing: largest piece first, into the first space (bottom, back, left).

    Parameters
    ----------
    time_limit : float or None
        Accepted for the common interface [s]; one pass always finishes.
    seed : int
        Accepted for the common interface; the heuristic makes no random choice.
    """

    name = "first-fit-decreasing"

    def score(self, s: SpaceTuple, ex: int, ez: int) -> tuple[int, ...]:
        x0, y0, z0, _, _, _ = s
        return (y0, x0, z0)


class BestAreaFit(_PiecewiseStrategy):
    """Best area fit: largest piece first, into the space whose floor area it fills best.

    Parameters
    ----------
    time_limit : float or None
        Accepted for the common interface [s]; one pass always finishes.
    seed : int
        Accepted for the common interface; the heuristic makes no random choice.
    """

    name = "best-area-fit"

    def score(self, s: SpaceTuple, ex: int, ez: int) -> tuple[int, ...]:
        x0, y0, z0, x1, _, z1 = s
        return ((x1 - x0) * (z1 - z0) - ex * ez, y0, x0, z0)
