"""OpenAI-compatible HTTP adapters: decode → run → encode."""
