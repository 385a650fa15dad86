"""The client-side input ledger: the rules both chat UIs keep it by.

LGOS stores no conversation (every request is stateless unless it resumes a
paused run), so a chat client keeps an *input ledger*: the user turns plus
every output item of each answer, unchanged (commentary, searches, calls and
the answer with its annotations), and sends it whole as ``input`` on every
request. What an answer leaves in the ledger:

- the items of the responses it paused on, except the ``lgos_interrupt``
  calls (the questions never enter the ledger);
- every output item of its responses;
- a ``function_call_output`` item (:func:`call_output_item`) for every
  client function call, run or not: a call the client did not run (see
  :func:`calls_not_run_reason`) gets an output that says so, because the
  Responses API refuses an ``input`` with a call and no output.

Storage stays in each UI (the Chainlit data layer keeps the whole ledger;
the Open WebUI pipe keeps each answer's items in SQLite under
:func:`answer_key` of the text it showed, because Open WebUI keeps only that
text).
"""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = [
    "MAX_FUNCTION_ROUNDS",
    "answer_key",
    "call_output_item",
    "calls_not_run_reason",
]

MAX_FUNCTION_ROUNDS = 5
"""The most rounds of client function calls either UI runs in one turn."""


def answer_key(text: str) -> str:
    """Return the key of an answer's stored items: a hash of its shown text.

    The SHA-256 hex digest of ``text`` without surrounding whitespace (a chat
    UI may trim or pad the answer it keeps).
    """
    return hashlib.sha256(text.strip().encode()).hexdigest()


def call_output_item(call_id: str, output: str) -> dict[str, Any]:
    """Return the ``function_call_output`` input item answering a call.

    Args:
        call_id: The ``call_id`` of the ``function_call`` item.
        output: The result, a string (JSON for the demo's functions).

    """
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def calls_not_run_reason(
    status: str | None, rounds: int, max_rounds: int = MAX_FUNCTION_ROUNDS
) -> str | None:
    """Say why a response's client function calls are not run, if they are not.

    A client runs the calls of a ``completed`` response only, and only while
    fewer than ``max_rounds`` rounds of calls have run in the turn (a graph
    that keeps calling cannot loop forever).

    Args:
        status: The response's ``status``.
        rounds: Rounds of function calls the turn has run so far.
        max_rounds: The most rounds the UI runs in one turn
            (:data:`MAX_FUNCTION_ROUNDS` unless a test sets another).

    Returns:
        ``None`` when the calls are to be run; otherwise the reason, as a
        clause ("the response was incomplete", "the UI stops after N rounds
        of function calls").

    """
    if status != "completed":
        return "the response was incomplete"
    if rounds >= max_rounds:
        return f"the UI stops after {max_rounds} rounds of function calls"
    return None
