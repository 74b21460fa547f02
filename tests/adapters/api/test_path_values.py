"""Hostile values outside the body's fields: control characters in paths and queries, unpaired
surrogates, thousands of field errors, and what the error log may show.

Path values run against SQLite and PostgreSQL alike: PostgreSQL refuses NUL in text, so a NUL
that reached it would be a 500.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.api.deps import UNPAIRED_SURROGATE
from adapters.api.main import create_app
from adapters.planning.schemas import ROUTE_LANE_EXAMPLE
from tests.adapters.helpers import Api, cargo, make_settings, plan_body

COMPUTE = "/api/v1/packing/compute"
BAD = ["%00", "a%00b", "%01", "%1F", "%7F", "%C2%85", "x%0Ay", "%09"]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def both(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    overrides: dict[str, Any] = {}
    if request.param == "postgres":
        overrides["database_url"] = request.getfixturevalue("postgres_url")
    app = create_app(make_settings(tmp_path_factory.mktemp("paths"), **overrides))
    with TestClient(app) as client:
        yield Api(client, app.state.service)


def _requests(plan_id: str, bad: str) -> list[tuple[str, str, Any]]:
    item = {**cargo("x"), "sku": "SKU-1"}
    del item["id"], item["quantity"]
    lane = ROUTE_LANE_EXAMPLE
    plans = "/api/v1/packing/plans"
    return [
        ("GET", f"{plans}/{bad}", None),
        ("GET", f"{plans}/pln_{bad}", None),
        ("POST", f"{plans}/{bad}/render-pdf", None),
        ("POST", f"{plans}/{bad}/share", None),
        ("DELETE", f"{plans}/{bad}/share/shr_x", None),
        ("DELETE", f"{plans}/{plan_id}/share/shr_{bad}", None),
        ("GET", f"/api/v1/catalog/cargo-items/{bad}", None),
        ("PUT", f"/api/v1/catalog/cargo-items/{bad}", item),
        ("DELETE", f"/api/v1/catalog/cargo-items/{bad}", None),
        ("GET", f"/api/v1/catalog/routes/{bad}/Berlin", None),
        ("GET", f"/api/v1/catalog/routes/Berlin/{bad}", None),
        ("PUT", f"/api/v1/catalog/routes/{bad}/Berlin", lane),
        ("DELETE", f"/api/v1/catalog/routes/Berlin/{bad}", None),
    ]


@pytest.mark.parametrize("bad", BAD)
def test_control_characters_in_path_values_are_404s(both: Api, bad: str) -> None:
    key = both.key()
    plan_id = both.stored_plan(key)
    for method, path, body in _requests(plan_id, bad):
        response = both.client.request(method, path, json=body, headers={"X-Api-Key": key})
        assert response.status_code == 404, (method, path, response.text)
        assert set(response.json()) == {"error"}
    page = both.client.get(f"/share/tok{bad}en")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("bad", BAD)
def test_control_characters_in_the_order_ref_query_are_422s(both: Api, bad: str) -> None:
    response = both.client.get(
        f"/api/v1/packing/plans?orderRef=ord{bad}", headers={"X-Api-Key": both.key()}
    )
    assert response.status_code == 422
    (message,) = response.json()["fieldErrors"]["orderRef"]
    assert message.startswith("must not contain control characters (found U+")


def test_odd_but_printable_path_values_are_plain_404s(both: Api) -> None:
    key = both.key()
    for value in (
        "%FF",
        "%ED%A0%80",
        "x" * 5000,
        "%F0%9F%98%80",
        "..%2F..",
        "'; DROP TABLE plan;--",
    ):
        for path in (f"/api/v1/packing/plans/{value}", f"/api/v1/catalog/cargo-items/{value}"):
            response = both.client.get(path, headers={"X-Api-Key": key})
            assert response.status_code == 404, (path, response.text)


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ('"planTitle": "\\ud800"', "planTitle"),
        ('"planTitle": "ok\\udfffok"', "planTitle"),
        ('"orderRef": "\\udc00"', "orderRef"),
        ('"\\ud800": 1', "body"),
        ('"options": {"\\ud800x": 1}', "options"),
    ],
)
def test_unpaired_surrogates_are_422_on_their_field(both: Api, raw: str, path: str) -> None:
    text = json.dumps(plan_body())[:-1] + ", " + raw + "}"
    response = both.client.post(
        COMPUTE,
        content=text,
        headers={"X-Api-Key": both.key(), "Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert "unpaired surrogate" in response.json()["fieldErrors"][path][0]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32-le"])
def test_unpaired_surrogates_are_422_in_a_body_of_any_unicode_encoding(
    api: Api, encoding: str
) -> None:
    # JSON in UTF-16 or UTF-32 is read as well; its escapes are no ASCII bytes, and such a
    # surrogate once reached the stored JSON: a 500
    key = api.key()
    lane = '{"segments": [{"locationTypeKey": "truck", "cityKey": "Moscow", "hours": 5, '
    for method, path, text, field in [
        ("POST", COMPUTE, json.dumps(plan_body())[:-1] + ', "planTitle": "\\ud800"}', "planTitle"),
        ("PUT", "/api/v1/catalog/routes/Moscow/Kazan", lane + '"label": "\\udfff"}]}',
         "segments[0].label"),
        ("POST", "/api/v1/packing/plans/pln_x/share", '{"\\udc00": 1}', "body"),
    ]:  # fmt: skip
        response = api.client.request(
            method,
            path,
            content=text.encode(encoding),
            headers={"X-Api-Key": key, "Content-Type": "application/json"},
        )
        assert response.status_code == 422, (path, response.text)
        assert response.json()["fieldErrors"] == {field: [UNPAIRED_SURROGATE]}


def test_paired_surrogates_are_ordinary_text(both: Api) -> None:
    item = {**cargo("x"), "sku": "SMILE-1", "name": "PLACEHOLDER"}
    del item["id"], item["quantity"]
    text = json.dumps(item).replace("PLACEHOLDER", "box \\ud83d\\ude00")
    key = both.key()
    made = both.client.post(
        "/api/v1/catalog/cargo-items",
        content=text,
        headers={"X-Api-Key": key, "Content-Type": "application/json"},
    )
    assert made.status_code == 201, made.text
    assert made.json()["name"] == "box \U0001f600"


def test_a_422_lists_at_most_50_field_errors_and_counts_the_rest(api: Api) -> None:
    body = plan_body()
    body.update({f"extra{i}": i for i in range(1284)})
    response = api.client.post(COMPUTE, json=body, headers={"X-Api-Key": api.key()})
    assert response.status_code == 422
    payload = response.json()
    assert set(payload) == {"error", "fieldErrors"} and payload["error"] == "validation_failed"
    errors = payload["fieldErrors"]
    listed = [k for k in errors if k != "body"]
    assert len(listed) == 50 and all(k.startswith("extra") for k in listed)
    assert errors["body"] == ["… and 1234 more field errors"]
    assert all(isinstance(v, list) and all(isinstance(m, str) for m in v) for v in errors.values())


def test_fifty_field_errors_are_listed_without_a_note(api: Api) -> None:
    body = plan_body()
    body.update({f"extra{i}": i for i in range(50)})
    response = api.client.post(COMPUTE, json=body, headers={"X-Api-Key": api.key()})
    assert (
        len(response.json()["fieldErrors"]) == 50 and "body" not in response.json()["fieldErrors"]
    )


# ---------------------------------------------------------------- error logs


def _server_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the service logged (the test client logs the URLs it requests, marker included)."""
    return "\n".join(
        caplog.handler.format(r) for r in caplog.records if not r.name.startswith("httpx")
    )


def test_engines_hide_sql_parameters(both: Api) -> None:
    assert both.service.engine.hide_parameters is True


def test_a_database_error_logs_neither_parameters_nor_messages(
    both: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With the path check out of the way, the value reaches the database; on PostgreSQL the NUL
    fails the statement. The 500 and its log hold no trace of the value."""
    from sqlalchemy.exc import DataError, StatementError

    import adapters.api.routes.plans as plans

    marker = "secret" + secrets.token_hex(6)
    monkeypatch.setattr(plans, "path_value", lambda value, missing: value)
    original = both.service.store.plan

    def plan(organisation_id: int, plan_id: str) -> Any:
        if both.service.engine.dialect.name == "sqlite":  # SQLite takes NUL: fail another way
            raise DataError("SELECT plan WHERE plan_id = ?", (plan_id,), ValueError(plan_id))
        return original(organisation_id, plan_id)

    monkeypatch.setattr(both.service.store, "plan", plan)
    with caplog.at_level(logging.DEBUG):
        response = both.client.get(
            f"/api/v1/packing/plans/{marker}%00", headers={"X-Api-Key": both.key()}
        )
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error."}
    logged = _server_log(caplog)
    assert "DataError" in logged and "unhandled" in logged
    assert marker not in logged, logged
    if both.service.engine.dialect.name == "postgresql":
        with pytest.raises(StatementError) as raised:
            original(1, marker + "\x00")
        assert marker not in str(raised.value), "SQLAlchemy's own message hides it too"


def test_an_unforeseen_error_does_not_log_the_body(
    api: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    marker = "secret" + secrets.token_hex(6)

    def save_plan(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"could not store {kwargs.get('input_json')}")

    monkeypatch.setattr(api.service.store, "save_plan", save_plan)
    with caplog.at_level(logging.DEBUG):
        response = api.client.post(
            COMPUTE, json=plan_body(planTitle=marker), headers={"X-Api-Key": api.key()}
        )
    assert response.status_code == 500
    logged = _server_log(caplog)
    assert "ValueError" in logged and "save_plan" in logged
    assert marker not in logged and marker not in response.text
