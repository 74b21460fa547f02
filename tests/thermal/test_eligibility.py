"""Eligibility: capacity against the required load, BC or PCM, rejections, skipThermalCapacity."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thermal.catalog import container_slugs, profiles_frame
from thermal.degree_hours import segment_load
from thermal.eligibility import choose_profile, evaluate_eligibility, profile_capacities
from thermal.modes import set_point_c

# vip-cube-28l for PLUS_2_8: BC 72 h -> 1,800 °C·h, PCM 100 h -> 2,500 °C·h


@pytest.mark.parametrize(
    ("required", "coolant", "capacity"),
    [
        (1000.0, "BC", 1800.0),
        (1800.0, "BC", 1800.0),
        (1800.01, "PCM", 2500.0),
        (2500.0, "PCM", 2500.0),
    ],
)
def test_smallest_sufficient_profile_is_used(required, coolant, capacity):
    result = evaluate_eligibility(required, "PLUS_2_8", ["vip-cube-28l"])
    assert result.eligible == ["vip-cube-28l"]
    choice = result.profiles["vip-cube-28l"]
    assert (choice.coolant, choice.capacity_dh) == (coolant, capacity)
    assert choice.coolant_mass_kg > 0


def test_rejection_names_capacity_and_required_load():
    result = evaluate_eligibility(2600.0, "PLUS_2_8", ["vip-cube-28l"])
    assert result.eligible == [] and result.profiles == {}
    [rejected] = result.rejected
    assert rejected.slug == "vip-cube-28l"
    assert rejected.reason.startswith("hot side: ")
    assert "2,500 °C·h" in rejected.reason and "2,600 °C·h" in rejected.reason
    assert "100 h at +30 °C" in rejected.reason


def test_each_side_is_checked_against_its_own_capacity():
    # vip-cube-28l PCM: 100 h at +30 °C (2,500 °C·h), 100 h at -10 °C (1,500 °C·h) for 2..8
    ok = evaluate_eligibility(2400.0, "PLUS_2_8", ["vip-cube-28l"], required_cold_dh=1400.0)
    assert ok.eligible == ["vip-cube-28l"]
    assert ok.profiles["vip-cube-28l"].cold_capacity_dh == 1500.0
    cold = evaluate_eligibility(100.0, "PLUS_2_8", ["vip-cube-28l"], required_cold_dh=1600.0)
    [rejected] = cold.rejected
    assert rejected.reason.startswith("cold side: thermal capacity 1,500 °C·h")
    assert "100 h at -10 °C" in rejected.reason and "1,600 °C·h" in rejected.reason
    both = evaluate_eligibility(2600.0, "PLUS_2_8", ["vip-cube-28l"], required_cold_dh=1600.0)
    assert "hot side" in both.rejected[0].reason and "cold side" in both.rejected[0].reason


def test_a_hot_load_never_uses_the_cold_capacity():
    # 15..25 boxes: the cold side is three times the hot side (|20 + 10| vs |30 - 20|)
    result = evaluate_eligibility(1300.0, "PLUS_15_25", ["vip-cube-28l"])
    assert result.eligible == []  # 120 h × 10 K = 1,200 °C·h on the hot side
    assert evaluate_eligibility(
        0.0, "PLUS_15_25", ["vip-cube-28l"], required_cold_dh=3500.0
    ).eligible == ["vip-cube-28l"]  # 120 h × 30 K = 3,600 °C·h on the cold side


def test_fractional_loads_are_shown_with_a_decimal():
    [rejected] = evaluate_eligibility(2500.4, "PLUS_2_8", ["vip-cube-28l"]).rejected
    assert "2,500.4 °C·h" in rejected.reason


def test_container_without_a_profile_for_the_mode_is_rejected():
    result = evaluate_eligibility(10.0, "MINUS_25_15", ["eps-parcel-3l", "vip-parcel-4l"])
    assert result.eligible == ["vip-parcel-4l"]
    assert result.rejected == [("eps-parcel-3l", "has no MINUS_25_15 thermal profile")]


def test_a_slug_the_catalog_does_not_hold_is_named_as_such():
    # not "has no PLUS_2_8 thermal profile": there is no such container at all
    result = evaluate_eligibility(10.0, "PLUS_2_8", ["vip-cube-28l", "vip-cube-29l"])
    assert result.eligible == ["vip-cube-28l"]
    assert result.rejected == [("vip-cube-29l", "is not a container of the catalog")]


def test_skip_capacity_accepts_every_container_with_a_profile():
    required = 1e6
    strict = evaluate_eligibility(required, "PLUS_2_8", container_slugs())
    assert strict.eligible == []
    loose = evaluate_eligibility(required, "PLUS_2_8", container_slugs(), skip_capacity=True)
    assert loose.eligible == container_slugs()
    # none suffices: each uses its largest profile
    assert loose.profiles["vip-cube-28l"].coolant == "PCM"
    frozen = evaluate_eligibility(required, "MINUS_25_15", container_slugs(), skip_capacity=True)
    assert "eps-parcel-3l" not in frozen.eligible
    assert {r.slug for r in frozen.rejected} == set(container_slugs()) - set(frozen.eligible)


def test_candidates_keep_their_order():
    order = ["vip-chest-150l", "vip-cube-12l", "eps-box-32l"]
    assert evaluate_eligibility(100.0, "PLUS_2_8", order).eligible == order


def test_choose_profile():
    assert choose_profile("vip-cube-28l", "PLUS_2_8", 0.0).coolant == "BC"
    assert choose_profile("vip-cube-28l", "PLUS_2_8", 9e9).coolant == "PCM"
    assert choose_profile("eps-parcel-3l", "MINUS_25_15", 0.0) is None


def test_profile_capacities_table():
    caps = profile_capacities("PLUS_15_25")
    assert (caps["mode"] == "PLUS_15_25").all()
    assert (caps["capacity_dh"] == caps["hold_hours_at_ref_ambient"] * 10).all()


@given(
    st.floats(0, 20000, allow_nan=False), st.sampled_from(["PLUS_2_8", "PLUS_15_25", "MINUS_25_15"])
)
def test_eligible_iff_some_profile_suffices(required, mode):
    caps = profile_capacities(mode).groupby("container_slug")["capacity_dh"].max()
    result = evaluate_eligibility(required, mode, container_slugs())
    assert set(result.eligible) == {s for s, c in caps.items() if c >= required}
    assert set(result.eligible) | {r.slug for r in result.rejected} == set(container_slugs())
    for slug, choice in result.profiles.items():
        assert choice.capacity_dh >= required
        assert choice.slug == slug


def _profile_rows():
    table = profiles_frame()
    return [table.loc[[i]] for i in table.index]


@pytest.mark.parametrize("row", _profile_rows(), ids=lambda r: "-".join(r.iloc[0, :3]))
def test_the_model_gives_back_every_stated_hold_time_on_both_sides(row):
    """At a constant ambient (no daily swing, no margin) a profile lasts its stated hold time:
    the load of that many hours fits, 10 % more does not, summer and winter side alike."""
    p = row.iloc[0]
    slug, mode = p["container_slug"], p["mode"]
    sp = set_point_c(mode)
    hot_h, cold_h = p["hold_hours_at_ref_ambient"], p["hold_hours_at_cold_ref_ambient"]
    cold_ref = p["cold_reference_ambient_c"]

    def eligible(hot_hours, cold_hours):
        hot = segment_load(hot_hours, 30.0, sp, 0.0)
        cold = segment_load(cold_hours, cold_ref, sp, 0.0)
        result = evaluate_eligibility(hot, mode, [slug], required_cold_dh=cold, profiles=row)
        return result.eligible == [slug]

    assert eligible(hot_h, 0.0) and not eligible(1.1 * hot_h, 0.0)
    assert eligible(0.0, cold_h) and not eligible(0.0, 1.1 * cold_h)


def test_the_anchor_box_holds_2_8_for_100_h_at_30_c():
    # the published class of a 28 L VIP box: 2..8 °C for about 100 h at +30 °C
    choice = choose_profile("vip-cube-28l", "PLUS_2_8", segment_load(100.0, 30.0, 5.0, 0.0))
    assert choice is not None and (choice.coolant, choice.hold_hours) == ("PCM", 100.0)


def test_a_profile_table_of_ones_own_is_read_not_the_catalogs():
    # The catalog's profiles are grouped once; a table passed in is read as given.
    table = profiles_frame()
    own = table.loc[~((table["container_slug"] == "vip-cube-28l") & (table["coolant"] == "PCM"))]
    assert evaluate_eligibility(2000.0, "PLUS_2_8", ["vip-cube-28l"]).eligible == ["vip-cube-28l"]
    mine = evaluate_eligibility(2000.0, "PLUS_2_8", ["vip-cube-28l"], profiles=own)
    assert mine.eligible == [] and "1,800" in mine.rejected[0].reason
    assert choose_profile("vip-cube-28l", "PLUS_2_8", 9e9, own).coolant == "BC"
    # and the catalog's answer is unchanged after it
    assert choose_profile("vip-cube-28l", "PLUS_2_8", 9e9).coolant == "PCM"
    assert evaluate_eligibility(
        2000.0, "PLUS_2_8", ["vip-cube-28l"], profiles=table
    ) == evaluate_eligibility(2000.0, "PLUS_2_8", ["vip-cube-28l"])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"required_dh": float("nan")}, "required_dh"),
        ({"required_dh": -1.0}, "required_dh"),
        ({"required_dh": "100"}, "required_dh"),
        ({"required_cold_dh": float("nan")}, "required_cold_dh"),
        ({"required_cold_dh": float("inf")}, "required_cold_dh"),
        ({"candidates": "vip-cube-28l"}, "candidates"),
        ({"candidates": 5}, "candidates"),
    ],
)
def test_bad_arguments_are_named(kwargs, field):
    """A NaN load rejected every container as "below" it; a slug given as text was
    checked letter by letter."""
    from thermal.errors import ThermalInputError

    args = {"required_dh": 100.0, "mode": "PLUS_2_8", "candidates": ["vip-cube-28l"]} | kwargs
    with pytest.raises(ThermalInputError) as info:
        evaluate_eligibility(
            args.pop("required_dh"), args.pop("mode"), args.pop("candidates"), **args
        )
    assert info.value.field == field
