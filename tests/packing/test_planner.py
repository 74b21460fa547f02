from packing import ContainerType, Rules, alternatives, make_pieces, plan_containers, validate_plan
from packing.result import PackResult

SMALL = ContainerType("small", "Small", (300, 300, 300), (400, 400, 400), None, "TOP")
LARGE = ContainerType("large", "Large", (600, 300, 300), (700, 400, 400), None, "TOP")


def test_one_container_of_the_smallest_type_that_holds_everything():
    r = plan_containers(make_pieces("a", (100, 100, 100), 20), [LARGE, SMALL], time_limit=2)
    validate_plan(r)
    assert [c.container.slug for c in r.containers] == ["small"]


def test_fewest_containers_before_outer_volume():
    # 40 cubes: one large (54 cells) beats two small (27 cells each)
    r = plan_containers(make_pieces("a", (100, 100, 100), 40), [SMALL, LARGE], time_limit=2)
    validate_plan(r)
    assert [c.container.slug for c in r.containers] == ["large"]


def test_container_offset_and_instance_order():
    r = plan_containers(
        make_pieces("a", (300, 300, 300), 3, rules=Rules(manual_order=True)),
        [SMALL],
        container_offset=4,
    )
    validate_plan(r)
    assert [c.index for c in r.containers] == [4, 5, 6]
    assert [p.piece.instance for p in r.placements] == [0, 1, 2]


def test_large_identical_loads_repeat_the_packing():
    r = plan_containers(make_pieces("a", (100, 100, 100), 2700), [SMALL], time_limit=5)
    validate_plan(r)
    assert len(r.containers) == 100 and not r.unplaced


def test_alternatives_per_type():
    alts = alternatives(make_pieces("a", (100, 100, 100), 40), [SMALL, LARGE], time_limit=2)
    assert [(a.container.slug, a.container.title, a.boxes) for a in alts] == [
        ("large", "Large", 1),
        ("small", "Small", 2),
    ]


def test_frames_for_notebooks():
    r = plan_containers(make_pieces("a", (100, 100, 100), 5, weight_kg=1.5), [SMALL])
    assert isinstance(r, PackResult)
    df = r.placements_frame()
    assert len(df) == 5 and df["weight_kg"].sum() == 7.5
    assert list(r.containers_frame()["slug"]) == ["small"]
    assert r.unplaced_frame().empty


def test_floor_only_pieces_get_the_floor_first():
    # 6 pieces allowing nothing on top, 4 that must stand on the floor: one 3 × 2 floor
    # holds the floor-only ones with no-top ones on them, plus the rest beside them
    no_top = make_pieces("a", (300, 150, 200), 6, rules=Rules(stack_on_top=False))
    floor = make_pieces("b", (300, 150, 200), 4, rules=Rules(stack_under=False), item_order=1)
    box = ContainerType("box", "Box", (600, 300, 600), (700, 400, 700))
    big = ContainerType("big", "Big", (1200, 300, 600), (1300, 400, 700))
    r = plan_containers(no_top + floor, [big, box], time_limit=2)
    validate_plan(r)
    assert [c.container.slug for c in r.containers] == ["box"] and not r.unplaced
