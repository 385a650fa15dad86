"""Run the UI from any directory: ``python -m lgos_chainlit [chainlit run options]``.

Equivalent to ``CHAINLIT_APP_ROOT=ui/chainlit chainlit run
ui/chainlit/src/lgos_chainlit/app.py --headless [options]``, e.g.::

    uv run python -m lgos_chainlit --host 127.0.0.1 --port 8001

Before starting Chainlit it makes sure ``CHAINLIT_AUTH_SECRET`` is set
(generated once into the data directory, see
:func:`lgos_chainlit.persistence.ensure_auth_secret`) and that the port is
free: Chainlit itself exits with status 0 when it cannot listen, this exits
with status 1 and says why.
"""

from __future__ import annotations

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

    from lgos_chainlit.persistence import ensure_auth_secret
    from lgos_chainlit.settings import get_settings

    ensure_auth_secret(get_settings().data_dir)

    from chainlit.cli import cli

    if not {"--headless", "-h"} & set(args):
        args.insert(0, "--headless")
    cli.main(args=["run", str(APP_FILE), *args], prog_name="chainlit")


if __name__ == "__main__":
    main()
