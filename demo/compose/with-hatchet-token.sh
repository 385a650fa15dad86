#!/bin/sh
# Entrypoint of the demo API and worker containers (compose.yaml): export the
# Hatchet API token that the one-shot hatchet-token service wrote into the
# shared volume as HATCHET_CLIENT_TOKEN, then run the command (exec "$@").
# HATCHET_CLIENT_TOKEN already set wins; HATCHET_TOKEN_FILE moves the file.
set -eu

token_file="${HATCHET_TOKEN_FILE:-/run/hatchet/token}"
if [ -z "${HATCHET_CLIENT_TOKEN:-}" ]; then
    if [ ! -s "$token_file" ]; then
        echo "with-hatchet-token: no Hatchet token in $token_file (did the hatchet-token service run?)" >&2
        exit 1
    fi
    HATCHET_CLIENT_TOKEN="$(cat "$token_file")"
    export HATCHET_CLIENT_TOKEN
fi
exec "$@"
