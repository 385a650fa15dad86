#!/usr/bin/env bash
# Install Debian's pipx, once, for the quick-start test (tests/docs/test_quick_start.py
# runs the README's `pipx install` line on Debian's own, externally managed Python).
# Idempotent; does nothing where Debian's pipx is already installed.
set -euo pipefail
if [ -x /usr/bin/pipx ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-pipx: no apt-get here; install pipx yourself (https://pipx.pypa.io)" >&2
    exit 1
fi
echo "Installing Debian's pipx for the quick-start test..."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq pipx >/dev/null
