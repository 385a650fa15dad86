#!/usr/bin/env bash
# Build the pinned Helm command from the Go module proxy, once, into a cache
# directory, and print its path on stdout (everything else on stderr). The
# chart's tests (tests/deploy) render deploy/helm/lgos with it and run
# `helm lint`. Idempotent: a finished build is reused; a second caller waits
# for a build under way and reuses it.
#
#   helm="$(bash scripts/ensure-helm.sh)" && "$helm" template deploy/helm/lgos
#
# As scripts/ensure-docker.sh builds Compose: the module's own go.mod and
# go.sum pin every dependency (the go command checks the module itself against
# the checksum database), and the build runs in a writable copy of it.
# Helm 4: Helm 3 receives no more fixes; the chart (apiVersion v2) suits both.
set -euo pipefail

HELM_VERSION="v4.3.2"
cache="${LGOS_HELM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lgos/helm}/$HELM_VERSION"
binary="$cache/helm"

say() { echo "ensure-helm: $*" >&2; }

mkdir -p "$cache"
if [ ! -x "$binary" ]; then
    exec 9>"$cache/.lock"
    flock 9
fi
if [ -x "$binary" ]; then
    echo "$binary"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    say "Go is needed to build Helm $HELM_VERSION (https://go.dev/dl/)."
    exit 1
fi
say "building Helm $HELM_VERSION from the Go module proxy into $cache (first time only, a few minutes)"
tmp="$(mktemp -d "$cache/.build.XXXXXX")"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# go.sum of the module pins every dependency: nothing may change it.
export GOFLAGS=-mod=readonly
module="$(cd "$tmp" && go mod download -json "helm.sh/helm/v4@$HELM_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [ -z "$module" ]; then
    say "the Go module proxy did not give helm.sh/helm/v4@$HELM_VERSION"
    exit 1
fi
# The module cache is read-only; build in a writable copy of it.
cp -r "$module" "$tmp/src"
chmod -R u+w "$tmp/src"
# The flags of Helm's Makefile for a release build (static, version stamped).
(cd "$tmp/src" && CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION -X helm.sh/helm/v4/internal/version.metadata= -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
    -o "$tmp/helm" ./cmd/helm) >&2
mv "$tmp/helm" "$binary"
say "built $binary ($("$binary" version --short 2>/dev/null || echo "$HELM_VERSION"))"
echo "$binary"
