"""The deep-research SDK example: foreground plan, background research, poll, report.

Runs the demo registry offline (offline model, bundled search corpus) with the
in-memory background engine.
"""

from __future__ import annotations

import json

import pytest
from openai import AsyncOpenAI
from openai.types.responses import Response

from tests.conftest import background_demo_http
from tests.contract.openapi import validate
from tests.waiting import eventually

pytestmark = pytest.mark.anyio


async def test_plan_in_the_foreground_research_in_the_background() -> None:
    async with background_demo_http() as http:
        client = AsyncOpenAI(base_url="http://lgos/v1", api_key="x", http_client=http)
        model, tools = "deep-research", [{"type": "web_search"}]
        pending = await client.responses.create(
            model=model,
            input="Compare how LangGraph and the OpenAI Agents SDK pause for approval.",
            tools=tools,
            store=False,
        )
        reviews = [
            item
            for item in pending.output
            if item.type == "function_call" and item.name == "lgos_interrupt"
        ]
        assert len(reviews) == 1
        assert json.loads(reviews[0].arguments)["question"]
        queued = await client.responses.create(
            model=model,
            previous_response_id=pending.id,
            input=[
                {
                    "type": "function_call_output",
                    "call_id": r.call_id,
                    "output": "Start research",
                }
                for r in reviews
            ],
            tools=tools,
            background=True,
        )
        assert queued.status == "queued"

        async def finished() -> Response | None:
            report = await client.responses.retrieve(queued.id)
            return report if report.status not in {"queued", "in_progress"} else None

        report = await eventually(
            finished, timeout=30, interval=0.02, message="the research to finish"
        )
        assert report.status == "completed", report.error
        raw = (await http.get(f"http://lgos/v1/responses/{queued.id}")).json()
        validate("Response", raw)
        kinds = [item["type"] for item in raw["output"]]
        assert kinds.count("web_search_call") >= 3
        assert kinds[-1] == "message"
        assert raw["output"][-1]["phase"] == "final_answer"
        annotations = raw["output"][-1]["content"][0]["annotations"]
        assert annotations and all(a["type"] == "url_citation" for a in annotations)
        assert report.output_text
