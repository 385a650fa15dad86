"""The plan of a local run: the Procfile's processes, their variables and banner."""

from __future__ import annotations

from collections.abc import Callable

from lgos_demo_launcher.model import (
    HONCHO,
    BifrostConfig,
    Env,
    Flags,
    Plan,
    Port,
    answering_model,
    bifrost_line,
    bifrost_missing,
    key_line,
    loopback,
    requested_options,
    use_bifrost,
    use_demo_key,
)


def local_plan(
    flags: Flags,
    env: Env,
    args: tuple[str, ...],
    reason: str,
    which: Callable[[str], str | None],
    is_executable: Callable[[str], bool],
    cwd: str,
) -> Plan:
    """Plan a local run: the Procfile's processes, variables, ports and banner.

    ``which`` finds bifrost-http on PATH, ``is_executable`` checks the binary,
    ``cwd`` is where the local Bifrost keeps its data (``.data/bifrost``).
    """
    route = env.get("DEMO_BIFROST_ROUTE", "passthrough")
    open_webui_direct = "; Open WebUI calls it directly" if flags.open_webui else ""
    warnings = []
    if flags.observability:
        warnings.append(
            "just demo: --observability needs Compose; starting without it."
        )
    api_host = env.default("DEMO_API_HOST", "127.0.0.1")
    api_port = env.default("DEMO_API_PORT", "8000")
    ui_host = env.default("DEMO_CHAINLIT_HOST", "127.0.0.1")
    ui_port = env.default("DEMO_CHAINLIT_PORT", "8001")
    env.default("DEMO_CHAINLIT_OPENAI_BASE_URL", f"http://{api_host}:{api_port}/v1")
    files_host = env.default("DEMO_FILES_HOST", "127.0.0.1")
    files_port = env.default("DEMO_FILES_PORT", "8003")
    corpus_port = env.default("DEMO_CORPUS_PORT", "8002")
    # The API requires the demo key, as in Compose; its clients send it.
    use_demo_key(env)
    env["LGOS_API_KEYS"] = env["DEMO_LGOS_API_KEY"]
    # One readable log format for every process (LGOS_LOG_FORMAT=json for JSON lines).
    env.default("LGOS_LOG_FORMAT", "text")
    env.default("DEMO_API_CORPUS_BASE_URL", f"http://{api_host}:{corpus_port}")
    env.default("DEMO_API_FILES_BASE_URL", f"http://{files_host}:{files_port}/v1")
    env.default("DEMO_CHAINLIT_FILES_BASE_URL", f"http://{files_host}:{files_port}/v1")
    model = answering_model(env)
    api_url = env["DEMO_CHAINLIT_OPENAI_BASE_URL"]
    processes = ["api", "chainlit", "corpus", "files"]
    # URLs the UI waits for before it starts (the Procfile's chainlit line).
    wait_for: list[str] = []
    if flags.gateway:
        processes.append("gateway")
        api_url = f"http://{api_host}:{api_port}/v1"
        gateway_host = env.default("DEMO_GATEWAY_HOST", "127.0.0.1")
        gateway_port = env.default("DEMO_GATEWAY_PORT", "4000")
        env.default("DEMO_GATEWAY_LGOS_BASE_URL", api_url)
        env["DEMO_CHAINLIT_OPENAI_BASE_URL"] = (
            f"http://{gateway_host}:{gateway_port}/v1"
        )
        env["DEMO_CHAINLIT_OPENAI_API_KEY"] = env.get(
            "DEMO_GATEWAY_MASTER_KEY", "lgos-demo"
        )
        env["DEMO_CHAINLIT_DISCOVERY"] = "litellm"
        wait_for = [f"http://{gateway_host}:{gateway_port}/health/liveliness"]
    if flags.bifrost:
        processes.append("bifrost")
        if not env["DEMO_BIFROST_BIN"]:
            found = which("bifrost-http")
            if found:
                env["DEMO_BIFROST_BIN"] = found
        api_url = f"http://{api_host}:{api_port}/v1"
        bifrost_host = loopback(env.default("DEMO_BIFROST_HOST", "127.0.0.1"))
        env["DEMO_BIFROST_LGOS_URL"] = f"http://{loopback(api_host)}:{api_port}"
        env.default("DEMO_BIFROST_APP_DIR", f"{cwd}/.data/bifrost")
        base = use_bifrost(
            env, route, f"{bifrost_host}:{env.get('DEMO_BIFROST_PORT', '8007')}"
        )
        env["DEMO_CHAINLIT_OPENAI_BASE_URL"] = base
        wait_for = [f"http://{bifrost_host}:{env['DEMO_BIFROST_PORT']}/health"]
    mcp_url = mcp_note = ""
    if flags.mcp:
        processes.append("mcp")
        mcp_host = loopback(env.default("DEMO_MCP_HOST", "127.0.0.1"))
        mcp_port = env.default("DEMO_MCP_PORT", "8005")
        mcp_url = f"http://{mcp_host}:{mcp_port}/mcp"
        env.default("DEMO_MCP_CORPUS_BASE_URL", env["DEMO_API_CORPUS_BASE_URL"])
        wait_for.append(f"http://{mcp_host}:{mcp_port}/health")
        if flags.gateway:
            env["DEMO_GATEWAY_MCP_URL"] = mcp_url
            env["DEMO_CHAINLIT_MCP_URL"] = (
                f"http://{env['DEMO_GATEWAY_HOST']}:{env['DEMO_GATEWAY_PORT']}/mcp"
            )
            env["DEMO_CHAINLIT_MCP_API_KEY"] = env.get(
                "DEMO_GATEWAY_MASTER_KEY", "lgos-demo"
            )
            mcp_note = (
                " (the UI reaches it through the gateway's "
                f"{env['DEMO_CHAINLIT_MCP_URL']}{open_webui_direct})"
            )
        else:
            env["DEMO_CHAINLIT_MCP_URL"] = mcp_url
            mcp_note = " (the UI's tools)"
    env["DEMO_UI_WAIT_FOR"] = " ".join(wait_for)
    if flags.open_webui:
        processes.append("open-webui")
        env.default("DEMO_OPEN_WEBUI_HOST", "127.0.0.1")
        env.default("DEMO_OPEN_WEBUI_PORT", "8006")
        env.default(
            "DEMO_OPEN_WEBUI_LGOS_BASE_URL", env["DEMO_CHAINLIT_OPENAI_BASE_URL"]
        )
        env.default(
            "DEMO_OPEN_WEBUI_LGOS_API_KEY",
            env.get("DEMO_CHAINLIT_OPENAI_API_KEY", "lgos-demo"),
        )
        env.default(
            "DEMO_OPEN_WEBUI_FILES_BASE_URL", env["DEMO_CHAINLIT_FILES_BASE_URL"]
        )
        env.default(
            "DEMO_OPEN_WEBUI_DISCOVERY", env.get("DEMO_CHAINLIT_DISCOVERY", "lgos")
        )
        env["DEMO_OPEN_WEBUI_WAIT_FOR"] = " ".join(
            [f"http://{api_host}:{api_port}/v1/health", *wait_for]
        )
        if flags.mcp:
            env.default("DEMO_OPEN_WEBUI_MCP_URL", mcp_url)
    command = (*HONCHO, *processes)
    ports = [
        ("DEMO_API_PORT", "API"),
        ("DEMO_CHAINLIT_PORT", "Chat UI (Chainlit)"),
        ("DEMO_FILES_PORT", "Files service"),
        ("DEMO_CORPUS_PORT", "Search corpus pages"),
    ]
    if flags.gateway:
        ports.append(("DEMO_GATEWAY_PORT", "LiteLLM gateway"))
    if flags.bifrost:
        ports.append(("DEMO_BIFROST_PORT", "Bifrost"))
    if flags.mcp:
        ports.append(("DEMO_MCP_PORT", "MCP server"))
    if flags.open_webui:
        ports.append(("DEMO_OPEN_WEBUI_PORT", "Open WebUI"))

    out = [
        f"LGOS demo as local processes; graphs answer with the {model}.",
        f"  Why local: {reason}. Force a mode with --compose or --local "
        "(just demo --help).",
        f"  Chat UI (Chainlit):    http://{ui_host}:{ui_port}",
    ]
    if flags.open_webui:
        out.append(
            "  Open WebUI:            "
            f"http://{env['DEMO_OPEN_WEBUI_HOST']}:{env['DEMO_OPEN_WEBUI_PORT']} "
            "(the LGOS pipe; no sign-in; ready about a minute after the API)"
        )
    out.append(f"  OpenAI-compatible API: {api_url}")
    out.append(key_line(env))
    if flags.gateway:
        out.append(
            f"  LiteLLM gateway:       {env['DEMO_CHAINLIT_OPENAI_BASE_URL']} "
            "(the UI's; /model/info has the lgos models)"
        )
    bifrost_config = None
    after_config: list[str] = []
    missing = None
    if flags.bifrost:
        binary = env["DEMO_BIFROST_BIN"]
        out.append(
            bifrost_line(
                route, f"http://{env['DEMO_BIFROST_HOST']}:{env['DEMO_BIFROST_PORT']}"
            )
        )
        out.append(
            "  Bifrost binary:        "
            f"{binary or 'bifrost-http (not found: see below)'}"
        )
        if flags.dry_run:
            app_dir = env["DEMO_BIFROST_APP_DIR"]
            bifrost_config = BifrostConfig(
                env["DEMO_BIFROST_LGOS_URL"],
                f"demo/Procfile's bifrost line writes it to {app_dir}/config.json",
            )
            after_config.append(
                f"  Bifrost command: {binary or 'bifrost-http'} -app-dir {app_dir} "
                f"-host {env['DEMO_BIFROST_HOST']} -port {env['DEMO_BIFROST_PORT']}"
            )
        if not binary or not is_executable(binary):
            missing = bifrost_missing(binary)
    if flags.mcp:
        out.append(f"  MCP server:            {mcp_url}{mcp_note}")
    out += [
        f"  Files service:         {env['DEMO_API_FILES_BASE_URL']}",
        f"  Search corpus pages:   {env['DEMO_API_CORPUS_BASE_URL']}",
        f"  Command: {' '.join(command)}",
    ]
    return Plan(
        mode="local",
        reason=reason,
        args=args,
        env=env.vars,
        command=command,
        dry_run=flags.dry_run,
        ports=[Port(name, service, env[name]) for name, service in ports],
        stdout=out,
        warnings=warnings,
        bifrost_config=bifrost_config,
        after_config=after_config,
        bifrost_missing=missing,
        dry_run_lines=["Dry run: nothing was started."],
        start_lines=["Press Ctrl-C to stop everything."],
        options=requested_options(flags),
        ui_url=f"http://{ui_host}:{ui_port}",
        ensure_litellm=flags.gateway and not env["DEMO_GATEWAY_LITELLM"],
        ensure_open_webui=flags.open_webui,
    )
