"""The client matrix: real OpenAI clients, unmodified, against the running demo API.

Every test here talks to the demo API that ``tests/demo_services.py`` starts
once per session (``lgos serve lgos_demo_api.registry:create_registry`` on a
free loopback port, offline model, no delay); the ``demo_api_url`` fixture is
its OpenAI base URL. Nothing may leave the machine: the clients' own network
habits (tracing exports, model price downloads, telemetry) are switched off
here, before any of them is imported.
"""

from __future__ import annotations

import os

# The OpenAI Agents SDK exports traces to OpenAI unless told not to.
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
# LiteLLM downloads its model price map on import unless told to use its copy.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_TELEMETRY"] = "False"
