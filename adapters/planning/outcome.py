"""Typed outcome of the planning use case, before it is mapped to the contract.

The use case (:mod:`adapters.planning.compute`) fills these from the libraries' own typed
results; :mod:`adapters.planning.mapping` alone turns them into the contract's schemas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from packing.model import Piece
from packing.result import Alternative, PackResult
from packing.vehicles import VehiclePlan
from thermal.eligibility import ProfileChoice
from thermal.thermal_filter import ThermalAssessment


@dataclass(frozen=True, slots=True)
class UnplacedPiece:
    """A piece outside the plan, with the sentence a dispatcher reads.

    Attributes
    ----------
    item_id : str
        Cargo item id.
    instance : int
        Index of the piece within its item.
    reason : str
        Why it is not placed.
    """

    item_id: str
    instance: int
    reason: str


@dataclass(slots=True, repr=False)
class ModeOutcome:
    """Everything one temperature mode contributes to the plan.

    Attributes
    ----------
    mode : str
        Temperature mode code.
    requested : int
        Included pieces of the mode.
    transit_hours : float
        Transit time used [h] (0 when none could be resolved).
    pieces : list of Piece
        The mode's pieces as the packing library takes them.
    error : str or None
        Error code of the mode (NO_CARGO, PACKING_FAILED, ...); None when feasible.
    message : str or None
        A sentence on the outcome.
    assessment : ThermalAssessment or None
        The thermal check (THERMO modes with a thermal model).
    unchecked_candidates : list of str or None
        THERMO without a thermal check (NONE): every candidate is eligible unchecked.
    packed : PackResult or None
        The packing, when the mode got that far.
    profiles : mapping of str to ProfileChoice or None
        Thermal profile used by each container slug of the packing.
    required_load_dh : float
        Required thermal load the profiles were chosen for [°C·h].
    unplaced : list of UnplacedPiece
        Pieces outside the plan with their reasons (the packing's, or the mode's error).
    vehicles : VehiclePlan or None
        PALLET_LOAD: the pallets on vehicles.
    """

    mode: str
    requested: int
    transit_hours: float
    pieces: list[Piece] = field(default_factory=list)
    error: str | None = None
    message: str | None = None
    assessment: ThermalAssessment | None = None
    unchecked_candidates: list[str] | None = None
    packed: PackResult | None = None
    profiles: Mapping[str, ProfileChoice | None] = field(default_factory=dict)
    required_load_dh: float = 0.0
    unplaced: list[UnplacedPiece] = field(default_factory=list)
    vehicles: VehiclePlan | None = None

    @property
    def placed(self) -> int:
        """Pieces placed in a container."""
        return 0 if self.packed is None else len(self.packed.placements)

    @property
    def feasible(self) -> bool:
        """No error and every requested piece placed."""
        return self.error is None and self.requested > 0 and self.placed == self.requested

    @property
    def alternatives(self) -> list[Alternative]:
        """Single-type alternatives of the mode's packing."""
        return [] if self.packed is None else self.packed.alternatives

    def __repr__(self) -> str:
        containers = 0 if self.packed is None else len(self.packed.containers)
        return (
            f"ModeOutcome(mode={self.mode!r}, placed={self.placed}/{self.requested}, "
            f"containers={containers}, feasible={self.feasible}, error={self.error!r})"
        )


@dataclass(frozen=True, slots=True)
class AlternativeTotal:
    """One container type able to carry every packed mode alone.

    Attributes
    ----------
    slug, title : str
        The container type.
    boxes : int
        Containers of that type over all modes (modes never share a container).
    cooling_volume_l : float
        ``boxes`` × usable volume with coolant [L].
    outer_volume_l : float
        ``boxes`` × outer volume [L].
    """

    slug: str
    title: str
    boxes: int
    cooling_volume_l: float
    outer_volume_l: float


@dataclass(frozen=True, slots=True, repr=False)
class PlanOutcome:
    """The whole plan: one outcome per temperature mode, in first-appearance order.

    Attributes
    ----------
    modes : sequence of ModeOutcome
        Per temperature mode.
    total_requested : int
        Included pieces of the request.
    alternatives : sequence of AlternativeTotal or None
        THERMO and PLAIN: single-type alternatives; None in the pallet scenarios or when
        nothing was packed.
    with_vehicles : bool
        PALLET_LOAD: the result lists vehicles.
    """

    modes: Sequence[ModeOutcome]
    total_requested: int
    alternatives: Sequence[AlternativeTotal] | None = None
    with_vehicles: bool = False

    def __repr__(self) -> str:
        modes = ", ".join(
            f"{m.mode}: {m.placed}/{m.requested}{'' if m.error is None else ' ' + m.error}"
            for m in self.modes
        )
        return f"PlanOutcome(modes=[{modes}], total_requested={self.total_requested})"

    def _repr_html_(self) -> str:
        """In a notebook: the plan's tables and figures, mapped to the contract first
        (:func:`adapters.report.show`)."""
        from adapters.report.notebook import show

        return show(self)._repr_html_()
