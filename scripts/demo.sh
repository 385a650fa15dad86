#!/usr/bin/env bash
# `just demo`: run the demo stack with Docker Compose when a Docker engine
# answers, else as local processes; say which and why. `just demo --help`
# prints the usage; docs/demo/stack.md describes both modes.
set -euo pipefail

usage() {
    cat <<EOF
Usage: just demo [--compose | --local] [--gateway] [--mcp] [--open-webui] [--observability] [--bifrost] [--dry-run]
                 [--replicas N]
       just demo --help

Runs the LGOS demo stack: demo API, Chainlit UI, Files service, corpus server
(and, with Compose, PostgreSQL, Hatchet and the Hatchet worker).

With no mode flag, Compose is used when a Docker engine answers \`docker info\`
within DEMO_DOCKER_TIMEOUT seconds (default 5) and \`docker compose\` exists;
otherwise the services run as local processes (honcho, demo/Procfile).

  --compose         always use Docker Compose (compose.yaml); fail without an engine
  --local           always use local processes, even when Docker is available
  --gateway         also start the LiteLLM gateway in front of the API, with the
                    LGOS model sync (http://127.0.0.1:${DEMO_GATEWAY_PORT:-4000}/v1, DEMO_GATEWAY_PORT);
                    the chat UI then talks to the gateway (Compose: profile
                    "gateway"; local: the pinned proxy is installed on first use)
  --bifrost         also start Bifrost in front of the API
                    (http://127.0.0.1:${DEMO_BIFROST_PORT:-8007}, DEMO_BIFROST_PORT); the chat UIs talk to
                    its passthrough route, or with DEMO_BIFROST_ROUTE=v1 to its
                    /v1 route (models openai/<graph>, fewer features; see
                    docs/how-to/proxies.md). Compose: profile "bifrost", the
                    public image DEMO_BIFROST_IMAGE; local: the bifrost-http
                    binary you give as DEMO_BIFROST_BIN (or on PATH)
  --mcp             also start the demo MCP server (http://127.0.0.1:${DEMO_MCP_PORT:-8005}/mcp,
                    DEMO_MCP_PORT); the chat UI offers its tools to the graphs
                    that take MCP tools, through the gateway's /mcp with
                    --gateway (Compose: profile "mcp")
  --open-webui      also start Open WebUI with the LGOS pipe installed
                    (http://127.0.0.1:${DEMO_OPEN_WEBUI_PORT:-8006}, DEMO_OPEN_WEBUI_PORT; no sign-in),
                    talking to the gateway with --gateway, with the MCP server's
                    tools with --mcp (Compose: profile "open-webui", Open WebUI's
                    image; local: the pinned Open WebUI, about 7 GB, is
                    installed on first use)
  --observability   Compose only: also start the OpenTelemetry collector and
                    Jaeger (profile "observability"; traces on http://127.0.0.1:${DEMO_JAEGER_PORT:-16686})
  --replicas N      Compose only: N API replicas (1 to $max_replicas) behind HAProxy, round
                    robin over the ones whose /health/ready passes, and
                    ${DEMO_WORKER_REPLICAS:-2} Hatchet workers (DEMO_WORKER_REPLICAS), on the one
                    PostgreSQL and Hatchet engine; the balancer takes the API's
                    address, and its statistics are on http://127.0.0.1:${DEMO_BALANCER_STATS_PORT:-8404}/stats
                    (overlay demo/compose/replicas.yaml; docs/deploy.md)
  --dry-run         print the chosen mode, the reason and the command; run nothing
  -h, --help        print this help

Stop with Ctrl-C. Variables come from .env (copy .env.example).
EOF
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# --replicas: the most API replicas the balancer has slots for
# (server-template in demo/compose/haproxy.cfg).
max_replicas=16

# .env (NAME=VALUE lines) as `just` loads it (dotenv-load): a variable already
# set wins. `bash scripts/demo.sh` then reads it too, and the local processes
# get this one environment (honcho does not read .env itself: its values would
# override the ones decided here). DEMO_ENV_FILE names another file (tests).
load_dotenv() {
    local file="$1" line name value
    [ -f "$file" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        line="${line%$'\r'}"
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line#export }"
        name="${line%%=*}"
        if [[ "$line" != *=* || ! "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then continue; fi
        value="${line#*=}"
        case "$value" in
            \"*\" | \'*\') value="${value:1:${#value}-2}" ;;
        esac
        if [ -z "${!name+x}" ]; then export "$name=$value"; fi
    done <"$file"
}
load_dotenv "${DEMO_ENV_FILE:-.env}"
# The options as given, repeated in the commands the script suggests.
given_args="$*"
# `docker compose` as the script suggests it to be run by hand: with the demo
# password in front when the script supplied it (compose.yaml requires one).
compose_cli="docker compose"

# With --gateway --mcp --open-webui: Open WebUI's own MCP client calls the
# MCP server directly; the banner says so beside the UI's gateway route.
open_webui_direct=""
mode=""
observability=0
gateway=0
bifrost=0
mcp=0
open_webui=0
dry_run=0
# --replicas N: empty without the flag.
replicas=""
replicas_given=0
replicas_next=0
set_mode() {
    if [ -n "$mode" ] && [ "$mode" != "$1" ]; then
        echo "just demo: choose one of --compose and --local" >&2
        exit 2
    fi
    mode="$1"
}
for arg in "$@"; do
    if [ "$replicas_next" -eq 1 ]; then
        replicas_next=0
        # An option right after --replicas is not its number (checked below).
        if [[ "$arg" != -* ]]; then replicas="$arg"; continue; fi
    fi
    case "$arg" in
        --compose) set_mode compose ;;
        --local) set_mode local ;;
        --observability) observability=1 ;;
        --gateway) gateway=1 ;;
        --bifrost) bifrost=1 ;;
        --mcp) mcp=1 ;;
        --open-webui) open_webui=1; open_webui_direct="; Open WebUI calls it directly" ;;
        --dry-run) dry_run=1 ;;
        --replicas) replicas_given=1; replicas_next=1; replicas="" ;;
        --replicas=*) replicas_given=1; replicas="${arg#--replicas=}" ;;
        -h | --help) usage; exit 0 ;;
        *) echo "just demo: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done
if [ "$gateway" -eq 1 ] && [ "$bifrost" -eq 1 ]; then
    echo "just demo: choose one of --gateway and --bifrost (both would sit where the UI connects)" >&2
    exit 2
fi
# --bifrost: which of Bifrost's routes the UIs use (docs/how-to/proxies.md).
bifrost_route="${DEMO_BIFROST_ROUTE:-passthrough}"
if [ "$bifrost" -eq 1 ]; then
    case "$bifrost_route" in
        passthrough | v1) ;;
        *) echo "just demo: DEMO_BIFROST_ROUTE is '$bifrost_route'; use passthrough (the default) or v1" >&2
           exit 2 ;;
    esac
fi
if [ "$mode" = "local" ] && [ "$observability" -eq 1 ]; then
    echo "just demo: --observability needs Compose (drop --local)" >&2
    exit 2
fi
# Exit 2 unless --replicas, when given, has a number of replicas in range
# and the mode can run them (Compose).
check_replicas() {
    [ "$replicas_given" -eq 1 ] || return 0
    if [ -z "$replicas" ]; then
        echo "just demo: --replicas needs a number of API replicas, e.g. --replicas 3" >&2
        exit 2
    fi
    if ! [[ "$replicas" =~ ^[0-9]{1,4}$ ]] || [ "$((10#$replicas))" -lt 1 ] \
        || [ "$((10#$replicas))" -gt "$max_replicas" ]; then
        echo "just demo: --replicas takes a whole number from 1 to $max_replicas, not '$replicas'" >&2
        exit 2
    fi
    replicas="$((10#$replicas))"
    if [ "$mode" = "local" ]; then
        echo "just demo: --replicas needs Compose (drop --local): the replicas share one PostgreSQL" >&2
        echo "  and one Hatchet engine, which the Compose stack runs; the local processes run one API." >&2
        exit 2
    fi
}
check_replicas

# Whether a Docker engine and the Compose plugin answer; sets $docker_reason.
docker_usable() {
    local seconds="${DEMO_DOCKER_TIMEOUT:-5}" status=0 detail
    if ! command -v docker >/dev/null 2>&1; then
        docker_reason="no docker command on PATH"
        return 1
    fi
    if command -v timeout >/dev/null 2>&1; then
        detail="$(timeout "$seconds" docker info 2>&1 >/dev/null)" || status=$?
    else
        detail="$(docker info 2>&1 >/dev/null)" || status=$?
    fi
    if [ "$status" -eq 124 ]; then
        docker_reason="no Docker engine answered 'docker info' within ${seconds}s"
        return 1
    elif [ "$status" -ne 0 ]; then
        detail="$(printf '%s\n' "$detail" | grep -v '^[[:space:]]*$' | tail -n 1 || true)"
        docker_reason="no Docker engine answers 'docker info'${detail:+ ($detail)}"
        return 1
    fi
    if ! docker compose version >/dev/null 2>&1; then
        docker_reason="a Docker engine answers but the 'docker compose' plugin is missing"
        return 1
    fi
    docker_reason="a Docker engine answers 'docker info'"
    return 0
}

case "$mode" in
    compose)
        if ! docker_usable; then
            echo "just demo --compose: $docker_reason." >&2
            echo "Start Docker, or run the local processes with: just demo --local" >&2
            exit 1
        fi
        reason="--compose was given"
        ;;
    local) reason="${reason:---local was given}" ;;
    *)
        if docker_usable; then
            mode="compose"
            reason="$docker_reason"
        else
            mode="local"
            reason="$docker_reason"
        fi
        ;;
esac
if [ -n "$replicas" ] && [ "$mode" = "local" ]; then
    echo "just demo --replicas: $docker_reason." >&2
    echo "The replicas, their balancer and workers run on Docker Compose only. Start Docker," >&2
    echo "  or run one API as local processes: just demo --local" >&2
    exit 1
fi

# Run the services until they end or Ctrl-C stops them. Ctrl-C reaches them
# too; whatever status they then end with, return 130 (an interrupt, as shells
# expect, which just reports without an error). A SIGTERM stop (143) is a
# normal end.
run_until_stopped() {
    local status=0 interrupted=0
    trap 'interrupted=1' INT
    "$@" || status=$?
    trap - INT
    if [ "$interrupted" -eq 1 ]; then return 130; fi
    if [ "$status" -eq 143 ]; then return 0; fi
    return "$status"
}

# What answers: the offline model, or the upstream one a key selects.
answering_model() {
    if [ -n "${DEMO_API_OPENAI_API_KEY:-}" ]; then
        echo "upstream model ${DEMO_API_OPENAI_RESPONSES_MODEL:-gpt-4.1-mini}"
    else
        echo "offline demo model (no API key needed)"
    fi
}

# The demo API's key (LGOS_API_KEYS of lgos serve) and, unless set on their
# own, the key its clients send: the UI, the gateway's proxy and Open WebUI's
# pipe (--gateway gives the UI and the pipe the gateway's master key instead).
use_demo_key() {
    export DEMO_LGOS_API_KEY="${DEMO_LGOS_API_KEY:-lgos-demo}"
    export DEMO_CHAINLIT_OPENAI_API_KEY="${DEMO_CHAINLIT_OPENAI_API_KEY:-$DEMO_LGOS_API_KEY}"
    export DEMO_GATEWAY_LGOS_API_KEY="${DEMO_GATEWAY_LGOS_API_KEY:-$DEMO_LGOS_API_KEY}"
}

# The banner's line about the key: the demo default is shown, a key of your own is not.
key_line() {
    if [ "$DEMO_LGOS_API_KEY" = "lgos-demo" ]; then
        echo "  API key:               lgos-demo (Authorization: Bearer lgos-demo; set DEMO_LGOS_API_KEY to change it)"
    else
        echo "  API key:               the value of DEMO_LGOS_API_KEY"
    fi
}

# Whether this Compose project has running containers (another `just demo`).
compose_running() {
    [ -n "$(docker compose ps --status running -q 2>/dev/null)" ]
}

# How many API containers of this project run (with --replicas, one per replica).
running_replicas() {
    local ids
    ids="$(docker compose ps --status running -q api 2>/dev/null)"
    grep -c . <<<"$ids" || true
}

# Exit 1 when the running stack of this project has other optional services
# than the flags of this run ask for: attaching would recreate the UI without
# them (or start them beside a stack that does not use them), and this run's
# Ctrl-C would not stop what it does not know.
check_attach_flags() {
    local services running="" wanted=""
    services="$(docker compose --profile '*' ps --status running --services 2>/dev/null)"
    services=" ${services//$'\n'/ } "
    case "$services" in *" gateway "*) running+=" --gateway" ;; esac
    case "$services" in *" bifrost "*) running+=" --bifrost" ;; esac
    case "$services" in *" mcp "*) running+=" --mcp" ;; esac
    case "$services" in *" open-webui "*) running+=" --open-webui" ;; esac
    case "$services" in *" otel-collector "* | *" jaeger "*) running+=" --observability" ;; esac
    case "$services" in *" balancer "*) running+=" --replicas $(running_replicas)" ;; esac
    if [ "$gateway" -eq 1 ]; then wanted+=" --gateway"; fi
    if [ "$bifrost" -eq 1 ]; then wanted+=" --bifrost"; fi
    if [ "$mcp" -eq 1 ]; then wanted+=" --mcp"; fi
    if [ "$open_webui" -eq 1 ]; then wanted+=" --open-webui"; fi
    if [ "$observability" -eq 1 ]; then wanted+=" --observability"; fi
    if [ -n "$replicas" ]; then wanted+=" --replicas $replicas"; fi
    [ "$running" = "$wanted" ] && return 0
    echo "just demo: the stack is already running with options '${running# }', and this run asks for '${wanted# }'." >&2
    echo "Attaching would reconfigure it. Attach with the same options: just demo --compose${running}" >&2
    echo "or stop it first (Ctrl-C where it runs, or: $compose_cli --profile '*' stop)." >&2
    exit 1
}

# Exit 1, before anything starts, when an image the stack needs is neither
# here nor pullable (no registry reachable), saying what to do instead.
check_images() {
    local image missing=0
    while read -r image; do
        case "$image" in "" | lgos-demo:local | lgos-demo-gateway:local) continue ;; esac
        if ! docker image inspect "$image" >/dev/null 2>&1; then missing=1; fi
    done < <(docker compose config --images 2>/dev/null)
    [ "$missing" -eq 0 ] && return 0
    echo "Pulling the images the stack needs..."
    if docker compose pull --ignore-buildable --quiet; then return 0; fi
    {
        echo "just demo: the images above could not be pulled (is an image registry reachable?)."
        echo "Nothing was started. Run the local processes instead: just demo --local"
        echo "  or point the DEMO_*_IMAGE variables at images you have (docs/demo/stack.md#image-names)."
    } >&2
    exit 1
}

# In the background: once the UI and the worker report healthy (and with
# --open-webui, Open WebUI too, its pipe provisioned), say so once.
announce_ready() {
    local ui="$1" open_webui_url="${2:-}" states provisioned
    while sleep 2; do
        states="$(docker compose ps --format '{{.Service}}={{.Health}}' 2>/dev/null)" || continue
        grep -qx 'chainlit=healthy' <<<"$states" && grep -qx 'worker=healthy' <<<"$states" || continue
        if [ -n "$open_webui_url" ]; then
            grep -qx 'open-webui=healthy' <<<"$states" || continue
            provisioned="$(docker compose ps --all --status exited \
                --format '{{.Service}}={{.ExitCode}}' open-webui-provision 2>/dev/null)" || continue
            case "$provisioned" in
                open-webui-provision=0) ;;
                open-webui-provision=*)
                    echo "just demo: Open WebUI could not be provisioned with the LGOS pipe: $compose_cli logs open-webui-provision" >&2
                    open_webui_url="" ;;
                *) continue ;;
            esac
        fi
        echo "LGOS demo is ready: open $ui${open_webui_url:+ or $open_webui_url} (Ctrl-C stops it)."
        return 0
    done
}

# --bifrost: the UIs' base URL through Bifrost at host:port ($1) on the
# chosen route (sets $bifrost_ui_base), and the variables both modes share.
# The UIs keep sending the API's key: Bifrost without governance asks for no
# key, and the passthrough route hands the client's request on to LGOS.
use_bifrost() {
    export DEMO_BIFROST_PORT="${DEMO_BIFROST_PORT:-8007}"
    export DEMO_BIFROST_LGOS_API_KEY="${DEMO_BIFROST_LGOS_API_KEY:-$DEMO_LGOS_API_KEY}"
    if [ "$bifrost_route" = "v1" ]; then
        # Bifrost's OpenAI-compatible route names models <provider>/<model>.
        bifrost_ui_base="http://$1/v1"
        local model="${DEMO_CHAINLIT_DEFAULT_MODEL:-chat}"
        export DEMO_CHAINLIT_DEFAULT_MODEL="openai/${model#openai/}"
    else
        bifrost_ui_base="http://$1/openai_passthrough/v1"
    fi
}

# The banner's Bifrost line: its address ($1) and the route the UIs use.
bifrost_banner() {
    if [ "$bifrost_route" = "v1" ]; then
        echo "  Bifrost:               $1/v1 (the UIs'; models openai/<graph>: no lgos extension, no commentary phase, no background polling; DEMO_BIFROST_ROUTE=v1)"
    else
        echo "  Bifrost:               $1/openai_passthrough/v1 (the UIs'; every LGOS feature; DEMO_BIFROST_ROUTE=v1 for its /v1 route)"
    fi
}

# Print the config.json Bifrost gets with LGOS at $1 ($2 says where it goes).
bifrost_print_config() {
    local python
    python="$(command -v python3 || command -v python || true)"
    echo "  Bifrost configuration ($2):"
    if [ -z "$python" ]; then
        echo "    (python3 is needed to print it: python -m lgos_demo_gateway.bifrost --lgos-url $1 --print)"
        return 0
    fi
    "$python" demo/gateway/src/lgos_demo_gateway/bifrost.py --lgos-url "$1" --print | sed 's/^/    /'
}

# Local mode without a bifrost-http binary: say where it comes from.
bifrost_missing() {
    {
        if [ -n "${DEMO_BIFROST_BIN:-}" ]; then
            echo "just demo --bifrost: DEMO_BIFROST_BIN ($DEMO_BIFROST_BIN) is not an executable file."
        else
            echo "just demo --bifrost: no Bifrost binary: set DEMO_BIFROST_BIN to Bifrost's HTTP"
            echo "  transport (bifrost-http), or put bifrost-http on PATH."
        fi
        echo "  bifrost-http is not on any package index this demo installs from. Nothing was started."
        echo "  Get v1.4.19, the release the demo's recordings come from, with Go:"
        echo "    go install github.com/maximhq/bifrost/transports/bifrost-http@v1.4.19"
        echo "  (then DEMO_BIFROST_BIN=\$(go env GOPATH)/bin/bifrost-http), or run the Compose"
        echo "  profile instead, which uses the public image: just demo --compose --bifrost"
    } >&2
}

run_compose() {
    local command=(docker compose up --build --remove-orphans)
    use_demo_key
    export DEMO_API_PORT="${DEMO_API_PORT:-8000}"
    export DEMO_CHAINLIT_PORT="${DEMO_CHAINLIT_PORT:-8001}"
    export DEMO_CORPUS_PORT="${DEMO_CORPUS_PORT:-8002}"
    local ui="http://127.0.0.1:${DEMO_CHAINLIT_PORT}"
    local api="http://127.0.0.1:${DEMO_API_PORT}/v1"
    local -a ports=("DEMO_API_PORT:API" "DEMO_CHAINLIT_PORT:Chat UI (Chainlit)"
        "DEMO_CORPUS_PORT:Search corpus pages")
    local password_note=""
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        # compose.yaml requires it; a throwaway value for the local demo.
        export POSTGRES_PASSWORD="lgos-demo"
        # Commands suggested to run by hand need it too.
        compose_cli="POSTGRES_PASSWORD=lgos-demo docker compose"
        password_note="  POSTGRES_PASSWORD is not set: using the demo password. Set yours in .env before
    the first run: the database keeps the one it was created with (docs/demo/stack.md#data)."
    fi
    if [ "$gateway" -eq 1 ]; then
        # Profile gateway: LiteLLM in front of the API; the UI goes through it.
        export COMPOSE_PROFILES="${COMPOSE_PROFILES:+$COMPOSE_PROFILES,}gateway"
        export DEMO_COMPOSE_UI_UPSTREAM="gateway:4000"
        export DEMO_CHAINLIT_DISCOVERY=litellm
        export DEMO_CHAINLIT_OPENAI_API_KEY="${DEMO_GATEWAY_MASTER_KEY:-lgos-demo}"
        export DEMO_GATEWAY_PORT="${DEMO_GATEWAY_PORT:-4000}"
        ports+=("DEMO_GATEWAY_PORT:LiteLLM gateway")
    fi
    if [ "$bifrost" -eq 1 ]; then
        # Profile bifrost: Bifrost in front of the API; the UIs go through it.
        export COMPOSE_PROFILES="${COMPOSE_PROFILES:+$COMPOSE_PROFILES,}bifrost"
        use_bifrost "bifrost:8080"
        export DEMO_COMPOSE_UI_UPSTREAM="${bifrost_ui_base#http://}"
        DEMO_COMPOSE_UI_UPSTREAM="${DEMO_COMPOSE_UI_UPSTREAM%/v1}"
        ports+=("DEMO_BIFROST_PORT:Bifrost")
    fi
    local mcp_note=""
    if [ "$mcp" -eq 1 ]; then
        # Profile mcp: the demo MCP server; the UI (not the browser) calls it,
        # directly or through the gateway's MCP endpoint.
        export COMPOSE_PROFILES="${COMPOSE_PROFILES:+$COMPOSE_PROFILES,}mcp"
        export DEMO_MCP_PORT="${DEMO_MCP_PORT:-8005}"
        ports+=("DEMO_MCP_PORT:MCP server")
        if [ "$gateway" -eq 1 ]; then
            export DEMO_GATEWAY_MCP_URL="http://mcp:8005/mcp"
            export DEMO_CHAINLIT_MCP_URL="http://gateway:4000/mcp"
            export DEMO_CHAINLIT_MCP_API_KEY="${DEMO_GATEWAY_MASTER_KEY:-lgos-demo}"
            mcp_note=" (the UI reaches it through the gateway's http://127.0.0.1:${DEMO_GATEWAY_PORT}/mcp${open_webui_direct})"
        else
            export DEMO_CHAINLIT_MCP_URL="http://mcp:8005/mcp"
            mcp_note=" (the UI's tools)"
        fi
    fi
    local open_webui_url=""
    if [ "$open_webui" -eq 1 ]; then
        # Profile open-webui: Open WebUI and the one-shot that installs the
        # pipe; the pipe talks to what the UI talks to (API or gateway).
        export COMPOSE_PROFILES="${COMPOSE_PROFILES:+$COMPOSE_PROFILES,}open-webui"
        export DEMO_OPEN_WEBUI_PORT="${DEMO_OPEN_WEBUI_PORT:-8006}"
        open_webui_url="http://127.0.0.1:${DEMO_OPEN_WEBUI_PORT}"
        ports+=("DEMO_OPEN_WEBUI_PORT:Open WebUI")
        if [ "$gateway" -eq 1 ]; then
            export DEMO_OPEN_WEBUI_DISCOVERY=litellm
            export DEMO_OPEN_WEBUI_LGOS_API_KEY="${DEMO_GATEWAY_MASTER_KEY:-lgos-demo}"
        else
            export DEMO_OPEN_WEBUI_LGOS_API_KEY="${DEMO_OPEN_WEBUI_LGOS_API_KEY:-$DEMO_LGOS_API_KEY}"
        fi
        if [ "$mcp" -eq 1 ]; then
            # Open WebUI's own MCP client calls the server (also with --gateway).
            export DEMO_OPEN_WEBUI_MCP_URL="http://mcp:8005/mcp"
        fi
    fi
    local compose_env=""
    if [ -n "$replicas" ]; then
        # The overlay demo/compose/replicas.yaml: N API replicas behind
        # HAProxy, which takes the API's published port; several workers.
        local sep="${COMPOSE_PATH_SEPARATOR:-:}"
        case "$sep${COMPOSE_FILE:-}$sep" in
            *"${sep}demo/compose/replicas.yaml${sep}"*) ;;
            *) export COMPOSE_FILE="${COMPOSE_FILE:-compose.yaml}${sep}demo/compose/replicas.yaml" ;;
        esac
        export DEMO_API_REPLICAS="$replicas"
        export DEMO_WORKER_REPLICAS="${DEMO_WORKER_REPLICAS:-2}"
        if ! [[ "$DEMO_WORKER_REPLICAS" =~ ^[0-9]{1,2}$ ]]; then
            echo "just demo: DEMO_WORKER_REPLICAS takes a whole number of Hatchet workers, not '$DEMO_WORKER_REPLICAS'" >&2
            exit 2
        fi
        export DEMO_BALANCER_STATS_PORT="${DEMO_BALANCER_STATS_PORT:-8404}"
        # The UI talks to the balancer (or to the gateway, which does).
        case "${DEMO_COMPOSE_UI_UPSTREAM:-api:8000}" in
            api:8000) export DEMO_COMPOSE_UI_UPSTREAM="balancer:8000" ;;
        esac
        ports+=("DEMO_BALANCER_STATS_PORT:Balancer statistics")
        compose_env="COMPOSE_FILE=$COMPOSE_FILE DEMO_API_REPLICAS=$replicas DEMO_WORKER_REPLICAS=$DEMO_WORKER_REPLICAS "
        # Commands suggested to run by hand need the overlay too.
        compose_cli="COMPOSE_FILE=$COMPOSE_FILE $compose_cli"
    fi
    if [ "$observability" -eq 1 ]; then
        export COMPOSE_PROFILES="${COMPOSE_PROFILES:+$COMPOSE_PROFILES,}observability"
        export OTEL_EXPORTER_OTLP_ENDPOINT="http://otel-collector:4318"
        export DEMO_JAEGER_PORT="${DEMO_JAEGER_PORT:-16686}"
        ports+=("DEMO_JAEGER_PORT:Jaeger")
    fi
    # Before the banner: a busy port or a missing image is the whole story.
    # A stack of this project already running holds the ports itself: this
    # run attaches to it, and says so.
    local attached=0
    if [ "$dry_run" -eq 0 ]; then
        if compose_running; then
            check_attach_flags
            attached=1
        else
            check_ports "${ports[@]}"
        fi
        check_images
    fi
    echo "LGOS demo with Docker Compose; graphs answer with the $(answering_model)."
    echo "  Why Compose: $reason. Force a mode with --compose or --local (just demo --help)."
    if [ -n "$password_note" ]; then echo "$password_note"; fi
    echo "  Chat UI (Chainlit):    $ui"
    if [ -n "$open_webui_url" ]; then
        echo "  Open WebUI:            $open_webui_url (the LGOS pipe; no sign-in; the first start takes minutes)"
    fi
    echo "  OpenAI-compatible API: $api"
    if [ -n "$replicas" ]; then
        echo "  API replicas:          $replicas behind HAProxy, round robin over those whose /health/ready passes;"
        echo "                         $DEMO_WORKER_REPLICAS Hatchet workers (the answer's X-LGOS-Replica header names the replica)"
        echo "  Balancer statistics:   http://127.0.0.1:${DEMO_BALANCER_STATS_PORT}/stats"
    fi
    key_line
    if [ "$gateway" -eq 1 ]; then
        echo "  LiteLLM gateway:       http://127.0.0.1:${DEMO_GATEWAY_PORT}/v1 (the UI's; /model/info has the lgos models)"
    fi
    if [ "$bifrost" -eq 1 ]; then bifrost_banner "http://127.0.0.1:${DEMO_BIFROST_PORT}"; fi
    if [ "$mcp" -eq 1 ]; then
        echo "  MCP server:            http://127.0.0.1:${DEMO_MCP_PORT}/mcp${mcp_note}"
    fi
    echo "  Corpus pages:          http://127.0.0.1:${DEMO_CORPUS_PORT}"
    if [ "$observability" -eq 1 ]; then
        echo "  Traces (Jaeger):       http://127.0.0.1:${DEMO_JAEGER_PORT}"
    fi
    echo "  Command: ${compose_env}${COMPOSE_PROFILES:+COMPOSE_PROFILES=$COMPOSE_PROFILES }${command[*]}"
    if [ "$bifrost" -eq 1 ] && [ "$dry_run" -eq 1 ]; then
        bifrost_print_config "http://api:8000" "the bifrost-config service writes into the bifrost_data volume"
    fi
    if [ "$attached" -eq 1 ]; then
        echo "The stack is already running (another 'just demo'?): attaching to it. Ctrl-C here"
        echo "  stops it for both; '$compose_cli logs -f' only watches."
    fi
    if [ "$dry_run" -eq 1 ]; then
        echo "Dry run: nothing was started. Data would stay in the volumes of Compose project ${COMPOSE_PROJECT_NAME:-lgos-demo}."
        echo "  To remove the containers and drop the data: $compose_cli --profile '*' down -v"
        return 0
    fi
    echo "Press Ctrl-C to stop; data stays in the volumes of Compose project ${COMPOSE_PROJECT_NAME:-lgos-demo}."
    echo "  To remove the containers and drop the data: $compose_cli --profile '*' down -v"
    announce_ready "$ui" "$open_webui_url" &
    local watcher=$! status=0
    run_until_stopped "${command[@]}" || status=$?
    kill "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
    if [ "$status" -ne 0 ] && [ "$status" -ne 130 ]; then
        # Nothing half-started keeps running (restart: unless-stopped would
        # even bring it back with the engine).
        echo "just demo: Compose ended with status $status; stopping the containers it started." >&2
        docker compose stop >&2 || true
    fi
    return "$status"
}

# Whether something accepts connections on 127.0.0.1:$1.
port_busy() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Exit 1 naming every service whose port on this machine is taken (it would
# fail to start), with one command that moves them all to free ports.
# Arguments: VARIABLE:service name pairs, each variable set to its port.
check_ports() {
    local entry name service port free taken=" " moves=""
    local -a busy=()
    local -a services=("$@")
    for entry in "${services[@]}"; do
        name="${entry%%:*}"
        taken+="${!name} "
    done
    for entry in "${services[@]}"; do
        name="${entry%%:*}"
        service="${entry#*:}"
        port="${!name}"
        if ! port_busy "$port"; then continue; fi
        # A free port, not one another service uses or was just given.
        free=$((port + 10))
        while { port_busy "$free" || [[ "$taken" == *" $free "* ]]; } \
            && [ "$free" -lt $((port + 100)) ]; do free=$((free + 10)); done
        taken+="$free "
        busy+=("port ${port} for the ${service} (${name})")
        moves+="${name}=${free} "
    done
    [ "${#busy[@]}" -eq 0 ] && return 0
    {
        for entry in "${busy[@]}"; do
            echo "just demo: ${entry} is already in use."
        done
        echo "Nothing was started. Stop what listens there (another 'just demo'?), or move"
        echo "  the services: ${moves}just demo${given_args:+ $given_args}   (or set them in .env)."
    } >&2
    exit 1
}

run_local() {
    if [ "$observability" -eq 1 ]; then
        echo "just demo: --observability needs Compose; starting without it." >&2
    fi
    export DEMO_API_HOST="${DEMO_API_HOST:-127.0.0.1}"
    export DEMO_API_PORT="${DEMO_API_PORT:-8000}"
    export DEMO_CHAINLIT_HOST="${DEMO_CHAINLIT_HOST:-127.0.0.1}"
    export DEMO_CHAINLIT_PORT="${DEMO_CHAINLIT_PORT:-8001}"
    export DEMO_CHAINLIT_OPENAI_BASE_URL="${DEMO_CHAINLIT_OPENAI_BASE_URL:-http://${DEMO_API_HOST}:${DEMO_API_PORT}/v1}"
    export DEMO_FILES_HOST="${DEMO_FILES_HOST:-127.0.0.1}"
    export DEMO_FILES_PORT="${DEMO_FILES_PORT:-8003}"
    export DEMO_CORPUS_PORT="${DEMO_CORPUS_PORT:-8002}"
    # The API requires the demo key, as in Compose; its clients send it.
    use_demo_key
    export LGOS_API_KEYS="$DEMO_LGOS_API_KEY"
    # One readable log format for every process in the terminal (the Procfile
    # runs the others through scripts/with-lgos-logging.py); LGOS_LOG_FORMAT=json
    # in the environment or .env asks for JSON lines from all of them instead.
    export LGOS_LOG_FORMAT="${LGOS_LOG_FORMAT:-text}"
    # The services' addresses follow their ports unless set explicitly.
    export DEMO_API_CORPUS_BASE_URL="${DEMO_API_CORPUS_BASE_URL:-http://${DEMO_API_HOST}:${DEMO_CORPUS_PORT}}"
    export DEMO_API_FILES_BASE_URL="${DEMO_API_FILES_BASE_URL:-http://${DEMO_FILES_HOST}:${DEMO_FILES_PORT}/v1}"
    export DEMO_CHAINLIT_FILES_BASE_URL="${DEMO_CHAINLIT_FILES_BASE_URL:-http://${DEMO_FILES_HOST}:${DEMO_FILES_PORT}/v1}"
    local model
    model="$(answering_model)"
    local api_url="${DEMO_CHAINLIT_OPENAI_BASE_URL}"
    # demo/Procfile has every process; honcho starts the ones named here.
    local -a processes=(api chainlit corpus files)
    # URLs the UI waits for before it starts (the Procfile's chainlit line).
    export DEMO_UI_WAIT_FOR=""
    if [ "$gateway" -eq 1 ]; then
        # The LiteLLM gateway in front of the API (demo/gateway): the UI talks
        # to it and reads the models from its /model/info (the LGOS model sync).
        processes+=(gateway)
        api_url="http://${DEMO_API_HOST}:${DEMO_API_PORT}/v1"
        export DEMO_GATEWAY_HOST="${DEMO_GATEWAY_HOST:-127.0.0.1}"
        export DEMO_GATEWAY_PORT="${DEMO_GATEWAY_PORT:-4000}"
        export DEMO_GATEWAY_LGOS_BASE_URL="${DEMO_GATEWAY_LGOS_BASE_URL:-$api_url}"
        export DEMO_CHAINLIT_OPENAI_BASE_URL="http://${DEMO_GATEWAY_HOST}:${DEMO_GATEWAY_PORT}/v1"
        export DEMO_CHAINLIT_OPENAI_API_KEY="${DEMO_GATEWAY_MASTER_KEY:-lgos-demo}"
        export DEMO_CHAINLIT_DISCOVERY=litellm
        DEMO_UI_WAIT_FOR="http://${DEMO_GATEWAY_HOST}:${DEMO_GATEWAY_PORT}/health/liveliness"
    fi
    if [ "$bifrost" -eq 1 ]; then
        # Bifrost's HTTP transport (the binary DEMO_BIFROST_BIN) in front of
        # the API (demo/Procfile's bifrost line writes its config.json first).
        processes+=(bifrost)
        if [ -z "${DEMO_BIFROST_BIN:-}" ] && command -v bifrost-http >/dev/null 2>&1; then
            DEMO_BIFROST_BIN="$(command -v bifrost-http)"
        fi
        if [ -n "${DEMO_BIFROST_BIN:-}" ]; then export DEMO_BIFROST_BIN; fi
        api_url="http://${DEMO_API_HOST}:${DEMO_API_PORT}/v1"
        export DEMO_BIFROST_HOST="${DEMO_BIFROST_HOST:-127.0.0.1}"
        local api_host="$DEMO_API_HOST" bifrost_host="$DEMO_BIFROST_HOST"
        case "$api_host" in 0.0.0.0 | "::") api_host=127.0.0.1 ;; esac
        case "$bifrost_host" in 0.0.0.0 | "::") bifrost_host=127.0.0.1 ;; esac
        export DEMO_BIFROST_LGOS_URL="http://${api_host}:${DEMO_API_PORT}"
        export DEMO_BIFROST_APP_DIR="${DEMO_BIFROST_APP_DIR:-$PWD/.data/bifrost}"
        use_bifrost "${bifrost_host}:${DEMO_BIFROST_PORT:-8007}"
        export DEMO_CHAINLIT_OPENAI_BASE_URL="$bifrost_ui_base"
        DEMO_UI_WAIT_FOR="http://${bifrost_host}:${DEMO_BIFROST_PORT}/health"
    fi
    local mcp_url="" mcp_note=""
    if [ "$mcp" -eq 1 ]; then
        # The demo MCP server; the UI calls its tools, directly or through
        # the gateway's MCP endpoint (LiteLLM's /mcp, the master key).
        processes+=(mcp)
        export DEMO_MCP_HOST="${DEMO_MCP_HOST:-127.0.0.1}"
        export DEMO_MCP_PORT="${DEMO_MCP_PORT:-8005}"
        local mcp_host="$DEMO_MCP_HOST"
        case "$mcp_host" in 0.0.0.0 | "::") mcp_host=127.0.0.1 ;; esac
        mcp_url="http://${mcp_host}:${DEMO_MCP_PORT}/mcp"
        export DEMO_MCP_CORPUS_BASE_URL="${DEMO_MCP_CORPUS_BASE_URL:-$DEMO_API_CORPUS_BASE_URL}"
        DEMO_UI_WAIT_FOR="${DEMO_UI_WAIT_FOR:+$DEMO_UI_WAIT_FOR }http://${mcp_host}:${DEMO_MCP_PORT}/health"
        if [ "$gateway" -eq 1 ]; then
            export DEMO_GATEWAY_MCP_URL="$mcp_url"
            export DEMO_CHAINLIT_MCP_URL="http://${DEMO_GATEWAY_HOST}:${DEMO_GATEWAY_PORT}/mcp"
            export DEMO_CHAINLIT_MCP_API_KEY="${DEMO_GATEWAY_MASTER_KEY:-lgos-demo}"
            mcp_note=" (the UI reaches it through the gateway's ${DEMO_CHAINLIT_MCP_URL}${open_webui_direct})"
        else
            export DEMO_CHAINLIT_MCP_URL="$mcp_url"
            mcp_note=" (the UI's tools)"
        fi
    fi
    if [ "$open_webui" -eq 1 ]; then
        # Open WebUI with the LGOS pipe (scripts/open-webui.sh): it talks to
        # the gateway when that is on, else to the API, and waits for it.
        processes+=(open-webui)
        export DEMO_OPEN_WEBUI_HOST="${DEMO_OPEN_WEBUI_HOST:-127.0.0.1}"
        export DEMO_OPEN_WEBUI_PORT="${DEMO_OPEN_WEBUI_PORT:-8006}"
        export DEMO_OPEN_WEBUI_LGOS_BASE_URL="${DEMO_OPEN_WEBUI_LGOS_BASE_URL:-$DEMO_CHAINLIT_OPENAI_BASE_URL}"
        export DEMO_OPEN_WEBUI_LGOS_API_KEY="${DEMO_OPEN_WEBUI_LGOS_API_KEY:-${DEMO_CHAINLIT_OPENAI_API_KEY:-lgos-demo}}"
        export DEMO_OPEN_WEBUI_FILES_BASE_URL="${DEMO_OPEN_WEBUI_FILES_BASE_URL:-$DEMO_CHAINLIT_FILES_BASE_URL}"
        export DEMO_OPEN_WEBUI_DISCOVERY="${DEMO_OPEN_WEBUI_DISCOVERY:-${DEMO_CHAINLIT_DISCOVERY:-lgos}}"
        export DEMO_OPEN_WEBUI_WAIT_FOR="http://${DEMO_API_HOST}:${DEMO_API_PORT}/v1/health${DEMO_UI_WAIT_FOR:+ $DEMO_UI_WAIT_FOR}"
        if [ "$mcp" -eq 1 ]; then
            # The demo MCP server as Open WebUI's own MCP tool server (direct,
            # also with --gateway); the pipe offers its tools to the mcp graph.
            export DEMO_OPEN_WEBUI_MCP_URL="${DEMO_OPEN_WEBUI_MCP_URL:-$mcp_url}"
        fi
    fi
    # -e /dev/null: the processes get this environment as it is (.env is
    # already in it, under what is set; honcho's own .env would override it).
    local command=(uv run --frozen --no-sync honcho --no-prefix -e /dev/null -f demo/Procfile -d . start "${processes[@]}")
    # Before the banner: a busy port is the whole story, not a line after it.
    local -a ports=("DEMO_API_PORT:API" "DEMO_CHAINLIT_PORT:Chat UI (Chainlit)"
        "DEMO_FILES_PORT:Files service" "DEMO_CORPUS_PORT:Search corpus pages")
    if [ "$gateway" -eq 1 ]; then ports+=("DEMO_GATEWAY_PORT:LiteLLM gateway"); fi
    if [ "$bifrost" -eq 1 ]; then ports+=("DEMO_BIFROST_PORT:Bifrost"); fi
    if [ "$mcp" -eq 1 ]; then ports+=("DEMO_MCP_PORT:MCP server"); fi
    if [ "$open_webui" -eq 1 ]; then ports+=("DEMO_OPEN_WEBUI_PORT:Open WebUI"); fi
    if [ "$dry_run" -eq 0 ]; then check_ports "${ports[@]}"; fi
    echo "LGOS demo as local processes; graphs answer with the ${model}."
    echo "  Why local: $reason. Force a mode with --compose or --local (just demo --help)."
    echo "  Chat UI (Chainlit):    http://${DEMO_CHAINLIT_HOST}:${DEMO_CHAINLIT_PORT}"
    if [ "$open_webui" -eq 1 ]; then
        echo "  Open WebUI:            http://${DEMO_OPEN_WEBUI_HOST}:${DEMO_OPEN_WEBUI_PORT} (the LGOS pipe; no sign-in; ready about a minute after the API)"
    fi
    echo "  OpenAI-compatible API: ${api_url}"
    key_line
    if [ "$gateway" -eq 1 ]; then
        echo "  LiteLLM gateway:       ${DEMO_CHAINLIT_OPENAI_BASE_URL} (the UI's; /model/info has the lgos models)"
    fi
    if [ "$bifrost" -eq 1 ]; then
        bifrost_banner "http://${DEMO_BIFROST_HOST}:${DEMO_BIFROST_PORT}"
        echo "  Bifrost binary:        ${DEMO_BIFROST_BIN:-bifrost-http (not found: see below)}"
    fi
    if [ "$mcp" -eq 1 ]; then
        echo "  MCP server:            ${mcp_url}${mcp_note}"
    fi
    echo "  Files service:         ${DEMO_API_FILES_BASE_URL}"
    echo "  Search corpus pages:   ${DEMO_API_CORPUS_BASE_URL}"
    echo "  Command: ${command[*]}"
    if [ "$bifrost" -eq 1 ]; then
        if [ "$dry_run" -eq 1 ]; then
            bifrost_print_config "$DEMO_BIFROST_LGOS_URL" "demo/Procfile's bifrost line writes it to ${DEMO_BIFROST_APP_DIR}/config.json"
            echo "  Bifrost command: ${DEMO_BIFROST_BIN:-bifrost-http} -app-dir ${DEMO_BIFROST_APP_DIR} -host ${DEMO_BIFROST_HOST} -port ${DEMO_BIFROST_PORT}"
        fi
        if [ -z "${DEMO_BIFROST_BIN:-}" ] || [ ! -x "$DEMO_BIFROST_BIN" ]; then
            bifrost_missing
            if [ "$dry_run" -eq 0 ]; then exit 1; fi
        fi
    fi
    if [ "$dry_run" -eq 1 ]; then
        echo "Dry run: nothing was started."
        return 0
    fi
    echo "Press Ctrl-C to stop everything."
    uv sync --all-packages --frozen --quiet
    if [ "$gateway" -eq 1 ] && [ -z "${DEMO_GATEWAY_LITELLM:-}" ]; then
        # The pinned LiteLLM proxy in its own environment (cached after the first run).
        DEMO_GATEWAY_LITELLM="$(bash scripts/ensure-litellm.sh)"
        export DEMO_GATEWAY_LITELLM
    fi
    if [ "$open_webui" -eq 1 ]; then
        # The pinned Open WebUI in its own environment (cached after the first run).
        bash scripts/ensure-open-webui.sh >/dev/null
    fi
    # What the processes write under .data (uploads, their metadata database,
    # notes) is the user's alone: files 0600, folders 0700.
    umask 077
    run_until_stopped "${command[@]}"
}

if [ "$mode" = "compose" ]; then run_compose; else run_local; fi
