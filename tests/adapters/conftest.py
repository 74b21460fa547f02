"""Fixtures of the adapter tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from adapters.api.app import create_app
from tests.adapters.helpers import Api, make_settings


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    app = create_app(make_settings(tmp_path_factory.mktemp("api")))
    with TestClient(app) as client:
        yield Api(client, app.state.service)
