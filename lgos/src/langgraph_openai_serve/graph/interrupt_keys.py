"""What names an interrupt run in a checkpointer: its thread key and metadata keys.

A paused run's LangGraph ``thread_id`` is its *checkpoint key*,
``SHA-256(scope, model, run UUID)`` (:func:`checkpoint_key`), and LGOS marks
the checkpoints it writes with the metadata keys below, which the expiry
sweep (:mod:`langgraph_openai_serve.graph.interrupt_expiry`) and a resume's
checks (:mod:`langgraph_openai_serve.graph.interrupt`) read back. All are
re-exported from :mod:`langgraph_openai_serve.graph.interrupt`.
"""

from __future__ import annotations

import hashlib
import uuid

__all__ = [
    "INSTRUCTIONS_METADATA_KEY",
    "OPERATION_ID_METADATA_KEY",
    "REQUEST_METADATA_KEY",
    "checkpoint_key",
    "instructions_digest",
]

OPERATION_ID_METADATA_KEY = "lgos.operation_id"
"""Checkpoint metadata key marking threads LGOS created (value: run UUID)."""
INSTRUCTIONS_METADATA_KEY = "lgos.instructions_sha256"
"""Checkpoint metadata key: the SHA-256 of the instructions an interrupt run
started with (absent when it had none), so a resume may repeat them."""
REQUEST_METADATA_KEY = "lgos.request_sha256"
"""Checkpoint metadata key: the fingerprint of the first request that started
an interrupt run (its adapter's digest, :attr:`RunSpec.fingerprint
<langgraph_openai_serve.graph.run_spec.RunSpec.fingerprint>`), kept with every
checkpoint of the run, so that only a retry of that request re-delivers its
pause (:func:`check_retried_request`). Absent on pauses recorded without one."""


def checkpoint_key(scope: str, model: str, run_id: uuid.UUID) -> str:
    """Return the fixed-length thread key for a run (64 hex characters).

    The scope (server-trusted, e.g. a tenant) and the model come first, so the
    same run UUID in two scopes or models addresses two different threads.
    """
    material = f"lgos/v1\x00{len(scope)}:{scope}\x00{len(model)}:{model}\x00{run_id}"
    return hashlib.sha256(material.encode()).hexdigest()


def instructions_digest(instructions: str | None) -> str | None:
    """Return the SHA-256 hex digest of ``instructions``, or None for none."""
    if instructions is None:
        return None
    return hashlib.sha256(instructions.encode()).hexdigest()
