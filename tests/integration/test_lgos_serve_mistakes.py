"""Graph mistakes met on a real ``lgos serve``: the log line names the cause and the fix.

Each graph below makes one mistake a first graph makes. The server's ERROR
line of the failure (the first line, before the traceback) says what went
wrong and what to change; the client's message says it too where it is about
the graph's shape, else it is the generic failure with the request ID.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.matchers import failed_message
from tests.procs import ROOT, free_port, lgos_command, running
from tests.waiting import wait_until

MISTAKES_APP = """
from langchain_core.messages import AIMessage
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

from langgraph_openai_serve import GraphConfig, GraphRegistry
from langgraph_openai_serve.testing import OfflineChatModel

model = OfflineChatModel(responder=lambda messages, tools, choice: "a quiet answer")


def ask(state: MessagesState) -> dict:
    approved = interrupt({"question": "Approve?"})
    return {"messages": [AIMessage(f"Approved: {approved}")]}


def forget(state: MessagesState) -> dict:
    return {}


async def shout(state: MessagesState) -> dict:
    draft = await model.ainvoke(state["messages"])
    return {"messages": [AIMessage(draft.text.upper())]}


async def shout_privately(state: MessagesState) -> dict:
    private = model.with_config(tags=[TAG_NOSTREAM])
    draft = await private.ainvoke(state["messages"])
    return {"messages": [AIMessage(draft.text.upper())]}


def one_node(node):
    builder = StateGraph(MessagesState)
    builder.add_node(node)
    builder.add_edge(START, node.__name__)
    return builder.compile()


def create_registry(resources):
    graphs = {
        "pauses": one_node(ask),
        "forgets": one_node(forget),
        "shouts": one_node(shout),
        "shouts-privately": one_node(shout_privately),
    }
    return GraphRegistry(
        graphs={
            name: GraphConfig(graph=graph, description=name)
            for name, graph in graphs.items()
        }
    )
"""


class Server:
    """The running ``lgos serve`` and its JSON log."""

    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log

    def error_line(self, request_id: str) -> dict[str, Any]:
        """The ERROR record carrying ``request_id`` (waited for: logs lag)."""

        def found() -> dict[str, Any] | None:
            for line in self.log.read_text().splitlines():
                if not line.startswith("{"):
                    continue
                record = json.loads(line)
                if (
                    record.get("level") == "ERROR"
                    and record.get("request_id") == request_id
                ):
                    return record
            return None

        wait_until(
            lambda: found() is not None,
            timeout=10,
            message=lambda: f"the ERROR line of {request_id}\n{self.log.read_text()}",
        )
        record = found()
        assert record is not None
        return record


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("mistakes")
    (folder / "mistakes_app.py").write_text(MISTAKES_APP)
    port = free_port()
    log = folder / "api.log"
    with running(
        [*lgos_command(), "serve", "mistakes_app:create_registry", "--port", str(port)],
        ready_url=f"http://127.0.0.1:{port}/v1/health",
        log=log,
        env={"PYTHONPATH": str(ROOT), "LGOS_LOG_FORMAT": "json"},
        cwd=folder,
    ):
        yield Server(f"http://127.0.0.1:{port}/v1", log)


def _post(server: Server, model: str, *, stream: bool = False) -> httpx.Response:
    body = {"model": model, "input": "Hello", "stream": stream}
    return httpx.post(f"{server.url}/responses", json=body, timeout=30)


def _failed_event(reply: httpx.Response) -> dict[str, Any]:
    events = [
        json.loads(line.removeprefix("data: "))
        for line in reply.text.splitlines()
        if line.startswith("data: {")
    ]
    assert events[-1]["type"] == "response.failed", reply.text
    return events[-1]["response"]["error"]


def _deltas(reply: httpx.Response) -> str:
    return "".join(
        event["delta"]
        for line in reply.text.splitlines()
        if line.startswith("data: {")
        and (event := json.loads(line.removeprefix("data: ")))["type"]
        == "response.output_text.delta"
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_interrupt_without_the_feature_is_named_in_the_log(
    server: Server, stream: bool
) -> None:
    """Today's log said only ``AssertionError``; the client keeps the generic text."""
    reply = _post(server, "pauses", stream=stream)
    if stream:
        message = _failed_event(reply)["message"]
    else:
        assert reply.status_code == 500
        message = reply.json()["error"]["message"]
    assert message == failed_message(reply)
    record = server.error_line(reply.headers["x-request-id"])
    line = record["message"]
    assert "\n" not in line
    for named in (
        "graph 'pauses'",
        "interrupt()",
        "GraphFeature.INTERRUPTS",
        "checkpointer=resources.checkpointer",
    ):
        assert named in line, line
    assert "AssertionError" not in record.get("exception", "")


def test_a_graph_that_adds_no_answer_says_so(server: Server) -> None:
    reply = _post(server, "forgets")
    assert reply.status_code == 500
    message = reply.json()["error"]["message"]
    assert message.startswith("Graph 'forgets' added no answer"), message
    assert "HumanMessage, the user's own" in message
    assert 'return {"messages": [AIMessage(...)]}' in message
    line = server.error_line(reply.headers["x-request-id"])["message"]
    assert line.endswith(message), line


def test_changed_streamed_text_names_the_node_and_tag_nostream(
    server: Server,
) -> None:
    """Without streaming the answer is right; streamed, the deltas were the model's."""
    assert _post(server, "shouts").json()["output"][0]["content"][0]["text"] == (
        "A QUIET ANSWER"
    )
    reply = _post(server, "shouts", stream=True)
    assert _deltas(reply) == "a quiet answer"
    message = _failed_event(reply)["message"]
    for named in ("node 'shout'", "TAG_NOSTREAM", "Change a model's text"):
        assert named in message, message
    line = server.error_line(reply.headers["x-request-id"])["message"]
    assert line.startswith("Streaming graph run failed (model shouts): ")
    assert line.endswith(message)


def test_the_documented_fix_streams_the_changed_text(server: Server) -> None:
    reply = _post(server, "shouts-privately", stream=True)
    assert _deltas(reply) == "A QUIET ANSWER"
    assert "response.completed" in reply.text
