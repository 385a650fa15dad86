"""End to end: LGOS API + Chainlit UI as processes, driven in Chromium.

Starts ``lgos serve`` with the demo registry (offline model, no key) and the
Chainlit UI pointing at it, each on a free loopback port, then chats in
Debian's Chromium through Playwright: choose the ``chat`` graph, set the
audience to *expert*, send a message and watch the answer stream in; then
turn on conversation history and check the client-side ledger reached the
graph. Process output goes to files printed on failure, with a screenshot.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTUP_TIMEOUT = 90.0
ANSWER_TIMEOUT_MS = 60_000
UI_TIMEOUT_MS = 30_000
# Slow enough that the browser visibly receives the answer word by word.
OFFLINE_CHUNK_DELAY = "0.1"
# Variables that would make the demo use a real provider or a database.
SCRUBBED_ENV = (
    "DEMO_API_OPENAI_API_KEY",
    "DEMO_API_OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "DATABASE_URL",
    "LITERAL_API_KEY",
)


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    url: str

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError as exc:  # pragma: no cover - diagnostics only
            return f"<cannot read {self.log}: {exc}>"

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        # Each service runs in its own session: signal its whole group.
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED_ENV}
    env["PYTHONUNBUFFERED"] = "1"
    env["NO_PROXY"] = "127.0.0.1,localhost"
    return env


def start_service(
    name: str,
    command: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    log_dir: Path,
    url: str,
    ready_path: str,
) -> Service:
    log = log_dir / f"{name}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    service = Service(name, process, log, url)
    deadline = time.monotonic() + STARTUP_TIMEOUT
    last_error = "no attempt"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            response = httpx.get(url + ready_path, timeout=2.0)
            if response.status_code == 200:
                return service
            last_error = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last_error = repr(exc)
        time.sleep(0.25)
    service.stop()
    pytest.fail(
        f"{name} did not become ready at {url}{ready_path} "
        f"(exit code {process.returncode}, last error {last_error}).\n"
        f"--- {name} output ({log}) ---\n{service.output()}"
    )


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chainlit-e2e")


@pytest.fixture(scope="module")
def lgos_api(log_dir: Path) -> Iterator[Service]:
    port = free_port()
    env = base_env()
    env["DEMO_API_OFFLINE_CHUNK_DELAY"] = OFFLINE_CHUNK_DELAY
    service = start_service(
        "lgos-api",
        [
            str(BIN / "lgos"),
            "serve",
            "lgos_demo_api.registry:create_registry",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        cwd=log_dir,  # no developer .env with a real key is picked up
        log_dir=log_dir,
        url=f"http://127.0.0.1:{port}/v1",
        ready_path="/models",
    )
    yield service
    service.stop()


@pytest.fixture(scope="module")
def chainlit_ui(lgos_api: Service, log_dir: Path) -> Iterator[Service]:
    port = free_port()
    env = base_env()
    env["CHAINLIT_APP_ROOT"] = str(REPO / "ui" / "chainlit")
    env["DEMO_CHAINLIT_OPENAI_BASE_URL"] = lgos_api.url
    service = start_service(
        "chainlit",
        [
            str(BIN / "chainlit"),
            "run",
            "ui/chainlit/src/lgos_chainlit/app.py",
            "--headless",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        cwd=REPO,
        log_dir=log_dir,
        url=f"http://127.0.0.1:{port}",
        ready_path="/project/settings",
    )
    yield service
    service.stop()


def test_chat_streams_an_answer_that_follows_the_settings(
    lgos_api: Service, chainlit_ui: Service, log_dir: Path
) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    screenshot = log_dir / "failure.png"

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        # Nothing leaves the machine: the page's CDN stylesheet is refused.
        context.route(
            re.compile(r"^https?://(?!127\.0\.0\.1[:/])"),
            lambda route: route.abort(),
        )
        page = context.new_page()
        try:
            page.goto(chainlit_ui.url)
            expect(page.locator("#chat-input")).to_be_visible(timeout=UI_TIMEOUT_MS)

            # Pick the `chat` graph. Chainlit shows the picker only when
            # there is more than one profile; with one, it is the default.
            profiles = page.locator("#chat-profiles")
            if profiles.is_visible():
                profiles.click()
                page.locator('[data-test="select-item:chat"]').click()
                expect(profiles).to_contain_text("chat")

            # The settings come from the retrieved model's client_settings.
            page.locator("#chat-settings-open-modal").click()
            dialog = page.locator("#chat-settings")
            expect(dialog).to_be_visible(timeout=UI_TIMEOUT_MS)
            expect(dialog).to_contain_text("Use conversation history")
            audience = dialog.locator("#audience")
            expect(audience).to_have_text("general")
            audience.click()
            page.get_by_role("option", name="expert", exact=True).click()
            expect(audience).to_have_text("expert")
            dialog.locator("#confirm").click()
            expect(dialog).to_be_hidden()

            page.locator("#chat-input").fill("What is a river delta?")
            page.keyboard.press("Enter")

            answers = page.locator(
                '.step[data-step-type="assistant_message"] .message-content'
            )
            first = answers.last
            # Watch the answer grow: a partial text proves token streaming.
            partial_seen = False
            deadline = time.monotonic() + ANSWER_TIMEOUT_MS / 1000
            text = ""
            while time.monotonic() < deadline:
                text = first.inner_text() if answers.count() else ""
                if "conversation message" in text:
                    break
                if text.strip():
                    partial_seen = True
                time.sleep(0.05)
            assert "conversation message" in text, f"no full answer: {text!r}"
            assert partial_seen, "the answer appeared at once, not streamed"
            assert 'You said: "What is a river delta?"' in text
            assert "Write for an expert audience" in text
            assert "I saw 1 conversation message." in text
            expect(page.get_by_text("Limited functionality")).to_have_count(0)

            # Second turn with history on: the UI resends the whole ledger
            # (user, assistant answer, user) and the settings again.
            page.locator("#chat-settings-open-modal").click()
            expect(dialog).to_be_visible(timeout=UI_TIMEOUT_MS)
            expect(dialog.locator("#audience")).to_have_text("expert")
            dialog.locator("#use_history").click()
            expect(dialog.locator("#use_history")).to_have_attribute(
                "data-state", "checked"
            )
            dialog.locator("#confirm").click()
            expect(dialog).to_be_hidden()

            page.locator("#chat-input").fill("And an estuary?")
            page.keyboard.press("Enter")
            expect(answers).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
            second = answers.nth(1)
            expect(second).to_contain_text(
                "I saw 3 conversation messages.", timeout=ANSWER_TIMEOUT_MS
            )
            expect(second).to_contain_text('You said: "And an estuary?"')
            expect(second).to_contain_text("Write for an expert audience")
        except BaseException:
            page.screenshot(path=str(screenshot), full_page=True)
            print(f"screenshot: {screenshot}")
            for service in (lgos_api, chainlit_ui):
                print(f"--- {service.name} output ({service.log}) ---")
                print(service.output())
            raise
        finally:
            context.close()
            browser.close()
