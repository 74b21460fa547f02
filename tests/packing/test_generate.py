"""Seeded random parcel orders (packing/generate.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from data import load_table
from packing.errors import PackingInputError
from packing.generate import (
    HETEROGENEOUS_CARGO,
    HETEROGENEOUS_RANGES,
    MAX_PARCEL_KG,
    MIN_PARCEL_KG,
    br_instance,
    br_set,
    br_set_number,
    heterogeneous_instance,
    random_order,
)
from packing.geometry import ALL_ORIENTATIONS, FLOOR_ORIENTATIONS
from packing.instances import SHIPPED_BR, load_shipped, read_br

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench"


def _signature(order):
    return [(p.item_id, p.instance, p.dims, p.weight_kg, p.rules) for p in order]


@pytest.mark.parametrize("parcels", [1, 7, 60])
def test_an_order_has_exactly_the_parcels_asked_for(parcels):
    order = random_order(parcels, seed=5)
    assert len(order) == parcels
    assert len({p.key for p in order}) == parcels


def test_equal_seeds_give_equal_orders_and_other_seeds_differ():
    assert _signature(random_order(50, seed=11)) == _signature(random_order(50, seed=11))
    assert _signature(random_order(50, seed=11)) != _signature(random_order(50, seed=12))


def test_a_generator_is_drawn_from_so_successive_orders_differ():
    rng = np.random.default_rng(3)
    first, second = random_order(30, seed=rng), random_order(30, seed=rng)
    assert _signature(first) != _signature(second)
    again = np.random.default_rng(3)
    assert _signature(random_order(30, seed=again)) == _signature(first)


def test_parcels_are_catalog_cartons_with_plausible_masses():
    cartons = load_table("cartons")
    sizes = {
        (r.slug, (r.length_mm, r.height_mm, r.width_mm)) for r in cartons.itertuples(index=False)
    }
    order = random_order(400, seed=1)
    assert {(p.name, p.dims) for p in order} <= sizes
    weights = np.array([p.weight_kg for p in order])
    assert weights.min() >= MIN_PARCEL_KG and weights.max() <= MAX_PARCEL_KG
    # density follows the volume: a 600 × 400 × 400 carton outweighs a flat mailer on average
    big = [p.weight_kg for p in order if p.name == "iso-600x400x400"]
    flat = [p.weight_kg for p in order if p.name == "mailer-310x230x50"]
    assert big and flat and np.mean(big) > 5 * np.mean(flat)
    # several sizes and lines: an order is a mix, not one carton repeated
    assert len({p.name for p in order}) >= 8 and len({p.item_id for p in order}) > 50


def test_rules_follow_the_shares():
    upright = random_order(80, seed=2, upright_share=1.0, no_stack_share=0.0)
    assert all(p.rules.orientations == FLOOR_ORIENTATIONS for p in upright)
    assert all(p.rules.stack_on_top for p in upright)
    free = random_order(80, seed=2, upright_share=0.0, no_stack_share=1.0)
    assert all(p.rules.orientations == ALL_ORIENTATIONS for p in free)
    assert not any(p.rules.stack_on_top for p in free)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"parcels": 0}, "parcels"),
        ({"parcels": 2.5}, "parcels"),
        ({"upright_share": 1.5}, "upright_share"),
        ({"no_stack_share": -0.1}, "no_stack_share"),
        ({"parcels": True}, "parcels"),
        ({"upright_share": "0.5"}, "upright_share"),
        ({"no_stack_share": None}, "no_stack_share"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": float("nan")}, "seed"),
        ({"seed": "5"}, "seed"),
        ({"seed": None}, "seed"),
    ],
)
def test_bad_arguments_are_named(kwargs, field):
    with pytest.raises(PackingInputError) as info:
        random_order(**kwargs)
    assert info.value.field == field


@pytest.mark.parametrize("types", [1, 10, 80])
def test_heterogeneous_instances_hold_about_one_container_of_that_many_types(types):
    inst = heterogeneous_instance(types, seed=4)
    assert inst == heterogeneous_instance(types, seed=4)  # seeded
    assert inst != heterogeneous_instance(types, seed=5)
    assert len(inst.box_types) == types and inst.name == f"hetero{types}-4"
    for bt in inst.box_types:
        for d, (lo, hi) in zip(bt.dims, HETEROGENEOUS_RANGES, strict=True):
            assert lo <= d <= hi
        assert bt.quantity >= 1 and bt.vertical_ok[1]
    capacity = inst.container_type().inner_volume
    cargo = sum(p.volume for p in inst.pieces())
    volumes = [bt.dims[0] * bt.dims[1] * bt.dims[2] for bt in inst.box_types]
    shares = [max(1, int(capacity / types / v)) for v in volumes]
    # each type has at least its whole share of the volume; boxes are added one at a time
    # until the cargo reaches the target, so it ends less than one box over it
    assert all(bt.quantity >= q for bt, q in zip(inst.box_types, shares, strict=True))
    assert HETEROGENEOUS_CARGO * capacity <= cargo
    if sum(q * v for q, v in zip(shares, volumes, strict=True)) < HETEROGENEOUS_CARGO * capacity:
        assert cargo < HETEROGENEOUS_CARGO * capacity + max(volumes)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"types": 0}, "types"), ({"types": True}, "types"), ({"types": 5, "seed": -1}, "seed")],
)
def test_heterogeneous_instance_names_the_bad_argument(kwargs, field):
    with pytest.raises(PackingInputError) as info:
        heterogeneous_instance(**kwargs)
    assert info.value.field == field


@pytest.mark.parametrize("name", SHIPPED_BR)
def test_the_br_generator_makes_the_shipped_problems(name):
    shipped = load_shipped(name)
    made = br_set(name)
    assert len(made) == 100 and shipped
    assert made[: len(shipped)] == shipped  # names, container, sides, flags, quantities


@pytest.mark.skipif(not BENCH.exists(), reason="shared benchmark folder not beside the repository")
@pytest.mark.parametrize("number", range(8))
def test_the_br_generator_makes_every_problem_of_the_published_files(number):
    assert br_set(f"BR{number}") == read_br(BENCH / "br" / f"BR{number}.txt")


@pytest.mark.parametrize(("number", "types"), [(8, 30), (12, 70), (15, 100), (18, 130)])
def test_the_strongly_heterogeneous_sets_follow_the_procedure(number, types):
    problems = br_set(f"BR{number}")
    assert [p.name for p in problems] == [f"BR{number}-{k}" for k in range(1, 101)]
    for p in problems[:10]:
        assert p.container == (587, 220, 233) and len(p.box_types) == types
        assert p == br_instance(number, int(p.name.split("-")[1]))
        for bt in p.box_types:
            length, height, width = bt.dims
            # sides sorted longest first on the file's l, w, h; each within its range
            assert length >= width >= height
            assert 30 <= length <= 120 and 25 <= width <= 100 and 20 <= height <= 80
            low = min(bt.dims)
            assert bt.vertical_ok == tuple(d < 2 * low for d in bt.dims)
            assert bt.quantity >= 1
        # boxes were added while the next fitted the container's volume: below 130 types
        # the first box of every type fits, so the cargo stays within the container
        if types < 130:
            assert p.cargo_volume <= p.container_volume
    # the published averages of these sets (boxes a problem, shared/bench/br/README.md)
    boxes = sum(sum(bt.quantity for bt in p.box_types) for p in problems) / 100
    assert round(boxes, 1) == {8: 130.7, 12: 130.3, 15: 129.9, 18: 132.7}[number]


def test_br_instance_takes_numpy_integers():
    assert br_instance(np.int64(12), np.int32(7)) == br_instance(12, 7)


def test_br_set_names_are_checked():
    assert br_set_number("BR0") == 0 and br_set_number("BR18") == 18
    for bad in ("BR19", "BR", "BR01", "br8", "BR-1", "XY8", "BR8.txt", "BR²", "BR٣", "BR８"):
        assert br_set_number(bad) is None
        with pytest.raises(PackingInputError) as info:
            br_set(bad)
        assert info.value.field == "name"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((19, 1), "set_number"),
        ((-1, 1), "set_number"),
        ((True, 1), "set_number"),
        ((8, 0), "problem"),
        ((8, 101), "problem"),
        ((8, 1.0), "problem"),
    ],
)
def test_br_instance_names_the_bad_argument(args, field):
    with pytest.raises(PackingInputError) as info:
        br_instance(*args)
    assert info.value.field == field
