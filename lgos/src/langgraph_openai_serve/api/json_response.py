"""Fast JSON responses."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

__all__ = ["json_response"]


def json_response(content: Any, status_code: int = 200) -> Response:
    """Serialize ``content`` with orjson into an ``application/json`` response."""
    return Response(orjson.dumps(content), status_code, media_type="application/json")
