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
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# The test helpers that start the demo's services and drive Open WebUI's page
# (tests/demo_services.py, tests/e2e/open_webui_page.py) live in the repository.
sys.path.insert(0, str(REPO))

from tests.browsers import launch  # noqa: E402
from tests.demo_services import (  # noqa: E402
    clean_env,
    demo_api,
    files_service,
)
from tests.e2e.open_webui_page import (  # noqa: E402
    ANSWER,
    MODEL_BUTTON,
    PNG_DATA_URL,
    attach,
    open_new_chat,
    send,
    wait_until_answered,
)
from tests.procs import free_port  # noqa: E402

WIDTH, HEIGHT = 1280, 800
FILES_KEY = "screenshots-files-key"
READY_LINE = "open-webui: ready on"
OPEN_WEBUI_STARTUP = 900.0
"""Seconds Open WebUI gets for its first start (its database migrations)."""


@contextlib.contextmanager
def stack(work: Path) -> Iterator[str]:
    """Files service, demo API and Open WebUI; yields Open WebUI's URL.

    Every process gets this environment without a provider's key or any
    ``DEMO_``/``LGOS_`` setting (``clean_env``), so the offline model answers.

    Raises:
        SystemExit: Open WebUI did not start within ``OPEN_WEBUI_STARTUP``.

    """
    with contextlib.ExitStack() as services:
        files = services.enter_context(files_service(work, api_key=FILES_KEY))
        api = services.enter_context(
            demo_api(work, files, files_key=FILES_KEY, chunk_delay=0.05)
        )
        yield services.enter_context(
            open_webui(work, free_port(), f"{api}/v1", f"{files}/v1")
        )


@contextlib.contextmanager
def open_webui(work: Path, port: int, api: str, files: str) -> Iterator[str]:
    """Run ``scripts/open-webui.sh`` on ``port`` until its ready line; yield its URL."""
    log = work / "open-webui.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            ["bash", str(REPO / "scripts" / "open-webui.sh")],
            cwd=work,
            env=clean_env()
            | {
                "DEMO_OPEN_WEBUI_PORT": str(port),
                "DEMO_OPEN_WEBUI_DATA_DIR": str(work / "open-webui"),
                "DEMO_OPEN_WEBUI_LGOS_BASE_URL": api,
                "DEMO_OPEN_WEBUI_LGOS_API_KEY": "lgos-demo",
                "DEMO_OPEN_WEBUI_FILES_BASE_URL": files,
                "DEMO_OPEN_WEBUI_FILES_API_KEY": FILES_KEY,
            },
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + OPEN_WEBUI_STARTUP
        while READY_LINE not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"Open WebUI did not start, see {log}")
            time.sleep(1)
        yield f"http://127.0.0.1:{port}"
    finally:
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


def capture(url: str, out: Path) -> None:
    """Drive Open WebUI at ``url`` and save every screenshot into ``out``."""
    from playwright.sync_api import expect, sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_context(
            viewport={"width": WIDTH, "height": HEIGHT}
        ).new_page()
        page.set_default_timeout(120_000)
        expect.set_options(timeout=120_000)

        # The model picker: one model per graph.
        open_new_chat(page, url, None, release_notes_ms=15_000)
        page.locator(MODEL_BUTTON).click()
        expect(page.get_by_placeholder("Search a model")).to_be_visible()
        save(page, out / "open-webui-models.png")
        page.keyboard.press("Escape")

        # writer: commentary as status lines, then the answer.
        open_new_chat(page, url, "writer")
        send(page, "Why does tea cool faster in a wide cup?")
        answer = page.locator(ANSWER).last
        expect(answer).to_contain_text("Why it matters")
        wait_until_answered(page)
        # Unfold the status history: every commentary line of the run.
        page.get_by_role("button", name="Toggle status history").last.click()
        save(page, out / "open-webui-writer.png")

        # citations: annotations as sources, listed under the answer.
        open_new_chat(page, url, "citations")
        send(page, "What is LangGraph?")
        answer = page.locator(ANSWER).last
        expect(answer).to_contain_text("A checkpointer saves")
        wait_until_answered(page)
        sources = page.get_by_role("button", name=re.compile(r"Toggle \d+ sources"))
        sources.click()
        page.wait_for_timeout(500)
        sources.scroll_into_view_if_needed()
        save(page, out / "open-webui-citations.png")

        # approval: the lgos_interrupt question in Open WebUI's card.
        open_new_chat(page, url, "approval")
        send(page, "Refund 30 dollars to order 1042")
        expect(page.get_by_text("Approve this refund request?").first).to_be_visible()
        save(page, out / "open-webui-approval.png")
        page.get_by_role("button", name=re.compile(r"^approve")).first.click()
        expect(page.locator(ANSWER).last).to_contain_text(re.compile("approved", re.I))
        # Finished here: a run still going when the next chat opens ends
        # with Open WebUI's notification over the next screenshot.
        wait_until_answered(page)

        # deep-research: the plan review in the question card, then the
        # cited report.
        open_new_chat(page, url, "deep-research")
        send(page, "Compare how LangGraph and the OpenAI Agents SDK pause for approval")
        expect(page.get_by_text("I plan to research").first).to_be_visible()
        save(page, out / "open-webui-plan.png")
        page.get_by_role("button", name=re.compile(r"^Start research")).first.click()
        expect(page.locator(ANSWER).last).to_contain_text("research report")
        wait_until_answered(page)

        # files: an attached CSV, charted; the chart is shown in the answer.
        with tempfile.TemporaryDirectory(prefix="open-webui-shots-") as folder:
            csv = Path(folder) / "rainfall.csv"
            csv.write_text(
                "city,rainfall_mm\nOslo,763\nBergen,2250\nTromso,1031\nStavanger,1180\n"
            )
            open_new_chat(page, url, "files")
            attach(page, csv)
            send(page, "Draw a chart of the rainfall per city")
            expect(page.locator(ANSWER).last).to_contain_text(".png)")
            wait_until_answered(page)
            expect(page.locator(PNG_DATA_URL).last).to_be_visible()
            # The model's name and the status line above the chart in view.
            page.mouse.move(WIDTH / 2, HEIGHT / 2)
            page.mouse.wheel(0, -120)
            save(page, out / "open-webui-files.png")

        # The valves: the pipe's user valves (the button beside the model
        # name), one field per graph setting; one is switched off "Default"
        # to show its control.
        open_new_chat(page, url, "chat")
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
