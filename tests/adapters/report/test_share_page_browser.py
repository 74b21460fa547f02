"""The share page in real headless Chromium, served by the real service on 127.0.0.1, with
every other host blocked: no console errors, the 3D view drawn, a screenshot taken."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.adapters.helpers import Server, plan_body, run_cli, service_env, start_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")

#: Generous bound for a loaded machine on the 3D view's first drawing [s]; a passing run
#: takes a few seconds.
DRAW_BOUND_S = 120.0

_VIEWPORT = {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False}


@pytest.fixture
def share_url(tmp_path: Path) -> Iterator[str]:
    """The share page's address on a running service."""
    env = service_env(tmp_path)
    server: Server = start_server(env, tmp_path)
    try:
        issued = run_cli(
            "keys", "issue", "--org", "share", "--scopes", "packing:compute,packing:read", env=env
        )
        assert issued.returncode == 0, issued.stderr
        headers = {"X-Api-Key": issued.stdout.strip()}
        computed = httpx.post(
            server.base_url + "/api/v1/packing/compute",
            json=plan_body(),
            headers=headers,
            timeout=120,
        )
        assert computed.status_code in (200, 201), computed.text
        plan_id = computed.json()["planId"]
        shared = httpx.post(
            f"{server.base_url}/api/v1/packing/plans/{plan_id}/share",
            json={},
            headers=headers,
            timeout=60,
        )
        assert shared.status_code == 201, shared.text
        url = shared.json()["url"]
        assert url.startswith(server.base_url)
        yield url
    finally:
        server.stop()


#: What the drawn 3D view holds: per trace of pieces its corners, triangle corners and hover
#: texts, and the points of the edge traces (the page rebuilds them from the boxes it is sent).
_DRAWN_GEOMETRY = """JSON.stringify((() => {
  const data = document.getElementById('view-0').data || [];
  const meshes = data.filter(t => t.type === 'mesh3d');
  const edges = data.filter(t => t.meta && t.meta.kind === 'edges');
  return {
    corners: meshes.map(t => t.x.length),
    triangles: meshes.map(t => t.i.length),
    hover: meshes.map(t => (t.hovertext || []).length),
    edgePoints: edges.map(t => t.x.length),
  };
})())"""


async def _visit(url: str, shot: Path) -> tuple[list[str], list[str], bool, dict[str, Any]]:
    """Opens ``url`` in headless Chromium driven over the DevTools protocol (choreographer,
    kaleido's client): requests to any host but 127.0.0.1 are failed and recorded, console
    errors and uncaught exceptions collected, and a screenshot saved to ``shot`` once the
    3D view is drawn. Returns (errors, blocked requests, drawn)."""
    import asyncio
    import base64

    import choreographer as choreo

    errors: list[str] = []
    blocked: list[str] = []

    async with choreo.Browser(path=CHROMIUM, headless=True, proxy_server="http://127.0.0.1:9") as b:
        tab = await b.create_tab("")

        async def on_console(event: dict[str, Any]) -> None:
            params = event["params"]
            if params.get("type") in ("error", "assert"):
                errors.append(repr(params.get("args")))

        async def on_exception(event: dict[str, Any]) -> None:
            errors.append(repr(event["params"].get("exceptionDetails")))

        async def on_log(event: dict[str, Any]) -> None:
            entry = event["params"]["entry"]
            # the browser's own favicon request is no part of the page
            if entry.get("level") == "error" and not entry.get("url", "").endswith("/favicon.ico"):
                errors.append(f"{entry.get('text')} {entry.get('url', '')}")

        async def on_request(event: dict[str, Any]) -> None:
            params = event["params"]
            request_url = params["request"]["url"]
            if urlsplit(request_url).hostname == "127.0.0.1":
                await tab.send_command("Fetch.continueRequest", {"requestId": params["requestId"]})
            else:
                blocked.append(request_url)
                failed = {"requestId": params["requestId"], "errorReason": "BlockedByClient"}
                await tab.send_command("Fetch.failRequest", failed)

        tab.subscribe("Runtime.consoleAPICalled", on_console)
        tab.subscribe("Runtime.exceptionThrown", on_exception)
        tab.subscribe("Log.entryAdded", on_log)
        tab.subscribe("Fetch.requestPaused", on_request)
        for command in ("Runtime.enable", "Log.enable", "Page.enable"):
            await tab.send_command(command)
        await tab.send_command("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        await tab.send_command("Emulation.setDeviceMetricsOverride", _VIEWPORT)
        await tab.send_command("Page.navigate", {"url": url})
        drawn = False
        check = "document.querySelector('.js-plotly-plot .gl-container canvas') !== null"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAW_BOUND_S
        while loop.time() < deadline:
            answer = await tab.send_command("Runtime.evaluate", {"expression": check})
            if answer.get("result", {}).get("result", {}).get("value") is True:
                drawn = True
                break
            await asyncio.sleep(0.5)
        await asyncio.sleep(1.0)  # the first frame after the canvas appears
        image = await tab.send_command("Page.captureScreenshot", {"format": "png"})
        shot.write_bytes(base64.b64decode(image["result"]["data"]))
        answer = await tab.send_command("Runtime.evaluate", {"expression": _DRAWN_GEOMETRY})
        geometry = json.loads(answer["result"]["result"]["value"])
    return errors, blocked, drawn, geometry


@pytest.mark.slow
def test_the_share_page_draws_its_3d_view_offline_without_console_errors(
    share_url: str, tmp_path: Path
) -> None:
    import asyncio

    shot = tmp_path / "share.png"
    errors, blocked, drawn, geometry = asyncio.run(_visit(share_url, shot))
    assert errors == []
    assert blocked == []  # the page asked no other host for anything
    assert drawn, "the 3D view's WebGL canvas did not appear"
    # every piece rebuilt in full: 8 corners with their hover text, 12 triangles, 24 edge
    # points (16 corners and 8 pen lifts)
    corners = geometry["corners"]
    assert corners and all(n > 0 and n % 8 == 0 for n in corners)
    assert geometry["triangles"] == [n // 8 * 12 for n in corners]
    assert geometry["hover"] == corners
    assert geometry["edgePoints"] == [n * 3 for n in corners]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
