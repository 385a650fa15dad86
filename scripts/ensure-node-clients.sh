#!/usr/bin/env bash
# Install the JavaScript OpenAI clients of the client-matrix tests (tests/clients/js)
# from their package-lock.json. Idempotent: runs `npm ci` only when node_modules is
# missing or the lockfile changed since the last install (a stamp in node_modules
# holds the lockfile's hash). Prints nothing on success.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/tests/clients/js"
stamp="$dir/node_modules/.package-lock.sha256"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  echo "npm not found: the client-matrix tests need Node.js 20 or later with npm" >&2
  exit 1
fi
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "$want" >"$stamp"
