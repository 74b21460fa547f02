"""JSON answers written the way the contract's bodies are stored: compact UTF-8, never re-encoded.

Stored plans and catalog entries are kept as JSON text; they are sent as they are, so the
body a caller reads back is byte for byte the one the service wrote.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from adapters.store.models import Plan
from adapters.timestamps import iso_z


def json_response(
    body: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """``body`` as compact JSON."""
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def raw_json(text: str, status: int = 200) -> Response:
    """JSON text that is already written."""
    return Response(text.encode("utf-8"), status_code=status, media_type="application/json")


def record_json(plan: Plan) -> str:
    """The stored plan record (PackingPlanRecord) as JSON text."""
    head = json.dumps(
        {
            "planId": plan.plan_id,
            "externalRef": plan.external_ref,
            "source": plan.source,
            "createdAt": iso_z(plan.created_at),
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return f'{head[:-1]},"input":{plan.input_json},"result":{plan.result_json}}}'
