"""Block building with a look-ahead tree search: the default strategy.

Identical pieces are combined into solid blocks (``nx × ny × nz`` copies in one
orientation), the way the container-loading literature builds them (Eley 2002; Fanslau &
Bortfeldt 2010, "A tree search algorithm for solving the container loading problem",
INFORMS J. Computing 22(2)). At each step the free space nearest to a container corner is
filled with a block; which block is decided by completing the packing greedily after each
of the best few candidates and keeping the one whose completion loads most volume. The
search widens while time is left (anytime), and the best complete packing seen is kept.
The best packing of a single container's load is then repaired: groups of the blocks
nothing rests on are taken out and their room filled again greedily, while that loads more
(:meth:`BlockBuilding._repair`), and its last blocks searched again by look-aheads from the
blocks before them (:meth:`BlockBuilding._tails`). Units left then, in a container that
might hold all the cargo, go to passes that rate each block by the completions after the
best few blocks that may follow it (the tree search's depth 2).
"""

from __future__ import annotations

from collections.abc import Callable

from packing.errors import PackingInputError
from packing.geometry import Box, overlaps, rests_on
from packing.state import BLOCK_READ, Block, PackState
from packing.strategies.base import Budget, Strategy
from packing.strategies.general import GeneralBlocks, general_blocks_for
from packing.strategies.steps import (
    FEW_PIECES_PER_TYPE,
    SPACE_RULES,
    Candidate,
    Ranked,
    Row,
    SpaceRule,
    block_at,
    candidates,
    greedy,
    next_blocks,
    space_key_corner,
    space_key_floor,
    space_key_floor_across,
    supported_part,
)

__all__ = [
    "FEW_PIECES_PER_TYPE",
    "FOOTPRINT_SPENT_LEFT",
    "SPACE_RULES",
    "BlockBuilding",
    "Candidate",
    "Ranked",
    "Row",
    "SpaceRule",
    "block_at",
    "candidates",
    "greedy",
    "might_hold_all",
    "next_blocks",
    "offers_general",
    "repairs",
    "space_key_corner",
    "space_key_floor",
    "space_key_floor_across",
    "supported_part",
    "tail_widths",
    "top_blocks",
]


def might_hold_all(state: PackState) -> bool:
    """Might the container hold every piece left: their volume within its free volume,
    their weight within the payload left, and each piece alone within its inner
    extents on some allowed orientation?"""
    left = [t for t in state.types if state.counts[t.index] > 0]
    volume = sum(state.counts[t.index] * t.volume for t in left)
    kg = sum(state.counts[t.index] * t.weight_kg for t in left)
    return (
        volume <= state.L * state.H * state.W - state.placed_volume
        and kg <= state.payload_left + 1e-9
        and all(
            any(ex <= state.L and ey <= state.H and ez <= state.W for _, ex, ey, ez in t.orients)
            for t in left
        )
    )


#: On a spent budget (a probe's, or a search whose first greedy pass cost more than its
#: units), the footprint-first pass runs only when the first pass left out at most this
#: share of the free room it left in the container: left out more, another ranking will
#: not place it all either, and the pass is one more greedy pass past the budget. (A van
#: of 1,000 pieces each of a size of its own, 0.86 of its volume: the first pass left out
#: half its free room, and the footprint-first pass, which cost as much as the first, did
#: not place everything, so the plan of two vans took 6.5 s of units on a 2 s limit where
#: it now takes 3.5; 500 such pieces, 0.46 of the van: the first pass left out 0.2 % of
#: its free room and the footprint-first pass placed it, one van where it would take two.)
FOOTPRINT_SPENT_LEFT = 0.25


#: Share of a search's units kept back for the repair of its best packing
#: (:meth:`BlockBuilding._repair`) of a single container's load (:func:`repairs`); the
#: repair also gets the units the widening leaves. (Generated loads of 10 / 20 / 30 / 40 /
#: 60 / 80 / 100 types, 20 each at 5 s: +0.04 / +0.06 / +0.10 / +0.20 / +0.42 / +0.45 /
#: +0.44 points; BR7 problems 1–60: +0.04, one problem of the first 20 losing 1.4 points
#: to the search's smaller share. A share of 0.08: the same within ±0.16.)
REPAIR_SHARE = 0.15
#: How many of the blocks nothing rests on the repair takes out together, each size
#: until no move of it loads more, then the next.
REPAIR_SIZES: tuple[int, ...] = (6, 12, 24)
#: The repair runs where the pieces' volume is within this many times the container's
#: free volume: a single container's load (the Bischoff & Ratcliff sets hold 0.98–1.0
#: of their container, a generated load 0.99 and one box), not one container of many
#: filled from a larger pool (a plan's), which is left as it was.
REPAIR_POOL = 1.1


#: Shares of the best packing's blocks (those the search placed, after a seed's) a search of
#: its tail keeps (:meth:`BlockBuilding._tails`): the blocks after them are searched again.
TAIL_KEEP: tuple[float, ...] = (0.75, 0.5)
#: Widths of the searches of the tail, each under every share of :data:`TAIL_KEEP` and every
#: space rule before the next (those above ``max_width`` are left out; a ``max_width`` below
#: the first runs alone).
TAIL_WIDTHS: tuple[int, ...] = (8, 16, 32, 64)


def tail_widths(max_width: int) -> list[int]:
    """The widths of :data:`TAIL_WIDTHS` a search of ``max_width`` runs its tails at."""
    return [w for w in TAIL_WIDTHS if w <= max_width] or [max_width]


def repairs(state: PackState) -> bool:
    """Does the search keep back units to repair its best packing: the pieces' volume
    within :data:`REPAIR_POOL` times the free volume, and the order of the pieces free
    (the repair moves blocks placed early to the end of the loading order)?"""
    volume = sum(state.counts[t.index] * t.volume for t in state.types)
    free = state.L * state.H * state.W - state.placed_volume
    return not state.check_order and volume <= REPAIR_POOL * free


def top_blocks(blocks: list[Block]) -> list[int]:
    """Indices of the blocks nothing rests on (no block's floor lies on their top), highest
    tops first (the first of equals in ``blocks`` order)."""
    by_floor: dict[int, list[Box]] = {}
    for b in blocks:
        by_floor.setdefault(b.box[1], []).append(b.box)
    out = [
        i
        for i, b in enumerate(blocks)
        if not any(rests_on(c, b.box) for c in by_floor.get(b.box[4], ()))
    ]
    out.sort(key=lambda i: -blocks[i].box[4])
    return out


def _gap(a: Box, b: Box) -> int:
    """How far apart two cuboids are: the gaps between them along the three axes, summed
    (0 when they touch or overlap)."""
    d = 0
    for k in range(3):
        lo = a[k] if a[k] > b[k] else b[k]
        hi = a[k + 3] if a[k + 3] < b[k + 3] else b[k + 3]
        if lo > hi:
            d += lo - hi
    return d


def offers_general(plain: dict[SpaceRule, int], mixed: dict[SpaceRule, int]) -> bool:
    """Does the search offer general blocks: ``mixed`` (the volumes greedy passes with them
    loaded, by rule) holds a load at least the best of ``plain`` (the same passes without
    them) under the rules both ran? False when no pass with them ran."""
    shared = [rule for rule in mixed if rule in plain]
    return bool(shared) and max(mixed[r] for r in shared) >= max(plain[r] for r in shared)


class BlockBuilding(Strategy):
    """Block building with a look-ahead tree search (the default strategy).

    Parameters
    ----------
    time_limit : float or None
        Budget of one container [s], counted in work units (about CPU seconds on the
        reference machine, see :class:`~packing.strategies.base.Budget`); None: 3 s. The
        search widens (2, 4, 8, … candidates per step) while units are left and keeps the
        best packing seen. Each width makes a pass under each space rule, the rules whose
        packings loaded most first, and under only as many as the units left could pay for,
        a pass priced at twice one of the last width (at least one; the first width prices
        a pass from the greedy pass and keeps room for the second): a short budget takes
        the best rules wider. Units left after the widest width go, for a single
        container's load (:func:`repairs`), to the repair and the searches of the tail
        (``repair``, ``tails``); then, when the container might hold all the cargo, to
        passes that look two steps ahead (:meth:`_two_steps`), widths 2, 4, 8, … again.
        Cargo of mostly single pieces that the container might hold whole also gets a
        greedy pass that lays the widest pieces first, even on a probe's budget when the
        first pass left out little (see :data:`FEW_PIECES_PER_TYPE` and
        :data:`FOOTPRINT_SPENT_LEFT`).
    seed : int
        Seed of the common interface; this search makes no random choice, so every seed
        gives the same plan.
    max_width : int
        Widest look-ahead tried: how many candidate blocks are completed per step.
    general_blocks : bool
        Offer general blocks (pieces of several types combined into one cuboid, see
        :mod:`packing.strategies.general`) beside the simple ones, for cargo of many types
        with few pieces of each. The search keeps them only when the best of its greedy
        passes with them (one under each space rule) loads at least as much as the best
        without (:func:`offers_general`).
    repair : bool
        Repair the best packing after the widening (:meth:`_repair`): for a single
        container's load (:func:`repairs`), :data:`REPAIR_SHARE` of the units is kept back
        for it, and it may also take the units the widening leaves; what it leaves goes to
        the searches of the tail (``tails``), then to the passes that look two steps ahead.
    tails : bool
        Search the tail of the best packing again (:meth:`_tails`), for the same loads as
        the repair, with the units the repair leaves (``repair=False``: those the widening
        leaves): its first blocks kept, the rest searched by look-aheads of widths 8 to
        ``max_width``. The passes that look two steps ahead get what it leaves.
    """

    name = "block-building"
    default_time_limit = 3.0

    def __init__(
        self,
        *,
        time_limit: float | None = None,
        seed: int = 0,
        max_width: int = 64,
        general_blocks: bool = True,
        repair: bool = True,
        tails: bool = True,
    ) -> None:
        super().__init__(time_limit=time_limit, seed=seed)
        self.max_width = max_width
        self.general_blocks = general_blocks
        self.repair = repair
        self.tails = tails

    def _solve(self, state: PackState, budget: Budget) -> PackState:
        if (
            isinstance(self.max_width, bool)
            or not isinstance(self.max_width, int)
            or self.max_width < 1
        ):
            raise PackingInputError(
                "max_width", f"must be an integer >= 1 (got {self.max_width!r})"
            )
        if not isinstance(self.general_blocks, bool):
            raise PackingInputError(
                "general_blocks", f"must be true or false (got {self.general_blocks!r})"
            )
        if not isinstance(self.repair, bool):
            raise PackingInputError("repair", f"must be true or false (got {self.repair!r})")
        if not isinstance(self.tails, bool):
            raise PackingInputError("tails", f"must be true or false (got {self.tails!r})")
        # the repair's share (see _repair and repairs); the state before any block the
        # search places, which the repair and the searches of the tail put the kept blocks
        # back into
        reserve = 0
        initial = None
        if (self.repair or self.tails) and budget.units > 0 and repairs(state):
            initial = state.copy()
        if self.repair and initial is not None:
            reserve = int(REPAIR_SHARE * budget.units)
            budget.spend(reserve)
        total = sum(len(t.pieces) * t.volume for t in state.types)
        units = budget.units
        footprint = 0  # what the footprint-first pass loaded (when it runs)
        first = best = greedy(state.copy(), SPACE_RULES[0], budget)
        # what a pass of width 2 may cost, a rough and low estimate: at each of the greedy
        # pass's steps one other block completed, on average half a greedy pass
        first_pass = (units - budget.units) * max(1, len(first.blocks) - len(state.blocks)) // 2
        pieces = sum(len(t.pieces) for t in state.types)
        room = state.L * state.H * state.W - best.placed_volume
        if (
            best.placed_volume < total <= state.L * state.H * state.W
            and pieces <= FEW_PIECES_PER_TYPE * len(state.types)
            and (
                not budget.exhausted() or total - best.placed_volume <= FOOTPRINT_SPENT_LEFT * room
            )
        ):
            # cargo the container might hold whole: the footprint-first pass runs even on a
            # spent budget (a probe's), one more greedy pass over few pieces, which often
            # places what the first left out, unless the first left out too much of the
            # room it left (FOOTPRINT_SPENT_LEFT)
            trial = state.copy()
            trial.rank_by_footprint = True
            g = greedy(trial, SPACE_RULES[0], budget)
            footprint = g.placed_volume
            if g.placed_volume > best.placed_volume:
                best = g
        # A greedy pass under each rule without general blocks and, where they are made,
        # one with them: the search offers them when the best pass with them loads at
        # least as much as the best without. (On the Bischoff & Ratcliff set BR7 they often
        # load less, on generated loads of 40 and 80 types more. Decided by the first
        # rule's two passes alone, one load of 80 types in 20 went without them and lost
        # 4 points: 85.6 % where they give 89.7 %.)
        plain: dict[SpaceRule, int] = {SPACE_RULES[0]: first.placed_volume}
        mixed: dict[SpaceRule, int] = {}
        general = None
        if self.general_blocks and best.placed_volume < total and not budget.exhausted():
            general, work = general_blocks_for(state, budget.units)
            budget.charge(general_pairs=work)
        for rule in SPACE_RULES:
            if budget.exhausted() or best.placed_volume >= total:
                break
            if rule not in plain:
                g = greedy(state.copy(), rule, budget)
                plain[rule] = g.placed_volume
                best = g if g.placed_volume > best.placed_volume else best
            if general is not None and not budget.exhausted() and best.placed_volume < total:
                trial = state.copy()
                trial.general = general
                g = greedy(trial, rule, budget)
                mixed[rule] = g.placed_volume
                best = g if g.placed_volume > best.placed_volume else best
        if general is not None and offers_general(plain, mixed):
            state.general = general
        # the most each rule's packings have loaded so far (its greedy passes, then its
        # passes), of the blocks the search offers; the footprint-first pass counts as the
        # first rule's
        loaded = {
            rule: max(volume, mixed.get(rule, 0) if state.general is not None else 0)
            for rule, volume in plain.items()
        }
        loaded[SPACE_RULES[0]] = max(loaded[SPACE_RULES[0]], footprint)
        # Each width's passes run under the rules whose packings loaded most so far, as
        # many as the units left could pay for, a pass priced at twice one of the last
        # width, and the first width under as many as could also go on to the second: on
        # cargo of many types, where passes of width 2 under every rule cost half the
        # budget, the best rules go wider rather than every rule stopping at width 4
        # (generated loads of 80 types, 20 instances: +0.5 points).
        width = 2
        per_pass = 0  # units a pass of the last width cost, on average
        while width <= self.max_width and not budget.exhausted() and best.placed_volume < total:
            rules = sorted(SPACE_RULES, key=lambda r: -loaded.get(r, 0))
            if per_pass:
                rules = rules[: max(1, budget.units // (2 * per_pass))]
            elif budget.units < 3 * len(rules) * first_pass:
                rules = rules[: max(1, budget.units // (3 * first_pass))]
            before, passes = budget.units, 0
            for rule in rules:
                if budget.exhausted():
                    break
                r = self._lookahead(state.copy(), width, rule, budget)
                passes += 1
                loaded[rule] = max(loaded.get(rule, 0), r.placed_volume)
                if r.placed_volume > best.placed_volume:
                    best = r
            per_pass = (before - budget.units) // max(1, passes)
            width *= 2
        # The repair of the best packing: the share kept back and the units the widening
        # left (it ends when no group it tries loads more).
        budget.spend(-reserve)
        if (
            self.repair
            and initial is not None
            and best.placed_volume < total
            and not budget.exhausted()
        ):
            best = self._repair(initial, best, budget)
        # The searches of the best packing's tail: what the repair left.
        if (
            self.tails
            and initial is not None
            and best.placed_volume < total
            and not budget.exhausted()
        ):
            best = self._tails(
                initial, best, budget, tail_widths(self.max_width), loaded, state.general
            )
        # Units left here mean the widest look-ahead has run: cargo of few types, whose
        # passes are cheap, ends the widening far below its budget (BR1: 7 % of it), and a
        # wider pass there finds the same packings. When the container might hold all the
        # cargo (might_hold_all), passes that look two steps ahead take the units left,
        # each width in turn, under every rule, those that loaded most first. A container
        # filled from a larger pool (one of a plan's many) is left as it is: on the
        # service's orders those passes planned the same containers at up to 1.6 times the
        # CPU. The last container of a plan's fill, whose pool might fit, gets them.
        if might_hold_all(state):
            width = 2
            while width <= self.max_width and not budget.exhausted() and best.placed_volume < total:
                for rule in sorted(SPACE_RULES, key=lambda r: -loaded.get(r, 0)):
                    if budget.exhausted() or best.placed_volume >= total:
                        break
                    r = self._two_steps(state.copy(), width, rule, budget)
                    loaded[rule] = max(loaded.get(rule, 0), r.placed_volume)
                    if r.placed_volume > best.placed_volume:
                        best = r
                width *= 2
        return best

    @staticmethod
    def _repair(initial: PackState, best: PackState, budget: Budget) -> PackState:
        """Take out a group of the blocks nothing rests on, put the others back where they
        were and complete the packing greedily, under each space rule, keeping a packing
        that loads more; until the units are spent or no group of any size in
        :data:`REPAIR_SIZES` loads more.

        The groups, each tried once at each size (a group of the same blocks is not tried
        again after a move elsewhere): each block nothing rests on, highest first, with the
        nearest of the others (by the gaps between them); blocks ``initial`` already holds
        (a seed's, :mod:`packing.seeding`) stay. Taking out only blocks nothing rests on
        keeps every other block supported as it was; the greedy completion fills the hole
        they leave with the simple blocks it finds best for the pieces left out and the
        pieces taken out, over the free spaces that reach into the hole (a space elsewhere
        that only a piece taken out would fit is not offered). It ends once every piece is
        in. On cargo of many types, whose searches leave the top of the load ragged (the
        highest tenth of a 100-type load about 60 % full), this loads 0.1–0.45 points more
        on 30 to 100 types than the units would buy the search (README, "Benchmarks").
        General blocks in the completions as well: the same within 0.05 points on 20 loads
        of 40, 80 and 100 types and BR7."""
        fixed = len(initial.blocks)
        total = initial.placed_volume + sum(
            initial.counts[t.index] * t.volume for t in initial.types
        )
        for size in REPAIR_SIZES:
            tried: set[tuple[tuple[int, ...], ...]] = set()
            improved = True
            while improved and not budget.exhausted() and best.placed_volume < total:
                improved = False
                blocks = best.blocks
                # (blocks the state came with, a seed's, stay)
                tops = [i for i in top_blocks(blocks) if i >= fixed]
                # the groups' distances: each top against the others
                budget.charge(checks=BLOCK_READ * (len(blocks) + len(tops) * len(tops)))
                for i in tops:
                    if budget.exhausted():
                        break
                    box = blocks[i].box
                    near = sorted((_gap(box, blocks[j].box), j) for j in tops if j != i)
                    group = {i, *(j for _, j in near[: size - 1])}
                    key = tuple(sorted((*blocks[j].box, blocks[j].type_index) for j in group))
                    if key in tried:
                        continue
                    tried.add(key)
                    base = initial.copy()
                    replayed = 0
                    for j in range(fixed, len(blocks)):
                        if j not in group:
                            budget.charge(splits=base.place(blocks[j]))
                            replayed += 1
                    gone = [blocks[j].box for j in group]
                    base.spaces = [sp for sp in base.spaces if any(overlaps(sp, g) for g in gone)]
                    budget.charge(
                        replays=replayed,
                        copies=len(initial.spaces) + len(initial.tops) + len(initial.blocks),
                    )
                    for rule in SPACE_RULES:
                        trial = base.copy()
                        budget.charge(copies=len(base.spaces) + len(base.blocks))
                        done = greedy(trial, rule, budget)
                        if done.placed_volume > best.placed_volume:
                            best = done
                            improved = True
                            break
                    if improved:
                        break
            if budget.exhausted() or best.placed_volume >= total:
                break
        return best

    @staticmethod
    def _tails(
        initial: PackState,
        best: PackState,
        budget: Budget,
        widths: list[int],
        loaded: dict[SpaceRule, int],
        general: GeneralBlocks | None,
    ) -> PackState:
        """Search the tail of the best packing again: keep its first blocks (each share of
        :data:`TAIL_KEEP` of those the search placed after the blocks ``initial`` already
        holds, a seed's, which stay), put them back into a copy of ``initial`` and run a
        look-ahead pass (:meth:`_lookahead`) from there: at each of ``widths`` in turn,
        both shares, each under every space rule, those whose packings loaded most
        (``loaded``) first. A packing that loads more becomes the best, and the next tail
        is cut from it. Until the units are spent, every piece is in or every width has
        run; a pass whose units the blocks put back spent does not start.

        A pass from three quarters of the blocks makes only the last steps, whose
        completions are short: it costs a small part of a whole pass of the same width, so
        the units left buy look-aheads as wide as the widening's widest at the end of the
        packing, where its loss lies (the top of a load, README "Benchmarks"). A cut that
        keeps no block (a whole pass, as the widening ran) is left out. ``general``: the
        general blocks the search offers (None: none)."""
        fixed = len(initial.blocks)
        total = initial.placed_volume + sum(
            initial.counts[t.index] * t.volume for t in initial.types
        )
        rules = sorted(SPACE_RULES, key=lambda r: -loaded.get(r, 0))
        # the passes run from the best packing as it is (a cut the shares give twice, on
        # few blocks, runs once)
        ran: set[tuple[int, int, int]] = set()
        for width in widths:
            for keep in TAIL_KEEP:
                for k, rule in enumerate(rules):
                    if budget.exhausted() or best.placed_volume >= total:
                        return best
                    blocks = best.blocks
                    cut = fixed + int((len(blocks) - fixed) * keep)
                    if cut == fixed or (cut, width, k) in ran:
                        continue  # no block kept (a whole pass) or a pass run already
                    ran.add((cut, width, k))
                    base = initial.copy()
                    base.general = general
                    for j in range(fixed, cut):
                        budget.charge(splits=base.place(blocks[j]))
                    budget.charge(
                        replays=cut - fixed,
                        copies=len(initial.spaces) + len(initial.tops) + len(initial.blocks),
                    )
                    if budget.exhausted():
                        return best  # (a pass on a spent budget would complete unpaid)
                    r = BlockBuilding._lookahead(base, width, rule, budget)
                    if r.placed_volume > best.placed_volume:
                        best = r
                        ran.clear()
        return best

    @staticmethod
    def _lookahead(state: PackState, width: int, rule: SpaceRule, budget: Budget) -> PackState:
        """One pass of the tree search: at each step complete the ``width`` best blocks
        greedily and keep the one whose completion loads most; once the budget is spent
        the pass finishes greedily. Returns the best complete packing seen."""
        return BlockBuilding._pass(
            state, width, rule, budget, lambda trial: greedy(trial, rule, budget), known=True
        )

    @staticmethod
    def _two_steps(state: PackState, width: int, rule: SpaceRule, budget: Budget) -> PackState:
        """A pass of the tree search that looks two steps ahead: at each step each of the
        ``width`` best blocks is rated by the most that a greedy completion after any of
        the ``width`` best blocks of the step after it loads (``width`` times the
        completions of a :meth:`_lookahead` step), and the best rated is kept. Once the
        budget is spent the ratings stop (a started completion finishes) and the pass
        finishes greedily. Returns the best complete packing seen."""

        def after_the_next(trial: PackState) -> PackState:
            # the best greedy completion after one of the next step's blocks
            follow = next_blocks(trial, width, rule, budget)  # (drops spaces it finds full)
            size = len(trial.spaces) + len(trial.blocks)
            done = []
            for b in follow:
                t = trial.copy()
                budget.charge(copies=size, splits=t.place(b))
                done.append(greedy(t, rule, budget))
                if budget.exhausted():
                    break
            return max(done, key=lambda d: d.placed_volume) if done else trial

        return BlockBuilding._pass(state, width, rule, budget, after_the_next, known=False)

    @staticmethod
    def _pass(
        state: PackState,
        width: int,
        rule: SpaceRule,
        budget: Budget,
        complete: Callable[[PackState], PackState],
        *,
        known: bool,
    ) -> PackState:
        """A pass of the tree search: at each step each of the ``width`` best blocks is
        placed on a copy, ``complete`` gives the best complete packing it finds from there,
        and the block whose packing loads most is kept (the first of equals). Once the
        budget is spent the pass finishes greedily. Returns the best packing seen.

        ``known``: ``complete`` is the greedy completion, whose packing after the block
        picked began with the greedy's own next block, the first candidate of the next
        step: that candidate's volume is known and not completed again. Without it a step
        stops rating its blocks once the budget is spent (its completions are dearer)."""
        best_seen: PackState | None = None
        # The volume the completion of the block picked last loaded (see ``known``).
        carried: int | None = None
        while True:
            if budget.exhausted():
                state = greedy(state, rule)
                break
            blocks = next_blocks(state, width, rule, budget)
            if not blocks:
                break
            if len(blocks) == 1:
                # the greedy's own block: a known completion stays known
                budget.charge(splits=state.place(blocks[0]))
                continue
            scores = []
            size = len(state.spaces) + len(state.blocks)
            for i, b in enumerate(blocks):
                if i == 0 and carried is not None:
                    scores.append(carried)
                    continue
                trial = state.copy()
                budget.charge(copies=size, splits=trial.place(b))
                done = complete(trial)
                scores.append(done.placed_volume)
                if best_seen is None or done.placed_volume > best_seen.placed_volume:
                    best_seen = done
                if not known and budget.exhausted():
                    break
            pick = max(range(len(scores)), key=lambda i: (scores[i], -i))
            if known:
                carried = scores[pick]
            budget.charge(splits=state.place(blocks[pick]))
        if best_seen is not None and best_seen.placed_volume > state.placed_volume:
            return best_seen
        return state
