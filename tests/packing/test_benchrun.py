"""The benchmark tables in their quick mode, so the benchmark code never rots."""

import re
from pathlib import Path

import pytest

from packing.benchrun import STRATEGY_NAMES, main
from packing.strategies import STRATEGIES

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench"


@pytest.mark.skipif(not BENCH.exists(), reason="shared benchmark folder not beside the repository")
def test_quick_tables(capsys):
    assert main(["--quick", "--bench-dir", str(BENCH), "--time-limit", "0.5"]) == 0
    out = capsys.readouterr().out
    for name in (
        "BR1",
        "BR7",
        "mean",
        "class1_n050",
        "Heterogeneous cargo",
        "One plan of 1000 pieces",
        "| 1500 distinct |",
        "Work units per CPU second",
    ):
        assert name in out
    start = out.index("Work units per CPU second")
    br_rows = [line for line in out[:start].splitlines() if line.startswith("| BR")]
    assert len(br_rows) == 7
    # every strategy reports a utilization between 0 % and 100 %
    for row in br_rows:
        utils = [float(c.strip().rstrip("%")) for c in row.split("|")[2::3] if c.strip()]
        assert utils and all(0 < u <= 100 for u in utils)
    # MPV: bins, the shipped bound and the best bound, each bound at most the bins
    mpv = next(line for line in out.splitlines() if line.startswith("| class1_n050"))
    cells = [c.strip() for c in mpv.split("|")[1:-1]]
    bins, shipped, best = int(cells[1]), int(cells[2]), int(cells[4])
    assert shipped <= best <= bins
    assert cells[3] == f"{100 * (bins - shipped) / shipped:.2f}%"
    assert cells[5] == f"{100 * (bins - best) / best:.2f}%"
    # the quick tables run class 1 alone: the row of all the classes repeats its figures
    total = next(line for line in out.splitlines() if line.startswith("| all "))
    assert [c.strip() for c in total.split("|")[1:-1]][1:6] == cells[1:6]
    # the calibration: units per CPU second of every set, a positive number
    cal = [
        line for line in out[start:].splitlines() if line.startswith("| ") and "RATE" not in line
    ]
    cal = [line for line in cal if not line.startswith("| set")]
    assert len(cal) == 7 + 1 + 1 + 2  # BR1..BR7, 20 box types, one MPV folder, two large plans
    assert all(float(line.split("|")[2].replace(",", "")) > 0 for line in cal)


def test_the_strategy_list_comes_from_the_registry(capsys):
    assert tuple(n for n, cls in STRATEGIES.items() if cls.in_benchmark) == STRATEGY_NAMES
    assert "block-building" in STRATEGY_NAMES and "milp" not in STRATEGY_NAMES
    with pytest.raises(SystemExit) as info:
        main(["--quick", "--strategies", "block-building,simulated-annealing"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "simulated-annealing" in err and "first-fit-decreasing" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--problems", "-3"], "--problems: expected a whole number >= 1"),
        (["--problems", "0"], "--problems: expected a whole number >= 1"),
        (["--time-limit", "nan"], "--time-limit: expected seconds > 0, a finite number"),
        (["--time-limit", "inf"], "--time-limit: expected seconds > 0, a finite number"),
        (["--sets", "BR19"], "--sets: unknown set 'BR19'"),
        (["--sets", "BR1,br9"], "--sets: unknown set 'br9'"),
    ],
)
def test_bad_arguments_are_usage_errors_naming_the_option(tmp_path, capsys, args, message):
    for folder in ("br", "mpv"):
        (tmp_path / folder).mkdir()
    (tmp_path / "br" / "BR1.txt").write_text("")
    with pytest.raises(SystemExit) as info:
        main(["--quick", "--bench-dir", str(tmp_path), *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bench_dir_without_the_sets_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["--quick", "--bench-dir", str(tmp_path / "none")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err
    assert re.search(r"error: --bench-dir: .* holds no br/ and mpv/ folders", err)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "BR1.txt: ends early"),
        (b"garbage x\n", "BR1.txt: expected whitespace-separated integers"),
        (b"\xff\xfe1\n", "BR1.txt: is not UTF-8 text"),
    ],
)
def test_a_bench_file_that_cannot_be_read_is_a_usage_error(tmp_path, capsys, content, message):
    """Not a traceback: the file is named, with what was wrong in it."""
    for folder in ("br", "mpv"):
        (tmp_path / folder).mkdir()
    (tmp_path / "br" / "BR1.txt").write_bytes(content)
    args = ["--strategies", "first-fit-decreasing", "--time-limit", "0.1"]
    with pytest.raises(SystemExit) as info:
        main(["--quick", "--bench-dir", str(tmp_path), "--sets", "BR1", *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_shipped_set_missing_from_the_bench_dir_runs_its_shipped_problems(tmp_path, capsys):
    """No BR1.txt in the folder: BR1 by name is the shipped set, whose 5 problems bound
    the problems per set (not a generated set's 100, nor a crash past the fifth)."""
    import packing.benchrun as benchrun

    benchrun.write_shipped_bench(tmp_path)
    (tmp_path / "br" / "BR1.txt").unlink()
    args = ["--quick", "--sets", "BR1,BR9", "--strategies", "first-fit-decreasing"]
    assert (
        main([*args, "--bench-dir", str(tmp_path), "--problems", "8", "--time-limit", "0.1"]) == 0
    )
    out = capsys.readouterr().out
    assert "(the BR files hold 5 problems: 5 per set, not 8)" in out
    assert "| BR1 |" in out and "| BR9 |" in out


def test_without_the_full_sets_the_tables_use_the_shipped_subset(tmp_path, capsys, monkeypatch):
    """A clone without shared/bench beside it (a new machine) still gets its tables."""
    import packing.benchrun as benchrun

    monkeypatch.setattr(benchrun, "_bench_dir", lambda given: None)
    args = ["--quick", "--sets", "BR1,BR7,BR12", "--strategies", "first-fit-decreasing"]
    assert main([*args, "--problems", "9", "--time-limit", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "the subset shipped in data/bench" in out
    assert "(the BR files hold 5 problems: 5 per set, not 9)" in out
    assert "| BR1 |" in out and "| BR7 |" in out and "class1_n050" in out
    # BR12, strongly heterogeneous, has no file: its generator made it
    row = next(line for line in out.splitlines() if line.startswith("| BR12 |"))
    assert 0 < float(row.split("|")[2].strip().rstrip("%")) <= 100
    # the layout the full sets have, written from the package's data
    benchrun.write_shipped_bench(tmp_path)
    assert (tmp_path / "br" / "BR7.txt").is_file()
    assert sorted(p.name for p in (tmp_path / "mpv" / "class8_n050").iterdir()) == [
        "01.txt",
        "02.txt",
        "03.txt",
    ]
    assert (tmp_path / "mpv" / "bounds_mpv.csv").is_file()
