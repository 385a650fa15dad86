#!/usr/bin/env bash
# `just demo`: the launcher is Python, lgos_demo_launcher (demo/launcher); docs/demo/stack.md.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
command -v uv >/dev/null || { echo "just demo needs uv: see the README's quick start" >&2; exit 1; }
exec uv run --frozen --quiet --package lgos-demo-launcher python -m lgos_demo_launcher "$@"
