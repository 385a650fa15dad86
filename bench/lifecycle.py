"""Durable flows: interrupt pause → resume on PostgreSQL, background runs.

Each figure is set against a plain foreground request of the same graph on
the same server.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.types import Command

from bench.apps import approval_graph
from bench.figures import RESPONSES_BODY, Bench
from bench.harness import (
    FACTORY,
    LGOS,
    Call,
    Server,
    compare,
    encode,
    get,
    percentile_ms,
    post,
    resume_body,
)
from bench.hatchet import (
    EngineUnavailable,
    HatchetWorker,
    engine_built,
    engine_configured,
    floor_calls,
    floor_worker_command,
    hatchet_environment,
    wait_healthy,
)

ADMIN_URI = os.environ.get(
    "LGOS_TEST_POSTGRES_URI", "postgresql://lgos:lgos@127.0.0.1:5432/postgres"
)
"""Where a temporary database is created when no ``--postgres-uri`` is given."""

TERMINAL = {"completed", "failed", "cancelled", "incomplete"}


class Skipped(Exception):
    """A figure that cannot run here; the message says why and how to enable it."""


@contextmanager
def postgres_database(uri: str | None) -> Iterator[str]:
    """Yield ``uri``, or a fresh database on ``ADMIN_URI`` dropped afterwards.

    Raises:
        Skipped: PostgreSQL is not reachable.

    """
    if uri:
        yield uri
        return
    name = f"lgos_bench_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(ADMIN_URI, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'create database "{name}"')  # type: ignore[arg-type]
    except psycopg.OperationalError as exc:
        msg = (
            f"PostgreSQL is not reachable at {ADMIN_URI} ({exc}); "
            "run `bash scripts/ensure-postgres.sh` or pass --postgres-uri"
        )
        raise Skipped(msg) from exc
    try:
        yield f"{ADMIN_URI.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(ADMIN_URI, autocommit=True) as admin:
            admin.execute(f'drop database if exists "{name}" with (force)')  # type: ignore[arg-type]


async def interrupt_round_trip(
    bench: Bench, postgres_uri: str | None
) -> dict[str, Any]:
    """Pause → resume of ``approval`` on ``lgos serve`` with PostgreSQL.

    The round trip is two requests: the one that pauses (checkpoint written,
    ``lgos_interrupt`` call returned) and the resume (lease, checkpoint read,
    run to the end, checkpoint deleted). ``plain`` is one request of the same
    three nodes without the interrupt and checkpointer, on the same server.
    ``floor`` is the same pause and resume done in this process with
    LangGraph's own ``AsyncPostgresSaver`` on one connection to the same
    database: ``ainvoke`` until the interrupt, ``ainvoke(Command(resume=...))``
    to the answer, then ``adelete_thread``, with the exit durability LGOS
    runs interrupt graphs with — the storage work any server must do.
    ``direct_plain`` is ``approval-plain``'s graph run in this process:
    ``floor_http_ms``, the floor plus twice (``plain`` − ``direct_plain``),
    is the floor with what a request over HTTP through LGOS adds to the
    graph, for the two requests of a round trip.

    Raises:
        Skipped: PostgreSQL is not reachable.

    """
    with postgres_database(postgres_uri) as uri:
        env = {"LGOS_POSTGRES_URI": uri}
        with Server.lgos(env=env, name="lgos-postgres") as server:
            async with AsyncPostgresSaver.from_conn_string(uri) as saver:
                return await _interrupt_figures(bench, server, saver)


async def _interrupt_figures(
    bench: Bench, server: Server, saver: AsyncPostgresSaver
) -> dict[str, Any]:
    """Measure plain, LGOS's round trip and the in-process floor, interleaved."""
    graph = approval_graph(saver)  # the server migrated the tables
    plain_graph = approval_graph(None)

    async def direct_plain() -> None:
        done = await plain_graph.ainvoke({"messages": [HumanMessage("x")]})
        if done["messages"][-1].text != "Decision: approve":
            raise RuntimeError("unexpected direct answer")

    floor_legs: dict[str, list[float]] = {"pause": [], "resume": []}

    async def floor() -> None:
        config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
        start = time.perf_counter()
        paused = await graph.ainvoke(
            {"messages": [HumanMessage("x")]}, config, durability="exit"
        )
        middle = time.perf_counter()
        if not paused.get("__interrupt__"):
            raise RuntimeError("the floor's graph did not pause")
        done = await graph.ainvoke(Command(resume="approve"), config, durability="exit")
        await saver.adelete_thread(config["configurable"]["thread_id"])
        end = time.perf_counter()
        if done["messages"][-1].text != "Decision: approve":
            raise RuntimeError("unexpected floor answer")
        floor_legs["pause"].append(middle - start)
        floor_legs["resume"].append(end - middle)

    legs: dict[str, list[float]] = {"pause": [], "resume": []}
    round_trip = pause_resume_call(bench, server.base, legs)
    plain = bench.responses_call(
        {"model": "approval-plain", "input": "x"},
        text="Decision: approve",
        base=server.base,
    )
    out: dict[str, Any] = await compare(
        {
            "plain": plain,
            "round_trip": round_trip,
            "floor": floor,
            "direct_plain": direct_plain,
        },
        bench.seconds,
        warmup=bench.warmup,
        cpu={
            "plain": server.cpu_seconds,
            "round_trip": server.cpu_seconds,
            "floor": time.process_time,
            "direct_plain": time.process_time,
        },
    )
    for leg, values in legs.items():
        out[f"{leg}_p50_ms"] = percentile_ms(values[bench.warmup :], 0.5)
    for leg, values in floor_legs.items():
        out[f"floor_{leg}_p50_ms"] = percentile_ms(values[bench.warmup :], 0.5)
    out["ratio"] = out["round_trip"]["p50_ms"] / out["plain"]["p50_ms"]
    out["floor_ratio"] = out["floor"]["p50_ms"] / out["plain"]["p50_ms"]
    out["vs_floor"] = out["round_trip"]["p50_ms"] / out["floor"]["p50_ms"]
    # The floor plus what HTTP and LGOS add to two requests of the graph.
    http = out["plain"]["p50_ms"] - out["direct_plain"]["p50_ms"]
    out["floor_http_ms"] = out["floor"]["p50_ms"] + 2 * http
    out["vs_floor_http"] = out["round_trip"]["p50_ms"] / out["floor_http_ms"]
    return out


def pause_resume_call(
    bench: Bench, base: str, legs: dict[str, list[float]] | None = None
) -> Call:
    """Make a call pausing ``approval`` on ``base`` and resuming it (one round trip).

    ``legs["pause"]`` and ``legs["resume"]``, when given, receive each
    request's seconds.
    """
    url = f"{base}/v1/responses"
    pause_body = encode({"model": "approval", "input": "x"})

    async def round_trip() -> None:
        start = time.perf_counter()
        paused = await post(bench.session, url, pause_body)
        middle = time.perf_counter()
        call = next(
            item
            for item in paused["output"]
            if item["type"] == "function_call" and item["name"] == "lgos_interrupt"
        )
        resume = resume_body(paused["id"], call["call_id"], "approve")
        done = await post(bench.session, url, encode(resume))
        end = time.perf_counter()
        if done["output"][-1]["content"][0]["text"] != "Decision: approve":
            raise RuntimeError("unexpected resume answer")
        if legs is not None:
            legs["pause"].append(middle - start)
            legs["resume"].append(end - middle)

    return round_trip


async def _background(
    bench: Bench,
    base: str,
    poll: float,
    floors: dict[str, Call] | None = None,
    seconds: float | None = None,
) -> dict[str, Any]:
    """Submit ``trivial`` with ``background=true``, poll until it ends; and plain.

    ``completed`` times submission until a poll (every ``poll`` seconds) sees
    the run completed; ``plain`` is the same graph in the foreground, on the
    same server. ``floors`` (name → call) are measured in the same
    interleaved rounds, each under ``floor_<name>``. ``seconds`` is the
    measuring time of each call (default ``bench.seconds``).
    """
    submit_url = f"{base}/v1/responses"
    body = encode({**RESPONSES_BODY, "background": True})
    submits: list[float] = []

    async def submit_and_wait() -> None:
        start = time.perf_counter()
        queued = await post(bench.session, submit_url, body)
        submits.append(time.perf_counter() - start)
        response = queued
        deadline = start + 120
        while response["status"] not in TERMINAL:
            if time.perf_counter() > deadline:
                raise RuntimeError("background run still not finished after 120 s")
            await asyncio.sleep(poll)
            response = await get(bench.session, f"{submit_url}/{queued['id']}")
        if response["status"] != "completed" or (
            response["output"][-1]["content"][0]["text"] != "ok"
        ):
            raise RuntimeError(f"background run ended {response['status']}")

    calls: dict[str, Call] = {
        "plain": bench.responses_call(RESPONSES_BODY, base=base),
        "completed": submit_and_wait,
    }
    calls |= {f"floor_{name}": call for name, call in (floors or {}).items()}
    seconds = bench.seconds if seconds is None else seconds
    out: dict[str, Any] = await compare(calls, seconds, warmup=bench.warmup)
    out["poll_interval_ms"] = 1000 * poll
    out["submit_p50_ms"] = percentile_ms(submits[bench.warmup :], 0.5)
    out["ratio"] = out["completed"]["p50_ms"] / out["plain"]["p50_ms"]
    return out


HATCHET_SECONDS = 15.0
"""Least measuring time of each Hatchet call outside quick mode (about 100 runs)."""


async def background_memory(bench: Bench) -> dict[str, Any]:
    """Background submit → completed on the in-memory engine vs a plain request.

    ``completed`` times submission until a poll (every millisecond) sees the
    run completed; ``plain`` is the same graph (``trivial``) in the foreground.
    """
    return await _background(bench, bench.lgos.base, poll=0.001)


async def background_hatchet(bench: Bench, requested: bool | None) -> dict[str, Any]:
    """Measure the same with ``LGOS_BACKGROUND_ENGINE=hatchet`` and ``lgos worker``.

    The engine is the one ``HATCHET_CLIENT_*`` variables configure, or else
    the embedded engine started here (:func:`bench.hatchet.hatchet_environment`)
    on a temporary PostgreSQL database. Polls every 20 ms. Beside it, in the
    same interleaved rounds, the engine floor (:mod:`bench.hatchet`): the
    Hatchet SDK alone triggering a no-op task on its own worker process and
    waiting for it, by polling the REST API every 20 ms (``floor_rest``, how
    LGOS reads a run) and by the SDK's result wait (``floor_listen``).
    ``vs_floor`` is ``completed`` / the faster floor, at p50 and p99.

    ``requested`` is ``--hatchet`` (True), ``--no-hatchet`` (False) or
    neither (None): then it runs when an engine is configured or already
    built (``scripts/ensure-hatchet.sh``), except in quick mode.

    Raises:
        Skipped: Not requested, or no engine here (no configuration, no
            PostgreSQL, the engine could not be built or started).

    """
    if requested is None:
        if bench.quick:
            raise Skipped("quick mode: pass --hatchet to measure it")
        if not engine_configured() and engine_built() is None:
            msg = (
                "no Hatchet engine configured or built: pass --hatchet to build "
                "it (scripts/ensure-hatchet.sh, needs Go) or set HATCHET_CLIENT_*"
            )
            raise Skipped(msg)
    elif not requested:
        raise Skipped("--no-hatchet given; pass --hatchet to measure it")
    poll = 0.02
    with ExitStack() as stack:
        database = None
        if not engine_configured():
            database = stack.enter_context(postgres_database(None))
        try:
            stack.enter_context(hatchet_environment(database))
        except EngineUnavailable as exc:
            raise Skipped(str(exc)) from exc
        workers = [
            HatchetWorker([LGOS, "worker", FACTORY], "hatchet-worker"),
            HatchetWorker(floor_worker_command(), "hatchet-floor-worker"),
        ]
        for worker in workers:
            stack.callback(worker.stop)
        env = {"LGOS_BACKGROUND_ENGINE": "hatchet"}
        server = Server.lgos(env=env, name="lgos-hatchet")
        stack.callback(server.stop)
        # Three processes import LangGraph at once beside the engine: give
        # them longer than a lone server.
        server.wait_ready(timeout=300)
        for worker in workers:
            wait_healthy(worker, timeout=300)
        floors, _client = floor_calls(poll)
        # A run takes about 0.1 s (the REST floor 1.5 s): a p99 needs more
        # samples than --seconds gives them, so measure each call longer.
        seconds = bench.seconds if bench.quick else max(bench.seconds, HATCHET_SECONDS)
        out = await _background(bench, server.base, poll, floors, seconds)
        out["seconds"] = seconds
    fastest = min(("floor_rest", "floor_listen"), key=lambda k: out[k]["p99_ms"])
    out["floor"] = fastest
    for stat in ("p50_ms", "p99_ms"):
        out[f"vs_floor_{stat[:3]}"] = out["completed"][stat] / out[fastest][stat]
    return out
