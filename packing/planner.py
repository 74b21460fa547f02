"""Multi-container planning: how many containers of which types, and what goes where.

Plans are compared by: every piece placed first; among plans that leave pieces out (a
``max_containers`` cap, or pieces that fit no container together), the most cargo volume
loaded, then the fewest pieces left out, as the searches load the most volume; then the
fewest containers, then the least total outer volume. Candidates are every single-type
plan and a mixed plan that, container by container, takes the type that holds all that is
left with the least outer volume, or else the type that loads the most cargo volume per
outer volume. When a container's content could be packed again into what remains
(identical pieces), the packing is repeated instead of searched again, which keeps plans
of thousands of pieces fast. Of a pool of more than :data:`WINDOW_ITEMS` items (distinct
pieces, mostly), each container's search is offered a window of them, every size in its
share, and the types are probed largest first, each given up once it needs more than one
container more than the best so far: filling many containers then costs about as many
times the pieces, not their square (one container that holds thousands of distinct pieces
still costs their square: each step of its search ranks every piece left). A plan that
places every piece then goes through :func:`packing.consolidate.consolidate`, which
empties, merges and downsizes containers while a share of the time limit lasts.

Every search packs with a :func:`~packing.strategies.clone` of the plan's strategy that
carries the search's share of the plan's time limit: a strategy given by name and the
same strategy given as an instance make the same plan, and neither is changed. The plan's
time limit is counted in work units, as a search's is: once they are spent the remaining
containers get greedy passes only, so a plan of any size is complete and load-independent.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence

from packing.binfit import bin_fit
from packing.bounds import shape_bound
from packing.consolidate import check_units, consolidate, container_is_valid
from packing.errors import PackingInputError, count_value, ratio_value, seconds_value
from packing.loadorder import load_steps
from packing.model import (
    ContainerType,
    Piece,
    Placement,
    Unplaced,
    containers_needed,
    floor_area,
)
from packing.result import Alternative, ContainerLoad, PackResult
from packing.seeding import awkward_items, pack_seeded
from packing.strategies import Strategy, clone, get_strategy
from packing.strategies.base import Budget, Packed, SinglePack
from packing.strategies.blocks import BlockBuilding

DEFAULT_TIME_LIMIT = 5.0  # [s] for a whole plan
#: Most a full search of a plan of several searches may spend [s] (a plan of one search
#: gives it 0.9 of the plan's budget), and most one search of the consolidation step may.
MAX_SEARCH_LIMIT = 3.0
#: Share of the plan's time limit that :func:`~packing.consolidate.consolidate` may spend.
CONSOLIDATE_SHARE = 0.2
#: Bin fitting (:mod:`packing.binfit`) runs on plans of at most this many pieces whose best
#: probe needs three or more containers, more than their bound (volume, payload, floor and
#: the pieces' shapes: :func:`packing.bounds.fewest_containers`), with at most this share
#: of the plan's budget left (the search after it, of containers filled one after another,
#: rarely needs fewer: on MPV classes 1 and 4-8, 0.8 against 0.5 saves a bin in classes 4
#: and 6; 96 computes of 60-400 pieces plan alike under both).
BINFIT_MAX_PIECES = 400
BINFIT_SHARE = 0.8
#: Balanced fill: a full search of one container type, with more than
#: :data:`BALANCE_FROM` containers' worth of cargo left (its volume over the container's
#: at :data:`BALANCE_FILL`), is offered of each item only :data:`BALANCE_SLACK` times its
#: share per container left (at least one piece). The containers filled first then no
#: longer take the pieces that pack best and leave the last ones those that pack worst:
#: each takes its share of every item. On 16 seeded orders of 200-10,000 pieces of 5-100
#: random SKUs (README, "Balanced fills") it needed 1,033 containers against 1,068, never
#: more on any order; slack 2 saved less, 4 and 5 alone lost a container on some orders.
BALANCE_SLACK = 3.0
#: Shares of the balanced fills that follow while the plan's units last, of the best plan's
#: type (each abandoned once it cannot beat that plan): 998 containers on the same orders.
#: A plain fill (all of each item) comes first when the balanced search needed no fewer
#: containers than the type's quick probe (or its bin fitting); a share that would offer
#: what an earlier fill was offered is skipped (:func:`_slack_of`).
BALANCE_SLACKS = (5.0, 8.0, 2.0)
BALANCE_FILL = 0.85
BALANCE_FROM = 1.5

#: What one container holds.
_Content = list[Packed]


def fits_container(piece: Piece, ct: ContainerType) -> bool:
    """Does the piece alone fit the empty container, by size and by payload?"""
    return fits_size(piece, ct) and (
        ct.max_payload_kg is None or piece.weight_kg <= ct.max_payload_kg + 1e-9
    )


def fits_size(piece: Piece, ct: ContainerType) -> bool:
    from packing.geometry import extents

    L, H, W = ct.inner
    return any(
        e[0] <= L and e[1] <= H and e[2] <= W
        for e in (extents(piece.dims, o) for o in piece.rules.orientations)
    )


def _fmt_cm(dims: tuple[int, int, int]) -> str:
    return "×".join(f"{d / 10:g}" for d in dims) + " cm"


def unfit_reason(
    piece: Piece, types: Sequence[ContainerType], noun: str = "container"
) -> tuple[str, str]:
    """Why a piece fits no container type: ``(kind, sentence a dispatcher understands)``;
    ``noun`` names what the types are to the reader (``"vehicle"`` for vehicle bodies)."""
    if not types:
        return "size", f"no eligible {noun} for this piece"
    size_ok = [ct for ct in types if fits_size(piece, ct)]
    if not size_ok:
        tilt = (
            "on every allowed orientation"
            if len(piece.rules.orientations) > 2
            else "upright, turned either way"
        )
        return (
            "size",
            f"larger ({_fmt_cm(piece.dims)}, length×height×width) than every eligible "
            f"{noun} {tilt}",
        )
    payloads = [ct.max_payload_kg for ct in size_ok if ct.max_payload_kg is not None]
    top = max(payloads)
    return (
        "weight",
        f"heavier ({piece.weight_kg:g} kg) than the {top:g} kg payload of every eligible "
        f"{noun} it fits into",
    )


#: Share of its time limit the search of the last container a plan of a smaller type
#: may open first gets (:meth:`_Planner.to_fewer`), and the most it may then leave out,
#: as a share of the container's volume, for the full search to follow.
TO_FEWER_FIRST = 0.25
TO_FEWER_GAP = 0.12

#: A fill of a pool of more than this many items offers each container's search a window
#: of it (:class:`_Window`): this many items or more, every size in its share, at least
#: :data:`WINDOW_CONTAINERS` containers' worth of them. Each step of a search ranks the
#: blocks of every item it is offered, so filling the containers of ``n`` distinct pieces
#: from the whole pool cost ``n²``. Distinct pieces in catalog pallet shippers (README,
#: "Many distinct pieces"), 5 s limit: 2,000 took 17.7 CPU s, 10,000 took 275 s; with the
#: window and the probes below 3.0 and 14.4 s, for 21 and 102 containers against 21 and
#: 100 (``bench.run_large(distinct=True)``: 99 against 96 containers at 10,000).
WINDOW_ITEMS = 1000
WINDOW_CONTAINERS = 2

#: Budget of a probe [s]: buys no search, so a probe is the strategy's greedy pass.
QUICK_LIMIT = 1e-6

#: Work units per piece of a content taken into a larger type with the same door, whose
#: payload alone is checked (:meth:`_Planner.within`): summing the weights and copying
#: the content took about 25 ns a piece on a host at 1.3 × the reference rate.
WITHIN_PIECE_UNITS = 3

#: The plan's own work beside its searches, in work units like theirs: whether a piece of
#: an item fits a type alone (:meth:`_Planner.fits`), the shapes' bound of a type
#: (:func:`packing.bounds.shape_bound`: a little a piece, more an item, since it groups the
#: pieces by shape), and the end of the plan (:func:`finish_units`): each container's load
#: steps (a relation row a piece and a little a pair of its pieces) and the numbering of
#: its pieces. Priced on 2026-12-07 at 16:06 from their CPU time in plans of 2,000 and
#: 10,000 distinct pieces and 10,000 parcels (fits 3.2-4.2 µs each, the bound 12-17 µs an
#: item and 0.3 µs a piece, the end 15 µs a piece and 9 ns a pair), at that host's units
#: per CPU second of the searches (1.15 × RATE, ``scripts/fit_prices.py``). On 10,000
#: distinct pieces they came to 0.4 CPU s that no budget counted, on 10,000 parcels in four
#: vans 0.4 s.
FIT_UNITS = 400
SHAPE_BOUND_PIECE_UNITS = 30
SHAPE_BOUND_ITEM_UNITS = 1_300
FINISH_PIECE_UNITS = 1_600
FINISH_PAIR_UNITS = 1


def finish_units(pieces: int) -> int:
    """Work units of the end of a plan for a container of ``pieces`` pieces: its load steps
    and the numbering of its pieces (:data:`FINISH_PIECE_UNITS`, :data:`FINISH_PAIR_UNITS`)."""
    return FINISH_PIECE_UNITS * pieces + FINISH_PAIR_UNITS * pieces * pieces


#: Pieces still to plan, by item id, each item's pieces in request order.
_Pool = dict[str, list[Piece]]


def _pool_of(pieces: Sequence[Piece]) -> _Pool:
    pool: _Pool = {}
    for p in pieces:
        pool.setdefault(p.item_id, []).append(p)
    return pool


class _Planner:
    """Runs single-container searches for one plan.

    Probes (greedy passes) rank container types cheaply; full searches share the plan's
    time limit, split in advance. The plan's budget is counted in work units like a
    search's (:class:`~packing.strategies.base.Budget`): every search spends its units
    from it, a full search never gets more than what is left, and once it is spent every
    further search is a probe, so the plan ends with the greedy pass for what is left
    (anytime) and is the same under any load. Each search packs with a clone of
    ``strategy`` whose ``time_limit`` is its share [s].

    Pieces of one item are identical, so fitting is decided per item and a search is given
    no more pieces of an item than the container can hold by volume and payload: the work
    of a container does not grow with the pieces left for later ones.
    """

    def __init__(
        self,
        types: Sequence[ContainerType],
        strategy: Strategy,
        support_ratio: float,
        limit: float,
        cap: int | None = None,
    ) -> None:
        self.types = list(types)
        self.strategy = strategy
        self.support_ratio = support_ratio
        self.limit = limit
        self.cap = cap
        self.full_budget = limit
        self.budget = Budget(limit)
        self.wall_cut = False
        #: Most units a balanced fill has spent (:meth:`balanced_fill`).
        self.balanced_cost = 0
        self._fits: dict[tuple[str, int], bool] = {}
        self._item: dict[str, Piece] = {}

    def fits(self, item: str, ct: ContainerType) -> bool:
        """Does a piece of ``item`` fit the empty ``ct`` (size and payload)? Cached."""
        key = (item, id(ct))
        ok = self._fits.get(key)
        if ok is None:
            self.budget.spend(FIT_UNITS)
            ok = self._fits[key] = fits_container(self._item[item], ct)
        return ok

    def register(self, pieces: Sequence[Piece]) -> None:
        for p in pieces:
            self._item.setdefault(p.item_id, p)

    def exhausted(self) -> bool:
        if self.budget.exhausted():
            self.wall_cut = self.wall_cut or self.budget.cut
            return True
        return False

    def pack_one(
        self, pool: _Pool, ct: ContainerType, *, quick: bool = False, limit: float | None = None
    ) -> SinglePack:
        """Pack what ``pool`` holds into one ``ct`` (with time limit ``limit`` [s] when
        given); ``leftover`` is left empty (the caller takes the placed pieces out of its
        pool)."""
        strat = clone(self.strategy, time_limit=self._limit(quick) if limit is None else limit)
        pack = strat.pack(self._offer(pool, ct), ct, support_ratio=self.support_ratio)
        return self._spent(pack)

    def within(
        self, plan: list[tuple[ContainerType, _Content]], ct: ContainerType
    ) -> list[tuple[ContainerType, _Content]] | None:
        """A plan as a plan of ``ct``, when ``ct`` is no shorter on any inner side than
        each of its containers and every content keeps every rule there (its door and
        payload included); None otherwise.

        Each content keeps every rule in the type it was planned for. In a type with the
        same door, its positions stay inside and every rule but the payload reads only
        the pieces' positions and the door's side (support, stacking, unload priority,
        load order), so the payload alone is checked (:data:`WITHIN_PIECE_UNITS` a piece).
        (Pieces of an item in MANUAL order are numbered in load order only at the end of
        :func:`plan_containers`: before that a whole check may refuse a content whose final
        numbering keeps the order, and did until the payload alone was checked.)
        Through another door the whole content is checked, charged as the consolidation's
        checks are (10,000 pieces of one item: 1.7 CPU s on a host at 1.3 × the reference
        rate).
        """
        out: list[tuple[ContainerType, _Content]] = []
        for held, content in plan:
            if not _contains(ct, held):
                return None
            if held.loading_side == ct.loading_side:
                self.budget.spend(WITHIN_PIECE_UNITS * len(content))
                kg = sum(q.piece.weight_kg for q in content)
                if ct.max_payload_kg is not None and kg > ct.max_payload_kg + 1e-6:
                    return None
            else:
                self.budget.spend(check_units(len(content)))
                if not container_is_valid(ct, content, self.support_ratio):
                    return None
            out.append((ct, list(content)))
        return out

    def _offer(self, pool: _Pool, ct: ContainerType) -> list[Piece]:
        """What a search of one ``ct`` is given: of each item, no more pieces than the
        container holds by volume and by payload."""
        pieces: list[Piece] = []
        for item, lst in pool.items():
            one = self._item[item]
            most = ct.inner_volume // max(1, one.volume)
            if ct.max_payload_kg is not None and one.weight_kg > 0:
                by_weight = (ct.max_payload_kg + 1e-9) // one.weight_kg
                if by_weight < most:  # (a weight near zero gives an infinite quotient)
                    most = int(by_weight)
            pieces.extend(lst if len(lst) <= most else lst[:most])
        return pieces

    def _limit(self, quick: bool) -> float:
        """Time limit of the next search [s]: a probe's, or the full share while the
        plan's units last."""
        if quick or self.exhausted():
            return QUICK_LIMIT
        return max(QUICK_LIMIT, min(self.full_budget, self.budget.units / Budget.RATE))

    def _spent(self, pack: SinglePack) -> SinglePack:
        """Charge a search's units to the plan; its leftover is the caller's pool's."""
        self.budget.spend(pack.work_units)
        self.wall_cut = self.wall_cut or pack.wall_cut
        pack.leftover = []
        return pack

    def fill_sequentially(
        self,
        pieces: list[Piece],
        pick: Callable[[_Pool, int], tuple[ContainerType | None, SinglePack]],
        cap: int | None,
        beat: int | None = None,
        only: ContainerType | None = None,
        window: ContainerType | None = None,
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Open containers one after another until nothing is left, nothing fits or the
        cap is reached. ``pick(pool, opened)`` gives the next container type and its
        packing, ``opened`` containers being open already.

        Of a pool of more than :data:`WINDOW_ITEMS` items, ``pick`` is given a window of
        it (:class:`_Window`): at least that many items, and more until they hold
        :data:`WINDOW_CONTAINERS` containers' worth of the type ``window`` (None: ``only``,
        else the largest type), or all that is left once fewer do. What a container's
        search costs then does not grow with the pool. Under a cap, or with unload
        priorities or MANUAL order, too, each container takes what packs best of its
        window.

        ``beat``: the containers of the best full placement so far. The fill is abandoned
        (None) once the containers it has opened and the fewest that could hold what is left
        (:meth:`_fewest`; of type ``only`` when every container is of that type) exceed it:
        it could only end with more containers, which ranks below that placement
        (:func:`_score`).
        """
        self.register(pieces)
        out: list[tuple[ContainerType, _Content]] = []
        pool = _pool_of(pieces)
        one = self._item
        left_volume = sum(p.volume for p in pieces)
        left_kg = sum(p.weight_kg for p in pieces)
        left_floor = floor_area(pieces)
        front = None
        if len(pool) > WINDOW_ITEMS:
            sized = window or only or _largest_first(self.types)[0]
            front = _Window(pool, one, WINDOW_CONTAINERS * sized.inner_volume)
        while pool and (cap is None or len(out) < cap):
            if (
                beat is not None
                and len(out) + self._fewest(left_volume, left_kg, only, left_floor) > beat
            ):
                return None
            ct, pack = pick(pool if front is None else front.view(left_volume), len(out))
            if ct is None or not pack.placed:
                break
            out.append((ct, pack.placed))
            _take(pool, {q.piece.key for q in pack.placed})
            # what this packing holds (each repeat below holds the same)
            volume = sum(one[q.piece.item_id].volume for q in pack.placed)
            kg = sum(one[q.piece.item_id].weight_kg for q in pack.placed)
            floor = floor_area(one[q.piece.item_id] for q in pack.placed)
            left_volume -= volume
            left_kg -= kg
            left_floor -= floor
            # Repeat the same packing while what remains still contains its content.
            need = Counter(q.piece.item_id for q in pack.placed)
            while pool and (cap is None or len(out) < cap):
                if any(len(pool.get(item, ())) < k for item, k in need.items()):
                    break
                taken = {item: iter(pool[item][:k]) for item, k in need.items()}
                content: _Content = [
                    Packed(next(taken[q.piece.item_id]), q.orientation, q.position, q.extents)
                    for q in pack.placed
                ]
                for item, k in need.items():
                    rest = pool[item][k:]
                    if rest:
                        pool[item] = rest
                    else:
                        del pool[item]
                out.append((ct, content))
                left_volume -= volume
                left_kg -= kg
                left_floor -= floor
        if beat is not None and len(out) > beat:
            return None
        return out

    def _fewest(
        self,
        volume: int,
        weight_kg: float,
        only: ContainerType | None = None,
        floor_mm2: int = 0,
    ) -> int:
        """Fewest containers, of any types mixed (or of ``only``), that could hold what is
        left (:func:`~packing.model.containers_needed`)."""
        return containers_needed(
            self.types if only is None else [only], volume, weight_kg, floor_mm2
        )

    def single_type(
        self,
        pieces: list[Piece],
        ct: ContainerType,
        *,
        quick: bool = False,
        cap: int | None = None,
        balanced: bool = False,
    ) -> list[tuple[ContainerType, _Content]]:
        """Containers of ``ct`` one after another, each packed from what is left; with
        ``balanced``, each search is offered only its share of each item
        (:meth:`_share_of`)."""
        if balanced:
            plan = self.balanced_fill(pieces, ct, None, quick=quick, cap=cap)
        else:
            plan = self.plain_fill(pieces, ct, quick=quick, cap=cap)
        assert plan is not None  # only a fill with a count to beat is abandoned
        return plan

    def plain_fill(
        self,
        pieces: list[Piece],
        ct: ContainerType,
        beat: int | None = None,
        *,
        quick: bool = False,
        cap: int | None = None,
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Containers of ``ct`` one after another, each packed from all that is left (of
        its window, :meth:`fill_sequentially`). ``beat``: see :meth:`fill_sequentially`.
        (A :meth:`balanced_fill` without a share, but not counted among their costs.)"""
        return self.fill_sequentially(
            pieces, lambda pool, _: (ct, self.pack_one(pool, ct, quick=quick)), cap, beat, only=ct
        )

    def balanced_fill(
        self,
        pieces: list[Piece],
        ct: ContainerType,
        beat: int | None,
        *,
        slack: float | None = BALANCE_SLACK,
        quick: bool = False,
        cap: int | None = None,
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Containers of ``ct`` one after another, each search offered only ``slack`` times
        its share of each item (:meth:`_share_of`; None: all of it, a plain fill).
        ``beat``: see :meth:`fill_sequentially` (None only then)."""

        def pick(pool: _Pool, _opened: int) -> tuple[ContainerType, SinglePack]:
            return ct, self.pack_one(self._share_of(pool, ct, slack), ct, quick=quick)

        start = self.budget.spent
        plan = self.fill_sequentially(pieces, pick, cap, beat, only=ct)
        self.balanced_cost = max(self.balanced_cost, self.budget.spent - start)
        return plan

    def _share_of(
        self, pool: _Pool, ct: ContainerType, slack: float | None = BALANCE_SLACK
    ) -> _Pool:
        """What a balanced fill offers the next ``ct``: the whole pool when ``slack`` is
        None or the pool holds at most :data:`BALANCE_FROM` containers' worth (at
        :data:`BALANCE_FILL`), else of each item ``slack`` times its share per container
        left, at least one piece. Of a window (:class:`_View`), the share is that of the
        whole pool left: the window is a sample of it."""
        one = self._item
        if isinstance(pool, _View):
            left = pool.pool_volume
        else:
            left = sum(one[item].volume * len(lst) for item, lst in pool.items())
        slack = _slack_of(slack, ct, left)
        if slack is None:
            return pool
        share = slack / (left / (BALANCE_FILL * ct.inner_volume))
        return {item: lst[: max(1, math.ceil(len(lst) * share))] for item, lst in pool.items()}

    def to_fewer(
        self, pieces: list[Piece], ct: ContainerType, beat: int
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Containers of ``ct`` for every piece if no more than ``beat`` of them do, else
        None: the search of a type whose probe needed more containers than the best
        probe, which is only worth its units if it needs no more.

        The last container it may open must take everything left. Its search first gets
        :data:`TO_FEWER_FIRST` of the time limit it would have had; that packing is kept
        when it takes everything, or when it leaves out more than :data:`TO_FEWER_GAP` of
        the container's volume (the fill then ends with too many containers): most such
        searches leave out far more, and a small plan spent nearly all its units on them.
        Otherwise the search follows with that whole limit, the same search as without the
        first, so a search that can succeed still does; the plan's units may then run over
        by the first's (at most :data:`TO_FEWER_FIRST` of one search).
        """

        def pick(pool: _Pool, opened: int) -> tuple[ContainerType, SinglePack]:
            if opened + 1 < beat:
                return ct, self.pack_one(pool, ct)
            limit = self._limit(False)
            first = self.pack_one(pool, ct, limit=max(QUICK_LIMIT, TO_FEWER_FIRST * limit))
            one = self._item
            left = sum(one[i].volume * len(lst) for i, lst in pool.items()) - sum(
                q.piece.volume for q in first.placed
            )
            if left == 0 or left > TO_FEWER_GAP * ct.inner_volume:
                return ct, first  # everything in, or far from it: the fill ends here
            return ct, self.pack_one(pool, ct, limit=limit)

        return self.fill_sequentially(pieces, pick, None, beat, window=ct)

    def seeded(
        self, pieces: list[Piece], ct: ContainerType, containers: int, beat: int | None = None
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Containers of ``ct`` one after another, each started with a few pieces of the
        items that pack badly alone (:mod:`packing.seeding`), so that they share the
        containers of the other cargo instead of filling the last ones to a third; None
        when no item packs badly alone.

        Each item is first packed alone by a greedy pass; each container is seeded with
        one of the items that pack badly, the items taking turns from one container to the
        next (of a window, :meth:`fill_sequentially`, those in it). Every container is
        packed by greedy passes (a probe's budget): the plan is one more candidate beside the searched ones, at the cost of probes. ``beat``: see
        :meth:`fill_sequentially` (None also when the fill is abandoned).
        """
        strategy = self.strategy
        if not isinstance(strategy, BlockBuilding):
            return None
        self.register(pieces)
        pool = _pool_of(pieces)
        fills: dict[str, tuple[float, bool]] = {}
        for item, lst in pool.items():
            if len(lst) > 1 and self.fits(item, ct):
                alone = self.pack_one({item: lst}, ct, quick=True)
                fills[item] = (alone.placed_volume / ct.inner_volume, len(alone.placed) == len(lst))
        seeds = awkward_items(fills, {item: len(lst) for item, lst in pool.items()}, containers)
        if not seeds:
            return None
        order = sorted(seeds, key=lambda item: (-self._item[item].volume, item))
        turn = 0

        def pick(pool: _Pool, _opened: int) -> tuple[ContainerType | None, SinglePack]:
            nonlocal turn
            live = [item for item in order if item in pool]
            chosen = {}
            if live:
                item = live[turn % len(live)]
                chosen[item] = seeds[item]
            turn += 1
            strat = clone(strategy, time_limit=QUICK_LIMIT)
            pack = pack_seeded(
                strat, self._offer(pool, ct), ct, chosen, support_ratio=self.support_ratio
            )
            return ct, self._spent(pack)

        return self.fill_sequentially(pieces, pick, self.cap, beat, window=ct)

    def bin_fit(
        self, pieces: list[Piece], ct: ContainerType, bound: int | None = None
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Containers of ``ct`` filled all at once, each piece into the one that fits it
        best (:mod:`packing.binfit`), with :data:`BINFIT_SHARE` of the budget left; None
        when a piece fits no empty ``ct``, or when the plan's strategy is not block
        building (a plan of another strategy keeps that strategy's containers, so that
        comparisons compare the strategies)."""
        if not isinstance(self.strategy, BlockBuilding):
            return None
        left = max(0, self.budget.units) / Budget.RATE
        budget = Budget(max(QUICK_LIMIT, BINFIT_SHARE * left))
        if bound is None:
            bound = lower_bound(
                ct,
                sum(p.volume for p in pieces),
                sum(p.weight_kg for p in pieces),
                floor_area(pieces),
            )
        contents = bin_fit(pieces, ct, support_ratio=self.support_ratio, budget=budget, bound=bound)
        self.budget.spend(budget.spent)
        self.wall_cut = self.wall_cut or budget.cut
        if contents is None:
            return None
        return [(ct, content) for content in contents]

    def mixed(
        self, pieces: list[Piece], ranked: list[ContainerType], beat: int | None = None
    ) -> list[tuple[ContainerType, _Content]] | None:
        """Container by container: the smallest type that takes all that is left, else the
        type of ``ranked`` (best bulk types first) whose probe loads most volume per outer
        volume. Only the chosen container gets the full search. ``beat``: see
        :meth:`fill_sequentially` (None when the fill is abandoned)."""
        by_outer = sorted(self.types, key=lambda t: (t.outer_volume, t.slug))
        bulk = ranked[:3]
        self.register(pieces)
        one = self._item

        def pick(pool: _Pool, _opened: int) -> tuple[ContainerType | None, SinglePack]:
            n = sum(len(lst) for lst in pool.values())
            vol = sum(len(lst) * one[item].volume for item, lst in pool.items())
            kg = sum(len(lst) * one[item].weight_kg for item, lst in pool.items())
            for ct in by_outer:
                if ct.inner_volume < vol or (
                    ct.max_payload_kg is not None and ct.max_payload_kg < kg
                ):
                    continue
                if not all(self.fits(item, ct) for item in pool):
                    continue
                probe = self.pack_one(pool, ct, quick=True)
                if len(probe.placed) == n:  # the smallest type that takes it all
                    # with the budget spent, a search would repeat the probe exactly
                    return ct, probe if self.exhausted() else self.pack_one(pool, ct)
            best: tuple[float, ContainerType, _Pool, SinglePack] | None = None
            # the bulk types first; when none of them takes anything that is left (pieces
            # only a small or a payload-free type holds), every other type
            for types in (bulk, [t for t in by_outer if t not in bulk]):
                for ct in types:
                    cand = {item: lst for item, lst in pool.items() if self.fits(item, ct)}
                    if not cand:
                        continue
                    probe = self.pack_one(cand, ct, quick=True)
                    eff = probe.placed_volume / ct.outer_volume
                    if probe.placed and (best is None or eff > best[0]):
                        best = (eff, ct, cand, probe)
                if best is not None:
                    break
            if best is None:
                return None, SinglePack()
            _, ct, cand, probe = best
            return ct, probe if self.exhausted() else self.pack_one(cand, ct)

        return self.fill_sequentially(pieces, pick, self.cap, beat)


class _View(dict[str, list[Piece]]):
    """A window of a pool (:class:`_Window`): the items offered and their pieces left;
    ``pool_volume`` is the volume left in the whole pool [mm³]."""

    pool_volume: int = 0


class _Window:
    """What a fill of a pool of many items offers its next container: items from the front
    of a queue of the pool's items (those still in the pool) until they are at least
    :data:`WINDOW_ITEMS` and hold ``volume`` (each item's pieces left), or every item left.
    The items a container leaves go to the back of the queue, behind the ones not yet
    offered.

    The queue deals the items, ranked by piece volume (largest first, then in pool order),
    into ``hands = ceil(items / WINDOW_ITEMS)`` hands, the item ranked ``r`` into hand
    ``r mod hands``, and lays the hands end to end: until the items a container leaves come
    round again, every window holds every size in its share, the large pieces and the small
    ones that fill the gaps between them. A view costs the items it draws, not the pool's.
    """

    def __init__(self, pool: _Pool, one: dict[str, Piece], volume: int) -> None:
        self.pool = pool
        self.one = one
        self.volume = volume
        ranked = sorted(pool, key=lambda item: -one[item].volume)  # (stable: pool order)
        hands = math.ceil(len(ranked) / WINDOW_ITEMS)
        self.queue = deque(item for h in range(hands) for item in ranked[h::hands])
        self.items: list[str] = []

    def view(self, pool_volume: int) -> _View:
        """The items offered now and their pieces left, in the order drawn;
        ``pool_volume``: the volume left in the whole pool [mm³]."""
        pool, one, queue = self.pool, self.one, self.queue
        queue.extend(item for item in self.items if item in pool)
        items: list[str] = []
        held = 0
        for _ in range(len(queue)):
            if len(items) >= WINDOW_ITEMS and held >= self.volume:
                break
            item = queue.popleft()
            if item in pool:
                items.append(item)
                held += one[item].volume * len(pool[item])
        self.items = items
        view = _View((item, pool[item]) for item in items)
        view.pool_volume = pool_volume
        return view


def _largest_first(types: Sequence[ContainerType]) -> list[ContainerType]:
    """``types`` by inner volume, largest first (ties by slug)."""
    return sorted(types, key=lambda t: (-t.inner_volume, t.slug))


def _take(pool: _Pool, keys: set[tuple[str, int]]) -> None:
    """Take the pieces whose keys are given out of ``pool``."""
    need = Counter(k[0] for k in keys)
    for item, k in need.items():
        lst = pool[item]
        kept: list[Piece] = []
        j = 0
        while k:  # the taken pieces lie at the front: a search gets the first ones
            p = lst[j]
            j += 1
            if (item, p.instance) in keys:
                k -= 1
            else:
                kept.append(p)
        rest = kept + lst[j:]
        if rest:
            pool[item] = rest
        else:
            del pool[item]


def _contains(outer: ContainerType, inner: ContainerType) -> bool:
    """Is ``outer`` no shorter than ``inner`` on any inner side (length, height, width)?"""
    return all(a <= b for a, b in zip(inner.inner, outer.inner, strict=True))


def _placed(plan: list[tuple[ContainerType, _Content]]) -> int:
    return sum(len(c) for _, c in plan)


def _slack_of(slack: float | None, ct: ContainerType, volume: int) -> float | None:
    """The share a balanced fill of cargo of ``volume`` [mm³] in ``ct`` is offered in
    effect: None (all of the pool, a plain fill) when ``slack`` is None or at least the
    containers' worth of cargo (at :data:`BALANCE_FILL`), or that is at most
    :data:`BALANCE_FROM`, since each offer is then the whole pool (the containers' worth
    shrinks as they fill); else ``slack``."""
    worth = volume / (BALANCE_FILL * ct.inner_volume)
    return None if slack is None or worth <= BALANCE_FROM or slack >= worth else slack


def lower_bound(ct: ContainerType, volume: int, weight_kg: float, floor_mm2: int = 0) -> int:
    """Fewest containers of ``ct`` that can hold ``volume`` [mm³] and ``weight_kg`` [kg],
    and pieces that must stand on the floor covering at least ``floor_mm2`` of it [mm²]
    (:func:`~packing.model.floor_area`); at least 1."""
    return max(1, containers_needed([ct], volume, weight_kg, floor_mm2))


def _score(
    plan: list[tuple[ContainerType, _Content]], total: int, cap: int | None
) -> tuple[bool, int, int, int, int]:
    """Rank of a candidate plan, lowest best: every piece placed first; among plans that
    leave pieces out (a cap, or pieces that fit no container together), the most cargo
    volume loaded, then the fewest pieces left out; then the fewest containers and the
    least outer volume."""
    kept = plan if cap is None else plan[:cap]
    placed = sum(len(c) for _, c in kept)
    short = placed < total
    loaded = sum(e[0] * e[1] * e[2] for _, c in kept for _, _, _, e in c) if short else 0
    return (short, -loaded, total - placed, len(kept), sum(ct.outer_volume for ct, _ in kept))


def _checked_input(
    pieces: object, container_types: object
) -> tuple[list[Piece], list[ContainerType]]:
    """The pieces and container types as lists, or a :class:`PackingInputError` naming
    the argument: a single piece or type (not in a list), or a member of another kind, or
    two different types of one slug (plans and alternatives tell types by slug)."""
    out: list[list[object]] = []
    for field, given, kind in (
        ("pieces", pieces, Piece),
        ("container_types", container_types, ContainerType),
    ):
        if isinstance(given, str | Piece | ContainerType) or not isinstance(given, Iterable):
            raise PackingInputError(
                field, f"must be a list of {kind.__name__} (got {type(given).__name__})"
            )
        items = list(given)
        for x in items:
            if not isinstance(x, kind):
                raise PackingInputError(
                    field, f"must hold {kind.__name__} objects only (got {x!r:.80})"
                )
        out.append(items)
    types: list[ContainerType] = out[1]  # type: ignore[assignment]

    def same(a: ContainerType) -> tuple[object, ...]:
        o = a.outer_dims
        return (a.title, tuple(a.inner), tuple(o), a.max_payload_kg, a.loading_side, a.tare_kg)

    by_slug: dict[str, ContainerType] = {}
    for ct in types:
        first = by_slug.setdefault(ct.slug, ct)
        if first is not ct and same(first) != same(ct):
            raise PackingInputError(
                "container_types",
                f"holds two different types of slug {ct.slug!r} ({by_slug[ct.slug].title!r} "
                f"and {ct.title!r}); give each type its own slug",
            )
    return out[0], types  # type: ignore[return-value]


def plan_containers(
    pieces: Sequence[Piece],
    container_types: Sequence[ContainerType],
    *,
    strategy: str | Strategy | None = None,
    support_ratio: float = 0.8,
    max_containers: int | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
    container_offset: int = 0,
    consolidate_limit: float | None = None,
) -> PackResult:
    """Plan containers for all pieces: which types, how many, and every placement.

    Parameters
    ----------
    pieces : sequence of Piece
    container_types : sequence of ContainerType
        Types to choose from.
    strategy : str, Strategy or None
        Packing strategy for each container (name from :data:`packing.STRATEGIES`, an
        instance, or None for block building). An instance is not used itself: each
        search packs with a :func:`~packing.strategies.clone` of it that has the search's
        share of ``time_limit``, so its own ``time_limit`` does not apply and it is left
        unchanged.
    support_ratio : float
        Minimum supported fraction of a raised piece's base (0..1).
    max_containers : int, optional
        Cap on the number of containers; pieces beyond it are unplaced with that reason.
    time_limit : float, optional
        Budget for the whole plan [s]; default 5 s. Single-container searches share it. It
        is counted in work units (about one CPU second per second on the reference machine,
        see :class:`~packing.strategies.base.Budget`), so the plan does not depend on the
        machine's load; once it is spent the rest is packed by greedy passes, so every
        piece is still placed or unplaced with a reason.
    seed : int, optional
        Seed for the strategy; None keeps the strategy's own (0 for a name).
    container_offset : int
        Index of the first container (plans of several temperature modes number their
        containers across the whole plan).
    consolidate_limit : float, optional
        Budget [s] of the step that empties, merges and downsizes the containers of a full
        placement (:func:`packing.consolidate.consolidate`), counted in work units like
        ``time_limit``; None: :data:`CONSOLIDATE_SHARE` × ``time_limit``.

    Returns
    -------
    PackResult
        Containers with placements (final load steps; instance indexes of each item in
        load order), unplaced pieces with reasons.
    """
    pieces, container_types = _checked_input(pieces, container_types)
    ratio_value("support_ratio", support_ratio)
    if max_containers is not None:
        count_value("max_containers", max_containers, 1)
    count_value("container_offset", container_offset, 0)
    limit = seconds_value("time_limit", DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
    if consolidate_limit is not None:
        consolidate_limit = seconds_value("consolidate_limit", consolidate_limit, zero=True)
    # the plan's wall-clock net (unless it runs inside a call that has one), over its
    # budget and its consolidation step's: its searches are bounded by their own CPU time
    # alone, which a busy machine does not change
    consolidation = CONSOLIDATE_SHARE * limit if consolidate_limit is None else consolidate_limit
    with Budget.wall_net(limit + consolidation):
        return _plan(
            pieces,
            container_types,
            strategy=strategy,
            support_ratio=support_ratio,
            max_containers=max_containers,
            limit=limit,
            seed=seed,
            container_offset=container_offset,
            consolidation=consolidation,
        )


def _plan(
    pieces: Sequence[Piece],
    container_types: Sequence[ContainerType],
    *,
    strategy: str | Strategy | None,
    support_ratio: float,
    max_containers: int | None,
    limit: float,
    seed: int | None,
    container_offset: int,
    consolidation: float,
) -> PackResult:
    """:func:`plan_containers` within its wall-clock net, its arguments checked (``limit``
    its time limit, ``consolidation`` its consolidation step's [s])."""
    start = time.perf_counter()
    keys = Counter(p.key for p in pieces)
    dup = [k for k, n in keys.items() if n > 1]
    if dup:
        raise PackingInputError(
            "pieces", f"each (item id, instance) must appear once (repeated: {dup[:3]})"
        )
    # the planner decides fitting and counts per item: the pieces of one item must be alike
    first: dict[str, Piece] = {}
    for p in pieces:
        q = first.setdefault(p.item_id, p)
        if (p.dims, p.weight_kg, p.rules) != (q.dims, q.weight_kg, q.rules):
            raise PackingInputError(
                "pieces",
                f"the pieces of one item must have equal dims, weight_kg and rules (item "
                f"{p.item_id!r}: instance {q.instance} {q.dims} mm {q.weight_kg:g} kg, "
                f"instance {p.instance} {p.dims} mm {p.weight_kg:g} kg)",
            )
    settings = {} if seed is None else {"seed": seed}
    prototype = get_strategy(strategy, **settings)  # checks the name before any work

    planner = _Planner(container_types, prototype, support_ratio, limit, max_containers)
    planner.register(pieces)
    unplaced: list[Unplaced] = []
    packable: list[Piece] = []
    fits_some = {
        item: any(planner.fits(item, ct) for ct in container_types) for item in planner._item
    }
    for p in pieces:
        if fits_some[p.item_id]:
            packable.append(p)
        else:
            kind, reason = unfit_reason(p, container_types)
            unplaced.append(Unplaced(p, reason, kind))
    packable_items = list(dict.fromkeys(p.item_id for p in packable))

    def holds_all(ct: ContainerType) -> bool:
        return all(planner.fits(item, ct) for item in packable_items)

    total = len(packable)
    best: list[tuple[ContainerType, _Content]] = []
    alt_counts: dict[str, int] = {}
    if packable:
        # 1. Probe every type that holds every piece alone (uncapped: these are also the
        #    alternatives), and rank the types by (containers, outer volume).
        #    A type no shorter on any side than one whose probe placed everything takes
        #    that plan's contents, when they keep every rule in it and their count is the
        #    fewest its volume, payload and the pieces' shapes allow: no probe could need
        #    fewer. (Cargo that every type holds, hundreds of small pieces, cost several
        #    times the plan's budget in probes over all the types.)
        vol = sum(p.volume for p in packable)
        kg = sum(p.weight_kg for p in packable)
        floor = floor_area(packable)

        geometric: dict[str, int] = {}

        def bound_of(ct: ContainerType, beat: int = 0) -> int:
            """Fewest containers of ``ct`` that could hold every packable piece: the volume,
            payload and floor bound, and when that is below ``beat`` (a plan's containers),
            also the bound of the pieces' shapes (:func:`packing.bounds.shape_bound`,
            worked out once a type and charged to the plan's units: 1-60 ms on up to 100
            kinds, 0.1-0.2 s on 10,000 distinct pieces that may turn every way)."""
            bound = lower_bound(ct, vol, kg, floor)
            if bound >= beat:
                return bound
            if ct.slug not in geometric:
                planner.budget.spend(
                    SHAPE_BOUND_PIECE_UNITS * total + SHAPE_BOUND_ITEM_UNITS * len(packable_items)
                )
                geometric[ct.slug] = shape_bound(packable, ct)
            return max(bound, geometric[ct.slug])

        probes: dict[str, int] = {}
        probe_plans: dict[str, list[tuple[ContainerType, _Content]]] = {}
        # A pool of more items than a window (WINDOW_ITEMS) is probed largest type first,
        # and a type is given up once it needs more than one container more than the best
        # probe so far (one more: a smaller type may still get a search for fewer, below):
        # a probe of such a pool costs seconds, and the small types' probes cost most (they
        # fill the most containers) and need the most containers. The types given up are
        # not among the alternatives. (Largest first, the shortcut below applies only to
        # types of the same inner sides.)
        many = len(packable_items) > WINDOW_ITEMS
        # the units of the cheapest probe that filled containers and placed everything
        # (not one that took another type's plan): what a fill of the whole pool costs at
        # the least; None while there is none
        fill_cost: int | None = None
        for ct in _largest_first(container_types) if many else container_types:
            if holds_all(ct):
                # (the shapes' bound only where a plan it holds could use it)
                held = [d for d in probe_plans.values() if _contains(ct, d[0][0])]
                least = bound_of(ct, max((len(d) for d in held), default=0))
                inside = [done for done in held if len(done) == least]
                plan = inside and planner.within(inside[-1], ct)
                if not plan:
                    before = planner.budget.spent
                    plan = (
                        planner.plain_fill(packable, ct, min(probes.values()) + 1, quick=True)
                        if many and probes
                        else planner.single_type(packable, ct, quick=True)
                    )
                    if plan is not None and _placed(plan) == total:
                        cost = planner.budget.spent - before
                        fill_cost = cost if fill_cost is None else min(fill_cost, cost)
                if plan is not None and _placed(plan) == total:
                    probes[ct.slug] = len(plan)
                    probe_plans[ct.slug] = plan
        alt_counts = dict(probes)
        by_slug = {ct.slug: ct for ct in container_types}
        ranked = sorted(
            (by_slug[s] for s in probes), key=lambda ct: (probes[ct.slug], ct.outer_volume, ct.slug)
        )
        if not ranked:  # no single type holds everything: rank by volume per outer volume
            ranked = sorted(
                container_types, key=lambda ct: (-ct.inner_volume / ct.outer_volume, ct.slug)
            )
        # 2. Full searches: the best single-type plans and the mixed plan share what is
        #    left of the budget, split by the containers the best probe needed, at most
        #    MAX_SEARCH_LIMIT each (a plan of one search gives it 0.9 of what is left).
        # A probe may need one container more than a full search: smaller types one
        # container behind the best probe get a full search too.
        full = ranked[:2]
        if probes:
            fewest, best_outer = probes[ranked[0].slug], ranked[0].outer_volume
            full += [
                ct
                for ct in ranked[2:]
                if probes[ct.slug] == fewest + 1 and ct.outer_volume < best_outer
            ][:3]
        # Bin fitting: a plan of few pieces whose best probe needs three containers or more,
        # more than volume, payload and the pieces' shapes require, also gets every
        # container open at once (one or two containers: the searches below already try
        # every smaller type; a cap below what volume, payload and shapes require: the
        # search decides what goes in).
        fitted = None
        fewest_possible = bound_of(ranked[0], probes.get(ranked[0].slug, 0))
        if (
            probes
            and total <= BINFIT_MAX_PIECES
            and probes[ranked[0].slug] > max(2, fewest_possible)
            and (max_containers is None or fewest_possible <= max_containers)
            and not planner.exhausted()
        ):
            fitted = planner.bin_fit(packable, ranked[0], fewest_possible)
            if fitted is not None and len(fitted) < probes[ranked[0].slug]:
                probes[ranked[0].slug] = len(fitted)
                probe_plans[ranked[0].slug] = fitted
                alt_counts[ranked[0].slug] = len(fitted)
        n_best = probes.get(ranked[0].slug, 1)
        if max_containers is not None:
            n_best = min(n_best, max_containers)
        best_n = probes[ranked[0].slug] if probes else None
        best_outer = ranked[0].outer_volume
        uncapped = max_containers is None or (best_n or 0) <= max_containers
        # a probe placed everything within the cap (or there is none)
        fits_cap = max_containers is None or (best_n is not None and best_n <= max_containers)
        to_search: list[ContainerType] = []
        # Balanced fills only for uncapped plans (under a cap the containers should take
        # what packs best) of cargo without an unload order (which the containers' loads
        # follow, so each container would take pieces of every drop)
        # (nor when no item has two pieces: every share is then the whole pool)
        balanced = (
            fits_cap
            and max(Counter(p.item_id for p in packable).values()) > 1
            and all(
                not p.rules.manual_order
                and p.rules.unload_priority == packable[0].rules.unload_priority
                for p in packable
            )
        )
        # the shares each type has been filled with (None: a plain fill), so that no fill
        # repeats one already made; and the containers of its full search
        filled: dict[str, set[float | None]] = {}
        searched: dict[str, int] = {}
        # every probe that placed everything (or the bin fitting that beat it) is a plan
        # too: a full search may end up with more containers than its quick probe, and the
        # alternatives list the probes' counts
        candidates: list[list[tuple[ContainerType, _Content]]] = list(probe_plans.values())
        for ct in full:
            bound = bound_of(ct, probes.get(ct.slug, 0))
            # under a cap the plans rank by the cargo loaded: a type is left out for needing
            # more containers than the best probe by volume and payload only, as before
            needs = bound if uncapped else lower_bound(ct, vol, kg, floor)
            if ct.slug in probes and probes[ct.slug] <= bound:
                # no search can use fewer (the probe's plan is a candidate already) ...
                if max_containers is not None and probes[ct.slug] > max_containers:
                    # ... but under a cap that leaves pieces out, a search decides what
                    # goes in
                    to_search.append(ct)
            elif best_n is not None and (
                needs > best_n or (uncapped and bound == best_n and ct.outer_volume >= best_outer)
            ):
                continue  # cannot beat the best probe: no fewer containers, no less volume
            elif holds_all(ct):
                to_search.append(ct)
        with_mixed = (len(container_types) > 1 and best_n != 1) or not (candidates or to_search)
        searches = n_best * (len(to_search) + (1 if with_mixed else 0))
        left = max(0, planner.budget.units) / Budget.RATE
        most = limit if searches <= 1 else MAX_SEARCH_LIMIT
        planner.full_budget = max(QUICK_LIMIT, min(most, 0.9 * left / max(1, searches)))

        def affords(fills: int) -> bool:
            """Do the units left pay for ``fills`` fills as cheap as the cheapest probe's?
            Asked of a pool of more items than a window only (else True): its greedy
            passes over every container, which a search must finish past its budget,
            cost seconds. (2,000 distinct pieces: a full search of a type cost up to 2.1
            times its probe, a mixed fill up to 2.8 times, both mostly past the budget.)"""
            return not many or fill_cost is None or planner.budget.units >= fills * fill_cost

        for ct in to_search:
            if ct.slug in probes and (planner.exhausted() or not affords(2)):
                continue  # a search now would repeat the probe, a candidate already
            if uncapped and best_n is not None and probes.get(ct.slug) == best_n + 1:
                # a type one container behind the best probe: it wins only with no more
                # containers than that probe; when it needs more, its alternative keeps the
                # probe's count, which a search needing more could not lower
                fewer = planner.to_fewer(packable, ct, best_n)
                if fewer is None:
                    continue
                plan = fewer
            else:
                plan = planner.single_type(packable, ct, cap=max_containers, balanced=balanced)
                share = _slack_of(BALANCE_SLACK, ct, vol) if balanced else None
                filled.setdefault(ct.slug, set()).add(share)
                if _placed(plan) == total:
                    searched[ct.slug] = len(plan)
            candidates.append(plan)
            if _placed(plan) == total and ct.slug in alt_counts:
                alt_counts[ct.slug] = min(alt_counts[ct.slug], len(plan))

        def to_beat() -> int | None:
            """Containers of the best full placement so far, when fewer would win: the
            mixed and seeded fills stop once they cannot end with as few (not under a cap
            the best probe exceeds: the most cargo loaded then ranks first)."""
            full = [len(c) for c in candidates if _placed(c) == total]
            return min(full) if full and fits_cap else None

        # Mixing types only pays when the best single type needs several containers. Once
        # the budget is spent, the mixed fill only runs when there is no plan yet: it would
        # be greedy passes over every container, past the budget. (The seeded fill below
        # still runs: its greedy passes hold large plans down, 10,000 pieces of 100 SKUs at
        # a 1 s limit in 257 containers against the probes' 283.) Of a pool of more items
        # than a window, it runs only while the units left pay for three fills as cheap as
        # the cheapest probe's (affords).
        if not candidates or (with_mixed and not planner.exhausted() and affords(3)):
            mixed = planner.mixed(packable, ranked, to_beat())
            if mixed is not None:
                candidates.append(mixed)
        # Several containers of one type: items that pack badly alone may fill the last
        # ones to a third; started in every container they share the space instead.
        if n_best > 2:
            seeded = planner.seeded(packable, ranked[0], n_best, to_beat())
            if seeded is not None:
                candidates.append(seeded)
        best = min(candidates, key=lambda plan: _score(plan, total, max_containers))
        kinds = {ct.slug: ct for ct, _ in best}
        if (
            balanced
            and len(best) > 1
            and len(kinds) == 1
            and _placed(best) == total
            and len(best) > bound_of(best[0][0], len(best))
        ):
            # Units left for a whole fill: fills of the best plan's type with other shares,
            # preceded by a plain one when the balanced search needed no fewer containers
            # than the type's probe (or its bin fitting), each abandoned once it cannot end
            # with fewer containers than the best plan; no share twice
            (ct,) = kinds.values()
            shares: list[float | None] = list(BALANCE_SLACKS)
            if searched.get(ct.slug, 0) >= probes.get(ct.slug, total):
                shares = [None, *BALANCE_SLACKS]
            done = filled.setdefault(ct.slug, set())
            for share in (_slack_of(slack, ct, vol) for slack in shares):
                if share in done:
                    continue
                if planner.exhausted() or planner.budget.units < planner.balanced_cost:
                    break
                done.add(share)
                more = planner.balanced_fill(packable, ct, len(best) - 1, slack=share)
                if more is not None:
                    candidates.append(more)
                    if _placed(more) == total:
                        best = more
        best = min(candidates, key=lambda plan: _score(plan, total, max_containers))
        # A full placement of several containers: fewer, or smaller ones? (One container
        # is already the smallest type a search filled: every type that might do better
        # was searched above.)
        if _placed(best) == total and len(best) > 1:
            allowance = consolidation
            # the CPU-time net of the plan and the step together, never their time
            # limits: work units decide when the step stops, so equal inputs give equal
            # plans under any load (and never less than a fresh search's net from now:
            # greedy passes past the budget must not leave the step none)
            net = (
                max(planner.budget.cpu_deadline, time.thread_time() + Budget.HARD_FLOOR_S)
                + Budget.HARD_FACTOR * allowance
            )
            best = consolidate(
                best,
                container_types,
                lambda ps, ct, s: clone(prototype, time_limit=s).pack(
                    ps, ct, support_ratio=support_ratio
                ),
                support_ratio=support_ratio,
                search_limit=min(planner.full_budget, MAX_SEARCH_LIMIT),
                allowance=allowance,
                cpu_deadline=net,
                on_spent=planner.budget.spend,
            )
            if time.thread_time() >= net or planner.budget.past_wall_net():
                planner.wall_cut = True

    kept = best if max_containers is None else best[:max_containers]
    placed_keys = {q.piece.key for _, content in kept for q in content}
    for p in packable:
        if p.key in placed_keys:
            continue
        if max_containers is not None and len(kept) >= max_containers:
            kind = "cap"
            reason = (
                f"the plan is capped at {max_containers} container{'s' if max_containers > 1 else ''} "
                f"(max_containers) and this piece did not fit in them"
            )
        else:
            kind = "space"
            reason = "could not be placed in any container together with the rest of the cargo"
        unplaced.append(Unplaced(p, reason, kind))

    # Each container's load steps, its placements in that order, and each item's pieces
    # numbered in loading order across the containers (then the unplaced ones), so MANUAL
    # items keep their request order within the item too
    loads: list[ContainerLoad] = []
    counters: dict[str, int] = {}
    for k, (ct, content) in enumerate(kept):
        idx = container_offset + k
        boxes = [
            (pos[0], pos[1], pos[2], pos[0] + e[0], pos[1] + e[1], pos[2] + e[2])
            for _, _, pos, e in content
        ]
        ranks = [q.piece.item_order if q.piece.rules.manual_order else None for q in content]
        steps = load_steps(boxes, ct.loading_side, ranks)
        planner.budget.spend(finish_units(len(content)))
        placements = []
        for i in sorted(range(len(content)), key=steps.__getitem__):
            at = content[i]
            piece = at.piece.with_instance(_next(counters, at.piece.item_id))
            placements.append(
                Placement(piece, idx, at.position, at.orientation, at.extents, steps[i])
            )
        loads.append(ContainerLoad(idx, ct, placements))
    unplaced = [
        Unplaced(u.piece.with_instance(_next(counters, u.piece.item_id)), u.reason, u.kind)
        for u in unplaced
    ]
    alts = sorted(
        ((n, ct) for ct in container_types if (n := alt_counts.get(ct.slug)) is not None),
        key=lambda t: (t[0], t[1].outer_volume, t[1].slug),
    )
    result = PackResult(loads, unplaced, prototype.name, support_ratio, 0.0)
    result.alternatives = [Alternative(ct, n) for n, ct in alts]
    result.work_units = planner.budget.spent
    result.wall_cut = planner.wall_cut
    result.seconds = time.perf_counter() - start
    return result


def _next(counters: dict[str, int], item: str) -> int:
    k = counters.get(item, 0)
    counters[item] = k + 1
    return k


def alternatives(
    pieces: Sequence[Piece],
    container_types: Sequence[ContainerType],
    *,
    strategy: str | Strategy | None = None,
    support_ratio: float = 0.8,
    time_limit: float | None = None,
    seed: int | None = None,
) -> list[Alternative]:
    """For every container type that can hold every piece: boxes needed using it alone.

    Returns one :class:`~packing.result.Alternative` per such type, sorted by boxes, then
    outer volume. Types some piece cannot go into are left out, and so, of cargo of more
    than :data:`WINDOW_ITEMS` items, are the types that need more than one container more
    than a larger type (they are probed largest first, each given up once it does). The same
    list comes with every :func:`plan_containers` result as ``result.alternatives``.
    """
    return plan_containers(
        pieces,
        container_types,
        strategy=strategy,
        support_ratio=support_ratio,
        time_limit=time_limit,
        seed=seed,
    ).alternatives
