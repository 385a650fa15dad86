"""`just demo` on a real Docker engine, checked from the browser.

The tests run in file order against one stack (``stack`` in ``conftest``):
the first `just demo` builds the image and starts every container; the UI
chats, reviews a deep-research plan, runs research in the background on the
Hatchet worker container, and charts an uploaded file through the Files
service container; Ctrl-C stops every container; a second `just demo` finds
the first run's chat in the history (the volumes were kept); `just demo
--gateway --mcp --open-webui` puts LiteLLM in front of the UI and of the
demo MCP server, and brings up Open WebUI with the LGOS pipe (its stand-in
image in CI), which talks to the graphs through the gateway.
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import OpenAI
from playwright.sync_api import expect

from tests.compose_stack.conftest import (
    HEALTHY_WITHIN_SECONDS,
    LONG_RUNNING,
    ONE_SHOT,
    PROJECT,
    ComposeStack,
)
from tests.e2e.chainlit_page import (
    BACKGROUND_STEPS,
    CHART,
    PNG_SIGNATURE,
    QUESTIONS,
    RESEARCH_TIMEOUT_MS,
    TOOL_STEPS,
    choice,
    set_switch,
)
from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    UI_TIMEOUT_MS,
    open_chat,
    send,
    sign_in,
)
from tests.e2e.open_webui_page import ANSWER as OPEN_WEBUI_ANSWER
from tests.e2e.open_webui_page import open_new_chat, wait_until_answered
from tests.e2e.open_webui_page import send as send_to_open_webui
from tests.gateway.mcp_client import list_tools, mcp_turn, server_notes
from tests.procs import free_port
from tests.waiting import wait_until

pytestmark = [pytest.mark.compose, pytest.mark.browser, pytest.mark.timeout(900)]

# Sent in the first run, looked for in the history after the restart.
FIRST_RUN_MESSAGE = f"Hello from the first Compose run {uuid.uuid4().hex[:8]}"
RESEARCH_REQUEST = "Compare LangGraph interrupts and OpenAI Agents SDK approvals"
# Open WebUI's first start in its container runs its database migrations.
OPEN_WEBUI_FIRST_START = 300.0


@pytest.fixture(scope="module")
def healthy(stack: ComposeStack) -> float:
    """Start `just demo` once for the module; seconds until all healthy."""
    stack.start()
    return stack.wait_healthy()


def test_just_demo_chooses_compose_and_every_service_turns_healthy(
    stack: ComposeStack, healthy: float
) -> None:
    print(f"just demo to every service healthy: {healthy:.0f} s")
    assert healthy < HEALTHY_WITHIN_SECONDS
    banner = stack.output()
    # No flag: the script's own probe found the engine.
    assert "LGOS demo with Docker Compose; graphs answer with the offline" in banner
    assert "Why Compose: a Docker engine answers 'docker info'" in banner
    assert f"Chat UI (Chainlit):    {stack.url}" in banner
    # Once healthy, the script says where to go (the containers' own lines
    # name their addresses inside the network, not the published ones).
    wait_until(
        lambda: f"LGOS demo is ready: open {stack.url}" in stack.output(),
        timeout=30,
        message="the ready line",
    )
    containers = {c["Service"]: c for c in stack.containers()}
    assert set(containers) == set(LONG_RUNNING) | set(ONE_SHOT)
    # Only the UI, the API and the corpus pages are published, on loopback.
    published = {
        (c["Service"], p["URL"], p["PublishedPort"])
        for c in containers.values()
        for p in c.get("Publishers") or []
        if p.get("PublishedPort")
    }
    assert published == {
        ("chainlit", "127.0.0.1", stack.ui_port),
        ("api", "127.0.0.1", stack.api_port),
        ("corpus", "127.0.0.1", stack.corpus_port),
    }
    # The API needs the demo's key (the UI and the gateway send it); the
    # health check that Compose runs does not.
    refused = httpx.get(f"{stack.api_url}/models", timeout=10)
    assert refused.status_code == 401, refused.text
    assert refused.json()["error"]["code"] == "invalid_api_key"
    assert httpx.get(f"{stack.api_url}/health", timeout=10).status_code == 200
    models = httpx.get(
        f"{stack.api_url}/models", headers=stack.api_headers, timeout=10
    ).json()["data"]
    assert {"chat", "deep-research", "files"} <= {m["id"] for m in models}
    # The services run as the image's own user, not root.
    assert stack.compose("exec", "-T", "api", "id", "-un").strip() == "lgos"


def test_chat_answers_in_the_browser(
    page: Any, stack: ComposeStack, healthy: float
) -> None:
    open_chat(page, stack, "chat")
    send(page, FIRST_RUN_MESSAGE)
    answer = page.locator(ANSWERS).nth(1)
    expect(answer).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    wait_until(
        lambda: len(answer.inner_text().strip()) > 20,
        timeout=ANSWER_TIMEOUT_MS / 1000,
        message="an answer from the chat graph",
    )
    # The thread was saved to PostgreSQL: it is in the history.
    expect(page.locator('li[id^="thread-"]', has_text=FIRST_RUN_MESSAGE)).to_have_count(
        1, timeout=UI_TIMEOUT_MS
    )


def test_deep_research_plan_review_to_a_cited_report(
    page: Any, stack: ComposeStack, healthy: float
) -> None:
    open_chat(page, stack, "deep-research")
    send(page, RESEARCH_REQUEST)
    plan = page.locator(QUESTIONS).last
    expect(plan).to_contain_text(
        "I plan to research these questions", timeout=ANSWER_TIMEOUT_MS
    )
    choice(page, "Start research").click()
    report = page.locator(ANSWERS).last
    expect(report).to_contain_text("Sources", timeout=RESEARCH_TIMEOUT_MS)
    assert page.locator(TOOL_STEPS).count() >= 1
    # Citations link to the corpus container's published port, and it serves them.
    links = [link.get_attribute("href") or "" for link in report.locator("li a").all()]
    assert links
    for href in links:
        assert href.startswith(f"{stack.corpus_url}/pages/"), href
    assert httpx.get(links[0], timeout=10).status_code == 200


def test_background_research_runs_on_the_worker_container(
    page: Any, stack: ComposeStack, healthy: float
) -> None:
    open_chat(page, stack, "deep-research")
    set_switch(page, "lgos_background", True)
    send(page, RESEARCH_REQUEST)
    expect(page.locator(QUESTIONS).last).to_contain_text(
        "I plan to research these questions", timeout=ANSWER_TIMEOUT_MS
    )
    choice(page, "Start research").click()
    report = page.locator(ANSWERS).last
    expect(report).to_contain_text("Sources", timeout=RESEARCH_TIMEOUT_MS)
    expect(page.locator(BACKGROUND_STEPS).last).to_contain_text(
        "Ran in the background (completed", timeout=UI_TIMEOUT_MS
    )


def test_a_background_run_waits_for_the_worker_container_and_it_completes(
    stack: ComposeStack, healthy: float
) -> None:
    # Without the worker container nothing runs the task: the run stays
    # queued. Started again, the worker picks it up and completes it.
    stack.compose("stop", "worker")
    try:
        created = httpx.post(
            f"{stack.api_url}/responses",
            json={
                "model": "deep-research",
                "input": RESEARCH_REQUEST,
                "tools": [{"type": "web_search"}],
                "background": True,
            },
            headers=stack.api_headers,
            timeout=30,
        )
        assert created.status_code == 200, created.text
        response_id = created.json()["id"]
        time.sleep(5)
        waiting = httpx.get(
            f"{stack.api_url}/responses/{response_id}",
            headers=stack.api_headers,
            timeout=10,
        )
        assert waiting.json()["status"] == "queued", waiting.text
    finally:
        stack.compose("start", "worker")

    def completed() -> bool:
        body = httpx.get(
            f"{stack.api_url}/responses/{response_id}",
            headers=stack.api_headers,
            timeout=10,
        ).json()
        assert body["status"] in ("queued", "in_progress", "completed"), body
        return body["status"] == "completed"

    wait_until(
        completed, timeout=120, message="the worker container to complete the run"
    )
    body = httpx.get(
        f"{stack.api_url}/responses/{response_id}",
        headers=stack.api_headers,
        timeout=10,
    ).json()
    # The run reached the research plan: a question for the user.
    calls = [item["name"] for item in body["output"] if item["type"] == "function_call"]
    assert calls == ["lgos_interrupt"], body["output"]


def test_an_uploaded_file_is_charted_through_the_files_container(
    page: Any, stack: ComposeStack, healthy: float, tmp_path: Path
) -> None:
    source = tmp_path / "fruit.csv"
    source.write_text("fruit,count\napples,3\npears,5\nplums,8\n")
    open_chat(page, stack, "files")
    page.locator('input[type="file"]').first.set_input_files(str(source))
    expect(page.get_by_text("fruit.csv").first).to_be_visible(timeout=UI_TIMEOUT_MS)
    send(page, "Plot this file as a bar chart")
    chart = page.locator(CHART).last
    expect(chart).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    src = chart.get_attribute("src")
    assert src
    image = page.request.get(re.sub(r"^/", f"{stack.url}/", src))
    assert image.ok and image.body().startswith(PNG_SIGNATURE)
    # The upload and the chart are objects in the Files container's volume,
    # written by its non-root user.
    stored = stack.compose(
        "exec", "-T", "files", "sh", "-c", "find /data/files -type f -user lgos | wc -l"
    )
    assert int(stored.strip()) >= 2


def test_ctrl_c_leaves_no_container_running(
    stack: ComposeStack, healthy: float
) -> None:
    assert stack.running(), "the stack should be running before Ctrl-C"
    status = stack.interrupt()
    assert status in (0, 130), stack.output()[-4000:]
    assert stack.running() == []


def test_a_second_just_demo_keeps_the_first_runs_history(
    page: Any, stack: ComposeStack, healthy: float
) -> None:
    volumes_before = set(stack.docker("volume", "ls", "-q").split())
    stack.start()
    print(f"second just demo to every service healthy: {stack.wait_healthy():.0f} s")
    assert {v for v in volumes_before if v.startswith("lgos-e2e_")} == {
        v
        for v in stack.docker("volume", "ls", "-q").split()
        if v.startswith("lgos-e2e_")
    }
    sign_in(page, stack)
    thread = page.locator('li[id^="thread-"]', has_text=FIRST_RUN_MESSAGE)
    expect(thread).to_have_count(1, timeout=UI_TIMEOUT_MS)
    thread.click()
    expect(page).to_have_url(re.compile(r"/thread/"), timeout=UI_TIMEOUT_MS)
    expect(page.get_by_text(FIRST_RUN_MESSAGE).first).to_be_visible(
        timeout=UI_TIMEOUT_MS
    )


def test_just_demo_gateway_mcp_puts_litellm_in_front_of_the_ui_and_the_tools(
    page: Any, stack: ComposeStack, healthy: float
) -> None:
    # The profiles gateway (issue 20) and mcp (issue 21): the UI goes through
    # LiteLLM, reads the models from its /model/info, which the LGOS model sync
    # filled, and reaches the demo MCP server through the gateway's /mcp.
    if stack.process is not None and stack.process.poll() is None:
        assert stack.interrupt() in (0, 130)
    # Open WebUI (issue 23) comes up in the same run, for the next test.
    gateway_port, mcp_port = free_port(), free_port()
    stack.env["DEMO_GATEWAY_PORT"] = str(gateway_port)
    stack.env["DEMO_MCP_PORT"] = str(mcp_port)
    stack.env["DEMO_OPEN_WEBUI_PORT"] = str(free_port())
    stack.start("--gateway", "--mcp", "--open-webui")
    took = stack.wait_healthy(
        HEALTHY_WITHIN_SECONDS + OPEN_WEBUI_FIRST_START,
        extra=("gateway", "mcp", "open-webui"),
        extra_one_shot=("open-webui-provision",),
    )
    print(
        f"just demo --gateway --mcp --open-webui to every service healthy: {took:.0f} s"
    )
    gateway = f"http://127.0.0.1:{gateway_port}"
    banner = stack.output()
    assert f"LiteLLM gateway:       {gateway}/v1" in banner
    assert (
        f"MCP server:            http://127.0.0.1:{mcp_port}/mcp (the UI reaches it "
        f"through the gateway's {gateway}/mcp; Open WebUI calls it directly)"
    ) in banner
    info = httpx.get(
        f"{gateway}/model/info",
        headers={"Authorization": "Bearer lgos-demo"},
        timeout=30,
    ).json()["data"]
    synced = {entry["model_name"]: entry["model_info"].get("lgos") for entry in info}
    lgos = httpx.get(
        f"{stack.api_url}/models/chat", headers=stack.api_headers, timeout=10
    ).json()["lgos"]
    assert synced["chat"] == lgos
    # The UI container is given the gateway's /mcp and its master key; the
    # MCP server runs as the image's user.
    ui_env = stack.compose("exec", "-T", "chainlit", "env")
    assert "DEMO_CHAINLIT_MCP_URL=http://gateway:4000/mcp" in ui_env.splitlines()
    assert "DEMO_CHAINLIT_MCP_API_KEY=lgos-demo" in ui_env.splitlines()
    assert stack.compose("exec", "-T", "mcp", "id", "-un").strip() == "lgos"
    # The gateway lists the demo server's tools (it reaches http://mcp:8005/mcp
    # inside the network), prefixed with the server's name, as the server does.
    key = {"Authorization": "Bearer lgos-demo"}
    direct = {tool.name for tool in list_tools(f"http://127.0.0.1:{mcp_port}/mcp")}
    through = {tool.name for tool in list_tools(f"{gateway}/mcp", key)}
    assert {"convert_units", "save_note", "list_notes", "search_corpus"} <= direct
    assert through == {f"lgos_demo-{name}" for name in direct}
    # The turn the UI runs: the mcp graph through the gateway calls the tools
    # through the gateway's /mcp; the note lands in the mcp_data volume.
    with OpenAI(base_url=f"{gateway}/v1", api_key="lgos-demo", max_retries=0) as sdk:
        calls, answer = mcp_turn(
            sdk,
            "mcp",
            "Convert 5 miles to km and save it as a note",
            f"{gateway}/mcp",
            key,
        )
    assert [name for name, _, _ in calls] == [
        "lgos_demo-convert_units",
        "lgos_demo-save_note",
    ]
    assert "8.047 km" in answer
    notes = stack.compose("exec", "-T", "mcp", "cat", "/data/mcp/notes.json")
    assert "5 mi = 8.047 km" in notes
    owner = stack.compose(
        "exec", "-T", "mcp", "stat", "-c", "%U", "/data/mcp/notes.json"
    )
    assert owner.strip() == "lgos"
    # The browser: the UI chats through the gateway with the synced settings.
    open_chat(page, stack, "chat")
    send(page, "Hello through the gateway")
    answer_item = page.locator(ANSWERS).nth(1)
    wait_until(
        lambda: len(answer_item.inner_text().strip()) > 20,
        timeout=ANSWER_TIMEOUT_MS / 1000,
        message="an answer through the gateway",
    )
    # The chat settings come from model_info.lgos (no limited notice).
    expect(page.locator("#chat-settings-open-modal")).to_be_visible()
    expect(page.locator(ANSWERS, has_text="Limited functionality")).to_have_count(0)


def test_open_webui_on_compose_talks_through_the_gateway(
    page: Any, stack: ComposeStack, healthy: float
) -> None:
    """The profile open-webui, started by the previous test's `just demo
    --gateway --mcp --open-webui`: the one-shot provisioned the pipe, pointed
    at the gateway with its master key; Open WebUI's own MCP client reaches
    the mcp service; paused runs and uploads stay in the open_webui_data
    volume."""
    port = stack.env["DEMO_OPEN_WEBUI_PORT"]
    url = f"http://127.0.0.1:{port}"
    banner = stack.output()
    assert f"Open WebUI:            {url} (the LGOS pipe" in banner
    wait_until(
        lambda: f"LGOS demo is ready: open {stack.url} or {url}" in stack.output(),
        timeout=30,
        message="the ready line naming Open WebUI",
    )
    provisioned = stack.logs("open-webui-provision")
    assert "valves set" in provisioned, provisioned
    # The models are the gateway's (its model sync), offered by the pipe.
    token = httpx.post(
        f"{url}/api/v1/auths/signin",
        json={"email": "admin@localhost", "password": "admin"},
        timeout=60,
    ).json()["token"]
    models = httpx.get(
        f"{url}/api/models", headers={"Authorization": f"Bearer {token}"}, timeout=60
    ).json()["data"]
    assert {"lgos.chat", "lgos.approval", "lgos.mcp"} <= {m["id"] for m in models}
    # MCP tools: Open WebUI calls the mcp service; the graph runs through
    # the gateway.
    open_new_chat(page, url, "mcp")
    send_to_open_webui(page, "Convert 3 miles to km and save it as a note")
    expect(page.locator(OPEN_WEBUI_ANSWER).last).to_contain_text(
        "4.828", timeout=ANSWER_TIMEOUT_MS
    )
    wait_until_answered(page)
    mcp_url = f"http://127.0.0.1:{stack.env['DEMO_MCP_PORT']}"
    assert "3 mi = 4.828 km" in server_notes(mcp_url)
    # An interrupt: the question card, answered, resumes the run; the pipe's
    # ledger of paused runs is in the data volume.
    open_new_chat(page, url, "approval")
    send_to_open_webui(page, "refund 30 dollars")
    expect(page.get_by_text("Approve this refund request?").first).to_be_visible(
        timeout=ANSWER_TIMEOUT_MS
    )
    page.get_by_role("button", name=re.compile(r"^approve")).first.click()
    expect(page.locator(OPEN_WEBUI_ANSWER).last).to_contain_text(
        re.compile("approved", re.I), timeout=ANSWER_TIMEOUT_MS
    )
    ledger = stack.compose("exec", "-T", "open-webui", "ls", "/app/backend/data/lgos")
    assert "ledger.sqlite3" in ledger.split()
    # The gateway served the pipe's requests (its master key, its log).
    assert "/v1/responses" in stack.logs("gateway", tail=400)


def test_the_printed_removal_command_leaves_nothing_of_the_project(
    stack: ComposeStack, healthy: float
) -> None:
    """The banner's "To remove the containers and drop the data" command,
    run as printed after Ctrl-C, removes the optional profiles' containers
    and volumes too (Open WebUI's, the gateway's, the MCP server's)."""
    if stack.process is not None and stack.process.poll() is None:
        assert stack.interrupt() in (0, 130), stack.output()[-4000:]
    volumes = stack.docker("volume", "ls", "-q").split()
    assert f"{PROJECT}_open_webui_data" in volumes
    commands = re.findall(
        r"^  To remove the containers and drop the data: (.+)$",
        stack.output(),
        re.M,
    )
    assert commands, stack.output()[-4000:]
    done = stack.run("bash", "-c", commands[-1])
    assert done.returncode == 0, done.stderr
    left = stack.docker(
        "ps", "-a", "-q", "--filter", f"label=com.docker.compose.project={PROJECT}"
    )
    assert left.split() == []
    volumes = stack.docker("volume", "ls", "-q").split()
    assert [v for v in volumes if v.startswith(f"{PROJECT}_")] == []
