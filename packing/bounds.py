"""Lower bounds on the containers of one type that some cargo needs, from its geometry.

The volume, payload and floor bound (:func:`packing.model.containers_needed`) ignores the
pieces' shapes: fifty boxes each a little more than half the container on every side need
fifty containers, though their volume fits in seven. Two bounds here see the shapes; both
hold for any packing, whatever the support and stacking rules (they only forbid more):

- **Dual feasible functions** (Fekete & Schepers, 2004). A function ``f`` on
  ``[0, C]`` is dual feasible when sides that fit side by side in ``C`` still fit in
  ``f(C)`` after the mapping. Any three of them, one for each axis, turn every packing of
  a container into one whose mapped volume is at most the mapped container's, so the
  mapped volume of the cargo over the mapped container's is a lower bound (each piece
  counted in the orientation that maps smallest). The functions used: the identity (the
  plain volume bound), Martello & Toth's ``f0`` (small sides count 0, large ones the whole
  side), Carlier, Clautiaux & Moukrim's ``f_CCM,1`` and Fekete & Schepers' ``u^(k)``,
  each at the pieces' own sizes. The best triple is kept.
- **Pieces no two of which share a container**: two boxes share one only when some axis
  holds their two extents side by side, so a set of pieces that pairwise cannot needs a
  container each (a clique of the conflict graph, searched over the piece kinds with a
  bounded branch and bound: any clique found is a valid bound).

On the 60 Martello–Pisinger–Vigo instances of classes 1 and 4–8 at n = 50 the two give
754 bins, against 737 for the bound the MPV code computes (its L2); the best of both is
759 (:func:`packing.bench.run_mpv` reports it beside the shipped bound).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeVar

import numpy as np

from packing.geometry import Dims, extents
from packing.model import ContainerType, Piece, containers_needed, floor_area

#: At most this many products (function triples × piece kinds × orientations) per bound;
#: beyond it each axis keeps fewer functions (the identity and ``u^(1)`` always), so that
#: a bound of 100 kinds that may turn every way costs milliseconds, not seconds.
MAX_PRODUCTS = 3_000_000
#: ``u^(k)`` for k = 1 … this.
MAX_K = 11
#: At most this many function values worked out for one axis (functions × sizes).
MAX_TABLE = 2_000_000
#: The conflict bound compares at most this many pairs of kinds in pairs of orientations,
#: and at most :data:`MAX_CONFLICT_KINDS` kinds: of more it looks at the largest only (a
#: clique among some kinds is one among all).
MAX_CONFLICT_PAIRS = 400_000
MAX_CONFLICT_KINDS = 200
#: Clique search: at most this many branch-and-bound nodes (the clique found so far is a
#: valid bound however the search ends).
MAX_CLIQUE_NODES = 20_000

T = TypeVar("T")

Kind = tuple[tuple[Dims, ...], int]
"""A kind of piece: the extents of each of its orientations that fit the container (X, Y,
Z), and how many pieces of it there are."""


def fewest_containers(pieces: Iterable[Piece], ct: ContainerType) -> int:
    """Fewest containers of ``ct`` that could hold ``pieces``: the best of the volume,
    payload and floor bound (:func:`packing.model.containers_needed`), the dual feasible
    function bound (:func:`dff_bound`) and the conflict bound (:func:`conflict_bound`);
    0 for no pieces. A piece that fits ``ct`` in none of its orientations is left out of the
    two geometric bounds (no container of ``ct`` can hold it)."""
    pieces = list(pieces)
    if not pieces:
        return 0
    basic = containers_needed(
        [ct],
        sum(p.volume for p in pieces),
        sum(p.weight_kg for p in pieces),
        floor_area(pieces),
    )
    return max(basic, shape_bound(pieces, ct))


def shape_bound(pieces: Iterable[Piece], ct: ContainerType) -> int:
    """Fewest containers of ``ct`` that the pieces' shapes alone allow: the best of the
    dual feasible function bound and the conflict bound (no volume, payload or floor
    bound); 0 for no pieces."""
    kinds = piece_kinds(pieces, ct)
    return max(dff_bound(kinds, ct.inner), conflict_bound(kinds, ct.inner))


def piece_kinds(pieces: Iterable[Piece], ct: ContainerType) -> list[Kind]:
    """The pieces grouped by their fitting extents (see :data:`Kind`), in a stable order;
    pieces that fit ``ct`` no way are left out."""
    inner = ct.inner
    same = Counter((p.dims, p.rules.orientations) for p in pieces)
    count: Counter[tuple[Dims, ...]] = Counter()
    for (dims, allowed), n in same.items():
        fits = tuple(
            sorted(
                {
                    e
                    for e in (extents(dims, o) for o in set(allowed))
                    if e[0] <= inner[0] and e[1] <= inner[1] and e[2] <= inner[2]
                }
            )
        )
        if fits:
            count[fits] += n
    return sorted(count.items())


def dual_functions(sizes: Sequence[int], capacity: int, most: int | None = None) -> np.ndarray:
    """Dual feasible functions of one axis evaluated at ``sizes``: one row a function, each
    normalised so that the whole ``capacity`` maps to 1. Row 0 is the identity; the others
    are ``u^(k)``, k = 1 … :data:`MAX_K`, and ``f0`` and ``f_CCM,1`` at each size up to
    half the capacity (and ``f0`` where a large size starts to count whole), without
    repeats. ``most`` keeps at most that many rows (the identity, ``u^(1)`` and an even
    spread of the others), and no more than :data:`MAX_TABLE` values are worked out."""
    x = np.asarray(sizes, dtype=np.int64)
    c = int(capacity)
    half = c // 2
    small = sorted({int(s) for s in x if 1 <= s <= half})
    large = sorted({c - int(s) + 1 for s in x if 1 <= c - s + 1 <= half})
    params = (
        [("u", k) for k in range(1, MAX_K + 1)]
        + [("f0", lam) for lam in sorted(set(small) | set(large))]
        + [("ccm", lam) for lam in small]
    )
    if most is not None:
        # no more rows worked out than the table may hold, nor than four times those kept
        room = max(1, min(4 * most, MAX_TABLE // max(1, len(x))))
        params = params[:1] + _spread(params[1:], room - 1)

    def row(kind: str, p: int) -> np.ndarray:
        if kind == "u":
            return np.where((p + 1) * x % c == 0, x / c, np.floor((p + 1) * x / c) / p)
        if kind == "f0":
            return np.where(x > c - p, c, np.where(x >= p, x, 0)) / c
        ccm = np.where(
            2 * x > c, 2 * (c // p - (c - x) // p), np.where(2 * x == c, c // p, 2 * (x // p))
        )
        return ccm / (2 * (c // p))

    table = [x / c]
    seen = {table[0].tobytes()}
    for kind, p in params:
        r = row(kind, p)
        if r.tobytes() not in seen:
            seen.add(r.tobytes())
            table.append(r)
    if most is not None:
        table = table[:2] + _spread(table[2:], max(0, most - 2))
    return np.array(table)


def _spread(items: list[T], keep: int) -> list[T]:
    """At most ``keep`` of ``items``, evenly spread (the first and the last among them)."""
    if len(items) <= keep:
        return items
    if keep <= 0:
        return []
    return [items[int(j)] for j in np.linspace(0, len(items) - 1, keep)]


def _slots(kinds: Sequence[Kind], ways: int) -> np.ndarray:
    """The kinds' extents as an array (kind, orientation slot, axis): ``ways`` slots each,
    a kind with fewer orientations repeating its first one."""
    return np.array([[e[o] if o < len(e) else e[0] for o in range(ways)] for e, _ in kinds])


def dff_bound(kinds: Sequence[Kind], inner: Dims) -> int:
    """The dual feasible function bound of ``kinds`` (see :func:`piece_kinds`) in a
    container of inner sides ``inner``: the most mapped volume over the function triples,
    rounded up; each piece counted in its orientation that maps smallest. 0 for no kinds."""
    if not kinds:
        return 0
    ways = max(len(e) for e, _ in kinds)
    counts = np.array([n for _, n in kinds], dtype=np.float64)
    ext = _slots(kinds, ways)
    per_axis = max(2, int((MAX_PRODUCTS / (len(kinds) * ways)) ** (1 / 3)))
    tables, index = [], []
    for a in range(3):
        sizes, where = np.unique(ext[:, :, a], return_inverse=True)
        tables.append(dual_functions(sizes.tolist(), inner[a], per_axis))
        index.append(where.reshape(ext.shape[:2]))
    if ways == 1:
        fx, fy, fz = (t[:, i[:, 0]] for t, i in zip(tables, index, strict=True))
        best = float(np.einsum("ak,bk,ck,k->abc", fx, fy, fz, counts).max())
    else:
        best = 0.0
        fy = tables[1][:, index[1]]  # (b, kind, way)
        fz = tables[2][:, index[2]]
        yz = fy[:, None, :, :] * fz[None, :, :, :]  # (b, c, kind, way)
        for row in tables[0]:
            mapped = (row[index[0]][None, None, :, :] * yz).min(axis=3)  # (b, c, kind)
            best = max(best, float((mapped @ counts).max()))
    # whole numbers computed in floating point: round up only past a margin for its error
    return math.ceil(best - 1e-9 * max(1.0, best))


def conflict_bound(kinds: Sequence[Kind], inner: Dims) -> int:
    """The most pieces of ``kinds`` no two of which fit in one container of inner sides
    ``inner`` together (each then needs its own); 0 for no kinds. Two pieces fit together
    only when, in some orientations, one axis holds both their extents side by side. Pieces
    of a kind that cannot share a container with each other all count; of other kinds, one.
    Of many kinds only those of the largest pieces are looked at
    (:data:`MAX_CONFLICT_PAIRS`, :data:`MAX_CONFLICT_KINDS`; the search recurses once a
    kind in the clique, so never deeper than those)."""
    if not kinds:
        return 0
    order = sorted(
        range(len(kinds)), key=lambda i: (-min(e[0] * e[1] * e[2] for e in kinds[i][0]), i)
    )
    ways = max(len(e) for e, _ in kinds)
    most = min(MAX_CONFLICT_KINDS, math.isqrt(MAX_CONFLICT_PAIRS // ways**2))
    chosen = [kinds[i] for i in order[: max(1, most)]]
    n = len(chosen)
    ext = _slots(chosen, ways)
    cap = np.asarray(inner, dtype=np.int64)
    # apart[i, j]: in every pair of orientations, every axis too short for both side by side
    side = ext[:, None, :, None, :] + ext[None, :, None, :, :] > cap  # (i, j, way, way, axis)
    apart = side.all(axis=4).all(axis=(2, 3))
    weight = [chosen[i][1] if apart[i, i] else 1 for i in range(n)]
    adj = [{j for j in np.flatnonzero(apart[i]).tolist() if j != i} for i in range(n)]
    best = max(weight)
    nodes = 0

    def grow(size: int, candidates: list[int]) -> None:
        nonlocal best, nodes
        best = max(best, size)
        for pos, v in enumerate(candidates):
            nodes += 1
            if nodes > MAX_CLIQUE_NODES:
                return
            rest = candidates[pos + 1 :]
            if size + weight[v] + sum(weight[u] for u in rest) <= best:
                return
            grow(size + weight[v], [u for u in rest if u in adj[v]])

    # heaviest, then most conflicting kinds first: a large clique is found early
    grow(0, sorted(range(n), key=lambda i: (-weight[i], -len(adj[i]), i)))
    return best
