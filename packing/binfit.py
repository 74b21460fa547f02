"""Bin fitting: every piece into whichever open container of one type fits it best.

The planner fills containers one after another: each search takes what packs best into
the container in front of it, and the pieces that fit nowhere well are left to the last
containers, often one large piece alone in a container. Bin fitting keeps all containers
open at once, as best-fit decreasing does for bin packing: the pieces go one by one,
largest first, each into the fullest container that can still take it, at the free space
it leaves least room around (Crainic, Perboli & Tadei, 2008, "Extreme point-based
heuristics for three-dimensional bin packing", whose residual-space merit this uses over
the maximal free spaces of :class:`~packing.state.PackState`). A new container opens only
when no open one can take the piece. Then the emptiest container is emptied into the
others while its pieces find room there. Once the restarts have spent their share, a ruin
and recreate search tries for one container fewer: the emptiest container's pieces wait in
a pool while a few other containers at a time are emptied and refilled with the pool's
pieces and their own, each step kept when the pool does not grow (the pool-and-refill move
of Lodi, Martello & Vigo's tabu search for bin packing, with a random choice of
containers and of the order they are refilled in).

Every placement keeps the rules the searches keep (support, nothing on top, floor only,
unload priority and MANUAL order, payload): each goes through
:func:`~packing.strategies.blocks.block_at`. The passes take the pieces in several orders
and the best plan is kept; the work is counted in the units of a
:class:`~packing.strategies.base.Budget`, so equal inputs give equal plans.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from packing.errors import PackingInputError
from packing.model import ContainerType, Piece
from packing.state import Move, PackState, PieceType, Space, group_pieces
from packing.strategies.base import Budget, Packed
from packing.strategies.blocks import Candidate, block_at

#: Orders in which a pass takes the piece types (largest first by each key; ties by
#: volume, then by the order of the input). A refill step of :func:`_one_fewer` takes its
#: pieces by one of these keys, drawn, with each term shaken by :data:`SHAKE`.
ORDERS: tuple[tuple[str, Callable[[PieceType], tuple[int, ...]]], ...] = (
    ("volume", lambda t: (t.volume,)),
    ("height", lambda t: (t.dims[1], t.volume)),
    ("longest side", lambda t: (max(t.dims), t.volume)),
    ("base area", lambda t: (t.dims[0] * t.dims[2], t.volume)),
)

#: Passes after those of :data:`ORDERS` take the piece types by volume times a factor
#: drawn from ``1 ± SHAKE``, and refill steps each term of their key (seeded by
#: :data:`SEED`, so equal inputs give equal plans).
SHAKE = 0.3
SEED = 0
#: Most passes of one call, a safety bound: the budget ends them first (each pass is
#: charged, :attr:`~packing.strategies.base.Budget.OPEN` for every container it opens;
#: 200 passes, the bound before, left most of the budget unspent on MPV instances).
MAX_PASSES = 5000
#: Share of the budget the restarts spend before the rest goes to emptying one container
#: more (:func:`_one_fewer`). On MPV classes 1 and 4–8 (n = 50), bin fitting alone at
#: 2 s: 777 bins at 0.8 or 0.5 with refills by volume, 776 at 0.8 and 775 at 0.5 with
#: refills by a drawn key of :data:`ORDERS` (class 5 instance 9 and class 6 instance 1 a
#: bin fewer than at 0.8 by volume); at 3 s 778 against 775 (class 8 instance 6 a bin
#: fewer too). The restarts' plans after their first few rarely need fewer bins.
RESTART_SHARE = 0.5
#: How many containers one step of :func:`_one_fewer` empties and refills (drawn).
REPACK = (1, 2, 2, 3)
#: Units per piece of a refill step besides what its placements are charged: sorting, the
#: new states and the loops no other price sees. Fitted so that a second of refill steps
#: costs about what a second of restarts does (0.65–1.3 × on six MPV instances); a
#: restart pass pays the same work in its per-call price.
REPACK_PIECE = 700


class _Bins:
    """The open containers of one pass and their free volume."""

    def __init__(self, container: ContainerType, types: list[PieceType], ratio: float) -> None:
        self.container = container
        self.types = types
        self.ratio = ratio
        self.states: list[PackState] = []

    def open(self) -> PackState:
        state = PackState(self.container, self.types, self.ratio)
        self.states.append(state)
        return state


def _spot(state: PackState, t: PieceType, budget: Budget) -> tuple[tuple[int, ...], Move] | None:
    """Where one piece of ``t`` goes in ``state``: the free space it leaves least room
    around (then the lowest, deepest, leftmost), with its merit; None when it fits
    nowhere there."""
    if t.weight_kg > 0 and state.payload_left + 1e-9 < t.weight_kg:
        return None
    best: tuple[int, ...] | None = None
    chosen = None
    checked = state.checked
    pairs = 0
    for s in state.spaces:
        x0, y0, z0, x1, y1, z1 = s
        if t.floor_only and y0 != 0:
            continue
        sx, sy, sz = x1 - x0, y1 - y0, z1 - z0
        for o, ex, ey, ez in t.orients:
            pairs += 1
            if ex > sx or ey > sy or ez > sz:
                continue
            merit = (sx - ex) + (sy - ey) + (sz - ez)
            key = (merit, y0, x0, z0)
            if best is not None and key >= best:
                continue
            blk = block_at(
                state, Space._make(s), Candidate(t.volume, t.index, o, ex, ey, ez, 1, 1, 1)
            )
            if blk is not None:
                best, chosen = key, blk
    budget.charge(spaces=len(state.spaces), types=pairs, checks=state.checked - checked)
    if best is None or chosen is None:
        return None
    return best, chosen


def _into_fullest(states: Sequence[PackState], t: PieceType, budget: Budget) -> int | None:
    """Place one piece of ``t`` into the fullest of ``states`` that takes it: the index of
    that state, None when none does."""
    for i in sorted(range(len(states)), key=lambda i: -states[i].placed_volume):
        spot = _spot(states[i], t, budget)
        if spot is not None:
            budget.charge(splits=states[i].place(spot[1]))
            return i
    return None


def _fill(
    bins: _Bins, sequence: Sequence[PieceType], budget: Budget, exclude: PackState | None = None
) -> bool:
    """Place one piece of each type of ``sequence`` in turn into the fullest open
    container that takes it (opening one when ``exclude`` is None and none does). False
    when a piece found no container (only when ``exclude`` is given)."""
    for t in sequence:
        if _into_fullest([st for st in bins.states if st is not exclude], t, budget) is None:
            if exclude is not None:
                return False
            st = bins.open()
            budget.charge(opens=1)
            spot = _spot(st, t, budget)
            if spot is None:
                return False
            budget.charge(splits=st.place(spot[1]))
    return True


def _empty_the_emptiest(bins: _Bins, budget: Budget) -> None:
    """While it works and units last: move every piece of the emptiest container into
    the others (the move is kept only when all of them find room)."""
    while len(bins.states) > 1 and not budget.exhausted():
        emptiest = min(bins.states, key=lambda st: st.placed_volume)
        pieces = [bins.types[b.type_index] for b in emptiest.blocks for _ in range(b.count)]
        pieces.sort(key=lambda t: -t.volume)
        others = [st for st in bins.states if st is not emptiest]
        copies = [st.copy() for st in others]
        # plain list copies, priced as the element-wise work of a split (the price of
        # ``copies`` stands for a trial completion's copy and the completion's overhead)
        budget.charge(splits=sum(len(st.spaces) + len(st.blocks) for st in others))
        trial = _Bins(bins.container, bins.types, bins.ratio)
        trial.states = copies
        if not _fill(trial, pieces, budget, exclude=emptiest):
            return
        bins.states = copies


def bin_fit(
    pieces: Sequence[Piece],
    container: ContainerType,
    *,
    support_ratio: float,
    budget: Budget,
    bound: int = 1,
) -> list[list[Packed]] | None:
    """Containers of ``container`` holding every piece, by the fewest containers, then the
    emptiest container's volume, of the passes the budget allows; None when a piece fits
    no empty container (the caller keeps such pieces out).

    The first passes take the pieces in the orders of :data:`ORDERS`; while units are
    left, further passes take them by volume shaken by a seeded random factor of
    :data:`SHAKE` either way. Every pass is complete, so the first result is there however
    small the budget; the passes stop once a plan needs no more than ``bound`` containers.
    After :data:`RESTART_SHARE` of the budget, the rest goes to :func:`_one_fewer`, which
    starts from the best pass.

    Parameters
    ----------
    pieces : sequence of Piece
        The pieces, each of which fits the empty container alone.
    container : ContainerType
        The one type every container is of.
    support_ratio : float
        Minimum supported fraction of a raised piece's base (0..1).
    budget : Budget
        Work units the passes may spend (the first pass always finishes); the units spent
        are taken off it.
    bound : int
        Fewest containers possible (e.g. by volume and payload, >= 1): a plan that needs
        no more ends the passes.

    Returns
    -------
    list of list of Packed or None
        The pieces of each container, fullest first, every piece once; None when some
        piece fits no empty container.

    Raises
    ------
    PackingInputError
        ``support_ratio`` outside 0..1 or ``bound`` below 1 (``field`` names the argument).
    """
    if not 0.0 <= support_ratio <= 1.0:
        raise PackingInputError("support_ratio", f"must be within 0..1 (got {support_ratio})")
    if not isinstance(bound, int) or bound < 1:
        raise PackingInputError("bound", f"must be an integer >= 1 (got {bound!r})")
    if not pieces:
        return []
    best: list[PackState] | None = None
    rng = random.Random(SEED)
    passes = 0
    while True:
        types = group_pieces(pieces)
        if passes < len(ORDERS):
            key = ORDERS[passes][1]
            ranked = sorted(types, key=lambda t: tuple(-v for v in key(t)))
        else:
            shaken = {t.index: t.volume * rng.uniform(1 - SHAKE, 1 + SHAKE) for t in types}
            ranked = sorted(types, key=lambda t: -shaken[t.index])
        sequence = [t for t in ranked for _ in range(len(t.pieces))]
        bins = _Bins(container, types, support_ratio)
        budget.charge(calls=1, pieces=len(pieces))
        if not _fill(bins, sequence, budget):
            return None
        _empty_the_emptiest(bins, budget)
        passes += 1
        if best is None or _rank(bins.states) < _rank(best):
            best = bins.states
        if budget.exhausted() or len(best) <= bound or passes >= MAX_PASSES:
            break
        if passes >= len(ORDERS) and budget.spent >= RESTART_SHARE * budget.allowance:
            empty = PackState(container, best[0].types, support_ratio)
            best = _one_fewer(best, empty, budget, bound, rng)
            break
    return _contents(best)


def _pieces_of(state: PackState) -> list[PieceType]:
    """One entry per piece ``state`` holds (its type)."""
    return [state.types[b.type_index] for b in state.blocks for _ in range(b.count)]


def _fill_into(
    states: list[PackState], sequence: Sequence[PieceType], budget: Budget
) -> tuple[list[list[PieceType]], list[PieceType]]:
    """Place each piece of ``sequence`` into the fullest of ``states`` that takes it: the
    pieces each state took, and those that fit none."""
    took: list[list[PieceType]] = [[] for _ in states]
    left: list[PieceType] = []
    for t in sequence:
        i = _into_fullest(states, t, budget)
        if i is None:
            left.append(t)
        else:
            took[i].append(t)
    return took, left


def _one_fewer(
    best: list[PackState], empty: PackState, budget: Budget, bound: int, rng: random.Random
) -> list[PackState]:
    """Ruin and recreate towards one container fewer than ``best``.

    The emptiest container's pieces wait in a pool. Each step empties a few other
    containers (:data:`REPACK`) and refills them, the pool's pieces with theirs, largest
    first by the key of one of :data:`ORDERS` (drawn), each term shaken by
    :data:`SHAKE`; what fits nowhere goes back to the pool. The step is kept
    when the pool's volume does not grow. An empty pool is a plan of one container fewer,
    from which the search goes on while units last."""
    while len(best) > bound and not budget.exhausted():
        emptiest = min(best, key=lambda st: st.placed_volume)
        states = [st for st in best if st is not emptiest]
        contents = [_pieces_of(st) for st in states]
        pool = _pieces_of(emptiest)
        pool_volume = sum(t.volume for t in pool)
        low = (pool_volume, list(states), pool)
        while pool and not budget.exhausted():
            k = min(len(states), rng.choice(REPACK))
            chosen = rng.sample(range(len(states)), k)
            pieces = pool + [t for i in chosen for t in contents[i]]
            # largest first by one of ORDERS' keys, drawn, each of its terms shaken
            _, order = ORDERS[rng.randrange(len(ORDERS))]
            keys = [
                (tuple(-v * rng.uniform(1 - SHAKE, 1 + SHAKE) for v in order(t)), j)
                for j, t in enumerate(pieces)
            ]
            keys.sort()
            fresh = [empty.copy() for _ in chosen]
            budget.charge(pieces=len(pieces), opens=k)
            budget.spend(REPACK_PIECE * len(pieces))
            took, left = _fill_into(fresh, [pieces[j] for _, j in keys], budget)
            left_volume = sum(t.volume for t in left)
            if left_volume <= pool_volume:
                for i, st, got in zip(chosen, fresh, took, strict=True):
                    states[i], contents[i] = st, got
                if left_volume < pool_volume:
                    low = (left_volume, list(states), left)
                pool, pool_volume = left, left_volume
        if pool:
            # no container fewer: the plan whose pool was least, the pool in a container
            # of its own, when that is easier to empty than the one before
            _, kept, rest = low
            last = empty.copy()
            _, left = _fill_into([last], sorted(rest, key=lambda t: -t.volume), budget)
            if not left and _rank([*kept, last]) < _rank(best):
                best = [*kept, last]
            break
        best = states
    return best


def _rank(states: list[PackState]) -> tuple[int, int]:
    """Fewest containers, then the least volume in the emptiest (easiest to empty)."""
    return (len(states), min(st.placed_volume for st in states))


def _contents(states: list[PackState]) -> list[list[Packed]]:
    """The pieces of each container, every piece once: the types are shared, so each
    container takes its pieces from one common pool."""
    out: list[list[Packed]] = []
    pools = {id(t): list(t.pieces) for t in states[0].types}
    for st in sorted(states, key=lambda st: -st.placed_volume):
        out.append(_materialize(st, pools))
    return out


def _materialize(state: PackState, pools: dict[int, list[Piece]]) -> list[Packed]:
    """The placed pieces of ``state``, drawn from ``pools`` (by type) so that containers
    sharing the types share out their pieces."""
    placed: list[Packed] = []
    for tidx, orient, box in state.piece_boxes():
        piece = pools[id(state.types[tidx])].pop()
        placed.append(
            Packed(
                piece,
                orient,
                (box.x0, box.y0, box.z0),
                (box.x1 - box.x0, box.y1 - box.y0, box.z1 - box.z0),
            )
        )
    return placed
