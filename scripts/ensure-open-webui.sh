#!/usr/bin/env bash
# Install the pinned Open WebUI (the demo's optional second chat UI, `just demo
# --open-webui`) into its own virtual environment, once, in a cache directory;
# print the path of that environment. Idempotent: a finished install is reused.
# Its dependencies never enter the workspace's uv.lock.
#
# The pin is `version` below; the full dependency set is
# ui/open-webui/requirements.txt, compiled from ui/open-webui/requirements.in
# (`uv pip compile --universal --python-version 3.11 requirements.in -o
# requirements.txt` in that folder). The environment is about 7 GB (Open WebUI
# brings torch); the install takes about a minute with a warm uv cache. A
# changed requirements file makes a new environment (its hash names it).
set -euo pipefail
version="0.12.4"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requirements="$root/ui/open-webui/requirements.txt"
if ! grep -qx "open-webui==$version" "$requirements"; then
  echo "ensure-open-webui: $requirements does not pin open-webui==$version" >&2
  exit 1
fi
digest="$(sha256sum "$requirements" | cut -c1-12)"
cache="${LGOS_OPEN_WEBUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lgos/open-webui}/$version"
venv="$cache/venv-$digest"
marker="$venv/.lgos-installed"

installed() { [ -f "$marker" ] && [ -x "$venv/bin/open-webui" ]; }
mkdir -p "$cache"
if ! installed; then
  # One install at a time; a second caller waits for it and reuses the result.
  exec 9>"$cache/.lock"
  flock 9
fi
if installed; then
  echo "$venv"
  exit 0
fi

if ! command -v uv >/dev/null 2>&1; then
  echo "ensure-open-webui: uv is needed to install Open WebUI $version (https://docs.astral.sh/uv/)." >&2
  exit 1
fi
echo "ensure-open-webui: installing Open WebUI $version into $venv (first time only, about a minute, 7 GB)" >&2
rm -rf "$venv"
uv venv --quiet --python 3.11 "$venv" >&2
# --compile-bytecode: Open WebUI imports thousands of modules; compiling them
# here, once, saves minutes on its first start.
VIRTUAL_ENV="$venv" uv pip install --quiet --compile-bytecode --python "$venv/bin/python" \
  --requirement "$requirements" >&2
"$venv/bin/python" -c 'import open_webui, openai' >/dev/null 2>&1 || {
  echo "ensure-open-webui: Open WebUI in $venv does not import" >&2
  exit 1
}
touch "$marker"
echo "$venv"
