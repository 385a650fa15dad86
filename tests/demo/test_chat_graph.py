from collections.abc import AsyncIterator
from typing import Any

import httpx
import openai
import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
)
from openai import AsyncOpenAI
from pydantic import ValidationError

from langgraph_openai_serve import (
    ClientSettings,
    GenerationControl,
    GenerationSettings,
    GraphConfig,
    GraphRegistry,
)
from lgos_demo_api.graphs.chat import (
    AUDIENCE_INSTRUCTIONS,
    CHAT_GENERATION_CONTROLS,
    ChatContext,
    ChatSettings,
    build_chat_graph,
    chat_graph_config,
    chat_model_input,
)
from lgos_demo_api.offline import (
    OfflineChatModel,
    RecordingResponder,
    default_responder,
)
from lgos_demo_api.settings import DemoApiSettings
from tests.conftest import demo_app

CONVERSATION = [
    SystemMessage("Answer like a pirate."),
    HumanMessage("What is a graph?"),
    AIMessage("Nodes and edges, matey."),
    HumanMessage("And a state graph?"),
]


def test_chat_settings_match_the_spec() -> None:
    assert issubclass(ChatSettings, ClientSettings)
    assert ChatSettings().model_dump() == {"use_history": False, "audience": "general"}
    schema = ChatSettings.model_json_schema()["properties"]
    assert schema["use_history"]["title"] == "Use conversation history"
    assert schema["audience"]["title"] == "Audience"
    assert schema["audience"]["enum"] == ["general", "beginner", "expert"]
    with pytest.raises(ValidationError):
        ChatSettings(audience="child")  # type: ignore[arg-type]


def test_model_input_without_history_keeps_system_and_latest_user_message() -> None:
    messages = chat_model_input(CONVERSATION, ChatSettings(audience="expert"))
    assert [(m.type, m.content) for m in messages] == [
        ("system", AUDIENCE_INSTRUCTIONS["expert"]),
        ("system", "Answer like a pirate."),
        ("human", "And a state graph?"),
    ]


def test_model_input_with_history_keeps_the_whole_conversation() -> None:
    messages = chat_model_input(CONVERSATION, ChatSettings(use_history=True))
    assert [m.content for m in messages] == [
        AUDIENCE_INSTRUCTIONS["general"],
        "Answer like a pirate.",
        "What is a graph?",
        "Nodes and edges, matey.",
        "And a state graph?",
    ]


def test_audience_instructions_differ() -> None:
    assert AUDIENCE_INSTRUCTIONS["beginner"].startswith(
        "Write for a beginner audience:"
    )
    assert len(set(AUDIENCE_INSTRUCTIONS.values())) == 3


@pytest.mark.anyio
async def test_audience_changes_the_model_input_and_the_answer() -> None:
    recorder = RecordingResponder()
    graph = build_chat_graph(OfflineChatModel(responder=recorder))

    answers = {}
    for audience in ("general", "beginner", "expert"):
        result = await graph.ainvoke(
            {"messages": [HumanMessage("What is LangGraph?")]},
            context=ChatContext(ChatSettings(audience=audience)),
        )
        answers[audience] = result["messages"][-1]

    sent_prompts = [call.messages[0].content for call in recorder.calls]
    assert sent_prompts == [
        AUDIENCE_INSTRUCTIONS["general"],
        AUDIENCE_INSTRUCTIONS["beginner"],
        AUDIENCE_INSTRUCTIONS["expert"],
    ]
    assert isinstance(answers["beginner"], AIMessage)
    assert answers["beginner"].content == (
        'This is the offline demo model. You said: "What is LangGraph?" '
        f'Following instructions: "{AUDIENCE_INSTRUCTIONS["beginner"]}" '
        "I saw 1 conversation message."
    )
    assert len({answer.content for answer in answers.values()}) == 3


@pytest.mark.anyio
async def test_use_history_changes_what_the_model_sees() -> None:
    recorder = RecordingResponder()
    graph = build_chat_graph(OfflineChatModel(responder=recorder))

    without = await graph.ainvoke(
        {"messages": CONVERSATION}, context=ChatContext(ChatSettings(use_history=False))
    )
    with_history = await graph.ainvoke(
        {"messages": CONVERSATION}, context=ChatContext(ChatSettings(use_history=True))
    )

    assert [m.content for m in recorder.calls[0].messages[2:]] == ["And a state graph?"]
    assert [m.content for m in recorder.calls[1].messages[2:]] == [
        "What is a graph?",
        "Nodes and edges, matey.",
        "And a state graph?",
    ]
    assert without["messages"][-1].text.endswith("I saw 1 conversation message.")
    assert with_history["messages"][-1].text.endswith("I saw 3 conversation messages.")
    # Client instructions are kept in both cases, after the audience prompt.
    for result in (without, with_history):
        assert (
            f'Following instructions: "{AUDIENCE_INSTRUCTIONS["general"]}", '
            '"Answer like a pirate." ' in result["messages"][-1].text
        )
    # The state keeps the conversation and appends exactly one answer.
    assert len(with_history["messages"]) == len(CONVERSATION) + 1


@pytest.mark.anyio
async def test_generation_controls_reach_the_model_call() -> None:
    recorder = RecordingResponder()
    graph = build_chat_graph(OfflineChatModel(responder=recorder))
    generation = GenerationSettings(temperature=0.3, max_output_tokens=128)
    answer = await graph.ainvoke(
        {"messages": [HumanMessage("Hi")]},
        context=ChatContext(generation=generation),
    )
    await graph.ainvoke({"messages": [HumanMessage("Hi")]}, context=ChatContext())
    # ChatOpenAI's names: the output-token limit is max_tokens.
    assert [call.options for call in recorder.calls] == [
        {"temperature": 0.3, "max_tokens": 128},
        {},
    ]
    assert answer["messages"][-1].text.startswith("This is the offline demo model.")


@pytest.mark.anyio
async def test_missing_context_uses_default_settings() -> None:
    recorder = RecordingResponder()
    graph = build_chat_graph(OfflineChatModel(responder=recorder))
    await graph.ainvoke({"messages": CONVERSATION})
    assert recorder.calls[0].messages[0].content == AUDIENCE_INSTRUCTIONS["general"]
    assert len(recorder.calls[0].messages) == 3


@pytest.mark.anyio
async def test_messages_stream_mode_yields_word_chunks() -> None:
    graph = build_chat_graph(OfflineChatModel())
    chunks = []
    async for message, metadata in graph.astream(
        {"messages": [HumanMessage("Stream this please")]},
        context=ChatContext(ChatSettings(audience="expert")),
        stream_mode="messages",
    ):
        assert metadata["langgraph_node"] == "respond"
        chunks.append(message)

    texts = [chunk.text for chunk in chunks if chunk.text]
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert len(texts) > 10
    final = await graph.ainvoke(
        {"messages": [HumanMessage("Stream this please")]},
        context=ChatContext(ChatSettings(audience="expert")),
    )
    assert "".join(texts) == final["messages"][-1].text


def test_offline_graph_config(offline_settings: DemoApiSettings) -> None:
    config = chat_graph_config(offline_settings)
    assert isinstance(config, GraphConfig)
    assert config.client_settings is ChatSettings
    assert (
        config.generation_controls
        == CHAT_GENERATION_CONTROLS
        == {
            GenerationControl.TEMPERATURE,
            GenerationControl.MAX_OUTPUT_TOKENS,
        }
    )
    assert "offline demo model" in config.description
    assert "no API key needed" in config.description


def test_online_graph_config_names_the_upstream_model() -> None:
    settings = DemoApiSettings(
        _env_file=None,
        openai_api_key="sk-test",
        openai_responses_model="gpt-test",
    )
    config = chat_graph_config(settings)
    assert "gpt-test" in config.description
    assert "offline" not in config.description


# --- generation controls over the wire (in-process demo app) -------------------


async def _openai(app: Any) -> AsyncIterator[AsyncOpenAI]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as http:
        yield AsyncOpenAI(
            base_url="http://lgos/v1", api_key="test", http_client=http, max_retries=0
        )


@pytest.fixture
def recorder() -> RecordingResponder:
    return RecordingResponder()


@pytest.fixture
async def recorded_client(
    recorder: RecordingResponder, offline_settings: DemoApiSettings
) -> AsyncIterator[AsyncOpenAI]:
    """The OpenAI SDK on a demo app whose `chat` graph records its model calls."""
    model = OfflineChatModel(responder=recorder)
    registry = GraphRegistry(
        graphs={"chat": chat_graph_config(offline_settings, model=model)}
    )
    async for client in _openai(demo_app(registry)):
        yield client


@pytest.mark.anyio
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_the_chat_graph_honours_temperature_and_the_token_limit(
    recorded_client: AsyncOpenAI, recorder: RecordingResponder, stream: bool
) -> None:
    responses = await recorded_client.responses.create(
        model="chat",
        input="Hi",
        temperature=0.4,
        max_output_tokens=200,
        stream=stream,
    )
    if stream:
        texts = [
            event.response.output_text
            async for event in responses  # type: ignore[union-attr]
            if event.type == "response.completed"
        ]
    else:
        texts = [responses.output_text]  # type: ignore[union-attr]
    chat = await recorded_client.chat.completions.create(
        model="chat",
        messages=[{"role": "user", "content": "Hi"}],
        temperature=1.2,
        max_tokens=50,
        stream=stream,
    )
    if stream:
        texts.append(
            "".join(
                [
                    chunk.choices[0].delta.content or ""
                    async for chunk in chat  # type: ignore[union-attr]
                    if chunk.choices
                ]
            )
        )
    else:
        texts.append(chat.choices[0].message.content)  # type: ignore[union-attr]
    assert [call.options for call in recorder.calls] == [
        {"temperature": 0.4, "max_tokens": 200},
        {"temperature": 1.2, "max_tokens": 50},
    ]
    # The offline model's answer stays deterministic.
    expected = default_responder(
        [SystemMessage(AUDIENCE_INSTRUCTIONS["general"]), HumanMessage("Hi")], [], None
    )
    assert texts == [expected, expected]


@pytest.mark.anyio
async def test_the_chat_graph_refuses_the_controls_it_does_not_declare(
    recorded_client: AsyncOpenAI, recorder: RecordingResponder
) -> None:
    with pytest.raises(openai.BadRequestError) as top_p:
        await recorded_client.responses.create(model="chat", input="Hi", top_p=0.5)
    with pytest.raises(openai.BadRequestError) as seed:
        await recorded_client.chat.completions.create(
            model="chat", messages=[{"role": "user", "content": "Hi"}], seed=1
        )
    for raised, param in ((top_p, "top_p"), (seed, "seed")):
        assert (raised.value.code, raised.value.param) == (
            "unsupported_parameter",
            param,
        )
        assert "'chat' does not declare the generation control" in raised.value.message
    assert recorder.calls == []


@pytest.mark.anyio
async def test_the_demo_publishes_the_chat_graphs_controls(
    demo_client: AsyncOpenAI,
) -> None:
    chat = await demo_client.models.retrieve("chat")
    assert chat.model_extra is not None
    assert chat.model_extra["lgos"]["generation_controls"] == [
        "max_output_tokens",
        "temperature",
    ]
    writer = await demo_client.models.retrieve("writer")
    assert writer.model_extra is not None
    assert writer.model_extra["lgos"]["generation_controls"] == []
