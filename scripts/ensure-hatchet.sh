#!/usr/bin/env bash
# Build the pinned Hatchet engine (hatchet-lite, hatchet-admin, hatchet-migrate)
# with Go from the module proxy, once, into a cache directory; install our
# sidecar launcher beside it; print the launcher's path (for
# HATCHET_CLIENT_EMBEDDED_BINARY_PATH). Idempotent: a finished build is reused.
#
# The pinned version is the `require github.com/hatchet-dev/hatchet` line of
# scripts/hatchet/go.mod; go.sum there pins every module's hash.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(awk '$1 == "require" && $2 == "github.com/hatchet-dev/hatchet" {print $3}' "$here/hatchet/go.mod")"
cache="${LGOS_HATCHET_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lgos/hatchet}/$version"
launcher="$cache/hatchet-embedded-sidecar"

built() { [ -x "$cache/hatchet-lite" ] && [ -x "$cache/hatchet-admin" ] && [ -x "$cache/hatchet-migrate" ]; }
mkdir -p "$cache"
if ! built; then
  # One build at a time; a second caller waits for it and reuses the result.
  exec 9>"$cache/.lock"
  flock 9
fi
if built; then
  install -m 0755 "$here/hatchet/sidecar.py" "$launcher"
  echo "$launcher"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "ensure-hatchet: Go is needed to build the Hatchet engine $version (https://go.dev/dl/)." >&2
  exit 1
fi

echo "ensure-hatchet: building the Hatchet engine $version into $cache (first time only, a few minutes)" >&2
tmp="$(mktemp -d "$cache/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$here/hatchet"
# One go build for the three commands: it compiles their shared packages once
# and links them side by side. main.Version is what the engine reports to SDKs
# (they gate features on it).
GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w -X main.Version=$version" -o "$tmp/" \
  github.com/hatchet-dev/hatchet/cmd/hatchet-lite \
  github.com/hatchet-dev/hatchet/cmd/hatchet-admin \
  github.com/hatchet-dev/hatchet/cmd/hatchet-migrate >&2
mv "$tmp"/hatchet-* "$cache/"
install -m 0755 "$here/hatchet/sidecar.py" "$launcher"
echo "$launcher"
