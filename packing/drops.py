"""Pallets holding pieces of several drops, only where that saves a pallet.

Each drop (unload priority) is palletized on its own first, so that a pallet comes off the
vehicle whole at its stop. :func:`mix_drops` then tries to put the part-filled pallets of
different drops together: the pieces of two pallets are packed again on one pallet under
the engine's unload-priority rule (on a pallet, loaded from the top, no piece of a later
drop lies on top of a piece of an earlier one), and the two are replaced by it only when
every piece fits. Each success saves one pallet.

A pallet holding drops ``p > q`` is touched at the stop of ``p`` and leaves at the stop of
``q``. So that no pallet ever stands in the way of another at a stop, every two pallets of
a plan keep their drop spans ``[min, max]`` apart but for a shared end (:func:`spans_apart`):
a mixed pallet's span holds no other pallet's drop inside it, and two mixed pallets never
share their earliest drop nor their last. On the deck it then stands behind the pallets of
its earliest drop alone and ahead of those of its last (:func:`packing.axles.deck_key`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations

from packing.model import Unplaced
from packing.planner import plan_containers
from packing.result import ContainerLoad, PackResult
from packing.strategies import Strategy
from packing.strategies.base import Budget


def drop_span(load: ContainerLoad) -> tuple[int, int]:
    """``(last drop, earliest drop)``: the lowest and highest unload priority of the
    pieces on a container (``(0, 0)`` when it is empty)."""
    prios = [p.piece.rules.unload_priority for p in load.placements] or [0]
    return (min(prios), max(prios))


def spans_apart(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """May pallets with drop spans ``a`` and ``b`` (``(min, max)`` priority) share a
    vehicle with neither in the other's way? True when one is wholly unloaded no later
    than the other is first touched: ``min(a) >= max(b)`` or ``min(b) >= max(a)``."""
    return a[0] >= b[1] or b[0] >= a[1]


def mix_drops(
    result: PackResult,
    *,
    support_ratio: float = 0.8,
    strategy: str | Strategy | None = None,
    time_limit: float = 1.0,
) -> PackResult:
    """Combine part-filled pallets of different drops where that saves a pallet.

    Parameters
    ----------
    result : PackResult
        Pallets (or containers) each holding pieces of one drop, as palletizing every
        drop on its own gives them; left unchanged.
    support_ratio : float
        Minimum supported fraction of a raised piece's base (0..1).
    strategy : str, Strategy or None
        Packing strategy of the combined pallets (see :func:`packing.plan_containers`).
    time_limit : float
        Budget of the whole search [s], counted in work units like every search (so the
        result does not depend on the machine's load): at most a quarter of it (and at
        least 0.1 s) for each pair tried; when it runs out the pallets combined so far stay.

    Returns
    -------
    PackResult
        The same pieces on as many or fewer pallets: repeatedly, the two least-filled
        pallets of different drops whose pieces all fit on one pallet of their type
        (smallest cargo volume together first; pallets of two types stay apart), keeping every two pallets' drop spans
        apart (:func:`spans_apart`), are replaced by that pallet, at the first one's place.
        Container indexes run on from the first one; each item's instance indexes follow
        the containers and their load order (then the unplaced pieces).
    """
    budget = Budget(time_limit)  # spent as the tries report their work units
    loads = list(result.containers)
    if not loads:
        return replace(result)
    first = min(load.index for load in loads)
    tried: set[frozenset[frozenset[tuple[str, int]]]] = set()
    per_try = max(0.1, time_limit / 4)
    while True:
        merged = _merge_one(loads, tried, support_ratio, strategy, budget, per_try)
        if merged is None:
            break
        a, b, load = merged
        at = min(loads.index(a), loads.index(b))
        loads = [x for x in loads if x is not a and x is not b]
        loads.insert(at, load)
    out = _renumbered(result, loads, first)
    # the tries' work and whether a safety net cut one count with the plan's
    return replace(
        out, work_units=out.work_units + budget.spent, wall_cut=out.wall_cut or budget.cut
    )


def _merge_one(
    loads: Sequence[ContainerLoad],
    tried: set[frozenset[frozenset[tuple[str, int]]]],
    support_ratio: float,
    strategy: str | Strategy | None,
    budget: Budget,
    per_try: float,
) -> tuple[ContainerLoad, ContainerLoad, ContainerLoad] | None:
    """The first pair of pallets that fits on one, and that pallet; None when none does."""
    spans = [drop_span(x) for x in loads]
    # the least-filled pallet of each drop span
    tails: dict[tuple[int, int], int] = {}
    for i, x in enumerate(loads):
        j = tails.get(spans[i])
        if j is None or x.cargo_volume < loads[j].cargo_volume:
            tails[spans[i]] = i
    pairs: list[tuple[int, int, int]] = []
    for i, j in combinations(sorted(tails.values()), 2):
        a, b = loads[i], loads[j]
        if a.container != b.container:
            continue
        drops_a = {p.piece.rules.unload_priority for p in a.placements}
        if drops_a & {p.piece.rules.unload_priority for p in b.placements}:
            continue
        c = a.container
        if a.cargo_volume + b.cargo_volume > c.inner_volume:
            continue
        if (
            c.max_payload_kg is not None
            and a.cargo_weight_kg + b.cargo_weight_kg > c.max_payload_kg + 1e-9
        ):
            continue
        span = (min(spans[i][0], spans[j][0]), max(spans[i][1], spans[j][1]))
        if not all(spans_apart(span, spans[k]) for k in range(len(loads)) if k not in (i, j)):
            continue
        pairs.append((a.cargo_volume + b.cargo_volume, i, j))
    for _, i, j in sorted(pairs):
        a, b = loads[i], loads[j]
        key = frozenset((_keys(a), _keys(b)))
        if key in tried:
            continue
        left = budget.units / Budget.RATE  # [s]
        if left <= 0:
            return None
        tried.add(key)
        plan = plan_containers(
            [p.piece for p in a.placements] + [p.piece for p in b.placements],
            [a.container],
            strategy=strategy,
            support_ratio=support_ratio,
            max_containers=1,
            time_limit=min(left, per_try),
        )
        budget.spend(plan.work_units)
        budget.cut = budget.cut or plan.wall_cut
        if not plan.unplaced and len(plan.containers) == 1:
            return a, b, plan.containers[0]
    return None


def _keys(load: ContainerLoad) -> frozenset[tuple[str, int]]:
    return frozenset(p.piece.key for p in load.placements)


def _renumbered(result: PackResult, loads: Sequence[ContainerLoad], first: int) -> PackResult:
    """``loads`` indexed from ``first``, each item's instances in container and load order
    (then the unplaced pieces)."""
    counters: dict[str, int] = {}

    def take(item: str) -> int:
        k = counters.get(item, 0)
        counters[item] = k + 1
        return k

    containers = []
    for n, load in enumerate(loads):
        index = first + n
        placements = [
            replace(
                p,
                container_index=index,
                piece=replace(p.piece, instance=take(p.piece.item_id)),
            )
            for p in sorted(load.placements, key=lambda p: p.load_step)
        ]
        containers.append(ContainerLoad(index, load.container, placements))
    unplaced = [
        Unplaced(replace(u.piece, instance=take(u.piece.item_id)), u.reason, u.kind)
        for u in result.unplaced
    ]
    return replace(result, containers=containers, unplaced=unplaced)
