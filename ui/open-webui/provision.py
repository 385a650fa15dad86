"""Install the LGOS pipe into a running Open WebUI, with no clicks.

Run by ``scripts/open-webui.sh`` once ``open-webui serve`` is starting (any
Python works; it needs only the standard library):

    python ui/open-webui/provision.py --url http://127.0.0.1:8006 \
        --pipe ui/open-webui/lgos_pipe.py

With authentication off (``WEBUI_AUTH=False``) Open WebUI signs everyone in
as its admin ``admin@localhost`` / ``admin``; this script signs in the same
way and, through Open WebUI's admin API:

1. creates the function ``lgos`` from the pipe's source
   (``POST /api/v1/functions/create``), or updates it when the source changed
   (``POST /api/v1/functions/id/lgos/update``; an unchanged source is left
   alone, since every update adds a version to the function's history);
2. enables it (``POST /api/v1/functions/id/lgos/toggle`` when it is off);
3. sets its valves (``POST /api/v1/functions/id/lgos/valves/update``) from
   ``DEMO_OPEN_WEBUI_LGOS_BASE_URL``, ``DEMO_OPEN_WEBUI_LGOS_API_KEY``,
   ``DEMO_OPEN_WEBUI_FILES_BASE_URL``, ``DEMO_OPEN_WEBUI_FILES_API_KEY`` and
   ``DEMO_OPEN_WEBUI_DISCOVERY`` (``litellm`` behind the gateway).

With authentication on, pass ``--email`` and ``--password`` of an admin.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

FUNCTION_ID = "lgos"
FUNCTION_NAME = "LGOS"
DESCRIPTION = "Every LGOS graph as a model, over the OpenAI Responses API."

VALVE_ENV = {
    "LGOS_BASE_URL": "DEMO_OPEN_WEBUI_LGOS_BASE_URL",
    "LGOS_API_KEY": "DEMO_OPEN_WEBUI_LGOS_API_KEY",
    "FILES_BASE_URL": "DEMO_OPEN_WEBUI_FILES_BASE_URL",
    "FILES_API_KEY": "DEMO_OPEN_WEBUI_FILES_API_KEY",
    "DISCOVERY": "DEMO_OPEN_WEBUI_DISCOVERY",
}


class OpenWebUI:
    """A few calls of Open WebUI's HTTP API, with the admin's token."""

    def __init__(self, url: str) -> None:
        """Talk to the Open WebUI at ``url``."""
        self.url = url.rstrip("/")
        self.token: str | None = None

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request; return the JSON answer (``None`` on 401/404)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            if error.code in (401, 404) and method == "GET":
                return None
            detail = error.read().decode(errors="replace")
            raise SystemExit(
                f"provision: {method} {path} failed: HTTP {error.code} {detail}"
            ) from error

    def wait(self, seconds: float) -> None:
        """Wait until ``GET /health`` answers."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=5):
                    return
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    raise SystemExit(
                        f"provision: Open WebUI at {self.url} did not answer "
                        f"within {seconds:.0f} s"
                    ) from None
                time.sleep(1)

    def sign_in(self, email: str, password: str) -> None:
        """Sign in (any credentials work with authentication off)."""
        answer = self.call(
            "POST", "/api/v1/auths/signin", {"email": email, "password": password}
        )
        self.token = answer["token"]


def valves_from_env() -> dict[str, str]:
    """Return the pipe's valves named by the environment (unset ones omitted)."""
    return {
        valve: os.environ[variable]
        for valve, variable in VALVE_ENV.items()
        if os.environ.get(variable)
    }


def provision(api: OpenWebUI, source: str, valves: dict[str, str]) -> list[str]:
    """Install or update, enable and configure the pipe; say what was done."""
    done: list[str] = []
    form = {
        "id": FUNCTION_ID,
        "name": FUNCTION_NAME,
        "content": source,
        "meta": {"description": DESCRIPTION},
    }
    current = api.call("GET", f"/api/v1/functions/id/{FUNCTION_ID}")
    if current is None:
        current = api.call("POST", "/api/v1/functions/create", form)
        done.append("created")
    elif current.get("content") != source:
        current = api.call("POST", f"/api/v1/functions/id/{FUNCTION_ID}/update", form)
        done.append("updated")
    if not current.get("is_active"):
        api.call("POST", f"/api/v1/functions/id/{FUNCTION_ID}/toggle")
        done.append("enabled")
    if valves:
        saved = api.call("GET", f"/api/v1/functions/id/{FUNCTION_ID}/valves") or {}
        if any(saved.get(key) != value for key, value in valves.items()):
            api.call(
                "POST",
                f"/api/v1/functions/id/{FUNCTION_ID}/valves/update",
                {**saved, **valves},
            )
            done.append("valves set")
    return done


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and provision."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8006")
    parser.add_argument(
        "--pipe",
        type=Path,
        default=Path(__file__).resolve().with_name("lgos_pipe.py"),
    )
    parser.add_argument("--wait", type=float, default=0, help="seconds to wait")
    parser.add_argument("--email", default="admin@localhost")
    parser.add_argument("--password", default="admin")
    args = parser.parse_args(argv)
    api = OpenWebUI(args.url)
    if args.wait:
        api.wait(args.wait)
    api.sign_in(args.email, args.password)
    done = provision(api, args.pipe.read_text(), valves_from_env())
    state = ", ".join(done) if done else "already up to date"
    print(f"provision: function {FUNCTION_ID!r} at {api.url}: {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
