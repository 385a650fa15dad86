"""Run the UI from any directory: ``python -m lgos_chainlit [chainlit run options]``.

Equivalent to ``CHAINLIT_APP_ROOT=ui/chainlit chainlit run
ui/chainlit/src/lgos_chainlit/app.py --headless [options]``, e.g.::

    uv run python -m lgos_chainlit --host 127.0.0.1 --port 8001

Before starting Chainlit it makes sure ``CHAINLIT_AUTH_SECRET`` is set
(generated once into the data directory, see
:func:`lgos_chainlit.auth_secret.ensure_auth_secret`) and that the port is
free: Chainlit itself exits with status 0 when it cannot listen, this exits
with status 1 and says why. It also refuses to start reachable beyond this
machine with the documented demo password (:func:`exposed_default_login`),
and answers only its own host names and pages (:mod:`lgos_chainlit.site_guard`).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Sequence

from lgos_chainlit.paths import APP_FILE, APP_ROOT

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000  # Chainlit's default


def _option(args: Sequence[str], name: str) -> str | None:
    """Return the value of ``--name value`` or ``--name=value`` (last wins)."""
    value = None
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith(f"{name}="):
            value = arg.split("=", 1)[1]
    return value


def listen_address(args: Sequence[str]) -> tuple[str, int]:
    """Where ``chainlit run`` will listen: its options, else its variables."""
    host = _option(args, "--host") or os.environ.get("CHAINLIT_HOST") or DEFAULT_HOST
    port = _option(args, "--port") or os.environ.get("CHAINLIT_PORT")
    return host, int(port) if port else DEFAULT_PORT


def port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on, or ``None`` when it can.

    Binds a socket the way Uvicorn does (``SO_REUSEADDR``), then closes it.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot resolve {host}: {exc}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposed_default_login(host: str) -> str | None:
    """Why the UI must not start on ``host`` with its login, or ``None`` if it may.

    The documented demo login (``demo``/``demo``, shown by the login hint)
    is only for a UI reachable from this machine alone: the address users
    reach it on (``DEMO_CHAINLIT_PUBLISH_ADDRESS``, else ``host``) must be
    loopback, or the password must be one of the user's own.
    """
    from lgos_chainlit.settings import DEFAULT_DEMO_PASSWORD, get_settings

    settings = get_settings()
    reached_at = settings.publish_address or host
    if _is_loopback(reached_at):
        return None
    if settings.demo_password.get_secret_value() != DEFAULT_DEMO_PASSWORD:
        return None
    return (
        f"the UI would be reachable on {reached_at} with the documented demo "
        "password: set DEMO_CHAINLIT_DEMO_PASSWORD (and DEMO_CHAINLIT_DEMO_USER) "
        "in .env, or listen on 127.0.0.1"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Start ``chainlit run`` on the app, headless, with the LGOS app root."""
    # Chainlit reads its app root when it is first imported: set it before.
    # (Only from a source checkout: an installed wheel has no ui/chainlit.)
    if (APP_ROOT / ".chainlit" / "config.toml").is_file():
        os.environ.setdefault("CHAINLIT_APP_ROOT", str(APP_ROOT))

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        host, port = listen_address(args)
    except ValueError:
        sys.exit("lgos_chainlit: --port must be a number")
    problem = port_problem(host, port)
    if problem is not None:
        sys.exit(f"lgos_chainlit: {problem} (is the UI already running?)")
    exposed = exposed_default_login(host)
    if exposed is not None:
        sys.exit(f"lgos_chainlit: {exposed}")

    from lgos_chainlit.auth_secret import ensure_auth_secret
    from lgos_chainlit.settings import get_settings

    ensure_auth_secret(get_settings().data_dir)

    from chainlit.server import app, sio

    from lgos_chainlit.site_guard import install

    install(app, sio, get_settings(), host)

    from chainlit.cli import cli

    if not {"--headless", "-h"} & set(args):
        args.insert(0, "--headless")
    cli.main(args=["run", str(APP_FILE), *args], prog_name="chainlit")


if __name__ == "__main__":
    main()
