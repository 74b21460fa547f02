"""The strategy interface: pack pieces into one container."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from packing.errors import PackingInputError
from packing.geometry import Dims
from packing.model import ContainerType, Piece
from packing.state import PackState, PieceType, group_pieces


@dataclass(slots=True)
class SinglePack:
    """What a strategy put into one container.

    Attributes
    ----------
    placed : list of tuple
        ``(piece, orientation, position, extents)`` per placed piece [mm].
    leftover : list of Piece
        Pieces not placed.
    seconds : float
        Wall time used [s].
    """

    placed: list[tuple[Piece, int, Dims, Dims]] = field(default_factory=list)
    leftover: list[Piece] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def placed_volume(self) -> int:
        return sum(e[0] * e[1] * e[2] for _, _, _, e in self.placed)


class Budget:
    """Search effort of one ``pack`` call, deterministic for a given time limit.

    Effort is counted in work units (candidate blocks generated and ranked); a time limit of
    ``t`` seconds buys ``t × RATE`` units, ``RATE`` being measured on the project's 2-core
    reference machine, so equal inputs and settings give equal plans on any machine and
    under any load. A wall-clock cap of ``HARD_FACTOR × t`` stops a search on a machine
    far slower than the reference; only then may results depend on the machine.
    """

    RATE = 100_000  # work units per second on the reference machine
    HARD_FACTOR = 3.0

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.units = int(seconds * self.RATE)
        start = time.perf_counter()
        self.deadline = start + seconds
        self.hard_deadline = start + self.HARD_FACTOR * seconds

    def spend(self, units: int = 1) -> None:
        self.units -= units

    def exhausted(self) -> bool:
        return self.units <= 0 or time.perf_counter() >= self.hard_deadline


class Strategy(ABC):
    """Packs a set of pieces into one container, as much of it as it can.

    Settings are keyword-only constructor arguments stored as given (scikit-learn style);
    they are validated when solving.

    Parameters
    ----------
    time_limit : float or None
        Wall-time budget of one ``pack`` call [s]; None: the strategy's own default.
    seed : int
        Seed of every random choice; equal seeds give equal plans.
    """

    name: str = ""
    default_time_limit: float = 1.0

    def __init__(self, *, time_limit: float | None = None, seed: int = 0) -> None:
        self.time_limit = time_limit
        self.seed = seed

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def get_params(self) -> dict[str, object]:
        """The constructor settings as given."""
        import inspect

        sig = inspect.signature(type(self).__init__)
        return {k: getattr(self, k) for k in sig.parameters if k != "self"}

    def set_params(self, **params: object) -> Strategy:
        valid = self.get_params()
        for k, v in params.items():
            if k not in valid:
                raise PackingInputError(
                    k, f"is not a setting of {self.name}; expected one of {sorted(valid)}"
                )
            setattr(self, k, v)
        return self

    def _validate(self) -> float:
        limit = self.default_time_limit if self.time_limit is None else self.time_limit
        if not isinstance(limit, int | float) or limit <= 0:
            raise PackingInputError(
                "time_limit", f"must be a number of seconds > 0 (got {limit!r})"
            )
        if not isinstance(self.seed, int):
            raise PackingInputError("seed", f"must be an integer (got {self.seed!r})")
        return float(limit)

    def pack(
        self,
        pieces: Sequence[Piece],
        container: ContainerType,
        *,
        support_ratio: float = 0.8,
    ) -> SinglePack:
        """Pack ``pieces`` into one ``container``.

        Parameters
        ----------
        pieces : sequence of Piece
        container : ContainerType
        support_ratio : float
            Minimum fraction (0..1) of a raised piece's base resting on pieces directly
            below it.
        """
        if not 0.0 <= support_ratio <= 1.0:
            raise PackingInputError("support_ratio", f"must be within 0..1 (got {support_ratio})")
        limit = self._validate()
        start = time.perf_counter()
        types = group_pieces(pieces)
        state = PackState(container, types, support_ratio)
        final = self._solve(state, Budget(limit))
        out = materialize(final)
        out.seconds = time.perf_counter() - start
        return out

    @abstractmethod
    def _solve(self, state: PackState, budget: Budget) -> PackState:
        """Fill ``state`` (or a copy of it) within ``budget`` and return the final state."""


def materialize(state: PackState) -> SinglePack:
    """Turn the blocks of a final state into pieces with positions."""
    types: list[PieceType] = state.types
    pools = [list(t.pieces) for t in types]
    out = SinglePack()
    for tidx, orient, box in state.piece_boxes():
        piece = pools[tidx].pop()
        out.placed.append(
            (
                piece,
                orient,
                (box[0], box[1], box[2]),
                (box[3] - box[0], box[4] - box[1], box[5] - box[2]),
            )
        )
    for pool in pools:
        out.leftover.extend(reversed(pool))
    return out
