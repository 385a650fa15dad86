"""The Open WebUI pipe's error text: an API error's message alone.

The Chainlit UI's longer text (``HTTP 400: … (code: …, param: …)``) and the
gateway unwrapping both share are tested with recorded LiteLLM bodies in
``tests/ui/test_chainlit_gateway.py``.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai

from lgos_client.api_errors import api_error_message, format_api_error

URL = "http://lgos.test/v1/responses"


def http_error(status: int, payload: Any) -> openai.APIStatusError:
    """The SDK's error for an answer with ``payload`` as its JSON body."""
    request = httpx2.Request("POST", URL)
    response = httpx2.Response(status, request=request, json=payload)
    client = openai.OpenAI(base_url="http://lgos.test/v1", api_key="k")
    return client._make_status_error_from_response(response)


def test_the_envelopes_message_alone() -> None:
    exc = http_error(
        409,
        {
            "error": {
                "message": "A run of this conversation is in progress.",
                "type": "invalid_request_error",
                "param": None,
                "code": "run_busy",
            }
        },
    )

    assert api_error_message(exc) == "A run of this conversation is in progress."
    assert format_api_error(exc) == (
        "HTTP 409: A run of this conversation is in progress. (code: run_busy)"
    )


def test_a_message_a_litellm_gateway_wrapped_is_lgoss() -> None:
    wrapped = (
        "litellm.NotFoundError: OpenAIException - "
        '{"error":{"message":"The model \'ghost\' does not exist.",'
        '"type":"invalid_request_error","param":"model","code":"model_not_found"}}'
        "\n\nLiteLLM: model group 'ghost' failed with the error above."
    )
    exc = http_error(404, {"error": {"message": wrapped, "code": "404"}})

    assert api_error_message(exc) == "The model 'ghost' does not exist."


def test_without_a_message_the_sdks_own() -> None:
    exc = http_error(502, {"detail": "bad gateway"})
    assert api_error_message(exc) == exc.message

    stream_error = openai.APIError(
        "stream failed", httpx2.Request("POST", URL), body={"message": "boom"}
    )
    assert api_error_message(stream_error) == "boom"
    connection = openai.APIConnectionError(request=httpx2.Request("POST", URL))
    assert api_error_message(connection) == "Connection error."
