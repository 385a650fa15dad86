"""The client core of the LGOS chat UIs, with no UI dependency.

Both chat UIs speak to LGOS through this package: the Chainlit UI imports it,
and the Open WebUI pipe (which Open WebUI loads as one source text) is
generated from it and from the pipe's own parts (``lgos_open_webui``, which
this package never imports) by ``ui/open-webui/generate.py``, which inlines
the modules the pipe uses. Every module here therefore imports only the
standard library, ``openai``, ``pydantic`` and other ``lgos_client`` modules
(by ``from lgos_client.<module> import <name>``, without aliases), and defines
no top-level name another module defines differently.
"""
