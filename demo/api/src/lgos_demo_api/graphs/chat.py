"""The `chat` graph: a single model call shaped by two public runtime settings.

Clients pick an `audience` (the system prompt the graph writes) and whether the
model sees the whole conversation (`use_history`). With the offline model the
answer quotes the instructions and counts the messages it saw, so changing a
setting visibly changes the answer.

The graph also honours two generation controls, `temperature` and the
output-token limit (`max_output_tokens`; Chat's `max_completion_tokens` or
`max_tokens`): it declares them, and binds the values a request sends to its
model call. Other generation controls are refused by LGOS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import Field

from langgraph_openai_serve import (
    ClientSettings,
    GenerationControl,
    GenerationSettings,
    GraphConfig,
    GraphRequest,
)
from lgos_demo_api.models import chat_model, model_label, uses_offline_model
from lgos_demo_api.settings import DemoApiSettings

__all__ = [
    "AUDIENCE_INSTRUCTIONS",
    "CHAT_GENERATION_CONTROLS",
    "ChatContext",
    "ChatSettings",
    "build_chat_graph",
    "chat_context",
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
    """Public runtime settings of the `chat` graph."""

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


CHAT_GENERATION_CONTROLS = frozenset(
    {GenerationControl.TEMPERATURE, GenerationControl.MAX_OUTPUT_TOKENS}
)
"""The generation controls the `chat` graph honours (`lgos.generation_controls`)."""


@dataclass(frozen=True, slots=True)
class ChatContext:
    """The `chat` graph's runtime context, built from the request.

    Attributes:
        settings: The validated public settings (`metadata.lgos_settings`).
        generation: The request's `temperature` and output-token limit (the
            controls in `CHAT_GENERATION_CONTROLS`), None when not sent.

    """

    settings: ChatSettings = field(default_factory=ChatSettings)
    generation: GenerationSettings = field(default_factory=GenerationSettings)


def chat_context(request: GraphRequest, settings: ClientSettings | None) -> ChatContext:
    """Build the runtime context from a request (`GraphConfig.context_factory`).

    Args:
        request: The normalized request; its `generation` holds only declared
            controls (LGOS refuses the others).
        settings: The validated `ChatSettings`, or None for the defaults.

    Returns:
        The settings and the request's generation controls.

    """
    return ChatContext(
        settings=settings if isinstance(settings, ChatSettings) else ChatSettings(),
        generation=request.generation,
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


ChatGraph = CompiledStateGraph[MessagesState, ChatContext, MessagesState, MessagesState]
"""The compiled `chat` graph type."""


def build_chat_graph(model: BaseChatModel) -> ChatGraph:
    """Compile the `chat` graph around a chat model.

    The graph is `START -> respond -> END` over `MessagesState` with
    `context_schema=ChatContext`. `respond` calls `model.ainvoke` on
    `chat_model_input(...)` (so streaming-capable models stream token by token
    in LangGraph's `messages` stream mode), with the context's generation
    controls bound (`temperature`, and `max_tokens` for the output-token
    limit: `ChatOpenAI` sends it as `max_output_tokens` on the Responses API),
    and appends the answer to `messages`. A run without context uses the
    `ChatSettings()` defaults and the model's own generation settings.

    Args:
        model: Any LangChain chat model (`ChatOpenAI`, `OfflineChatModel`, ...).

    Returns:
        The compiled graph, named `chat`, without a checkpointer.

    """

    async def respond(
        state: MessagesState, runtime: Runtime[ChatContext]
    ) -> dict[str, Any]:
        context = runtime.context or ChatContext()
        options = context.generation.chat_model_kwargs()
        prompt = chat_model_input(state["messages"], context.settings)
        answer = await model.ainvoke(prompt, **options)
        return {"messages": [answer]}

    builder = StateGraph(MessagesState, context_schema=ChatContext)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(name="chat")


def chat_graph_config(
    settings: DemoApiSettings, model: BaseChatModel | None = None
) -> GraphConfig:
    """Register the `chat` graph with the model the settings select.

    Args:
        settings: The demo settings (`chat_model` picks OpenAI or offline).
        model: The chat model to use instead (a test's recording offline
            model); the description still names the settings' model.

    Returns:
        A `GraphConfig` with `ChatSettings` as client settings, `chat_context`
        as context factory, `CHAT_GENERATION_CONTROLS` declared, and a
        description naming the model, e.g. ending in "(offline demo model:
        deterministic, no API key needed)" without an API key.

    """
    if uses_offline_model(settings):
        backend = "the offline demo model (deterministic, no API key needed)"
    else:
        backend = model_label(settings)
    return GraphConfig(
        graph=build_chat_graph(model if model is not None else chat_model(settings)),
        description=(
            "Chat that writes for a chosen audience and can answer from the "
            f"latest message only or the whole conversation. Answers come from "
            f"{backend}."
        ),
        client_settings=ChatSettings,
        context_factory=chat_context,
        generation_controls=CHAT_GENERATION_CONTROLS,
    )
