"""The UI on in-process services: a recorded page and the clients it uses.

:class:`Page` records what Chainlit emits to one browser connection;
:class:`Clients` makes the UI's OpenAI clients on the in-process demo API and
Files app (the ``clients`` fixture, in ``conftest.py``), noting every Files
API request.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai

from lgos_chainlit.settings import SessionHttpClient
from tests.ui.files_app import API_KEY


class Page:
    """One browser connection: what Chainlit emitted to its socket."""

    def __init__(self, socket_id: str) -> None:
        self.socket_id = socket_id
        self.events: list[tuple[str, Any]] = []

    async def emit(self, event: str, data: Any) -> None:
        self.events.append((event, data))

    async def emit_call(self, event: str, data: Any, _timeout: int | None) -> None:
        self.events.append((event, data))

    def elements(self) -> list[dict[str, Any]]:
        return [data for event, data in self.events if event == "element"]

    def messages(self) -> list[str]:
        return [
            str(data.get("output", ""))
            for event, data in self.events
            if event == "new_message"
        ]


class RecordingHttp(httpx2.AsyncClient):
    """An HTTP client that notes every request it is asked to send."""

    def __init__(self, calls: list[str], label: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = calls
        self.label = label

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        self.calls.append(f"{self.label} {request.method} {request.url.path}")
        return await super().send(request, **kwargs)


class Clients:
    """Makes the UI's OpenAI clients: LGOS (demo API) and the Files API."""

    def __init__(
        self, lgos: httpx2.AsyncBaseTransport, files: httpx2.AsyncBaseTransport
    ):
        self.lgos = lgos
        self.files = files
        self.files_calls: list[str] = []
        self.files_made = 0
        self.made: list[openai.AsyncOpenAI] = []

    def lgos_client(self, _settings: object = None) -> openai.AsyncOpenAI:
        client = openai.AsyncOpenAI(
            base_url="http://lgos/v1",
            api_key="test",
            http_client=SessionHttpClient(transport=self.lgos),
            max_retries=0,
        )
        self.made.append(client)
        return client

    def files_client(self, _settings: object = None) -> openai.AsyncOpenAI:
        """A Files API client as the UI makes one: ``files-1``, ``files-2``, ..."""
        self.files_made += 1
        return self.recording_files_client(f"files-{self.files_made}")

    def recording_files_client(self, label: str) -> openai.AsyncOpenAI:
        client = openai.AsyncOpenAI(
            base_url="http://files/v1",
            api_key=API_KEY,
            http_client=RecordingHttp(self.files_calls, label, transport=self.files),
            max_retries=0,
        )
        self.made.append(client)
        return client
