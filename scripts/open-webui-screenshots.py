"""Regenerate the screenshots of docs/demo/open-webui.md.

Starts the demo's Files service, the demo API (offline model) and Open WebUI
with the LGOS pipe (``scripts/open-webui.sh``) on free loopback ports, data in
a temporary folder, then drives Debian's Chromium through Playwright at
1280x800 and saves one PNG per view into ``docs/demo/img/`` (reduced to a
256-colour palette to keep them small):

- ``open-webui-models.png``: the model picker listing the LGOS graphs;
- ``open-webui-writer.png``: ``writer``'s commentary as status lines;
- ``open-webui-citations.png``: ``citations``' annotations as sources;
- ``open-webui-approval.png``: ``approval``'s question in Open WebUI's card;
- ``open-webui-valves.png``: the pipe's valves (the graphs' settings).

Usage: ``uv run --frozen python scripts/open-webui-screenshots.py [--url URL]
[--out DIR]``; ``--url`` uses an Open WebUI (with the pipe provisioned) that
is already running instead of starting the stack.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 800
FILES_KEY = "screenshots-files-key"
READY_LINE = "open-webui: ready on"
SCRUBBED = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "DEMO_API_OPENAI_API_KEY",
    "DEMO_API_OPENAI_BASE_URL",
    "DATABASE_URL",
)


def free_port() -> int:
    """Return a free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def env() -> dict[str, str]:
    """Return this environment without a real provider's key or a database."""
    result = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    result["PYTHONUNBUFFERED"] = "1"
    result["NO_PROXY"] = "127.0.0.1,localhost"
    return result


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    """Wait until ``url`` answers 200 while ``process`` runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.5)
    raise SystemExit(f"{url} did not answer")


@contextlib.contextmanager
def stack(work: Path) -> Iterator[str]:
    """Files service, demo API and Open WebUI; yields Open WebUI's URL."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(
        name: str, command: list[str], extra: dict[str, str]
    ) -> subprocess.Popen[bytes]:
        sink = (work / f"{name}.log").open("wb")
        process = subprocess.Popen(
            command,
            cwd=work,
            env=env() | extra,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        processes.append(process)
        return process

    try:
        port = free_port()
        files = f"http://127.0.0.1:{port}"
        process = start(
            "files",
            [
                str(BIN / "python"),
                "-m",
                "lgos_demo_files",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            {
                "DEMO_FILES_API_KEY": FILES_KEY,
                "DEMO_FILES_STORAGE_URL": str(work / "files" / "objects"),
                "DEMO_FILES_DATABASE_URL": str(work / "files" / "metadata.sqlite3"),
            },
        )
        wait_http(files + "/health", process)
        port = free_port()
        api = f"http://127.0.0.1:{port}/v1"
        process = start(
            "api",
            [
                str(BIN / "lgos"),
                "serve",
                "lgos_demo_api.registry:create_registry",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            {
                "DEMO_API_OFFLINE_CHUNK_DELAY": "0.05",
                "DEMO_API_FILES_BASE_URL": files + "/v1",
                "DEMO_API_FILES_API_KEY": FILES_KEY,
            },
        )
        wait_http(api + "/models", process)
        port = free_port()
        process = start(
            "open-webui",
            ["bash", str(REPO / "scripts" / "open-webui.sh")],
            {
                "DEMO_OPEN_WEBUI_PORT": str(port),
                "DEMO_OPEN_WEBUI_DATA_DIR": str(work / "open-webui"),
                "DEMO_OPEN_WEBUI_LGOS_BASE_URL": api,
                "DEMO_OPEN_WEBUI_LGOS_API_KEY": "lgos-demo",
                "DEMO_OPEN_WEBUI_FILES_BASE_URL": files + "/v1",
                "DEMO_OPEN_WEBUI_FILES_API_KEY": FILES_KEY,
            },
        )
        log = work / "open-webui.log"
        deadline = time.monotonic() + 900
        while READY_LINE not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"Open WebUI did not start, see {log}")
            time.sleep(1)
        yield f"http://127.0.0.1:{port}"
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)


def save(page: Any, path: Path) -> None:
    """Save a viewport screenshot, reduced to a 256-colour palette."""
    from PIL import Image

    page.wait_for_timeout(500)
    page.screenshot(path=str(path))
    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=256).save(path, optimize=True)
    print(
        f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: "
        f"{path.stat().st_size // 1024} KB"
    )


def new_chat(page: Any, url: str, model: str | None) -> None:
    """Open a new chat (no sign-in) and pick ``model`` when one is given."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    page.goto(url)
    selector = page.locator("#model-selector-model-button")
    expect(selector).to_be_visible(timeout=120_000)
    # The release notes open once per user, on the first visit, and may take
    # a while to appear on a fresh Open WebUI.
    lets_go = page.get_by_role("button", name="Okay, Let's Go!")
    with contextlib.suppress(PlaywrightTimeout):
        lets_go.wait_for(state="visible", timeout=15_000 if model is None else 3_000)
        lets_go.click()
        expect(lets_go).to_be_hidden()
    if model is None:
        return
    selector.click()
    page.get_by_placeholder("Search a model").fill(model)
    page.get_by_text(model, exact=True).last.click()
    expect(selector).to_contain_text(model)


def send(page: Any, text: str) -> None:
    """Type ``text`` into the chat input and send it."""
    page.locator("#chat-input").click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def capture(url: str, out: Path) -> None:
    """Drive Open WebUI at ``url`` and save every screenshot into ``out``."""
    from playwright.sync_api import expect, sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-networking", "--disable-gpu"],
        )
        page = browser.new_context(
            viewport={"width": WIDTH, "height": HEIGHT}
        ).new_page()
        page.set_default_timeout(120_000)
        expect.set_options(timeout=120_000)

        # The model picker: one model per graph.
        new_chat(page, url, None)
        page.locator("#model-selector-model-button").click()
        expect(page.get_by_placeholder("Search a model")).to_be_visible()
        save(page, out / "open-webui-models.png")
        page.keyboard.press("Escape")

        # writer: commentary as status lines, then the answer.
        new_chat(page, url, "writer")
        send(page, "Why does tea cool faster in a wide cup?")
        answer = page.locator("#response-content-container").last
        expect(answer).to_contain_text("Why it matters")
        page.wait_for_timeout(1_500)
        # Unfold the status history: every commentary line of the run.
        page.get_by_role("button", name="Toggle status history").last.click()
        save(page, out / "open-webui-writer.png")

        # citations: annotations as sources, listed under the answer.
        new_chat(page, url, "citations")
        send(page, "What is LangGraph?")
        answer = page.locator("#response-content-container").last
        expect(answer).to_contain_text("A checkpointer saves")
        sources = page.get_by_role("button", name=re.compile(r"Toggle \d+ sources"))
        sources.click()
        page.wait_for_timeout(500)
        sources.scroll_into_view_if_needed()
        save(page, out / "open-webui-citations.png")

        # approval: the lgos_interrupt question in Open WebUI's card.
        new_chat(page, url, "approval")
        send(page, "Refund 30 dollars to order 1042")
        expect(page.get_by_text("Approve this refund request?").first).to_be_visible()
        save(page, out / "open-webui-approval.png")
        page.get_by_role("button", name=re.compile(r"^approve")).first.click()
        expect(page.locator("#response-content-container").last).to_contain_text(
            re.compile("approved", re.I)
        )

        # The valves: the pipe's user valves (the button beside the model
        # name), one field per graph setting; one is switched off "Default"
        # to show its control.
        new_chat(page, url, "chat")
        page.get_by_role("button", name="Valves").click()
        dialog = page.get_by_role("dialog")
        expect(dialog.get_by_text("writer: Sections")).to_be_visible()
        dialog.get_by_role("button", name="Default").nth(2).click()
        page.wait_for_timeout(1_000)
        save(page, out / "open-webui-valves.png")
        browser.close()


def main() -> None:
    """Parse the arguments; start the stack unless ``--url`` is given."""
    parser = argparse.ArgumentParser(
        description="Regenerate the screenshots of docs/demo/open-webui.md."
    )
    parser.add_argument("--url", help="an Open WebUI with the pipe, already running")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "demo" / "img")
    args = parser.parse_args()
    if args.url:
        capture(args.url.rstrip("/"), args.out)
        return
    with (
        tempfile.TemporaryDirectory(prefix="open-webui-shots-") as work,
        stack(Path(work)) as url,
    ):
        capture(url, args.out)


if __name__ == "__main__":
    main()
