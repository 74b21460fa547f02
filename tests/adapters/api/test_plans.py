"""Reading plans back: by id, by orderRef, as PDF, through share links."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from adapters.planning.schemas import PackingPlanRecord
from tests.adapters.helpers import Api, sample_result


def test_get_plan_returns_the_record(api: Api) -> None:
    key = api.key("packing:read")
    plan_id = api.stored_plan(key, order_ref="ord-get")
    response = api.client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": key})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"planId", "externalRef", "source", "createdAt", "input", "result"}
    assert body["planId"] == plan_id and body["externalRef"] == "ord-get"
    assert body["source"] == "API"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["createdAt"])
    assert body["result"] == json.loads(sample_result().model_dump_json())
    assert body["result"]["containers"][0]["coolant"] is None
    assert "alternatives" not in body["result"]
    record = PackingPlanRecord.model_validate(body)
    assert record.input.orderRef == "ord-get"


def test_latest_plan_by_order_ref(api: Api) -> None:
    key = api.key("packing:read")
    api.stored_plan(key, order_ref="ord-latest")
    newest = api.stored_plan(key, order_ref="ord-latest")
    other_org = api.key("packing:read")
    api.stored_plan(other_org, order_ref="ord-latest")
    response = api.client.get(
        "/api/v1/packing/plans", params={"orderRef": "ord-latest"}, headers={"X-Api-Key": key}
    )
    assert response.status_code == 200
    assert response.json()["planId"] == newest


@pytest.mark.parametrize("mode", [None, "summary", "full"])
def test_render_pdf(api: Api, mode: str | None) -> None:
    key = api.key("packing:read")
    plan_id = api.stored_plan(key)
    response = api.client.post(
        f"/api/v1/packing/plans/{plan_id}/render-pdf",
        json=None if mode is None else {"mode": mode},
        headers={"X-Api-Key": key},
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-") and response.content.rstrip().endswith(b"%%EOF")


def test_render_pdf_rejects_an_unknown_mode(api: Api) -> None:
    key = api.key("packing:read")
    plan_id = api.stored_plan(key)
    response = api.client.post(
        f"/api/v1/packing/plans/{plan_id}/render-pdf",
        json={"mode": "poster"},
        headers={"X-Api-Key": key},
    )
    assert response.status_code == 422
    assert "mode" in response.json()["fieldErrors"]


def test_share_link_serves_the_page_without_a_key(api: Api) -> None:
    key = api.key("packing:compute", "packing:read")
    plan_id = api.stored_plan(key)
    response = api.client.post(
        f"/api/v1/packing/plans/{plan_id}/share",
        json={"expiresInHours": 2},
        headers={"X-Api-Key": key},
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"shareId", "url", "expiresAt"}
    expires = dt.datetime.fromisoformat(body["expiresAt"].replace("Z", "+00:00"))
    left = expires - dt.datetime.now(dt.UTC)
    assert dt.timedelta(hours=1, minutes=58) < left <= dt.timedelta(hours=2)
    token = body["url"].rsplit("/share/", 1)[1]
    assert len(token) >= 22  # >= 128 random bits
    page = api.client.get(f"/share/{token}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Vaccines" in page.text and "Box 10 L" in page.text
    assert 'id="view-0"' in page.text and '<script src="assets/plotly.min.js">' in page.text
    script = api.client.get("/share/assets/plotly.min.js")
    assert script.status_code == 200 and b"plotly" in script.content[:2000].lower()


def test_share_defaults_to_a_week_and_checks_the_body(api: Api) -> None:
    key = api.key("packing:compute")
    plan_id = api.stored_plan(key)
    url = f"/api/v1/packing/plans/{plan_id}/share"
    default = api.client.post(url, headers={"X-Api-Key": key})
    expires = dt.datetime.fromisoformat(default.json()["expiresAt"].replace("Z", "+00:00"))
    assert dt.timedelta(hours=167) < expires - dt.datetime.now(dt.UTC) <= dt.timedelta(hours=168)
    for bad in (0, 721, "5"):
        response = api.client.post(url, json={"expiresInHours": bad}, headers={"X-Api-Key": key})
        assert response.status_code == 422
        assert "expiresInHours" in response.json()["fieldErrors"]


@pytest.mark.parametrize("token", ["unknown-token", "expired"])
def test_unknown_or_expired_share_is_a_404_page(api: Api, token: str) -> None:
    if token == "expired":
        key = api.key()
        plan_id = api.stored_plan(key)
        org_id = api.org_id(key)
        _, token = api.service.store.create_share(org_id, plan_id, dt.timedelta(seconds=-1))
    page = api.client.get(f"/share/{token}")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "not found" in page.text.lower()


@pytest.mark.parametrize("action", ["render-pdf", "share"])
@pytest.mark.parametrize("raw", [b"null", b"[]", b'"full"'])
def test_optional_bodies_that_are_not_objects_are_422(api: Api, action: str, raw: bytes) -> None:
    key = api.key("packing:compute", "packing:read")
    plan_id = api.stored_plan(key)
    response = api.client.post(
        f"/api/v1/packing/plans/{plan_id}/{action}",
        content=raw,
        headers={"X-Api-Key": key, "content-type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json() == {
        "error": "validation_failed",
        "fieldErrors": {"body": ["must be a JSON object"]},
    }
