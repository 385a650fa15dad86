"""Throughput figures: floors, non-streaming requests, streaming, cost of work.

One module: every figure and the call it times sit together, so that the
groups measure alike and stay comparable.

Each group is an ``async`` function of a :class:`Bench` returning plain JSON
data; rates are requests per second, latencies milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage

from bench.apps import CHAIN_SIZES, chain_graph, stream_text, streaming_graph
from bench.harness import (
    JSON_HEADERS,
    Call,
    CpuClock,
    Server,
    compare,
    encode,
    floor,
    percentile_ms,
    post,
)
from langgraph_openai_serve import GraphConfig, GraphRegistry, GraphRequest
from langgraph_openai_serve.graph.runner import run_langgraph

STREAM_ANSWER = stream_text()


@dataclass
class Bench:
    """What every group shares: the knobs, the client and the servers.

    Attributes:
        seconds: Measuring time of each figure.
        quick: Smaller sweeps, fewer requests (for the smoke test).
        session: The one HTTP client.
        lgos: ``lgos serve bench.apps:registry`` on in-memory resources.
        bare: The bare FastAPI server (the floors need it).
        figures: Results so far (floors are read by later groups).

    """

    seconds: float
    quick: bool
    session: aiohttp.ClientSession
    lgos: Server
    bare: Server | None = None
    figures: dict[str, Any] = field(default_factory=dict)

    def cpu_clocks(self, calls: Mapping[str, Call]) -> dict[str, CpuClock]:
        """CPU clocks of ``calls`` by naming convention.

        ``direct``, ``runner`` and ``astream*`` run in this process; ``bare``
        on the bare server; any other name on the shared LGOS server.
        """
        clocks: dict[str, CpuClock] = {}
        for name in calls:
            if name in {"direct", "runner"} or name.startswith("astream"):
                clocks[name] = time.process_time
            elif name.startswith("bare"):
                if self.bare is not None:
                    clocks[name] = self.bare.cpu_seconds
            else:
                clocks[name] = self.lgos.cpu_seconds
        return clocks

    @property
    def warmup(self) -> int:
        """Unmeasured calls before each figure: 10, or 2 in quick mode."""
        return 2 if self.quick else 10

    def responses_call(
        self, body: dict[str, Any], text: str = "ok", base: str | None = None
    ) -> Call:
        """Make a non-streaming Responses call checking the answer text.

        It goes to ``base`` (default: the shared LGOS server).
        """
        url, data = f"{base or self.lgos.base}/v1/responses", encode(body)

        async def call() -> None:
            reply = await post(self.session, url, data)
            answer = reply["output"][-1]["content"][0]["text"]
            if answer != text:
                raise RuntimeError(f"unexpected answer {answer!r}")

        return call

    def chat_call(self, body: dict[str, Any], text: str = "ok") -> Call:
        """Make a non-streaming Chat Completions call checking the answer text."""
        url, data = f"{self.lgos.base}/v1/chat/completions", encode(body)

        async def call() -> None:
            reply = await post(self.session, url, data)
            answer = reply["choices"][0]["message"]["content"]
            if answer != text:
                raise RuntimeError(f"unexpected answer {answer!r}")

        return call

    def bare_call(self, body: dict[str, Any]) -> Call:
        """Make a POST of ``body`` to the bare route.

        Raises:
            RuntimeError: No bare server was started.

        """
        url, data = self._bare_url("/bare"), encode(body)

        async def call() -> None:
            await post(self.session, url, data)

        return call

    def _bare_url(self, path: str) -> str:
        if self.bare is None:
            raise RuntimeError("This run started no bare server.")
        return f"{self.bare.base}{path}"

    def bare_graph_call(self, body: dict[str, Any], text: str = "ok") -> Call:
        """POST ``body`` to the bare server's route running the trivial graph.

        Raises:
            RuntimeError: No bare server was started.

        """
        url, data = self._bare_url("/bare-graph"), encode(body)

        async def call() -> None:
            reply = await post(self.session, url, data)
            if reply["output_text"] != text:
                raise RuntimeError(f"unexpected answer {reply['output_text']!r}")

        return call


def direct_call(graph: Any, messages: list[BaseMessage], text: str = "ok") -> Call:
    """In-process ``graph.ainvoke`` checking the last message's text.

    Each call hands the graph the messages without IDs, as a server hands it
    a decoded request: ``add_messages`` gives every input message an ID in
    place, so reusing the list would spare later calls that work (about
    2.5 µs a message, 60 % of the graph's own time at 500 messages). The IDs
    are cleared through ``__dict__``, which costs about 30 ns a message.
    """
    state = {"messages": messages}

    async def call() -> None:
        for message in messages:
            message.__dict__["id"] = None
        result = await graph.ainvoke(state)
        if result["messages"][-1].text != text:
            raise RuntimeError("unexpected direct answer")

    return call


def runner_call() -> Call:
    """In-process ``run_langgraph`` (LGOS's runner, no HTTP) on the trivial graph."""
    config = GraphConfig(graph=chain_graph(1), description="Answers 'ok'.")
    registry = GraphRegistry(graphs={"trivial": config})
    request = GraphRequest(model="trivial")
    messages = [HumanMessage("hi")]

    async def call() -> None:
        answer = await run_langgraph(request, messages, registry)
        if not isinstance(answer, AIMessage) or answer.text != "ok":
            raise RuntimeError("unexpected runner answer")

    return call


RESPONSES_BODY = {"model": "trivial", "input": "hi"}
CHAT_BODY = {"model": "trivial", "messages": [{"role": "user", "content": "hi"}]}


async def throughput(bench: Bench, with_requests: bool) -> dict[str, Any]:
    """Floors, and LGOS Responses and Chat (non-streaming), at concurrency 1 and 16.

    ``direct`` and ``bare`` (and, ``with_requests``, ``responses`` and
    ``chat`` on the trivial graph, ``runner``: LGOS's in-process
    ``run_langgraph``, which splits LGOS's cost between its runner and its
    HTTP layer, and ``bare_graph``: the bare server running the graph with
    ``ainvoke`` behind a plain route) are measured in interleaved rounds.

    Returns:
        ``{"floors": {direct, bare, direct_c16, bare_c16, floor, floor_c16},
        "requests": {responses_c1, chat_c1, runner_c1, bare_graph_c1, and the
        same at c16}}``.

    """
    calls = {
        "direct": direct_call(chain_graph(1), [HumanMessage("hi")]),
        "bare": bench.bare_call(RESPONSES_BODY),
    }
    if with_requests:
        calls["responses"] = bench.responses_call(RESPONSES_BODY)
        calls["chat"] = bench.chat_call(CHAT_BODY)
        calls["runner"] = runner_call()
        calls["bare_graph"] = bench.bare_graph_call(RESPONSES_BODY)
    floors: dict[str, Any] = {}
    requests: dict[str, Any] = {}
    for concurrency in (1, 16):
        measured = await compare(
            calls,
            bench.seconds,
            concurrency,
            warmup=bench.warmup,
            cpu=bench.cpu_clocks(calls),
        )
        suffix = "" if concurrency == 1 else f"_c{concurrency}"
        for name in ("direct", "bare"):
            floors[f"{name}{suffix}"] = measured.pop(name)
        floors[f"floor{suffix}"] = floor(
            floors[f"direct{suffix}"]["rate"], floors[f"bare{suffix}"]["rate"]
        )
        for name, result in measured.items():
            requests[f"{name}_c{concurrency}"] = result
    return {"floors": floors, "requests": requests}


def astream_call(modes: Any, subgraphs: bool, first: list[float]) -> Call:
    """Run the stream graph's own ``astream``; record time to the first chunk.

    ``modes`` and ``subgraphs`` are passed to ``astream``; each call appends
    its time to the first text chunk (seconds) to ``first``.

    Raises:
        RuntimeError: (from a call) not exactly 200 text chunks were yielded.

    """
    graph = streaming_graph()
    state = {"messages": [HumanMessage("hi")]}

    async def call() -> None:
        start = time.perf_counter()
        seen = chunks = 0
        async for part in graph.astream(
            state, stream_mode=modes, subgraphs=subgraphs, version="v2"
        ):
            if part["type"] != "messages":
                continue
            chunk = part["data"][0]
            if isinstance(chunk, AIMessageChunk) and chunk.text:
                chunks += 1
                if not seen:
                    first.append(time.perf_counter() - start)
                    seen = 1
        if chunks != len(STREAM_ANSWER.split()):
            raise RuntimeError(f"astream yielded {chunks} text chunks")

    return call


async def sse_lines(reply: aiohttp.ClientResponse) -> AsyncIterator[list[bytes]]:
    """Yield the complete lines (newline removed) of each chunk read from ``reply``.

    The stream is read as it arrives, a chunk at a time, and split in bulk:
    reading it line by line (``async for line in reply.content``) costs the
    client more than the server spends encoding the events, and would make
    the figure measure the client.
    """
    rest = b""
    async for chunk in reply.content.iter_any():
        *lines, rest = (rest + chunk).split(b"\n")
        yield lines
    if rest:
        yield [rest]


def sse_call(
    bench: Bench,
    url: str,
    data: bytes,
    first: list[float],
    *,
    first_line: Callable[[bytes], bool],
    kept_line: Callable[[bytes], bool],
    done: Callable[[bytes], bool],
    label: str,
) -> Call:
    """POST ``data`` to ``url`` and read its SSE stream; record time to first text.

    ``first_line`` says which line is the first text (its arrival, in
    seconds since the request, is appended to ``first``); the last line
    ``kept_line`` accepts must satisfy ``done``.

    Raises:
        RuntimeError: A status other than 200, no first text, or a stream
            that did not end as ``done`` wants.

    """

    async def call() -> None:
        start = time.perf_counter()
        seen, last = False, b""
        async with bench.session.post(url, data=data, headers=JSON_HEADERS) as reply:
            if reply.status != 200:
                raise RuntimeError(f"{label}: {reply.status}")
            async for lines in sse_lines(reply):
                for line in lines:
                    if not seen and first_line(line):
                        first.append(time.perf_counter() - start)
                        seen = True
                    if kept_line(line):
                        last = line
        if not seen or not done(last):
            raise RuntimeError(f"{label} ended with {last!r}")

    return call


def responses_stream_call(bench: Bench, first: list[float]) -> Call:
    """Stream ``stream200`` over Responses; records time to the first text delta."""
    return sse_call(
        bench,
        f"{bench.lgos.base}/v1/responses",
        encode({"model": "stream200", "input": "hi", "stream": True}),
        first,
        first_line=lambda line: line.startswith(b"event: response.output_text.delta"),
        kept_line=lambda line: line.startswith(b"event:"),
        done=lambda line: line.startswith(b"event: response.completed"),
        label="stream",
    )


def _content_delta(line: bytes) -> bool:
    """Whether a Chat Completions SSE line carries a content delta."""
    if not line.startswith(b"data: ") or line == b"data: [DONE]":
        return False
    return bool(orjson.loads(line[6:])["choices"][0]["delta"].get("content"))


def chat_stream_call(bench: Bench, first: list[float]) -> Call:
    """Stream ``stream200`` over Chat; records time to the first content delta."""
    return sse_call(
        bench,
        f"{bench.lgos.base}/v1/chat/completions",
        encode(
            {
                "model": "stream200",
                "messages": [{"role": "user", "content": "hi"}],
                "stream": True,
            }
        ),
        first,
        first_line=_content_delta,
        kept_line=lambda line: line.startswith(b"data: "),
        done=lambda line: line == b"data: [DONE]",
        label="stream",
    )


def first_stats(result: dict[str, Any], first: list[float], warmup: int) -> None:
    """Add ``first_p50_ms`` and ``first_p99_ms`` of ``first`` to ``result``.

    ``first`` holds seconds to the first text, warm-up calls first: the
    first ``warmup`` values are left out.
    """
    measured = first[warmup:]
    result["first_p50_ms"] = percentile_ms(measured, 0.5)
    result["first_p99_ms"] = percentile_ms(measured, 0.99)


async def stream(bench: Bench) -> dict[str, Any]:
    """Stream a 200-chunk answer: the graph's own ``astream`` against LGOS.

    ``astream`` uses ``stream_mode="messages"`` (what a caller streaming
    tokens would use); ``astream_lgos_modes`` adds the modes LGOS subscribes
    to (``values``, ``custom``, subgraphs), to separate LangGraph's cost from
    LGOS's. ``first_*`` is the time to the first text chunk or delta. The
    four are measured in interleaved rounds.
    """
    firsts: dict[str, list[float]] = {
        name: [] for name in ("astream", "astream_lgos_modes", "responses", "chat")
    }
    calls = {
        "astream": astream_call("messages", False, firsts["astream"]),
        "astream_lgos_modes": astream_call(
            ["values", "messages", "custom"], True, firsts["astream_lgos_modes"]
        ),
        "responses": responses_stream_call(bench, firsts["responses"]),
        "chat": chat_stream_call(bench, firsts["chat"]),
    }
    out: dict[str, Any] = await compare(
        calls, bench.seconds, warmup=bench.warmup, cpu=bench.cpu_clocks(calls)
    )
    for name, first in firsts.items():
        first_stats(out[name], first, bench.warmup)
    out["chunks"] = len(STREAM_ANSWER.split())
    return out


async def graph_size(bench: Bench) -> dict[str, Any]:
    """Direct and LGOS Responses rates of ``chain<N>`` for N in ``CHAIN_SIZES``.

    The floor of each size uses the ``bare`` rate of the floors.
    """
    bare = bench.figures["floors"]["bare"]["rate"]
    out: dict[str, Any] = {}
    for size in CHAIN_SIZES[:2] if bench.quick else CHAIN_SIZES:
        calls = {
            "direct": direct_call(chain_graph(size), [HumanMessage("hi")]),
            "responses": bench.responses_call({"model": f"chain{size}", "input": "hi"}),
        }
        measured = await compare(
            calls, bench.seconds, warmup=bench.warmup, cpu=bench.cpu_clocks(calls)
        )
        combined = floor(measured["direct"]["rate"], bare)
        out[str(size)] = {
            **measured,
            "floor": combined,
            "ratio": measured["responses"]["rate"] / combined,
        }
    return out


def conversation(length: int) -> tuple[list[dict[str, str]], list[BaseMessage]]:
    """``length`` alternating messages ending with the user's, as JSON and LangChain."""
    items: list[dict[str, str]] = []
    messages: list[BaseMessage] = []
    for index in range(length):
        user = (length - 1 - index) % 2 == 0
        text = f"Message {index}: a short sentence of about ten words here."
        items.append({"role": "user" if user else "assistant", "content": text})
        messages.append(HumanMessage(text) if user else AIMessage(text))
    return items, messages


async def conversation_length(bench: Bench) -> dict[str, Any]:
    """Direct, bare, bare-graph and LGOS Responses rates with 1 to 500 messages.

    The bare routes receive the same JSON body as LGOS, so each length has
    its own floor. ``bare_graph`` builds the messages with LangChain's
    constructors and runs the graph behind a plain route: beside the floor,
    it shows what building the messages the graph needs costs any server.
    """
    lengths = (1, 100) if bench.quick else (1, 10, 100, 500)
    graph = chain_graph(1)
    out: dict[str, Any] = {}
    for length in lengths:
        items, messages = conversation(length)
        body = {"model": "trivial", "input": items}
        calls = {
            "direct": direct_call(graph, messages),
            "bare": bench.bare_call(body),
            "bare_graph": bench.bare_graph_call(body),
            "responses": bench.responses_call(body),
        }
        measured = await compare(
            calls, bench.seconds, warmup=bench.warmup, cpu=bench.cpu_clocks(calls)
        )
        combined = floor(measured["direct"]["rate"], measured["bare"]["rate"])
        out[str(length)] = {
            "body_bytes": len(encode(body)),
            **measured,
            "floor": combined,
            "ratio": measured["responses"]["rate"] / combined,
            "vs_bare_graph": (
                measured["responses"]["rate"] / measured["bare_graph"]["rate"]
            ),
        }
    return out
