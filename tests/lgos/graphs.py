"""Small graphs that exercise the LGOS request path, built on the offline model."""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.config import get_config, get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from pydantic import Field

from langgraph_openai_serve import (
    ClientSettings,
    GraphConfig,
    GraphFeature,
    GraphRegistry,
    status_event,
)
from langgraph_openai_serve.testing import OfflineChatModel


def _last_text(messages: list[BaseMessage]) -> str:
    return next((m.text for m in reversed(messages) if m.type == "human"), "")


def echo_responder(messages: list[BaseMessage], tools: Any, tool_choice: Any) -> str:
    return f"Echo: {_last_text(messages)}"


def model_graph(model: OfflineChatModel, name: str = "model") -> Any:
    async def respond(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node(name, respond)
    builder.add_edge(START, name)
    builder.add_edge(name, END)
    return builder.compile()


class Greeting(ClientSettings):
    name: str = Field("world", max_length=20, title="Name")
    tone: Literal["plain", "excited"] = "plain"


METADATA_LOGGER = "tests.lgos.metadata_node"
"""The logger :func:`metadata_graph`'s node writes its one line to."""


def metadata_graph(seen: list[dict[str, Any]]) -> Any:
    """Record each run's config metadata in ``seen``; log one line from the node."""

    def record(state: MessagesState) -> dict[str, Any]:
        seen.append(dict(get_config().get("metadata") or {}))
        logging.getLogger(METADATA_LOGGER).info("recording")
        return {"messages": [AIMessage("recorded")]}

    builder = StateGraph(MessagesState)
    builder.add_node("record", record)
    builder.add_edge(START, "record")
    return builder.compile()


def greeting_graph() -> Any:
    """Answers from its runtime context without a model (nothing streams)."""

    def greet(state: MessagesState, runtime: Runtime[Greeting]) -> dict[str, Any]:
        mark = "!" if runtime.context.tone == "excited" else "."
        return {"messages": [AIMessage(f"Hello, {runtime.context.name}{mark}")]}

    builder = StateGraph(MessagesState, context_schema=Greeting)
    builder.add_node("greet", greet)
    builder.add_edge(START, "greet")
    return builder.compile()


def tool_responder(messages: list[BaseMessage], tools: Any, tool_choice: Any) -> Any:
    if tools and messages[-1].type == "human":
        return AIMessage(
            content="",
            tool_calls=[
                {
                    "name": tools[0]["function"]["name"],
                    "args": {"city": "Paris"},
                    "id": "call_1",
                }
            ],
        )
    if messages[-1].type == "tool":
        return f"The tool said {messages[-1].text}."
    return "No tools."


def client_tool_graph() -> Any:
    """Binds the client's functions from GraphRequest via request_to_input."""

    class State(MessagesState):
        tools: list[dict[str, Any]]

    model = OfflineChatModel(responder=tool_responder)

    async def respond(state: State) -> dict[str, Any]:
        bound = model.bind_tools(state["tools"]) if state["tools"] else model
        return {"messages": [await bound.ainvoke(state["messages"])]}

    builder = StateGraph(State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    return builder.compile()


def tool_input(request: Any, messages: list[BaseMessage]) -> dict[str, Any]:
    tools = [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description or "",
                "parameters": dict(
                    tool.parameters or {"type": "object", "properties": {}}
                ),
            },
        }
        for tool in request.tools
    ]
    return {"messages": messages, "tools": tools}


def status_graph() -> Any:
    model = OfflineChatModel(responder=echo_responder)

    async def work(state: MessagesState) -> dict[str, Any]:
        writer = get_stream_writer()
        writer(status_event("Reading the question"))
        writer(status_event("private step", hidden=True))
        writer({"type": "debug", "value": 42})
        writer(status_event("Writing the answer"))
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    return builder.compile()


def failing_graph() -> Any:
    """Streams part of an answer, then fails in a second node."""
    model = OfflineChatModel(responder=echo_responder)

    async def draft(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def explode(state: MessagesState) -> dict[str, Any]:
        raise RuntimeError("secret internal failure")

    builder = StateGraph(MessagesState)
    builder.add_node("draft", draft)
    builder.add_node("explode", explode)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "explode")
    return builder.compile()


def mismatch_graph() -> Any:
    """Streams one text but returns another: a parity failure."""
    model = OfflineChatModel(responder=echo_responder)

    async def respond(state: MessagesState) -> dict[str, Any]:
        await model.ainvoke(state["messages"])
        return {"messages": [AIMessage("Something else entirely.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    return builder.compile()


def make_registry() -> GraphRegistry:
    return GraphRegistry(
        graphs={
            "echo": GraphConfig(
                graph=model_graph(OfflineChatModel(responder=echo_responder)),
                description="Echoes the last user message.",
            ),
            "greeting": GraphConfig(
                graph=greeting_graph(),
                description="Greets from its runtime settings.",
                client_settings=Greeting,
            ),
            "tools": GraphConfig(
                graph=client_tool_graph(),
                description="Calls the client's first function.",
                request_to_input=tool_input,
            ),
            "status": GraphConfig(
                graph=status_graph(), description="Reports progress."
            ),
            "failing": GraphConfig(graph=failing_graph(), description="Fails midway."),
            "mismatch": GraphConfig(
                graph=mismatch_graph(), description="Breaks parity."
            ),
            "answers": GraphConfig(
                graph=answers_graph(), description="Scripted answers."
            ),
            "files": GraphConfig(
                graph=file_graph(),
                description="Reads file inputs.",
                features=frozenset({GraphFeature.FILE_INPUTS}),
            ),
            "server-tools": GraphConfig(
                graph=server_tool_graph(),
                description="Runs server tools.",
                server_tools=frozenset({"lgos_package_version", "web_search"}),
                request_to_input=server_tool_input,
            ),
            "factory": GraphConfig(
                graph=lambda: model_graph(OfflineChatModel(responder=echo_responder)),
                description="Built by a sync factory on every request.",
            ),
        }
    )


def serve_registry(resources: Any) -> GraphRegistry:
    """Registry factory for ``lgos serve tests.lgos.graphs:serve_registry``."""
    assert resources.checkpointer is not None
    return make_registry()


CITED_TEXT = "LangGraph pauses with interrupt() [1]. OpenAI streams events [2]."


def scripted_answer(prompt: str) -> AIMessage:
    """The final message for each scripted case of the ``answers`` graph."""
    from langchain_core.messages.content import create_citation, create_text_block

    if prompt == "refuse":
        return AIMessage(
            content=[{"type": "refusal", "refusal": "I can't help with that."}]
        )
    if prompt == "refuse-kwargs":
        return AIMessage(content="", additional_kwargs={"refusal": "Not that, sorry."})
    if prompt == "truncate":
        return AIMessage("Half an ans", response_metadata={"finish_reason": "length"})
    if prompt == "filter":
        return AIMessage(
            "Partial",
            response_metadata={
                "status": "incomplete",
                "incomplete_details": {"reason": "content_filter"},
            },
        )
    if prompt == "truncated-call":
        return AIMessage(
            "",
            invalid_tool_calls=[
                {
                    "name": "weather",
                    "args": '{"city": "Par',
                    "id": "call_t",
                    "error": "x",
                }
            ],
            response_metadata={"finish_reason": "length"},
        )
    if prompt in {"cite", "cite-streamed"}:
        first, second = CITED_TEXT[:38], CITED_TEXT[38:]
        return AIMessage(
            content=[
                create_text_block(
                    first,
                    annotations=[
                        create_citation(
                            url="https://langchain-ai.github.io/langgraph/",
                            title="LangGraph",
                            start_index=0,
                            end_index=8,
                            cited_text="LangGraph",
                        )
                    ],
                ),
                {
                    "type": "text",
                    "text": second,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": "https://platform.openai.com/docs",
                            "title": "OpenAI docs",
                            "start_index": 1,
                            "end_index": 6,
                        }
                    ],
                },
            ]
        )
    if prompt == "cite-bad-span":
        return AIMessage(
            content=[
                create_text_block(
                    "Short.",
                    annotations=[
                        create_citation(
                            url="https://x.test", start_index=2, end_index=40
                        )
                    ],
                )
            ]
        )
    if prompt == "cite-wrong-text":
        return AIMessage(
            content=[
                create_text_block(
                    "Short text.",
                    annotations=[
                        create_citation(
                            url="https://x.test",
                            start_index=0,
                            end_index=4,
                            cited_text="Long",
                        )
                    ],
                )
            ]
        )
    return AIMessage(f"Plain: {prompt}")


def answers_graph() -> Any:
    """Returns scripted final messages; ``cite-streamed`` streams its text first."""

    def stream_text(messages: list[BaseMessage], tools: Any, tool_choice: Any) -> str:
        return CITED_TEXT

    model = OfflineChatModel(responder=stream_text)

    async def respond(state: MessagesState) -> dict[str, Any]:
        prompt = _last_text(state["messages"])
        if prompt == "cite-streamed":
            await model.ainvoke(state["messages"])
        return {"messages": [scripted_answer(prompt)]}

    builder = StateGraph(MessagesState)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    return builder.compile()


class ServerToolState(MessagesState):
    selected: list[str]
    tool_choice: Any


def server_tool_graph() -> Any:
    """Selection node → ToolNode (selected tools only) → streamed answer."""
    from langchain_core.tools import tool
    from langchain_openai import custom_tool
    from langgraph.prebuilt import ToolNode

    @custom_tool
    def lgos_package_version(package: str) -> str:
        """Return the installed version of a Python package."""
        from importlib.metadata import version

        return version(package.strip())

    @tool(response_format="content_and_artifact")
    def web_search(query: str) -> tuple[str, dict[str, Any]]:
        """Search the web."""
        if "fail" in query:
            raise ValueError("search backend unavailable")
        url = f"https://example.test/{query.replace(' ', '-')}"
        return f"Result for {query}", {
            "sources": [{"url": url, "title": query.title()}]
        }

    tools = {"lgos_package_version": lgos_package_version, "web_search": web_search}

    def select(messages: list[BaseMessage], offered: Any, tool_choice: Any) -> Any:
        names = {
            t["function"]["name"] if "function" in t else t.get("name") for t in offered
        }
        question = _last_text(messages)
        calls = []
        if "lgos_package_version" in names and "version" in question:
            calls.append(
                {
                    "name": "lgos_package_version",
                    "args": {"__arg1": "pydantic"},
                    "id": "call_v",
                }
            )
        if "repeat" in question:
            calls.append({"name": "web_search", "args": {"query": "a"}, "id": "dup"})
            calls.append({"name": "web_search", "args": {"query": "b"}, "id": "dup"})
        elif "web_search" in names and (
            "search" in question or tool_choice == "required"
        ):
            for i, query in enumerate(question.split(":")[-1].split(",")):
                calls.append(
                    {
                        "name": "web_search",
                        "args": {"query": query.strip()},
                        "id": f"call_s{i}",
                    }
                )
        return AIMessage("", tool_calls=calls)

    State = ServerToolState

    selector = OfflineChatModel(responder=select)
    from langgraph_openai_serve.graph.server_tools import tool_message_output

    writer = OfflineChatModel(
        responder=lambda messages, tools, choice: (
            "Found: "
            + "; ".join(tool_message_output(m) for m in messages if m.type == "tool")
        )
    )

    async def choose(state: State) -> dict[str, Any]:
        chosen = [tools[name] for name in state["selected"]]
        if not chosen:
            return {}
        bound = selector.bind_tools(chosen, tool_choice=state["tool_choice"])
        reply = await bound.ainvoke(state["messages"], config={"tags": ["nostream"]})
        return {"messages": [reply]}

    def route(state: ServerToolState) -> str:
        if "orphan" in _last_text(state["messages"]):
            return "answer"  # skips the tools: a call without a result
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else "answer"

    async def answer(state: State) -> dict[str, Any]:
        return {"messages": [await writer.ainvoke(state["messages"])]}

    builder = StateGraph(State)
    builder.add_node("choose", choose)
    builder.add_node("tools", ToolNode(list(tools.values()), handle_tool_errors=True))
    builder.add_node("answer", answer)
    builder.add_edge(START, "choose")
    builder.add_conditional_edges("choose", route, ["tools", "answer"])
    builder.add_edge("tools", "answer")
    return builder.compile()


def server_tool_input(request: Any, messages: list[BaseMessage]) -> dict[str, Any]:
    return {
        "messages": messages,
        "selected": list(request.server_tools),
        "tool_choice": request.tool_choice
        if isinstance(request.tool_choice, str)
        else None,
    }


def file_graph() -> Any:
    """Reports the file blocks it received (graphs own file interpretation)."""

    def read(state: MessagesState) -> dict[str, Any]:
        blocks = [
            block
            for message in state["messages"]
            if not isinstance(message.content, str)
            for block in message.content
            if isinstance(block, dict) and block.get("type") == "file"
        ]
        return {"messages": [AIMessage("files: " + json.dumps(blocks, sort_keys=True))]}

    builder = StateGraph(MessagesState)
    builder.add_node("read", read)
    builder.add_edge(START, "read")
    return builder.compile()
