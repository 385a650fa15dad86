"""The `chat` graph: a single model call shaped by two public runtime settings.

Clients pick an `audience` (the system prompt the graph writes) and whether the
model sees the whole conversation (`use_history`). With the offline model the
answer quotes the instructions and counts the messages it saw, so changing a
setting visibly changes the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import Field

from langgraph_openai_serve import ClientSettings, GraphConfig
from lgos_demo_api.models import chat_model, model_label, uses_offline_model
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "AUDIENCE_INSTRUCTIONS",
    "ChatSettings",
    "build_chat_graph",
    "chat_graph_config",
    "chat_model_input",
]

Audience = Literal["general", "beginner", "expert"]

AUDIENCE_INSTRUCTIONS: dict[Audience, str] = {
    "general": (
        "Write for a general audience: answer clearly and concisely, in plain language."
    ),
    "beginner": (
        "Write for a beginner audience: explain every term simply, use an "
        "everyday example and avoid jargon."
    ),
    "expert": (
        "Write for an expert audience: be precise and technical, and skip "
        "introductory explanations."
    ),
}
"""The system prompt the `respond` node writes for each audience."""


class ChatSettings(ClientSettings):
    """Public runtime settings of the `chat` graph (its LangGraph context)."""

    use_history: bool = Field(
        default=False,
        title="Use conversation history",
        description=(
            "Send the whole conversation to the model. When off, the model only "
            "sees the latest user message (plus system instructions)."
        ),
    )
    audience: Audience = Field(
        default="general",
        title="Audience",
        description="Who the answer is written for: general, beginner or expert.",
    )


def chat_model_input(
    messages: Sequence[BaseMessage], settings: ChatSettings
) -> list[BaseMessage]:
    """Build the messages the `respond` node sends to the model.

    Args:
        messages: The conversation in the graph state, in order.
        settings: The run's settings.

    Returns:
        `[SystemMessage(AUDIENCE_INSTRUCTIONS[settings.audience]), *client
        system messages, *conversation]`, where the conversation is every
        non-system message when `use_history` is true, else only the latest
        `HumanMessage` (nothing when there is none).

    """
    system = [m for m in messages if isinstance(m, SystemMessage)]
    conversation = [m for m in messages if not isinstance(m, SystemMessage)]
    if not settings.use_history:
        latest = next(
            (m for m in reversed(conversation) if isinstance(m, HumanMessage)), None
        )
        conversation = [latest] if latest is not None else []
    audience = SystemMessage(AUDIENCE_INSTRUCTIONS[settings.audience])
    return [audience, *system, *conversation]


ChatGraph = CompiledStateGraph[
    MessagesState, ChatSettings, MessagesState, MessagesState
]
"""The compiled `chat` graph type."""


def build_chat_graph(model: BaseChatModel) -> ChatGraph:
    """Compile the `chat` graph around a chat model.

    The graph is `START -> respond -> END` over `MessagesState` with
    `context_schema=ChatSettings`. `respond` calls `model.ainvoke` on
    `chat_model_input(...)` (so streaming-capable models stream token by token
    in LangGraph's `messages` stream mode) and appends the answer to
    `messages`. A run without context uses `ChatSettings()` defaults.

    Args:
        model: Any LangChain chat model (`ChatOpenAI`, `OfflineChatModel`, ...).

    Returns:
        The compiled graph, named `chat`, without a checkpointer.

    """

    async def respond(
        state: MessagesState, runtime: Runtime[ChatSettings]
    ) -> dict[str, Any]:
        settings = runtime.context or ChatSettings()
        answer = await model.ainvoke(chat_model_input(state["messages"], settings))
        return {"messages": [answer]}

    builder = StateGraph(MessagesState, context_schema=ChatSettings)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(name="chat")


def chat_graph_config(settings: DemoApiSettings) -> GraphConfig:
    """Register the `chat` graph with the model the settings select.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline).

    Returns:
        A `GraphConfig` with `ChatSettings` as client settings and a
        description naming the model, e.g. ending in "(offline demo model:
        deterministic, no API key needed)" without an API key.

    """
    if uses_offline_model(settings):
        backend = "the offline demo model (deterministic, no API key needed)"
    else:
        backend = model_label(settings)
    return GraphConfig(
        graph=build_chat_graph(chat_model(settings)),
        description=(
            "Chat that writes for a chosen audience and can answer from the "
            f"latest message only or the whole conversation. Answers come from "
            f"{backend}."
        ),
        client_settings=ChatSettings,
    )
