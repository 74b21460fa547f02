"""Fewer containers after a plan is made: empty containers into the others, repack the
emptiest together, and put a container's content into a smaller type.

A plan filled container by container packs each one as full as its search can make it,
which can leave a tail of nearly empty containers: the first containers took the pieces
that were easiest to pack, and what is left packs badly on its own. This step improves
such a plan with these moves, the first three tried on the emptiest container first:

- *merge*: container ``e``'s pieces and those of one other container ``j`` are packed
  into one container (``j``'s type, or any other type that can hold them);
- *redistribute*: ``e``'s pieces are offered to the other containers one after another,
  each repacked with what it holds plus what is still left of ``e`` (a repack is kept
  when it loads more volume than before, so pieces may change places) until ``e`` is
  empty; when it is not, what is left goes back into ``e`` if that holds less than
  before, a step towards emptying it later;
- *concentrate*: ``e``'s pieces and another container's are packed again into those
  two, the other first, and kept when the other then holds more than either held (the
  volume gathers, ``e`` empties a step);
- *repack the tail*: the pieces of the ``k`` emptiest containers are packed into
  ``k - 1`` containers of their types;

and, once no container can be removed, *downsize*: each container goes into the type
with the least outer volume that holds its whole content, the last first. When a type
smaller than a container of the plan might hold its content (by volume and payload, on
the plan as it comes), the moves before it stop where only the last
:data:`DOWNSIZE_SHARE` of the allowance is left (their searches are given only the units
above it; one may still run a little past its budget): downsizing gets what they left.

Plans are compared as :func:`packing.plan_containers` compares them (decisions §4):
fewest containers, then least total outer volume. A move is kept only when every piece it
moves is placed, and each repacked container is checked by :func:`packing.validate_plan`
(bounds, overlap, support, stacking, payload, unload priority, load order); the result is
used only when it is strictly better than the plan given, which is returned otherwise.

Each search is a full search of the plan's strategy on a clone with ``search_limit``
seconds, after a greedy probe that settles it when the probe already places everything.
The step's effort is counted in the work units its searches report
(:attr:`~packing.strategies.base.SinglePack.work_units`) against an allowance of
``allowance × Budget.RATE`` units, so that equal inputs give equal plans. The safety
nets of :class:`~packing.strategies.base.Budget` stop it early: a CPU-time ``cpu_deadline``
(the planner passes its own, on :func:`time.thread_time`), reached only on a machine
several times slower than the reference per unit of work, and the wall-clock net of the
outermost call (the plan's), reached only on one many times busier; only then may the
result depend on the machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

from packing.bounds import shape_bound
from packing.errors import PlanValidationError
from packing.loadorder import load_steps
from packing.model import ContainerType, Piece, Placement, containers_needed, floor_area
from packing.result import ContainerLoad, PackResult
from packing.strategies.base import Budget, Packed, SinglePack
from packing.validate import validate_plan

#: One container of a plan: its type and what it holds.
Load = tuple[ContainerType, list[Packed]]

#: ``pack(pieces, container_type, seconds)``: one container packed with ``seconds`` [s].
PackFn = Callable[[list[Piece], ContainerType, float], SinglePack]

#: Budget of a probe [s]: buys no search, so a probe is the strategy's greedy pass.
PROBE_LIMIT = 1e-6

#: Most containers packed together by the tail repack.
MAX_TAIL = 4

#: A redistribution gives up after this many containers in a row, most free space first,
#: loaded no more volume than they held (took none of the emptied container's pieces, or
#: their search was refused or not paid for): the fuller ones after them rarely do. (On
#: the seeded orders of 1,000 pieces in 25 and 26 containers, one redistribution tried
#: every container, each a full search, and spent 0.39 s of units of the 0.4 s it had
#: without a container taking a piece. With this limit 46 seeded orders plan with the
#: same containers and, on four of them, less outer volume: the units go to the other
#: moves and to downsizing; MPV classes 1 and 4-8 plan the same bins.)
REDISTRIBUTE_MISSES = 3

#: Share of the step's allowance kept for downsizing when a smaller type might hold a
#: container's content (by volume and payload, on the plan as it comes): the moves
#: that remove containers stop where it begins. Without it they spent the whole allowance on
#: every plan of many containers, and downsizing never ran: on the sixteen seeded orders
#: (README, "Balanced fills") downsizing alone took 0.002-0.04 s of units and put a
#: container into a smaller type on 11 of them.
DOWNSIZE_SHARE = 0.2

#: Work units charged beside a search's own: per call (setting it up, checking it), per
#: piece handed to it, and per piece of a content checked by :func:`container_is_valid`,
#: plus per pair of its pieces (the pairwise overlap, support and load-order checks). The
#: check's prices were 4,000 a piece and 8 a pair (3,000 pieces of 100 kinds took 1.2 CPU s
#: on a host at 0.65 × :attr:`Budget.DEFAULT_RATE`); the load-order check then compared
#: one piece with the others at a time. Comparing blocks of rows cut the per-piece cost of
#: a check to 0.67 and the per-pair cost to 0.42 of what they were (a fit over contents of
#: 40-3,000 pieces of 1, 10 and 100 kinds, the code before and after on one host), and
#: the prices followed (2,680 and 3.36, rounded).
CALL_UNITS = 10_000
PIECE_UNITS = 1_000
CHECK_UNITS = 2_700
PAIR_UNITS = 3


def check_units(n: int) -> int:
    """Work units of :func:`container_is_valid` on a content of ``n`` pieces."""
    return CALL_UNITS + CHECK_UNITS * n + PAIR_UNITS * n * n


def plan_key(plan: Sequence[Load]) -> tuple[int, int]:
    """Order of plans that place the same pieces: (containers, total outer volume [mm³])."""
    return (len(plan), sum(ct.outer_volume for ct, _ in plan))


def _volume(content: Sequence[Packed]) -> int:
    return sum(q.piece.volume for q in content)


def _weight(pieces: Sequence[Piece]) -> float:
    return sum(p.weight_kg for p in pieces)


#: Volume [mm³] and weight [kg] of some pieces, summed once for every type they are tried in.
Totals = tuple[int, float]


def _totals(pieces: Sequence[Piece]) -> Totals:
    """The volume [mm³] and weight [kg] of ``pieces``."""
    return sum(p.volume for p in pieces), _weight(pieces)


def _may_hold(ct: ContainerType, totals: Totals) -> bool:
    """Could ``ct`` hold pieces of these ``totals`` by volume and payload? (A necessary
    condition.)"""
    volume, kg = totals
    if volume > ct.inner_volume:
        return False
    return ct.max_payload_kg is None or kg <= ct.max_payload_kg + 1e-9


def container_is_valid(ct: ContainerType, content: Sequence[Packed], support_ratio: float) -> bool:
    """Does one container's content keep every rule :func:`~packing.validate_plan` checks?"""
    boxes = [(p[0], p[1], p[2], p[0] + e[0], p[1] + e[1], p[2] + e[2]) for _, _, p, e in content]
    ranks = [q.piece.item_order if q.piece.rules.manual_order else None for q in content]
    steps = load_steps(boxes, ct.loading_side, ranks)
    placements = [
        Placement(q.piece, 0, q.position, q.orientation, q.extents, step)
        for q, step in zip(content, steps, strict=True)
    ]
    result = PackResult([ContainerLoad(0, ct, placements)], support_ratio=support_ratio)
    try:
        validate_plan(result)
    except PlanValidationError:
        return False
    return True


class _Consolidator:
    """The moves of :func:`consolidate` over one plan, with their shared allowance."""

    def __init__(
        self,
        types: Sequence[ContainerType],
        pack: PackFn,
        support_ratio: float,
        search_limit: float,
        allowance: float,
        cpu_deadline: float | None,
    ) -> None:
        self.by_outer = sorted(types, key=lambda t: (t.outer_volume, t.slug))
        self.pack = pack
        self.support_ratio = support_ratio
        self.search_limit = search_limit
        self.allowance = self.units = int(allowance * Budget.RATE)
        self.cpu_deadline = cpu_deadline
        #: The wall-clock net of the outermost call (the plan's, see Budget.wall_net).
        self.wall_deadline = Budget.current_wall_deadline()
        self.searches = 0
        #: Cargo volume of each content seen [mm³], by identity (contents are never
        #: changed in place: a move makes new ones); an entry keeps its content alive, so
        #: no other content takes its id.
        self._volumes: dict[int, tuple[Sequence[Packed], int]] = {}
        #: Cargo weight of each content seen [kg], kept as the volumes are.
        self._weights: dict[int, tuple[Sequence[Packed], float]] = {}
        #: The largest inner volume of the types [mm³]: no container holds more.
        self.most_volume = max((t.inner_volume for t in types), default=0)
        #: Units the current moves leave (kept for the ones after them): their searches
        #: are given only the units above these, and they stop when those are spent.
        self.kept = 0
        #: Set once the units left could not pay for a search asked for
        #: (:meth:`_seconds`); :meth:`concentrate` resets it before each of its fills.
        self.unpaid = False

    def volume(self, content: Sequence[Packed]) -> int:
        """:func:`_volume` of ``content``, summed once per content."""
        hit = self._volumes.get(id(content))
        if hit is not None:
            return hit[1]
        v = _volume(content)
        self._volumes[id(content)] = (content, v)
        return v

    def weight(self, content: Sequence[Packed]) -> float:
        """The cargo weight of ``content`` [kg], summed once per content."""
        hit = self._weights.get(id(content))
        if hit is not None:
            return hit[1]
        kg = _weight([q.piece for q in content])
        self._weights[id(content)] = (content, kg)
        return kg

    def spread(self, plan: Sequence[Load]) -> int:
        """Sum of the squared cargo volumes of the containers [mm⁶]: grows as cargo gathers."""
        return sum(self.volume(content) ** 2 for _, content in plan)

    @property
    def left(self) -> int:
        """Units the current moves may still spend."""
        return self.units - self.kept

    def spent(self) -> bool:
        return (
            self.left <= 0
            or (self.cpu_deadline is not None and time.thread_time() >= self.cpu_deadline)
            or time.perf_counter() >= self.wall_deadline
        )

    def _seconds(self, pieces: Sequence[Piece]) -> float:
        """Budget of a full search of ``pieces`` [s]: the search limit, or the units the
        current moves have left once setting the search up is charged (a search may still
        run a little past its budget, see :class:`~packing.strategies.base.Budget`)."""
        setting_up = CALL_UNITS + PIECE_UNITS * len(pieces)
        seconds = min(self.search_limit, (self.left - setting_up) / Budget.RATE)
        if seconds <= 0:
            self.unpaid = True
        return seconds

    def _charge(self, pieces: Sequence[Piece], pack: SinglePack) -> None:
        """Charge a search: the units it reports, and setting it up and reading it out."""
        self.units -= pack.work_units + CALL_UNITS + PIECE_UNITS * len(pieces)
        self.searches += 1

    def _valid(self, ct: ContainerType, content: Sequence[Packed]) -> bool:
        """:func:`container_is_valid`, charged to the allowance; False without checking
        (and the allowance spent) when what is left would not pay for the check."""
        cost = check_units(len(content))
        if cost > self.left:
            # spent (an overspent search stays counted)
            self.units = min(self.units, self.kept)
            return False
        self.units -= cost
        return container_is_valid(ct, content, self.support_ratio)

    def pack_all(
        self, pieces: list[Piece], ct: ContainerType, totals: Totals | None = None
    ) -> list[Packed] | None:
        """All of ``pieces`` packed into one ``ct`` with every rule kept, or None
        (``totals``: their volume and weight, when the caller has summed them)."""
        if not pieces or not _may_hold(ct, totals or _totals(pieces)) or self.spent():
            return None
        for probe in (True, False):
            seconds = PROBE_LIMIT if probe else self._seconds(pieces)
            if seconds <= 0 or self.spent():
                return None
            pack = self.pack(pieces, ct, seconds)
            self._charge(pieces, pack)
            if len(pack.placed) == len(pieces):
                if self._valid(ct, pack.placed):
                    return pack.placed
                return None
        return None

    def pack_most(self, pieces: list[Piece], ct: ContainerType) -> SinglePack | None:
        """As much of ``pieces`` as a full search puts into one ``ct`` (None when the
        allowance is spent or the packing breaks a rule)."""
        seconds = self._seconds(pieces)
        if seconds <= 0 or self.spent():
            return None
        pack = self.pack(pieces, ct, seconds)
        self._charge(pieces, pack)
        if not self._valid(ct, pack.placed):
            return None
        return pack

    # -- moves ---------------------------------------------------------------------------
    def merge(self, plan: list[Load], e: int) -> list[Load] | None:
        """Container ``e``'s pieces and one other container's in one container."""
        pool = [q.piece for q in plan[e][1]]
        volume_e, kg_e = self.volume(plan[e][1]), self.weight(plan[e][1])
        others = sorted(
            (j for j in range(len(plan)) if j != e), key=lambda j: (self.volume(plan[j][1]), j)
        )
        for j in others:
            ct_j, content_j = plan[j]
            totals = (self.volume(content_j) + volume_e, self.weight(content_j) + kg_e)
            if totals[0] > self.most_volume:
                # no type holds the two by volume, nor then with any container after this
                # one (each holds no less): a plan of hundreds of full containers made
                # this loop's every pair and their lists of pieces, uncharged, at every
                # move (9,000 pieces: seconds of CPU past the step's units)
                return None
            types = [ct_j] + [t for t in self.by_outer if t != ct_j]
            if not any(_may_hold(ct, totals) for ct in types):
                continue
            pieces = [q.piece for q in content_j] + pool
            for ct in types:
                if self.spent():
                    return None
                packed = self.pack_all(pieces, ct, totals)
                if packed is not None:
                    new = list(plan)
                    new[j] = (ct, packed)
                    del new[e]
                    return new
        return None

    def redistribute(self, plan: list[Load], e: int) -> list[Load] | None:
        """Container ``e``'s pieces spread over the others, most free space first.

        Returns the plan without ``e`` when all of them found a place; else, when what is
        left (pieces may have changed places) goes back into ``e`` with less volume than
        ``e`` held, the plan with that emptier ``e``; else None. The offers stop after
        :data:`REDISTRIBUTE_MISSES` containers in a row loaded no more than they held."""
        pool = [q.piece for q in plan[e][1]]
        free = sum(ct.inner_volume - self.volume(c) for j, (ct, c) in enumerate(plan) if j != e)
        if self.volume(plan[e][1]) > free:
            return None
        new = list(plan)
        others = sorted(
            (j for j in range(len(plan)) if j != e),
            key=lambda j: (self.volume(plan[j][1]) - plan[j][0].inner_volume, j),
        )
        misses = 0
        for j in others:
            if not pool or misses >= REDISTRIBUTE_MISSES:
                break
            if self.spent():
                return None
            ct, content = new[j]
            before = self.volume(content)
            pieces = [q.piece for q in content] + pool
            pack = self.pack_most(pieces, ct)
            if pack is None or pack.placed_volume <= before:
                misses += 1
                continue
            misses = 0
            new[j] = (ct, pack.placed)
            placed = {q.piece.key for q in pack.placed}
            pool = [p for p in pieces if p.key not in placed]
        if pool:
            ct_e = plan[e][0]
            if sum(p.volume for p in pool) >= self.volume(plan[e][1]):
                return None
            packed = self.pack_all(pool, ct_e)
            if packed is None:
                return None
            new[e] = (ct_e, packed)
            return new
        del new[e]
        return new

    def concentrate(self, plan: list[Load], e: int) -> list[Load] | None:
        """Container ``e``'s pieces and another's packed again into those two, the other
        filled first: the plan with one container when one holds them all, else with the
        two when the other now holds more than either held; else None."""
        ct_e, content_e = plan[e]
        others = sorted(
            (j for j in range(len(plan)) if j != e), key=lambda j: (-self.volume(plan[j][1]), j)
        )
        for j in others:
            if self.spent():
                return None
            ct_j, content_j = plan[j]
            best = max(self.volume(content_j), self.volume(content_e))
            pieces = [q.piece for q in content_j] + [q.piece for q in content_e]
            self.unpaid = False
            contents = self.fill(pieces, [ct_j, ct_e])
            if contents is None:
                if self.unpaid:
                    # what is left does not pay for the search of these two, nor likely
                    # for the next pair's: the move ends (it went on through every other
                    # container, building each pair's pieces and reading the clocks,
                    # uncharged: 56,000 of them in a plan of 10,000 pieces, a CPU second)
                    return None
                continue
            new = list(plan)
            if len(contents) == 1:
                new[j] = (ct_j, contents[0])
                del new[e]
                return new
            if _volume(contents[0]) > best:  # (a candidate: not kept in the memo)
                new[j], new[e] = (ct_j, contents[0]), (ct_e, contents[1])
                return new
        return None

    def fill(
        self, pieces: list[Piece], types: Sequence[ContainerType]
    ) -> list[list[Packed]] | None:
        """All of ``pieces`` packed into one container of each of ``types`` in turn, or None.

        Each container but the last is tried with the full search's packing, then with the
        probe's when that differs: the full search loads most volume, which may leave out
        the pieces the later containers cannot take (pieces that must stand on the floor
        need the floor of the container they go into)."""
        if len(types) == 1:
            packed = self.pack_all(pieces, types[0])
            return None if packed is None else [packed]
        options: list[list[Packed]] = []
        for seconds in (self._seconds(pieces), PROBE_LIMIT):
            if seconds <= 0 or self.spent():
                break
            pack = self.pack(pieces, types[0], seconds)
            self._charge(pieces, pack)
            keys = {q.piece.key for q in pack.placed}
            if not pack.placed or any({q.piece.key for q in o} == keys for o in options):
                continue
            if not self._valid(types[0], pack.placed):
                continue
            options.append(pack.placed)
            rest = [p for p in pieces if p.key not in keys]
            if not rest:
                return [pack.placed]
            tail = self.fill(rest, types[1:])
            if tail is not None:
                return [pack.placed, *tail]
        return None

    def repack_tail(self, plan: list[Load], k: int) -> list[Load] | None:
        """The pieces of the ``k`` emptiest containers in ``k - 1`` of their types (the
        types of the fullest of them)."""
        tail = sorted(range(len(plan)), key=lambda j: (self.volume(plan[j][1]), j))[:k]
        pool = [q.piece for j in tail for q in plan[j][1]]
        keep = sorted(tail, key=lambda j: (-self.volume(plan[j][1]), j))[: k - 1]
        if sum(p.volume for p in pool) > sum(plan[j][0].inner_volume for j in keep):
            return None
        contents = self.fill(pool, [plan[j][0] for j in keep])
        if contents is None:
            return None
        filled = dict(zip(keep, contents, strict=False))
        return [
            (ct, filled[j]) if j in filled else (ct, content)
            for j, (ct, content) in enumerate(plan)
            if j not in tail or j in filled
        ]

    def smaller_types(self, ct: ContainerType, totals: Totals) -> Iterator[ContainerType]:
        """Types of less outer volume than ``ct`` that might hold pieces of these ``totals``
        (volume and payload), least outer volume first."""
        for t in self.by_outer:
            if t.outer_volume >= ct.outer_volume:
                return
            if _may_hold(t, totals):
                yield t

    def downsize(self, plan: list[Load]) -> list[Load]:
        """Each container in the type of least outer volume that holds its content."""
        new = list(plan)
        for j in range(len(new) - 1, -1, -1):
            ct, content = new[j]
            pieces = [q.piece for q in content]
            totals = _totals(pieces)
            for t in self.smaller_types(ct, totals):
                if self.spent():
                    break
                packed = self.pack_all(pieces, t, totals)
                if packed is not None:
                    new[j] = (t, packed)
                    break
        return new


def consolidate(
    plan: Sequence[tuple[ContainerType, Sequence[Packed]]],
    container_types: Sequence[ContainerType],
    pack: PackFn,
    *,
    support_ratio: float,
    search_limit: float,
    allowance: float,
    cpu_deadline: float | None = None,
    on_spent: Callable[[int], None] | None = None,
) -> list[Load]:
    """A plan with fewer containers or less outer volume holding the same pieces, or the
    plan given when no move finds one.

    Parameters
    ----------
    plan : sequence of (ContainerType, sequence of Packed)
        Containers in plan order and what each holds; every content keeps every rule.
    container_types : sequence of ContainerType
        Types a container may be changed into (those the plan was made from).
    pack : callable
        ``pack(pieces, container_type, seconds)``: the plan's strategy packing one
        container with a budget of ``seconds`` [s] (a clone with that ``time_limit``).
    support_ratio : float
        Minimum supported fraction of a raised piece's base (0..1) the plan keeps.
    search_limit : float
        Budget of one full search [s].
    allowance : float
        Budget of the whole step [s], counted in the work units of its searches
        (``allowance × Budget.RATE``), so the result does not depend on the machine.
    cpu_deadline : float, optional
        :func:`time.thread_time` value after which no search starts [s] (besides the
        wall-clock net of the outermost call, :meth:`~packing.strategies.base.Budget.
        wall_net`).
    on_spent : callable, optional
        Called once at the end with the work units the step spent.

    Returns
    -------
    list of (ContainerType, list of Packed)
        Containers in plan order (a removed container leaves its place; a merged or
        downsized one keeps it).
    """
    start: list[Load] = [(ct, list(content)) for ct, content in plan]
    if not start:
        return start
    c = _Consolidator(container_types, pack, support_ratio, search_limit, allowance, cpu_deadline)
    if any(
        next(c.smaller_types(ct, _totals([q.piece for q in content])), None) is not None
        for ct, content in start
    ):
        c.kept = int(DOWNSIZE_SHARE * c.allowance)
    current = start
    fewest = _fewest_containers(
        [q.piece for _, content in start for q in content], container_types, len(start)
    )
    improved = True
    while improved and len(current) > fewest and not c.spent():
        improved = False
        by_volume = sorted(range(len(current)), key=lambda j: (c.volume(current[j][1]), j))
        for e in by_volume:
            for move in (c.merge, c.redistribute, c.concentrate):
                new = move(current, e)
                # a plan as long as before has its volume in fewer containers: a step on
                # the way to emptying one (the sum of squared volumes only grows: no cycle)
                if new is not None and (
                    len(new) < len(current) or c.spread(new) > c.spread(current)
                ):
                    current, improved = new, True
                    break
            if improved or c.spent():
                break
        if improved or c.spent():
            continue
        for k in range(3, min(MAX_TAIL, len(current)) + 1):
            new = c.repack_tail(current, k)
            if new is not None:
                current, improved = new, True
                break
    c.kept = 0
    current = c.downsize(current)
    if on_spent is not None:
        on_spent(c.allowance - c.units)
    return current if plan_key(current) < plan_key(start) else start


def _fewest_containers(
    pieces: Sequence[Piece], types: Sequence[ContainerType], beat: int = 0
) -> int:
    """A lower bound on the containers that hold ``pieces`` (at least 1): by volume, by
    payload and by the floor the pieces that must stand on it cover, in the largest of
    ``types`` (:func:`~packing.model.containers_needed`); when that is below ``beat`` and
    every type fits inside the largest, also by the pieces' shapes in the largest
    (:func:`~packing.bounds.shape_bound`: a plan of any mix of the types is then one of
    the largest as far as shapes go; payloads are not, a smaller type may carry more)."""
    volume, weight = _totals(pieces)
    n = max(1, containers_needed(types, volume, weight, floor_area(pieces)))
    if n >= beat or not types:
        return n
    largest = max(types, key=lambda t: (t.inner_volume, t.slug))
    if all(all(a <= b for a, b in zip(t.inner, largest.inner, strict=True)) for t in types):
        n = max(n, shape_bound(pieces, largest))
    return n
