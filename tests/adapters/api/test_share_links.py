"""Share links: revoking them, the headers of their pages, the address they are built from."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.api.main import create_app
from tests.adapters.helpers import Api, make_settings

PAGE_HEADERS = {"cache-control": "no-store", "referrer-policy": "no-referrer"}


def _share(api: Api, key: str, plan_id: str) -> tuple[str, str]:
    made = api.client.post(f"/api/v1/packing/plans/{plan_id}/share", headers={"X-Api-Key": key})
    assert made.status_code == 201, made.text
    assert made.headers["cache-control"] == "no-store"
    body = made.json()
    return body["shareId"], body["url"].rsplit("/share/", 1)[1]


def test_a_revoked_link_is_a_404_page(api: Api) -> None:
    key = api.key("packing:compute")
    plan_id = api.stored_plan(key)
    share_id, token = _share(api, key, plan_id)
    _, kept_token = _share(api, key, plan_id)
    assert api.client.get(f"/share/{token}").status_code == 200

    url = f"/api/v1/packing/plans/{plan_id}/share/{share_id}"
    revoked = api.client.delete(url, headers={"X-Api-Key": key})
    assert revoked.status_code == 204 and revoked.content == b""
    page = api.client.get(f"/share/{token}")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    again = api.client.delete(url, headers={"X-Api-Key": key})
    assert again.status_code == 404
    assert again.json() == {"error": "The plan has no such share link."}
    assert api.client.get(f"/share/{kept_token}").status_code == 200, "other links stay"


def _builds_done(share: Any) -> None:
    """Wait for the builds ahead asked for so far (one thread takes them in turn)."""
    share._AHEAD.submit(lambda: None).result(timeout=600)


def test_a_new_link_has_its_page_built_before_anyone_reads_it(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapters.api import share_page as pages
    from adapters.api.routes import share

    key = api.key("packing:compute")
    plan_id = api.stored_plan(key)
    assert plan_id not in pages.PAGES
    _, token = _share(api, key, plan_id)
    _builds_done(share)
    assert plan_id in pages.PAGES
    built = pages.PAGES.get(plan_id, lambda: "not this")

    def no_build(record: object) -> str:
        raise AssertionError("the page was built again")

    monkeypatch.setattr(share, "share_page", no_build)
    page = api.client.get(f"/share/{token}")
    assert page.status_code == 200 and page.text == built


def test_making_a_link_does_not_wait_for_its_page(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapters.api import share_page as pages
    from adapters.api.routes import share

    started, release = threading.Event(), threading.Event()

    def held(record: object) -> str:
        started.set()
        release.wait(600)
        return "<html>the page</html>"

    monkeypatch.setattr(share, "share_page", held)
    key = api.key("packing:compute")
    plan_id = api.stored_plan(key)
    _share(api, key, plan_id)  # answered while its page is still being built
    assert started.wait(600)
    assert plan_id not in pages.PAGES
    release.set()
    _builds_done(share)
    assert pages.PAGES.get(plan_id, lambda: "built again") == "<html>the page</html>"


def test_a_page_not_built_ahead_is_built_by_its_reader(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapters.api import share_page as pages
    from adapters.api.routes import share

    real = share.share_page
    calls: list[int] = []

    def failing_once(record: object) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a build that failed")
        return real(record)

    monkeypatch.setattr(share, "share_page", failing_once)
    key = api.key("packing:compute")
    plan_id = api.stored_plan(key)
    _, token = _share(api, key, plan_id)  # answered 201 although the build ahead failed
    _builds_done(share)
    assert plan_id not in pages.PAGES and calls == [1]
    page = api.client.get(f"/share/{token}")
    assert page.status_code == 200 and plan_id in page.text and len(calls) == 2


def test_revoking_needs_the_compute_scope_and_the_owning_organisation(api: Api) -> None:
    owner = api.key("packing:compute")
    plan_id = api.stored_plan(owner)
    share_id, token = _share(api, owner, plan_id)
    url = f"/api/v1/packing/plans/{plan_id}/share/{share_id}"

    reader = api.key("packing:read", org=api.service.store.authenticate(owner).organisation)  # type: ignore[union-attr]
    assert api.client.delete(url, headers={"X-Api-Key": reader}).status_code == 403
    assert api.client.delete(url).status_code == 401

    stranger = api.key("packing:compute")
    theirs = api.client.delete(url, headers={"X-Api-Key": stranger})
    assert theirs.status_code == 404 and theirs.json() == {"error": "The plan does not exist."}
    # the stranger's own plan with the owner's share id: no such link on that plan
    own_plan = api.stored_plan(stranger)
    crossed = api.client.delete(
        f"/api/v1/packing/plans/{own_plan}/share/{share_id}", headers={"X-Api-Key": stranger}
    )
    assert crossed.status_code == 404
    # and the owner's other plan does not hold it either
    other_plan = api.stored_plan(owner)
    wrong_plan = api.client.delete(
        f"/api/v1/packing/plans/{other_plan}/share/{share_id}", headers={"X-Api-Key": owner}
    )
    assert wrong_plan.status_code == 404
    assert api.client.get(f"/share/{token}").status_code == 200, "nothing was revoked"


@pytest.mark.parametrize("kind", ["page", "missing"])
def test_share_pages_are_not_cached_and_send_no_referrer(api: Api, kind: str) -> None:
    token = "no-such-token"
    if kind == "page":
        key = api.key("packing:compute")
        _, token = _share(api, key, api.stored_plan(key))
    page = api.client.get(f"/share/{token}")
    assert page.status_code == (200 if kind == "page" else 404)
    for name, value in PAGE_HEADERS.items():
        assert page.headers[name] == value


def test_share_links_use_the_public_url_or_an_allowed_host(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, allowed_hosts="testserver,localhost")
    with TestClient(create_app(settings)) as client:
        api = Api(client, client.app.state.service)  # type: ignore[attr-defined]
        key = api.key("packing:compute")
        plan_id = api.stored_plan(key)
        url = f"/api/v1/packing/plans/{plan_id}/share"
        h = {"X-Api-Key": key}
        local = client.post(url, headers={**h, "Host": "localhost:8123"})
        assert local.json()["url"].startswith("http://localhost:8123/share/")
        foreign = client.post(url, headers={**h, "Host": "evil.example"})
        assert foreign.status_code == 400 and "url" not in foreign.json()

    public = make_settings(tmp_path, public_url="https://plans.example.org/")
    with TestClient(create_app(public)) as client:
        api = Api(client, client.app.state.service)  # type: ignore[attr-defined]
        key = api.key("packing:compute")
        made = client.post(
            f"/api/v1/packing/plans/{api.stored_plan(key)}/share", headers={"X-Api-Key": key}
        )
        assert made.json()["url"].startswith("https://plans.example.org/share/")


def test_share_and_pdf_bodies_take_whole_numbers_as_numbers_and_refuse_nulls(api: Api) -> None:
    """decisions §7: integer fields accept integer-valued numbers (``2.0``); an explicit
    null is refused by name, as in a compute body."""
    key = api.key("packing:compute", "packing:read")
    plan_id = api.stored_plan(key)
    url = f"/api/v1/packing/plans/{plan_id}"
    for hours in (24.0, 1e2):
        made = api.client.post(
            f"{url}/share", json={"expiresInHours": hours}, headers={"X-Api-Key": key}
        )
        assert made.status_code == 201, made.text
    for path, body, field in (
        ("share", {"expiresInHours": None}, "expiresInHours"),
        ("share", {"expiresInHours": 2.5}, "expiresInHours"),
        ("render-pdf", {"mode": None}, "mode"),
    ):
        bad = api.client.post(f"{url}/{path}", json=body, headers={"X-Api-Key": key})
        assert bad.status_code == 422, bad.text
        message = bad.json()["fieldErrors"][field][0]
        if body[field] is None:
            assert message == "must not be null"
        else:
            assert message == "must be an integer"
