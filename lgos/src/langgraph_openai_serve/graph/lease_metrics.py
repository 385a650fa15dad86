"""An interrupt run's lease, measured: wait, refusal, holding and loss.

:func:`measured_lease` wraps any :class:`~.coordinator.RunCoordinator`'s
``lease()`` with the lease metrics of :mod:`langgraph_openai_serve.metrics`,
so the measurement does not depend on how a coordinator takes its leases.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph_openai_serve.graph.coordinator import (
    Lease,
    LeasesExhaustedError,
    RunBusyError,
    RunCoordinator,
)
from langgraph_openai_serve.metrics import (
    LEASE_LOSSES,
    LEASE_REFUSALS,
    LEASE_WAIT,
    LEASES_HELD,
)

__all__ = ["measured_lease"]


@asynccontextmanager
async def measured_lease(
    coordinator: RunCoordinator, key: str, model: str
) -> AsyncIterator[Lease | None]:
    """Hold ``coordinator``'s lease on ``key`` while recording its metrics.

    Records the time to a grant or a refusal (``lgos_lease_wait_seconds``),
    a refusal by reason (``lgos_lease_refusals_total``: ``busy`` or
    ``exhausted``), the lease while it is held (``lgos_leases_held``), and,
    on exit, a lease that was lost while held (``lgos_lease_losses_total``).

    Args:
        coordinator: The registry's run coordinator.
        key: The checkpoint key to lease.
        model: The run's registered model (the metrics' ``model`` label).

    Raises:
        RunBusyError: Another holder has the lease (counted as ``busy``).
        LeasesExhaustedError: No lease slot came free (``exhausted``).

    """
    started = time.perf_counter()
    granted = False
    try:
        async with coordinator.lease(key) as lease:
            granted = True
            LEASE_WAIT.labels(model).observe(time.perf_counter() - started)
            held = LEASES_HELD.labels(model)
            held.inc()
            try:
                yield lease
            finally:
                held.dec()
                if lease is not None and lease.lost.is_set():
                    LEASE_LOSSES.labels(model).inc()
    except (RunBusyError, LeasesExhaustedError) as exc:
        if not granted:  # refused; not an error of the run itself
            LEASE_WAIT.labels(model).observe(time.perf_counter() - started)
            reason = "busy" if isinstance(exc, RunBusyError) else "exhausted"
            LEASE_REFUSALS.labels(model, reason).inc()
        raise
