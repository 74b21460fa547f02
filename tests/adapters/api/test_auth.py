"""Every endpoint × every scope × a missing, wrong or revoked key."""

from __future__ import annotations

from typing import Any

import pytest

from tests.adapters.helpers import ALL_SCOPES, Api, plan_body

# (method, path template, scope needed, JSON body or None)
PROTECTED: list[tuple[str, str, str, Any]] = [
    ("POST", "/api/v1/packing/compute", "packing:compute", {}),
    ("GET", "/api/v1/packing/plans?orderRef=ord-1", "packing:read", None),
    ("GET", "/api/v1/packing/plans/{plan}", "packing:read", None),
    ("POST", "/api/v1/packing/plans/{plan}/render-pdf", "packing:read", None),
    ("POST", "/api/v1/packing/plans/{plan}/share", "packing:compute", None),
    ("GET", "/api/v1/catalog/containers", "catalog:read", None),
    ("GET", "/api/v1/catalog/pallet-templates", "catalog:read", None),
    ("GET", "/api/v1/catalog/vehicles", "catalog:read", None),
    ("GET", "/api/v1/catalog/cargo-items", "catalog:read", None),
    ("GET", "/api/v1/catalog/cargo-items/S-1", "catalog:read", None),
    ("POST", "/api/v1/catalog/cargo-items", "catalog:write", {"sku": "bad sku"}),
    ("PUT", "/api/v1/catalog/cargo-items/S-1", "catalog:write", {"sku": "S-1"}),
    ("DELETE", "/api/v1/catalog/cargo-items/S-1", "catalog:write", None),
]
IDS = [f"{m} {p.split('?')[0]}" for m, p, _, _ in PROTECTED]


def _call(
    api: Api, method: str, path: str, body: Any, key: str | list[str] | None, plan: str
) -> Any:
    # a list: the header once for each of its keys
    headers = (
        [] if key is None else [("X-Api-Key", k) for k in ([key] if isinstance(key, str) else key)]
    )
    return api.client.request(method, path.format(plan=plan), json=body, headers=headers)


@pytest.fixture(scope="module")
def owner(api: Api) -> tuple[str, str]:
    key = api.key(*ALL_SCOPES)
    return key, api.stored_plan(key)


@pytest.mark.parametrize(("method", "path", "scope", "body"), PROTECTED, ids=IDS)
@pytest.mark.parametrize("kind", ["missing", "wrong", "revoked", "malformed", "twice", "two"])
def test_without_a_valid_key_is_401(
    api: Api, owner: tuple[str, str], method: str, path: str, scope: str, body: Any, kind: str
) -> None:
    # the header given twice is no key, whatever the two say: which one a proxy or a
    # server reads is not for the caller to guess
    key: str | list[str] | None
    if kind == "missing":
        key = None
    elif kind == "twice":
        key = [owner[0], owner[0]]
    elif kind == "two":
        key = [owner[0], owner[0][:-4] + "AAAA"]
    elif kind == "wrong":
        key = owner[0][:-4] + "AAAA"
    elif kind == "malformed":
        key = "not-a-key"
    else:
        key = api.key(*ALL_SCOPES)
        key_id = api.service.store.authenticate(key)
        assert key_id is not None
        assert api.service.store.revoke_key(key_id.key_id)
    response = _call(api, method, path, body, key, owner[1])
    assert response.status_code == 401
    assert response.json() == {"error": "auth_invalid"}


@pytest.mark.parametrize(("method", "path", "scope", "body"), PROTECTED, ids=IDS)
@pytest.mark.parametrize("held", ALL_SCOPES)
def test_scope_decides_between_403_and_access(
    api: Api, owner: tuple[str, str], method: str, path: str, scope: str, body: Any, held: str
) -> None:
    org = api.service.store.authenticate(owner[0])
    assert org is not None
    key = api.key(held, org=org.organisation)
    response = _call(api, method, path, body, key, owner[1])
    if held == scope:
        assert response.status_code not in (401, 403), response.text
    else:
        assert response.status_code == 403
        assert response.json() == {"error": "scope_denied"}


@pytest.mark.parametrize("path", ["/api/health", "/api/v1/openapi.json"])
def test_health_and_openapi_need_no_key(api: Api, path: str) -> None:
    response = api.client.get(path)
    assert response.status_code == 200
    if path == "/api/health":
        assert response.json() == {"status": "ok"}
    else:
        assert response.json()["info"]["version"] == "1.1.0"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/packing/compute",
        "/api/v1/packing/plans/pln_x",
        "/api/v1/catalog/containers",
        "/api/v1/catalog/pallet-templates",
        "/api/v1/catalog/vehicles",
    ],
)
def test_cors_preflight_is_204_and_empty_without_key(api: Api, path: str) -> None:
    response = api.client.options(
        path,
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-Api-Key, Content-Type",
        },
    )
    assert response.status_code == 204
    assert response.content == b""
    assert response.headers["access-control-allow-origin"] == "*"
    assert "X-Api-Key" in response.headers["access-control-allow-headers"]
    assert "POST" in response.headers["access-control-allow-methods"]


def test_cors_header_on_normal_responses(api: Api) -> None:
    response = api.client.get("/api/health", headers={"Origin": "https://app.example"})
    assert response.headers["access-control-allow-origin"] == "*"


def test_key_issue_stores_only_a_digest(api: Api) -> None:
    key = api.key("packing:read")
    assert key.startswith("tbp_") and len(key) >= 4 + 32
    info = api.service.store.authenticate(key)
    assert info is not None
    [row] = [k for k in api.service.store.list_keys(info.organisation) if k.id == info.key_id]
    assert key not in (row.digest, row.prefix, row.scopes)
    assert len(row.digest) == 64 and key.startswith(row.prefix)


def test_body_shape_of_a_compute_with_scope_is_not_an_auth_error(api: Api) -> None:
    response = api.client.post(
        "/api/v1/packing/compute", json=plan_body(cargos=[]), headers={"X-Api-Key": api.key()}
    )
    assert response.status_code == 422
