"""A tiny in-memory Files API (OpenAI's `/v1/files` routes) for offline tests.

Enough of the protocol for the OpenAI SDK's `files.create`, `retrieve`,
`content`, `list` and `delete`; it counts metadata reads and content
downloads per file so tests can prove what was fetched.
"""

from __future__ import annotations

import io
import itertools
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import httpx
from fastapi import FastAPI, Form, Request, UploadFile
from fastapi.responses import JSONResponse, Response
from openai import AsyncOpenAI

from lgos_demo_api.files_client import FilesClient

API_KEY = "test-files-key"
BASE_URL = "http://files.test/v1"


@dataclass
class StoredObject:
    id: str
    filename: str
    purpose: str
    content_type: str
    data: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def file_object(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
            "expires_at": None,
        }


@dataclass
class FakeFiles:
    """The service's state; `app` serves it."""

    objects: dict[str, StoredObject] = field(default_factory=dict)
    downloads: Counter[str] = field(default_factory=Counter)
    retrievals: Counter[str] = field(default_factory=Counter)
    fail_with: int | None = None
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def add(
        self,
        filename: str,
        data: bytes,
        content_type: str = "application/octet-stream",
        purpose: str = "user_data",
    ) -> str:
        file_id = f"file-test{next(self._ids):04d}"
        self.objects[file_id] = StoredObject(
            file_id, filename, purpose, content_type, data
        )
        return file_id

    @property
    def app(self) -> FastAPI:
        app = FastAPI()

        def error(status: int, message: str, code: str | None = None) -> JSONResponse:
            body = {
                "error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "param": None,
                    "code": code,
                }
            }
            return JSONResponse(body, status_code=status)

        @app.middleware("http")
        async def authenticate(request: Request, call_next: Any) -> Response:
            if request.headers.get("authorization") != f"Bearer {API_KEY}":
                return error(401, "Incorrect API key provided.", "invalid_api_key")
            if self.fail_with is not None:
                return error(self.fail_with, "The Files API is failing.")
            return await call_next(request)

        @app.post("/v1/files")
        async def upload(
            file: UploadFile, purpose: Annotated[str, Form()]
        ) -> dict[str, Any]:
            data = await file.read()
            file_id = self.add(
                file.filename or "upload",
                data,
                file.content_type or "application/octet-stream",
                purpose,
            )
            return self.objects[file_id].file_object()

        @app.get("/v1/files")
        async def listing() -> dict[str, Any]:
            data = [o.file_object() for o in self.objects.values()]
            return {"object": "list", "data": data, "has_more": False}

        @app.get("/v1/files/{file_id}", response_model=None)
        async def retrieve(file_id: str) -> dict[str, Any] | JSONResponse:
            self.retrievals[file_id] += 1
            if file_id not in self.objects:
                return error(404, f"No such File object: {file_id}", "file_not_found")
            return self.objects[file_id].file_object()

        @app.get("/v1/files/{file_id}/content", response_model=None)
        async def content(file_id: str) -> Response:
            self.downloads[file_id] += 1
            if file_id not in self.objects:
                return error(404, f"No such File object: {file_id}", "file_not_found")
            stored = self.objects[file_id]
            return Response(stored.data, media_type=stored.content_type)

        @app.delete("/v1/files/{file_id}", response_model=None)
        async def delete(file_id: str) -> dict[str, Any] | JSONResponse:
            if self.objects.pop(file_id, None) is None:
                return error(404, f"No such File object: {file_id}", "file_not_found")
            return {"id": file_id, "object": "file", "deleted": True}

        return app


@asynccontextmanager
async def files_client(fake: FakeFiles) -> AsyncIterator[FilesClient]:
    """A `FilesClient` (the real one, on the OpenAI SDK) talking to `fake`."""
    transport = httpx.ASGITransport(app=fake.app)
    async with httpx.AsyncClient(transport=transport) as http:
        yield FilesClient(
            AsyncOpenAI(
                base_url=BASE_URL, api_key=API_KEY, http_client=http, max_retries=0
            )
        )


def make_pdf(*pages: list[str]) -> bytes:
    """A real PDF (matplotlib's PDF backend) with the given lines on each page."""
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure

    buffer = io.BytesIO()
    with PdfPages(buffer) as pdf:
        for lines in pages:
            figure = Figure(figsize=(6, 4))
            for row, line in enumerate(lines):
                figure.text(0.05, 0.9 - row * 0.1, line)
            pdf.savefig(figure)
    return buffer.getvalue()
