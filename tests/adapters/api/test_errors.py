"""Every error status of the contract, with its exact body, and the order of checks on compute."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.api.deps import TOO_DEEP
from adapters.api.main import create_app
from tests.adapters.helpers import Api, cargo, make_settings, new_org, plan_body

COMPUTE = "/api/v1/packing/compute"


def _post(api: Api, key: str, content: bytes | str) -> Any:
    return api.client.post(
        COMPUTE, content=content, headers={"X-Api-Key": key, "Content-Type": "application/json"}
    )


@pytest.mark.parametrize(
    ("kind", "given", "ctx", "expected"),
    [
        ("too_short", [], {"min_length": 1}, "must not be empty"),
        ("too_short", [1], {"min_length": 2}, "must have at least 2 entries"),
        ("too_long", [1, 2], {"max_length": 1}, "must have at most 1 entry"),
        ("too_long", [1, 2, 3], {"max_length": 2}, "must have at most 2 entries"),
        ("string_too_long", "ab", {"max_length": 1}, "must have at most 1 character"),
        ("too_short", "", {"min_length": 1}, "must not be empty"),
        ("too_long", "abc", {"max_length": 2}, "must have at most 2 characters"),
    ],
)
def test_length_messages_count_in_words(kind: str, given: Any, ctx: dict, expected: str) -> None:
    from adapters.api.errors import message

    assert message({"type": kind, "loc": (), "msg": "", "input": given, "ctx": ctx}) == expected


@pytest.mark.parametrize(
    "content", [b"{bad", b"", b"   ", b'{"a": NaN}', b"\xff\xfe{", b"[" * 100_000]
)
def test_invalid_json_is_400_with_a_sentence(api: Api, content: bytes) -> None:
    response = _post(api, api.key(), content)
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"].endswith(".") and " " in body["error"]


def test_a_property_given_twice_is_a_422_naming_each_one(api: Api) -> None:
    # readers differ on which of two values counts: none is taken
    text = json.dumps(plan_body(cargos=[cargo("a"), cargo("b")]))
    text = text.replace('"scenario": "PLAIN"', '"scenario": "PLAIN", "scenario": "THERMO"')
    text = text.replace('"quantity": 2', '"quantity": 2, "quantity": 9000', 1)
    text = text.replace('"id": "b"', '"id": "b", "id": "c", "id": "b"')
    response = _post(api, api.key(), text)
    assert response.status_code == 422
    message = "is given more than once in its object; each property may appear once"
    assert response.json() == {
        "error": "validation_failed",
        "fieldErrors": {
            "scenario": [message],
            "cargos[0].quantity": [message],
            "cargos[1].id": [message],
        },
    }
    assert list(response.json()["fieldErrors"]) == [
        "scenario",
        "cargos[0].quantity",
        "cargos[1].id",
    ]


def test_many_repeated_names_are_listed_up_to_the_cap(api: Api) -> None:
    text = "{" + ",".join(f'"k{i}": 0, "k{i}": 1' for i in range(60)) + "}"
    response = _post(api, api.key(), text)
    assert response.status_code == 422
    fields = response.json()["fieldErrors"]
    assert list(fields)[:3] == ["k0", "k1", "k2"] and len(fields) == 51
    assert fields["body"] == ["… and 10 more field errors"]


def test_equal_names_in_different_objects_are_not_repeats(api: Api) -> None:
    response = _post(api, api.key(), json.dumps(plan_body(cargos=[cargo("a"), cargo("b")])))
    assert response.status_code == 200


def test_body_over_one_mib_is_413(api: Api) -> None:
    body = plan_body(planTitle="x" * 100, orderRef="y" * 10)
    body["padding"] = " " * 0  # unknown property: 413 still comes first
    text = json.dumps(body)
    text = text[:-1] + " " * (1_048_576 - len(text) + 10) + "}"
    response = _post(api, api.key(), text)
    assert response.status_code == 413
    assert set(response.json()) == {"error"}


def test_invalid_json_over_one_mib_is_400_first(api: Api) -> None:
    response = _post(api, api.key(), b"{" + b" " * 1_100_000)
    assert response.status_code == 400


CASES_422: list[tuple[dict[str, Any], str, str]] = [
    (plan_body(cargos=[cargo(lengthCm=0)]), "cargos[0].lengthCm", "must be greater than 0"),
    (plan_body(cargos=[cargo(weightKg=-1)]), "cargos[0].weightKg", "greater than or equal to 0"),
    (plan_body(cargos=[cargo(quantity=0)]), "cargos[0].quantity", "greater than or equal to 1"),
    (plan_body(cargos=[cargo(quantity="2")]), "cargos[0].quantity", "must be an integer"),
    (plan_body(cargos=[cargo(extra=1)]), "cargos[0].extra", "is not allowed"),
    (plan_body(surprise=True), "surprise", "is not allowed"),
    (plan_body(cargos=[cargo("a"), cargo("a")]), "cargos[1].id", "duplicate"),
    (plan_body(scenario="TRANSPORT"), "scenario", "must be one of"),
    (plan_body(cargos=[]), "cargos", "must not be empty"),
    (plan_body(cargos=[cargo(str(i)) for i in range(101)]), "cargos", "at most 100 entries"),
    (plan_body(planTitle="t" * 201), "planTitle", "must have at most 200 characters"),
    (plan_body(orderRef="o" * 121), "orderRef", "must have at most 120 characters"),
    (plan_body(cargos=[cargo(name="n" * 301)]), "cargos[0].name", "at most 300 characters"),
    (plan_body(cargos=[cargo(name="")]), "cargos[0].name", "must not be empty"),
    (plan_body(transitHours=0), "transitHours", "must be greater than 0"),
    (plan_body(sendDate="01.02.2025"), "sendDate", "YYYY-MM-DD"),
    (plan_body(originCity=""), "originCity", "must not be empty"),
    (plan_body(orderRef=""), "orderRef", "must not be empty"),
    (
        plan_body(options={"maxContainers": 201}),
        "options.maxContainers",
        "less than or equal to 200",
    ),
    (plan_body(options={"maxContainers": 0}), "options.maxContainers", "1"),
    (plan_body(options={"packingBudgetMs": 120001}), "options.packingBudgetMs", "120000"),
    (plan_body(options={"algorithm": "magic"}), "options.algorithm", "first-fit-decreasing"),
    (
        plan_body(cargos=[cargo(rules={"unloadPriority": -1})]),
        "cargos[0].rules.unloadPriority",
        "greater than or equal to 0",
    ),
    (plan_body(cargos=[cargo(temperatureMode="WARM")]), "cargos[0].temperatureMode", "one of"),
    (plan_body(cargos=[cargo(name=None)]), "cargos[0].name", "must not be null"),
    (
        plan_body(cargos=[{"id": "x", "quantity": 1}]),
        "cargos[0].lengthCm",
        "is required",
    ),
    (plan_body(cargos=[cargo(sku="NOPE-1")]), "cargos[0].sku", "unknown SKU"),
]


@pytest.mark.parametrize(
    ("body", "path", "text"), CASES_422, ids=[c[1] + ":" + c[2] for c in CASES_422]
)
def test_422_names_the_json_path(api: Api, body: dict[str, Any], path: str, text: str) -> None:
    response = api.client.post(COMPUTE, json=body, headers={"X-Api-Key": api.key()})
    assert response.status_code == 422, response.text
    payload = response.json()
    assert payload["error"] == "validation_failed"
    assert set(payload) == {"error", "fieldErrors"}
    assert path in payload["fieldErrors"], payload
    assert any(text in m for m in payload["fieldErrors"][path]), payload


def test_422_reports_every_problem_at_once(api: Api) -> None:
    body = plan_body(scenario="TRANSPORT", cargos=[cargo(lengthCm=0, widthCm=-1)], x=1)
    response = api.client.post(COMPUTE, json=body, headers={"X-Api-Key": api.key()})
    assert set(response.json()["fieldErrors"]) == {
        "scenario",
        "cargos[0].lengthCm",
        "cargos[0].widthCm",
        "x",
    }


@pytest.mark.parametrize("body", [[], "text", 3, None])
def test_json_that_is_not_an_object_is_422_on_body(api: Api, body: Any) -> None:
    response = _post(api, api.key(), json.dumps(body))
    assert response.status_code == 422
    assert response.json() == {
        "error": "validation_failed",
        "fieldErrors": {"body": ["must be a JSON object"]},
    }


def test_other_organisations_plan_is_404_like_a_missing_one(api: Api) -> None:
    owner = api.key()
    plan_id = api.stored_plan(owner)
    stranger = api.key()
    theirs = api.client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": stranger})
    missing = api.client.get("/api/v1/packing/plans/pln_missing", headers={"X-Api-Key": stranger})
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == missing.json()
    assert "plan" in theirs.json()["error"].lower()
    for path in ("render-pdf", "share"):
        r = api.client.post(
            f"/api/v1/packing/plans/{plan_id}/{path}", headers={"X-Api-Key": stranger}
        )
        assert r.status_code == 404 and r.json() == missing.json()
    mine = api.client.get(f"/api/v1/packing/plans/{plan_id}", headers={"X-Api-Key": owner})
    assert mine.status_code == 200


def test_503_when_every_compute_slot_is_taken(api: Api) -> None:
    key = api.key()
    pool = api.service.pool
    taken = 0
    while pool.try_acquire():
        taken += 1
    org = api.org_id(key)
    try:
        response = api.client.post(COMPUTE, json=plan_body(), headers={"X-Api-Key": key})
    finally:
        for _ in range(taken):
            pool.release()
    assert response.status_code == 503
    seconds = api.service.settings.busy_retry_after_s
    assert response.json() == {"error": "compute_capacity_exceeded", "retryAfterSec": seconds}
    assert response.headers["Retry-After"] == str(seconds)
    used = [api.service.store.quota_used(org, p) for p in _periods()]
    assert used == [0, 0], "a refused computation must not use quota"


def _periods() -> list[str]:
    import datetime as dt

    from adapters.api.limiting import quota_period

    now = dt.datetime.now(dt.UTC)
    return [quota_period(now, sandbox=s)[0] for s in (True, False)]


def test_500_is_an_error_body_without_internals(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("password=hunter2 at /srv/secret.py line 3")

    key = api.key()
    monkeypatch.setattr(api.service.store, "plan", broken)
    response = api.client.get("/api/v1/packing/plans/pln_x", headers={"X-Api-Key": key})
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error."}
    assert "hunter2" not in response.text and "Traceback" not in response.text


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/api/v2/nothing", 404), ("DELETE", "/api/health", 405), ("PATCH", COMPUTE, 405)],
)
def test_framework_errors_keep_the_error_body(
    api: Api, method: str, path: str, status: int
) -> None:
    response = api.client.request(method, path, headers={"X-Api-Key": api.key()})
    assert response.status_code == status
    assert set(response.json()) == {"error"}


@pytest.mark.parametrize(
    "path", ["/api/health", "/api/v1/catalog/containers", "/api/v1/packing/plans/pln_missing"]
)
def test_head_answers_as_get_without_a_body(api: Api, path: str) -> None:
    headers = {"X-Api-Key": api.key()}
    got = api.client.get(path, headers=headers)
    head = api.client.head(path, headers=headers)
    assert head.status_code == got.status_code
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == str(len(got.content))


def test_head_without_a_get_is_405_and_journalled_as_head(api: Api) -> None:
    key = api.key()
    assert api.client.head(COMPUTE, headers={"X-Api-Key": key}).status_code == 405
    assert api.client.head("/api/health").status_code == 200
    newest: list[tuple[str, str, int]] = []
    for _ in range(200):  # the writer's thread may hold the entries for a moment
        api.service.journal.flush()
        rows = api.service.store.journal(limit=2)
        newest = [(r.entry.method, r.entry.route, r.entry.status) for r in rows]
        if newest == [("HEAD", "/api/health", 200), ("HEAD", COMPUTE, 405)]:
            break
        time.sleep(0.05)
    assert newest == [("HEAD", "/api/health", 200), ("HEAD", COMPUTE, 405)]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", COMPUTE + "/"),
        ("GET", "/api/v1/packing/plans/"),
        ("GET", "/api/v1/packing/plans/pln_x/"),
        ("GET", "/api/v1/catalog/containers/"),
        ("GET", "/api/health/"),
    ],
)
def test_a_path_with_a_trailing_slash_is_an_unknown_path(api: Api, method: str, path: str) -> None:
    # not a redirect: it would send the key on to an address built from the request, in
    # plain http behind a proxy that ends TLS
    response = api.client.request(
        method, path, headers={"X-Api-Key": api.key()}, follow_redirects=False
    )
    assert (response.status_code, response.json()) == (
        404,
        {"error": "There is no such endpoint."},
    )
    assert "location" not in response.headers


def test_order_ref_lookup_needs_the_query(api: Api) -> None:
    key = api.key()
    response = api.client.get("/api/v1/packing/plans", headers={"X-Api-Key": key})
    assert response.status_code == 422
    assert response.json()["fieldErrors"] == {"orderRef": ["is required"]}
    missing = api.client.get("/api/v1/packing/plans?orderRef=nope", headers={"X-Api-Key": key})
    assert missing.status_code == 404


# ---------------------------------------------------------------- tight limits: 429 and 402


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    settings = make_settings(
        tmp_path_factory.mktemp("tight"),
        rate_production_per_minute=3,
        rate_sandbox_per_minute=1000,
        quota_sandbox_per_day=0,
    )
    app = create_app(settings)
    with TestClient(app) as client:
        yield Api(client, app.state.service)


def test_429_after_the_rate_limit_counts_every_authenticated_compute(tight: Api) -> None:
    key = tight.key()
    statuses = [
        tight.client.post(COMPUTE, content=b"{bad", headers={"X-Api-Key": key}).status_code
        for _ in range(3)
    ]
    assert statuses == [400, 400, 400]
    response = tight.client.post(COMPUTE, json=plan_body(), headers={"X-Api-Key": key})
    assert response.status_code == 429
    body = response.json()
    assert body["error"] == "rate_limited" and set(body) == {"error", "retryAfterSec"}
    assert 1 <= body["retryAfterSec"] <= 60
    assert response.headers["Retry-After"] == str(body["retryAfterSec"])
    # another key of the same organisation has its own count
    other = tight.key(org=tight.service.store.authenticate(key).organisation)  # type: ignore[union-attr]
    assert tight.client.post(COMPUTE, content=b"{", headers={"X-Api-Key": other}).status_code == 400


def test_402_when_the_quota_is_used_up(tight: Api) -> None:
    key = tight.key(sandbox=True)
    invalid = tight.client.post(COMPUTE, json=plan_body(cargos=[]), headers={"X-Api-Key": key})
    assert invalid.status_code == 422  # 422 comes before 402
    response = tight.client.post(COMPUTE, json=plan_body(), headers={"X-Api-Key": key})
    assert response.status_code == 402
    body = response.json()
    assert body["error"] == "quota_exceeded" and set(body) == {"error", "retryAfterSec"}
    assert 1 <= body["retryAfterSec"] <= 86_400


@pytest.mark.parametrize(
    ("overrides", "path"),
    [
        (
            {"sendDate": "2027-02-02", "receiveDate": "2027-02-01", "transitHours": None},
            "receiveDate",
        ),
        ({"receiveDate": "2020-01-10", "transitHours": None}, "receiveDate"),
        ({"sendDate": "3000-01-01", "transitHours": None}, "sendDate"),
        ({"options": {"preferredContainers": ["no-such-box"]}}, "options.preferredContainers"),
        (
            {"scenario": "PALLET_LOAD", "options": {"preferredContainers": ["no-such-truck"]}},
            "options.preferredContainers",
        ),
        ({"scenario": "PALLET", "palletTemplateSlug": "no-such-pallet"}, "palletTemplateSlug"),
    ],
)
def test_input_the_planner_cannot_plan_is_a_422_before_the_quota(
    tight: Api, overrides: dict[str, Any], path: str
) -> None:
    # decisions §6: 422 before 402; with the quota used up, the caller still learns which
    # field to mend (these were found in the worker, after the quota, and answered 402)
    key = tight.key(sandbox=True)
    response = tight.client.post(COMPUTE, json=plan_body(**overrides), headers={"X-Api-Key": key})
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "validation_failed"
    assert list(body["fieldErrors"]) == [path], body
    # the same body with the field mended reaches the quota
    mended = {k: None for k in overrides} | {"transitHours": 24}
    assert (
        tight.client.post(COMPUTE, json=plan_body(**mended), headers={"X-Api-Key": key}).status_code
        == 402
    )


@pytest.mark.parametrize(
    ("key_kind", "content", "expected"),
    [
        ("wrong", b"{bad", 401),
        ("no-scope", b"{bad", 403),
        ("ok", b"{bad", 400),
        ("ok", b"[]", 422),
    ],
)
def test_order_of_checks(tight: Api, key_kind: str, content: bytes, expected: int) -> None:
    org = new_org()
    key = {
        "wrong": "tbp_" + "x" * 43,
        "no-scope": tight.key("packing:read", org=org),
        "ok": tight.key(org=org),
    }[key_kind]
    response = tight.client.post(COMPUTE, content=content, headers={"X-Api-Key": key})
    assert response.status_code == expected


@pytest.mark.parametrize(("opening", "closing"), [('{"a":', "}"), ("[", "]")])
def test_a_body_nested_deeper_than_the_parser_goes_is_a_400_saying_so(
    api: Api, opening: str, closing: str
) -> None:
    depth = 100_000  # 600 kB, within the body limit
    raw = ('{"x":' + opening * depth + "1" + closing * depth + "}").encode()
    response = _post(api, api.key(), raw)
    assert response.status_code == 400, response.text
    assert response.json() == {"error": TOO_DEEP}
    # a body nested less deep is read, and its field refused by the schema
    shallow = ('{"x":' + opening * 50 + "1" + closing * 50 + "}").encode()
    response = _post(api, api.key(), shallow)
    assert response.status_code == 422
    assert "x" in response.json()["fieldErrors"]


def test_an_integer_of_thousands_of_digits_is_valid_json_refused_by_its_field(api: Api) -> None:
    body = json.dumps(plan_body(cargos=[cargo(quantity=7)]))
    huge = "9" * 5_000
    raw = body.replace('"quantity": 7', f'"quantity": {huge}')
    assert huge in raw
    response = _post(api, api.key(), raw.encode())
    assert response.status_code == 422, response.text
    (message,) = response.json()["fieldErrors"]["cargos[0].quantity"]
    assert message.startswith("must be less than or equal to")
    negative = body.replace('"quantity": 7', f'"quantity": -{huge}')
    response = _post(api, api.key(), negative.encode())
    assert response.status_code == 422
    assert "cargos[0].quantity" in response.json()["fieldErrors"]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (plan_body(cargos=[cargo(lengthCm=7)]), "cargos[0].lengthCm"),
        (plan_body(cargos=[cargo(weightKg=7)]), "cargos[0].weightKg"),
        (plan_body(transitHours=7), "transitHours"),
        (plan_body(options={"maxContainers": 7}), "options.maxContainers"),
        (plan_body(cargos=[cargo(rules={"unloadPriority": 7})]), "cargos[0].rules.unloadPriority"),
    ],
)
def test_a_huge_integer_in_any_number_field_is_a_422(
    api: Api, body: dict[str, Any], path: str
) -> None:
    raw = json.dumps(body)
    assert raw.count(": 7") == 1
    for sign in ("", "-"):
        response = _post(api, api.key(), raw.replace(": 7", f": {sign}{'8' * 4_500}"))
        assert response.status_code == 422, response.text
        assert path in response.json()["fieldErrors"], response.json()


@pytest.mark.parametrize("digits", [310, 4_500])
@pytest.mark.parametrize(
    ("body", "path", "above", "below"),
    [
        (plan_body(cargos=[cargo(lengthCm=7)]), "cargos[0].lengthCm", "100000", "greater than 0"),
        (
            plan_body(cargos=[cargo(weightKg=7)]),
            "cargos[0].weightKg",
            "1000000000",
            "greater than or equal to 0",
        ),
        (plan_body(transitHours=7), "transitHours", "8784", "greater than 0"),
    ],
)
def test_an_integer_beyond_the_float_range_is_refused_by_its_bound(
    api: Api, body: dict[str, Any], path: str, above: str, below: str, digits: int
) -> None:
    # it is a number (not "must be a number"), just far beyond the field's bound
    raw = json.dumps(body)
    for sign, bound in (("", f"must be less than or equal to {above}"), ("-", f"must be {below}")):
        response = _post(api, api.key(), raw.replace(": 7", f": {sign}1{'0' * digits}"))
        assert response.status_code == 422, response.text
        assert response.json()["fieldErrors"] == {path: [bound]}


def test_a_lane_with_integers_beyond_the_float_range_is_refused_by_their_bounds(api: Api) -> None:
    huge = "1" + "0" * 400
    segment = f'"locationTypeKey": "truck", "cityKey": "Moscow", "hours": {huge}'
    raw = f'{{"segments": [{{{segment}, "fixedAmbientC": -{huge}}}]}}'
    response = api.client.put(
        "/api/v1/catalog/routes/Moscow/Kazan",
        content=raw,
        headers={"X-Api-Key": api.key(), "Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert response.json()["fieldErrors"] == {
        "segments[0].hours": ["must be less than or equal to 8784"],
        "segments[0].fixedAmbientC": ["must be greater than or equal to -90"],
    }
