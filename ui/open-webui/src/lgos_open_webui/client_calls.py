"""The demo's client functions the pipe runs, and a call's output item.

The functions (lgos_client.functions) are the Chainlit UI's too; the demo's
``functions`` graph calls them, and the pipe answers each call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lgos_client.functions import (
    LOCAL_FUNCTIONS,
    FunctionCall,
    completed_calls,
    execute_call,
)
from lgos_client.ledger import call_output_item


def local_function_calls(
    output: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Return the completed calls of :data:`LOCAL_FUNCTIONS` among output items."""
    return completed_calls(output, LOCAL_FUNCTIONS)


def run_local_function(call: Mapping[str, Any]) -> tuple[str, bool]:
    """Run one call of :data:`LOCAL_FUNCTIONS`; never raise for a bad call.

    Returns:
        ``(output, ok)``: the compact JSON ``function_call_output`` string
        (``{"error": "..."}`` when ``ok`` is false).

    """
    return execute_call(FunctionCall.from_item(call), LOCAL_FUNCTIONS)


def call_output(call: Mapping[str, Any], output: str) -> dict[str, Any]:
    """Return the ``function_call_output`` item answering a call item."""
    return call_output_item(str(call.get("call_id", "")), output)
