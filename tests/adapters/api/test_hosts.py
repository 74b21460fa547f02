"""The Host check: PACKPLAN_ALLOWED_HOSTS and its default."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from adapters.api.main import create_app
from adapters.api.middleware import HostCheck
from adapters.api.settings import Settings
from tests.adapters.helpers import Api, make_settings, plan_body

FOREIGN = "The Host header names a host this service does not serve."


def test_the_default_allows_only_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PACKPLAN_ALLOWED_HOSTS", raising=False)
    monkeypatch.delenv("PACKPLAN_PUBLIC_URL", raising=False)
    assert Settings().host_names() == ("localhost", "127.0.0.1", "[::1]")
    with_public = Settings(public_url="https://Plans.Example.org:8443/base")
    assert with_public.host_names() == ("localhost", "127.0.0.1", "[::1]", "plans.example.org")
    assert Settings(public_url="http://[2001:db8::1]:80").host_names()[-1] == "[2001:db8::1]"
    assert Settings(allowed_hosts=" a.example , B.example ").host_names() == (
        "a.example",
        "b.example",
    )
    assert Settings(allowed_hosts=" ").host_names() == ("localhost", "127.0.0.1", "[::1]")


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost", True),
        ("localhost:8000", True),
        ("LOCALHOST:8000", True),
        ("127.0.0.1:1", True),
        ("[::1]:8000", True),
        ("[::1]", True),
        ("api.example.org", True),
        ("deep.api.example.org:443", True),
        ("example.org", False),
        ("evil.example", False),
        ("localhost.evil.example", False),
        ("127.0.0.2", False),
        ("localhost@evil.example", False),
        # not a host[:port] at all: the request's URL would not name this host (a share
        # link's URL fell back to the server's own address)
        ("evil.example/.example.org", False),
        ("evil.example?.example.org", False),
        ("evil.example#.example.org", False),
        ("evil.example\\.example.org", False),
        ("evil.example .example.org", False),
        ("localhost:abc", False),
        ("localhost:80/x", False),
        ("[::1]x", False),
        ("", False),
        (None, False),
    ],
)
def test_host_matching(host: str | None, allowed: bool) -> None:
    check = HostCheck(lambda *a: None, ["localhost", "127.0.0.1", "[::1]", "*.example.org"])  # type: ignore[arg-type]
    assert check.allows(host) is allowed


def test_a_star_allows_any_host() -> None:
    assert HostCheck(lambda *a: None, ["*"]).allows("anything.example")  # type: ignore[arg-type]


def test_a_share_link_never_names_a_host_that_is_not_allowed(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, allowed_hosts="*.example.org"))
    with TestClient(app) as client:
        api = Api(client, app.state.service)
        key = api.key()
        url = f"/api/v1/packing/plans/{api.stored_plan(key)}/share"
        ok = client.post(url, headers={"X-Api-Key": key, "Host": "plans.example.org"})
        assert ok.json()["url"].startswith("http://plans.example.org/share/")
        odd = client.post(url, headers={"X-Api-Key": key, "Host": "evil.example/.example.org"})
        assert (odd.status_code, odd.json()) == (400, {"error": FOREIGN})


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/health"),
        ("GET", "/api/v1/openapi.json"),
        ("POST", "/api/v1/packing/compute"),
        ("GET", "/share/some-token"),
        ("OPTIONS", "/api/v1/packing/compute"),
    ],
)
def test_a_foreign_host_is_a_400(api: Api, method: str, path: str) -> None:
    response = api.client.request(
        method,
        path,
        json=plan_body() if method == "POST" else None,
        headers={"Host": "evil.example", "X-Api-Key": api.key(), "Origin": "https://x.example"},
    )
    assert response.status_code == 400
    assert response.json() == {"error": FOREIGN}


def test_the_allowed_test_host_is_served(api: Api) -> None:
    assert api.client.get("/api/health", headers={"Host": "testserver:80"}).status_code == 200
