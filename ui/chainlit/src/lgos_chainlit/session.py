"""Per-chat state of the UI: the selected model, its settings and the ledger.

Kept free of Chainlit's request context so it can be tested on its own; the
Chainlit callbacks in :mod:`lgos_chainlit.app` store one :class:`ChatSession`
in ``cl.user_session``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chainlit.config import (
    ChainlitConfigOverrides,
    FeaturesSettings,
    SpontaneousFileUploadFeature,
)
from chainlit.input_widget import InputWidget, Select, Switch
from chainlit.types import ChatProfile

from lgos_chainlit.ledger import Conversation
from lgos_chainlit.mcp_tools import MCP_TOOLS_FEATURE
from lgos_chainlit.mcp_toolset import McpToolset
from lgos_chainlit.runtime_settings import (
    SettingField,
    build_setting_fields,
    coerce_settings,
)
from lgos_chainlit.tool_switches import (
    WEB_SEARCH_SETTING,
    WEB_SEARCH_TOOL,
    custom_tool_names,
    read_custom_tools,
    server_tool_selectors,
    server_tool_switches,
    switch_value,
)
from lgos_client.display_file import DISPLAY_FILE, DISPLAY_FILE_FUNCTION
from lgos_client.extension import ModelCapabilities, describe_model, settings_metadata
from lgos_client.functions import (
    LOCAL_FUNCTIONS,
    ClientFunction,
    LocalFunction,
    offered_functions,
)
from lgos_client.interrupts import INTERRUPT_FUNCTION

__all__ = [
    "BACKGROUND_SETTING",
    "WEB_SEARCH_SETTING",
    "ChatSession",
    "chat_profiles_for",
    "limited_notice",
    "profile_config",
    "profile_description",
]

logger = logging.getLogger(__name__)

CONVERSATION_ID_KEY = "conversation_id"
"""Client-owned metadata key correlating the requests of one conversation."""

BACKGROUND_SETTING = "lgos_background"
"""ID of the UI's own "Run in background" switch."""

FILE_INPUTS_FEATURE = "file_inputs"
BACKGROUND_FEATURE = "background"

UI_FUNCTIONS: Mapping[str, LocalFunction] = {
    **LOCAL_FUNCTIONS,
    DISPLAY_FILE: DISPLAY_FILE_FUNCTION,
}
"""Every function this UI offers: the pure ones and ``display_file``."""

_STATE_VERSION = 1


def limited_notice(capabilities: ModelCapabilities) -> str:
    """Markdown warning shown when a model has no usable LGOS extension."""
    reason = capabilities.limitation or "no supported LGOS extension"
    return (
        f"⚠️ **Limited functionality** for `{capabilities.model_id}`: {reason}. "
        "It works as a plain chat model; graph settings and other LGOS "
        "features are unavailable. (A proxy between this UI and LGOS may "
        "have dropped the extension.)"
    )


def profile_description(capabilities: ModelCapabilities) -> str:
    """Markdown shown for a model in the chat-profile picker."""
    if capabilities.limited:
        return limited_notice(capabilities)
    return capabilities.description or f"LGOS graph `{capabilities.model_id}`."


def profile_config(capabilities: ModelCapabilities) -> ChainlitConfigOverrides | None:
    """Chainlit config overrides of a model's chat profile.

    A model whose ``lgos.features`` do not list ``file_inputs`` gets
    attachments turned off (``features.spontaneous_file_upload.enabled``):
    the page then shows no paperclip and takes no dropped files while that
    profile is selected. The other upload settings (accepted types, sizes)
    stay those of ``.chainlit/config.toml``, where uploads are on: Chainlit
    checks uploads on the server against that global config.
    """
    if FILE_INPUTS_FEATURE in capabilities.features:
        return None
    return ChainlitConfigOverrides(
        features=FeaturesSettings(
            spontaneous_file_upload=SpontaneousFileUploadFeature(enabled=False)
        )
    )


def _capabilities(model: object) -> ModelCapabilities:
    return model if isinstance(model, ModelCapabilities) else describe_model(model)


def chat_profiles_for(
    models: Iterable[object], default_model: str | None = None
) -> list[ChatProfile]:
    """One Chainlit chat profile per listed model, described for the picker.

    ``models`` are SDK ``Model`` objects (or dicts) of ``/v1/models``, or
    capabilities already read (from a gateway's ``/model/info``). Models that
    take no files are offered no attachments (:func:`profile_config`).
    """
    profiles = []
    for model in models:
        capabilities = _capabilities(model)
        profiles.append(
            ChatProfile(
                name=capabilities.model_id,
                markdown_description=profile_description(capabilities),
                default=capabilities.model_id == default_model,
                config_overrides=profile_config(capabilities),
            )
        )
    return profiles


@dataclass(slots=True, weakref_slot=True)
class ChatSession:
    """The state of one chat with one model."""

    capabilities: ModelCapabilities
    conversation: Conversation
    fields: list[SettingField] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    conversation_id: str | None = None
    web_search: bool = True
    custom_tools: dict[str, bool] = field(default_factory=dict)
    """The custom server tools' switches (a tool not named here is off)."""
    background: bool = False
    shown_question: dict[str, str] | None = None
    """``{"call_id", "message_id"}`` of the question message on screen, so a
    resumed chat can put the buttons back on it instead of asking again."""
    mcp: McpToolset = field(default_factory=McpToolset)
    """The MCP server's tools, offered when :attr:`offers_mcp_tools` (found
    again whenever the chat opens; never saved with the thread)."""

    @classmethod
    def from_model(
        cls, model: object, *, conversation_id: str | None = None
    ) -> ChatSession:
        """Build the session for a retrieved model.

        ``model`` is an SDK ``Model`` (or dict) of ``/v1/models/{id}``, or its
        capabilities already read (from a gateway's ``/model/info``).
        """
        capabilities = _capabilities(model)
        descriptor = capabilities.client_settings
        if capabilities.extension and capabilities.extension.settings_unsupported:
            logger.warning(
                "Model %r: settings UI disabled (%s)",
                capabilities.model_id,
                capabilities.extension.settings_unsupported,
            )
        fields = build_setting_fields(descriptor) if descriptor else []
        defaults = dict(descriptor.defaults) if descriptor else {}
        return cls(
            capabilities=capabilities,
            conversation=Conversation(model=capabilities.model_id),
            fields=fields,
            defaults=defaults,
            values=dict(defaults),
            conversation_id=conversation_id,
        )

    @property
    def model_id(self) -> str:
        """The OpenAI ``model`` (the graph name) this chat talks to."""
        return self.capabilities.model_id

    @property
    def offers_web_search(self) -> bool:
        """Whether the model lists ``web_search`` in ``lgos.server_tools``."""
        return WEB_SEARCH_TOOL in self.capabilities.server_tools

    @property
    def accepts_files(self) -> bool:
        """Whether ``lgos.features`` lists ``file_inputs`` (attachments)."""
        return FILE_INPUTS_FEATURE in self.capabilities.features

    @property
    def offers_background(self) -> bool:
        """Whether ``lgos.features`` lists ``background``."""
        return BACKGROUND_FEATURE in self.capabilities.features

    @property
    def offers_mcp_tools(self) -> bool:
        """Whether ``lgos.features`` lists ``mcp_tools`` (MCP tools attach)."""
        return MCP_TOOLS_FEATURE in self.capabilities.features

    @property
    def reserved_function_names(self) -> frozenset[str]:
        """Names no MCP tool takes: UI functions, server tools, lgos_interrupt."""
        return frozenset(
            {*UI_FUNCTIONS, *self.capabilities.server_tools, INTERRUPT_FUNCTION}
        )

    @property
    def runs_in_background(self) -> bool:
        """Whether the next request goes in the background (switch on)."""
        return self.offers_background and self.background

    @property
    def widgets(self) -> list[InputWidget]:
        """The settings widgets to render (current values), empty when none.

        Graph settings come first, then the UI's own server tool switches
        ("Web search", then one per custom tool; see
        :mod:`lgos_chainlit.tool_switches`) and "Run in background".
        """
        widgets: list[InputWidget] = []
        for setting in self.fields:
            widget = copy.copy(setting.widget)
            if setting.name in self.values:
                _set_initial(widget, self.values[setting.name])
            widgets.append(widget)
        widgets.extend(
            server_tool_switches(
                self.capabilities.server_tools,
                web_search=self.web_search,
                custom=self.custom_tools,
            )
        )
        if self.offers_background:
            widgets.append(
                Switch(
                    id=BACKGROUND_SETTING,
                    label="Run in background",
                    description=(
                        "Send each request as a background Response and poll "
                        "it (no streaming); Stop cancels it on the server."
                    ),
                    initial=self.background,
                )
            )
        return widgets

    @property
    def server_tools(self) -> list[dict[str, Any]]:
        """Server tool selectors for the next request's ``tools``.

        ``{"type": "web_search"}`` while the model offers it and its switch is
        on, and ``{"type": "custom", "name": ...}`` for each offered custom
        tool whose switch is on.
        """
        return server_tool_selectors(
            self.capabilities.server_tools,
            web_search=self.web_search,
            custom=self.custom_tools,
        )

    @property
    def welcome(self) -> str:
        """A short Markdown line naming the model and what it does."""
        if self.capabilities.limited:
            return f"Chatting with **{self.model_id}**."
        description = self.capabilities.description or "An LGOS graph."
        return f"**{self.model_id}** — {description}"

    @property
    def functions(self) -> tuple[ClientFunction, ...]:
        """The functions to offer: the UI's own, then the MCP server's tools.

        The UI's own are those the model's ``client_tools`` list; the MCP
        tools (:attr:`mcp`) go only to a model with the ``mcp_tools``
        feature. A model without a usable extension is offered none.
        """
        own = offered_functions(self.capabilities.client_tools, UI_FUNCTIONS)
        return (*own, *self.mcp.tools) if self.offers_mcp_tools else own

    @property
    def notice(self) -> str | None:
        """The limited-functionality warning, when it applies."""
        return limited_notice(self.capabilities) if self.capabilities.limited else None

    def update_settings(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Apply values sent by the settings panel; return the current values."""
        self.values.update(coerce_settings(values, self.fields))
        if WEB_SEARCH_SETTING in values:
            self.web_search = switch_value(values[WEB_SEARCH_SETTING])
        self.custom_tools.update(
            read_custom_tools(values, self.capabilities.server_tools)
        )
        if BACKGROUND_SETTING in values:
            self.background = switch_value(values[BACKGROUND_SETTING])
        return dict(self.values)

    def to_state(self) -> dict[str, Any]:
        """Return what a resumed chat needs: model, settings, ledger, pause."""
        return {
            "version": _STATE_VERSION,
            "model": self.model_id,
            "values": dict(self.values),
            "web_search": self.web_search,
            "custom_tools": dict(self.custom_tools),
            "background": self.background,
            "conversation": self.conversation.to_json(),
            "question": dict(self.shown_question) if self.shown_question else None,
        }

    def restore(self, state: object) -> bool:
        """Apply a saved :meth:`to_state` of the same model.

        Returns:
            Whether the state was usable (same version and model).

        """
        if (
            not isinstance(state, Mapping)
            or state.get("version") != _STATE_VERSION
            or state.get("model") != self.model_id
        ):
            return False
        values = state.get("values")
        if isinstance(values, Mapping):
            self.values.update(coerce_settings(values, self.fields))
        if isinstance(state.get("web_search"), bool):
            self.web_search = state["web_search"]
        custom = state.get("custom_tools")
        if isinstance(custom, Mapping):
            offered = custom_tool_names(self.capabilities.server_tools)
            self.custom_tools.update(
                (name, on)
                for name, on in custom.items()
                if name in offered and isinstance(on, bool)
            )
        if isinstance(state.get("background"), bool):
            self.background = state["background"]
        self.conversation = Conversation.from_json(
            state.get("conversation"), model=self.model_id
        )
        question = state.get("question")
        self.shown_question = (
            {"call_id": question["call_id"], "message_id": question["message_id"]}
            if isinstance(question, Mapping)
            and isinstance(question.get("call_id"), str)
            and isinstance(question.get("message_id"), str)
            and self.conversation.pending is not None
            else None
        )
        return True

    def request_metadata(self) -> dict[str, str]:
        """Metadata for the next Responses request.

        Carries ``lgos_settings`` with the non-default values (sent on every
        request: LGOS does not persist them) and the ``conversation_id``
        correlation value. A model without a usable extension gets neither.
        """
        if self.capabilities.limited:
            return {}
        metadata = settings_metadata(self.values, self.defaults)
        if self.conversation_id:
            metadata[CONVERSATION_ID_KEY] = self.conversation_id
        return metadata


def _set_initial(widget: InputWidget, value: Any) -> None:
    """Show ``value`` as a widget's initial value."""
    if isinstance(widget, Select):
        widget.initial_value = None if value is None else str(value)
        widget.initial_index = None
        widget.initial = widget.initial_value
    elif hasattr(widget, "initial"):
        widget.initial = value  # type: ignore[attr-defined]
