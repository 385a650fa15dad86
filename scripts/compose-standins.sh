#!/usr/bin/env bash
# Build local stand-ins for the six public images of the demo stack
# (compose.yaml, Dockerfile), for machines that reach no image registry (CI),
# and print the variables that point Compose at them, one per line on stdout:
#
#   DEMO_PYTHON_IMAGE=lgos-standin/python:3.11-slim-bookworm
#   DEMO_UV_IMAGE=lgos-standin/uv:0.13.9
#   DEMO_POSTGRES_IMAGE=lgos-standin/postgres:15
#   DEMO_HATCHET_LITE_IMAGE=lgos-standin/hatchet-lite:v0.105.0
#   DEMO_OPEN_WEBUI_IMAGE=lgos-standin/open-webui:v0.12.4
#   DEMO_HAPROXY_IMAGE=lgos-standin/haproxy:2.6-bookworm
#
#   export $(bash scripts/compose-standins.sh | xargs) && docker compose up --build
#
# Progress goes to stderr. The Docker engine must answer already (DOCKER_HOST;
# scripts/ensure-docker.sh). Needs root and debootstrap (the base, once),
# python3 with pip (the uv wheel) and Go (scripts/ensure-hatchet.sh builds the
# Hatchet engine once; a few minutes when its cache is empty).
#
# 1. lgos-standin/debian:bookworm, a minbase debootstrap of Debian bookworm
#    imported as an image; built only when the tag is missing (or its recipe
#    changed), never to refresh packages.
# 2. python, postgres, haproxy and hatchet-lite FROM that base (Dockerfiles in
#    scripts/compose-standins/); uv FROM scratch with the static binaries of
#    the PyPI wheel uv==$UV_VERSION for musllinux.
# 3. open-webui FROM the python stand-in, Open WebUI installed from PyPI with
#    the uv stand-in (ui/open-webui/requirements.txt): the largest, about two
#    minutes and 7 GB when built; hatchet-lite last (it needs the Go build).
#
# Idempotent and cached by content: each image carries the label
# org.lgos.standin.key, a sha256 of its Dockerfile directory and its inputs
# (base image id, CA bundle, binaries, versions); an image whose tag already
# carries the key is not rebuilt. Build contexts are temporary directories.
# LGOS_STANDIN_MIRROR replaces the Debian mirror (http://deb.debian.org/debian).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$here/compose-standins"

# The versions the stand-ins answer for (compose.yaml's defaults) and the
# Debian suite they are made of.
PYTHON_TAG="3.11-slim-bookworm"
UV_VERSION="0.13.9"
POSTGRES_TAG="15"        # Debian bookworm's PostgreSQL (compose.yaml pins 17.6)
SUITE="bookworm"
MIRROR="${LGOS_STANDIN_MIRROR:-http://deb.debian.org/debian}"
CA_BUNDLE="${LGOS_STANDIN_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/lgos/standins"

base_image="lgos-standin/debian:$SUITE"
python_image="lgos-standin/python:$PYTHON_TAG"
uv_image="lgos-standin/uv:$UV_VERSION"
postgres_image="lgos-standin/postgres:$POSTGRES_TAG"
# Debian bookworm's HAProxy is 2.6, the line compose.yaml's balancer pins.
haproxy_image="lgos-standin/haproxy:2.6-$SUITE"
hatchet_version="$(awk '$1 == "require" && $2 == "github.com/hatchet-dev/hatchet" {print $3}' "$here/hatchet/go.mod")"
hatchet_image="lgos-standin/hatchet-lite:$hatchet_version"
label="org.lgos.standin.key"

say() { echo "compose-standins: $*" >&2; }

if ! timeout 20 docker version >/dev/null 2>&1; then
    say "no Docker engine answers (set DOCKER_HOST, or run scripts/ensure-docker.sh first)."
    exit 1
fi

# Without the buildx plugin the docker CLI refuses BuildKit (DOCKER_BUILDKIT=1)
# outright; the stand-ins' Dockerfiles need nothing the classic builder lacks.
if docker buildx version >/dev/null 2>&1; then
    export DOCKER_BUILDKIT=1
else
    export DOCKER_BUILDKIT=0
fi

tmp_root="$(mktemp -d "${TMPDIR:-/tmp}/lgos-standins.XXXXXX")"
# Build contexts and the debootstrap tree live here, and go on any exit.
trap 'rm -rf "$tmp_root"' EXIT

# key NAME [EXTRA...]: sha256 of the files of scripts/compose-standins/NAME
# (path and content) and the extra strings (versions, hashes of inputs).
key() {
    local name="$1"
    shift
    {
        (cd "$dir/$name" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
        printf '%s\n' "$@"
    } | sha256sum | cut -d' ' -f1
}

# current_key IMAGE: the key label of IMAGE, empty when the tag is missing.
current_key() {
    docker image inspect --format "{{ index .Config.Labels \"$label\" }}" "$1" 2>/dev/null || true
}

# build IMAGE KEY CONTEXT [BUILD_ARG...]: docker build CONTEXT as IMAGE,
# labelled with KEY, FROM the Debian base unless a BASE_IMAGE=... argument
# names another; its output on stderr.
build() {
    local image="$1" k="$2" context="$3"
    shift 3
    local started=$SECONDS arg
    local -a args=(--build-arg "BASE_IMAGE=$base_image")
    for arg in "$@"; do args+=(--build-arg "$arg"); done
    say "building $image (key ${k:0:12})"
    docker build --label "$label=$k" "${args[@]}" -t "$image" "$context" >&2
    say "built $image in $((SECONDS - started)) s"
}

# fresh IMAGE KEY: true when IMAGE exists with KEY (nothing to build).
fresh() {
    if [ "$(current_key "$1")" = "$2" ]; then
        say "$1 is up to date (key ${2:0:12})"
        return 0
    fi
    return 1
}

# context NAME: a temporary copy of scripts/compose-standins/NAME.
context() {
    local c="$tmp_root/context-$1"
    mkdir -p "$c"
    cp -a "$dir/$1/." "$c/"
    echo "$c"
}

# --- 1. the Debian base -------------------------------------------------------
# Its key names the recipe below (bump BASE_RECIPE when changing it), not the
# packages of the day: an existing base is kept, however old.
BASE_RECIPE=1
k="$(printf '%s\n' "debootstrap --variant=minbase $SUITE" "recipe $BASE_RECIPE" | sha256sum | cut -d' ' -f1)"
if ! fresh "$base_image" "$k"; then
    if ! command -v debootstrap >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] \
        && command -v apt-get >/dev/null 2>&1; then
        say "installing Debian's debootstrap (builds the base image)..."
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            debootstrap >/dev/null
    fi
    if ! command -v debootstrap >/dev/null 2>&1; then
        say "debootstrap is needed to build $base_image (apt-get install debootstrap)."
        exit 1
    fi
    started=$SECONDS
    say "building $base_image: debootstrap --variant=minbase $SUITE from $MIRROR"
    rootfs="$tmp_root/rootfs"
    mkdir -p "$rootfs"
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >&2
    # As Debian's slim images: no documentation, now or from packages
    # installed later (copyright files stay); no downloaded packages or lists.
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/lgos-standin-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
CFG
    find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" --numeric-owner -c . |
        docker import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' \
            --change "LABEL $label=$k" \
            --message "debootstrap --variant=minbase $SUITE $MIRROR" - "$base_image" >&2
    rm -rf "$rootfs"
    say "built $base_image in $((SECONDS - started)) s"
fi
base_id="$(docker image inspect --format '{{.Id}}' "$base_image")"

# --- 2. python ------------------------------------------------------------------
ca_sha="$(sha256sum "$CA_BUNDLE" | cut -d' ' -f1)"
k="$(key python "$base_id" "$ca_sha" "$PYTHON_TAG")"
if ! fresh "$python_image" "$k"; then
    c="$(context python)"
    cp "$CA_BUNDLE" "$c/ca-bundle.crt"
    build "$python_image" "$k" "$c"
fi

# --- 3. uv ----------------------------------------------------------------------
# The musllinux wheel: its binaries are static, as in the official image
# (FROM scratch, no libc); the manylinux wheel's need glibc.
uv_platform="musllinux_1_1_$(uname -m)"
k="$(key uv "$UV_VERSION" "$uv_platform")"
if ! fresh "$uv_image" "$k"; then
    wheels="$cache/uv-$UV_VERSION"
    wheel="$(find "$wheels" -name "uv-$UV_VERSION-*-$uv_platform.whl" 2>/dev/null | head -n 1 || true)"
    if [ -z "$wheel" ]; then
        say "downloading the uv==$UV_VERSION wheel ($uv_platform) from PyPI"
        mkdir -p "$wheels"
        python3 -m pip download --quiet --disable-pip-version-check --no-deps \
            --only-binary=:all: --platform "$uv_platform" "uv==$UV_VERSION" -d "$wheels" >&2
        wheel="$(find "$wheels" -name "uv-$UV_VERSION-*-$uv_platform.whl" | head -n 1)"
    fi
    c="$(context uv)"
    python3 - "$wheel" "$c" "uv-$UV_VERSION.data/scripts" <<'PY'
import os, sys, zipfile
wheel, out, prefix = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in ("uv", "uvx"):
        path = os.path.join(out, name)
        with open(path, "wb") as f:
            f.write(z.read(f"{prefix}/{name}"))
        os.chmod(path, 0o755)
PY
    build "$uv_image" "$k" "$c"
fi

# --- 4. postgres ------------------------------------------------------------------
k="$(key postgres "$base_id" "$POSTGRES_TAG")"
if ! fresh "$postgres_image" "$k"; then
    build "$postgres_image" "$k" "$(context postgres)"
fi

# --- 5. haproxy ------------------------------------------------------------------
# The balancer of `just demo --replicas N` (demo/compose/replicas.yaml).
k="$(key haproxy "$base_id")"
if ! fresh "$haproxy_image" "$k"; then
    build "$haproxy_image" "$k" "$(context haproxy)"
fi

# --- 6. open-webui ------------------------------------------------------------------
# Open WebUI from PyPI (ui/open-webui/requirements.txt, the local demo's pinned
# set) on the python stand-in: about two minutes and 7 GB the first time.
open_webui_version="$(awk -F'"' '/^version=/ {print $2; exit}' "$here/ensure-open-webui.sh")"
open_webui_image="lgos-standin/open-webui:v$open_webui_version"
requirements="$here/../ui/open-webui/requirements.txt"
python_id="$(docker image inspect --format '{{.Id}}' "$python_image")"
uv_id="$(docker image inspect --format '{{.Id}}' "$uv_image")"
k="$(key open-webui "$python_id" "$uv_id" "$(sha256sum <"$requirements")")"
if ! fresh "$open_webui_image" "$k"; then
    c="$(context open-webui)"
    cp "$requirements" "$c/requirements.txt"
    build "$open_webui_image" "$k" "$c" "BASE_IMAGE=$python_image" "UV_IMAGE=$uv_image"
fi

# --- 7. hatchet-lite --------------------------------------------------------------
# The engine's binaries (built once, cached, by ensure-hatchet.sh) and
# upstream's start.sh from the Go module cache. Last: .ci/run builds the
# engine at the same time as the images before it, and this waits for it.
hatchet_bin="$(dirname "$(bash "$here/ensure-hatchet.sh")")"
modcache="$(go env GOMODCACHE)"
start_sh="$modcache/github.com/hatchet-dev/hatchet@$hatchet_version/hack/lite/start.sh"
if [ ! -f "$start_sh" ]; then
    say "downloading github.com/hatchet-dev/hatchet@$hatchet_version (for hack/lite/start.sh)"
    (cd "$here/hatchet" && go mod download "github.com/hatchet-dev/hatchet@$hatchet_version") >&2
fi
k="$(key hatchet-lite "$base_id" "$hatchet_version" \
    "$(cd "$hatchet_bin" && sha256sum hatchet-lite hatchet-admin hatchet-migrate)" \
    "$(sha256sum <"$start_sh")")"
if ! fresh "$hatchet_image" "$k"; then
    c="$(context hatchet-lite)"
    cp "$hatchet_bin"/hatchet-lite "$hatchet_bin"/hatchet-admin "$hatchet_bin"/hatchet-migrate "$c/"
    cp "$start_sh" "$c/entrypoint.sh"
    build "$hatchet_image" "$k" "$c"
fi

echo "DEMO_PYTHON_IMAGE=$python_image"
echo "DEMO_UV_IMAGE=$uv_image"
echo "DEMO_POSTGRES_IMAGE=$postgres_image"
echo "DEMO_HATCHET_LITE_IMAGE=$hatchet_image"
echo "DEMO_OPEN_WEBUI_IMAGE=$open_webui_image"
echo "DEMO_HAPROXY_IMAGE=$haproxy_image"
