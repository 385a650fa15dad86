"""Concurrent streams: LGOS's 200-chunk Responses streams beside their floors.

At each concurrency level (1, 10, 100 and 500 streams at once; 1 and 20 in
quick mode) three calls are measured in three interleaved rounds (one in
quick mode; see :func:`bench.harness.compare`), so the floors share the
machine's minute:

- ``astream``: the ``stream200`` graph's own ``astream(stream_mode="messages")``
  in this process, N at once: what the graph costs without any server;
- ``bare_stream``: the bare server's ``POST /bare-stream``, a plain
  Starlette route streaming the same ``astream`` as SSE: the least any HTTP
  server does to stream the graph;
- ``responses``: LGOS streaming the graph as a Responses event stream.

Each has its rate (streams/s), ``chunks_per_s`` (rate × 200), p50/p99
latency of a whole stream, ``first_p50_ms`` (time to the first text chunk
or delta) and ``cpu_ms`` (CPU per stream of the process doing the work).
"""

from __future__ import annotations

from typing import Any

from bench.figures import (
    STREAM_ANSWER,
    Bench,
    astream_call,
    first_stats,
    responses_stream_call,
    sse_call,
)
from bench.harness import Call, compare, encode

LEVELS = (1, 10, 100, 500)
"""Concurrent streams of a full run."""

QUICK_LEVELS = (1, 20)
"""Concurrent streams in quick mode."""

FLOORS = ("astream", "bare_stream")
"""The floors measured at each level, in the order the table shows them."""

CHUNKS = len(STREAM_ANSWER.split())

WARMUP = 2
"""Unmeasured calls of each figure before a level's rounds."""

RatioSpec = tuple[float, str | None, str]
"""A ratio's value, target (``">= 0.90"``, ``"<= 1.30"`` or None), definition."""


def bare_stream_call(bench: Bench, first: list[float]) -> Call:
    """Stream ``POST /bare-stream``; record the time to its first ``data`` frame.

    Raises:
        RuntimeError: No bare server was started (on creation); a status
            other than 200, or a stream not ending with ``data: [DONE]``.

    """
    if bench.bare is None:
        raise RuntimeError("This run started no bare server.")
    return sse_call(
        bench,
        f"{bench.bare.base}/bare-stream",
        encode({"input": "hi"}),
        first,
        first_line=lambda line: line.startswith(b"data: "),
        kept_line=lambda line: line.startswith(b"data: "),
        done=lambda line: line == b"data: [DONE]",
        label="bare stream",
    )


async def concurrent_streams(bench: Bench) -> dict[str, Any]:
    """LGOS, ``astream`` and ``bare_stream`` with 1 to 500 concurrent streams.

    Returns:
        Per level (``"1"``, ``"10"``, …): LGOS's figure (``rate`` streams/s,
        ``p50_ms``, ``p99_ms``, ``first_p50_ms``, ``first_p99_ms``,
        ``chunks_per_s``, ``cpu_ms``, …) with ``"floors"``: the same keys for
        ``astream`` and ``bare_stream`` measured in the same rounds.

    """
    levels = QUICK_LEVELS if bench.quick else LEVELS
    out: dict[str, Any] = {}
    for concurrency in levels:
        firsts: dict[str, list[float]] = {name: [] for name in (*FLOORS, "responses")}
        calls = {
            "astream": astream_call("messages", False, firsts["astream"]),
            "bare_stream": bare_stream_call(bench, firsts["bare_stream"]),
            "responses": responses_stream_call(bench, firsts["responses"]),
        }
        measured = await compare(
            calls,
            bench.seconds,
            concurrency,
            rounds=1 if bench.quick else 3,
            warmup=WARMUP,
            cpu=bench.cpu_clocks(calls),
        )
        for name, first in firsts.items():
            first_stats(measured[name], first, WARMUP)
            measured[name]["chunks_per_s"] = measured[name]["rate"] * CHUNKS
        result = measured.pop("responses")
        result["floors"] = measured
        out[str(concurrency)] = result
    return out


def streams_ratios(figures: dict[str, Any]) -> dict[str, RatioSpec]:
    """Issue 22's concurrent-stream ratios, from ``figures["concurrent_streams"]``.

    - ``streams_c<N>_chunks_vs_c1``: LGOS chunks/s at N / at 1 (target
      ``>= 0.90`` at 500, issue 22); at the highest level also the same for
      each floor (``streams_c<N>_astream_chunks_vs_c1`` …), which shows how
      much of the loss any server, or the graph alone, suffers.
    - ``streams_c<N>_first_delta_vs_astream``: LGOS first text delta p50 /
      the graph's own first chunk p50 with N ``astream`` s at once (target
      ``<= 1.30`` at 100, issue 22); ``…_vs_bare_stream`` against the plain
      SSE route.

    Results without the floors (older runs) give only the first kind.

    Returns:
        Name → (value, target or None, definition); empty without the figure.

    """
    streams = figures.get("concurrent_streams") or {}
    if "1" not in streams:
        return {}
    out: dict[str, RatioSpec] = {}
    top = max(streams, key=int)
    for level, data in streams.items():
        floors = data.get("floors", {})
        if level != "1":
            out[f"streams_c{level}_chunks_vs_c1"] = (
                data["chunks_per_s"] / streams["1"]["chunks_per_s"],
                ">= 0.90" if level == "500" else None,
                f"LGOS chunks/s with {level} concurrent streams / with 1",
            )
            for name in floors if level == top else ():
                out[f"streams_c{level}_{name}_chunks_vs_c1"] = (
                    floors[name]["chunks_per_s"]
                    / streams["1"]["floors"][name]["chunks_per_s"],
                    None,
                    f"{name} chunks/s with {level} concurrent streams / with 1",
                )
        for name in floors:
            out[f"streams_c{level}_first_delta_vs_{name}"] = (
                data["first_p50_ms"] / floors[name]["first_p50_ms"],
                "<= 1.30" if level == "100" and name == "astream" else None,
                f"LGOS first text delta p50 / {name} first chunk p50, {level} streams",
            )
    return out


def streams_rows(figures: dict[str, Any]) -> list[tuple[str, ...]]:
    """Return the concurrent-streams table: a row per level and figure, floors first."""
    streams = figures.get("concurrent_streams")
    if not streams:
        return []
    header = "streams figure streams/s chunks/s p50_ms first_p50_ms cpu_ms"
    rows = [tuple(name.replace("_", " ") for name in header.split())]
    for level, data in streams.items():
        named = [*data.get("floors", {}).items(), ("responses", data)]
        for name, figure in named:
            cpu = figure.get("cpu_ms")
            rows.append(
                (
                    level,
                    name,
                    f"{figure['rate']:.1f}",
                    f"{figure['chunks_per_s']:.0f}",
                    f"{figure['p50_ms']:.1f}",
                    f"{figure['first_p50_ms']:.1f}",
                    "" if cpu is None else f"{cpu:.2f}",
                )
            )
    return rows
