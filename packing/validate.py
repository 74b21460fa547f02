"""``validate_plan``: every rule of a packing plan, checked independently of the packers.

Nothing here calls the engine's predicates (:mod:`packing.geometry`) or its load-order
code: the checks are written again, in another form, so that the two can be compared.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from packing.errors import PackingInputError, PlanValidationError, ratio_value
from packing.geometry import extents
from packing.model import Placement
from packing.result import ContainerLoad, PackResult

#: Axis (0 = X, 1 = Y, 2 = Z) along which each door lies from the cargo.
_DOOR_AXIS = {"FRONT": 0, "TOP": 1, "SIDE": 2}
#: Piece pairs the load-step check compares at once (rows of :func:`_after_rows`).
_PAIRS_PER_BLOCK = 1 << 20


def load_after(boxes: np.ndarray, i: int, door: str) -> np.ndarray:
    """Which pieces must be loaded after piece ``i``: one boolean per piece.

    Piece ``j`` must follow ``i`` when it stands on ``i`` (bottom at ``i``'s top, floor
    projections overlapping), or when it lies beyond ``i`` on the way to the door with
    overlapping projections on the plane of the door. ``i`` itself is False.

    Parameters
    ----------
    boxes : numpy.ndarray
        ``n × 6`` rows ``(x0, y0, z0, x1, y1, z1)`` [mm].
    i : int
        Row of the piece.
    door : {"TOP", "FRONT", "SIDE"}
        Loading side of the container.
    """
    out: np.ndarray = _after_rows(boxes, np.array([i]), door)[0]
    return out


def _after_rows(boxes: np.ndarray, rows: np.ndarray, door: str) -> np.ndarray:
    """:func:`load_after` of each piece of ``rows`` at once: ``len(rows) × n`` booleans."""
    lo, hi = boxes[:, :3].T, boxes[:, 3:].T
    lo_r, hi_r = lo[:, rows, None], hi[:, rows, None]

    def meets(k: int) -> np.ndarray:
        """Does every piece's open projection onto axis ``k`` overlap the row's piece's?"""
        out: np.ndarray = (lo[k] < hi_r[k]) & (lo_r[k] < hi[k])
        return out

    m_x, m_z = meets(0), meets(2)
    on_top = (lo[1] == hi_r[1]) & m_x & m_z
    axis = _DOOR_AXIS[door]
    across = m_x & m_z if axis == 1 else (meets(1) & (m_z if axis == 0 else m_x))
    out: np.ndarray = on_top | ((lo[axis] >= hi_r[axis]) & across)
    out[np.arange(len(rows)), rows] = False
    return out


def _check_container(load: ContainerLoad, support_ratio: float, out: list[str]) -> None:
    c = load.container
    L, H, W = c.inner
    ps: list[Placement] = load.placements
    name = f"container {load.index} ({c.slug})"
    boxes = []
    outside = False
    for p in ps:
        tag = f"{name}: piece {p.piece.item_id}#{p.piece.instance}"
        if p.container_index != load.index:
            out.append(f"{tag} names container {p.container_index}")
        if p.orientation not in p.piece.rules.orientations:
            out.append(
                f"{tag} has orientation {p.orientation}, allowed {p.piece.rules.orientations}"
            )
        if tuple(p.extents) != extents(p.piece.dims, p.orientation):
            out.append(
                f"{tag} extents {p.extents} do not match its dimensions {p.piece.dims} turned {p.rotation}"
            )
        x, y, z = p.position
        dx, dy, dz = p.extents
        if x < 0 or y < 0 or z < 0 or x + dx > L or y + dy > H or z + dz > W:
            out.append(
                f"{tag} at {p.position} size {p.extents} is outside the inner space {c.inner}"
            )
            outside = True
        if not p.piece.rules.stack_under and y != 0:
            out.append(f"{tag} must stand on the floor but is at height {y} mm")
        boxes.append((x, y, z, x + dx, y + dy, z + dz))
    if c.max_payload_kg is not None and load.cargo_weight_kg > c.max_payload_kg + 1e-6:
        out.append(
            f"{name}: cargo {load.cargo_weight_kg:g} kg exceeds the {c.max_payload_kg:g} kg payload"
        )
    n = len(boxes)
    if n == 0:
        return
    if outside:
        # the pairwise checks compare pieces inside: a piece outside has been reported, and
        # its coordinates may not fit the 64-bit arrays; the load steps are still checked
        _check_steps(name, ps, None, c.loading_side, out)
        return
    a = np.asarray(boxes, dtype=np.int64)
    x0, y0, z0, x1, y1, z1 = (a[:, k] for k in range(6))
    for i in range(n):
        ov = (x0[i] < x1) & (x0 < x1[i]) & (y0[i] < y1) & (y0 < y1[i]) & (z0[i] < z1) & (z0 < z1[i])
        ov[: i + 1] = False
        for j in np.flatnonzero(ov):
            out.append(
                f"{name}: pieces {ps[i].piece.item_id}#{ps[i].piece.instance} and "
                f"{ps[j].piece.item_id}#{ps[j].piece.instance} overlap"
            )
        if y0[i] > 0:
            under = (y1 == y0[i]) & (x0[i] < x1) & (x0 < x1[i]) & (z0[i] < z1) & (z0 < z1[i])
            idx = np.flatnonzero(under)
            ix = np.minimum(x1[idx], x1[i]) - np.maximum(x0[idx], x0[i])
            iz = np.minimum(z1[idx], z1[i]) - np.maximum(z0[idx], z0[i])
            covered = int((ix * iz).sum())
            area = int((x1[i] - x0[i]) * (z1[i] - z0[i]))
            if covered < support_ratio * area - 1e-9:
                out.append(
                    f"{name}: piece {ps[i].piece.item_id}#{ps[i].piece.instance} rests on "
                    f"{covered / area:.0%} of its base, needs {support_ratio:.0%}"
                )
            for j in idx:
                if not ps[j].piece.rules.stack_on_top:
                    out.append(
                        f"{name}: piece {ps[i].piece.item_id}#{ps[i].piece.instance} rests on "
                        f"{ps[j].piece.item_id}#{ps[j].piece.instance}, which allows nothing on top"
                    )
    # Unload priority: no lower-priority piece on top of, or between the door and, a higher one.
    prio = np.array([p.piece.rules.unload_priority for p in ps])
    if len(set(prio.tolist())) > 1:
        door = c.loading_side
        for i in range(n):
            lower = prio < prio[i]
            xo = (x0[i] < x1) & (x0 < x1[i])
            yo = (y0[i] < y1) & (y0 < y1[i])
            zo = (z0[i] < z1) & (z0 < z1[i])
            bad = (y0 >= y1[i]) & xo & zo
            if door == "FRONT":
                bad |= (x0 >= x1[i]) & yo & zo
            elif door == "SIDE":
                bad |= (z0 >= z1[i]) & yo & xo
            for j in np.flatnonzero(bad & lower):
                out.append(
                    f"{name}: piece {ps[j].piece.item_id}#{ps[j].piece.instance} (priority {prio[j]}) blocks "
                    f"the unloading of {ps[i].piece.item_id}#{ps[i].piece.instance} (priority {prio[i]})"
                )
    _check_steps(name, ps, a, c.loading_side, out)


def _check_steps(
    name: str, ps: list[Placement], a: np.ndarray | None, door: str, out: list[str]
) -> None:
    """Load steps: a permutation of 1..n that respects every precedence (with the boxes
    ``a``; None: not checked) and MANUAL order."""
    n = len(ps)
    steps = [p.load_step for p in ps]
    if sorted(steps) != list(range(1, n + 1)):
        out.append(f"{name}: load steps are not 1..{n}")
        return
    if a is not None:
        step_of = np.asarray(steps)
        # rows in blocks of about a million pairs, an axis at a time: the pairs of 10,000
        # pieces took 2.9 CPU s one row at a time, 0.5 s so (host at 1.3 × the reference
        # rate); most rows break nothing
        block = max(1, _PAIRS_PER_BLOCK // n)
        for start in range(0, n, block):
            rows = np.arange(start, min(n, start + block))
            late = _after_rows(a, rows, door) & (step_of[None, :] < step_of[rows, None])
            for k, j in zip(*np.nonzero(late), strict=True):
                i = int(rows[k])
                out.append(
                    f"{name}: piece {ps[j].piece.item_id}#{ps[j].piece.instance} (step {steps[j]}) is loaded "
                    f"before {ps[i].piece.item_id}#{ps[i].piece.instance} (step {steps[i]}), which it "
                    f"rests on or blocks from the door"
                )
    manual = sorted(
        (p.load_step, p.piece.item_order, p.piece.instance, p.piece.item_id)
        for p in ps
        if p.piece.rules.manual_order
    )
    order = [(m[1], m[2]) for m in manual]
    if order != sorted(order):
        out.append(f"{name}: MANUAL pieces are not loaded in request order")


def validate_plan(result: PackResult, *, support_ratio: float | None = None) -> None:
    """Check every rule of a plan; raise :class:`PlanValidationError` listing what is broken.

    Checks bounds, overlap, allowed orientation and extents, support (``support_ratio`` of
    the base on pieces whose top is exactly at the piece's bottom), nothing on top of
    no-stack pieces, floor-only pieces on the floor, payload, unload priority, load steps
    (support and door order, MANUAL request order) and that no piece appears twice.

    Parameters
    ----------
    result : PackResult
    support_ratio : float, optional
        Defaults to the ratio the plan was made with.
    """
    if not isinstance(result, PackResult):
        raise PackingInputError(
            "result", f"must be a PackResult, a plan (got {type(result).__name__})"
        )
    ratio = result.support_ratio if support_ratio is None else support_ratio
    ratio_value("support_ratio", ratio)
    problems: list[str] = []
    indexes = [c.index for c in result.containers]
    if len(set(indexes)) != len(indexes):
        problems.append(f"container indexes repeat: {indexes}")
    for load in result.containers:
        _check_container(load, ratio, problems)
    keys = Counter(
        [p.piece.key for p in result.placements] + [u.piece.key for u in result.unplaced]
    )
    for key, k in keys.items():
        if k > 1:
            problems.append(f"piece {key[0]}#{key[1]} appears {k} times")
    for u in result.unplaced:
        if not u.reason:
            problems.append(f"unplaced piece {u.piece.item_id}#{u.piece.instance} has no reason")
    if problems:
        raise PlanValidationError(problems)
