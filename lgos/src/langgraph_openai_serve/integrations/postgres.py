"""PostgreSQL coordination for interrupt runs (extra ``postgres``).

The public path the reference names. :class:`PostgresRunCoordinator` provides
the cross-process, single-flight interrupt-run lease (its module:
:mod:`.postgres_coordinator`); :func:`setup_storage` applies the storage
migrations once across processes that start together
(:mod:`.postgres_migrations`); :func:`check_connection` is the pool's cheap
liveness check (:mod:`.postgres_probe`). Checkpoints on a lease's session:
:mod:`.postgres_saver`.
"""

from langgraph_openai_serve.integrations.postgres_coordinator import (
    LEASE_CHECK_SECONDS,
    LEASE_CHECK_TIMEOUT_SECONDS,
    LEASE_SLOT_WAIT_SECONDS,
    LEASE_STOP_MARGIN_SECONDS,
    LOCK_READ,
    LeaseSession,
    PostgresRunCoordinator,
)
from langgraph_openai_serve.integrations.postgres_migrations import (
    advisory_lock_id,
    setup_storage,
)
from langgraph_openai_serve.integrations.postgres_probe import check_connection

__all__ = [
    "LEASE_CHECK_SECONDS",
    "LEASE_CHECK_TIMEOUT_SECONDS",
    "LEASE_SLOT_WAIT_SECONDS",
    "LEASE_STOP_MARGIN_SECONDS",
    "LOCK_READ",
    "LeaseSession",
    "PostgresRunCoordinator",
    "advisory_lock_id",
    "check_connection",
    "setup_storage",
]
