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
   ``DEMO_OPEN_WEBUI_DISCOVERY`` (``litellm`` behind the gateway);
4. with ``DEMO_OPEN_WEBUI_MCP_URL`` (the demo MCP server's endpoint, as
   ``just demo --open-webui --mcp`` sets it), attaches that server as an
   Open WebUI MCP tool server ``lgos-demo``
   (``POST /api/v1/configs/tool_servers``) and makes it a default tool of
   the models in ``DEMO_OPEN_WEBUI_MCP_MODELS`` (``mcp``; the workspace
   model ``lgos.<name>`` with ``meta.toolIds``), so the pipe gets its tools
   in ``__tools__``; without it, a server attached before is detached.

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


MCP_SERVER_ID = "lgos-demo"
MCP_TOOL_ID = f"server:mcp:{MCP_SERVER_ID}"
MCP_SERVER_NAME = "LGOS demo MCP server"


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


def mcp_connection(url: str) -> dict[str, Any]:
    """Return the tool-server connection of the demo MCP server at ``url``."""
    return {
        "url": url,
        "path": "",
        "type": "mcp",
        "auth_type": "none",
        "key": "",
        "headers": None,
        "config": {"enable": True},
        "info": {
            "id": MCP_SERVER_ID,
            "name": MCP_SERVER_NAME,
            "description": "The demo's MCP tools, for the graphs that take them.",
        },
    }


def provision_mcp(api: OpenWebUI, url: str | None, models: list[str]) -> list[str]:
    """Attach (``url``) or detach (``None``) the demo MCP server; say what changed.

    Attached, each of ``models`` (graph names) gets the server as a default
    tool: a workspace model ``lgos.<name>`` overriding the pipe's, with
    ``meta.toolIds``. Open WebUI then selects the server's tools in every new
    chat with that model and hands them to the pipe.
    """
    done: list[str] = []
    config = api.call("GET", "/api/v1/configs/tool_servers") or {}
    connections = list(config.get("TOOL_SERVER_CONNECTIONS") or [])
    ours = [c for c in connections if (c.get("info") or {}).get("id") == MCP_SERVER_ID]
    others = [c for c in connections if c not in ours]
    if url is None:
        if ours:
            api.call(
                "POST",
                "/api/v1/configs/tool_servers",
                {"TOOL_SERVER_CONNECTIONS": others},
            )
            done.append("MCP server detached")
        return done
    wanted = mcp_connection(url)
    if not ours or any(
        ours[0].get(key) != wanted[key] for key in ("url", "type", "config")
    ):
        api.call(
            "POST",
            "/api/v1/configs/tool_servers",
            {"TOOL_SERVER_CONNECTIONS": [*others, wanted]},
        )
        done.append(f"MCP server {url} attached")
    for name in models:
        model_id = f"{FUNCTION_ID}.{name}"
        form = {
            "id": model_id,
            "base_model_id": None,
            "name": name,
            "meta": {"toolIds": [MCP_TOOL_ID]},
            "params": {},
        }
        current = api.call("GET", f"/api/v1/models/model?id={model_id}")
        if current is None:
            api.call("POST", "/api/v1/models/create", form)
        elif MCP_TOOL_ID not in ((current.get("meta") or {}).get("toolIds") or []):
            meta = {**(current.get("meta") or {}), **form["meta"]}
            api.call("POST", "/api/v1/models/model/update", {**form, "meta": meta})
        else:
            continue
        done.append(f"{model_id} uses its tools")
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
    models = os.environ.get("DEMO_OPEN_WEBUI_MCP_MODELS", "mcp").split()
    done += provision_mcp(
        api, os.environ.get("DEMO_OPEN_WEBUI_MCP_URL") or None, models
    )
    state = ", ".join(done) if done else "already up to date"
    print(f"provision: function {FUNCTION_ID!r} at {api.url}: {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
