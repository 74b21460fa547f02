"""The published OpenAPI document: version, scopes, errors, security, exact contract shapes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.adapters.helpers import Api

SCOPED = {
    ("post", "/api/v1/packing/compute"): "packing:compute",
    ("get", "/api/v1/packing/plans"): "packing:read",
    ("get", "/api/v1/packing/plans/{id}"): "packing:read",
    ("post", "/api/v1/packing/plans/{id}/render-pdf"): "packing:read",
    ("post", "/api/v1/packing/plans/{id}/share"): "packing:compute",
    ("delete", "/api/v1/packing/plans/{id}/share/{shareId}"): "packing:compute",
    ("get", "/api/v1/catalog/containers"): "catalog:read",
    ("get", "/api/v1/catalog/pallet-templates"): "catalog:read",
    ("get", "/api/v1/catalog/vehicles"): "catalog:read",
    ("get", "/api/v1/catalog/cargo-items"): "catalog:read",
    ("post", "/api/v1/catalog/cargo-items"): "catalog:write",
    ("get", "/api/v1/catalog/cargo-items/{sku}"): "catalog:read",
    ("put", "/api/v1/catalog/cargo-items/{sku}"): "catalog:write",
    ("delete", "/api/v1/catalog/cargo-items/{sku}"): "catalog:write",
    ("get", "/api/v1/catalog/routes"): "catalog:read",
    ("get", "/api/v1/catalog/routes/{origin}/{destination}"): "catalog:read",
    ("put", "/api/v1/catalog/routes/{origin}/{destination}"): "catalog:write",
    ("delete", "/api/v1/catalog/routes/{origin}/{destination}"): "catalog:write",
}


@pytest.fixture(scope="module")
def doc(api: Api) -> dict[str, Any]:
    response = api.client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def test_version_and_security_scheme(doc: dict[str, Any]) -> None:
    assert doc["openapi"] == "3.1.0"
    assert doc["info"]["version"] == "1.1.0"
    assert doc["components"]["securitySchemes"]["ApiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
        "description": doc["components"]["securitySchemes"]["ApiKey"]["description"],
    }


@pytest.mark.parametrize(("method", "path"), list(SCOPED), ids=[f"{m} {p}" for m, p in SCOPED])
def test_every_operation_names_its_scope_and_errors(
    doc: dict[str, Any], method: str, path: str
) -> None:
    op = doc["paths"][path][method]
    scope = SCOPED[(method, path)]
    assert op["x-scopes"] == [scope]
    assert f"`{scope}`" in op["description"]
    assert op["security"] == [{"ApiKey": []}]
    for status in ("401", "403", "500"):
        ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        assert ref == "#/components/schemas/ErrorBody"


def test_compute_documents_every_status_of_the_contract(doc: dict[str, Any]) -> None:
    responses = doc["paths"]["/api/v1/packing/compute"]["post"]["responses"]
    assert set(responses) >= {"200", "400", "401", "402", "403", "413", "422", "429", "500", "503"}

    def ref(status: str) -> str:
        ref_: str = responses[status]["content"]["application/json"]["schema"]["$ref"]
        return ref_.rsplit("/", 1)[1]

    assert ref("200") == "ComputePackingResponse"
    assert ref("422") == "ValidationErrorBody"
    assert ref("429") == "RateLimitErrorBody"
    assert ref("402") == "QuotaErrorBody"
    assert ref("503") == "CapacityErrorBody"
    for status in ("429", "503"):
        assert responses[status]["headers"]["Retry-After"]["required"] is True
    body = doc["paths"]["/api/v1/packing/compute"]["post"]["requestBody"]
    assert body["required"] is True


@pytest.mark.parametrize(
    ("method", "path"), [("get", "/api/health"), ("get", "/api/v1/openapi.json")]
)
def test_public_operations_need_no_key(doc: dict[str, Any], method: str, path: str) -> None:
    op = doc["paths"][path][method]
    assert op["security"] == [] and op["x-scopes"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/packing/compute",
        "/api/v1/packing/plans/{id}",
        "/api/v1/catalog/containers",
        "/api/v1/catalog/pallet-templates",
        "/api/v1/catalog/vehicles",
    ],
)
def test_preflight_is_documented(doc: dict[str, Any], path: str) -> None:
    assert set(doc["paths"][path]["options"]["responses"]) == {"204"}


def test_contract_shapes(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    plan_input = schemas["PackingPlanInput"]
    assert plan_input["additionalProperties"] is False
    assert set(plan_input["required"]) == {"originCity", "destinationCity", "cargos"}
    assert plan_input["properties"]["cargos"]["minItems"] == 1
    assert plan_input["properties"]["cargos"]["maxItems"] == 100
    assert plan_input["properties"]["planTitle"] == {
        "type": "string",
        "maxLength": 200,
        "title": "Plantitle",
        "description": plan_input["properties"]["planTitle"]["description"],
    }
    cargo = schemas["PackingCargoItem"]
    assert set(cargo["required"]) == {"id", "quantity"}
    assert {"required": ["sku"]} in cargo["anyOf"]
    assert cargo["properties"]["lengthCm"]["exclusiveMinimum"] == 0
    options = schemas["PackingPlanOptions"]["properties"]
    assert (options["maxContainers"]["minimum"], options["maxContainers"]["maximum"]) == (1, 200)
    assert options["packingBudgetMs"]["maximum"] == 120000
    allocation = schemas["ContainerAllocation"]
    assert "coolant" in allocation["required"]
    assert {"type": "null"} in allocation["properties"]["coolant"]["anyOf"]
    record = schemas["PackingPlanRecord"]
    assert {"type": "null"} in record["properties"]["externalRef"]["anyOf"]
    mode = schemas["CombinedModeReport"]
    assert "errorCode" not in mode["required"] and "anyOf" not in mode["properties"]["errorCode"]
    assert schemas["TemperatureModeCode"]["enum"] == [
        "PLUS_15_25",
        "PLUS_2_25",
        "PLUS_2_8",
        "MINUS_25_15",
        "MINUS_78",
        "MINUS_196",
        "NONE",
    ]
    assert schemas["RateLimitErrorBody"]["properties"]["retryAfterSec"]["minimum"] == 1


@pytest.mark.parametrize(
    ("method", "path", "model", "required"),
    [
        ("post", "/api/v1/packing/compute", "PackingPlanInput", True),
        ("post", "/api/v1/packing/plans/{id}/render-pdf", "RenderPdfRequest", False),
        ("post", "/api/v1/packing/plans/{id}/share", "ShareRequest", False),
        ("post", "/api/v1/catalog/cargo-items", "CargoCatalogItem", True),
        ("put", "/api/v1/catalog/cargo-items/{sku}", "CargoCatalogItem", True),
    ],
)
def test_request_bodies_are_documented(
    doc: dict[str, Any], method: str, path: str, model: str, required: bool
) -> None:
    body = doc["paths"][path][method]["requestBody"]
    assert body["required"] is required
    assert body["content"]["application/json"]["schema"] == {
        "$ref": f"#/components/schemas/{model}"
    }
    assert model in doc["components"]["schemas"]


def test_the_lane_example_is_documented_and_valid(api: Api, doc: dict[str, Any]) -> None:
    [example] = doc["components"]["schemas"]["RouteLaneInput"]["examples"]
    response = api.client.put(
        "/api/v1/catalog/routes/Moscow/Kazan", json=example, headers={"X-Api-Key": api.key()}
    )
    assert response.status_code in (200, 201), response.text


def test_no_framework_error_shapes_and_every_keyed_path_has_a_preflight(
    doc: dict[str, Any],
) -> None:
    assert "HTTPValidationError" not in str(doc)
    keyed = {path for _, path in SCOPED}
    assert {p for p, ops in doc["paths"].items() if "options" in ops} == keyed
