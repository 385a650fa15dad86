"""lgos_client.background: polling a background Response with a fake client."""

import asyncio
import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import openai
import pytest

from lgos_client.background import cancel_background, wait_background

pytestmark = pytest.mark.anyio


@dataclass
class FakeResponses:
    """``client.responses``: ``create`` then ``retrieve`` give these statuses."""

    statuses: list[str]
    created: list[dict[str, Any]] = field(default_factory=list)
    retrieved: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    fail_cancel: BaseException | None = None

    async def create(self, **request: Any) -> Any:
        self.created.append(request)
        return SimpleNamespace(id="resp_1", status=self.statuses.pop(0))

    async def retrieve(self, response_id: str) -> Any:
        self.retrieved.append(response_id)
        return SimpleNamespace(id=response_id, status=self.statuses.pop(0))

    async def cancel(self, response_id: str) -> Any:
        if self.fail_cancel is not None:
            raise self.fail_cancel
        self.cancelled.append(response_id)
        return SimpleNamespace(id=response_id, status="cancelled")


def fake_client(responses: FakeResponses) -> Any:
    return SimpleNamespace(responses=responses)


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


async def test_polls_until_the_response_is_no_longer_running() -> None:
    responses = FakeResponses(["queued", "in_progress", "in_progress", "completed"])
    time = FakeTime()
    polls: list[tuple[str, str, float]] = []

    async def on_poll(response_id: str, status: str, elapsed: float) -> None:
        polls.append((response_id, status, elapsed))

    response = await wait_background(
        fake_client(responses),
        {"model": "m", "background": True},
        on_poll=on_poll,
        poll_interval=2.5,
        sleep=time.sleep,
        clock=time.clock,
    )

    assert response.status == "completed"
    assert responses.created == [{"model": "m", "background": True}]
    assert responses.retrieved == ["resp_1"] * 3
    assert time.sleeps == [2.5] * 3
    assert polls == [
        ("resp_1", "queued", 0.0),
        ("resp_1", "in_progress", 2.5),
        ("resp_1", "in_progress", 5.0),
        ("resp_1", "completed", 7.5),
    ]


async def test_a_response_that_ends_at_once_is_not_retrieved() -> None:
    responses = FakeResponses(["completed"])

    response = await wait_background(fake_client(responses), {"background": True})

    assert response.status == "completed"
    assert responses.retrieved == []


async def test_cancelling_the_wait_cancels_the_response() -> None:
    responses = FakeResponses(["queued"] * 100)
    polled = asyncio.Event()

    async def on_poll(_id: str, _status: str, _elapsed: float) -> None:
        polled.set()

    task = asyncio.create_task(
        wait_background(
            fake_client(responses),
            {"background": True},
            on_poll=on_poll,
            poll_interval=0.01,
        )
    )
    await polled.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert responses.cancelled == ["resp_1"]


async def test_cancel_is_best_effort(caplog: pytest.LogCaptureFixture) -> None:
    responses = FakeResponses([], fail_cancel=openai.OpenAIError("down"))

    with caplog.at_level(logging.WARNING):
        await cancel_background(fake_client(responses), "resp_1")

    assert "Cannot cancel background response resp_1: down" in caplog.text


async def test_a_hung_cancel_gives_up_after_its_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Hung(FakeResponses):
        async def cancel(self, response_id: str) -> Any:
            await asyncio.sleep(60)

    with caplog.at_level(logging.WARNING):
        await cancel_background(fake_client(Hung([])), "resp_1", limit=0.01)

    assert "timed out" in caplog.text
