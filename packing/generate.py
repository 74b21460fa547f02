"""Seeded random orders of realistic parcels, and heterogeneous container-loading instances,
for comparisons beyond the fixed benchmarks.

An order is a list of order lines; each line is one carton size from the shipped carton
table (``data/cartons.csv``: ISO 3394 modular sizes, common US stock sizes, shoe boxes,
flat mailers, each with its share of parcels) and a quantity. Masses follow the parcel's
volume through a density drawn per line from a log-normal distribution (median
:data:`DENSITY_MEDIAN_KG_M3`), held to :data:`MAX_PARCEL_KG`, the usual limit of parcel
carriers. A share of lines must stay upright ("this side up") or must not be stacked on.

Every random choice comes from one :class:`numpy.random.Generator`, so a seed gives the
same order on any machine.

>>> from packing.generate import random_order
>>> order = random_order(40, seed=3)
>>> len(order)
40

:func:`heterogeneous_instance` draws container-loading instances in the manner of the
Bischoff & Ratcliff sets with any number of box types, to see how a strategy copes as the
cargo grows more varied (the shipped sets stop at 20 types).

:func:`br_instance` and :func:`br_set` make the Bischoff & Ratcliff problems themselves with
their own generator and seeds: every problem of BR0 … BR18 (1 to 130 box types), the
strongly heterogeneous BR8 … BR15 included, without their files. The 800 problems of BR0 …
BR7 come out number for number as the published files hold them (a test checks).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from data import load_table
from packing.errors import PackingInputError, count_value, ratio_value, seed_value
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.instances import BoxType, Instance
from packing.model import Piece, Rules, make_pieces

#: Median bulk density of a parcel [kg/m³]. Carriers' volumetric divisors of 5000 and
#: 6000 cm³/kg (200 and 167 kg/m³) are set just above what a typical parcel weighs, so
#: most parcels are charged by volume; 150 kg/m³ sits below both.
DENSITY_MEDIAN_KG_M3 = 150.0
#: Spread of the log-normal density (standard deviation of its logarithm).
DENSITY_SIGMA = 0.6
#: Heaviest parcel [kg] (the common 31.5 kg limit of parcel carriers).
MAX_PARCEL_KG = 31.5
#: Lightest parcel [kg] (an empty carton weighs about this much).
MIN_PARCEL_KG = 0.1
#: Share of order lines marked "this side up" (only the carton's height vertical).
UPRIGHT_SHARE = 0.3
#: Share of order lines on which nothing may be stacked.
NO_STACK_SHARE = 0.05
#: Mean quantity of an order line (geometric: 1, 2, … with this mean).
MEAN_LINE_QUANTITY = 3.0


@cache
def _cartons() -> tuple[tuple[str, tuple[int, int, int]], ...]:
    table = load_table("cartons")
    dims = table[["length_mm", "height_mm", "width_mm"]].to_numpy(dtype=np.int64)
    return tuple(
        (str(slug), (int(d[0]), int(d[1]), int(d[2])))
        for slug, d in zip(table["slug"], dims, strict=True)
    )


@cache
def _shares() -> np.ndarray:
    share: np.ndarray = load_table("cartons")["share"].to_numpy(dtype=float)
    out: np.ndarray = share / share.sum()
    return out


def random_order(
    parcels: int = 50,
    *,
    seed: int | np.random.Generator = 0,
    upright_share: float = UPRIGHT_SHARE,
    no_stack_share: float = NO_STACK_SHARE,
) -> list[Piece]:
    """A random order of ``parcels`` pieces in common carton sizes.

    Parameters
    ----------
    parcels : int
        Pieces in the order (>= 1).
    seed : int or numpy.random.Generator
        Seed of a new generator, or a generator to draw from (several orders from one
        stream).
    upright_share : float
        Share (0..1) of order lines that must keep their height vertical.
    no_stack_share : float
        Share (0..1) of order lines on which nothing may be stacked.

    Returns
    -------
    list of Piece
        Lengths [mm] and masses [kg]; item ids ``c01``, ``c02``, … in line order, each
        named after its carton size.

    Raises
    ------
    PackingInputError
        ``parcels`` below 1, or a share outside 0..1 (``field`` names the argument).
    """
    if isinstance(parcels, bool) or not isinstance(parcels, int | np.integer) or parcels < 1:
        raise PackingInputError("parcels", f"must be an integer >= 1 (got {parcels!r})")
    for name, value in (("upright_share", upright_share), ("no_stack_share", no_stack_share)):
        ratio_value(name, value)
    seed_value("seed", seed)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    cartons = _cartons()
    shares = _shares()
    out: list[Piece] = []
    line = 0
    while len(out) < parcels:
        line += 1
        slug, dims = cartons[int(rng.choice(len(cartons), p=shares))]
        quantity = int(rng.geometric(1.0 / MEAN_LINE_QUANTITY))  # 1, 2, … with that mean
        quantity = min(quantity, parcels - len(out))
        density = DENSITY_MEDIAN_KG_M3 * float(np.exp(rng.normal(0.0, DENSITY_SIGMA)))
        volume_m3 = dims[0] * dims[1] * dims[2] / 1e9
        weight = round(min(MAX_PARCEL_KG, max(MIN_PARCEL_KG, density * volume_m3)), 2)
        upright = bool(rng.random() < upright_share)
        no_stack = bool(rng.random() < no_stack_share)
        rules = Rules(
            orientations=FLOOR_ORIENTATIONS if upright else ALL_ORIENTATIONS,
            stack_on_top=not no_stack,
        )
        out += make_pieces(
            f"c{line:02d}",
            dims,
            quantity,
            weight_kg=weight,
            rules=rules,
            item_order=line,
            name=slug,
        )
    return out


#: Container of :func:`heterogeneous_instance`: a 20 ft container's inside as the Bischoff &
#: Ratcliff sets give it, (length, height, width) [cm].
HETEROGENEOUS_CONTAINER = (587, 220, 233)
#: Ranges [cm] of a box's length, height and width in :func:`heterogeneous_instance` (those
#: of Bischoff & Ratcliff, 1995).
HETEROGENEOUS_RANGES = ((30, 120), (20, 80), (25, 100))
#: Cargo volume of :func:`heterogeneous_instance` as a share of the container's.
HETEROGENEOUS_CARGO = 0.99


def heterogeneous_instance(types: int, *, seed: int = 0) -> Instance:
    """A container-loading instance of ``types`` box types, drawn in the manner of the
    Bischoff & Ratcliff sets (not their generator: the sets themselves are in
    ``shared/bench/br``).

    Each type's length, height and width [cm] are uniform in :data:`HETEROGENEOUS_RANGES`;
    its height may always stand vertical, each other side with probability 1/2. The
    quantities share the container's volume evenly among the types (at least one box
    each, whole boxes), then boxes of types drawn at random are added until the cargo
    reaches :data:`HETEROGENEOUS_CARGO` of the container (BR1–BR7 hold 0.98–1.0): the more
    types, the fewer boxes of each.

    Parameters
    ----------
    types : int
        Box types (>= 1).
    seed : int
        Seed of the generator (>= 0): equal seeds give equal instances on any machine.

    Returns
    -------
    Instance
        Named ``hetero{types}-{seed}``, lengths in centimetres as in the BR files.

    Raises
    ------
    PackingInputError
        ``types`` below 1 or ``seed`` below 0 (``field`` names the argument).
    """
    if isinstance(types, bool) or not isinstance(types, int | np.integer) or types < 1:
        raise PackingInputError("types", f"must be an integer >= 1 (got {types!r})")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise PackingInputError("seed", f"must be an integer >= 0 (got {seed!r})")
    rng = np.random.default_rng(seed)
    length, height, width = HETEROGENEOUS_CONTAINER
    capacity = length * height * width
    drawn = []
    lo_hi = HETEROGENEOUS_RANGES
    for _ in range(types):
        dims = (
            int(rng.integers(lo_hi[0][0], lo_hi[0][1] + 1)),
            int(rng.integers(lo_hi[1][0], lo_hi[1][1] + 1)),
            int(rng.integers(lo_hi[2][0], lo_hi[2][1] + 1)),
        )
        drawn.append((dims, (bool(rng.random() < 0.5), True, bool(rng.random() < 0.5))))
    volumes = [d[0] * d[1] * d[2] for d, _ in drawn]
    quantities = [max(1, int(capacity / types / v)) for v in volumes]
    # the shares' remainders: one more box of a type drawn at random while the cargo is
    # short of HETEROGENEOUS_CARGO of the container
    total = sum(q * v for q, v in zip(quantities, volumes, strict=True))
    while total < HETEROGENEOUS_CARGO * capacity:
        i = int(rng.integers(types))
        quantities[i] += 1
        total += volumes[i]
    boxes = tuple(
        BoxType(number, dims, vertical, q)
        for number, ((dims, vertical), q) in enumerate(zip(drawn, quantities, strict=True), 1)
    )
    return Instance(f"hetero{types}-{seed}", HETEROGENEOUS_CONTAINER, boxes)


#: Box types of each Bischoff & Ratcliff set by its number: BR1–BR7 (Bischoff & Ratcliff,
#: 1995), BR0 and BR8–BR15 (Davies & Bischoff, 1999), BR16–BR18 (Liu, Smith-Miles, Wauters
#: & Costa, 2025), all made by the same generator (:func:`br_instance`).
BR_SET_TYPES: tuple[int, ...] = (1, 3, 5, 8, 10, 12, 15, 20, *range(30, 140, 10))
#: Problems of each set.
BR_PROBLEMS = 100
#: Seed of problem 1; problem ``p`` has ``BR_SEED + BR_SEED_STEP × (p − 1)`` in every set.
BR_SEED = 2_502_505
BR_SEED_STEP = 100
#: The container (length, width, height) [cm] of every problem, as the files give it.
BR_CONTAINER = (587, 233, 220)
#: Ranges [cm] of the three sides drawn for a box (then sorted longest first).
BR_SIDE_RANGES = ((30, 120), (25, 100), (20, 80))
#: A side may stand vertical when it is below this many times the box's shortest side.
BR_STABILITY = 2
#: Draws of the random number generator discarded before the first box.
_BR_DISCARDED = 10
#: Park & Miller's "minimal standard" generator, which the sets were drawn with.
_PM_MODULUS = 2**31 - 1
_PM_MULTIPLIER = 16_807


def _br_box_types(types: int, seed: int) -> tuple[BoxType, ...]:
    """Bischoff & Ratcliff's procedure (1995, section 5): each box type's sides drawn
    uniformly from :data:`BR_SIDE_RANGES` and sorted longest first, a side allowed vertical
    by :data:`BR_STABILITY`; one box of each type, then one more of a type drawn at random
    until the next would take the cargo past the container's volume."""
    x = seed

    def draw() -> float:
        nonlocal x
        x = _PM_MULTIPLIER * x % _PM_MODULUS
        return x / _PM_MODULUS

    for _ in range(_BR_DISCARDED):
        draw()
    sides: list[tuple[int, int, int]] = []
    for _ in range(types):
        drawn = [lo + int(draw() * (hi - lo + 1)) for lo, hi in BR_SIDE_RANGES]
        longest, middle, shortest = sorted(drawn, reverse=True)
        sides.append((longest, middle, shortest))
    volumes = [a * b * c for a, b, c in sides]
    quantities = [1] * types
    capacity = BR_CONTAINER[0] * BR_CONTAINER[1] * BR_CONTAINER[2]
    cargo = sum(volumes)
    while True:
        k = int(draw() * types)
        if cargo + volumes[k] > capacity:
            break
        quantities[k] += 1
        cargo += volumes[k]
    out = []
    for i, ((length, width, height), q) in enumerate(zip(sides, quantities, strict=True)):
        low = min(length, width, height)
        ok = tuple(side < BR_STABILITY * low for side in (length, height, width))
        # (L, H, W) on the project's axes, as read_br turns a file's "l w h"
        out.append(BoxType(i + 1, (length, height, width), (ok[0], ok[1], ok[2]), q))
    return tuple(out)


def br_instance(set_number: int, problem: int) -> Instance:
    """Problem ``problem`` of the Bischoff & Ratcliff set ``BR{set_number}``, made by the
    sets' own generator (:data:`BR_SET_TYPES` box types, the problem's seed).

    Parameters
    ----------
    set_number : int
        0 … 18 (BR0 … BR18).
    problem : int
        1 … :data:`BR_PROBLEMS`.

    Returns
    -------
    Instance
        Named ``BR{set_number}-{problem}``, as :func:`packing.instances.read_br` names the
        file's problem; the same box types, flags and quantities.

    Raises
    ------
    PackingInputError
        A set or problem out of range (``field`` names the argument).
    """
    last = len(BR_SET_TYPES) - 1
    number = count_value("set_number", set_number, 0)
    if number > last:
        raise PackingInputError("set_number", f"must be at most {last} (got {set_number!r})")
    p = count_value("problem", problem, 1)
    if p > BR_PROBLEMS:
        raise PackingInputError("problem", f"must be at most {BR_PROBLEMS} (got {problem!r})")
    length, width, height = BR_CONTAINER
    seed = BR_SEED + BR_SEED_STEP * (p - 1)
    return Instance(
        f"BR{number}-{p}", (length, height, width), _br_box_types(BR_SET_TYPES[number], seed)
    )


def br_set(name: str) -> list[Instance]:
    """Every problem of a Bischoff & Ratcliff set by name (``"BR0"`` … ``"BR18"``), made
    by :func:`br_instance`.

    Raises
    ------
    PackingInputError
        ``name`` is not such a set (``field`` is ``name``).
    """
    number = br_set_number(name)
    if number is None:
        raise PackingInputError(
            "name",
            f"must name a Bischoff & Ratcliff set BR0..BR{len(BR_SET_TYPES) - 1} (got {name!r})",
        )
    return [br_instance(number, p) for p in range(1, BR_PROBLEMS + 1)]


def br_set_number(name: str) -> int | None:
    """The number of the set ``name`` (``"BR8"`` → 8), None when it names none."""
    digits = name[2:] if isinstance(name, str) and name.startswith("BR") else ""
    # (ASCII digits only: str.isdigit also takes "²" and "٣")
    if not (digits.isascii() and digits.isdigit()) or (len(digits) > 1 and digits[0] == "0"):
        return None
    number = int(digits)
    return number if number < len(BR_SET_TYPES) else None
