# LGOS: LangGraph graphs behind an OpenAI-compatible API, with a demo stack.
# `just` lists the recipes. Variables from a `.env` file (see .env.example) apply.

set shell := ["bash", "-euo", "pipefail", "-c"]
set dotenv-load := true

# List the recipes (and the demo-only ones, run as `just demo/<recipe>`)
default:
    @just --list
    @echo "Demo-only recipes (run as just demo/<recipe>):"
    @just --justfile demo/justfile --list --list-heading '' --list-prefix '    demo/'


# Install every workspace package and the dev tools from uv.lock (compiled to bytecode once per lock)
sync:
    #!/usr/bin/env bash
    set -euo pipefail
    # Compiled once per uv.lock (about 30 s): every Python process then starts
    # about twice as fast, also where PYTHONDONTWRITEBYTECODE is set.
    stamp=.venv/.lgos-bytecode
    want="$(sha256sum uv.lock | cut -c1-16)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        uv sync --all-packages --frozen --quiet
    else
        uv sync --all-packages --frozen --quiet --compile-bytecode
        echo "$want" >"$stamp"
    fi

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

# Write the Open WebUI pipe (ui/open-webui/lgos_pipe.py) from pipe_source.py, lgos_open_webui and lgos_client
pipe: sync
    uv run --frozen --no-sync python ui/open-webui/generate.py

# Lint and type-check the workspace
lint: sync
    uv run --frozen --no-sync ruff check .
    uv run --frozen --no-sync ruff format --check .
    uv run --frozen --no-sync pyright

# pytest as the test recipes run it: bytecode caches written (the suite starts
# hundreds of Python processes), xdist workers, and the timing plugin.
pytest := "env -u PYTHONDONTWRITEBYTECODE uv run --frozen --no-sync pytest"
workers := env("LGOS_TEST_WORKERS", "auto")
fast := "not clients and not browser and not stack and not compose"

# Lint, then the whole suite: every tier, what CI runs (installs and starts what the tiers need; docs/testing.md)
test *ARGS: sync lint
    bash scripts/ensure-tiers.sh all
    {{ pytest }} -n {{ workers }} --dist loadfile --timings=.data/test-times/full.json \
        --budget-total="${LGOS_TEST_BUDGET_TOTAL:-1200}" --budget-test="${LGOS_TEST_BUDGET_TEST:-240}" {{ ARGS }}

# The inner loop: the unit and integration tiers, needing only uv and PostgreSQL (no lint; docs/testing.md)
test-fast *ARGS: sync
    bash scripts/ensure-tiers.sh unit integration
    # The fast tiers mostly wait on processes and PostgreSQL: one worker more
    # than cores (2 cores: 245 s instead of 313 s; docs/testing.md).
    {{ pytest }} -m "{{ fast }}" -n "${LGOS_TEST_WORKERS:-$(( {{ num_cpus() }} + 1 ))}" --dist loadfile --timings=.data/test-times/fast.json \
        --budget-total="${LGOS_TEST_BUDGET_FAST:-300}" --budget-test="${LGOS_TEST_BUDGET_TEST:-240}" {{ ARGS }}

# One or more tiers and what they need, e.g. `just test-tier browser` or `just test-tier "clients or stack"`
test-tier TIERS *ARGS: sync
    bash scripts/ensure-tiers.sh $(echo "{{ TIERS }}" | sed 's/\bor\b\|\band\b\|\bnot\b\|[()]/ /g')
    {{ pytest }} -m "{{ TIERS }}" -n {{ workers }} --dist loadfile --timings=.data/test-times/tier.json {{ ARGS }}

# Write the measured tables of docs/testing.md from the last run's timings (.data/test-times/full.json)
test-report *FILES: sync
    uv run --frozen --no-sync python scripts/test-report.py {{ FILES }}

# Compose end to end: `just demo` on a real Docker engine (installed and started if missing), checked in the browser
test-compose *ARGS: sync
    bash scripts/ensure-chromium.sh
    bash scripts/ensure-hatchet.sh >/dev/null
    bash scripts/compose-e2e.sh {{ ARGS }}
