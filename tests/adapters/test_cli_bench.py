import json

import pytest

from adapters.cli import main
from packing.strategies import STRATEGIES


def test_bench_br_prints_checkable_json(tmp_path, capsys):
    f = tmp_path / "BRX.txt"
    f.write_text(" 1\n 1 7\n 30 20 10\n 1\n 1 10 1 10 1 10 1 7\n")
    assert main(["bench", "br", str(f), "--instances", "1", "--json", "--time-limit", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    (inst,) = out["instances"]
    # six 10 cm cubes fill the 30 × 20 × 10 container; the seventh is left out
    assert inst["placed"] == 6 and inst["total"] == 7
    assert inst["utilization"] == 1.0 == out["meanUtilization"]
    assert all(len(p) == 7 and p[6] == 1 for p in inst["placements"])


def test_bench_br_runs_a_shipped_set_by_name(tmp_path, monkeypatch, capsys):
    """With no file of that name, ``BR7`` is the set shipped in the package: its
    problems are those of the shipped file (instance 2 has the shipped file's boxes)."""
    from packing.instances import load_shipped

    monkeypatch.chdir(tmp_path)  # no BR7 file here
    args = ["bench", "br", "BR7", "--instances", "2", "--time-limit", "0.1", "--no-progress"]
    assert main(args) == 0
    (inst,) = json.loads(capsys.readouterr().out)["instances"]
    assert inst["number"] == 2
    assert inst["total"] == sum(b.quantity for b in load_shipped("BR7")[1].box_types)
    # a problem number beyond the shipped five is a usage error naming the range
    assert main(["bench", "br", "BR7", "--instances", "6"]) == 2


def test_bench_br_makes_a_set_not_shipped_with_its_generator(tmp_path, monkeypatch, capsys):
    """``BR12`` (70 box types) has no file: its problems come from the sets' generator."""
    from packing.generate import br_instance

    monkeypatch.chdir(tmp_path)
    args = ["bench", "br", "BR12", "--instances", "100", "--no-progress"]
    assert main([*args, "--strategy", "first-fit-decreasing", "--time-limit", "0.1"]) == 0
    (inst,) = json.loads(capsys.readouterr().out)["instances"]
    assert inst["number"] == 100
    assert inst["total"] == sum(b.quantity for b in br_instance(12, 100).box_types)
    assert main(["bench", "br", "BR12", "--instances", "101"]) == 2
    assert main(["bench", "br", "BR19"]) == 2
    assert "BR19" in capsys.readouterr().err


def test_bench_errors_are_sentences(tmp_path, capsys):
    assert main(["bench", "br", str(tmp_path / "missing.txt")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_strategy_choices_are_the_registered_names(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "br", str(tmp_path / "x.txt"), "--strategy", "simulated-annealing"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert all(name in err for name in STRATEGIES)


# --------------------------------------------------------------- bench compare


def _csv(text: str):
    import io

    import pandas as pd

    return pd.read_csv(io.StringIO(text))


def test_bench_compare_writes_one_csv_row_per_run(tmp_path, capsys):
    from packing.compare import COLUMNS

    out = tmp_path / "table.csv"
    args = ["bench", "compare", str(out), "--sets", "BR1,MPV7", "--instances", "2"]
    args += ["--strategies", "first-fit-decreasing,best-area-fit", "--random", "1"]
    args += ["--parcels", "15", "--time-limit", "0.1"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "compare" in captured.err and "10/10" in captured.err  # the progress bar
    table = _csv(out.read_text())
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == (2 + 2 + 1) * 2
    assert list(table["set"].unique()) == ["BR1", "MPV7", "random"]
    assert (table[table["set"] == "random"]["pieces"] == 15).all()
    assert table["settings"].str.contains("time_limit=0.1").all()


def test_bench_compare_takes_a_set_made_by_its_generator(capfd):
    """BR15 (100 box types) is not shipped: its first problems come from the generator."""
    from packing.generate import br_instance

    args = ["bench", "compare", "-", "--sets", "BR15", "--instances", "2", "--no-progress"]
    assert main([*args, "--strategies", "first-fit-decreasing", "--time-limit", "0.1"]) == 0
    table = _csv(capfd.readouterr().out)
    assert list(table["instance"]) == ["BR15-1", "BR15-2"]
    assert list(table["set"].unique()) == ["BR15"]
    boxes = [sum(b.quantity for b in br_instance(15, p).box_types) for p in (1, 2)]
    assert list(table["pieces"]) == boxes
    assert ((table["utilisation_pct"] > 0) & (table["utilisation_pct"] <= 100)).all()


def test_bench_compare_to_stdout_keeps_stdout_to_the_csv(capfd):
    """A dash writes the CSV to stdout; the progress bar and what a solver prints from
    native code (HiGHS's banner) go to stderr."""
    args = ["bench", "compare", "-", "--sets", "BR2", "--instances", "1"]
    args += ["--strategies", "milp,first-fit-decreasing", "--time-limit", "0.1"]
    assert main(args) == 0
    captured = capfd.readouterr()
    assert captured.out.startswith("instance,set,kind,strategy,")
    table = _csv(captured.out)
    assert list(table["strategy"]) == ["milp", "first-fit-decreasing"]
    assert "compare" in captured.err


def test_bench_compare_without_progress_is_silent_on_stderr(tmp_path, capsys):
    out = tmp_path / "t.csv"
    args = ["bench", "compare", str(out), "--sets", "", "--random", "1", "--parcels", "5"]
    assert main([*args, "--strategies", "first-fit-decreasing", "--no-progress"]) == 0
    assert capsys.readouterr().err == f"1 rows written to {out}\n"
    assert len(_csv(out.read_text())) == 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--sets", "BR19"], "unknown set 'BR19'"),
        (["--strategies", "annealing"], "unknown strategy 'annealing'"),
        (["--instances", "0"], "expected a whole number >= 1"),
        (["--time-limit", "-1"], "expected seconds > 0"),
    ],
)
def test_bench_compare_usage_errors_name_the_option(extra, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "compare", "-", *extra])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_bench_compare_with_nothing_to_run_is_an_error(capsys):
    assert main(["bench", "compare", "-", "--sets", ""]) == 2
    assert "no instance to run" in capsys.readouterr().err


def test_bench_br_shows_progress_on_stderr_and_json_on_stdout(tmp_path, capsys):
    f = tmp_path / "BRX.txt"
    f.write_text(
        " 2\n 1 7\n 30 20 10\n 1\n 1 10 1 10 1 10 1 7\n 2 8\n 30 20 10\n 1\n 1 10 1 10 1 10 1 3\n"
    )
    assert main(["bench", "br", str(f), "--time-limit", "0.1"]) == 0
    captured = capsys.readouterr()
    assert [i["placed"] for i in json.loads(captured.out)["instances"]] == [6, 3]
    assert "BRX" in captured.err and "2/2" in captured.err
    assert main(["bench", "br", str(f), "--time-limit", "0.1", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_bench_mpv_shows_progress_on_stderr(tmp_path, capsys):
    folder = tmp_path / "class9_n002"
    folder.mkdir()
    (folder / "01.txt").write_text("10 10 10\n2\n10 10 5\n10 10 5\n")
    assert main(["bench", "mpv", str(folder), "--time-limit", "0.1"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["totalBins"] == 1
    assert "MPV" in captured.err and "1/1" in captured.err


def test_bench_mpv_runs_a_shipped_set_as_bench_br_does(capsys):
    from packing.instances import load_shipped

    assert main(["bench", "mpv", "MPV8", "--time-limit", "0.05", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    shipped = load_shipped("MPV8")
    assert [(r["class"], r["n"], r["number"]) for r in out["instances"]] == [
        (8, 50, k + 1) for k in range(len(shipped))
    ]
    assert [r["lowerBound"] for r in out["instances"]] == [i.lower_bound for i in shipped]
    assert out["totalLowerBound"] == sum(i.lower_bound or 0 for i in shipped)
    assert all(r["bins"] >= r["lowerBound"] and r["unplaced"] == 0 for r in out["instances"])
    # the bound of the boxes' shapes beside it, and the larger of the two
    assert all(r["bound"] == max(r["lowerBound"], r["shapeBound"]) for r in out["instances"])
    assert all(r["bins"] >= r["bound"] for r in out["instances"])
    assert out["totalBound"] == sum(r["bound"] for r in out["instances"])


def test_bench_mpv_names_the_shipped_sets_when_nothing_is_found(capsys):
    assert main(["bench", "mpv", "MPV2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "MPV2: holds no MPV instance files (NN.txt)" in err
    assert "['MPV1', 'MPV4', 'MPV5', 'MPV6', 'MPV7', 'MPV8']" in err


def test_calibrate_measures_this_machines_units_per_cpu_second(capsys):
    from packing.strategies.base import Budget

    assert main(["calibrate", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["defaultRate"] == Budget.DEFAULT_RATE
    assert [p["plan"] for p in out["plans"]] == ["BR4 #1", "MPV4 #1"]
    assert all(p["workUnits"] > 0 and p["cpuSeconds"] > 0 for p in out["plans"])
    # the geometric midpoint of the plans' own rates: each lies as far above it as the
    # other below (up to the rounding to three digits)
    low, high = sorted(p["workUnits"] / p["cpuSeconds"] for p in out["plans"])
    assert out["unitsPerCpuSecond"] == int(float(f"{(low * high) ** 0.5:.3g}"))
    assert low <= out["unitsPerCpuSecond"] * 1.005 and high >= out["unitsPerCpuSecond"] / 1.005
    assert Budget.RATE == Budget.DEFAULT_RATE  # measuring sets nothing
    assert main(["calibrate", "--quick"]) == 0
    text = capsys.readouterr().out
    assert "PACKPLAN_WORK_UNITS_PER_SECOND=" in text and "Budget.use_rate(" in text


def test_calibrate_measures_as_the_compute_workers_collect_garbage(monkeypatch, capsys):
    import gc

    from adapters.api.compute import WORKER_GC_THRESHOLDS
    from adapters.cli import calibrate

    seen = []

    def measure(*, quick, progress, runs):
        seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return {"plans": [], "unitsPerCpuSecond": 90_000_000, "defaultRate": 93_000_000}

    before = gc.get_threshold(), gc.get_freeze_count()
    monkeypatch.setattr(calibrate, "measure_rate", measure)
    assert main(["calibrate", "--quick", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unitsPerCpuSecond"] == 90_000_000
    [(thresholds, frozen)] = seen
    assert thresholds == WORKER_GC_THRESHOLDS and frozen > 0
    # and this process's collector is as it was
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_calibrate_times_each_plan_by_its_least_cpu_of_its_runs(monkeypatch):
    """Another process's burst only adds CPU time: each plan counts its least of ``runs``."""
    import types

    import packing.bench as bench

    clock = [0.0]
    # CPU seconds of each plan in turn: the untimed warm-up, BR4 twice, MPV4 twice
    spans = iter([0.5, 3.0, 2.0, 1.0, 1.5])

    def plan(*args, **kwargs):
        clock[0] += next(spans)
        return types.SimpleNamespace(work_units=4_000_000)

    monkeypatch.setattr(bench.time, "process_time", lambda: clock[0])
    monkeypatch.setattr(bench, "plan_containers", plan)
    m = bench.measure_rate(quick=True, runs=2)
    assert [(p["plan"], p["cpuSeconds"]) for p in m["plans"]] == [("BR4 #1", 2.0), ("MPV4 #1", 1.0)]
    # the midpoint of 2,000,000 and 4,000,000 units per CPU second
    assert m["unitsPerCpuSecond"] == int(float(f"{(2e6 * 4e6) ** 0.5:.3g}"))


def test_calibrate_refuses_runs_below_one(capsys):
    from packing.bench import measure_rate
    from packing.errors import PackingInputError

    with pytest.raises(SystemExit) as stop:
        main(["calibrate", "--quick", "--runs", "0"])
    assert stop.value.code == 2
    assert "--runs: expected a whole number within 1..10 (got '0')" in capsys.readouterr().err
    with pytest.raises(PackingInputError) as err:
        measure_rate(quick=True, runs=0)
    assert err.value.field == "runs"


def test_bench_br_refuses_a_reversed_range(capsys):
    assert main(["bench", "br", "BR1", "--instances", "5-2"]) == 2
    assert "--instances: a range runs upwards, such as 2-5 (got '5-2')" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["2,2", "1-3,3", "2-4,1-2"])
def test_bench_br_refuses_a_problem_named_twice(given, capsys):
    # a repeated problem would be planned twice and weigh twice in the set's mean
    assert main(["bench", "br", "BR1", "--instances", given]) == 2
    assert "--instances: names problem" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["nan", "inf", "1e999"])
def test_bench_br_refuses_endless_limits(limit, capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "br", "BR1", "--time-limit", limit])
    assert info.value.code == 2
    assert "expected seconds > 0, a finite number" in capsys.readouterr().err


@pytest.mark.parametrize(("folder", "name"), [("myset", "01.txt"), ("class9_n002", "notes.txt")])
def test_bench_mpv_names_a_file_outside_the_layout(folder, name, tmp_path, capsys):
    # an MPV file outside classC_nNNN/NN.txt is a usage error naming it, not a traceback
    (tmp_path / folder).mkdir()
    path = tmp_path / folder / name
    path.write_text("10 10 10\n2\n10 10 5\n10 10 5\n")
    assert main(["bench", "mpv", str(tmp_path / folder), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"packplan bench: {path}: expected an MPV instance file classC_nNNN/NN.txt" in (
        captured.err
    )


@pytest.mark.parametrize("where", ["missing/out.csv", "."])
def test_bench_compare_refuses_an_output_it_cannot_write_before_running(tmp_path, where, capsys):
    """Not after the whole comparison has run: the runs would be lost."""
    args = ["--sets", "BR1", "--instances", "1", "--strategies", "first-fit-decreasing"]
    out = tmp_path / where
    assert main(["bench", "compare", str(out), *args, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "packplan bench compare: output" in err and "expected a CSV file" in err
    assert "rows written" not in err
