#!/usr/bin/env bash
# Install the pinned LiteLLM proxy (the demo's optional gateway, `just demo
# --gateway`) into its own virtual environment, once, in a cache directory;
# print the path of its `litellm` executable. Idempotent: a finished install is
# reused. Its dependencies never enter the workspace's uv.lock.
#
# The pin is `version` below, a release whose `proxy` extra installs from the
# package index alone (1.110.2's, the SDK release in uv.lock, requires a
# `litellm-proxy` distribution the index does not have). Never 1.107.0: that
# release was compromised.
# The proxy runs without a database (no DATABASE_URL): its database mode needs
# Prisma engine binaries fetched at run time. See docs/how-to/proxies.md.
set -euo pipefail
version="1.108.7"
if [ "$version" = "1.107.0" ]; then
  echo "ensure-litellm: refusing LiteLLM 1.107.0 (a compromised release)" >&2
  exit 1
fi
cache="${LGOS_LITELLM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lgos/litellm}/$version"
venv="$cache/venv"
executable="$venv/bin/litellm"
# The name says how: compiled to bytecode (an older, uncompiled install is redone).
marker="$cache/.installed-compiled"

installed() { [ -f "$marker" ] && [ -x "$executable" ]; }
mkdir -p "$cache"
if ! installed; then
  # One install at a time; a second caller waits for it and reuses the result.
  exec 9>"$cache/.lock"
  flock 9
fi
if installed; then
  echo "$executable"
  exit 0
fi

if ! command -v uv >/dev/null 2>&1; then
  echo "ensure-litellm: uv is needed to install LiteLLM $version (https://docs.astral.sh/uv/)." >&2
  exit 1
fi
echo "ensure-litellm: installing the LiteLLM proxy $version into $venv (first time only, about a minute)" >&2
rm -rf "$venv"
uv venv --quiet --python 3.11 "$venv" >&2
# `litellm[proxy]` is the proxy server (FastAPI, uvicorn, ...) without Prisma's
# engines, which only its database mode needs.
# --compile-bytecode: the proxy imports thousands of modules at every start;
# compiled here, once, it starts in half the time (PYTHONDONTWRITEBYTECODE or not).
VIRTUAL_ENV="$venv" uv pip install --quiet --compile-bytecode --python "$venv/bin/python" \
  "litellm[proxy]==$version" >&2
"$venv/bin/python" -c 'import litellm.proxy.proxy_server' >/dev/null 2>&1 || {
  # Importing the proxy is the check that every dependency arrived.
  echo "ensure-litellm: the LiteLLM proxy in $venv does not import" >&2
  exit 1
}
touch "$marker"
echo "$executable"
