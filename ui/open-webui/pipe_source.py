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
# (``openai``, ``pydantic``) but the client core the Chainlit UI shares
# (``lgos_client``), which ``generate.py`` inlines: Open WebUI gets one
# self-contained file, ``lgos_pipe.py``.
#
# The conversation ledger is kept here, on the client side of LGOS: Open WebUI
# keeps only the visible text of each answer, so every completed answer's
# output items (commentary, searches, the answer with its annotations) are
# stored under a hash of the text shown, per chat, in a small SQLite file, and
# replayed unchanged when that text comes back in the history.

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import json
import logging
import mimetypes
import os
import re
import sqlite3
import time
import weakref
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openai import APIError, AsyncOpenAI, OpenAIError
from pydantic import BaseModel, ConfigDict, Field, create_model

from lgos_client.api_errors import api_error_message
from lgos_client.background import BACKGROUND_RUNNING, wait_background
from lgos_client.display_file import (
    DISPLAY_FILE,
    DISPLAY_FILE_TOOL,
    display_file_failure,
    fetch_display_file,
)
from lgos_client.extension import ModelCapabilities, describe_model, settings_metadata
from lgos_client.functions import (
    LOCAL_FUNCTIONS,
    FunctionCall,
    completed_calls,
    error_output,
    execute_call,
    function_tool,
)
from lgos_client.gateway_models import MODEL_INFO_PATH, gateway_models
from lgos_client.interrupts import (
    INTERRUPT_FUNCTION,
    InterruptQuestion,
    answers_input,
    is_interrupt_call,
)
from lgos_client.items import is_answer_message, message_text
from lgos_client.ledger import answer_key, call_output_item, calls_not_run_reason
from lgos_client.stream import (
    AnswerDelta,
    ItemDone,
    StreamDecoder,
    StreamEnd,
    StreamError,
)

log = logging.getLogger("lgos_pipe")

BACKGROUND_FEATURE = "background"
MCP_TOOLS_FEATURE = "mcp_tools"
FILE_INPUTS_FEATURE = "file_inputs"
MAX_FUNCTION_ROUNDS = 4
BACKGROUND_STATUS_EVERY = 10
"""Seconds between the "Running in the background" status lines of a polled
run (Open WebUI keeps every status line in the message's history)."""
EventEmitter = Callable[[dict[str, Any]], Awaitable[Any]]


# --------------------------------------------------------------------------
# Discovery: the lgos extension of each model
# --------------------------------------------------------------------------


# Each model is the client core's ModelCapabilities (lgos_client.extension):
# describe_model reads a retrieved model's ``lgos``, gateway_models LiteLLM's
# /model/info. A model with no usable extension chats with no settings.


def models_from_model_info(payload: object) -> dict[str, ModelCapabilities]:
    """Read a LiteLLM gateway's ``GET /v1/model/info``, by model name.

    One model per ``model_name``, in the order of its first deployment, with
    the ``model_info.lgos`` of its first deployment that has one (the LGOS
    model sync copies it there); a model without one chats with no settings.

    Raises:
        ModelInfoError: (a ``ValueError``) when the body has no data list.

    """
    return {model.model_id: model for model in gateway_models(payload)}


# --------------------------------------------------------------------------
# Runtime settings as user valves
# --------------------------------------------------------------------------


def _slug(name: str) -> str:
    slug = re.sub(r"\W", "_", name)
    return slug if not slug[:1].isdigit() else f"_{slug}"


def valve_name(model_id: str, key: str) -> str:
    """Return the user valve field of ``key`` for ``model_id``."""
    return f"{_slug(model_id)}__{_slug(key)}"


@dataclass(frozen=True, slots=True)
class ValveSpec:
    """One user valve: a runtime setting, a server tool switch or background."""

    model: str
    kind: Literal["setting", "tool", "background"]
    key: str
    annotation: Any
    default: Any
    title: str
    description: str = ""
    ge: float | None = None
    le: float | None = None

    @property
    def name(self) -> str:
        """The valve's field name."""
        prefix = {"setting": "", "tool": "tool_", "background": ""}[self.kind]
        return valve_name(self.model, prefix + self.key)


def _setting_specs(model: ModelCapabilities) -> list[ValveSpec]:
    settings = model.client_settings
    properties = settings.json_schema.get("properties") if settings else None
    if settings is None or not isinstance(properties, Mapping):
        return []
    specs: list[ValveSpec] = []
    for key, prop in properties.items():
        if not isinstance(prop, Mapping):
            continue
        default = settings.defaults.get(key, prop.get("default"))
        title = f"{model.id}: {prop.get('title') or key}"
        description = str(prop.get("description") or "")
        enum = prop.get("enum")
        kind = prop.get("type")
        bounds: dict[str, float | None] = {
            "ge": prop.get("minimum"),
            "le": prop.get("maximum"),
        }
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            annotation: Any = Literal[tuple(enum)]  # type: ignore[valid-type]
            bounds = {"ge": None, "le": None}
        elif kind == "boolean":
            annotation = bool
        elif kind == "integer":
            annotation = int
        elif kind == "number":
            annotation = float
        elif kind == "string":
            annotation = str
        else:
            continue  # no valve widget for it; the graph's default applies
        # Open WebUI's number fields are text boxes, and a value out of range
        # is refused with a bare "Error updating function user valves": the
        # description says the range.
        low, high = bounds["ge"], bounds["le"]
        if low is not None and high is not None:
            description = f"{description} (from {low} to {high})".strip()
        elif low is not None:
            description = f"{description} (at least {low})".strip()
        elif high is not None:
            description = f"{description} (at most {high})".strip()
        specs.append(
            ValveSpec(
                model=model.id,
                kind="setting",
                key=str(key),
                annotation=annotation,
                default=default,
                title=title,
                description=description,
                **bounds,
            )
        )
    return specs


def valve_specs(models: Sequence[ModelCapabilities]) -> list[ValveSpec]:
    """Every user valve for ``models``, in model order.

    Per model: its runtime settings (``lgos.client_settings``, defaults from
    the descriptor), a switch per server tool (``web_search`` on, custom tools
    off, as the Chainlit UI has them) and, with the ``background`` feature,
    "Run in background".
    """
    specs: list[ValveSpec] = []
    for model in models:
        specs.extend(_setting_specs(model))
        for tool in model.server_tools:
            label = "Web search" if tool == "web_search" else tool
            specs.append(
                ValveSpec(
                    model=model.id,
                    kind="tool",
                    key=tool,
                    annotation=bool,
                    default=tool == "web_search",
                    title=f"{model.id}: {label}",
                    description=f"Offer the server tool {tool} to {model.id}.",
                )
            )
        if BACKGROUND_FEATURE in model.features:
            specs.append(
                ValveSpec(
                    model=model.id,
                    kind="background",
                    key="run_in_background",
                    annotation=bool,
                    default=False,
                    title=f"{model.id}: Run in background",
                    description="Send every request with background=true and "
                    "poll it; Stop cancels it on the server.",
                )
            )
    return specs


class BaseUserValves(BaseModel):
    """User valves before the models are known: unknown fields are kept."""

    model_config = ConfigDict(extra="allow")


def user_valves_class(specs: Sequence[ValveSpec]) -> type[BaseModel]:
    """Build a pydantic model with a field per valve (Open WebUI's ``UserValves``)."""
    fields: dict[str, Any] = {}
    for spec in specs:
        extra: dict[str, Any] = {}
        if spec.ge is not None:
            extra["ge"] = spec.ge
        if spec.le is not None:
            extra["le"] = spec.le
        fields[spec.name] = (
            spec.annotation,
            Field(
                default=spec.default,
                title=spec.title,
                description=spec.description,
                **extra,
            ),
        )
    return create_model(
        "UserValves",
        __config__=ConfigDict(extra="ignore"),
        **fields,
    )


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """What a model's valves add to its requests."""

    metadata: dict[str, str]
    tools: list[dict[str, Any]]
    background: bool


def request_options(
    model: ModelCapabilities, values: Mapping[str, Any], specs: Sequence[ValveSpec]
) -> RequestOptions:
    """Turn the user's valve values into a request's metadata, tools, mode.

    ``metadata`` holds ``lgos_settings`` with only the settings that differ
    from the descriptor's defaults (nothing when all are default); ``tools``
    selects the switched-on server tools (``{"type": "web_search"}`` or
    ``{"type": "custom", "name": ...}``).
    """
    defaults = model.client_settings.defaults if model.client_settings else {}
    settings: dict[str, Any] = {}
    tools: list[dict[str, Any]] = []
    background = False
    for spec in specs:
        if spec.model != model.id:
            continue
        value = values.get(spec.name, spec.default)
        if spec.kind == "setting":
            settings[spec.key] = value
        elif spec.kind == "tool" and value:
            tools.append(
                {"type": "web_search"}
                if spec.key == "web_search"
                else {"type": "custom", "name": spec.key}
            )
        elif spec.kind == "background":
            background = bool(value) and BACKGROUND_FEATURE in model.features
    metadata = settings_metadata(settings, defaults)
    return RequestOptions(metadata=metadata, tools=tools, background=background)


# --------------------------------------------------------------------------
# Responses stream events to Open WebUI events
# --------------------------------------------------------------------------


def status_event(description: str, *, done: bool = False) -> dict[str, Any]:
    """Return an Open WebUI ``status`` event (the line above the answer)."""
    return {
        "type": "status",
        "data": {"description": description, "done": done, "hidden": False},
    }


def source_event(url: str, title: str | None) -> dict[str, Any]:
    """Return an Open WebUI ``source`` event for one cited URL."""
    name = title or url
    return {
        "type": "source",
        "data": {
            "source": {"name": name, "url": url},
            "document": [name],
            # external: Open WebUI keeps the title as the name of a URL source
            "metadata": [{"source": url, "name": name, "external": True}],
        },
    }


Action = tuple[Literal["text"], str] | tuple[Literal["event"], dict[str, Any]]


@dataclass(slots=True)
class Translator:
    """Turns Responses stream events (as dicts) into transcript text and events.

    Only ``final_answer`` messages (or messages without a phase) reach the
    transcript; each completed commentary message becomes a ``status`` event,
    each search or server tool call one too; each ``url_citation`` annotation
    of a final message a ``source`` event (once per URL). The terminal
    Response is kept in :attr:`response`.
    """

    decoder: StreamDecoder = field(default_factory=StreamDecoder)
    sources: list[str] = field(default_factory=list)
    wrote_text: bool = False
    response: dict[str, Any] | None = None
    error: str | None = None
    _need_break: bool = False

    def _text(self, text: str) -> list[Action]:
        if not text:
            return []
        actions: list[Action] = []
        if self._need_break and self.wrote_text:
            actions.append(("text", "\n\n"))
        self._need_break = False
        self.wrote_text = True
        actions.append(("text", text))
        return actions

    def _status(self, text: str) -> list[Action]:
        return [("event", status_event(text))]

    def item_done(self, item: Mapping[str, Any]) -> list[Action]:
        """Events for one completed output item (streamed or polled)."""
        kind = item.get("type")
        if kind == "message" and item.get("phase") == "commentary":
            text = message_text(item, refusal=True).strip()
            return self._status(text) if text else []
        if kind == "message":
            self._need_break = True
            return self.citations(item)
        if kind == "web_search_call":
            action = item.get("action")
            query = action.get("query") if isinstance(action, Mapping) else None
            failed = item.get("status") == "failed"
            text = f"Searched: {query}" if query else "Searched the web"
            return self._status(text + (" (failed)" if failed else ""))
        if kind == "custom_tool_call":
            return self._status(f"Ran {item.get('name')}")
        return []

    def citations(self, item: Mapping[str, Any]) -> list[Action]:
        """Return a ``source`` event per new ``url_citation`` of a message."""
        actions: list[Action] = []
        for part in item.get("content") or ():
            if not isinstance(part, Mapping):
                continue
            for note in part.get("annotations") or ():
                if not isinstance(note, Mapping) or note.get("type") != "url_citation":
                    continue
                url = str(note.get("url") or "")
                if url and url not in self.sources:
                    self.sources.append(url)
                    actions.append(("event", source_event(url, note.get("title"))))
        return actions

    def feed(self, event: Mapping[str, Any]) -> list[Action]:
        """Translate one stream event (decoded by :class:`StreamDecoder`)."""
        update = self.decoder.feed(event)
        if isinstance(update, AnswerDelta):
            return self._text(update.text)  # refusal text included
        if isinstance(update, ItemDone):
            return self.item_done(update.item)
        if isinstance(update, StreamEnd):
            response = update.response
            self.response = dict(response) if isinstance(response, Mapping) else None
            if update.status == "failed":
                error = (self.response or {}).get("error") or {}
                self.error = str(error.get("message") or "the run failed")
        elif isinstance(update, StreamError):
            self.error = update.message or "stream error"
        return []

    def replay(self, response: Mapping[str, Any]) -> list[Action]:
        """Actions for a whole Response (a polled background run)."""
        actions: list[Action] = []
        for item in response.get("output") or ():
            if not isinstance(item, Mapping):
                continue
            if item.get("type") == "message" and is_answer_message(item):
                actions.extend(self._text(message_text(item, refusal=True)))
            actions.extend(self.item_done(item))
        return actions


# --------------------------------------------------------------------------
# The ledger: Open WebUI's history plus the stored output items
# --------------------------------------------------------------------------


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or "")
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return ""


class StateStore:
    """Per chat: each answer's output items and a pending pause, in SQLite."""

    def __init__(self, path: Path) -> None:
        """Open (and create) the store at ``path``."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS answers (chat_id TEXT, key TEXT, "
                "record TEXT, PRIMARY KEY (chat_id, key))"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS pauses (chat_id TEXT PRIMARY KEY, "
                "pause TEXT)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS uploads (owui_id TEXT PRIMARY KEY, "
                "file_id TEXT)"
            )

    @contextlib.contextmanager
    def _db(self):
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                yield db
        finally:
            db.close()

    def save_answer(self, chat_id: str, text: str, record: Mapping[str, Any]) -> None:
        """Keep what an answer (shown as ``text``) stands for in the ledger."""
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?)",
                (chat_id, answer_key(text), json.dumps(record)),
            )

    def answer(self, chat_id: str, text: str) -> dict[str, Any] | None:
        """Return the record saved for an answer shown as ``text``, if any."""
        with self._db() as db:
            row = db.execute(
                "SELECT record FROM answers WHERE chat_id = ? AND key = ?",
                (chat_id, answer_key(text)),
            ).fetchone()
        return json.loads(row[0]) if row else None

    def save_pause(self, chat_id: str, pause: Mapping[str, Any] | None) -> None:
        """Keep (or, with ``None``, forget) the chat's pending pause."""
        with self._db() as db:
            if pause is None:
                db.execute("DELETE FROM pauses WHERE chat_id = ?", (chat_id,))
            else:
                db.execute(
                    "INSERT OR REPLACE INTO pauses VALUES (?, ?)",
                    (chat_id, json.dumps(pause)),
                )

    def save_upload(self, owui_id: str, file_id: str) -> None:
        """Remember the Files API ID an Open WebUI file was uploaded as."""
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO uploads VALUES (?, ?)", (owui_id, file_id)
            )

    def upload(self, owui_id: str) -> str | None:
        """Return the Files API ID of an Open WebUI file already uploaded."""
        with self._db() as db:
            row = db.execute(
                "SELECT file_id FROM uploads WHERE owui_id = ?", (owui_id,)
            ).fetchone()
        return str(row[0]) if row else None

    def pause(self, chat_id: str) -> dict[str, Any] | None:
        """Return the chat's pending pause, if any."""
        with self._db() as db:
            row = db.execute(
                "SELECT pause FROM pauses WHERE chat_id = ?", (chat_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None


Lookup = Callable[[str], "dict[str, Any] | None"]


def ledger_input(
    messages: Sequence[Mapping[str, Any]], lookup: Lookup | None = None
) -> list[dict[str, Any]]:
    """Build the Responses ``input`` for Open WebUI's ``messages``.

    User messages become ``{"role": "user", "content": text}``. An assistant
    message whose text ``lookup`` knows is replaced by its stored output items,
    unchanged (commentary, searches, the answer with its annotations); an
    answer recorded as a pause note (the question a graph asked) is dropped
    together with the user's reply that answered it. Unknown assistant text
    is replayed as a plain assistant message. System messages are not sent
    (graphs own their instructions). A record's ``user`` (the content its
    turn was sent with, ``input_file`` parts included) replaces the text of
    the user message before it; Open WebUI's ``<attached_files>`` preamble
    is removed from user texts.
    """
    items: list[dict[str, Any]] = []
    skip_next_user = False
    last_user: int | None = None
    for message in messages:
        role = message.get("role")
        text = _content_text(message.get("content"))
        if role == "user":
            if skip_next_user:
                skip_next_user = False
                continue
            last_user = len(items)
            items.append({"role": "user", "content": strip_file_context(text)})
        elif role == "assistant":
            record = lookup(text) if lookup else None
            if record and record.get("user") is not None and last_user is not None:
                items[last_user] = {"role": "user", "content": record["user"]}
            last_user = None
            if record and record.get("kind") == "pause":
                skip_next_user = True
                continue
            if record and isinstance(record.get("items"), list):
                items.extend(record["items"])
            elif text.strip():
                items.append({"role": "assistant", "content": text})
    return items


# --------------------------------------------------------------------------
# Client functions the pipe runs (the demo's ``functions`` graph)
# --------------------------------------------------------------------------
# The demo's functions (lgos_client.functions) are the Chainlit UI's too.


def local_function_calls(
    output: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Return the completed calls of :data:`LOCAL_FUNCTIONS` among output items."""
    return completed_calls(output, LOCAL_FUNCTIONS)


def run_local_function(call: Mapping[str, Any]) -> tuple[str, bool]:
    """Run one call of :data:`LOCAL_FUNCTIONS`; never raise for a bad call.

    Returns:
        ``(output, ok)``: the compact JSON ``function_call_output`` string
        (``{"error": "..."}`` when ``ok`` is false).

    """
    return execute_call(FunctionCall.from_item(call), LOCAL_FUNCTIONS)


# --------------------------------------------------------------------------
# MCP tools: the ones Open WebUI attached to the chat
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class McpTool:
    """One MCP tool Open WebUI attached to the chat, offered as a function.

    Open WebUI connects the MCP servers the chat (or the model) selected and
    hands a pipe each of their tools in ``__tools__``: a ``spec`` (name,
    description, JSON Schema parameters; the name is ``<server id>_<tool>``)
    and a ``callable`` that runs ``tools/call`` on its server.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    call: Callable[..., Any]

    def tool(self) -> dict[str, Any]:
        """Return the flat Responses function tool (``strict`` False)."""
        return function_tool(self.name, self.description, self.parameters, strict=False)

    async def run(self, arguments: str | None) -> tuple[str, bool]:
        """Run one call; never raise for a bad call (cancellation passes).

        Returns:
            ``(output, ok)``: the text of the result's content blocks (Open
            WebUI's MCP client adds ``structuredContent`` as JSON text when
            the text differs), or ``{"error": "..."}`` with ``ok`` False for
            arguments that are not a JSON object, an ``isError`` result
            (Open WebUI raises it) or an unreachable server, as the MCP
            rules of docs/how-to/mcp-tools.md say.

        """
        try:
            parsed = json.loads(arguments or "{}")
            if not isinstance(parsed, dict):
                raise ValueError("the arguments are not a JSON object")
        except ValueError as exc:
            return error_output(f"{self.name} failed: {exc}"), False
        try:
            result = self.call(**parsed)
            if inspect.isawaitable(result):
                result = await result
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("MCP tool %s failed: %s", self.name, exc)
            return error_output(f"{self.name} failed: {exc}"), False
        return mcp_result_text(result), True


def mcp_result_text(result: object) -> str:
    """Return the output text of what Open WebUI's MCP client returned.

    A list of content blocks gives their text, one per line (an image or
    other binary block a ``[image image/png]`` placeholder); anything else
    is sent as compact JSON.
    """
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        lines = []
        for block in result:
            if isinstance(block, Mapping) and block.get("type") == "text":
                lines.append(str(block.get("text") or ""))
            elif isinstance(block, Mapping):
                kind = block.get("type") or "content"
                mime = block.get("mimeType")
                lines.append(f"[{kind} {mime}]" if mime else f"[{kind}]")
            else:
                lines.append(str(block))
        return "\n".join(lines)
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def mcp_tools_from(tools: object, reserved: Collection[str]) -> dict[str, McpTool]:
    """Return the MCP tools among Open WebUI's ``__tools__``, by function name.

    Only entries of ``type`` ``mcp`` with a ``spec`` and a ``callable`` are
    taken (Open WebUI's own built-in tools are not MCP tools); a name in
    ``reserved`` (the pipe's own functions, ``lgos_interrupt``) is skipped.
    """
    found: dict[str, McpTool] = {}
    if not isinstance(tools, Mapping):
        return found
    for key, entry in tools.items():
        if not isinstance(entry, Mapping) or entry.get("type") != "mcp":
            continue
        spec, call = entry.get("spec"), entry.get("callable")
        if not isinstance(spec, Mapping) or not callable(call):
            continue
        name = str(spec.get("name") or key)
        if name in reserved or name in found:
            continue
        parameters = spec.get("parameters")
        parameters = dict(parameters) if isinstance(parameters, Mapping) else {}
        parameters.setdefault("type", "object")
        if parameters["type"] == "object":
            parameters.setdefault("properties", {})
        found[name] = McpTool(
            name=name,
            description=str(spec.get("description") or f"MCP tool {name}"),
            parameters=parameters,
            call=call,
        )
    return found


# --------------------------------------------------------------------------
# Attachments in, display_file out
# --------------------------------------------------------------------------

# Open WebUI 0.12.4 prefixes a user message that had files with a list of
# them (for its own built-in file tools); the graphs get the files as
# input_file parts instead.
_FILE_CONTEXT = re.compile(r"\A\s*<attached_files>.*?</attached_files>\s*", re.S)


def strip_file_context(text: str) -> str:
    """Remove Open WebUI's ``<attached_files>`` preamble from a user text."""
    return _FILE_CONTEXT.sub("", text, count=1)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file the user attached in Open WebUI, as stored in its upload folder."""

    id: str
    name: str
    mime_type: str
    path: Path | None

    def read(self) -> bytes:
        """Return the file's bytes (``OSError`` when it cannot be read)."""
        if self.path is None:
            raise OSError(f"no stored file for {self.name}")
        return self.path.read_bytes()


_NOT_ATTACHMENTS = {"collection", "web_search_results", "filesystem", "chat", "url"}


def attachments_from(items: object, upload_dir: Path | None = None) -> list[Attachment]:
    """Read Open WebUI's file items (``__files__`` or a message's ``files``).

    Each item is ``{"type": "file", "id", "name", "file": {"id", "filename",
    "path", "meta": {"content_type", ...}}, ...}``; the bytes are at
    ``file.path`` (Open WebUI's local storage) or, failing that, at
    ``<upload_dir>/<id>_<filename>``. Knowledge collections, web results and
    other non-file items are skipped; each file is listed once.
    """
    found: list[Attachment] = []
    seen: set[str] = set()
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, Mapping) or item.get("type") in _NOT_ATTACHMENTS:
            continue
        file = item.get("file")
        file = file if isinstance(file, Mapping) else {}
        meta = file.get("meta")
        meta = meta if isinstance(meta, Mapping) else {}
        file_id = str(item.get("id") or file.get("id") or "")
        if not file_id or file_id in seen:
            continue
        seen.add(file_id)
        name = str(
            item.get("name") or meta.get("name") or file.get("filename") or file_id
        )
        path: Path | None = None
        stored = file.get("path")
        if isinstance(stored, str) and stored and Path(stored).is_file():
            path = Path(stored)
        elif upload_dir is not None:
            path = next(iter(sorted(upload_dir.glob(f"{file_id}_*"))), None)
        mime = meta.get("content_type") or item.get("content_type")
        found.append(
            Attachment(
                id=file_id,
                name=name,
                mime_type=str(mime or _guess_type(name)),
                path=path,
            )
        )
    return found


def _guess_type(name: str) -> str:
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def user_content(text: str, file_ids: Sequence[str]) -> str | list[dict[str, Any]]:
    """Return a user turn's ``content``: the text, an ``input_file`` per file."""
    if not file_ids:
        return text
    return [
        {"type": "input_text", "text": text},
        *({"type": "input_file", "file_id": file_id} for file_id in file_ids),
    ]


TEXT_TYPES = frozenset(
    {"application/json", "application/csv", "application/xml", "application/x-ndjson"}
)
"""Media types besides ``text/*`` whose content Open WebUI's file view shows."""

SHOWN_TEXT_LIMIT = 1_000_000
"""Bytes of a text file put in its ``files`` entry at most (the chat keeps it)."""


def shown_text(mime_type: str, data: bytes) -> str | None:
    """Return the text of a file Open WebUI can show in its file view, or None.

    Text media types (``text/*``, :data:`TEXT_TYPES`) up to
    :data:`SHOWN_TEXT_LIMIT` bytes that decode as UTF-8 (a byte-order mark
    dropped); anything else (images, PDFs, archives, a large or binary file)
    has none.
    """
    kind = mime_type.lower().split(";", 1)[0].strip()
    if not (kind.startswith("text/") or kind in TEXT_TYPES):
        return None
    if len(data) > SHOWN_TEXT_LIMIT:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def files_event(name: str, mime_type: str, data: bytes) -> dict[str, Any]:
    """Open WebUI's ``files`` event showing a file under the answer.

    Open WebUI keeps the message's files with the chat (so the file is shown
    again after a reload) and draws ``image`` files inline; the content goes
    as a ``data:`` URL, since the Files service's URLs need its key. Other
    files show as a chip that opens Open WebUI's file view, whose *Content*
    tab shows ``file.data.content``: a text file's text (:func:`shown_text`)
    goes there, with its ``size`` in bytes.
    """
    url = f"data:{mime_type};base64,{base64.b64encode(data).decode()}"
    kind = "image" if mime_type.lower().startswith("image/") else "file"
    entry: dict[str, Any] = {
        "type": kind,
        "url": url,
        "name": name,
        "content_type": mime_type,
        "size": len(data),
    }
    text = shown_text(mime_type, data) if kind == "file" else None
    if text is not None:
        entry["file"] = {"data": {"content": text}}
    return {"type": "files", "data": {"files": [entry]}}


# --------------------------------------------------------------------------
# Interrupt questions
# --------------------------------------------------------------------------


# The questions are read by lgos_client.interrupts (InterruptQuestion, as the
# Chainlit UI reads them); what is here is how Open WebUI asks them.


def questions_of(calls: Sequence[Mapping[str, Any]]) -> list[InterruptQuestion]:
    """Read a pause's ``lgos_interrupt`` calls as questions, in their order.

    Arguments that are not a JSON object give the fallback question alone
    (the Chainlit UI also shows them as code).
    """
    return [InterruptQuestion.from_call(call, show_arguments=False) for call in calls]


def card_text(question: str) -> str:
    """Return a question's Markdown as Open WebUI's question card shows it.

    The card shows plain text, so a block quote (the request the question
    is about, as ``> …`` lines) would show its ``>`` markers: each quoted
    line becomes the line in quotation marks instead. Other text is kept.
    """
    lines = []
    for line in question.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(">"):
            quoted = stripped[1:].strip()
            line = f"“{quoted}”" if quoted else ""
        lines.append(line)
    return "\n".join(lines)


def user_input_request(questions: Sequence[InterruptQuestion]) -> dict[str, Any]:
    """Open WebUI's ``request:user_input`` event asking ``questions`` at once."""
    many = len(questions) > 1
    return {
        "type": "request:user_input",
        "data": {
            "questions": [
                {
                    "id": f"q{index}",
                    "header": f"Question {index + 1} of {len(questions)}"
                    if many
                    else "Question",
                    "question": card_text(question.question),
                    "options": [
                        {"label": choice, "description": f"Answer {choice!r}"}
                        for choice in question.choices
                    ],
                    "allow_other": question.accepts_text,
                }
                for index, question in enumerate(questions)
            ],
            "allow_other": any(question.accepts_text for question in questions),
            "timeout_ms": 240_000,
        },
    }


def answers_from_user_input(
    questions: Sequence[InterruptQuestion], reply: object
) -> dict[str, str] | None:
    """Return the answers (by call ID) of a ``request:user_input`` reply.

    ``None`` when the user cancelled, the dialog timed out, the browser left,
    or an answer is missing or not allowed.
    """
    if not isinstance(reply, Mapping) or reply.get("status") != "answered":
        return None
    given = reply.get("answers")
    if not isinstance(given, Mapping):
        return None
    answers: dict[str, str] = {}
    for index, question in enumerate(questions):
        answer = given.get(f"q{index}")
        if not isinstance(answer, Mapping):
            return None
        if answer.get("type") == "option":
            text = str(answer.get("label") or "")
        else:
            text = str(answer.get("text") or "")
        value = question.answer_for(text)
        if value is None:
            return None
        answers[question.call_id] = value
    return answers


def pause_note(questions: Sequence[InterruptQuestion]) -> str:
    """Return the transcript text of a question left unanswered."""
    lines = []
    for question in questions:
        lines.append(question.question)
        if question.choices:
            options = ", ".join(f"**{choice}**" for choice in question.choices)
            more = " or your own answer" if question.accepts_text else ""
            lines.append(f"\nAnswer {options}{more}.")
    lines.append("\n*Reply in this chat to answer; the graph is waiting.*")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# The pipe
# --------------------------------------------------------------------------


def _dump(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    return dict(value) if isinstance(value, Mapping) else {}


def _default_state_path() -> Path:
    return Path(os.environ.get("DATA_DIR") or ".") / "lgos" / "ledger.sqlite3"


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
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[str, str, float], AsyncOpenAI]
        ] = weakref.WeakKeyDictionary()

    # -- plumbing ---------------------------------------------------------

    def client(self) -> AsyncOpenAI:
        """Return the OpenAI client for LGOS (tests may set ``client_factory``)."""
        if self.client_factory is not None:
            return self.client_factory()
        return self._cached(self.valves.LGOS_BASE_URL, self.valves.LGOS_API_KEY)

    def files_client(self) -> AsyncOpenAI | None:
        """Return the OpenAI client for the Files service (``None`` when unset)."""
        if self.files_factory is not None:
            return self.files_factory()
        if not self.valves.FILES_BASE_URL:
            return None
        return self._cached(self.valves.FILES_BASE_URL, self.valves.FILES_API_KEY)

    def _cached(self, base_url: str, api_key: str) -> AsyncOpenAI:
        """Return one client per event loop, URL, key and timeout, kept open.

        A client holds a connection pool and a TLS context that are slow to
        build on every request; its pool belongs to the loop it first ran
        on, hence one set of clients per loop (held weakly by the loop).
        """
        loop = asyncio.get_running_loop()
        clients = self._clients.setdefault(loop, {})
        key = (base_url, api_key, self.valves.REQUEST_TIMEOUT)
        client = clients.get(key)
        if client is None or client.is_closed():
            client = AsyncOpenAI(
                base_url=base_url,
                api_key=api_key or "lgos-demo",
                timeout=self.valves.REQUEST_TIMEOUT,
                max_retries=1,
            )
            clients[key] = client
        return client

    async def close(self) -> None:
        """Close the clients this pipe made on the running loop."""
        clients = self._clients.pop(asyncio.get_running_loop(), {})
        for client in clients.values():
            await client.close()

    async def upload(
        self,
        attachments: Sequence[Attachment],
        store: StateStore | None,
        emit: EventEmitter,
        files: AsyncOpenAI | None,
    ) -> list[str]:
        """Upload attachments to the Files service; return their file IDs.

        Each Open WebUI file is uploaded once (``purpose="user_data"``); the
        ID is remembered in the store. A file that cannot be read or
        uploaded is left out, with a status line saying so.
        """
        file_ids: list[str] = []
        for attachment in attachments:
            known = store.upload(attachment.id) if store else None
            if known:
                file_ids.append(known)
                continue
            if files is None:
                await emit(
                    status_event(f"Not attached: {attachment.name} (no Files API)")
                )
                continue
            try:
                created = await files.files.create(
                    file=(attachment.name, attachment.read(), attachment.mime_type),
                    purpose="user_data",
                )
            except (OSError, OpenAIError) as error:
                log.warning("uploading %s failed: %s", attachment.name, error)
                await emit(status_event(f"Not attached: {attachment.name} ({error})"))
                continue
            if store:
                store.save_upload(attachment.id, created.id)
            file_ids.append(created.id)
            await emit(status_event(f"Attached {attachment.name}"))
        return file_ids

    def store(self) -> StateStore:
        """Return the ledger's SQLite store."""
        path = Path(self.valves.STATE_PATH) if self.valves.STATE_PATH else None
        path = path or _default_state_path()
        if self._store is None or self._store.path != path:
            self._store = StateStore(path)
        return self._store

    async def discover(self, *, force: bool = False) -> dict[str, ModelCapabilities]:
        """List LGOS's models and retrieve each one's ``lgos`` extension."""
        fresh = time.monotonic() - self._models_at < self.valves.MODELS_CACHE_SECONDS
        if self.models and fresh and not force:
            return self.models
        client = self.client()
        models: dict[str, ModelCapabilities] | None = None
        if self.valves.DISCOVERY == "litellm":
            try:
                info = await client.get(MODEL_INFO_PATH, cast_to=object)
                models = models_from_model_info(info)
            except Exception as error:  # an older LiteLLM, a wrong key, not LiteLLM
                log.warning("the gateway's /model/info failed: %s", error)
                listed = [model.id async for model in client.models.list()]
                models = {
                    model_id: ModelCapabilities(model_id, None) for model_id in listed
                }
        if models is None:
            listed = [model.id async for model in client.models.list()]
            models = {}
            for model_id in listed:
                # A gateway that does not route model retrieval (Bifrost's
                # /v1 answers an HTML page) gives no object: a plain model.
                model = await client.models.retrieve(model_id)
                models[model_id] = describe_model({**_dump(model), "id": model_id})
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
                first = next(
                    (
                        _content_text(m.get("content"))
                        for m in body.get("messages", [])
                        if m.get("role") == "user"
                    ),
                    "",
                )
                yield json.dumps({"title": " ".join(first.split())[:60] or "Chat"})
            return
        model_id = str(body.get("model", "")).split(".", 1)[-1]
        models = await self.discover()
        model = models.get(model_id)
        if model is None:
            models = await self.discover(force=True)
            model = models.get(model_id) or ModelCapabilities(model_id, None)
        raw_valves = (__user__ or {}).get("valves")
        values = _dump(raw_valves)
        options = request_options(model, values, self.specs)
        chat_id = __chat_id__ or (__metadata__ or {}).get("chat_id")
        chat_id = chat_id if isinstance(chat_id, str) and chat_id else None
        if chat_id and chat_id.startswith("local:"):
            chat_id = None  # a temporary chat: nothing is kept
        store = self.store() if chat_id else None
        emit = __event_emitter__ or _ignore
        client, files = self.client(), self.files_client()
        mcp = (
            mcp_tools_from(
                __tools__, {*LOCAL_FUNCTIONS, DISPLAY_FILE, INTERRUPT_FUNCTION}
            )
            if MCP_TOOLS_FEATURE in model.features
            else {}
        )
        turn = Turn(
            client=client,
            files=files,
            model=model,
            emit=emit,
            mcp=mcp,
            ask=__event_call__,
            poll_interval=self.valves.POLL_INTERVAL,
            save_pause=(
                (lambda pause: store.save_pause(chat_id, pause))
                if store and chat_id
                else (lambda _pause: None)
            ),
        )
        messages = body.get("messages") or []
        user: str | list[dict[str, Any]] | None = None
        pause = store.pause(chat_id) if store and chat_id else None
        if pause is not None and pause.get("model") == model.id and messages:
            reply = _content_text(messages[-1].get("content"))
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
            user = await self._user_turn(
                model, ledger, __metadata__, __files__, store, turn.emit_step, files
            )
            async for text in turn.run(
                ledger,
                metadata=options.metadata,
                tools=options.tools,
                background=options.background,
            ):
                yield text
        if store and chat_id:
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

    async def _user_turn(
        self,
        model: ModelCapabilities,
        ledger: list[dict[str, Any]],
        metadata: Mapping[str, Any] | None,
        items: object,
        store: StateStore | None,
        emit: EventEmitter,
        files: AsyncOpenAI | None,
    ) -> str | list[dict[str, Any]] | None:
        """Complete the ledger's last user message: its own text, its files.

        Open WebUI may have rewritten that message (file context, retrieved
        text); the text the user typed is in ``metadata.user_message``. The
        files attached to it are uploaded and sent as ``input_file`` parts.
        Returns the content sent (``None`` without a last user message).
        """
        if not ledger or ledger[-1].get("role") != "user":
            return None
        message = (metadata or {}).get("user_message")
        text = ledger[-1].get("content")
        if isinstance(message, Mapping) and isinstance(message.get("content"), str):
            text = message["content"]
            items = message.get("files") or []
        attachments = attachments_from(items, _upload_dir())
        if attachments and FILE_INPUTS_FEATURE not in model.features:
            names = ", ".join(a.name for a in attachments)
            await emit(status_event(f"{model.id} takes no attachments: {names}"))
            attachments = []
        file_ids = await self.upload(attachments, store, emit, files)
        if not isinstance(text, str):
            return None  # already the content of a stored turn
        content = user_content(text, file_ids)
        ledger[-1] = {"role": "user", "content": content}
        return content


def _upload_dir() -> Path:
    return Path(os.environ.get("DATA_DIR") or ".") / "uploads"


async def _ignore(_event: dict[str, Any]) -> None:
    return None


@dataclass(slots=True)
class Turn:
    """One user turn: requests to LGOS until an answer, pause or failure."""

    client: AsyncOpenAI
    model: ModelCapabilities
    emit: EventEmitter
    files: AsyncOpenAI | None = None
    ask: EventEmitter | None = None
    poll_interval: float = 1.0
    save_pause: Callable[[Mapping[str, Any] | None], None] = lambda _pause: None
    transcript: str = ""
    items: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None
    finished: bool = False
    base_input: list[dict[str, Any]] = field(default_factory=list)
    background_seconds: int = 0
    mcp: Mapping[str, McpTool] = field(default_factory=dict)
    steps: int = 0
    waited: bool = False

    async def run(
        self,
        ledger: list[dict[str, Any]],
        *,
        metadata: dict[str, str],
        tools: list[dict[str, Any]],
        background: bool,
    ) -> AsyncIterator[str]:
        """Send the ledger; yield the answer's text; ask any questions."""
        if DISPLAY_FILE in self.model.client_tools:
            tools = [*tools, DISPLAY_FILE_TOOL]
        tools = tools + [
            LOCAL_FUNCTIONS[name].tool()
            for name in dict.fromkeys(self.model.client_tools)
            if name in LOCAL_FUNCTIONS
        ]
        tools = tools + [tool.tool() for tool in self.mcp.values()]
        self.base_input = ledger
        request: dict[str, Any] = {
            "model": self.model.id,
            "input": ledger,
            "metadata": metadata,
            "tools": tools,
        }
        async for text in self._loop(request, background=background, carried=[]):
            yield text

    async def resume_typed(
        self, pause: Mapping[str, Any], reply: str
    ) -> AsyncIterator[str]:
        """Answer a saved pause with the user's typed ``reply``."""
        self.base_input = list(pause.get("input") or [])
        questions = questions_of(pause.get("calls", []))
        answers = {}
        for question in questions:
            value = question.answer_for(reply)
            if value is None:
                choices = ", ".join(question.choices)
                self.pending = dict(pause)
                text = f"Please answer one of: {choices}."
                self.transcript += text
                yield text
                return
            answers[question.call_id] = value
        request = self._resume_request(pause, answers)
        async for text in self._loop(
            request,
            background=bool(pause.get("background")),
            carried=list(pause.get("carried") or []),
        ):
            yield text

    def _resume_request(
        self, pause: Mapping[str, Any], answers: Mapping[str, str]
    ) -> dict[str, Any]:
        return {
            "model": self.model.id,
            "previous_response_id": pause["response_id"],
            "input": answers_input(answers),
            "metadata": dict(pause.get("metadata") or {}),
            "tools": list(pause.get("tools") or []),
        }

    async def _loop(
        self,
        request: dict[str, Any],
        *,
        background: bool,
        carried: list[dict[str, Any]],
    ) -> AsyncIterator[str]:
        rounds = 0
        while True:
            translator = Translator()
            if background:
                stream = self._background(request, translator)
            else:
                stream = self._stream(request, translator)
            async for text in stream:
                self.transcript += text
                yield text
            response = translator.response or {}
            if translator.error is not None:
                await self._close_statuses()
                raise RuntimeError(f"LGOS: {translator.error}")
            output = [dict(item) for item in response.get("output") or ()]
            calls = [item for item in output if is_interrupt_call(item)]
            kept = [item for item in output if not is_interrupt_call(item)]
            shows = (
                completed_calls(kept, {DISPLAY_FILE})
                + local_function_calls(kept)
                + completed_calls(kept, self.mcp)
            )
            if shows and not calls:
                if (
                    calls_not_run_reason(
                        response.get("status"), rounds, MAX_FUNCTION_ROUNDS
                    )
                    is None
                ):
                    outputs = [await self._run_client_call(call) for call in shows]
                    carried = carried + kept + outputs
                    rounds += 1
                    # Stateless: the ledger, this turn's items, the outputs.
                    request = {
                        "model": self.model.id,
                        "input": self.base_input + carried,
                        "metadata": request.get("metadata") or {},
                        "tools": request.get("tools") or [],
                    }
                    continue
                not_run = display_file_failure("not run")
                kept = kept + [_call_output(call, not_run) for call in shows]
            if not calls:
                self.items = carried + kept
                self.finished = True
                await self._close_statuses()
                return
            carried = carried + kept
            questions = questions_of(calls)
            pause = {
                "model": self.model.id,
                "response_id": response.get("id"),
                "calls": calls,
                "metadata": request.get("metadata") or {},
                "tools": request.get("tools") or [],
                "carried": carried,
                "background": background,
                "input": self.base_input,
            }
            # Saved before the dialog opens: a Stop or a closed tab while it
            # is open leaves the pause answerable by the next message.
            self.save_pause(pause)
            await self._close_statuses()
            answers = None
            if self.ask is not None:
                reply = await self.ask(user_input_request(questions))
                answers = answers_from_user_input(questions, reply)
            self.save_pause(None)
            if answers is None:
                note = pause_note(questions)
                prefix = "\n\n" if self.transcript else ""
                self.transcript += prefix + note
                yield prefix + note
                self.pending = pause
                return
            await self.emit_step(
                status_event("Answered: " + "; ".join(answers.values()))
            )
            request = self._resume_request(pause, answers)

    async def emit_step(self, event: dict[str, Any]) -> None:
        """Emit ``event``; a status line counts as one step of the turn."""
        if event.get("type") == "status":
            self.steps += 1
        await self.emit(event)

    async def _close_statuses(self) -> None:
        """End the status lines shown so far with one line marked done.

        Open WebUI appends every status event to the message's history and
        shows the last one folded (shimmering until one is ``done``), so the
        closing line sums the steps up ("Done after 5 steps") instead of
        repeating the last one; a background run without steps gets
        "Finished in the background after N s". Called when the turn ends,
        fails or pauses for a question.
        """
        if self.steps:
            plural = "" if self.steps == 1 else "s"
            line = f"Done after {self.steps} step{plural}"
        elif self.waited:
            line = f"Finished in the background after {self.background_seconds} s"
        else:
            return
        self.steps, self.waited = 0, False
        await self.emit(status_event(line, done=True))

    async def _run_client_call(self, call: Mapping[str, Any]) -> dict[str, Any]:
        """Run one client call (``display_file``, a local function or an MCP tool).

        Returns:
            Its ``function_call_output`` item; a local function's or an MCP
            tool's call and result also go into a status line.

        """
        if call.get("name") == DISPLAY_FILE:
            return _call_output(call, await self._show(call))
        tool = self.mcp.get(str(call.get("name")))
        if tool is not None:
            output, ok = await tool.run(call.get("arguments"))
            verb = "Ran" if ok else "Failed"
            await self.emit_step(
                status_event(
                    f"{verb} {tool.name}({call.get('arguments')}) on MCP → {output}"
                )
            )
            return _call_output(call, output)
        output, ok = run_local_function(call)
        verb = "Ran" if ok else "Failed"
        await self.emit_step(
            status_event(
                f"{verb} {call.get('name')}({call.get('arguments')}) → {output}"
            )
        )
        return _call_output(call, output)

    async def _show(self, call: Mapping[str, Any]) -> str:
        if self.files is None:
            return display_file_failure("No Files API configured")
        file, output = await fetch_display_file(
            self.files, FunctionCall.from_item(call)
        )
        if file is None:
            return output
        await self.emit(files_event(file.filename, file.mime_type, file.content))
        await self.emit_step(status_event(f"Showed {file.filename}"))
        return output

    async def _stream(
        self, request: dict[str, Any], translator: Translator
    ) -> AsyncIterator[str]:
        try:
            stream = await self.client.responses.create(**request, stream=True)
            async with stream:
                async for event in stream:
                    for action in translator.feed(_dump(event)):
                        if action[0] == "text":
                            yield action[1]
                        else:
                            await self.emit_step(action[1])
        except APIError as error:
            raise RuntimeError(f"LGOS: {api_error_message(error)}") from error

    async def _background(
        self, request: dict[str, Any], translator: Translator
    ) -> AsyncIterator[str]:
        shown = -1

        async def on_poll(_response_id: str, status: str, elapsed: float) -> None:
            # One line at the start, then one every BACKGROUND_STATUS_EVERY s.
            nonlocal shown
            seconds = int(elapsed)
            self.background_seconds = seconds
            if status not in BACKGROUND_RUNNING:
                return
            if seconds // BACKGROUND_STATUS_EVERY != shown:
                shown = seconds // BACKGROUND_STATUS_EVERY
                self.waited = True  # not a step of the graph's
                await self.emit(
                    status_event(
                        "Running in the background…"
                        + (f" {seconds} s" if shown else "")
                    )
                )

        try:
            # Stop in Open WebUI cancels the run on the server too.
            response = await wait_background(
                self.client,
                {**request, "background": True},
                on_poll=on_poll,
                poll_interval=self.poll_interval,
            )
        except APIError as error:
            raise RuntimeError(f"LGOS: {api_error_message(error)}") from error
        data = _dump(response)
        for action in translator.replay(data):
            if action[0] == "text":
                yield action[1]
            else:
                await self.emit_step(action[1])
        translator.response = data
        if data.get("status") == "failed":
            error = data.get("error") or {}
            translator.error = str(error.get("message") or "the run failed")
        elif data.get("status") == "cancelled":
            translator.error = "the background run was cancelled"


def _call_output(call: Mapping[str, Any], output: str) -> dict[str, Any]:
    """Return the ``function_call_output`` item answering a call item."""
    return call_output_item(str(call.get("call_id", "")), output)
