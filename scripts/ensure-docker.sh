#!/usr/bin/env bash
# Make a Docker engine and the Docker Compose v2 plugin answer, for the
# Compose end-to-end tests (tests/compose_stack) and `just demo --compose`.
# Idempotent; prints the DOCKER_HOST to use on stdout (nothing when the
# engine that already answers needs no DOCKER_HOST), everything else on stderr.
#
#   host="$(bash scripts/ensure-docker.sh)" && [ -n "$host" ] && export DOCKER_HOST="$host"
#
# 1. An engine that already answers `docker info` (Docker Desktop, a system
#    dockerd, DOCKER_HOST) is used as it is.
# 2. Otherwise, as root on Debian: Debian's docker.io package is installed if
#    dockerd is missing, and a dockerd of our own is started with its own data
#    root, exec root and socket (LGOS_DOCKER_SOCKET, default
#    /run/lgos-docker/docker.sock), so it never touches a system engine's state.
#    The storage driver is dockerd's choice (overlay2 where the kernel allows),
#    or LGOS_DOCKER_STORAGE_DRIVER (for example vfs). Interfaces created from
#    then on get no IPv6 (see below; LGOS_DOCKER_KEEP_IPV6=1 opts out).
# 3. When `docker compose` is missing, Compose v2 (COMPOSE_VERSION) is built
#    from the Go module proxy once, cached, and installed as the CLI plugin.
#
# `ensure-docker.sh engine` does 1-2 only, `ensure-docker.sh compose` 3 only
# (it needs the docker CLI, not an engine): .ci/run builds Compose while the
# engine builds the stand-in images.
set -euo pipefail
part="${1:-all}"
case "$part" in
    all | engine | compose) ;;
    *) echo "usage: ensure-docker.sh [engine|compose]" >&2; exit 2 ;;
esac

COMPOSE_VERSION="v2.40.3"
# Compose v2.40 needs a newer Go than Debian's; the go command fetches this
# toolchain from the module proxy like a module.
COMPOSE_GOTOOLCHAIN="go1.27.3"
socket="${LGOS_DOCKER_SOCKET:-/run/lgos-docker/docker.sock}"
state="${LGOS_DOCKER_STATE_DIR:-/var/lib/lgos-docker}"
run_dir="$(dirname "$socket")"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/lgos/compose/$COMPOSE_VERSION"
plugins="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"

say() { echo "ensure-docker: $*" >&2; }
answers() { timeout 10 docker info >/dev/null 2>&1; }

# Every container start gives its host-side veth an IPv6 link-local address,
# and Chromium fails every request under way with net::ERR_NETWORK_CHANGED
# when an address appears (the browser tests run beside the Compose tests).
# The engine's networks are IPv4, so with the engine we start ourselves new
# interfaces get no IPv6; LGOS_DOCKER_KEEP_IPV6=1 leaves the setting alone.
quiet_ipv6() {
    if [ "${LGOS_DOCKER_KEEP_IPV6:-0}" != "1" ] && [ "$(id -u)" -eq 0 ] \
        && [ "$(sysctl -n net.ipv6.conf.default.disable_ipv6 2>/dev/null || echo 1)" = "0" ]; then
        say "new network interfaces get no IPv6 (net.ipv6.conf.default.disable_ipv6=1; LGOS_DOCKER_KEEP_IPV6=1 keeps it)"
        sysctl -qw net.ipv6.conf.default.disable_ipv6=1 || say "could not set it; going on"
    fi
}

host=""
if [ "$part" = "compose" ]; then
    :
elif command -v docker >/dev/null 2>&1 && answers; then
    host="${DOCKER_HOST:-}"
elif command -v docker >/dev/null 2>&1 && DOCKER_HOST="unix://$socket" answers; then
    host="unix://$socket"
    quiet_ipv6
else
    if [ "$(id -u)" -ne 0 ]; then
        say "no Docker engine answers 'docker info', and starting one needs root."
        say "Start Docker (or set DOCKER_HOST), then run this again."
        exit 1
    fi
    if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
        say "installing Debian's docker.io (the engine)..."
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            docker.io iptables ca-certificates >/dev/null
    fi
    mkdir -p "$run_dir" "$state"
    quiet_ipv6
    say "starting dockerd on unix://$socket (data in $state, log in $run_dir/dockerd.log)"
    # A daemon of ours that died leaves its pid file; dockerd refuses to start over it.
    rm -f "$run_dir/dockerd.pid"
    driver=()
    if [ -n "${LGOS_DOCKER_STORAGE_DRIVER:-}" ]; then
        driver=(--storage-driver "$LGOS_DOCKER_STORAGE_DRIVER")
    fi
    # A session of its own: the engine outlives the process group that started
    # it (a test run or a `just demo` stopped with Ctrl-C).
    setsid nohup dockerd "${driver[@]}" --data-root "$state" --exec-root "$run_dir/exec" \
        --pidfile "$run_dir/dockerd.pid" -H "unix://$socket" \
        >"$run_dir/dockerd.log" 2>&1 </dev/null &
    host="unix://$socket"
    for _ in $(seq 1 120); do
        if DOCKER_HOST="$host" answers; then break; fi
        sleep 0.5
    done
    if ! DOCKER_HOST="$host" answers; then
        say "dockerd did not answer within 60 s; its log:"
        tail -n 20 "$run_dir/dockerd.log" >&2 || true
        exit 1
    fi
fi

if [ "$part" != "engine" ] && ! docker compose version >/dev/null 2>&1; then
    if [ ! -x "$cache/docker-compose" ]; then
        if ! command -v go >/dev/null 2>&1; then
            say "'docker compose' is missing and Go is needed to build it (https://go.dev/dl/)."
            exit 1
        fi
        say "building Docker Compose $COMPOSE_VERSION from the Go module proxy (first time only, a few minutes)"
        mkdir -p "$cache"
        tmp="$(mktemp -d "$cache/.build.XXXXXX")"
        trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
        export GOTOOLCHAIN="$COMPOSE_GOTOOLCHAIN" GOFLAGS=-mod=mod
        module="$(cd "$tmp" && go mod download -json "github.com/docker/compose/v2@$COMPOSE_VERSION" \
            | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
        # The module cache is read-only; build in a writable copy of it.
        cp -r "$module" "$tmp/src"
        chmod -R u+w "$tmp/src"
        (cd "$tmp/src" && go build -trimpath \
            -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
            -o "$tmp/docker-compose" ./cmd) >&2
        mv "$tmp/docker-compose" "$cache/docker-compose"
    fi
    mkdir -p "$plugins"
    install -m 0755 "$cache/docker-compose" "$plugins/docker-compose"
    say "installed Docker Compose $COMPOSE_VERSION as $plugins/docker-compose"
fi
echo "$host"
