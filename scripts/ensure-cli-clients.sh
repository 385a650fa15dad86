#!/usr/bin/env bash
# Install the pinned Python command-line clients of the client matrix (aider and
# llm, tests/clients/test_cli_clients.py), each into its own virtual environment,
# once, in a cache directory; print one line per client: NAME<tab>its venv.
# Idempotent: a finished install is reused. Their dependencies never enter the
# workspace's uv.lock. With arguments, only those clients (`aider`, `llm`).
#
# The pins are tests/clients/cli/NAME.txt, compiled from NAME.in in that folder
# (`uv pip compile --universal --python-version 3.11 NAME.in -o NAME.txt`); a
# changed requirements file makes a new environment (its hash names it). The
# Codex CLI is an npm package: scripts/ensure-node-clients.sh installs it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "$#" -eq 0 ]; then set -- aider llm; fi
cache_root="${LGOS_CLI_CLIENTS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lgos/cli-clients}"

# NAME: the executable the client installs, and the module that must import.
executable() { case "$1" in aider) echo aider ;; llm) echo llm ;; esac; }
module() { case "$1" in aider) echo aider.main ;; llm) echo llm.cli ;; esac; }

for name in "$@"; do
  case "$name" in
    aider | llm) ;;
    *) echo "ensure-cli-clients: unknown client '$name' (aider, llm)" >&2; exit 2 ;;
  esac
  requirements="$root/tests/clients/cli/$name.txt"
  digest="$(sha256sum "$requirements" | cut -c1-12)"
  cache="$cache_root/$name"
  venv="$cache/venv-$digest"
  marker="$venv/.lgos-installed"
  installed() { [ -f "$marker" ] && [ -x "$venv/bin/$(executable "$name")" ]; }
  mkdir -p "$cache"
  if ! installed; then
    # One install at a time; a second caller waits for it and reuses the result.
    exec 9>"$cache/.lock"
    flock 9
  fi
  if ! installed; then
    if ! command -v uv >/dev/null 2>&1; then
      echo "ensure-cli-clients: uv is needed to install $name (https://docs.astral.sh/uv/)." >&2
      exit 1
    fi
    echo "ensure-cli-clients: installing $name into $venv (first time only)" >&2
    rm -rf "$venv"
    uv venv --quiet --python 3.11 "$venv" >&2
    # --compile-bytecode: each test starts the client afresh; compiled once
    # here, its imports take a fraction of the time.
    VIRTUAL_ENV="$venv" uv pip install --quiet --compile-bytecode --python "$venv/bin/python" \
      --requirement "$requirements" >&2
    "$venv/bin/python" -c "import $(module "$name")" >/dev/null 2>&1 || {
      echo "ensure-cli-clients: $name in $venv does not import" >&2
      exit 1
    }
    touch "$marker"
  fi
  exec 9>&-
  printf '%s\t%s\n' "$name" "$venv"
done
