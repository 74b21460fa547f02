"""The pydantic models of the API contract (packing/contract.py)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from pydantic import ValidationError

from adapters.planning.schemas import (
    CargoCatalogItem,
    CombinedModeReport,
    ContainerAllocation,
    PackingCargoItem,
    PackingPlanInput,
    ThermalFilterResult,
    ThermalProfileUsed,
)


def _item(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": "a",
        "name": "Box",
        "lengthCm": 10,
        "widthCm": 10,
        "heightCm": 10,
        "weightKg": 1,
        "quantity": 1,
        "temperatureMode": "PLUS_2_8",
    }
    item.update(overrides)
    return item


def _input(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"originCity": "A", "destinationCity": "B", "cargos": [_item()]}
    body.update(overrides)
    return body


def _locs(exc: ValidationError) -> set[tuple[Any, ...]]:
    return {tuple(e["loc"]) for e in exc.errors()}


def test_integer_fields_take_integer_valued_numbers() -> None:
    plan = PackingPlanInput.model_validate(
        _input(cargos=[_item(quantity=2.0, rules={"unloadPriority": 3.0})],
               options={"maxContainers": 5.0})
    )  # fmt: skip
    assert plan.cargos[0].quantity == 2 and isinstance(plan.cargos[0].quantity, int)
    assert plan.options is not None and plan.options.maxContainers == 5


@pytest.mark.parametrize(
    ("overrides", "loc"),
    [
        ({"originCity": "Mos\x00cow"}, ("originCity",)),
        ({"destinationCity": "Kazan\x1b[31m"}, ("destinationCity",)),
        ({"planTitle": "line\nbreak"}, ("planTitle",)),
        ({"originCity": "x" * 301}, ("originCity",)),
        ({"cargos": [_item(id="i" * 101)]}, ("cargos", 0, "id")),
        ({"cargos": [_item(name="n" * 301)]}, ("cargos", 0, "name")),
        ({"cargos": [_item(weightKg=5e-324)]}, ("cargos", 0, "weightKg")),
        ({"cargos": [_item(lengthCm=1e-310)]}, ("cargos", 0, "lengthCm")),
        ({"cargos": [_item(rules={"color": "red"})]}, ("cargos", 0, "rules", "color")),
        ({"transitHours": 2.2e-309}, ("transitHours",)),
    ],
)
def test_caller_text_and_numbers_are_bounded(
    overrides: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    with pytest.raises(ValidationError) as info:
        PackingPlanInput.model_validate(_input(**overrides))
    assert _locs(info.value) == {loc}


def test_text_in_any_script_with_marks_and_emoji_is_data() -> None:
    text = "\u200fمسكو \u202eКазань 🚚 <b>x</b> </para> <!--<script>"
    plan = PackingPlanInput.model_validate(_input(planTitle=text[:200], originCity=text))
    assert plan.originCity == text


def test_defaults() -> None:
    plan = PackingPlanInput.model_validate(_input())
    assert plan.scenario == "THERMO" and plan.cargos[0].includedInPacking is True
    assert plan.options is None and plan.sendDate is None


@pytest.mark.parametrize(
    ("overrides", "loc"),
    [
        ({"planTitle": None}, ("planTitle",)),
        ({"transitHours": "24"}, ("transitHours",)),
        ({"transitHours": True}, ("transitHours",)),
        ({"sendDate": 20250101}, ("sendDate",)),
        ({"sendDate": "2025-01-01T10:00:00"}, ("sendDate",)),
        ({"cargos": [_item(quantity=1.5)]}, ("cargos", 0, "quantity")),
        ({"cargos": [_item(quantity="2")]}, ("cargos", 0, "quantity")),
        ({"cargos": [_item(quantity=True)]}, ("cargos", 0, "quantity")),
        ({"cargos": [_item(includedInPacking=1)]}, ("cargos", 0, "includedInPacking")),
        ({"cargos": [_item(rules={"allowTilt": "yes"})]}, ("cargos", 0, "rules", "allowTilt")),
        ({"options": {"useMockThermal": None}}, ("options", "useMockThermal")),
    ],
)
def test_strict_and_never_null(overrides: dict[str, Any], loc: tuple[Any, ...]) -> None:
    with pytest.raises(ValidationError) as info:
        PackingPlanInput.model_validate(_input(**overrides))
    assert loc in _locs(info.value)


def test_dates_as_iso_strings_or_dates() -> None:
    plan = PackingPlanInput.model_validate(_input(sendDate="2025-01-02"))
    assert plan.sendDate == dt.date(2025, 1, 2)
    assert PackingPlanInput.model_validate(_input(sendDate=dt.date(2025, 1, 2))).sendDate


def test_duplicate_ids_on_the_later_item() -> None:
    with pytest.raises(ValidationError) as info:
        PackingPlanInput.model_validate(_input(cargos=[_item(), _item(), _item(id="b")]))
    assert _locs(info.value) == {("cargos", 1, "id")}


def test_ids_equal_in_another_unicode_form_are_duplicates() -> None:
    # "é" precomposed (U+00E9) and as "e" + combining acute (U+0301) print alike
    items = [_item(id="caf\u00e9"), _item(id="cafe\u0301"), _item(id="cafe")]
    with pytest.raises(ValidationError) as info:
        PackingPlanInput.model_validate(_input(cargos=items))
    assert _locs(info.value) == {("cargos", 1, "id")}
    message = info.value.errors()[0]["msg"]
    assert message.endswith("(as cargos[0].id, in another Unicode form)")
    # an exact repeat keeps the plain message
    with pytest.raises(ValidationError) as info:
        PackingPlanInput.model_validate(_input(cargos=[_item(), _item()]))
    assert "another Unicode form" not in info.value.errors()[0]["msg"]


def test_sku_items_may_leave_fields_to_the_catalog() -> None:
    item = PackingCargoItem.model_validate({"id": "x", "sku": "VAX-1", "quantity": 2})
    assert item.name is None and not item.is_complete
    with pytest.raises(ValidationError) as info:
        PackingCargoItem.model_validate({"id": "x", "quantity": 2, "lengthCm": 0})
    assert _locs(info.value) == {
        ("lengthCm",),
        ("name",),
        ("widthCm",),
        ("heightCm",),
        ("weightKg",),
        ("temperatureMode",),
    }


def test_catalog_fill_keeps_given_fields() -> None:
    entry = CargoCatalogItem.model_validate(
        {
            "sku": "S-1",
            "name": "Carton",
            "lengthCm": 30,
            "widthCm": 20,
            "heightCm": 10,
            "weightKg": 2,
            "temperatureMode": "PLUS_15_25",
            "rules": {"fragile": True},
        }
    )
    item = PackingCargoItem.model_validate({"id": "x", "sku": "S-1", "quantity": 1, "weightKg": 5})
    filled = entry.fill(item)
    assert filled.is_complete
    assert (filled.name, filled.lengthCm, filled.weightKg) == ("Carton", 30, 5)
    assert filled.rules is not None and filled.rules.fragile is True


def test_outputs_leave_out_absent_fields_but_keep_nullable_ones() -> None:
    report = CombinedModeReport(
        temperatureMode="NONE",
        feasible=True,
        transitHoursUsed=0,
        thermalFilter=ThermalFilterResult(),
        requestedCount=0,
        placedCount=0,
    )
    dumped = json.loads(report.model_dump_json())
    assert "errorCode" not in dumped and "message" not in dumped
    assert dumped["thermalFilter"] == {}
    allocation = ContainerAllocation.model_validate(
        {
            "containerSlug": "eur",
            "containerTitle": "EUR",
            "containerIndex": 0,
            "count": 1,
            "coolant": None,
            "thermalProfileUsed": ThermalProfileUsed(
                mode="NONE",
                holdHoursAtRefAmbient=0,
                thermalCapacityDegreeHours=0,
                requiredLoadDegreeHours=0,
            ),
            "innerUsableMm": [1200, 1500, 800],
            "loadingSide": "TOP",
            "cargoWeightKg": 0,
            "tareWithCoolantKg": 25,
            "totalWeightKg": 25,
            "metrics": {},
        }
    )
    assert json.loads(allocation.model_dump_json())["coolant"] is None


def test_schema_has_no_null_for_optional_fields() -> None:
    schema = PackingPlanInput.model_json_schema()
    assert schema["properties"]["transitHours"] == {
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": 8784.0,
        "title": "Transithours",
        "description": "Transit time [h]; at most 366 days.",
    }
    placement = ContainerAllocation.model_json_schema()["properties"]["coolant"]
    assert {"type": "null"} in placement["anyOf"]


def _plain_item(**fields: Any) -> dict[str, Any]:
    """A cargo item of 10 cm cubes without a temperature mode, ``fields`` set over it."""
    return {
        "id": "a",
        "name": "A",
        "lengthCm": 10.0,
        "widthCm": 10.0,
        "heightCm": 10.0,
        "weightKg": 1.0,
        "quantity": 1,
        "temperatureMode": "NONE",
        **fields,
    }


@pytest.mark.parametrize(
    ("field", "value"), [("lengthCm", 1e308), ("weightKg", 1e308), ("heightCm", 100_000.5)]
)
def test_absurd_magnitudes_are_field_errors(field, value):
    from pydantic import ValidationError

    from adapters.planning.schemas import PackingPlanInput

    with pytest.raises(ValidationError) as exc:
        PackingPlanInput.model_validate(
            {"originCity": "A", "destinationCity": "B", "cargos": [_plain_item(**{field: value})]}
        )
    assert exc.value.errors()[0]["loc"] == ("cargos", 0, field)


def test_a_subnormal_number_is_refused_without_offering_a_zero_the_field_refuses() -> None:
    from adapters.planning.schemas import PackingPlanInput

    with pytest.raises(ValidationError) as exc:
        PackingPlanInput.model_validate(
            {
                "originCity": "A",
                "destinationCity": "B",
                "transitHours": 1e-320,
                "cargos": [_plain_item()],
            }
        )
    [error] = exc.value.errors()
    assert error["loc"] == ("transitHours",)
    assert error["msg"] == (
        "Value error, a nonzero value must be at least 2.2e-308 in magnitude (got a subnormal)"
    )


def test_the_algorithm_enum_is_the_strategy_registry() -> None:
    from adapters.planning.schemas import PackingAlgorithm
    from packing import STRATEGIES

    assert [a.value for a in PackingAlgorithm] == list(STRATEGIES)
    assert {"first-fit-decreasing", "best-area-fit"} <= set(STRATEGIES)  # the contract's two
