"""Load steps a person can follow.

A piece is loaded after every piece it rests on and, for FRONT and SIDE doors, after
every piece that would stand between it and the door once loaded (back to front);
pieces of MANUAL items keep the request order among themselves. The steps are a
topological order of those precedences (Kahn 1962), ties going to the piece furthest
from the door, then the lowest.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from packing.geometry import BoxLike, precedes


def _door_key(box: BoxLike, door: str) -> tuple[int, int, int]:
    x0, y0, z0 = box[0], box[1], box[2]
    if door == "FRONT":
        return (x0, y0, z0)
    if door == "SIDE":
        return (z0, y0, x0)
    return (y0, x0, z0)


def precedence_successors(boxes: Sequence[BoxLike], door: str) -> list[np.ndarray]:
    """For each box, the indexes of the boxes that must be loaded after it.

    The relation is :func:`packing.geometry.precedes`, applied to one box against the
    coordinate columns of all of them at once, so that thousands of pieces stay fast.
    """
    n = len(boxes)
    if n == 0:
        return []
    a = np.asarray(boxes, dtype=np.int64)
    columns = (a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4], a[:, 5])
    out = []
    for i in range(n):
        rel = precedes(boxes[i], columns, door)
        rel[i] = False
        out.append(np.flatnonzero(rel))
    return out


def load_steps(
    boxes: Sequence[BoxLike], door: str, manual_ranks: Sequence[int | None]
) -> list[int]:
    """Load step (1-based) of every box.

    Parameters
    ----------
    boxes : sequence of (x0, y0, z0, x1, y1, z1)
        Placed pieces [mm].
    door : {"TOP", "FRONT", "SIDE"}
        Loading side of the container.
    manual_ranks : sequence of int or None
        Request position of the piece's item when it is loaded MANUAL, else None; every
        piece of a lower rank is loaded before any piece of a higher one.

    Returns
    -------
    list of int
        Steps 1..n. Should the precedences form a cycle (the packers never produce one;
        :func:`packing.validate.validate_plan` reports it), the cycle is broken at the
        piece nearest to the back.
    """
    n = len(boxes)
    succ = [s.tolist() for s in precedence_successors(boxes, door)]
    ranks = sorted({r for r in manual_ranks if r is not None})
    groups = {r: [i for i, q in enumerate(manual_ranks) if q == r] for r in ranks}
    for lo, hi in pairwise(ranks):
        for i in groups[lo]:
            succ[i].extend(groups[hi])
    indeg = [0] * n
    for s in succ:
        for j in s:
            indeg[j] += 1
    keys = [(_door_key(b, door), i) for i, b in enumerate(boxes)]
    heap = [keys[i] for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    steps = [0] * n
    done = 0
    remaining = set(range(n))
    while done < n:
        if not heap:  # a cycle: release the piece nearest the back
            i = min(remaining, key=lambda k: keys[k])
            indeg[i] = 0
            heapq.heappush(heap, keys[i])
        _, i = heapq.heappop(heap)
        if steps[i]:
            continue
        done += 1
        steps[i] = done
        remaining.discard(i)
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0 and not steps[j]:
                heapq.heappush(heap, keys[j])
    return steps
