#!/usr/bin/env bash
# Run Open WebUI (the demo's optional second chat UI, `just demo --open-webui`)
# with the LGOS pipe installed: ensure the pinned environment
# (scripts/ensure-open-webui.sh), start `open-webui serve` with no network and
# authentication off, wait until it answers, provision the pipe
# (ui/open-webui/provision.py: install or update it, enable it, set its valves
# from DEMO_OPEN_WEBUI_*), then stay in the foreground until the server exits.
#
# Settings (defaults in brackets):
#   DEMO_OPEN_WEBUI_HOST [127.0.0.1], DEMO_OPEN_WEBUI_PORT [8006]
#   DEMO_OPEN_WEBUI_DATA_DIR [.data/open-webui]
#   DEMO_OPEN_WEBUI_LGOS_BASE_URL [http://127.0.0.1:8000/v1],
#   DEMO_OPEN_WEBUI_LGOS_API_KEY [lgos-demo]
#   DEMO_OPEN_WEBUI_FILES_BASE_URL [http://127.0.0.1:8003/v1],
#   DEMO_OPEN_WEBUI_FILES_API_KEY [lgos-demo]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$(bash "$root/scripts/ensure-open-webui.sh")"
host="${DEMO_OPEN_WEBUI_HOST:-127.0.0.1}"
port="${DEMO_OPEN_WEBUI_PORT:-8006}"
data_dir="${DEMO_OPEN_WEBUI_DATA_DIR:-$root/.data/open-webui}"
mkdir -p "$data_dir"
data_dir="$(cd "$data_dir" && pwd)"

# Open WebUI's own settings, shared with compose.yaml: no sign-in (the first
# visitor is the admin "User"), no network of its own, no background generation
# tasks (ui/open-webui/settings.env says why each is set). Its data under .data/.
set -a
# shellcheck source=../ui/open-webui/settings.env
. "$root/ui/open-webui/settings.env"
set +a
export DATA_DIR="$data_dir"
export WEBUI_NAME="${WEBUI_NAME:-LGOS}"
# Open WebUI signs its session tokens with this key: generated once into the
# data folder, so sessions survive restarts (as Chainlit's secret does).
if [ -z "${WEBUI_SECRET_KEY:-}" ]; then
  if [ ! -s "$data_dir/.webui_secret_key" ]; then
    (umask 077 && "$venv/bin/python" -c 'import secrets; print(secrets.token_urlsafe(48))' \
      >"$data_dir/.webui_secret_key")
  fi
  WEBUI_SECRET_KEY="$(cat "$data_dir/.webui_secret_key")"
fi
export WEBUI_SECRET_KEY
export CORS_ALLOW_ORIGIN="${CORS_ALLOW_ORIGIN:-http://${host}:${port};http://127.0.0.1:${port};http://localhost:${port}}"
export NO_PROXY="${NO_PROXY:+$NO_PROXY,}127.0.0.1,localhost"

"$venv/bin/open-webui" serve --host "$host" --port "$port" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT INT TERM

probe_host="$host"
case "$probe_host" in 0.0.0.0 | "::") probe_host=127.0.0.1 ;; esac
url="http://${probe_host}:${port}"
# The first start runs Open WebUI's database migrations: a minute, or several
# on a busy machine. A failed provisioning leaves Open WebUI running, without
# the pipe (or with the previous one), and says so.
if "$venv/bin/python" "$root/ui/open-webui/provision.py" --url "$url" --wait 900 \
  --pipe "$root/ui/open-webui/lgos_pipe.py"; then
  echo "open-webui: ready on $url (pipe lgos provisioned)"
else
  echo "open-webui: could not provision the LGOS pipe; Open WebUI keeps running on $url" >&2
fi
wait "$server"
