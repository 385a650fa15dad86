"""
title: LGOS
author: LGOS demo
description: Every LGOS graph as an Open WebUI model, over the OpenAI Responses API: final answers streamed, commentary as status, url_citation annotations as sources, runtime settings as user valves, lgos_interrupt questions asked in the chat.
version: 0.1.0
license: MIT
"""  # noqa: D205, D212, D400, D415, E501 - Open WebUI reads this frontmatter

# An Open WebUI "pipe" function (a manifold): Open WebUI loads this module from
# its source text, instantiates ``Pipe`` and lists one model per LGOS graph.
# It imports nothing from Open WebUI and nothing Open WebUI does not ship
# (``openai``, ``pydantic``) but the pipe's parts (``lgos_open_webui``: valves,
# events, the chat's ledger, attachments, MCP tools, questions, the turn) and
# the client core the Chainlit UI shares (``lgos_client``), which
# ``generate.py`` inlines: Open WebUI gets one self-contained file,
# ``lgos_pipe.py``. This file keeps the thin ``Pipe`` class that ties them to
# Open WebUI's calls.
#
# The conversation ledger is kept by the pipe, on the client side of LGOS:
# Open WebUI keeps only the visible text of each answer, so every completed
# answer's output items (commentary, searches, the answer with its
# annotations) are stored under a hash of the text shown, per chat, in a
# small SQLite file, and replayed unchanged when that text comes back in the
# history (``lgos_open_webui.history``).

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from openai import AsyncOpenAI
from pydantic import BaseModel, Field

from lgos_client.display_file import DISPLAY_FILE
from lgos_client.extension import ModelCapabilities
from lgos_client.functions import LOCAL_FUNCTIONS
from lgos_client.interrupts import INTERRUPT_FUNCTION
from lgos_open_webui.attachments import complete_user_turn
from lgos_open_webui.clients import ClientCache
from lgos_open_webui.discovery import discover_models
from lgos_open_webui.events import EventEmitter, ignore_event
from lgos_open_webui.history import (
    StateStore,
    content_text,
    default_state_path,
    ledger_input,
)
from lgos_open_webui.mcp_tools import MCP_TOOLS_FEATURE, mcp_tools_from
from lgos_open_webui.plumbing import log, to_dict
from lgos_open_webui.turn import Turn
from lgos_open_webui.valves import (
    BaseUserValves,
    ValveSpec,
    request_options,
    user_valves_class,
    valve_specs,
)


class Pipe:
    """The LGOS manifold: one Open WebUI model per LGOS graph."""

    class Valves(BaseModel):
        """Admin settings (``provision.py`` sets them from the environment)."""

        LGOS_BASE_URL: str = Field(
            default="http://127.0.0.1:8000/v1",
            description="OpenAI base URL of LGOS (or of a proxy keeping `lgos`).",
        )
        LGOS_API_KEY: str = Field(default="lgos-demo", description="Bearer key.")
        FILES_BASE_URL: str = Field(
            default="http://127.0.0.1:8003/v1",
            description="The Files service (OpenAI Files API): attachments "
            "are uploaded to it, display_file results downloaded from it.",
        )
        FILES_API_KEY: str = Field(default="lgos-demo")
        REQUEST_TIMEOUT: float = Field(default=120.0)
        POLL_INTERVAL: float = Field(default=1.0)
        MODELS_CACHE_SECONDS: float = Field(default=15.0)
        DISCOVERY: Literal["lgos", "litellm"] = Field(
            default="lgos",
            description="Where the lgos extension comes from: LGOS's /v1/models, "
            "or a LiteLLM gateway's /model/info (model_info.lgos).",
        )
        STATE_PATH: str = Field(
            default="",
            description="SQLite file of the ledger (default DATA_DIR/lgos/...).",
        )

    UserValves: type[BaseModel] = BaseUserValves

    def __init__(self) -> None:
        """Start with default valves; models are discovered on first use."""
        self.valves = self.Valves()
        self.models: dict[str, ModelCapabilities] = {}
        self.specs: list[ValveSpec] = []
        self._models_at = 0.0
        self.client_factory: Callable[[], AsyncOpenAI] | None = None
        self.files_factory: Callable[[], AsyncOpenAI] | None = None
        self._store: StateStore | None = None
        self._clients = ClientCache()

    # -- clients, the ledger store, the models ----------------------------

    def client(self) -> AsyncOpenAI:
        """Return the OpenAI client for LGOS (tests may set ``client_factory``)."""
        if self.client_factory is not None:
            return self.client_factory()
        return self._clients.get(
            self.valves.LGOS_BASE_URL,
            self.valves.LGOS_API_KEY,
            self.valves.REQUEST_TIMEOUT,
        )

    def files_client(self) -> AsyncOpenAI | None:
        """Return the OpenAI client for the Files service (``None`` when unset)."""
        if self.files_factory is not None:
            return self.files_factory()
        if not self.valves.FILES_BASE_URL:
            return None
        return self._clients.get(
            self.valves.FILES_BASE_URL,
            self.valves.FILES_API_KEY,
            self.valves.REQUEST_TIMEOUT,
        )

    async def close(self) -> None:
        """Close the clients this pipe made on the running loop."""
        await self._clients.close()

    def store(self) -> StateStore:
        """Return the ledger's SQLite store."""
        path = Path(self.valves.STATE_PATH) if self.valves.STATE_PATH else None
        path = path or default_state_path()
        if self._store is None or self._store.path != path:
            self._store = StateStore(path)
        return self._store

    async def discover(self, *, force: bool = False) -> dict[str, ModelCapabilities]:
        """List LGOS's models and retrieve each one's ``lgos`` extension."""
        fresh = time.monotonic() - self._models_at < self.valves.MODELS_CACHE_SECONDS
        if self.models and fresh and not force:
            return self.models
        models = await discover_models(self.client(), self.valves.DISCOVERY)
        self.models = models
        self.specs = valve_specs(list(models.values()))
        self.UserValves = user_valves_class(self.specs)
        self._models_at = time.monotonic()
        return models

    async def pipes(self) -> list[dict[str, str]]:
        """Open WebUI's model list: one entry per LGOS graph."""
        try:
            models = await self.discover()
        except Exception as error:  # shown as one model naming the failure
            log.warning("LGOS models unavailable: %s", error)
            return [{"id": "unavailable", "name": f"LGOS unavailable ({error})"}]
        return [{"id": model_id, "name": model_id} for model_id in models]

    # -- a chat turn ------------------------------------------------------

    async def pipe(
        self,
        body: dict[str, Any],
        __user__: dict[str, Any] | None = None,
        __metadata__: dict[str, Any] | None = None,
        __event_emitter__: EventEmitter | None = None,
        __event_call__: EventEmitter | None = None,
        __chat_id__: str | None = None,
        __task__: str | None = None,
        __files__: list[dict[str, Any]] | None = None,
        __tools__: dict[str, Any] | None = None,
    ) -> AsyncIterator[str]:
        """Answer one chat request of Open WebUI (an async generator of text).

        A model with the ``mcp_tools`` feature is offered the MCP tools Open
        WebUI attached to the chat (``__tools__``); the pipe runs their calls.
        """
        if __task__:
            # Background tasks (titles, tags) never reach the graphs.
            if __task__ == "title_generation":
                yield json.dumps({"title": chat_title(body)})
            return
        model = await self._model(str(body.get("model", "")))
        options = request_options(
            model, to_dict((__user__ or {}).get("valves")), self.specs
        )
        chat_id = kept_chat_id(__chat_id__, __metadata__)
        store = self.store() if chat_id else None
        turn = self._turn(
            model,
            chat_id,
            store,
            emit=__event_emitter__ or ignore_event,
            ask=__event_call__,
            tools=__tools__,
        )
        messages = body.get("messages") or []
        user: str | list[dict[str, Any]] | None = None
        pause = store.pause(chat_id) if store and chat_id else None
        if pause is not None and pause.get("model") == model.id and messages:
            reply = content_text(messages[-1].get("content"))
            async for text in turn.resume_typed(pause, reply):
                yield text
        else:
            lookup = (
                (lambda text: store.answer(chat_id, text))
                if store and chat_id
                else None
            )
            ledger = ledger_input(messages, lookup)
            # The attachments' status lines are steps of the turn too.
            user = await complete_user_turn(
                model,
                ledger,
                __metadata__,
                __files__,
                store,
                turn.emit_step,
                turn.files,
            )
            async for text in turn.run(
                ledger,
                metadata=options.metadata,
                tools=options.tools,
                background=options.background,
            ):
                yield text
        if store and chat_id:
            save_turn(store, chat_id, turn, user)

    async def _model(self, name: str) -> ModelCapabilities:
        """Return the capabilities of the model Open WebUI asked for.

        Open WebUI names a manifold's model ``<function id>.<model id>``; a
        model not yet known is looked up again (it may be new), and an
        unknown one is a plain model.
        """
        model_id = name.split(".", 1)[-1]
        model = (await self.discover()).get(model_id)
        if model is None:
            models = await self.discover(force=True)
            model = models.get(model_id) or ModelCapabilities(model_id, None)
        return model

    def _turn(
        self,
        model: ModelCapabilities,
        chat_id: str | None,
        store: StateStore | None,
        *,
        emit: EventEmitter,
        ask: EventEmitter | None,
        tools: dict[str, Any] | None,
    ) -> Turn:
        """Set up one turn: the clients, the chat's MCP tools, where pauses go.

        A model with the ``mcp_tools`` feature is offered the MCP tools Open
        WebUI attached to the chat (``tools``, its ``__tools__``).
        """
        mcp = (
            mcp_tools_from(tools, {*LOCAL_FUNCTIONS, DISPLAY_FILE, INTERRUPT_FUNCTION})
            if MCP_TOOLS_FEATURE in model.features
            else {}
        )
        return Turn(
            client=self.client(),
            files=self.files_client(),
            model=model,
            emit=emit,
            mcp=mcp,
            ask=ask,
            poll_interval=self.valves.POLL_INTERVAL,
            save_pause=(
                (lambda pause: store.save_pause(chat_id, pause))
                if store and chat_id
                else (lambda _pause: None)
            ),
        )


def chat_title(body: Mapping[str, Any]) -> str:
    """Title a chat by its first user message (60 characters), else "Chat".

    Open WebUI asks a pipe for titles too (``__task__`` ``title_generation``);
    the graphs never see that request.
    """
    first = next(
        (
            content_text(m.get("content"))
            for m in body.get("messages", [])
            if m.get("role") == "user"
        ),
        "",
    )
    return " ".join(first.split())[:60] or "Chat"


def kept_chat_id(chat_id: object, metadata: Mapping[str, Any] | None) -> str | None:
    """Return the ID of a chat whose ledger is kept, or None.

    None for no ID and for Open WebUI's temporary chats (``local:...``),
    of which nothing is kept.
    """
    found = chat_id or (metadata or {}).get("chat_id")
    if not isinstance(found, str) or not found or found.startswith("local:"):
        return None
    return found


def save_turn(
    store: StateStore,
    chat_id: str,
    turn: Turn,
    user: str | list[dict[str, Any]] | None,
) -> None:
    """Keep what the turn left: its pause, or its answer's items by its text.

    A turn that neither finished nor paused (a failure) stores no answer.
    """
    store.save_pause(chat_id, turn.pending)
    record: dict[str, Any] = (
        {"kind": "pause"}
        if turn.pending is not None
        else {"kind": "answer", "items": turn.items}
    )
    if user is not None:
        record["user"] = user
    if turn.finished or turn.pending is not None:
        store.save_answer(chat_id, turn.transcript, record)
