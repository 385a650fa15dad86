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

# No exit message: Ctrl-C is the normal way to stop it; the script reports its own errors.
[doc("Run the demo stack: Docker Compose when an engine answers, else local processes (`just demo --help`)")]
[no-exit-message]
[positional-arguments]
demo *ARGS:
    @bash scripts/demo.sh "$@"

# ARGS e.g. --only requests,stream or --hatchet; see docs/benchmarks.md.
[doc("Overhead benchmark: prints tables, writes .data/bench.json (SECONDS per figure)")]
bench SECONDS="3" *ARGS: sync
    bash scripts/ensure-postgres.sh
    uv run --frozen --no-sync python -m bench.run --seconds {{ SECONDS }} {{ ARGS }}

# Docs site: `just docs` builds it into site/ (strict), `just docs serve` previews it on :8008
docs COMMAND="build": sync
    #!/usr/bin/env bash
    set -euo pipefail
    export NO_MKDOCS_2_WARNING=1
    bash scripts/ensure-node-clients.sh scripts/docs-js  # Mermaid, served with the site
    case "{{ COMMAND }}" in
        build) uv run --frozen --no-sync mkdocs build --strict
               echo "Built site/; preview it with: just docs serve" ;;
        # Ctrl-C ends the preview: a normal stop, not "Aborted!" and a failed recipe.
        serve) uv run --frozen --no-sync python scripts/docs-serve.py \
                   --dev-addr "127.0.0.1:${DOCS_PORT:-8008}" ;;
        *) echo "usage: just docs [build|serve]" >&2; exit 2 ;;
    esac

# Lint and type-check the workspace
lint: sync
    uv run --frozen --no-sync ruff check .
    uv run --frozen --no-sync ruff format --check .
    uv run --frozen --no-sync pyright

# Lint, then the whole suite (starts PostgreSQL, installs it, Chromium, the JS clients, the LiteLLM proxy, Open WebUI and a Docker engine if missing)
test *ARGS: sync lint
    bash scripts/ensure-postgres.sh
    bash scripts/ensure-chromium.sh
    bash scripts/ensure-pipx.sh
    bash scripts/ensure-node-clients.sh
    bash scripts/ensure-hatchet.sh >/dev/null
    bash scripts/ensure-litellm.sh >/dev/null
    bash scripts/ensure-open-webui.sh >/dev/null
    bash scripts/compose-e2e.sh prepare --if-possible
    uv run --frozen --no-sync pytest {{ ARGS }}

# Compose end to end: `just demo` on a real Docker engine (installed and started if missing), checked in the browser
test-compose *ARGS: sync
    bash scripts/ensure-chromium.sh
    bash scripts/ensure-hatchet.sh >/dev/null
    bash scripts/compose-e2e.sh {{ ARGS }}
