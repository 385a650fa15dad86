"""What the UI's Files tests share: the in-process Files app's key, a PNG,
and a ``display_file`` call (the ``files`` fixture, in ``conftest.py``, is
the Files app they use)."""

from __future__ import annotations

import json

from lgos_client.functions import FunctionCall

API_KEY = "test-files-key"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def display_call(file_id: str, **extra: str) -> FunctionCall:
    arguments = {"file_id": file_id, "filename": "chart.png", "mime_type": "image/png"}
    arguments.update(extra)
    return FunctionCall(
        call_id="call_1", name="display_file", arguments=json.dumps(arguments)
    )
