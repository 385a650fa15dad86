"""The Responses API adapter (``POST /v1/responses``)."""
