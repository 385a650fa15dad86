"""The command line of `just demo`: its usage, its flags, the combinations refused."""

# ruff: noqa: E501 - the usage text keeps the lines `just demo --help` prints

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lgos_demo_launcher.model import MAX_REPLICAS, Flags, Help, LaunchError


def usage(env: Mapping[str, str]) -> str:
    """Return the text of ``just demo --help``, with the addresses a run would use."""

    def port(name: str, default: str) -> str:
        return env.get(name) or default

    return f"""\
Usage: just demo [--compose | --local] [--gateway] [--mcp] [--open-webui] [--observability] [--bifrost] [--dry-run]
                 [--replicas N]
       just demo --help

Runs the LGOS demo stack: demo API, Chainlit UI, Files service, corpus server
(and, with Compose, PostgreSQL, Hatchet and the Hatchet worker).

With no mode flag, Compose is used when a Docker engine answers `docker info`
within DEMO_DOCKER_TIMEOUT seconds (default 5) and `docker compose` exists;
otherwise the services run as local processes (honcho, demo/Procfile).

  --compose         always use Docker Compose (compose.yaml); fail without an engine
  --local           always use local processes, even when Docker is available
  --gateway         also start the LiteLLM gateway in front of the API, with the
                    LGOS model sync (http://127.0.0.1:{port("DEMO_GATEWAY_PORT", "4000")}/v1, DEMO_GATEWAY_PORT);
                    the chat UI then talks to the gateway (Compose: profile
                    "gateway"; local: the pinned proxy is installed on first use)
  --bifrost         also start Bifrost in front of the API
                    (http://127.0.0.1:{port("DEMO_BIFROST_PORT", "8007")}, DEMO_BIFROST_PORT); the chat UIs talk to
                    its passthrough route, or with DEMO_BIFROST_ROUTE=v1 to its
                    /v1 route (models openai/<graph>, fewer features; see
                    docs/how-to/proxies.md). Compose: profile "bifrost", the
                    public image DEMO_BIFROST_IMAGE; local: the bifrost-http
                    binary you give as DEMO_BIFROST_BIN (or on PATH)
  --mcp             also start the demo MCP server (http://127.0.0.1:{port("DEMO_MCP_PORT", "8005")}/mcp,
                    DEMO_MCP_PORT); the chat UI offers its tools to the graphs
                    that take MCP tools, through the gateway's /mcp with
                    --gateway (Compose: profile "mcp")
  --open-webui      also start Open WebUI with the LGOS pipe installed
                    (http://127.0.0.1:{port("DEMO_OPEN_WEBUI_PORT", "8006")}, DEMO_OPEN_WEBUI_PORT; no sign-in),
                    talking to the gateway with --gateway, with the MCP server's
                    tools with --mcp (Compose: profile "open-webui", Open WebUI's
                    image; local: the pinned Open WebUI, about 7 GB, is
                    installed on first use)
  --observability   Compose only: also start the OpenTelemetry collector and
                    Jaeger (profile "observability"; traces on http://127.0.0.1:{port("DEMO_JAEGER_PORT", "16686")})
  --replicas N      Compose only: N API replicas (1 to {MAX_REPLICAS}) behind HAProxy, round
                    robin over the ones whose /health/ready passes, and
                    {port("DEMO_WORKER_REPLICAS", "2")} Hatchet workers (DEMO_WORKER_REPLICAS), on the one
                    PostgreSQL and Hatchet engine; the balancer takes the API's
                    address, and its statistics are on http://127.0.0.1:{port("DEMO_BALANCER_STATS_PORT", "8404")}/stats
                    (overlay demo/compose/replicas.yaml; docs/deploy.md)
  --dry-run         print the chosen mode, the reason and the command; run nothing
  -h, --help        print this help

Stop with Ctrl-C. Variables come from .env (copy .env.example).
"""


def parse_flags(args: Sequence[str], env: Mapping[str, str]) -> Flags | Help:
    """Read ``args`` in order: the first ``--help`` or bad option decides."""
    flags = Flags()
    replicas_next = False

    def set_mode(mode: str) -> None:
        if flags.mode and flags.mode != mode:
            raise LaunchError("just demo: choose one of --compose and --local", 2)
        flags.mode = mode

    for arg in args:
        if replicas_next:
            replicas_next = False
            # An option right after --replicas is not its number (checked below).
            if not arg.startswith("-"):
                flags.replicas = arg
                continue
        if arg == "--compose":
            set_mode("compose")
        elif arg == "--local":
            set_mode("local")
        elif arg == "--observability":
            flags.observability = True
        elif arg == "--gateway":
            flags.gateway = True
        elif arg == "--bifrost":
            flags.bifrost = True
        elif arg == "--mcp":
            flags.mcp = True
        elif arg == "--open-webui":
            flags.open_webui = True
        elif arg == "--dry-run":
            flags.dry_run = True
        elif arg == "--replicas":
            flags.replicas_given, replicas_next, flags.replicas = True, True, ""
        elif arg.startswith("--replicas="):
            flags.replicas_given = True
            flags.replicas = arg.removeprefix("--replicas=")
        elif arg in ("-h", "--help"):
            return Help(usage(env))
        else:
            raise LaunchError(
                f"just demo: unknown option '{arg}'\n{usage(env)}".rstrip("\n"), 2
            )
    return flags


def check_flags(flags: Flags, env: Mapping[str, str]) -> None:
    """Refuse (exit 2) the flag combinations no mode can run."""
    if flags.gateway and flags.bifrost:
        raise LaunchError(
            "just demo: choose one of --gateway and --bifrost "
            "(both would sit where the UI connects)",
            2,
        )
    route = env.get("DEMO_BIFROST_ROUTE") or "passthrough"
    if flags.bifrost and route not in ("passthrough", "v1"):
        raise LaunchError(
            f"just demo: DEMO_BIFROST_ROUTE is '{route}'; "
            "use passthrough (the default) or v1",
            2,
        )
    if flags.mode == "local" and flags.observability:
        raise LaunchError("just demo: --observability needs Compose (drop --local)", 2)
    if not flags.replicas_given:
        return
    if not flags.replicas:
        raise LaunchError(
            "just demo: --replicas needs a number of API replicas, e.g. --replicas 3", 2
        )
    if not re.fullmatch(r"[0-9]{1,4}", flags.replicas) or not (
        1 <= int(flags.replicas) <= MAX_REPLICAS
    ):
        raise LaunchError(
            f"just demo: --replicas takes a whole number from 1 to {MAX_REPLICAS}, "
            f"not '{flags.replicas}'",
            2,
        )
    flags.replicas = str(int(flags.replicas))
    if flags.mode == "local":
        raise LaunchError(
            "just demo: --replicas needs Compose (drop --local): the replicas share "
            "one PostgreSQL\n  and one Hatchet engine, which the Compose stack runs; "
            "the local processes run one API.",
            2,
        )
