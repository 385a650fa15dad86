"""The FastAPI application: OpenAI's `/v1/files` routes and `/health`."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.requests import ClientDisconnect

from langgraph_openai_serve.api.api_keys import ApiKeys
from langgraph_openai_serve.server.guards import install_guards
from lgos_demo_files.errors import ApiError, error_body, install_error_handlers
from lgos_demo_files.metadata import DEFAULT_TENANT, open_metadata
from lgos_demo_files.names import content_disposition
from lgos_demo_files.service import UPLOAD_PURPOSES, FilesService, file_object
from lgos_demo_files.settings import FilesSettings
from lgos_demo_files.storage import open_store
from lgos_demo_files.upload import DRAIN_LIMIT, multipart_boundary

__all__ = ["PROJECT_HEADER", "create_app"]

logger = logging.getLogger(__name__)

# Room for the multipart framing and text fields around the file's bytes.
_MULTIPART_OVERHEAD = 64 * 1024

_CONTENT_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, no-store",
}


def _service(request: Request) -> FilesService:
    service = getattr(request.app.state, "files", None)
    if not isinstance(service, FilesService):
        raise ApiError(503, "The Files service is starting.", type="server_error")
    return service


PROJECT_HEADER = "OpenAI-Project"
"""The header naming the tenant a request acts for (the OpenAI SDKs' `project`)."""

_MAX_TENANT_CHARS = 256


def _is_tenant(name: str) -> bool:
    return 0 < len(name) <= _MAX_TENANT_CHARS and all("!" <= c <= "~" for c in name)


def _authenticator(settings: FilesSettings) -> Callable[[Request], str]:
    """Build the dependency that checks the key and returns the caller's tenant.

    The service key (`api_key`) acts for the tenant its request names in an
    `OpenAI-Project` header, else for `default`. A tenant key (`api_keys`)
    acts for its own tenant only: a header naming another one is refused.
    """
    expected = settings.api_key.get_secret_value().encode("utf-8")
    tenant_keys = ApiKeys(settings.tenant_keys())
    challenge = {"WWW-Authenticate": "Bearer"}

    def authenticate(request: Request) -> str:
        header = request.headers.get("authorization")
        if not header:
            raise ApiError(
                401,
                "You didn't provide an API key: send it as "
                "'Authorization: Bearer <key>'.",
                headers=challenge,
            )
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                401,
                "Malformed Authorization header: expected 'Bearer <key>'.",
                code="invalid_api_key",
                headers=challenge,
            )
        presented = token.strip()
        project = (request.headers.get(PROJECT_HEADER) or "").strip()
        if hmac.compare_digest(presented.encode("utf-8"), expected):
            if not project:
                return DEFAULT_TENANT
            if not _is_tenant(project):
                raise ApiError(
                    400,
                    f"Invalid {PROJECT_HEADER} header: a tenant is 1 to "
                    f"{_MAX_TENANT_CHARS} visible ASCII characters.",
                    code="invalid_value",
                )
            return project
        match = tenant_keys.match(presented)
        if match is None:
            raise ApiError(
                401,
                "Incorrect API key provided.",
                code="invalid_api_key",
                headers=challenge,
            )
        tenant = match.tenant or DEFAULT_TENANT
        if project and project != tenant:
            raise ApiError(
                401,
                f"{PROJECT_HEADER} header should match project for API key",
                code="mismatched_project",
            )
        return tenant

    return authenticate


def _tenant(request: Request) -> str:
    """Check the key and return the caller's tenant (a route dependency)."""
    authenticate: Callable[[Request], str] = request.app.state.authenticate
    return authenticate(request)


Tenant = Annotated[str, Depends(_tenant)]
"""A route parameter receiving the caller's tenant."""


# The upload is parsed from the stream by hand; the document still says what
# it takes (OpenAI's CreateFileRequest: a file part and its purpose).
_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file", "purpose"],
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "purpose": {"type": "string", "enum": list(UPLOAD_PURPOSES)},
                    },
                }
            }
        },
    }
}


def _router(settings: FilesSettings) -> APIRouter:
    router = APIRouter(prefix="/v1", dependencies=[Depends(_tenant)])
    upload_ceiling = settings.max_bytes + DRAIN_LIMIT + _MULTIPART_OVERHEAD

    @router.post("/files", openapi_extra=_UPLOAD_BODY)
    async def create_file(request: Request, tenant: Tenant) -> Response:
        service = _service(request)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > upload_ceiling:
            raise ApiError(
                413,
                f"The file is larger than this service accepts "
                f"({settings.max_bytes} bytes).",
                param="file",
                code="file_too_large",
            )
        boundary = multipart_boundary(request.headers.get("content-type"))
        try:
            record = await service.create(request.stream(), boundary, tenant=tenant)
        except ClientDisconnect:
            logger.info("Upload abandoned: the client disconnected.")
            return Response(status_code=400)
        return JSONResponse(file_object(record))

    @router.get("/files")
    async def list_files(
        request: Request,
        tenant: Tenant,
        purpose: str | None = None,
        limit: Annotated[int, Query(ge=1, le=10000)] = 10000,
        order: Literal["asc", "desc"] = "desc",
        after: str | None = None,
    ) -> Response:
        records, has_more = await _service(request).list(
            purpose=purpose, limit=limit, order=order, after=after, tenant=tenant
        )
        body: dict[str, Any] = {
            "object": "list",
            "data": [file_object(record) for record in records],
            # Required strings in OpenAI's schema: empty when the page is.
            "first_id": records[0].id if records else "",
            "last_id": records[-1].id if records else "",
            "has_more": has_more,
        }
        return JSONResponse(body)

    @router.get("/files/{file_id}")
    async def retrieve_file(request: Request, file_id: str, tenant: Tenant) -> Response:
        record = await _service(request).get(file_id, tenant=tenant)
        return JSONResponse(file_object(record))

    @router.get("/files/{file_id}/content")
    async def file_content(request: Request, file_id: str, tenant: Tenant) -> Response:
        service = _service(request)
        record, size, chunks = await service.open_content(file_id, tenant=tenant)
        headers = {
            **_CONTENT_HEADERS,
            "Content-Type": record.content_type,
            "Content-Length": str(size),
            "Content-Disposition": content_disposition(record.filename),
        }
        return StreamingResponse(chunks, headers=headers)

    @router.delete("/files/{file_id}")
    async def delete_file(request: Request, file_id: str, tenant: Tenant) -> Response:
        record = await _service(request).delete(file_id, tenant=tenant)
        return JSONResponse({"id": record.id, "object": "file", "deleted": True})

    return router


async def _sweep_forever(service: FilesService, interval: float) -> None:
    while True:
        try:
            deleted = await service.sweep()
            if deleted:
                logger.info("Deleted %d expired file(s).", deleted)
        except Exception:
            logger.exception("The expired-file sweep failed; retrying later.")
        await asyncio.sleep(interval)


def create_app(
    settings: FilesSettings | None = None,
    *,
    clock: Callable[[], float] = time.time,
) -> FastAPI:
    """Build the Files service application.

    Storage and the metadata database are chosen here (a bad URL fails at
    once); the database is opened, its table created and the expiry sweep
    started when the application starts (its lifespan).

    Args:
        settings: The configuration; read from the environment when omitted.
        clock: Returns the current Unix time; tests pass a fake clock.

    """
    settings = settings if settings is not None else FilesSettings()
    open_metadata(settings.database_url)  # reject a bad URL now, not at start
    store = open_store(settings.storage_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metadata = open_metadata(settings.database_url, pool_size=settings.pool_size)
        await metadata.open()
        service = FilesService(
            store=store, metadata=metadata, max_bytes=settings.max_bytes, clock=clock
        )
        app.state.files = service
        sweeper: asyncio.Task[None] | None = None
        if settings.sweep_interval_seconds > 0:
            sweeper = asyncio.create_task(
                _sweep_forever(service, settings.sweep_interval_seconds),
                name="lgos-demo-files-sweep",
            )
        try:
            yield
        finally:
            app.state.files = None
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
            await metadata.close()

    app = FastAPI(
        title="LGOS demo Files service",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    install_error_handlers(app)
    app.state.authenticate = _authenticator(settings)
    app.include_router(_router(settings))

    @app.get("/health", include_in_schema=False)
    async def health(request: Request) -> Response:
        try:
            await _service(request).metadata.ping()
        except Exception as exc:
            logger.warning("Health check failed: %s", exc)
            body = error_body(
                "The metadata database does not answer.", type="server_error"
            )
            return JSONResponse(body, status_code=503)
        return JSONResponse({"status": "ok"})

    # A web page must not drive the service (DNS rebinding, cross-site
    # uploads): LGOS_ALLOWED_HOSTS and LGOS_CORS_ALLOW_ORIGINS, as for the API.
    install_guards(app, exempt=("/health",))
    return app
