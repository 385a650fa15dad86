# LGOS: LangGraph graphs behind an OpenAI-compatible API, with a demo stack.
# `just` lists the recipes. Variables from a `.env` file (see .env.example) apply.

set shell := ["bash", "-euo", "pipefail", "-c"]
set dotenv-load := true

# List the recipes (and the demo-only ones, run as `just demo/<recipe>`)
default:
    @just --list
    @echo "Demo-only recipes (run as just demo/<recipe>):"
    @just --justfile demo/justfile --list --list-heading '' --list-prefix '    demo/'


# Install every workspace package and the dev tools from uv.lock
sync:
    uv sync --all-packages --frozen --quiet

# Run the demo stack (demo API + Chainlit UI) as local processes; Ctrl-C stops it
demo: sync
    #!/usr/bin/env bash
    set -euo pipefail
    export DEMO_API_HOST="${DEMO_API_HOST:-127.0.0.1}"
    export DEMO_API_PORT="${DEMO_API_PORT:-8000}"
    export DEMO_CHAINLIT_HOST="${DEMO_CHAINLIT_HOST:-127.0.0.1}"
    export DEMO_CHAINLIT_PORT="${DEMO_CHAINLIT_PORT:-8001}"
    export DEMO_CHAINLIT_OPENAI_BASE_URL="${DEMO_CHAINLIT_OPENAI_BASE_URL:-http://${DEMO_API_HOST}:${DEMO_API_PORT}/v1}"
    export DEMO_FILES_HOST="${DEMO_FILES_HOST:-127.0.0.1}"
    export DEMO_FILES_PORT="${DEMO_FILES_PORT:-8003}"
    mode="offline demo model (no API key needed)"
    if [ -n "${DEMO_API_OPENAI_API_KEY:-}" ]; then mode="upstream model ${DEMO_API_OPENAI_RESPONSES_MODEL:-gpt-4.1-mini}"; fi
    echo "LGOS demo as local processes (no Docker engine is used); graphs answer with the ${mode}."
    echo "  Chat UI (Chainlit):   http://${DEMO_CHAINLIT_HOST}:${DEMO_CHAINLIT_PORT}"
    echo "  OpenAI-compatible API: ${DEMO_CHAINLIT_OPENAI_BASE_URL}"
    echo "  Files service:         http://${DEMO_FILES_HOST}:${DEMO_FILES_PORT}/v1"
    echo "Press Ctrl-C to stop everything."
    status=0
    uv run --frozen --no-sync honcho --no-prefix -f demo/Procfile -d . start || status=$?
    # Ctrl-C (130) and the children's SIGTERM (143) are the normal way to stop.
    if [ "$status" -eq 130 ] || [ "$status" -eq 143 ]; then exit 0; fi
    exit "$status"

# Overhead benchmark: prints a table, writes .data/bench.json (SECONDS per figure)
bench SECONDS="5": sync
    uv run --frozen --no-sync python -m bench.run --seconds {{ SECONDS }}

# Lint and type-check the workspace
lint: sync
    uv run --frozen --no-sync ruff check .
    uv run --frozen --no-sync ruff format --check .
    uv run --frozen --no-sync pyright

# Lint, then the whole suite (starts PostgreSQL, installs it and Chromium if missing)
test *ARGS: sync lint
    bash scripts/ensure-postgres.sh
    bash scripts/ensure-chromium.sh
    uv run --frozen --no-sync pytest {{ ARGS }}
