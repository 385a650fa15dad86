"""The Chat Completions adapter (``POST /v1/chat/completions``)."""
