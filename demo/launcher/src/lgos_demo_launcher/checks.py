"""Decisions on what the runner finds out: busy ports, a running stack, readiness."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lgos_demo_launcher.model import Plan


def busy_ports(plan: Plan, busy: Callable[[int], bool]) -> str | None:
    """Name every port of ``plan`` that ``busy`` says is taken (None: all free).

    It suggests, for each, a free port (10, 20, ... above it, up to 90, not one
    another service of the run uses or was just given) and one command that
    moves them all.
    """
    taken = {_int(port.value) for port in plan.ports}
    lines = []
    moves = ""
    for port in plan.ports:
        number = _int(port.value)
        if not busy(number):
            continue
        free = number + 10
        while (busy(free) or free in taken) and free < number + 100:
            free += 10
        taken.add(free)
        lines.append(
            f"just demo: port {port.value} for the {port.service} ({port.variable}) "
            "is already in use."
        )
        moves += f"{port.variable}={free} "
    if not lines:
        return None
    given = f" {' '.join(plan.args)}" if plan.args else ""
    return "\n".join(
        [
            *lines,
            "Nothing was started. Stop what listens there (another 'just demo'?), "
            "or move",
            f"  the services: {moves}just demo{given}   (or set them in .env).",
        ]
    )


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return 0


def attach_refusal(
    plan: Plan, services: Iterable[str], running_replicas: Callable[[], int]
) -> str | None:
    """Why this run must not attach to the running stack of ``services``, or None.

    Attaching with other optional parts than the running stack has would
    recreate the UI without them (or start them beside a stack that does not
    use them). ``running_replicas`` counts the API containers; it is asked
    only when the balancer runs.
    """
    names = set(services)
    running = [
        flag
        for flag, on in (
            ("--gateway", "gateway" in names),
            ("--bifrost", "bifrost" in names),
            ("--mcp", "mcp" in names),
            ("--open-webui", "open-webui" in names),
            ("--observability", bool({"otel-collector", "jaeger"} & names)),
        )
        if on
    ]
    if "balancer" in names:
        running.append(f"--replicas {running_replicas()}")
    if tuple(running) == plan.options:
        return None
    have, want = " ".join(running), " ".join(plan.options)
    hint = "".join(f" {flag}" for flag in running)
    return "\n".join(
        [
            f"just demo: the stack is already running with options '{have}', "
            f"and this run asks for '{want}'.",
            "Attaching would reconfigure it. Attach with the same options: "
            f"just demo --compose{hint}",
            "or stop it first (Ctrl-C where it runs, or: "
            f"{plan.compose_cli} --profile '*' stop).",
        ]
    )


ATTACHED = (
    "The stack is already running (another 'just demo'?): attaching to it. "
    "Ctrl-C here\n"
    "  stops it for both; '{compose_cli} logs -f' only watches."
)
"""What a Compose run prints when it attaches to its project's running stack."""

IMAGES_MISSING = (
    "just demo: the images above could not be pulled "
    "(is an image registry reachable?).\n"
    "Nothing was started. Run the local processes instead: just demo --local\n"
    "  or point the DEMO_*_IMAGE variables at images you have "
    "(docs/demo/stack.md#image-names)."
)
"""The refusal when an image the stack needs is neither here nor pullable."""

LOCAL_IMAGES = frozenset({"lgos-demo:local", "lgos-demo-gateway:local"})
"""The images Compose builds here: never looked up or pulled."""


@dataclass(frozen=True)
class Ready:
    """The stack is ready: the line to print, and a warning when Open WebUI failed."""

    line: str
    warning: str | None = None


def readiness(plan: Plan, states: str, provisioned: str | None) -> Ready | None:
    """Whether the Compose stack is ready, from ``docker compose ps`` output.

    ``states`` has ``service=health`` lines; ``provisioned`` the
    ``open-webui-provision=<exit code>`` line of the one-shot that installs
    Open WebUI's pipe (None when it could not be read). Returns None while the
    UI, the worker (and with Open WebUI, Open WebUI and its provisioning) are
    not done.
    """
    lines = set(states.splitlines())
    if not {"chainlit=healthy", "worker=healthy"} <= lines:
        return None
    open_webui_url = plan.open_webui_url
    warning = None
    if open_webui_url:
        if "open-webui=healthy" not in lines or provisioned is None:
            return None
        provisioned = provisioned.strip()
        if provisioned == "open-webui-provision=0":
            pass
        elif provisioned.startswith("open-webui-provision="):
            warning = (
                "just demo: Open WebUI could not be provisioned with the LGOS pipe: "
                f"{plan.compose_cli} logs open-webui-provision"
            )
            open_webui_url = ""
        else:
            return None
    also = f" or {open_webui_url}" if open_webui_url else ""
    return Ready(
        f"LGOS demo is ready: open {plan.ui_url}{also} (Ctrl-C stops it).", warning
    )
