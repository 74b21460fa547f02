"""Checks shared by the packing tests."""

from __future__ import annotations

import contextlib
import types
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pytest

import packing.planner
import packing.strategies.base
from packing import validate_plan
from packing.loadorder import load_steps
from packing.model import Placement, Unplaced
from packing.result import ContainerLoad, PackResult
from packing.strategies.milp import SOLVER_STATUSES


@contextlib.contextmanager
def frozen_clock() -> Iterator[None]:
    """The engine's clock stands still while the block runs, and solver caps are lifted.

    Budgets then end by work units (and the MILP by its node limit) only: the wall-clock
    caps never trip, so a plan cannot depend on the speed or the load of the machine.
    """
    still = types.SimpleNamespace(perf_counter=lambda: 0.0, thread_time=lambda: 0.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(packing.planner, "time", still)
        mp.setattr(packing.strategies.base, "time", still)
        mp.setattr(packing.strategies.base.Budget, "HARD_FACTOR", 1e9)
        yield


#: Twenty single pieces of twenty sizes (L, H, W mm): large boxes and wide flat boards.
MIXED_SINGLES = [
    (490, 270, 260), (570, 60, 430), (590, 80, 250), (170, 350, 330), (340, 110, 440),
    (100, 310, 230), (590, 150, 340), (140, 330, 180), (100, 180, 100), (200, 230, 200),
    (220, 180, 440), (540, 290, 220), (330, 150, 360), (260, 260, 140), (480, 50, 470),
    (550, 90, 310), (290, 250, 400), (400, 80, 210), (110, 300, 320), (600, 280, 360),
]  # fmt: skip


def check_pack(pack, pieces, container, ratio=0.8):
    """The single pack, as a one-container plan with load steps, keeps every rule that
    validate_plan checks, and accounts for every piece once."""
    assert pack.solver_status is None or pack.solver_status in SOLVER_STATUSES
    keys = [q.piece.key for q in pack.placed] + [p.key for p in pack.leftover]
    assert sorted(keys) == sorted(p.key for p in pieces)
    boxes = [
        (*q.position, *(a + e for a, e in zip(q.position, q.extents, strict=True)))
        for q in pack.placed
    ]
    ranks = [q.piece.item_order if q.piece.rules.manual_order else None for q in pack.placed]
    steps = load_steps(boxes, container.loading_side, ranks)
    # pieces of an item are identical: number them in load order, as the planner does
    order = sorted(range(len(steps)), key=steps.__getitem__)
    seen: Counter = Counter()
    placements = []
    for i in order:
        q = pack.placed[i]
        piece = replace(q.piece, instance=seen[q.piece.item_id])
        seen[q.piece.item_id] += 1
        placements.append(Placement(piece, 0, q.position, q.orientation, q.extents, steps[i]))
    unplaced = []
    for p in pack.leftover:
        unplaced.append(Unplaced(replace(p, instance=seen[p.item_id]), "left out"))
        seen[p.item_id] += 1
    validate_plan(PackResult([ContainerLoad(0, container, placements)], unplaced, "check", ratio))
