"""The demo's offline model: LGOS's scripted test model, in the demo's words.

The model's behaviour (streaming, usage, tools, structured output, recording)
is covered with the library, in ``tests/lgos/test_testing_model.py``; these
tests pin what the demo adds: its wording, and its defaults.
"""

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

from langgraph_openai_serve import testing
from lgos_demo_api.offline import (
    OfflineChatModel,
    RecordingResponder,
    default_responder,
)

CONVERSATION = [
    SystemMessage("Answer like a pirate.\nNever mention treasure."),
    HumanMessage("What is a graph?"),
    AIMessage("A graph has nodes and edges."),
    HumanMessage("And a   state graph?"),
]


@tool
def get_weather(city: str, days: int) -> str:
    """Return the weather forecast for a city."""
    return "sunny"


# --- default answer -------------------------------------------------------


def test_default_answer_reflects_instructions_user_message_and_count() -> None:
    answer = OfflineChatModel().invoke(CONVERSATION)

    assert answer.content == (
        'This is the offline demo model. You said: "And a state graph?" '
        'Following instructions: "Answer like a pirate." '
        "I saw 3 conversation messages."
    )


def test_default_answer_without_system_or_user_messages() -> None:
    assert default_responder([HumanMessage("hi")], [], None) == (
        'This is the offline demo model. You said: "hi" '
        "Following instructions: none. I saw 1 conversation message."
    )
    assert default_responder([SystemMessage("Be kind.")], [], None) == (
        "This is the offline demo model. You said nothing. "
        'Following instructions: "Be kind." I saw 0 conversation messages.'
    )


def test_the_demo_model_is_the_library_model_with_the_demo_wording() -> None:
    model = OfflineChatModel(chunk_delay=0.01)
    assert isinstance(model, testing.OfflineChatModel)
    assert model.responder is default_responder
    assert model.invoke("hi").text == testing.EchoResponder(
        intro="This is the offline demo model."
    )([HumanMessage("hi")], [], None)
    # Everything else is the library's: streaming, usage, tool calls.
    assert [c.text for c in model.stream("one two") if c.text] == [
        "This ",
        "is ",
        "the ",
        "offline ",
        "demo ",
        "model. ",
        "You ",
        "said: ",
        '"one ',
        'two" ',
        "Following ",
        "instructions: ",
        "none. ",
        "I ",
        "saw ",
        "1 ",
        "conversation ",
        "message.",
    ]
    forced = model.bind_tools([get_weather], tool_choice="required").invoke("Lyon")
    assert [(c["name"], c["args"], c["id"]) for c in forced.tool_calls] == [
        ("get_weather", {"city": "Lyon", "days": 1}, "call_offline_1")
    ]


def test_the_demo_recording_responder_delegates_to_the_demo_wording() -> None:
    recorder = RecordingResponder()
    assert isinstance(recorder, testing.RecordingResponder)
    answer = OfflineChatModel(responder=recorder).invoke("hi")
    assert answer.text.startswith('This is the offline demo model. You said: "hi"')
    [call] = recorder.calls
    assert call.messages[-1].content == "hi"
    scripted = RecordingResponder(inner=lambda *_: "scripted")
    assert OfflineChatModel(responder=scripted).invoke("x").text == "scripted"
