"""Interrupts on the Responses API: paused Response IDs, call IDs, resumes, errors.

A paused run is a Response whose output ends in ``lgos_interrupt`` function
calls; the client answers them with ``function_call_output`` items and the
paused Response's ID as ``previous_response_id``. Per Response, a random
*nonce* makes the identities unguessable:

- the Response ID is ``resp_lg_<run UUID hex>_<nonce>``;
- each call ID is ``call_lg_<token>_<nonce>_<interrupt id>``, where the token
  binds the call to the run's checkpoint key, the nonce, the exact
  checkpoint generation and the interrupt, so a stale, forged or mixed call
  ID never validates.

A first request naming its run UUID (``metadata.lgos_run_id``) carries its
:func:`request_fingerprint`: only a retry of the request that started a
paused run gets the pause back; another gets 422 ``run_id_reused``.

The graph layer knows none of this: it gets an
:class:`~langgraph_openai_serve.graph.interrupt.InterruptResume` keyed by
interrupt ID with this module's token check as ``verify``, and raises neutral
:class:`~langgraph_openai_serve.graph.interrupt.ResumeError` kinds that
:func:`resume_error` maps to OpenAI errors.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import uuid

import orjson
from starlette import status

from langgraph_openai_serve.api.answer import ToolCallOut
from langgraph_openai_serve.api.responses.responses_request import (
    FunctionCallOutputItem,
    ResponseCreateRequest,
)
from langgraph_openai_serve.errors import GraphError, InvalidRequestError
from langgraph_openai_serve.graph.client_settings import SETTINGS_METADATA_KEY
from langgraph_openai_serve.graph.interrupt import (
    InstructionsChangedError,
    InterruptMismatchError,
    InterruptResume,
    LangGraphInterruptBatch,
    MissingAnswersError,
    NotPausedError,
    ResumeError,
    RunIdReusedError,
)

__all__ = [
    "INTERRUPT_FUNCTION_NAME",
    "NOT_A_PAUSE",
    "RUN_ID_METADATA_KEY",
    "RUN_ID_REUSED",
    "decode_resume",
    "interrupt_call_id",
    "interrupt_calls",
    "interrupt_response_id",
    "new_nonce",
    "parse_interrupt_response_id",
    "parse_run_id",
    "request_fingerprint",
    "resume_error",
    "unmatched_answer_hint",
]

INTERRUPT_FUNCTION_NAME = "lgos_interrupt"
"""The function name of the calls a paused Response ends with."""
RUN_ID_METADATA_KEY = "lgos_run_id"
"""Request metadata key for a caller-chosen run UUID."""
RUN_ID_REUSED = "run_id_reused"
"""The error code (422) of a first request naming a paused run it did not start."""
NOT_A_PAUSE = (
    "previous_response_id only resumes a paused interrupt run (a resp_lg_ Response "
    "ending in lgos_interrupt calls). LGOS stores no conversations: send the earlier "
    "items in input instead, and turn off automatic response chaining for this model."
)
"""The message of a ``previous_response_id`` that names no pause."""

_RESPONSE_ID = re.compile(r"^resp_lg_([0-9a-f]{32})_([0-9a-f]{32})$")
_CALL_ID = re.compile(r"^call_lg_([0-9a-f]{64})_([0-9a-f]{32})_([0-9A-Za-z-]{1,64})$")


def new_nonce() -> str:
    """Return a random 32-hex-digit Response nonce."""
    return secrets.token_hex(16)


def interrupt_response_id(run_id: uuid.UUID, nonce: str) -> str:
    """Return the Response ID of a run: ``resp_lg_<run hex>_<nonce>``."""
    return f"resp_lg_{run_id.hex}_{nonce}"


def _token(key: str, nonce: str, checkpoint_id: str, interrupt_id: str) -> str:
    material = f"{key}\x00{nonce}\x00{checkpoint_id}\x00{interrupt_id}"
    return hashlib.sha256(material.encode()).hexdigest()


def interrupt_call_id(
    batch: LangGraphInterruptBatch, nonce: str, interrupt_id: str
) -> str:
    """Return the call ID binding ``interrupt_id`` to this Response and generation."""
    token = _token(batch.checkpoint_key, nonce, batch.checkpoint_id, interrupt_id)
    return f"call_lg_{token}_{nonce}_{interrupt_id}"


def unmatched_answer_hint(call_id: str) -> str:
    """Say how to answer a paused run, for an output that answers no call.

    An interrupt's call (``call_lg_...``) is in the paused Response, not in
    the input, so its answer needs that Response's ID; any other call ID gets
    no hint (empty string).
    """
    if not call_id.startswith("call_lg_"):
        return ""
    return (
        " To answer a paused run's question, send previous_response_id: the"
        " paused Response's id."
    )


def parse_interrupt_response_id(response_id: str) -> tuple[uuid.UUID, str]:
    """Return ``(run UUID, nonce)`` of a paused Response ID.

    Raises:
        InvalidRequestError: 400, ``param="previous_response_id"``.

    """
    match = _RESPONSE_ID.match(response_id)
    run_id = uuid.UUID(match.group(1)) if match is not None else None
    if match is None or run_id is None or run_id.int == 0:
        raise InvalidRequestError(NOT_A_PAUSE, param="previous_response_id")
    return run_id, match.group(2)


def parse_run_id(value: str) -> uuid.UUID:
    """Validate a caller-chosen run UUID (``metadata.lgos_run_id``).

    Raises:
        InvalidRequestError: 400 when it is not a non-nil UUID.

    """
    try:
        run_id = uuid.UUID(value)
    except ValueError:
        run_id = None
    if run_id is None or run_id.int == 0:
        raise InvalidRequestError(
            "metadata.lgos_run_id must be a non-nil UUID.",
            param=f"metadata.{RUN_ID_METADATA_KEY}",
        )
    return run_id


_FINGERPRINTED = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "temperature",
        "top_p",
        "max_output_tokens",
        "reasoning",
    }
)
"""The request fields that make two first requests the same request."""


def request_fingerprint(request: ResponseCreateRequest) -> str:
    """Return the fingerprint of a first request: what makes a retry the same request.

    SHA-256 (64 hex digits) over the canonical JSON (sorted keys, defaults
    filled in, ``null`` members left out) of the fields the run starts from:
    ``model``, ``input``, ``instructions``, ``tools``, ``tool_choice``,
    ``parallel_tool_calls``, the generation controls (``temperature``,
    ``top_p``, ``max_output_tokens``, ``reasoning``) and the runtime settings
    (``metadata.lgos_settings``). How the answer is delivered (``stream``,
    ``background``, ``store``, ...), other metadata and client hints are
    left out: a client may retry a lost request with them changed.

    The specification re-delivers a paused run's batch to a retry of the
    initial request carrying its ``metadata.lgos_run_id``; LGOS keeps this
    fingerprint with the run's checkpoints and re-delivers only to a
    request with the same one (the graph layer's ``check_retried_request``).
    """
    fields = request.model_dump(
        mode="json", include=set(_FINGERPRINTED), exclude_none=True
    )
    settings = (request.metadata or {}).get(SETTINGS_METADATA_KEY)
    canonical = {"lgos/request": 1, "fields": fields, "settings": settings}
    return hashlib.sha256(
        orjson.dumps(canonical, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()


def interrupt_calls(batch: LangGraphInterruptBatch, nonce: str) -> list[ToolCallOut]:
    """Return one ``lgos_interrupt`` function call per pending interrupt.

    The arguments are the interrupt payload as JSON; the call ID binds the
    interrupt to this Response and the batch's checkpoint generation.

    Raises:
        GraphError: A payload is not JSON-serializable.

    """
    calls = []
    for interrupt in batch.interrupts:
        try:
            arguments = json.dumps(interrupt.value, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            msg = "Interrupt payloads must be JSON-serializable."
            raise GraphError(msg) from exc
        calls.append(
            ToolCallOut(
                interrupt_call_id(batch, nonce, interrupt.id),
                INTERRUPT_FUNCTION_NAME,
                arguments,
            )
        )
    return calls


def _resume_items_error(param: str) -> InvalidRequestError:
    return InvalidRequestError(
        "A resume sends only function_call_output items answering the calls.",
        param=param,
    )


def decode_resume(
    request: ResponseCreateRequest, run_id: uuid.UUID | None
) -> InterruptResume:
    """Decode a resume: ``previous_response_id`` and ``function_call_output`` items.

    Args:
        request: A request with ``previous_response_id`` set.
        run_id: The caller's ``metadata.lgos_run_id``, or None.

    Returns:
        The neutral resume, keyed by interrupt ID, whose ``verify`` checks
        every call ID's token against the pause once it is read.

    Raises:
        InvalidRequestError: 400 for a malformed ``previous_response_id``, a
            run ID that does not match it, input other than one
            ``function_call_output`` per call, a malformed call ID
            (``input[i].call_id``), or calls of another Response.

    """
    assert request.previous_response_id is not None
    resumed_run, nonce = parse_interrupt_response_id(request.previous_response_id)
    if run_id is not None and run_id != resumed_run:
        raise InvalidRequestError(
            "metadata.lgos_run_id does not match previous_response_id.",
            param=f"metadata.{RUN_ID_METADATA_KEY}",
        )
    items = request.input
    if isinstance(items, str) or not items:
        raise _resume_items_error("input")
    seen: set[str] = set()
    tokens: list[tuple[str, str]] = []  # (token, interrupt ID) per call
    answers: dict[str, str] = {}
    for index, item in enumerate(items):
        if not isinstance(item, FunctionCallOutputItem):
            raise _resume_items_error(f"input[{index}]")
        if item.call_id in seen:
            raise InvalidRequestError(
                f"The call '{item.call_id}' has more than one output.",
                param=f"input[{index}].call_id",
            )
        seen.add(item.call_id)
        match = _CALL_ID.match(item.call_id)
        if match is None:
            raise InvalidRequestError(
                f"'{item.call_id}' is not an interrupt call ID of this run.",
                param=f"input[{index}].call_id",
            )
        token, call_nonce, interrupt_id = match.groups()
        if call_nonce != nonce:
            raise InvalidRequestError(
                "The call IDs belong to another Response than previous_response_id.",
                param="previous_response_id",
            )
        tokens.append((token, interrupt_id))
        answers[interrupt_id] = item.output

    def verify(batch: LangGraphInterruptBatch) -> None:
        for token, interrupt_id in tokens:
            expected = _token(
                batch.checkpoint_key, nonce, batch.checkpoint_id, interrupt_id
            )
            if not secrets.compare_digest(token, expected):
                raise InterruptMismatchError

    return InterruptResume(
        run_id=resumed_run,
        answers=answers,
        instructions=request.instructions,  # checked against the run's own
        verify=verify,
    )


def resume_error(exc: Exception) -> InvalidRequestError | None:
    """Map a neutral resume error to the Responses API's error (None: not one).

    - not paused, model without interrupts: 400 ``previous_response_id``;
    - not paused, finished or expired, or answers that do not match the
      pending interrupts: 409 ``interrupt_state_conflict``;
    - unanswered interrupts: 400 ``input``;
    - changed instructions: 400 ``instructions``;
    - a first request naming a paused run it did not start (not the same
      :func:`request_fingerprint`): 422 ``run_id_reused``,
      ``metadata.lgos_run_id``, as a reused ``Idempotency-Key`` is refused.
    """
    if not isinstance(exc, ResumeError):
        return None
    if isinstance(exc, RunIdReusedError):
        return InvalidRequestError(
            "metadata.lgos_run_id names a paused run that a different request "
            "started; only a retry of that request (same model, input, "
            "instructions, tools and settings) gets its pending calls. Choose a "
            "new UUID for a new request, or resume the pause with "
            "previous_response_id.",
            code=RUN_ID_REUSED,
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
            param=f"metadata.{RUN_ID_METADATA_KEY}",
        )
    if isinstance(exc, NotPausedError) and not exc.interrupts:
        return InvalidRequestError(NOT_A_PAUSE, param="previous_response_id")
    if isinstance(exc, NotPausedError | InterruptMismatchError):
        message = (
            "This operation is not paused: it finished or expired."
            if isinstance(exc, NotPausedError)
            else "The answered calls do not match the pending interrupts."
        )
        return InvalidRequestError(
            message,
            code="interrupt_state_conflict",
            status_code=409,
            param="previous_response_id",
        )
    if isinstance(exc, MissingAnswersError):
        return InvalidRequestError(
            f"Answer every pending interrupt; {exc.missing} call(s) have no output.",
            param="input",
        )
    if isinstance(exc, InstructionsChangedError):
        return InvalidRequestError(
            "A resume may repeat the paused run's instructions but not change "
            "them; send them unchanged or omit them.",
            param="instructions",
        )
    return InvalidRequestError(str(exc), param="previous_response_id")
