"""The launcher's vocabulary: the plan, its parts, and the helpers both modes share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

MAX_REPLICAS = 16
"""The most API replicas the balancer has slots for (demo/compose/haproxy.cfg)."""

HONCHO = (
    "uv",
    "run",
    "--frozen",
    "--no-sync",
    "honcho",
    "--no-prefix",
    "-e",
    "/dev/null",
    "-f",
    "demo/Procfile",
    "-d",
    ".",
    "start",
)
"""How the local processes start (honcho reads no .env of its own: ``-e /dev/null``)."""

COMPOSE_UP = ("docker", "compose", "up", "--build", "--remove-orphans")
"""How the Compose stack starts."""

LOCAL_SYNC = ("uv", "sync", "--all-packages", "--frozen", "--quiet")
"""What the local mode runs before the processes: the workspace, from uv.lock."""


class LaunchError(Exception):
    """A run refused before anything starts: a message for stderr and an exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class DockerCheck:
    """Whether a Docker engine with the Compose plugin answers, and why (printed)."""

    usable: bool
    reason: str


@dataclass(frozen=True)
class Port:
    """A port this run publishes: the variable setting it, its service, its value."""

    variable: str
    service: str
    value: str


@dataclass(frozen=True)
class BifrostConfig:
    """The Bifrost configuration a dry run prints: LGOS's address, where it goes."""

    lgos_url: str
    where: str


@dataclass
class Plan:
    """One `just demo` run, decided: what to start, with what, and what to print.

    ``stdout`` holds the banner up to and including its ``Command:`` line; the
    runner prints ``bifrost_config`` (a dry run's Bifrost configuration) and
    ``after_config`` after it, then either ``dry_run_lines`` or
    ``start_lines`` and starts ``command`` with ``env``.
    """

    mode: str
    reason: str
    args: tuple[str, ...]
    env: dict[str, str]
    command: tuple[str, ...]
    dry_run: bool
    ports: list[Port]
    stdout: list[str]
    warnings: list[str] = field(default_factory=list)
    bifrost_config: BifrostConfig | None = None
    after_config: list[str] = field(default_factory=list)
    bifrost_missing: str | None = None
    dry_run_lines: list[str] = field(default_factory=list)
    start_lines: list[str] = field(default_factory=list)
    compose_cli: str = "docker compose"
    options: tuple[str, ...] = ()
    ui_url: str = ""
    open_webui_url: str = ""
    ensure_litellm: bool = False
    ensure_open_webui: bool = False


@dataclass(frozen=True)
class Help:
    """``--help``: the usage, printed to stdout with exit status 0."""

    text: str


@dataclass
class Flags:
    """The flags of one run, as given (``replicas`` as typed until checked)."""

    mode: str = ""
    observability: bool = False
    gateway: bool = False
    bifrost: bool = False
    mcp: bool = False
    open_webui: bool = False
    dry_run: bool = False
    replicas: str = ""
    replicas_given: bool = False


class Env:
    """An environment being decided; for defaults an empty value counts as unset."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.vars = dict(env)

    def __getitem__(self, name: str) -> str:
        return self.vars.get(name, "")

    def __setitem__(self, name: str, value: str) -> None:
        self.vars[name] = value

    def get(self, name: str, default: str) -> str:
        """``${name:-default}``."""
        return self.vars.get(name) or default

    def default(self, name: str, default: str) -> str:
        """``export name="${name:-default}"``: set it, return it."""
        self.vars[name] = self.get(name, default)
        return self.vars[name]

    def add_profile(self, profile: str) -> None:
        """Add ``profile`` to COMPOSE_PROFILES (after the ones set already)."""
        current = self["COMPOSE_PROFILES"]
        self["COMPOSE_PROFILES"] = f"{current},{profile}" if current else profile


def answering_model(env: Env) -> str:
    """Name what answers: the offline model, or the upstream one a key selects."""
    if env["DEMO_API_OPENAI_API_KEY"]:
        model = env.get("DEMO_API_OPENAI_RESPONSES_MODEL", "gpt-4.1-mini")
        return f"upstream model {model}"
    return "offline demo model (no API key needed)"


def use_demo_key(env: Env) -> None:
    """Set the API's key and, unless set on their own, the keys its clients send."""
    key = env.default("DEMO_LGOS_API_KEY", "lgos-demo")
    env.default("DEMO_CHAINLIT_OPENAI_API_KEY", key)
    env.default("DEMO_GATEWAY_LGOS_API_KEY", key)


def key_line(env: Env) -> str:
    """Return the banner's key line: the demo default is shown, your own key is not."""
    if env["DEMO_LGOS_API_KEY"] == "lgos-demo":
        return (
            "  API key:               lgos-demo (Authorization: Bearer lgos-demo; "
            "set DEMO_LGOS_API_KEY to change it)"
        )
    return "  API key:               the value of DEMO_LGOS_API_KEY"


def use_bifrost(env: Env, route: str, address: str) -> str:
    """Set what both modes share for Bifrost; return the UIs' base URL through it."""
    env.default("DEMO_BIFROST_PORT", "8007")
    env.default("DEMO_BIFROST_LGOS_API_KEY", env["DEMO_LGOS_API_KEY"])
    if route == "v1":
        # Bifrost's OpenAI-compatible route names models <provider>/<model>.
        model = env.get("DEMO_CHAINLIT_DEFAULT_MODEL", "chat")
        env["DEMO_CHAINLIT_DEFAULT_MODEL"] = f"openai/{model.removeprefix('openai/')}"
        return f"http://{address}/v1"
    return f"http://{address}/openai_passthrough/v1"


def bifrost_line(route: str, base: str) -> str:
    """Return the banner's Bifrost line: its address ``base`` and the UIs' route."""
    if route == "v1":
        return (
            f"  Bifrost:               {base}/v1 (the UIs'; models openai/<graph>: no "
            "lgos extension, no commentary phase, no background polling; "
            "DEMO_BIFROST_ROUTE=v1)"
        )
    return (
        f"  Bifrost:               {base}/openai_passthrough/v1 (the UIs'; every LGOS "
        "feature; DEMO_BIFROST_ROUTE=v1 for its /v1 route)"
    )


def bifrost_missing(binary: str) -> str:
    """Say where bifrost-http comes from (``binary``: the one given, if any)."""
    if binary:
        first = [
            f"just demo --bifrost: DEMO_BIFROST_BIN ({binary}) "
            "is not an executable file."
        ]
    else:
        first = [
            "just demo --bifrost: no Bifrost binary: "
            "set DEMO_BIFROST_BIN to Bifrost's HTTP",
            "  transport (bifrost-http), or put bifrost-http on PATH.",
        ]
    return "\n".join(
        [
            *first,
            "  bifrost-http is not on any package index this demo installs from. "
            "Nothing was started.",
            "  Get v1.4.19, the release the demo's recordings come from, with Go:",
            "    go install github.com/maximhq/bifrost/transports/bifrost-http@v1.4.19",
            "  (then DEMO_BIFROST_BIN=$(go env GOPATH)/bin/bifrost-http), "
            "or run the Compose",
            "  profile instead, which uses the public image: "
            "just demo --compose --bifrost",
        ]
    )


def requested_options(flags: Flags) -> tuple[str, ...]:
    """List the optional parts ``flags`` ask for, as flags (for the attach check)."""
    options = [
        name
        for name, on in (
            ("--gateway", flags.gateway),
            ("--bifrost", flags.bifrost),
            ("--mcp", flags.mcp),
            ("--open-webui", flags.open_webui),
            ("--observability", flags.observability),
        )
        if on
    ]
    if flags.replicas:
        options.append(f"--replicas {flags.replicas}")
    return tuple(options)


def loopback(host: str) -> str:
    """Return a host to connect to: the wildcard addresses mean this machine."""
    return "127.0.0.1" if host in ("0.0.0.0", "::") else host
