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


def test_bench_errors_are_sentences(tmp_path, capsys):
    assert main(["bench", "br", str(tmp_path / "missing.txt")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_strategy_choices_are_the_registered_names(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["bench", "br", str(tmp_path / "x.txt"), "--strategy", "simulated-annealing"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert all(name in err for name in STRATEGIES)
