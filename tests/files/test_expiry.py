"""Expired files are refused (404) and deleted: on access, and by the sweep."""

from __future__ import annotations

import openai
import pytest
from openai.types.file_create_params import ExpiresAfter

from lgos_demo_files.service import FilesService
from tests.contract.openapi import validate
from tests.files.conftest import FakeClock, FilesStack, StackFactory
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

HOUR: ExpiresAfter = {"anchor": "created_at", "seconds": 3600}


async def test_expired_file_is_404_and_deleted_on_access(stack: FilesStack) -> None:
    client = stack.client
    expiring = await client.files.create(
        file=("soon.txt", b"bye"), purpose="user_data", expires_after=HOUR
    )
    lasting = await client.files.create(file=("stay.txt", b"hi"), purpose="user_data")
    assert expiring.expires_at == int(stack.clock.now) + 3600

    stack.clock.advance(3599)
    assert (await client.files.content(expiring.id)).content == b"bye"

    stack.clock.advance(1)  # expires_at reached
    for call in (client.files.retrieve, client.files.content, client.files.delete):
        with pytest.raises(openai.NotFoundError) as caught:
            await call(expiring.id)
        validate("ErrorResponse", caught.value.response.json())
    assert stack.stored_keys() == [lasting.id]
    service: FilesService = stack.app.state.files
    assert await service.metadata.get(expiring.id) is None
    assert [f.id for f in (await client.files.list()).data] == [lasting.id]


async def test_expired_files_leave_listings_and_the_sweep_deletes_them(
    stack: FilesStack,
) -> None:
    client = stack.client
    expiring = [
        await client.files.create(
            file=(f"e{i}.txt", b"x"), purpose="batch", expires_after=HOUR
        )
        for i in range(3)
    ]
    lasting = await client.files.create(file=("keep.txt", b"k"), purpose="assistants")

    stack.clock.advance(3600)
    listed = await client.files.with_raw_response.list()
    body = listed.http_response.json()
    validate("ListFilesResponse", body)
    assert [item["id"] for item in body["data"]] == [lasting.id]
    # Listing hides them; their bytes wait for the sweep.
    assert len(stack.stored_keys()) == 4

    service: FilesService = stack.app.state.files
    assert await service.sweep() == 3
    assert stack.stored_keys() == [lasting.id]
    for file in expiring:
        assert await service.metadata.get(file.id) is None
    assert await service.sweep() == 0


async def test_background_sweep_deletes_expired_files(
    make_stack: StackFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    async with make_stack(clock=clock, sweep_interval_seconds=0.05) as stack:
        service: FilesService = stack.app.state.files
        sweeps: list[int] = []  # what each periodic sweep deleted
        sweep = service.sweep

        async def counted_sweep() -> int:
            sweeps.append(await sweep())
            return sweeps[-1]

        monkeypatch.setattr(service, "sweep", counted_sweep)
        expiring = await stack.client.files.create(
            file=("e.txt", b"x"), purpose="user_data", expires_after=HOUR
        )
        lasting = await stack.client.files.create(
            file=("k.txt", b"k"), purpose="user_data"
        )
        swept = len(sweeps)
        await eventually(lambda: len(sweeps) >= swept + 2, message="two more sweeps")
        assert sorted(stack.stored_keys()) == sorted([expiring.id, lasting.id])

        clock.advance(3600)
        await eventually(
            lambda: stack.stored_keys() == [lasting.id], message="the sweep to run"
        )
        assert await service.metadata.get(expiring.id) is None
        assert (await stack.client.files.retrieve(lasting.id)).id == lasting.id
