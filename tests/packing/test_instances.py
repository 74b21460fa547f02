from pathlib import Path

import pytest

from packing.errors import PackingInputError
from packing.instances import read_br, read_mpv, read_mpv_bounds

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench"


def test_br_parser_reads_the_documented_example(tmp_path):
    f = tmp_path / "BRX.txt"
    f.write_text(
        " 1\n 1 2502505\n 587 233 220\n 3\n 1 108 0 76 0 30 1 40\n 2 110 0 43 1 25 1 33\n 3 92 1 81 1 55 1 39\n"
    )
    (inst,) = read_br(f)
    assert inst.container == (587, 220, 233)  # (L, H, W): file gives L W H
    t1, t2, _ = inst.box_types
    assert t1.dims == (108, 30, 76) and t1.vertical_ok == (False, True, False) and t1.quantity == 40
    assert t2.vertical_ok == (False, True, True)
    pieces = inst.pieces()
    assert len(pieces) == 112
    assert set(pieces[0].rules.orientations) == {0, 1}  # type 1: only its 30 cm side vertical
    assert set(pieces[-1].rules.orientations) == set(range(6))


def test_br_parser_reports_truncated_files(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text(" 1\n 1 2502505\n 587 233\n")
    with pytest.raises(PackingInputError, match="ends early"):
        read_br(f)


@pytest.mark.skipif(not BENCH.exists(), reason="shared benchmark folder not beside the repository")
def test_real_files_parse():
    problems = read_br(BENCH / "br" / "BR7.txt")
    assert len(problems) == 100 and all(len(p.box_types) == 20 for p in problems)
    inst = read_mpv(BENCH / "mpv" / "class1_n050" / "01.txt")
    assert inst.container == (100, 100, 100) and len(inst.box_types) == 50
    assert inst.box_types[0].dims == (39, 85, 72)
    assert read_mpv_bounds(BENCH / "mpv" / "bounds_mpv.csv")[(1, 50, 1)] == (13, 15)
