"""A checkpointer that writes only while the run's lease holds.

When an interrupt run's lease is lost (its database session ended), another
process may already hold the lease and run the same paused operation. The run
that lost it is stopped, but stopping is not instant, and LangGraph writes an
exit checkpoint when a run ends, cancelled or not. :class:`LeaseGuardedSaver`
wraps the graph's checkpointer for one run and refuses every write (a
checkpoint, pending writes, a deletion) once the lease is known lost, so what
the new holder reads stays what the last legitimate holder wrote.

A checkpointer whose writes of a leased thread run on the lease's own session
(:class:`LeaseSessionSaver`, such as
``integrations.postgres_saver.LeaseSessionPostgresSaver``) needs no check
before each write: a session that ended, freeing the lease, runs nothing
more, so a write that lands proves the lease held.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

from langgraph_openai_serve.graph.coordinator import Lease, LeaseLostError

__all__ = ["LeaseGuardedSaver", "LeaseSessionSaver"]


@runtime_checkable
class LeaseSessionSaver(Protocol):
    """A checkpointer that may write a leased thread on the lease's session."""

    def writes_on_lease(self, lease: Lease) -> bool:
        """Whether writes of ``lease``'s thread run on the lease's own session."""
        ...


class LeaseGuardedSaver(BaseCheckpointSaver):
    """Delegate to ``saver``; refuse writes once ``lease.lost`` is set.

    Reads always pass through. A refused write raises
    :class:`~langgraph_openai_serve.graph.coordinator.LeaseLostError`.

    Args:
        saver: The graph's own checkpointer.
        lease: The run's lease.

    """

    def __init__(self, saver: BaseCheckpointSaver, lease: Lease) -> None:
        super().__init__(serde=saver.serde)
        self.saver = saver
        self.lease = lease

    def _check(self) -> None:
        if self.lease.lost.is_set():
            raise LeaseLostError

    async def _acheck(self) -> None:
        # Asked right before the write: a lease lost since the last periodic
        # check is caught here, not after the write. A write on the lease's
        # session proves the lease itself.
        if self.lease.lost.is_set():
            raise LeaseLostError
        saver = self.saver
        if isinstance(saver, LeaseSessionSaver) and saver.writes_on_lease(self.lease):
            return
        if not await self.lease.holds():
            raise LeaseLostError

    @property
    def config_specs(self) -> list:  # type: ignore[override]
        """The wrapped saver's configuration fields."""
        return self.saver.config_specs

    def with_allowlist(
        self, extra_allowlist: Collection[tuple[str, ...]]
    ) -> LeaseGuardedSaver:
        """Guard the wrapped saver's clone with a derived msgpack allowlist."""
        return LeaseGuardedSaver(self.saver.with_allowlist(extra_allowlist), self.lease)

    def get_next_version(self, current: Any, channel: None) -> Any:
        """Return the wrapped saver's next channel version."""
        return self.saver.get_next_version(current, channel)

    # Reads -----------------------------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Read through."""
        return await self.saver.aget_tuple(config)

    def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Read through."""
        return self.saver.alist(config, filter=filter, before=before, limit=limit)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Read through."""
        return self.saver.get_tuple(config)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Read through."""
        return self.saver.list(config, filter=filter, before=before, limit=limit)

    def get_delta_channel_history(self, *args: Any, **kwargs: Any) -> Any:
        """Read through."""
        return self.saver.get_delta_channel_history(*args, **kwargs)

    async def aget_delta_channel_history(self, *args: Any, **kwargs: Any) -> Any:
        """Read through."""
        return await self.saver.aget_delta_channel_history(*args, **kwargs)

    # Writes ----------------------------------------------------------------

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Write through while the lease holds."""
        await self._acheck()
        return await self.saver.aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Write through while the lease holds."""
        await self._acheck()
        await self.saver.aput_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete through while the lease holds."""
        await self._acheck()
        await self.saver.adelete_thread(thread_id)

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Write through while the lease holds."""
        self._check()
        return self.saver.put(config, checkpoint, metadata, new_versions)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Write through while the lease holds."""
        self._check()
        self.saver.put_writes(config, writes, task_id, task_path)

    def delete_thread(self, thread_id: str) -> None:
        """Delete through while the lease holds."""
        self._check()
        self.saver.delete_thread(thread_id)
