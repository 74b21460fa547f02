"""Seeded random orders of realistic parcels, for comparisons beyond the fixed benchmarks.

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
"""

from __future__ import annotations

from functools import cache

import numpy as np

from data import load_table
from packing.errors import PackingInputError
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
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
    if not isinstance(parcels, int | np.integer) or parcels < 1:
        raise PackingInputError("parcels", f"must be an integer >= 1 (got {parcels!r})")
    for name, value in (("upright_share", upright_share), ("no_stack_share", no_stack_share)):
        if not 0.0 <= value <= 1.0:
            raise PackingInputError(name, f"must be within 0..1 (got {value})")
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
