"""packing.exact: exact answers to "do these boxes fit into k bins?" (OR-Tools CP-SAT)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing.bench import mpv_pieces
from packing.errors import PackingInputError
from packing.exact import fits_in_bins
from packing.instances import BoxType, Instance
from packing.planner import plan_containers

ROOT = Path(__file__).resolve().parents[2]


def assert_packing(bin_dims, boxes, answer):
    """Every box inside one of ``answer.bins`` bins, no two overlapping."""
    assert len(answer.placements) == len(boxes)
    for (k, x, y, z), (w, h, d) in zip(answer.placements, boxes, strict=True):
        assert 0 <= k < answer.bins
        assert x >= 0 and x + w <= bin_dims[0]
        assert y >= 0 and y + h <= bin_dims[1]
        assert z >= 0 and z + d <= bin_dims[2]
    for (p, a), (q, b) in itertools.combinations(zip(answer.placements, boxes, strict=True), 2):
        if p[0] != q[0]:
            continue
        apart = any(p[1 + i] + a[i] <= q[1 + i] or q[1 + i] + b[i] <= p[1 + i] for i in range(3))
        assert apart, (p, a, q, b)


def test_eight_half_cubes_fill_one_bin_and_a_ninth_needs_a_second():
    bin_dims = (100, 100, 100)
    eight = [(50, 50, 50)] * 8
    one = fits_in_bins(bin_dims, eight, 1, time_limit=30)
    assert one.answer == "FEASIBLE"
    assert_packing(bin_dims, eight, one)
    nine = [*eight, (50, 50, 50)]
    assert fits_in_bins(bin_dims, nine, 1, time_limit=30).answer == "INFEASIBLE"
    two = fits_in_bins(bin_dims, nine, 2, time_limit=30)
    assert two.answer == "FEASIBLE"
    assert_packing(bin_dims, nine, two)


def test_boxes_over_half_the_bin_each_way_need_a_bin_each():
    boxes = [(51 + i, 60, 70 - i) for i in range(6)]
    assert fits_in_bins((100, 100, 100), boxes, 5, time_limit=30).answer == "INFEASIBLE"
    six = fits_in_bins((100, 100, 100), boxes, 6, time_limit=30)
    assert six.answer == "FEASIBLE"
    assert sorted(p[0] for p in six.placements) == list(range(6))


def test_orientation_is_kept():
    # two 100 × 50 × 10 slabs fit one bin side by side along Y, never turned
    bin_dims = (100, 100, 10)
    assert fits_in_bins(bin_dims, [(100, 50, 10)] * 2, 1, time_limit=30).answer == "FEASIBLE"
    # 60 × 100 × 10 and 100 × 60 × 10 would fit turned; as given they cross
    assert (
        fits_in_bins(bin_dims, [(60, 100, 10), (100, 60, 10)], 1, time_limit=30).answer
        == "INFEASIBLE"
    )


@pytest.mark.parametrize(
    ("bin_dims", "boxes", "bins", "field"),
    [
        ((100, 100, 100), [(10, 10, 10)], 0, "bins"),
        ((100, 100, 0), [(10, 10, 10)], 1, "bin_dims"),
        ((100, 100, 100), [(10, 10.5, 10)], 1, "boxes[0]"),
        ((100, 100, 100), [(10, 10, 10), (10, 101, 10)], 1, "boxes[1]"),
        ((100, 100, 100), [(10, 10, 10), 10], 1, "boxes[1]"),
    ],
)
def test_bad_questions_name_the_field(bin_dims, boxes, bins, field):
    with pytest.raises(PackingInputError) as e:
        fits_in_bins(bin_dims, boxes, bins)
    assert e.value.field == field


SIDES = st.integers(min_value=10, max_value=100)


@settings(max_examples=15)
@given(st.lists(st.tuples(SIDES, SIDES, SIDES), min_size=2, max_size=7))
def test_never_calls_a_count_the_planner_reaches_infeasible(boxes):
    """Soundness: a count the planner packs is never "proved" infeasible, and a packing the
    solver returns is a packing (its time limit only turns answers to "unknown")."""
    inst = Instance(
        "random",
        (100, 100, 100),
        tuple(BoxType(i, b, (True, True, True), 1) for i, b in enumerate(boxes)),
    )
    plan = plan_containers(
        mpv_pieces(inst), [inst.container_type()], support_ratio=0.0, time_limit=0.2
    )
    assert not plan.unplaced
    k = len(plan.containers)
    reached = fits_in_bins((100, 100, 100), boxes, k, time_limit=20)
    assert reached.answer != "INFEASIBLE"
    if reached.answer == "FEASIBLE":
        assert_packing((100, 100, 100), boxes, reached)
    if k > 1:
        fewer = fits_in_bins((100, 100, 100), boxes, k - 1, time_limit=20)
        if fewer.answer == "FEASIBLE":
            assert_packing((100, 100, 100), boxes, fewer)


def test_prove_mpv_script_proves_an_optimum(tmp_path):
    """scripts/prove_mpv.py on a shipped MPV instance: a proved bound, never below the
    shipped one, and the optimum when the solver finds a packing of that many bins."""
    folder = tmp_path / "class1_n050"
    folder.mkdir()
    src = ROOT / "data" / "bench"
    (folder / "01.txt").write_text((src / "mpv_class1_n050_01.txt").read_text())
    (tmp_path / "bounds_mpv.csv").write_text((src / "bounds_mpv.csv").read_text())
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "prove_mpv.py"), str(folder), "--time-limit", "5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    row = next(line for line in out.splitlines() if line.startswith("| class1_n050/01 "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "13"  # the MPV code's bound, shipped
    proved = int(cells[3].split()[0])
    assert proved >= 13
    assert cells[4] in {"FEASIBLE", "UNKNOWN"}
    assert ("(optimum)" in cells[3]) == (cells[4] == "FEASIBLE")
    assert out.splitlines()[-1].startswith(f"| all | | | {proved} ")


def test_prove_mpv_script_names_an_empty_folder(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "prove_mpv.py"), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "no MPV instance files" in out.stdout
