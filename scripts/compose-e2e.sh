#!/usr/bin/env bash
# The demo stack on a real container engine: `just demo` in Compose mode, built
# and started as a user would, then checked from the browser
# (tests/compose_stack; docs/demo/stack.md, "Verified on a real engine").
#
#   scripts/compose-e2e.sh prepare [--if-possible]
#       Make an engine and `docker compose` answer (scripts/ensure-docker.sh)
#       and build local stand-ins for the public images when no registry
#       serves them (scripts/compose-standins.sh); write what the tests need
#       (DOCKER_HOST, DEMO_*_IMAGE) to .data/compose-e2e.env. With
#       --if-possible a machine that cannot run an engine is not an error:
#       the file is removed and the tests skip, saying why (`just test` does
#       this; `.ci/run` prepares without it, and CI=true turns a skip into a
#       failure).
#   scripts/compose-e2e.sh [PYTEST_ARGS...]
#       prepare, then run the Compose end-to-end tests (`just test-compose`).
#
# LGOS_COMPOSE_IMAGES chooses the images: `standins` (built locally; the
# default as root on a Debian-like machine, as in CI), `public` (pulled from
# their registries; the default elsewhere).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
env_file=".data/compose-e2e.env"

prepare() {
    local if_possible="${1:-}" host images=""
    rm -f "$env_file"
    if ! host="$(bash scripts/ensure-docker.sh)"; then
        if [ "$if_possible" = "--if-possible" ]; then
            echo "compose-e2e: no container engine here; the Compose end-to-end tests will skip." >&2
            return 0
        fi
        return 1
    fi
    if [ -n "$host" ]; then export DOCKER_HOST="$host"; fi
    local mode="${LGOS_COMPOSE_IMAGES:-auto}"
    if [ "$mode" = "auto" ]; then
        # Stand-ins need root and apt (debootstrap); elsewhere (Docker
        # Desktop, a rootless engine) the public images are pulled as usual.
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
            mode="standins"
        else
            mode="public"
        fi
    fi
    if [ "$mode" = "standins" ] && ! images="$(bash scripts/compose-standins.sh)"; then
        if [ "$if_possible" = "--if-possible" ]; then
            echo "compose-e2e: the stand-in images could not be built; the Compose end-to-end tests will skip." >&2
            return 0
        fi
        return 1
    fi
    mkdir -p "$(dirname "$env_file")"
    {
        echo "# Written by scripts/compose-e2e.sh prepare; read by tests/compose_stack."
        if [ -n "$host" ]; then echo "DOCKER_HOST=$host"; fi
        if [ -n "$images" ]; then echo "$images"; fi
    } >"$env_file.new"
    mv "$env_file.new" "$env_file"
}

case "${1:-}" in
    prepare) shift; prepare "$@" ;;
    *)
        prepare
        exec uv run --frozen --no-sync pytest tests/compose_stack "$@"
        ;;
esac
