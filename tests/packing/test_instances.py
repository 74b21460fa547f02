from pathlib import Path

import pytest

from packing.errors import PackingInputError
from packing.instances import (
    SHIPPED_SETS,
    BoxType,
    Instance,
    load_shipped,
    read_br,
    read_mpv,
    read_mpv_bounds,
    shipped_instances,
)

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


# --------------------------------------------------------------- shipped instances


def test_every_shipped_set_loads_from_the_package():
    table = shipped_instances()
    assert list(table["set"].unique()) == list(SHIPPED_SETS)
    assert set(table.loc[table["set"].str.startswith("BR"), "kind"]) == {"loading"}
    assert (table.groupby("set").size() >= 3).all()
    mpv = table[table["kind"] == "bin-packing"]
    assert mpv["lower_bound"].notna().all() and (mpv["boxes"] == 50).all()


def test_shipped_br_problems_are_the_first_problems_of_the_set():
    br7 = load_shipped("BR7")
    assert [i.name for i in br7] == [f"BR7-{k}" for k in range(1, len(br7) + 1)]
    first = br7[0]  # BR7 problem 1 as the OR-Library file gives it
    assert first.container == (587, 220, 233) and len(first.box_types) == 20
    assert first.box_types[0] == BoxType(1, (108, 30, 76), (False, True, False), 10)


def test_shipped_mpv_instances_carry_their_lower_bounds():
    (one, *_) = load_shipped("MPV1")
    assert one.name == "class1_n050/01" and one.container == (100, 100, 100)
    assert one.box_types[0].dims == (39, 85, 72)
    assert one.lower_bound == 13  # bounds_mpv.csv: class 1, n 50, instance 1


def test_unknown_shipped_set_lists_the_valid_ones():
    with pytest.raises(PackingInputError) as info:
        load_shipped("BR9")
    assert info.value.field == "name"
    assert all(s in info.value.message for s in SHIPPED_SETS)


def test_shipped_files_are_package_data():
    """Every shipped file matches a package-data pattern of pyproject.toml, so a wheel or
    an installed package carries it (importlib.resources then finds it)."""
    import fnmatch
    import tomllib
    from importlib.resources import files

    import data

    config = tomllib.loads((Path(data.__file__).parents[1] / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["*"]
    names = data.bench_files()
    assert "BR1.txt" in names and "bounds_mpv.csv" in names
    for name in names:
        assert any(fnmatch.fnmatch(name, p) for p in patterns), name
        assert files("data.bench").joinpath(name).is_file()


def test_unknown_bench_file_is_refused():
    import data

    with pytest.raises(KeyError, match=r"unknown benchmark file 'BR99\.txt'"):
        data.bench_text("BR99.txt")


@pytest.mark.skipif(not BENCH.exists(), reason="shared benchmark folder not beside the repository")
@pytest.mark.parametrize("name", SHIPPED_SETS)
def test_shipped_problems_equal_the_public_files(name):
    if name.startswith("BR"):
        original = read_br(BENCH / "br" / f"{name}.txt")
    else:
        cls = int(name[3:])
        bounds = read_mpv_bounds(BENCH / "mpv" / "bounds_mpv.csv")
        original = [
            read_mpv(BENCH / "mpv" / f"class{cls}_n050" / f"{k:02d}.txt") for k in range(1, 11)
        ]
        original = [
            Instance(i.name, i.container, i.box_types, bounds[(cls, 50, k + 1)][0])
            for k, i in enumerate(original)
        ]
    shipped = load_shipped(name)
    assert shipped == original[: len(shipped)]


@pytest.mark.parametrize("reader", [read_br, read_mpv, read_mpv_bounds])
def test_a_file_that_is_not_text_is_an_input_error_naming_it(reader, tmp_path):
    f = tmp_path / "01.txt"
    f.write_bytes(b"\xff\xfe\x00 1 2 3")
    with pytest.raises(PackingInputError, match="is not UTF-8 text") as info:
        reader(f)
    assert info.value.field == str(f)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a,b\n1,2\n", "expected the columns class, n, instance, lb_mpv, ub_mpv_bb_2s"),
        (
            "class,n,instance,lb_mpv,ub_mpv_bb_2s\n1,50,1,x,15\n",
            "line 2: expected whole numbers (got '1', '50', '1', 'x', '15')",
        ),
    ],
)
def test_mpv_bounds_file_of_another_shape_is_an_input_error(text, message, tmp_path):
    f = tmp_path / "bounds_mpv.csv"
    f.write_text(text)
    with pytest.raises(PackingInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_mpv_bounds(f)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a vertical flag is 0 or 1
        (" 1\n 1 2502505\n 587 233 220\n 1\n 1 108 2 76 0 30 1 5\n", "box type 1 of problem 1"),
        # numbers beyond the problems the file announces
        (" 1\n 1 2502505\n 587 233 220\n 1\n 1 108 0 76 0 30 1 5\n 7 7\n", "2 numbers after"),
        # negative counts and sides were read as no problems, no types, no pieces
        (" -1\n", r"the problem count must be >= 0 \(got -1\)"),
        (" 1\n 1 2502505\n 587 233 220\n -2\n", r"problem 1: the box type count must be >= 0"),
        (
            " 1\n 1 2502505\n 587 233 220\n 1\n 1 108 0 76 0 30 1 -5\n",
            r"box type 1 of problem 1: sides must be > 0 and the quantity >= 1 .*quantity -5",
        ),
        # a quantity of 0 and flags that let a box stand no way up failed later, naming
        # neither the file nor the box
        (
            " 1\n 1 2502505\n 587 233 220\n 1\n 1 108 0 76 0 30 1 0\n",
            r"BRX.txt.*box type 1 of problem 1: .*the quantity >= 1 .*quantity 0\)",
        ),
        (
            " 1\n 1 2502505\n 587 233 220\n 2\n 1 108 0 76 0 30 1 5\n 2 10 0 10 0 10 0 3\n",
            r"BRX.txt.*box type 2 of problem 1: .*at least one of them 1.*\(got 0, 0, 0\)",
        ),
        (" 1\n 1 2502505\n 587 0 220\n 0\n", r"problem 1: container sides must be > 0"),
        (" 1\n 1 2502505\n 587 233 220\n 1\n 1 108 0 -76 0 30 1 5\n", "sides must be > 0"),
    ],
)
def test_br_parser_refuses_malformed_files(text, message, tmp_path):
    f = tmp_path / "BRX.txt"
    f.write_text(text)
    with pytest.raises(PackingInputError, match=message):
        read_br(f)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10 10 10\n-1\n", r"bin sides must be > 0 and the box count >= 0 \(got 10 10 10, -1"),
        ("10 0 10\n1\n5 5 5\n", "bin sides must be > 0"),
        ("10 10 10\n2\n5 5 5\n5 -5 5\n", r"box 2: sides must be > 0 \(got 5 -5 5\)"),
    ],
)
def test_mpv_parser_refuses_negative_counts_and_sides(text, message, tmp_path):
    folder = tmp_path / "class1_n002"
    folder.mkdir()
    (folder / "01.txt").write_text(text)
    with pytest.raises(PackingInputError, match=message):
        read_mpv(folder / "01.txt")
