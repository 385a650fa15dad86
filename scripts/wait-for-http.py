#!/usr/bin/env python3
"""Wait until a URL answers HTTP, then exit 0: `wait-for-http.py URL [SECONDS]`.

`demo/Procfile` starts the Chainlit UI only once each URL of `DEMO_UI_WAIT_FOR`
answers (`just demo --gateway`: the LiteLLM gateway; `--mcp`: the MCP server),
so a user who opens the UI right away is not left with a chat that could not
load its models (the gateway takes 10–20 s to start). Any HTTP
answer counts, even an error status: the server is up. After SECONDS (default
180) it gives up with a warning on stderr and still exits 0, so the UI starts
and says itself what it cannot reach. Standard library only.
"""

from __future__ import annotations

import sys
import time
import urllib.error
import urllib.request


def wait(url: str, seconds: float) -> bool:
    """Poll ``url`` every 0.5 s; return whether it answered within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except urllib.error.HTTPError:
            return True  # an HTTP status: the server is up
        except (OSError, ValueError):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.5)


def main(argv: list[str]) -> int:
    """Run the command line; return the exit status (2 for bad usage, else 0)."""
    if not 1 <= len(argv) <= 2:
        print("usage: wait-for-http.py URL [SECONDS]", file=sys.stderr)
        return 2
    url = argv[0]
    seconds = float(argv[1]) if len(argv) == 2 else 180.0
    print(f"Waiting for {url} before starting (up to {seconds:g} s)...", flush=True)
    if not wait(url, seconds):
        print(
            f"{url} did not answer within {seconds:g} s; starting anyway.",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
