"""LGOS overhead benchmark: prints tables and writes JSON (``just bench``).

Usage::

    uv run --frozen --no-sync python -m bench.run --seconds 3
    python -m bench.run --only requests,stream --seconds 1
    python -m bench.run --quick --seconds 0.2     # the smoke test's mode

Every figure is measured in one run, on one machine, with one HTTP client
(aiohttp): ratios are taken against floors measured in the same run, because
shared machines are noisy. ``docs/benchmarks.md`` explains each figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.figures import (
    Bench,
    conversation_length,
    graph_size,
    stream,
    throughput,
)
from bench.harness import ROOT, Server, client_session
from bench.lifecycle import (
    Skipped,
    background_hatchet,
    background_memory,
    interrupt_round_trip,
)
from bench.machine import machine
from bench.memory import memory
from bench.report import ratios, table
from bench.scaling import scaling
from bench.streams import concurrent_streams

GROUPS = (
    "requests",
    "stream",
    "interrupt",
    "background",
    "graph-size",
    "conversation",
    "streams",
    "memory",
    "scaling",
)
"""Figure groups ``--only`` selects from; the floors always run."""


def _runners(options: argparse.Namespace) -> dict[str, tuple[str, Any]]:
    """Group name → (JSON key, coroutine function of a Bench)."""

    async def background(bench: Bench) -> dict[str, Any]:
        out: dict[str, Any] = {"memory": await background_memory(bench)}
        try:
            out["hatchet"] = await background_hatchet(bench, options.hatchet)
        except Skipped as exc:
            out["hatchet"] = {"skipped": str(exc)}
        return out

    return {
        "stream": ("stream", stream),
        "interrupt": (
            "interrupt_postgres",
            lambda bench: interrupt_round_trip(bench, options.postgres_uri),
        ),
        "background": ("background", background),
        "graph-size": ("graph_size", graph_size),
        "conversation": ("conversation", conversation_length),
        "streams": ("concurrent_streams", concurrent_streams),
        "memory": ("memory", lambda bench: memory(bench, options.postgres_uri)),
        "scaling": ("scaling", scaling),
    }


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def run(options: argparse.Namespace) -> dict[str, Any]:
    """Measure the floors and the selected groups; return the results JSON.

    Returns:
        ``{"machine", "settings", "figures", "ratios"}``; a group that cannot
        run here (no PostgreSQL, no Hatchet engine) holds ``{"skipped": why}``.

    """
    started = time.perf_counter()
    results: dict[str, Any] = {
        "machine": machine(),
        "settings": {
            "seconds": options.seconds,
            "quick": options.quick,
            "groups": options.only,
            "client": "aiohttp",
        },
        "figures": {},
    }
    figures: dict[str, Any] = results["figures"]
    durations: dict[str, float] = {}
    runners = _runners(options)
    with ExitStack() as stack:
        bare = Server.bare()
        stack.callback(bare.stop)
        lgos = Server.lgos()
        stack.callback(lgos.stop)
        bare.wait_ready()
        lgos.wait_ready()
        async with client_session() as session:
            bench = Bench(options.seconds, options.quick, session, lgos, bare, figures)
            with_requests = "requests" in options.only
            _progress("floors and requests …" if with_requests else "floors …")
            clock = time.perf_counter()
            core = await throughput(bench, with_requests)
            figures["floors"] = core["floors"]
            if with_requests:
                figures["requests"] = core["requests"]
            durations["floors"] = round(time.perf_counter() - clock, 1)
            for group in options.only:
                if group == "requests":
                    continue
                key, runner = runners[group]
                _progress(f"{group} …")
                clock = time.perf_counter()
                try:
                    figures[key] = await runner(bench)
                except Skipped as exc:
                    figures[key] = {"skipped": str(exc)}
                    _progress(f"{group}: skipped — {exc}")
                durations[group] = round(time.perf_counter() - clock, 1)
    results["ratios"] = ratios(figures)
    results["settings"]["elapsed_s"] = round(time.perf_counter() - started, 1)
    results["settings"]["group_seconds"] = durations
    return results


def _groups(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(GROUPS))
    if unknown:
        msg = f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(GROUPS)}"
        raise argparse.ArgumentTypeError(msg)
    return [name for name in GROUPS if name in names]


def parser() -> argparse.ArgumentParser:
    """Build the command-line options of ``python -m bench.run``."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description="LGOS overhead benchmark."
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="measuring time per figure"
    )
    parser.add_argument(
        "--only",
        type=_groups,
        default=list(GROUPS),
        help=f"comma-separated groups (floors always run): {', '.join(GROUPS)}",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller sweeps and request counts (smoke test)",
    )
    parser.add_argument(
        "--hatchet",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure background runs on Hatchet (default: when an engine is "
        "configured or built, not in --quick); --hatchet builds and starts the "
        "embedded engine if no HATCHET_CLIENT_* is set",
    )
    parser.add_argument(
        "--postgres-uri",
        help="database for the interrupt and paused-run figures (default: a "
        "temporary database "
        "on LGOS_TEST_POSTGRES_URI or the local lgos superuser)",
    )
    parser.add_argument(
        "--output", type=Path, default=ROOT / ".data" / "bench.json", help="JSON file"
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, write the JSON, print the tables."""
    options = parser().parse_args(argv)
    results = asyncio.run(run(options))
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2))
    print(table(results))
    print(f"\nJSON: {options.output} ({results['settings']['elapsed_s']} s)")


if __name__ == "__main__":
    main()
