#!/usr/bin/env bash
# Make the machine ready for the given test tiers (tests/tiers.py), installing
# and starting what each needs, once; idempotent, cached like the scripts it
# calls. `all` means every tier.
#
#   bash scripts/ensure-tiers.sh unit integration     # just test-fast
#   bash scripts/ensure-tiers.sh all                  # just test
#
# unit         nothing
# integration  PostgreSQL
# clients      PostgreSQL, the pinned npm packages (Node.js 20+): JS clients, the
#              Codex CLI, Mermaid; the pinned Python CLIs (aider, llm) in venvs
# browser      PostgreSQL, Debian's Chromium
# stack        PostgreSQL, the Hatchet engine, LiteLLM, Open WebUI, Debian's pipx,
#              Helm (the chart's tests)
# compose      a Docker engine with Compose and the stack's images, Chromium
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$#" -eq 0 ]; then
    echo "usage: ensure-tiers.sh TIER... (unit integration clients browser stack compose, or all)" >&2
    exit 2
fi
wanted=" $* "
if [ "$wanted" = " all " ]; then wanted=" unit integration clients browser stack compose "; fi
has() { [[ "$wanted" == *" $1 "* ]]; }
for tier in $wanted; do
    case "$tier" in
        unit | integration | clients | browser | stack | compose) ;;
        *) echo "ensure-tiers: unknown tier '$tier'" >&2; exit 2 ;;
    esac
done

if has integration || has clients || has browser || has stack || has compose; then
    bash scripts/ensure-postgres.sh
fi
if has clients; then
    bash scripts/ensure-node-clients.sh
    bash scripts/ensure-cli-clients.sh >/dev/null
fi
if has browser || has compose; then bash scripts/ensure-chromium.sh; fi
if has stack; then
    bash scripts/ensure-pipx.sh
    bash scripts/ensure-hatchet.sh >/dev/null
    bash scripts/ensure-litellm.sh >/dev/null
    bash scripts/ensure-open-webui.sh >/dev/null
    bash scripts/ensure-helm.sh >/dev/null
fi
if has compose; then bash scripts/compose-e2e.sh prepare; fi
