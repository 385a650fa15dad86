"""What refusing duplicate JSON keys costs: the body's second parse.

Usage::

    uv run --frozen --no-sync python -m bench.json_parse

Prints, for a typical Responses body and a 1 MB one (a base64 file input),
the time of orjson's parse (the one every request already pays) and of
:func:`langgraph_openai_serve.api.body.duplicate_key` (the second parse), in
microseconds per body, and the second parse as a share of a trivial
request's CPU time (``--request-cpu-ms``, default 1.4 ms: the bench's
``responses_c1`` cpu figure on this machine, docs/benchmarks.md). The share
means something for the typical body; a 1 MB body's request costs far more
than a trivial one (the upload, the file's handling, the run).
"""

from __future__ import annotations

import argparse
import json
import timeit

import orjson

from langgraph_openai_serve.api.body import duplicate_key

TYPICAL = json.dumps(
    {
        "model": "chat",
        "input": [{"role": "user", "content": "Hello there, how are you today? " * 3}],
        "instructions": "Be brief.",
        "stream": True,
        "metadata": {"conversation_id": "chat-1"},
        "tools": [
            {
                "type": "function",
                "name": "lookup",
                "parameters": {
                    "type": "object",
                    "properties": {"q": {"type": "string"}},
                },
            }
        ],
    }
).encode()
LARGE = json.dumps(
    {
        "model": "files",
        "input": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "input_file",
                        "file_data": "data:text/csv;base64," + "QUJD" * 250_000,
                    }
                ],
            }
        ],
    }
).encode()


def per_call_us(function: object, body: bytes, number: int) -> float:
    """Best of five timings of ``function(body)``, in microseconds per call."""
    runs = timeit.repeat(lambda: function(body), number=number, repeat=5)  # type: ignore[operator]
    return min(runs) / number * 1e6


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(
        description="What refusing duplicate JSON keys costs."
    )
    parser.add_argument("--request-cpu-ms", type=float, default=1.4)
    options = parser.parse_args()
    header = f"{'body':<10} {'bytes':>9} {'orjson us':>10} {'second us':>10}"
    print(f"{header} {'of orjson':>10} {'of request cpu':>15}")
    for name, body, number in (("typical", TYPICAL, 20_000), ("1 MB", LARGE, 20)):
        first = per_call_us(orjson.loads, body, number)
        second = per_call_us(duplicate_key, body, number)
        share = second / (options.request_cpu_ms * 1000)
        print(
            f"{name:<10} {len(body):>9} {first:>10.1f} {second:>10.1f} "
            f"{second / first:>9.1f}x {share:>15.1%}"
        )


if __name__ == "__main__":
    main()
