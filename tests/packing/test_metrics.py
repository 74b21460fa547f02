"""Container metrics against values computed by hand."""

from numpy.testing import assert_allclose

from packing.metrics import Metric, container_metrics, union_area
from packing.model import ContainerType, Piece, Placement, Rules
from packing.result import ContainerLoad


def _load():
    # inner 1000 × 500 × 400 mm (L, H, W), outer 1200 × 600 × 500, payload 50 kg
    c = ContainerType("c", "C", (1000, 500, 400), (1200, 600, 500), 50.0, "FRONT")
    a = Piece("a", 0, (400, 200, 400), 10.0)  # on the floor at the back
    b = Piece("b", 0, (200, 100, 300), 30.0, Rules(orientations=(0, 1)))  # turned, on the floor
    p = [
        Placement(a, 0, (0, 0, 0), 0, (400, 200, 400), 1),
        Placement(b, 0, (400, 0, 0), 1, (300, 100, 200), 2),
    ]
    return ContainerLoad(0, c, p)


def test_hand_computed_metrics():
    m = container_metrics(_load())
    cargo = 400 * 200 * 400 + 200 * 100 * 300  # 38,000,000 mm³
    inner = 1000 * 500 * 400  # 200,000,000 mm³
    assert_allclose(m.volume_utilization, cargo / inner, rtol=1e-6)  # 0.19
    assert_allclose(m.loss_ratio, 1 - inner / (1200 * 600 * 500), rtol=1e-6)  # 0.4444
    assert_allclose(m.weight_utilization, 40 / 50, rtol=1e-6)
    assert m.item_count == 2
    assert m.volume_m3 == Metric(used=0.038, max=0.2, percent=19.0)
    assert m.floor_length_cm == Metric(70.0, 100.0, 70.0)
    assert m.width_cm == Metric(40.0, 40.0, 100.0)
    assert m.height_cm == Metric(20.0, 50.0, 40.0)
    # footprints 400×400 + 300×200 = 0.22 m² of a 0.4 m² floor
    assert m.floor_area_m2 == Metric(0.22, 0.4, 55.0)
    assert m.mass_kg == Metric(40.0, 50.0, 80.0)
    # centre of gravity: (10·(200,100,200) + 30·(550,50,100)) / 40
    assert_allclose(m.center_of_gravity_mm, [462.5, 62.5, 125.0], atol=1e-3)
    # offset from the floor centre (500, 200): hypot(37.5, 75) / (hypot(1000, 400) / 2)
    assert_allclose(m.cog_offset, 83.852549 / 538.516481, rtol=1e-5)
    assert_allclose(m.cog_height_ratio, 62.5 / 500, rtol=1e-6)
    assert m.rotations_used == 1


def test_union_area_counts_overlap_once():
    assert union_area([(0, 0, 10, 10), (5, 5, 15, 15)]) == 175
    assert union_area([]) == 0
    # exact where a cell's area is past int64 (3e9 × 4e9 mm² = 1.2e19)
    big = 3 * 10**9
    assert union_area([(0, 0, big, 4 * 10**9), (0, 0, 10, 10)]) == big * 4 * 10**9


def test_empty_container_metrics():
    c = ContainerType("c", "C", (100, 100, 100))
    m = container_metrics(ContainerLoad(0, c, []))
    assert (
        m.volume_utilization == 0
        and m.item_count == 0
        and m.center_of_gravity_mm is None
        and m.weight_utilization is None
    )
