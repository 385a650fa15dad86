"""Open WebUI with the LGOS pipe, in Chromium, against the real demo API.

``open_webui`` runs ``scripts/open-webui.sh`` (the pinned Open WebUI of
``scripts/ensure-open-webui.sh``, installed on first use, then the pipe
provisioned through Open WebUI's admin API) on a free port, with its data in
a temporary folder and the pipe pointed at ``lgos_api``, as
``just demo --open-webui`` does. Authentication is off: the page opens on a
new chat.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import FILES_API_KEY, REPO, Service, base_env, browser_page
from tests.e2e.open_webui_page import (
    ANSWER,
    PNG_DATA_URL,
    attach,
    open_new_chat,
    reload,
    send,
    wait_until_answered,
)
from tests.gateway.mcp_client import server_notes
from tests.procs import free_port
from tests.tiers import needs
from tests.waiting import wait_until

# The first test waits for Open WebUI's first start (see OPEN_WEBUI_STARTUP).
pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.timeout(900)]

# Open WebUI's first start runs its database migrations: a minute or more on
# a busy machine.
OPEN_WEBUI_STARTUP = 600.0
READY_LINE = "open-webui: ready on"


@pytest.fixture(scope="module")
@needs("stack")
def open_webui(
    log_dir: Path, lgos_api: Service, files_service: Service, mcp_server: Service
) -> Iterator[Service]:
    port = free_port()
    env = base_env()
    env.update(
        {
            "DEMO_OPEN_WEBUI_HOST": "127.0.0.1",
            "DEMO_OPEN_WEBUI_PORT": str(port),
            "DEMO_OPEN_WEBUI_DATA_DIR": str(log_dir / "open-webui"),
            "DEMO_OPEN_WEBUI_LGOS_BASE_URL": lgos_api.url,
            "DEMO_OPEN_WEBUI_LGOS_API_KEY": "e2e",
            "DEMO_OPEN_WEBUI_FILES_BASE_URL": f"{files_service.url}/v1",
            "DEMO_OPEN_WEBUI_FILES_API_KEY": FILES_API_KEY,
            # As just demo --open-webui --mcp: the demo MCP server attached.
            "DEMO_OPEN_WEBUI_MCP_URL": f"{mcp_server.url}/mcp",
        }
    )
    log = log_dir / "open-webui.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            ["bash", str(REPO / "scripts" / "open-webui.sh")],
            cwd=log_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    service = Service("open-webui", process, log, f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + OPEN_WEBUI_STARTUP
    while READY_LINE not in service.output():
        if process.poll() is not None or time.monotonic() > deadline:
            service.stop()
            pytest.fail(f"Open WebUI did not start:\n{service.output()[-20_000:]}")
        time.sleep(1)
    yield service
    service.stop()


@pytest.fixture
def owui_page(
    request: pytest.FixtureRequest,
    browser: Any,
    lgos_api: Service,
    open_webui: Service,
    log_dir: Path,
) -> Iterator[Any]:
    yield from browser_page(request, browser, log_dir, (lgos_api, open_webui))


def admin_token(open_webui: Service) -> str:
    """Sign in as Open WebUI's admin (authentication is off)."""
    return httpx.post(
        f"{open_webui.url}/api/v1/auths/signin",
        json={"email": "admin@localhost", "password": "admin"},
        timeout=60,
    ).json()["token"]


def test_models_are_the_graphs(open_webui: Service) -> None:
    token = admin_token(open_webui)
    models = httpx.get(
        f"{open_webui.url}/api/models",
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    ).json()["data"]
    ids = {model["id"] for model in models}
    assert {"lgos.writer", "lgos.citations", "lgos.approval"} <= ids


def test_writer_shows_commentary_and_answer(
    owui_page: Any, open_webui: Service
) -> None:
    from playwright.sync_api import expect

    page = owui_page
    open_new_chat(page, open_webui.url, "writer")
    send(page, "tea")
    # Commentary shows as a status line while the steps run...
    expect(
        page.get_by_text(re.compile("Outlining the answer|Drafting section"))
    ).to_be_visible(timeout=60_000)
    # ...and the answer streams below it; a closing line sums the steps up,
    # and unfolds to every step.
    expect(page.get_by_text('Here is my answer to "tea"')).to_be_visible(
        timeout=120_000
    )
    wait_until_answered(page)
    expect(page.get_by_text(re.compile(r"^Done after \d+ steps$"))).to_be_visible()
    page.get_by_role("button", name="Toggle status history").last.click()
    expect(page.get_by_text("Polishing the final answer")).to_have_count(1)
    # Only the final answer is in the transcript.
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text("Why it matters", timeout=120_000)
    expect(answer).not_to_contain_text("Drafting section")


def test_functions_run_in_the_pipe(owui_page: Any, open_webui: Service) -> None:
    from playwright.sync_api import expect

    page = owui_page
    open_new_chat(page, open_webui.url, "functions")
    send(page, "What time is it in Tokyo, and roll two dice?")
    # The graph wrote its answer from what the pipe's functions returned.
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text(
        "answers from the results as they came back", timeout=120_000
    )
    expect(answer).to_contain_text('get_current_time(timezone="Asia/Tokyo")')
    expect(answer).to_contain_text("roll_dice(sides=6, count=2)")
    expect(answer).to_contain_text(re.compile(r"rolls: \[\d+, \d+\], total: \d+"))


def test_approval_question_in_the_dialog(owui_page: Any, open_webui: Service) -> None:
    from playwright.sync_api import expect

    page = owui_page
    open_new_chat(page, open_webui.url, "approval")
    send(page, "refund 30 dollars")
    # The lgos_interrupt question opens Open WebUI's question card, its
    # choices as options; picking one answers and resumes the run.
    expect(page.get_by_text("Approve this refund request?").first).to_be_visible(
        timeout=120_000
    )
    page.get_by_role("button", name=re.compile(r"^approve")).first.click()
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text(re.compile("approved", re.I), timeout=120_000)


def test_citations_show_as_sources(owui_page: Any, open_webui: Service) -> None:
    from playwright.sync_api import expect

    page = owui_page
    open_new_chat(page, open_webui.url, "citations")
    send(page, "what is langgraph?")
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text("A checkpointer saves", timeout=120_000)
    wait_until_answered(page)
    # Each url_citation is an Open WebUI source, listed under the answer.
    sources = page.get_by_role("button", name="Toggle 3 sources")
    expect(sources).to_be_visible(timeout=30_000)
    sources.click()
    expect(
        page.get_by_role(
            "button", name="View source: 1 LangGraph: state, nodes and edges"
        )
    ).to_be_visible()


CSV = "fruit,count\napples,3\npears,5\nplums,8\n"


def test_csv_upload_and_chart(
    owui_page: Any, open_webui: Service, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    page = owui_page
    source = tmp_path / "fruit.csv"
    source.write_text(CSV)
    open_new_chat(page, open_webui.url, "files")
    attach(page, source)
    send(page, "Draw a chart of the counts")
    # The pipe uploads the CSV to the Files service as an input_file; the
    # graph's display_file chart is shown as an image of the answer.
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text("count-by-fruit.png", timeout=120_000)
    chart = page.locator(PNG_DATA_URL).last
    expect(chart).to_be_visible(timeout=30_000)
    assert chart.evaluate("img => img.complete && img.naturalWidth > 0")
    # The image is kept with the chat: it is back after a reload.
    reload(page)
    expect(page.locator(PNG_DATA_URL).last).to_be_visible(timeout=60_000)


def test_a_table_opens_in_the_file_view(
    owui_page: Any, open_webui: Service, tmp_path: Path
) -> None:
    """A display_file result that is not an image (a CSV table) shows as a
    file chip under the answer; it opens Open WebUI's file view with the
    table's text, and it is back after a reload."""
    from playwright.sync_api import expect

    page = owui_page
    source = tmp_path / "fruit.csv"
    source.write_text(CSV)
    open_new_chat(page, open_webui.url, "files")
    attach(page, source)
    send(page, "Make a summary table of this file")
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text(".csv)", timeout=120_000)
    wait_until_answered(page)
    # The answer names the table; its chip (name and size) is above it.
    found = re.search(r"\(([\w.-]+\.csv)\)", answer.inner_text())
    assert found, answer.inner_text()
    name = re.compile(rf"^{re.escape(found.group(1))}\b")
    chip = page.get_by_role("button", name=name)
    expect(chip).to_have_count(1)
    chip.click()
    view = page.get_by_role("dialog")
    expect(view).to_contain_text("column,count,sum,min,max,mean")
    expect(view).to_contain_text("count,3,16.0")
    page.keyboard.press("Escape")
    reload(page)
    expect(page.get_by_role("button", name=name)).to_have_count(1, timeout=60_000)


@contextlib.contextmanager
def user_valves(open_webui: Service, **values: Any) -> Iterator[None]:
    """Set the pipe's user valves (what Controls -> Valves saves) for a test."""
    headers = {"Authorization": f"Bearer {admin_token(open_webui)}"}
    url = f"{open_webui.url}/api/v1/functions/id/lgos/valves/user"
    saved = httpx.get(url, headers=headers, timeout=60).json() or {}
    update = httpx.post(
        f"{url}/update", headers=headers, json={**saved, **values}, timeout=60
    )
    assert update.status_code == 200, update.text
    try:
        yield
    finally:
        httpx.post(f"{url}/update", headers=headers, json=saved, timeout=60)


def test_a_setting_changed_in_the_valves_panel_reaches_the_graph(
    owui_page: Any, open_webui: Service
) -> None:
    """The Valves panel (the button beside the chat input), clicked as a user
    does: ``chat: Audience`` switched from *Default* to *Custom* ``expert``
    and saved; the next request sends it as ``metadata.lgos_settings``.

    The user's valves are put back afterwards.
    """
    from playwright.sync_api import expect

    page = owui_page
    with user_valves(open_webui):
        open_new_chat(page, open_webui.url, "chat")
        page.get_by_role("button", name="Valves").click()
        dialog = page.get_by_role("dialog")
        title = dialog.locator(
            "div.flex.w-full.justify-between", has_text="chat: Audience"
        )
        field = title.locator("xpath=..")
        field.get_by_role("button", name="Default").click()
        expect(field.get_by_role("button", name="Custom")).to_be_visible()
        field.locator("select").select_option("expert")
        dialog.get_by_role("button", name="Save").click()
        # Saved as the user's valve, which the pipe reads on every request.
        headers = {"Authorization": f"Bearer {admin_token(open_webui)}"}
        saved_url = f"{open_webui.url}/api/v1/functions/id/lgos/valves/user"

        def saved() -> Any:
            return httpx.get(saved_url, headers=headers, timeout=60).json() or {}

        wait_until(
            lambda: saved().get("chat__audience") == "expert",
            timeout=30,
            message="the valve saved",
        )
        page.keyboard.press("Escape")
        send(page, "hello there")
        # The offline chat graph echoes the system prompt it wrote.
        answer = page.locator(ANSWER).last
        expect(answer).to_contain_text("expert audience", timeout=120_000)


def research_to_a_cited_report(page: Any, open_webui: Service) -> None:
    """Ask deep-research, start the plan in the question card, see the report."""
    from playwright.sync_api import expect

    open_new_chat(page, open_webui.url, "deep-research")
    send(page, "Compare how LangGraph and the OpenAI Agents SDK pause for approval")
    # The plan review is asked in Open WebUI's question card.
    expect(page.get_by_text("I plan to research").first).to_be_visible(timeout=150_000)
    page.get_by_role("button", name=re.compile(r"^Start research")).first.click()
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text("research report", timeout=150_000)
    wait_until_answered(page)
    # The report's citations are the answer's sources.
    expect(
        page.get_by_role("button", name=re.compile(r"Toggle \d+ sources?"))
    ).to_be_visible(timeout=30_000)


def test_deep_research_plan_review_to_a_cited_report(
    owui_page: Any, open_webui: Service
) -> None:
    research_to_a_cited_report(owui_page, open_webui)


def test_deep_research_in_the_background(owui_page: Any, open_webui: Service) -> None:
    page = owui_page
    with user_valves(open_webui, deep_research__run_in_background=True):
        research_to_a_cited_report(page, open_webui)
    # The runs were polled: the chat's saved status history says so.
    chat_id = page.url.rstrip("/").rsplit("/c/", 1)[-1]
    chat = httpx.get(
        f"{open_webui.url}/api/v1/chats/{chat_id}",
        headers={"Authorization": f"Bearer {admin_token(open_webui)}"},
        timeout=60,
    )
    assert chat.status_code == 200, chat.text
    assert "Running in the background" in chat.text


def test_plain_openai_connection_still_chats(
    open_webui: Service, lgos_api: Service
) -> None:
    """Without the pipe: Open WebUI's own OpenAI connection to LGOS (Chat
    Completions) answers with the non-interrupt graphs."""
    headers = {"Authorization": f"Bearer {admin_token(open_webui)}"}
    config = f"{open_webui.url}/openai/config"
    saved = httpx.get(config, headers=headers, timeout=60).json()
    plain = {
        "ENABLE_OPENAI_API": True,
        "OPENAI_API_BASE_URLS": [lgos_api.url],
        "OPENAI_API_KEYS": ["e2e"],
        "OPENAI_API_CONFIGS": {"0": {"enable": True, "prefix_id": "plain"}},
    }
    update = httpx.post(f"{config}/update", headers=headers, json=plain, timeout=60)
    assert update.status_code == 200, update.text
    try:
        models = httpx.get(
            f"{open_webui.url}/api/models", headers=headers, timeout=120
        ).json()["data"]
        assert "plain.chat" in {model["id"] for model in models}
        answer = httpx.post(
            f"{open_webui.url}/api/chat/completions",
            headers=headers,
            json={
                "model": "plain.chat",
                "messages": [{"role": "user", "content": "hello plain"}],
                "stream": False,
            },
            timeout=120,
        )
        assert answer.status_code == 200, answer.text
        text = answer.json()["choices"][0]["message"]["content"]
        assert 'You said: "hello plain"' in text
    finally:
        httpx.post(
            f"{config}/update",
            headers=headers,
            json={key: saved.get(key) for key in plain},
            timeout=60,
        )


def test_mcp_tools_run_in_the_pipe(
    owui_page: Any, open_webui: Service, mcp_server: Service
) -> None:
    """The demo MCP server attached as Open WebUI's tool server (provisioned
    as a default tool of the ``mcp`` model): Open WebUI connects it and hands
    the pipe its tools; the graph's calls run there, shown as status lines."""
    from playwright.sync_api import expect

    page = owui_page
    open_new_chat(page, open_webui.url, "mcp")
    send(page, "Convert 7 miles to km and save it as a note")
    answer = page.locator(ANSWER).last
    expect(answer).to_contain_text("11.265", timeout=120_000)
    wait_until_answered(page)
    # The calls' status lines end with a closing line, marked done.
    expect(page.get_by_text(re.compile(r"^Done after \d+ steps?$"))).to_be_visible()
    page.get_by_role("button", name="Toggle status history").last.click()
    for tool in ("convert_units", "save_note"):
        line = page.get_by_text(re.compile(rf"^Ran lgos-demo_{tool}\(.* on MCP → "))
        expect(line).to_have_count(1)
    assert "7 mi = 11.265 km" in server_notes(mcp_server.url)
