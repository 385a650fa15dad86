"""End to end: the Chainlit UI behind the demo's LiteLLM gateway, in Chromium.

``gateway`` (``conftest``) is the real pinned LiteLLM proxy that ``python -m
lgos_demo_gateway serve`` runs in front of the demo API, synced so that its
``/model/info`` carries every graph's ``lgos`` object; the UI talks only to
it (``DEMO_CHAINLIT_DISCOVERY=litellm``, the master key as its API key), and
to the Files service for attachments. ``bare_gateway`` is the same proxy on a
configuration without ``lgos`` (no sync ran): the UI still chats there, under
the limited-functionality notice.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
import openai
import pytest
from playwright.sync_api import expect

from lgos_chainlit.model_catalog import (
    discover_models,
    load_session,
)
from lgos_chainlit.session import (
    ChatSession,
)
from lgos_client.api_errors import format_api_error
from lgos_client.extension import ModelCapabilities
from lgos_client.gateway_models import NO_GATEWAY_EXTENSION
from tests.e2e.chainlit_page import (
    BACKGROUND_STEPS,
    CHART,
    CSV,
    QUESTIONS,
    RESEARCH_TIMEOUT_MS,
    choice,
    set_switch,
)
from tests.e2e.conftest import (
    ANSWER_TIMEOUT_MS,
    ANSWERS,
    GATEWAY_KEY,
    UI_TIMEOUT_MS,
    Service,
    browser_page,
    choose_expert_audience,
    choose_profile,
    lgos_models,
    model_info,
    open_chat,
    send,
    sign_in,
    stop_background_run,
)
from tests.e2e.mcp_steps import MCP_TOOLS, attached_line, convert_and_save
from tests.gateway.mcp_client import server_notes
from tests.waiting import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.stack, pytest.mark.timeout(300)]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
T = TypeVar("T")


@pytest.fixture
def gateway_page(
    request: pytest.FixtureRequest,
    browser: Any,
    lgos_api: Service,
    gateway: Service,
    chainlit_gateway_ui: Service,
    files_service: Service,
    log_dir: Path,
) -> Iterator[Any]:
    yield from browser_page(
        request,
        browser,
        log_dir,
        (lgos_api, gateway, chainlit_gateway_ui, files_service),
    )


@pytest.fixture
def bare_page(
    request: pytest.FixtureRequest,
    browser: Any,
    lgos_api: Service,
    bare_gateway: Service,
    chainlit_bare_gateway_ui: Service,
    log_dir: Path,
) -> Iterator[Any]:
    yield from browser_page(
        request, browser, log_dir, (lgos_api, bare_gateway, chainlit_bare_gateway_ui)
    )


def lgos_extension(lgos_api: Service, model: str) -> dict[str, Any]:
    """LGOS's own ``lgos`` object of ``model`` (``GET /v1/models/{id}``)."""
    return httpx.get(f"{lgos_api.url}/models/{model}", timeout=10).json()["lgos"]


def gateway_models(gateway: Service) -> list[dict[str, Any]]:
    response = httpx.get(
        f"{gateway.url}/v1/models",
        headers={"Authorization": f"Bearer {GATEWAY_KEY}"},
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["data"]


def test_the_picker_describes_the_models_from_model_info(
    gateway_page: Any, chainlit_gateway_ui: Service, gateway: Service, lgos_api: Service
) -> None:
    page = gateway_page
    # The gateway's /v1/models has no descriptions: they come from /model/info.
    assert all("lgos" not in model for model in gateway_models(gateway))
    info = {entry["model_name"]: entry["model_info"] for entry in model_info(gateway)}
    writer = lgos_extension(lgos_api, "writer")["description"]
    assert info["writer"]["lgos"]["description"] == writer

    open_chat(page, chainlit_gateway_ui, "chat")
    chat = lgos_extension(lgos_api, "chat")["description"]
    welcome = page.locator(ANSWERS).first
    expect(welcome).to_have_text(f"chat — {chat}")
    expect(page.get_by_text("Limited functionality")).to_have_count(0)

    # The picker lists every graph; an item's description shows on hover.
    page.locator("#chat-profiles").click()
    items = page.locator('[data-test^="select-item:"]')
    names = [
        (item.get_attribute("data-test") or "").split(":", 1)[1] for item in items.all()
    ]
    assert names == [entry["model_name"] for entry in model_info(gateway)]
    page.locator('[data-test="select-item:writer"]').hover()
    card = page.locator('#chat-profile-description[data-state="open"]')
    expect(card).to_be_visible(timeout=UI_TIMEOUT_MS)
    expect(card).to_contain_text(writer[:60])

    # Choosing another graph starts its chat, welcomed with its description.
    page.locator('[data-test="select-item:writer"]').click()
    confirm = page.get_by_role("button", name="Confirm")
    if confirm.is_visible():
        confirm.click()  # "start a new chat?" when one is under way
    expect(page.locator("#chat-profiles")).to_contain_text("writer")
    expect(page.locator(ANSWERS).first).to_have_text(
        f"writer — {writer}", timeout=UI_TIMEOUT_MS
    )


def test_chat_settings_from_model_info_reach_the_graph(
    gateway_page: Any, chainlit_gateway_ui: Service
) -> None:
    page = gateway_page
    open_chat(page, chainlit_gateway_ui, "chat")

    # lgos.client_settings, read from the gateway's /model/info.
    choose_expert_audience(page)

    # metadata.lgos_settings went through the gateway to LGOS.
    send(page, "What is a river delta?")
    answer = page.locator(ANSWERS).nth(1)
    expect(answer).to_contain_text(
        "I saw 1 conversation message.", timeout=ANSWER_TIMEOUT_MS
    )
    expect(answer).to_contain_text('You said: "What is a river delta?"')
    expect(answer).to_contain_text("Write for an expert audience")


def test_commentary_citations_and_functions_through_the_gateway(
    gateway_page: Any, chainlit_gateway_ui: Service
) -> None:
    page = gateway_page
    # Commentary: each step of the writer, apart from the answer.
    open_chat(page, chainlit_gateway_ui, "writer")
    send(page, "What is a river delta?")
    steps = page.locator('.step[data-step-type="run"]')
    expect(page.locator(ANSWERS).last.locator("h3")).to_have_count(
        3, timeout=ANSWER_TIMEOUT_MS
    )
    expect(steps).to_have_count(5)
    expect(steps.first).to_have_text("Outlining the answer in 3 sections")
    assert "Outlining the answer" not in page.locator(ANSWERS).last.inner_text()

    # Citations: linked markers and a Sources list.
    choose_profile(page, "citations")
    send(page, "Compare Chat Completions and the Responses API")
    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text("Sources", timeout=ANSWER_TIMEOUT_MS)
    markers = answer.locator("a", has_text=re.compile(r"^\[\d\]$"))
    expect(markers).to_have_count(2)
    expect(answer.locator("li")).to_have_count(2)

    # Client functions: the UI runs them and sends the results back.
    choose_profile(page, "functions")
    send(page, "What time is it in Tokyo, and roll two dice?")
    expect(page.locator(ANSWERS).last).to_contain_text(
        "answers from the results as they came back", timeout=ANSWER_TIMEOUT_MS
    )
    tools = page.locator('.step[data-step-type="tool"]')
    expect(tools).to_have_count(2)
    expect(tools.first).to_contain_text("Ran get_current_time")
    expect(tools.last).to_contain_text("Ran roll_dice")
    expect(page.locator(ANSWERS).last).to_contain_text(
        'get_current_time(timezone="Asia/Tokyo") returned'
    )


def test_mcp_tools_through_the_gateways_mcp_endpoint(
    gateway_page: Any,
    chainlit_gateway_ui: Service,
    gateway: Service,
    mcp_server: Service,
) -> None:
    # As `just demo --gateway --mcp` sets it up: the UI lists and calls the
    # demo MCP server's tools through LiteLLM's /mcp, which names them
    # lgos_demo-<tool>; the graph picks them all the same.
    page = gateway_page
    open_chat(page, chainlit_gateway_ui, "mcp")
    attached = attached_line(page)
    expect(attached).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(attached).to_contain_text(f"{gateway.url}/mcp")
    for tool in MCP_TOOLS:
        expect(attached).to_contain_text(f"lgos_demo-{tool}")

    convert_and_save(
        page, tool_prefix="lgos_demo-", server=urlsplit(gateway.url).netloc
    )
    # The gateway called the demo server: the note is there.
    assert server_notes(mcp_server.url)[0] == "5 mi = 8.047 km"


def test_deep_research_plan_review_and_resume_through_the_gateway(
    gateway_page: Any, chainlit_gateway_ui: Service
) -> None:
    page = gateway_page
    open_chat(page, chainlit_gateway_ui, "deep-research")
    send(page, "Compare LangGraph interrupts and OpenAI Agents SDK approvals")

    plan = page.locator(QUESTIONS).last
    expect(plan).to_contain_text(
        "I plan to research these questions", timeout=ANSWER_TIMEOUT_MS
    )
    before = plan.locator("ol li").count()
    assert before >= 3
    removed = plan.locator("ol li").nth(1).inner_text()

    # A typed edit resumes the paused run (previous_response_id is the
    # gateway's own Response ID) and the graph asks again.
    choice(page, "Edit plan").click()
    send(page, "remove 2")
    revised = page.locator(QUESTIONS)
    expect(revised).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    expect(revised.locator("ol li")).to_have_count(before - 1)
    assert removed not in revised.inner_text()

    choice(page, "Start research").click()
    report = page.locator(ANSWERS).last
    expect(report).to_contain_text("Sources", timeout=RESEARCH_TIMEOUT_MS)
    markers = report.locator("a", has_text=re.compile(r"^\[\d+\]$"))
    assert markers.count() >= 1
    expect(page.get_by_text("Limited functionality")).to_have_count(0)


def test_stop_cancels_a_background_run_through_the_gateway(
    gateway_page: Any, chainlit_gateway_ui: Service, lgos_api: Service
) -> None:
    """Stop sends ``responses.cancel`` with the gateway's Response ID; LiteLLM
    turns it back into LGOS's ``resp_lg_`` ID, and LGOS gets the cancel."""
    page = gateway_page
    cancels = re.compile(r"/responses/(resp_lg_\w+)/cancel")
    seen = len(cancels.findall(lgos_api.output()))
    open_chat(page, chainlit_gateway_ui, "deep-research")
    set_switch(page, "lgos_background", True)
    send(page, "Compare LangGraph interrupts and OpenAI Agents SDK approvals")
    expect(page.locator(BACKGROUND_STEPS)).to_have_count(1, timeout=UI_TIMEOUT_MS)
    stop_background_run(page)
    wait_until(
        lambda: len(cancels.findall(lgos_api.output())) > seen,
        timeout=UI_TIMEOUT_MS / 1000,
        interval=0.2,
        message="the cancel to reach LGOS through the gateway",
    )
    response_id = cancels.findall(lgos_api.output())[-1]
    status = httpx.get(f"{lgos_api.url}/responses/{response_id}", timeout=10)
    assert status.json()["status"] in {"cancelled", "completed"}


def test_background_research_polls_through_the_gateway(
    gateway_page: Any, chainlit_gateway_ui: Service
) -> None:
    page = gateway_page
    open_chat(page, chainlit_gateway_ui, "deep-research")
    set_switch(page, "lgos_background", True)
    send(page, "Compare LangGraph interrupts and OpenAI Agents SDK approvals")
    expect(page.locator(QUESTIONS).last).to_contain_text(
        "I plan to research these questions", timeout=ANSWER_TIMEOUT_MS
    )
    choice(page, "Start research").click()
    expect(page.locator(BACKGROUND_STEPS)).to_have_count(2, timeout=UI_TIMEOUT_MS)
    report = page.locator(ANSWERS).last
    expect(report).to_contain_text("Sources", timeout=RESEARCH_TIMEOUT_MS)
    expect(page.locator(BACKGROUND_STEPS).last).to_contain_text(
        "Ran in the background (completed"
    )


def test_an_attached_csv_is_charted_with_display_file(
    gateway_page: Any, chainlit_gateway_ui: Service, tmp_path: Path
) -> None:
    page = gateway_page
    name = f"fruit-{uuid.uuid4().hex[:6]}.csv"
    source = tmp_path / name
    source.write_text(CSV)
    open_chat(page, chainlit_gateway_ui, "files")
    page.locator('input[type="file"]').first.set_input_files(str(source))
    expect(page.get_by_text(name).first).to_be_visible(timeout=UI_TIMEOUT_MS)
    send(page, "Plot the counts in this file")

    # The graph read the attachment (an input_file through the gateway),
    # drew a chart, and called display_file: the UI shows the PNG.
    image = page.locator(CHART).last
    expect(image).to_be_visible(timeout=ANSWER_TIMEOUT_MS)
    expect(page.locator('.step[data-step-type="tool"]').last).to_contain_text(
        "Showed", timeout=ANSWER_TIMEOUT_MS
    )
    src = image.get_attribute("src")
    assert src
    served = page.request.get(src if src.startswith("http") else page.url + src)
    assert served.ok, served.status
    assert served.body().startswith(PNG_SIGNATURE)
    expect(page.locator(ANSWERS).last).to_contain_text(
        "Here is the chart of", timeout=ANSWER_TIMEOUT_MS
    )


def test_without_a_sync_the_ui_still_chats_with_the_notice(
    bare_page: Any,
    chainlit_bare_gateway_ui: Service,
    bare_gateway: Service,
) -> None:
    page = bare_page
    assert not any(
        (entry.get("model_info") or {}).get("lgos")
        for entry in model_info(bare_gateway)
    )
    sign_in(page, chainlit_bare_gateway_ui)
    welcome = page.locator(ANSWERS).first
    expect(welcome).to_have_text("Chatting with chat.", timeout=UI_TIMEOUT_MS)
    notice = page.locator(ANSWERS, has_text="Limited functionality")
    expect(notice).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(notice).to_contain_text("has the LGOS model sync run?")
    # No settings without the extension.
    expect(page.locator("#chat-settings-open-modal")).to_have_count(0)

    send(page, "What is a river delta?")
    answer = page.locator(ANSWERS).last
    expect(answer).to_contain_text(
        'You said: "What is a river delta?"', timeout=ANSWER_TIMEOUT_MS
    )
    # Plain chat: the default audience, no settings sent.
    expect(answer).to_contain_text("Write for a general audience")


def test_a_wrapped_lgos_error_reads_as_lgos_wrote_it(
    gateway: Service, lgos_api: Service
) -> None:
    """An invalid setting through the real gateway: LiteLLM's 400 wraps LGOS's
    error in its message text; the UI's formatter reads LGOS's message back."""
    bad = {"lgos_settings": json.dumps({"audience": "alien"})}
    direct = openai.OpenAI(base_url=lgos_api.url, api_key="x", max_retries=0)
    through = openai.OpenAI(
        base_url=f"{gateway.url}/v1", api_key=GATEWAY_KEY, max_retries=0
    )
    with pytest.raises(openai.BadRequestError) as from_lgos:
        direct.responses.create(model="chat", input="hi", metadata=bad)
    with pytest.raises(openai.BadRequestError) as wrapped:
        through.responses.create(model="chat", input="hi", metadata=bad)

    assert wrapped.value.message.startswith("Error code: 400 - litellm.")
    assert format_api_error(wrapped.value) == format_api_error(from_lgos.value)
    assert format_api_error(wrapped.value) == (
        "HTTP 400: Invalid runtime setting 'audience': Input should be "
        "'general', 'beginner' or 'expert' (param: metadata.lgos_settings)"
    )


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine in a thread of its own (Playwright's loop owns this one)."""

    async def main() -> T:
        return await make()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result(timeout=60)


def discover(
    base_url: str, key: str, model: str
) -> tuple[list[ModelCapabilities], ChatSession]:
    """What the UI discovers with ``DEMO_CHAINLIT_DISCOVERY=litellm``."""

    async def both() -> tuple[list[ModelCapabilities], ChatSession]:
        async with openai.AsyncOpenAI(
            base_url=base_url, api_key=key, max_retries=0
        ) as client:
            models = await discover_models(client, "litellm")
            session = await load_session(client, model, discovery="litellm")
            return models, session

    return run_async(both)


def test_litellm_discovery_against_the_synced_gateway_matches_lgos(
    gateway: Service, lgos_api: Service
) -> None:
    models, session = discover(f"{gateway.url}/v1", GATEWAY_KEY, "server-tools")

    assert [model.model_id for model in models] == lgos_models(lgos_api)
    assert not any(model.limited for model in models)
    extension = lgos_extension(lgos_api, "server-tools")
    assert session.capabilities.description == extension["description"]
    assert list(session.capabilities.server_tools) == extension["server_tools"]


def test_litellm_discovery_on_a_gateway_without_sync_is_limited(
    bare_gateway: Service, lgos_api: Service
) -> None:
    models, session = discover(f"{bare_gateway.url}/v1", GATEWAY_KEY, "chat")

    assert [model.model_id for model in models] == lgos_models(lgos_api)
    assert {model.limitation for model in models} == {NO_GATEWAY_EXTENSION}
    assert session.notice is not None
    assert session.widgets == []


def test_litellm_discovery_without_model_info_falls_back_to_v1_models(
    lgos_api: Service,
) -> None:
    """LGOS itself serves no /model/info (404): the UI lists /v1/models, which
    there still carries the extension, so nothing is limited."""
    models, session = discover(lgos_api.url, "lgos-demo", "chat")

    assert [model.model_id for model in models] == lgos_models(lgos_api)
    assert not any(model.limited for model in models)
    assert [widget.id for widget in session.widgets] == ["use_history", "audience"]
