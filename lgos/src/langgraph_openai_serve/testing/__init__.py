"""A deterministic, scriptable chat model for testing graphs offline.

:class:`OfflineChatModel` is a real LangChain ``BaseChatModel``: it streams
word by word, reports token usage, supports ``bind_tools`` and
``with_structured_output``, and never touches the network. Give it to the
graphs you register with LGOS and the whole request path (the runner, the
Responses and Chat Completions routes, streaming) runs as in production, with
answers you choose. It needs nothing beyond LGOS's own dependencies
(``langchain-core``).

Out of the box it answers with one sentence that visibly reflects what it
received, so a test can assert that a graph built the right prompt (see
:func:`default_responder`)::

    This is the offline model. You said: "What is a graph?" Following
    instructions: "Be brief." I saw 1 conversation message.

Script any behaviour with a ``responder``, a callable
``(messages, tools, tool_choice) -> str | AIMessage`` (:data:`Responder`, in
the spirit of pydantic-ai's ``FunctionModel``); an ``AIMessage`` answer may
carry tool calls, content blocks such as refusals, and
``response_metadata``::

    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    from langgraph_openai_serve.testing import OfflineChatModel


    @tool
    def get_weather(city: str) -> str:
        '''Return the weather for a city.'''
        return "sunny"


    def weather_agent(messages, tools, tool_choice):
        if tools and messages[-1].type == "human":
            call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}
            return AIMessage(content="", tool_calls=[call])
        return "It is sunny in Paris."


    model = OfflineChatModel(responder=weather_agent)
    reply = model.bind_tools([get_weather]).invoke([HumanMessage("Weather?")])
    assert reply.tool_calls[0]["args"] == {"city": "Paris"}
    assert model.invoke("Thanks!").content == "It is sunny in Paris."

:class:`RecordingResponder` wraps any responder and keeps every call, to
assert on exactly what a graph sent to the model, including the call's
options such as ``temperature`` or ``max_tokens`` (:func:`call_options`).
Structured output goes through ``structured_responder``
(:data:`StructuredResponder`, ``(messages, schema) -> dict``); the default
fills every required field deterministically from the last user message
(:func:`default_structured_responder`).

:func:`run_graph` and :func:`stream_graph` run a registered graph as
``run_langgraph`` and ``run_langgraph_stream`` do, always streaming, and
check on every run that the streamed text joins to the final message's text:
a node that changes a model's streamed text fails the test with an
``AssertionError`` naming the node and ``TAG_NOSTREAM``.

The model imports only ``langchain-core`` and ``pydantic``; the two run
helpers use LGOS's runner. Nothing in LGOS's serving path imports this
package.
"""

from langgraph_openai_serve.testing.model import OfflineChatModel, split_words
from langgraph_openai_serve.testing.responders import (
    DEFAULT_INTRO,
    EchoResponder,
    RecordedCall,
    RecordingResponder,
    Responder,
    StructuredResponder,
    call_options,
    default_responder,
    default_structured_responder,
)
from langgraph_openai_serve.testing.runs import run_graph, stream_graph
from langgraph_openai_serve.testing.sse import parse_sse

__all__ = [
    "DEFAULT_INTRO",
    "EchoResponder",
    "OfflineChatModel",
    "RecordedCall",
    "RecordingResponder",
    "Responder",
    "StructuredResponder",
    "call_options",
    "default_responder",
    "default_structured_responder",
    "parse_sse",
    "run_graph",
    "split_words",
    "stream_graph",
]
