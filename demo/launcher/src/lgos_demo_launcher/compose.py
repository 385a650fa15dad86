"""The plan of a Compose run: profiles, overlay, variables and banner."""

from __future__ import annotations

import re

from lgos_demo_launcher.model import (
    COMPOSE_UP,
    BifrostConfig,
    Env,
    Flags,
    LaunchError,
    Plan,
    Port,
    answering_model,
    bifrost_line,
    key_line,
    requested_options,
    use_bifrost,
    use_demo_key,
)


def compose_plan(flags: Flags, env: Env, args: tuple[str, ...], reason: str) -> Plan:
    """Plan a Compose run: profiles, overlay, variables, ports and banner."""
    route = env.get("DEMO_BIFROST_ROUTE", "passthrough")
    open_webui_direct = "; Open WebUI calls it directly" if flags.open_webui else ""
    compose_cli = "docker compose"
    use_demo_key(env)
    api_port = env.default("DEMO_API_PORT", "8000")
    ui_port = env.default("DEMO_CHAINLIT_PORT", "8001")
    corpus_port = env.default("DEMO_CORPUS_PORT", "8002")
    ui = f"http://127.0.0.1:{ui_port}"
    api = f"http://127.0.0.1:{api_port}/v1"
    ports = [
        ("DEMO_API_PORT", "API"),
        ("DEMO_CHAINLIT_PORT", "Chat UI (Chainlit)"),
        ("DEMO_CORPUS_PORT", "Search corpus pages"),
    ]
    password_note = ""
    if not env["POSTGRES_PASSWORD"]:
        # compose.yaml requires it; a throwaway value for the local demo.
        env["POSTGRES_PASSWORD"] = "lgos-demo"
        compose_cli = "POSTGRES_PASSWORD=lgos-demo docker compose"
        password_note = (
            "  POSTGRES_PASSWORD is not set: using the demo password. Set yours in "
            ".env before\n    the first run: the database keeps the one it was "
            "created with (docs/demo/stack.md#data)."
        )
    if flags.gateway:
        env.add_profile("gateway")
        env["DEMO_COMPOSE_UI_UPSTREAM"] = "gateway:4000"
        env["DEMO_CHAINLIT_DISCOVERY"] = "litellm"
        env["DEMO_CHAINLIT_OPENAI_API_KEY"] = env.get(
            "DEMO_GATEWAY_MASTER_KEY", "lgos-demo"
        )
        env.default("DEMO_GATEWAY_PORT", "4000")
        ports.append(("DEMO_GATEWAY_PORT", "LiteLLM gateway"))
    if flags.bifrost:
        env.add_profile("bifrost")
        base = use_bifrost(env, route, "bifrost:8080")
        env["DEMO_COMPOSE_UI_UPSTREAM"] = base.removeprefix("http://").removesuffix(
            "/v1"
        )
        ports.append(("DEMO_BIFROST_PORT", "Bifrost"))
    mcp_note = ""
    if flags.mcp:
        env.add_profile("mcp")
        env.default("DEMO_MCP_PORT", "8005")
        ports.append(("DEMO_MCP_PORT", "MCP server"))
        if flags.gateway:
            env["DEMO_GATEWAY_MCP_URL"] = "http://mcp:8005/mcp"
            env["DEMO_CHAINLIT_MCP_URL"] = "http://gateway:4000/mcp"
            env["DEMO_CHAINLIT_MCP_API_KEY"] = env.get(
                "DEMO_GATEWAY_MASTER_KEY", "lgos-demo"
            )
            mcp_note = (
                " (the UI reaches it through the gateway's "
                f"http://127.0.0.1:{env['DEMO_GATEWAY_PORT']}/mcp{open_webui_direct})"
            )
        else:
            env["DEMO_CHAINLIT_MCP_URL"] = "http://mcp:8005/mcp"
            mcp_note = " (the UI's tools)"
    open_webui_url = ""
    if flags.open_webui:
        env.add_profile("open-webui")
        open_webui_url = (
            f"http://127.0.0.1:{env.default('DEMO_OPEN_WEBUI_PORT', '8006')}"
        )
        ports.append(("DEMO_OPEN_WEBUI_PORT", "Open WebUI"))
        if flags.gateway:
            env["DEMO_OPEN_WEBUI_DISCOVERY"] = "litellm"
            env["DEMO_OPEN_WEBUI_LGOS_API_KEY"] = env.get(
                "DEMO_GATEWAY_MASTER_KEY", "lgos-demo"
            )
        else:
            env.default("DEMO_OPEN_WEBUI_LGOS_API_KEY", env["DEMO_LGOS_API_KEY"])
        if flags.mcp:
            env["DEMO_OPEN_WEBUI_MCP_URL"] = "http://mcp:8005/mcp"
    compose_env = ""
    if flags.replicas:
        # The overlay demo/compose/replicas.yaml: N API replicas behind
        # HAProxy, which takes the API's published port; several workers.
        sep = env.get("COMPOSE_PATH_SEPARATOR", ":")
        if (
            f"{sep}demo/compose/replicas.yaml{sep}"
            not in f"{sep}{env['COMPOSE_FILE']}{sep}"
        ):
            env["COMPOSE_FILE"] = (
                env.get("COMPOSE_FILE", "compose.yaml")
                + f"{sep}demo/compose/replicas.yaml"
            )
        env["DEMO_API_REPLICAS"] = flags.replicas
        workers = env.default("DEMO_WORKER_REPLICAS", "2")
        if not re.fullmatch(r"[0-9]{1,2}", workers):
            raise LaunchError(
                "just demo: DEMO_WORKER_REPLICAS takes a whole number of Hatchet "
                f"workers, not '{workers}'",
                2,
            )
        env.default("DEMO_BALANCER_STATS_PORT", "8404")
        if env.get("DEMO_COMPOSE_UI_UPSTREAM", "api:8000") == "api:8000":
            env["DEMO_COMPOSE_UI_UPSTREAM"] = "balancer:8000"
        ports.append(("DEMO_BALANCER_STATS_PORT", "Balancer statistics"))
        compose_env = (
            f"COMPOSE_FILE={env['COMPOSE_FILE']} DEMO_API_REPLICAS={flags.replicas} "
            f"DEMO_WORKER_REPLICAS={workers} "
        )
        compose_cli = f"COMPOSE_FILE={env['COMPOSE_FILE']} {compose_cli}"
    if flags.observability:
        env.add_profile("observability")
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://otel-collector:4318"
        env.default("DEMO_JAEGER_PORT", "16686")
        ports.append(("DEMO_JAEGER_PORT", "Jaeger"))

    out = [
        "LGOS demo with Docker Compose; graphs answer with the "
        f"{answering_model(env)}.",
        f"  Why Compose: {reason}. Force a mode with --compose or --local "
        "(just demo --help).",
    ]
    if password_note:
        out.append(password_note)
    out.append(f"  Chat UI (Chainlit):    {ui}")
    if open_webui_url:
        out.append(
            f"  Open WebUI:            {open_webui_url} (the LGOS pipe; no sign-in; "
            "the first start takes minutes)"
        )
    out.append(f"  OpenAI-compatible API: {api}")
    if flags.replicas:
        out += [
            f"  API replicas:          {flags.replicas} behind HAProxy, round robin "
            "over those whose /health/ready passes;",
            f"                         {env['DEMO_WORKER_REPLICAS']} Hatchet workers "
            "(the answer's X-LGOS-Replica header names the replica)",
            "  Balancer statistics:   "
            f"http://127.0.0.1:{env['DEMO_BALANCER_STATS_PORT']}/stats",
        ]
    out.append(key_line(env))
    if flags.gateway:
        out.append(
            f"  LiteLLM gateway:       http://127.0.0.1:{env['DEMO_GATEWAY_PORT']}/v1 "
            "(the UI's; /model/info has the lgos models)"
        )
    if flags.bifrost:
        out.append(bifrost_line(route, f"http://127.0.0.1:{env['DEMO_BIFROST_PORT']}"))
    if flags.mcp:
        out.append(
            f"  MCP server:            http://127.0.0.1:{env['DEMO_MCP_PORT']}/mcp{mcp_note}"
        )
    out.append(f"  Corpus pages:          http://127.0.0.1:{corpus_port}")
    if flags.observability:
        out.append(
            f"  Traces (Jaeger):       http://127.0.0.1:{env['DEMO_JAEGER_PORT']}"
        )
    profiles = env["COMPOSE_PROFILES"]
    out.append(
        f"  Command: {compose_env}"
        f"{f'COMPOSE_PROFILES={profiles} ' if profiles else ''}{' '.join(COMPOSE_UP)}"
    )
    project = env.get("COMPOSE_PROJECT_NAME", "lgos-demo")
    down = (
        "  To remove the containers and drop the data: "
        f"{compose_cli} --profile '*' down -v"
    )
    return Plan(
        mode="compose",
        reason=reason,
        args=args,
        env=env.vars,
        command=COMPOSE_UP,
        dry_run=flags.dry_run,
        ports=[Port(name, service, env[name]) for name, service in ports],
        stdout=out,
        bifrost_config=BifrostConfig(
            "http://api:8000",
            "the bifrost-config service writes into the bifrost_data volume",
        )
        if flags.bifrost and flags.dry_run
        else None,
        dry_run_lines=[
            "Dry run: nothing was started. Data would stay in the volumes of "
            f"Compose project {project}.",
            down,
        ],
        start_lines=[
            "Press Ctrl-C to stop; data stays in the volumes of Compose project "
            f"{project}.",
            down,
        ],
        compose_cli=compose_cli,
        options=requested_options(flags),
        ui_url=ui,
        open_webui_url=open_webui_url,
    )
