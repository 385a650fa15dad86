"""What `just demo` does, decided without side effects.

`make_plan` turns the command-line flags and the environment into a `Plan`:
the mode (Compose or local processes) and why, the environment the services
get, the command that runs them, the ports to check first and the lines the
banner prints. Finding out whether a Docker engine answers, whether a port
is taken or which containers run is left to the caller (`lgos_demo_launcher.run`):
the plan takes those facts as arguments, so that every decision here is a plain
function of its inputs.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from dotenv import dotenv_values

from lgos_demo_launcher.compose import compose_plan
from lgos_demo_launcher.flags import check_flags, parse_flags, usage
from lgos_demo_launcher.local import local_plan
from lgos_demo_launcher.model import (
    COMPOSE_UP,
    HONCHO,
    LOCAL_SYNC,
    MAX_REPLICAS,
    BifrostConfig,
    DockerCheck,
    Env,
    Help,
    LaunchError,
    Plan,
    Port,
)

__all__ = [
    "COMPOSE_UP",
    "HONCHO",
    "LOCAL_SYNC",
    "MAX_REPLICAS",
    "BifrostConfig",
    "DockerCheck",
    "Help",
    "LaunchError",
    "Plan",
    "Port",
    "load_env",
    "make_plan",
    "usage",
]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def load_env(
    environ: Mapping[str, str], path: str | os.PathLike[str]
) -> dict[str, str]:
    """Return ``environ`` with the ``.env`` file at ``path`` under it, as `just` does.

    A variable already set (even to an empty value) wins over the file; lines
    that set no shell variable are skipped without a word, and ``${NAME}`` is
    kept as written. A missing file adds nothing.
    """
    env = dict(environ)
    file = Path(path)
    if not file.is_file():
        return env
    # python-dotenv warns about each line it cannot read; they are skipped.
    quiet = logging.getLogger("dotenv.main")
    was_disabled, quiet.disabled = quiet.disabled, True
    try:
        values = dotenv_values(file, interpolate=False)
    finally:
        quiet.disabled = was_disabled
    for name, value in values.items():
        if value is None or not _NAME.fullmatch(name) or name in env:
            continue
        env[name] = value
    return env


def make_plan(
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    docker: Callable[[], DockerCheck],
    which: Callable[[str], str | None] = lambda _name: None,
    is_executable: Callable[[str], bool] = lambda _path: False,
    cwd: str = ".",
) -> Plan | Help:
    """Decide one `just demo` run from its flags and environment.

    ``env`` is the environment with ``.env`` already under it (`load_env`).
    ``docker`` is asked, at most once, whether an engine answers: not when
    ``--local`` decides the mode. ``which`` finds a program on PATH and
    ``is_executable`` tells whether a path can be run (both for the local
    Bifrost binary); ``cwd`` is the repository's root, where the local
    Bifrost keeps its data. Returns the `Help` text for ``--help``; raises
    `LaunchError` with the message and exit status of a refused run.
    """
    parsed = parse_flags(args, env)
    if isinstance(parsed, Help):
        return parsed
    flags = parsed
    check_flags(flags, env)
    check: DockerCheck | None = None
    if flags.mode == "compose":
        check = docker()
        if not check.usable:
            raise LaunchError(
                f"just demo --compose: {check.reason}.\n"
                "Start Docker, or run the local processes with: just demo --local",
                1,
            )
        reason, mode = "--compose was given", "compose"
    elif flags.mode == "local":
        reason, mode = "--local was given", "local"
    else:
        check = docker()
        mode = "compose" if check.usable else "local"
        reason = check.reason
    if flags.replicas and mode == "local":
        raise LaunchError(
            f"just demo --replicas: {reason}.\n"
            "The replicas, their balancer and workers run on Docker Compose only. "
            "Start Docker,\n  or run one API as local processes: just demo --local",
            1,
        )
    if mode == "compose":
        return compose_plan(flags, Env(env), tuple(args), reason)
    return local_plan(flags, Env(env), tuple(args), reason, which, is_executable, cwd)
