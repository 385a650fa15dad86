import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
)
from pydantic import ValidationError

from langgraph_openai_serve import ClientSettings, GraphConfig
from lgos_demo_api.graphs.chat import (
    AUDIENCE_INSTRUCTIONS,
    ChatSettings,
    build_chat_graph,
    chat_graph_config,
    chat_model_input,
)
from lgos_demo_api.offline import OfflineChatModel, RecordingResponder
from lgos_demo_api.settings import DemoApiSettings

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
            context=ChatSettings(audience=audience),
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
        {"messages": CONVERSATION}, context=ChatSettings(use_history=False)
    )
    with_history = await graph.ainvoke(
        {"messages": CONVERSATION}, context=ChatSettings(use_history=True)
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
        context=ChatSettings(audience="expert"),
        stream_mode="messages",
    ):
        assert metadata["langgraph_node"] == "respond"
        chunks.append(message)

    texts = [chunk.text for chunk in chunks if chunk.text]
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert len(texts) > 10
    final = await graph.ainvoke(
        {"messages": [HumanMessage("Stream this please")]},
        context=ChatSettings(audience="expert"),
    )
    assert "".join(texts) == final["messages"][-1].text


def test_offline_graph_config(offline_settings: DemoApiSettings) -> None:
    config = chat_graph_config(offline_settings)
    assert isinstance(config, GraphConfig)
    assert config.client_settings is ChatSettings
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
