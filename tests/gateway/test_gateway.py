"""The demo's LiteLLM gateway, for real: the pinned proxy in front of `lgos serve`.

What LiteLLM's proxy (the release `scripts/ensure-litellm.sh` pins, no
database) does on the way, each shown by a test below:

- ``GET /v1/models`` is rebuilt from its configuration with the standard
  fields only: the ``lgos`` extension is gone. ``GET /model/info`` carries
  ``model_info.lgos`` and ``model_info.description`` because the sync puts
  them in the configuration.
- Response IDs are replaced by LiteLLM's own (encrypted with its master key),
  a new one on every answer: a background run's retrieve returns another ID
  than its create, and every one of them works for retrieve, cancel and
  ``previous_response_id``. Call IDs, ``input_file`` parts by ``file_id``
  and client function calls (``display_file``) pass unchanged.
- Responses streaming is real (the proxy forwards LGOS's stream), unlike the
  LiteLLM SDK's default fake streaming (tests/clients/test_litellm.py).
- An LGOS error keeps its status, but ``code`` becomes the status as a
  string, ``param`` is kept only by Chat Completions, and LGOS's message is
  wrapped in LiteLLM's text.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI

import tests.clients.matrix as m
from tests.demo_services import DEMO_FILES
from tests.gateway.conftest import MASTER_KEY, STARTUP_TIMEOUT, Gateway
from tests.procs import ROOT, free_port, lgos_command, running
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def client(gateway: Gateway) -> Iterator[OpenAI]:
    """The OpenAI SDK with the gateway's base URL and master key (no retries)."""
    with OpenAI(
        base_url=gateway.openai_base_url, api_key=MASTER_KEY, max_retries=0
    ) as sdk:
        yield sdk


def lgos_models(base_url: str) -> dict[str, dict[str, Any]]:
    """``{id: lgos}`` from LGOS's own ``GET /v1/models/{id}``, every graph."""
    ids = [entry["id"] for entry in httpx.get(f"{base_url}/models").json()["data"]]
    return {
        model_id: httpx.get(f"{base_url}/models/{model_id}").json()["lgos"]
        for model_id in ids
    }


def served_lgos(gateway: Gateway) -> dict[str, Any]:
    return {name: info.get("lgos") for name, info in gateway.model_info().items()}


def text_of(item: Any) -> str:
    return "".join(part.text for part in item.content)


def test_model_info_carries_lgos(gateway: Gateway, demo_api_url: str) -> None:
    expected = lgos_models(demo_api_url)
    assert len(expected) >= 8
    info = gateway.model_info()
    assert {name: item["lgos"] for name, item in info.items()} == expected
    for name, item in info.items():
        assert item["description"] == expected[name]["description"]
    # What the sync exists for: LiteLLM's /v1/models has no lgos.
    listing = httpx.get(
        f"{gateway.openai_base_url}/models",
        headers={"Authorization": f"Bearer {MASTER_KEY}"},
    ).json()
    assert sorted(entry["id"] for entry in listing["data"]) == sorted(expected)
    assert all("lgos" not in entry for entry in listing["data"])
    # Only the master key is accepted: without a database, LiteLLM cannot look
    # another key up and says so; with no key at all it answers 500.
    for route in ("/model/info", "/v1/models"):
        refused = httpx.get(
            f"{gateway.url}{route}", headers={"Authorization": "Bearer wrong"}
        )
        assert refused.status_code == 400
        assert refused.json()["error"]["message"] == "No connected db."
        assert httpx.get(f"{gateway.url}{route}").status_code == 500


def test_responses_stream_is_real(client: OpenAI) -> None:
    events = list(
        client.responses.create(
            model="writer",
            input=m.WRITER_PROMPT,
            metadata=m.WRITER_SETTINGS,
            stream=True,
        )
    )
    types = [event.type for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    done = [e.item for e in events if e.type == "response.output_item.done"]
    # Commentary arrives: LiteLLM's fake streaming would have only the answer.
    assert [(item.phase, text_of(item)) for item in done] == [  # type: ignore[union-attr]
        *(("commentary", text) for text in m.WRITER_COMMENTARY),
        ("final_answer", m.WRITER_ANSWER),
    ]
    answer_id = done[-1].id
    deltas = [
        e.delta
        for e in events
        if e.type == "response.output_text.delta" and e.item_id == answer_id
    ]
    assert "".join(deltas) == m.WRITER_ANSWER
    # LGOS's word-sized pieces, not LiteLLM's replay in 5-character chunks.
    assert len({len(delta) for delta in deltas}) > 3
    # The Response carries LiteLLM's ID, not LGOS's.
    created = events[0].response  # type: ignore[union-attr]
    assert not m.RESPONSE_ID.fullmatch(created.id)
    assert created.id.startswith("resp_")


def test_citations_stream_through(client: OpenAI) -> None:
    events = list(
        client.responses.create(
            model="citations", input=m.CITATIONS_PROMPT, stream=True
        )
    )
    added = [
        e.annotation
        for e in events
        if e.type == "response.output_text.annotation.added"
    ]
    answer = events[-1].response.output[-1]  # type: ignore[union-attr]
    assert text_of(answer) == m.CITATIONS_ANSWER
    assert m.cited(m.CITATIONS_ANSWER, added) == m.CITATIONS
    assert m.cited(m.CITATIONS_ANSWER, answer.content[0].annotations) == m.CITATIONS  # type: ignore[union-attr]


def test_interrupt_resume(client: OpenAI) -> None:
    paused = client.responses.create(model="approval", input=m.REFUND_PROMPT)
    assert not m.RUN_RESPONSE_ID.fullmatch(paused.id)  # LiteLLM's own ID
    [call] = paused.output
    assert call.type == "function_call"
    assert call.name == m.INTERRUPT_FUNCTION
    assert m.INTERRUPT_CALL_ID.fullmatch(call.call_id)  # passed unchanged
    assert json.loads(call.arguments) == m.REFUND_INTERRUPT
    done = client.responses.create(
        model="approval",
        previous_response_id=paused.id,
        input=[
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": "approve",
            }
        ],
    )
    assert done.output_text == m.APPROVED


def test_background_run_polled_to_completion(client: OpenAI) -> None:
    queued = client.responses.create(
        model="deep-research",
        input=m.RESEARCH_PROMPT,
        tools=m.RESEARCH_TOOLS,  # type: ignore[arg-type]
        metadata=m.RESEARCH_SETTINGS,
        background=True,
    )
    assert (queued.status, queued.background) == ("queued", True)
    assert not m.RUN_RESPONSE_ID.fullmatch(queued.id)

    def finished() -> Any:
        done = client.responses.retrieve(queued.id)
        return done if done.status not in {"queued", "in_progress"} else None

    done = wait_until(finished, timeout=60, message="the background run to finish")
    assert done.status == "completed"
    assert done.output_text.startswith(m.RESEARCH_REPORT_START)
    assert {item.type for item in done.output[:-1]} == {"web_search_call"}
    # Every answer gets a fresh LiteLLM ID; the create's still works.
    assert done.id != queued.id
    assert client.responses.retrieve(done.id).output_text == done.output_text
    assert client.responses.cancel(queued.id).status == "completed"


def test_background_plan_review_resume(client: OpenAI) -> None:
    """deep-research pauses with its plan in the background; the answer resumes it."""
    queued = client.responses.create(
        model="deep-research",
        input=m.RESEARCH_PROMPT,
        tools=m.RESEARCH_TOOLS,  # type: ignore[arg-type]
        background=True,
    )

    def finished(response_id: str) -> Any:
        done = client.responses.retrieve(response_id)
        return done if done.status not in {"queued", "in_progress"} else None

    paused = wait_until(lambda: finished(queued.id), timeout=60, message="the plan")
    [call] = [item for item in paused.output if item.type == "function_call"]
    assert call.name == m.INTERRUPT_FUNCTION
    assert "plan" in json.loads(call.arguments)["question"]
    resumed = client.responses.create(
        model="deep-research",
        previous_response_id=paused.id,
        tools=m.RESEARCH_TOOLS,  # type: ignore[arg-type]
        background=True,
        input=[
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": json.loads(call.arguments)["choices"][0],
            }
        ],
    )
    report = wait_until(lambda: finished(resumed.id), timeout=60, message="the report")
    assert report.status == "completed"
    assert report.output_text.startswith(m.RESEARCH_REPORT_START)


SALES = b"month,revenue,cost\nJan,100,80\nFeb,250,90\nMar,300,120\nApr,350,100\n"


def test_file_input_and_display_file_through_the_gateway(
    client: OpenAI, demo_url_map: dict[str, str]
) -> None:
    """An `input_file` by ID reaches LGOS; the `display_file` call comes back."""
    from lgos_demo_api.display_file import DISPLAY_FILE_TOOL

    with OpenAI(
        base_url=f"{demo_url_map[DEMO_FILES]}/v1", api_key="lgos-demo", max_retries=0
    ) as files:
        sales = files.files.create(file=("sales.csv", SALES), purpose="user_data")
        ledger: list[Any] = [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Plot the revenue, please"},
                    {"type": "input_file", "file_id": sales.id},
                ],
            }
        ]
        first = client.responses.create(
            model="files",
            input=ledger,
            tools=[DISPLAY_FILE_TOOL],  # type: ignore[list-item]
        )
        call = first.output[-1]
        assert call.type == "function_call"
        assert call.name == "display_file"
        arguments = json.loads(call.arguments)
        assert arguments["filename"] == "revenue-by-month.png"
        png = files.files.content(arguments["file_id"]).content
        assert png.startswith(b"\x89PNG")
    ledger += [
        call.model_dump(exclude_none=True),
        {
            "type": "function_call_output",
            "call_id": call.call_id,
            "output": json.dumps({"displayed": True}),
        },
    ]
    final = client.responses.create(
        model="files",
        input=ledger,
        tools=[DISPLAY_FILE_TOOL],  # type: ignore[list-item]
    )
    assert final.output_text == (
        "Here is the chart of revenue by month (revenue-by-month.png)."
    )


def test_chat_completions_stream(client: OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="chat",
            messages=[{"role": "user", "content": m.CHAT_PROMPT}],
            stream=True,
        )
    )
    pieces = [
        c.choices[0].delta.content
        for c in chunks
        if c.choices and c.choices[0].delta.content
    ]
    assert len(pieces) > 1
    assert "".join(pieces) == m.chat_answer()
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"


def test_lgos_error_through_the_gateway(client: OpenAI, demo_api_url: str) -> None:
    """What LiteLLM keeps of an LGOS error: the status; `code` becomes the status."""
    direct = httpx.post(
        f"{demo_api_url}/responses",
        json={"model": "chat", "input": "Hi", "temperature": "hot"},
    )
    assert direct.status_code == 400
    lgos_error = direct.json()["error"]
    assert lgos_error["code"] == "invalid_type"  # chat honours temperature: a number

    with pytest.raises(openai.BadRequestError) as responses:
        client.responses.create(model="chat", input="Hi", temperature="hot")  # type: ignore[arg-type]
    error = responses.value
    assert error.status_code == 400
    assert error.body["code"] == "400"  # type: ignore[index]
    assert error.body["param"] is None  # type: ignore[index]
    assert error.body["type"] == "invalid_request_error"  # type: ignore[index]
    # LGOS's envelope survives only as JSON text inside LiteLLM's message.
    message = error.body["message"]  # type: ignore[index]
    envelope = json.dumps({"error": lgos_error}, separators=(",", ":"))
    assert message.startswith(f"litellm.BadRequestError: OpenAIException - {envelope}")
    assert "No fallback was attempted." in message

    with pytest.raises(openai.BadRequestError) as chat:
        client.chat.completions.create(
            model="chat",
            messages=[{"role": "user", "content": "Hi"}],
            temperature="hot",  # type: ignore[arg-type]
        )
    body = chat.value.body
    assert (chat.value.status_code, body["code"], body["param"]) == (  # type: ignore[index]
        400,
        "400",
        "temperature",
    )
    assert body["message"].startswith(  # type: ignore[index]
        f"litellm.BadRequestError: OpenAIException - {lgos_error['message']}"
    )

    # A model the gateway does not know never reaches LGOS: LiteLLM's own 400.
    with pytest.raises(openai.BadRequestError) as unknown:
        client.responses.create(model="missing", input="Hi")
    assert unknown.value.body["code"] == "400"  # type: ignore[index]
    assert "Invalid model name passed in model=missing" in unknown.value.body["message"]  # type: ignore[index]


SMALL_FACTORY = """
from tests.lgos.graphs import make_registry


def create_registry(resources):
    return make_registry()
"""


def test_sync_follows_a_changed_registry(
    gateway: Gateway, demo_api_url: str, tmp_path: Path
) -> None:
    """`sync` against another registry, then SIGHUP back: /model/info follows."""
    (tmp_path / "small_app.py").write_text(SMALL_FACTORY)
    port = free_port()
    other = f"http://127.0.0.1:{port}/v1"
    with running(
        [*lgos_command(), "serve", "small_app:create_registry", "--port", str(port)],
        ready_url=f"{other}/health",
        log=tmp_path / "small-api.log",
        env={"PYTHONPATH": str(ROOT)},
        cwd=tmp_path,
    ):
        expected = lgos_models(other)
        assert set(expected) != set(lgos_models(demo_api_url))
        started = time.monotonic()
        result = gateway.sync(DEMO_GATEWAY_LGOS_BASE_URL=other)
        took = time.monotonic() - started
        assert result.returncode == 0, result.stderr
        assert served_lgos(gateway) == expected
        print(f"sync with a proxy restart took {took:.1f} s")
    # SIGHUP: `serve` syncs again with its own setting, the demo registry.
    expected = lgos_models(demo_api_url)
    gateway.process.send_signal(signal.SIGHUP)

    def back() -> bool:
        try:
            return served_lgos(gateway) == expected
        except httpx.HTTPError:  # the proxy restarting
            return False

    wait_until(back, timeout=STARTUP_TIMEOUT, message="the demo registry again")
    # Nothing changed: the sync leaves the file and the proxy alone.
    before = gateway.config.stat().st_mtime_ns
    result = gateway.sync()
    assert result.returncode == 0, result.stderr
    assert "nothing had changed" in result.stderr
    assert gateway.config.stat().st_mtime_ns == before
