#!/usr/bin/env bash
# Install the project's JavaScript packages from their package-lock.json files:
# tests/clients/js (the OpenAI clients of the client-matrix tests),
# tests/clients/codex (the Codex CLI; its Rust binary comes in the platform
# package npm picks, @openai/codex-linux-x64 here) and scripts/docs-js
# (Mermaid, which the docs site serves itself). With arguments, only those
# folders (e.g. `ensure-node-clients.sh scripts/docs-js`).
# Idempotent: runs `npm ci` only when node_modules is missing or the lockfile
# changed since the last install (a stamp in node_modules holds the lockfile's
# hash). Prints nothing on success.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$#" -eq 0 ]; then set -- tests/clients/js tests/clients/codex scripts/docs-js; fi
for folder in "$@"; do
  dir="$root/$folder"
  stamp="$dir/node_modules/.package-lock.sha256"
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then continue; fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm not found: $folder needs Node.js 20 or later with npm" >&2
    exit 1
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" >"$stamp"
done
