#!/usr/bin/env bash
# The stand-in's command (scripts/compose-standins/open-webui/Dockerfile),
# doing what upstream's backend/start.sh does for this demo: without
# WEBUI_SECRET_KEY, a key generated once into .webui_secret_key beside it;
# then Open WebUI's server on HOST:PORT, trusting forwarded headers. The
# server starts through the package's own `open-webui serve`, which finds the
# frontend and static files inside the installed package (upstream's image
# runs uvicorn on its source tree instead).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
key_file=.webui_secret_key
if [ -z "${WEBUI_SECRET_KEY:-}${WEBUI_JWT_SECRET_KEY:-}" ]; then
    if [ ! -e "$key_file" ]; then
        echo "Generating WEBUI_SECRET_KEY"
        head -c 12 /dev/random | base64 >"$key_file"
    fi
    echo "Loading WEBUI_SECRET_KEY from $key_file"
    WEBUI_SECRET_KEY="$(cat "$key_file")"
fi
export WEBUI_SECRET_KEY
exec open-webui serve --host "${HOST:-0.0.0.0}" --port "${PORT:-8080}"
