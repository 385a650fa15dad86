"""Profile ``lgos serve`` under load with py-spy or pyinstrument.

Usage::

    uv run --frozen --no-sync python -m bench.profile --path responses
    python -m bench.profile --path stream --tool pyinstrument --seconds 20

The server runs ``bench.apps:registry`` (in-memory resources); the bench's
client loads it with ``--concurrency`` workers on one path (``responses``,
``chat``: the trivial graph, non-streaming; ``stream``, ``chat-stream``: the
200-chunk graph; ``interrupt``: ``approval`` paused and resumed, on a
temporary PostgreSQL database as the bench's interrupt figure runs it)
while the profiler samples the server process only.

Outputs in ``--out`` (default ``/tmp/bench-profiles``), per path and tool:

- py-spy: ``<path>-pyspy.txt`` (collapsed stacks; opens in speedscope) and
  ``<path>-pyspy-summary.txt`` (self and inclusive time per function and
  per package, in percent of the samples);
- pyinstrument: ``<path>-pyinstrument.html`` and ``.txt`` (call tree).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import re
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from bench.figures import (
    CHAT_BODY,
    RESPONSES_BODY,
    Bench,
    chat_stream_call,
    conversation,
    responses_stream_call,
)
from bench.harness import (
    FACTORY,
    LGOS,
    LGOS_ENV,
    SERVER_OPTIONS,
    Call,
    Server,
    client_session,
)
from bench.lifecycle import pause_resume_call, postgres_database

PATHS = ("responses", "chat", "stream", "chat-stream", "interrupt")
BIN = Path(sys.executable).parent
_FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")
_ROOTS = (
    re.compile(r"^.*/site-packages/"),
    re.compile(r"^.*/src/"),
    re.compile(r"^.*/lib/python3\.\d+/"),
)


def _call(bench: Bench, path: str, messages: int) -> Call:
    first: list[float] = []
    items, _ = conversation(messages)
    if path == "responses":
        return bench.responses_call({**RESPONSES_BODY, "input": items})
    if path == "chat":
        return bench.chat_call({**CHAT_BODY, "messages": items})
    if path == "stream":
        return responses_stream_call(bench, first)
    if path == "interrupt":
        return pause_resume_call(bench, bench.lgos.base)
    return chat_stream_call(bench, first)


async def _load(bench: Bench, options: argparse.Namespace, seconds: float) -> int:
    """Run ``options.path`` calls from ``--concurrency`` workers; count them."""
    call = _call(bench, options.path, options.messages)
    concurrency = options.concurrency
    done = 0
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        while time.perf_counter() < stop:
            await call()
            done += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done


def _frame_key(frame: str) -> tuple[str, str]:
    """``(package, "module/path.py:function")`` of one py-spy frame.

    Library and project frames are named by their top-level package, the
    standard library's by its module (``stdlib:asyncio``).
    """
    match = _FRAME.match(frame)
    if not match:
        return "?", frame
    file, function = match["file"], match["function"]
    for index, root in enumerate(_ROOTS):
        short = root.sub("", file)
        if short != file:
            top = short.split("/")[0].removesuffix(".py")
            package = f"stdlib:{top}" if index == len(_ROOTS) - 1 else top
            return package, f"{short}:{function}"
    return Path(file).name, f"{Path(file).name}:{function}"


PHASES = (
    ("LangGraph run (Pregel.astream in the runner's task)", "Pregel.astream ("),
    ("thread pool (sync nodes, run_in_executor)", "concurrent/futures/thread.py"),
    ("LangGraph node and callback tasks", "langgraph/pregel/"),
    ("LangGraph node and callback tasks", "langchain_core/"),
    ("LGOS request code outside LangGraph", "langgraph_openai_serve/api/"),
    ("FastAPI/Starlette app (middleware, routing)", "FastAPI.__call__ ("),
    ("uvicorn HTTP protocol", "uvicorn/protocols/"),
)
"""Phase of a sample: the first rule whose text occurs in its stack."""


def phases(stacks: list[tuple[str, int]]) -> list[str]:
    """Split samples into request phases (see ``PHASES``); percent of samples."""
    counts: collections.Counter[str] = collections.Counter()
    total = sum(count for _, count in stacks)
    for stack, count in stacks:
        phase = next((name for name, text in PHASES if text in stack), "other")
        counts[phase] += count
        if stack.count("FastAPI.__call__ (") > 1:
            counts["  (any phase) inside the mounted app's second FastAPI"] += count
        _, _, inside_graph = stack.partition("Pregel.astream (")
        if "langgraph_openai_serve/" in inside_graph:
            counts["  (LangGraph run) LGOS code called back by LangGraph"] += count
    order = [*dict.fromkeys(name for name, _ in PHASES), "other"]
    rows = [f"{100 * counts[name] / total:6.1f}%  {name}" for name in order]
    rows += [
        f"{100 * count / total:6.1f}%  {name.strip()}"
        for name, count in counts.items()
        if name.startswith("  ")
    ]
    return rows


def summarize(raw: Path, top: int = 40) -> str:
    """Summarize py-spy's collapsed stacks: self/inclusive % per function, package.

    Inclusive time counts a function once per sample however often it
    recurs in the stack; percentages are of all samples.
    """
    self_fn: collections.Counter[str] = collections.Counter()
    incl_fn: collections.Counter[str] = collections.Counter()
    self_pkg: collections.Counter[str] = collections.Counter()
    incl_pkg: collections.Counter[str] = collections.Counter()
    total = 0
    stacks: list[tuple[str, int]] = []
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        stacks.append((stack, count))
        total += count
        keys = [_frame_key(frame) for frame in stack.split(";")]
        package, leaf = keys[-1]
        self_fn[leaf] += count
        self_pkg[package] += count
        for name in {function for _, function in keys}:
            incl_fn[name] += count
        for name in {package for package, _ in keys}:
            incl_pkg[name] += count

    def block(title: str, counter: collections.Counter[str]) -> list[str]:
        rows = [
            f"{100 * n / total:6.1f}%  {name}" for name, n in counter.most_common(top)
        ]
        return [title, *rows, ""]

    return "\n".join(
        [
            f"{total} samples",
            "",
            "phases",
            *phases(stacks),
            "",
            *block("self time by package", self_pkg),
            *block("inclusive time by package", incl_pkg),
            *block("self time by function", self_fn),
            *block("inclusive time by function", incl_fn),
        ]
    )


async def _profile_pyspy(options: argparse.Namespace, stem: Path) -> list[Path]:
    raw = stem.with_name(f"{stem.name}-pyspy.txt")
    with Server.lgos(env=options.env, name="lgos-profile") as server:
        async with client_session() as session:
            bench = Bench(options.seconds, False, session, server)
            await _load(bench, options, 2)  # warm-up
            spy = await asyncio.create_subprocess_exec(
                str(BIN / "py-spy"),
                "record",
                "--pid",
                str(server.process.pid),
                "--duration",
                str(int(options.seconds)),
                "--rate",
                str(options.rate),
                "--format",
                "raw",
                # Only samples holding the GIL: the server's Python CPU time
                # (idle thread-pool workers and the waiting loop drop out).
                # Not --nonblocking: unpaused sampling misattributes frames
                # (asyncio.gather showed as 17 % of a stream; pyinstrument: <1 %).
                "--gil",
                "--full-filenames",
                "--function",
                "--output",
                str(raw),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            count = await _load(bench, options, options.seconds + 1)
            _, error = await asyncio.wait_for(spy.communicate(), 60)
            if spy.returncode != 0:
                raise RuntimeError(f"py-spy failed: {error.decode()[-2000:]}")
    summary = stem.with_name(f"{stem.name}-pyspy-summary.txt")
    header = f"{options.path}: {count} requests at concurrency {options.concurrency}"
    summary.write_text(f"{header}\n{summarize(raw)}\n")
    return [raw, summary]


async def _profile_pyinstrument(options: argparse.Namespace, stem: Path) -> Path:
    session_file = stem.with_name(f"{stem.name}-pyinstrument.pyisession")
    args = [str(BIN / "pyinstrument"), "-r", "pyisession", "-o", str(session_file)]
    args += [LGOS, "serve", FACTORY, "--port", "{port}", *SERVER_OPTIONS]
    env = {**LGOS_ENV, **options.env}
    server = Server(args, ready_path="/v1/health", env=env, name="lgos-pyinstrument")
    with server:
        async with client_session() as session:
            bench = Bench(options.seconds, False, session, server)
            count = await _load(bench, options, options.seconds)
        server.process.send_signal(signal.SIGINT)  # pyinstrument writes on exit
        server.process.wait(60)
    print(f"{options.path}: {count} requests at concurrency {options.concurrency}")
    return session_file


def _render(session_file: Path, stem: Path) -> list[Path]:
    """Render a pyinstrument session as HTML and as a text call tree."""
    html = stem.with_name(f"{stem.name}-pyinstrument.html")
    text = stem.with_name(f"{stem.name}-pyinstrument.txt")
    render = [str(BIN / "pyinstrument"), "--load", str(session_file)]
    subprocess.run([*render, "-r", "html", "-o", str(html)], check=True)
    # The text tree shows library frames too, down to 0.5 % of the samples.
    threshold = "processor_options.filter_threshold=0.005"
    subprocess.run(
        [*render, "-r", "text", "-o", str(text), "--show-all", "-p", threshold],
        check=True,
    )
    return [html, text]


def main(argv: list[str] | None = None) -> None:
    """Profile one path with the chosen tools; print the files written."""
    parser = argparse.ArgumentParser(prog="python -m bench.profile")
    parser.add_argument("--path", choices=PATHS, default="responses")
    parser.add_argument(
        "--tool", choices=("py-spy", "pyinstrument", "both"), default="both"
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--messages",
        type=int,
        default=1,
        help="replayed conversation length (non-streaming paths)",
    )
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples/s")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-profiles"))
    options = parser.parse_args(argv)
    options.out.mkdir(parents=True, exist_ok=True)
    suffix = f"-{options.messages}msg" if options.messages > 1 else ""
    stem = options.out / f"{options.path}{suffix}"
    written: list[Path] = []
    with ExitStack() as stack:
        options.env = {}
        if options.path == "interrupt":
            uri = stack.enter_context(postgres_database(None))
            options.env = {"LGOS_POSTGRES_URI": uri}
        if options.tool in {"py-spy", "both"}:
            written += asyncio.run(_profile_pyspy(options, stem))
        if options.tool in {"pyinstrument", "both"}:
            session_file = asyncio.run(_profile_pyinstrument(options, stem))
            written += _render(session_file, stem)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
