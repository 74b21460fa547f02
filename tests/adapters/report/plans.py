"""Plans of the report tests, computed by the planner as the service would (cached)."""

from __future__ import annotations

import datetime as dt
import functools
import io
from typing import Any

from adapters.planning.compute import compute_plan
from adapters.planning.schemas import PackingPlanInput, PackingPlanRecord

CREATED = dt.datetime(2027, 1, 20, 9, 15, 42, 123456, tzinfo=dt.UTC)

THERMO: dict[str, Any] = {
    "planTitle": "Москва → Казань, вакцины",
    "orderRef": "ЗАК-17",
    "originCity": "Москва",
    "destinationCity": "Казань",
    "sendDate": "2027-01-30",
    "transitHours": 60,
    "scenario": "THERMO",
    "cargos": [
        {
            "id": "vac",
            "name": "Вакцина ГамКовидВак",
            "lengthCm": 24,
            "widthCm": 16,
            "heightCm": 12,
            "weightKg": 1.2,
            "quantity": 6,
            "temperatureMode": "PLUS_2_8",
        },
        {
            "id": "ins",
            "name": "Инсулин (α-форма)",
            "lengthCm": 20,
            "widthCm": 15,
            "heightCm": 10,
            "weightKg": 0.8,
            "quantity": 3,
            "temperatureMode": "PLUS_2_8",
            "rules": {"fragile": True, "unloadPriority": 2},
        },
    ],
}

PALLET_LOAD: dict[str, Any] = {
    "planTitle": "Pallets to Kazan",
    "originCity": "Moscow",
    "destinationCity": "Kazan",
    "transitHours": 20,
    "scenario": "PALLET_LOAD",
    "cargos": [
        {
            "id": "w",
            "name": "Water 19 L",
            "lengthCm": 40,
            "widthCm": 30,
            "heightCm": 35,
            "weightKg": 20,
            "quantity": 40,
            "temperatureMode": "NONE",
        },
        {
            "id": "t",
            "name": "Таблетки",
            "lengthCm": 50,
            "widthCm": 40,
            "heightCm": 30,
            "weightKg": 8,
            "quantity": 10,
            "temperatureMode": "NONE",
            "rules": {"fragile": True},
        },
    ],
}

#: Three drops on a 12 t box truck: the front axle comes near its limit after the first stop.
THREE_DROPS: dict[str, Any] = {
    "planTitle": "Three drops",
    "originCity": "Moscow",
    "destinationCity": "Kazan",
    "transitHours": 20,
    "scenario": "PALLET_LOAD",
    "options": {"preferredContainers": ["truck-12t"]},
    "cargos": [
        {
            "id": f"d{d}",
            "name": f"Drop {d}",
            "lengthCm": 60,
            "widthCm": 40,
            "heightCm": 50,
            "weightKg": 30 + 5 * d,
            "quantity": 24,
            "temperatureMode": "NONE",
            "rules": {"unloadPriority": d},
        }
        for d in (1, 2, 3)
    ],
}


def record(body: dict[str, Any], plan_id: str = "pln_fig") -> PackingPlanRecord:
    """The stored record of ``body`` as computed (no mock thermal data)."""
    result = compute_plan(body, use_mock_thermal=False, today=dt.date(2027, 1, 10))
    return PackingPlanRecord(
        planId=plan_id,
        externalRef=body.get("orderRef"),
        source="API",
        createdAt=CREATED,
        input=PackingPlanInput.model_validate(body),
        result=result,
    )


@functools.cache
def thermo() -> PackingPlanRecord:
    return record(THERMO, "pln_thermo")


@functools.cache
def pallet_load() -> PackingPlanRecord:
    return record(PALLET_LOAD, "pln_pallets")


@functools.cache
def three_drops() -> PackingPlanRecord:
    return record(THREE_DROPS, "pln_drops")


def pdf_text(pdf: bytes) -> str:
    """The text a reader's copy and search finds in ``pdf`` (pypdf's extraction)."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() or "" for page in reader.pages)
