"""The gateway's command line: ``python -m lgos_demo_gateway {serve,sync}``.

- ``serve``: sync LGOS's models into the LiteLLM configuration (waiting up to
  `DEMO_GATEWAY_LGOS_WAIT_SECONDS` for LGOS), run the pinned proxy
  (`DEMO_GATEWAY_LITELLM`) as a child on `DEMO_GATEWAY_HOST`:`DEMO_GATEWAY_PORT`,
  and restart it whenever the configuration changes; SIGHUP syncs again.
- ``sync``: on demand, sync again; when a gateway answers at the configured
  address, wait until its ``/model/info`` carries every graph's `lgos` object
  (the running ``serve`` restarts the proxy on the new file).

Exit codes: 0 done; 1 LGOS unreadable, the proxy not ready, or the gateway not
matching LGOS in time; 2 invalid settings.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from lgos_demo_gateway.proxy import (
    Supervisor,
    gateway_answers,
    sync_once,
    wait_served,
)
from lgos_demo_gateway.settings import GatewaySettings
from lgos_demo_gateway.sync import SyncError

log = logging.getLogger("lgos_demo_gateway")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run the command; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m lgos_demo_gateway",
        description="The LGOS demo's LiteLLM gateway and its LGOS model sync.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "serve", help="sync, then run the LiteLLM proxy and keep it current"
    )
    sync = commands.add_parser("sync", help="sync now (a running serve picks it up)")
    sync.add_argument(
        "--no-wait",
        action="store_true",
        help="write the configuration; do not wait for the gateway to serve it",
    )
    args = parser.parse_args(argv)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    log.setLevel(logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request
    try:
        settings = GatewaySettings()
    except ValidationError as exc:
        print(f"lgos_demo_gateway: invalid settings: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "serve":
            return Supervisor(settings).run()
        changed = sync_once(settings, wait_seconds=settings.lgos_wait_seconds)
        if args.no_wait:
            return 0
        if not gateway_answers(settings):
            log.info(
                "No gateway answers at %s; `serve` will start on this configuration.",
                settings.gateway_url,
            )
            return 0
        problems = wait_served(settings, timeout=settings.startup_timeout)
        if problems:
            log.error(
                "The gateway at %s does not serve LGOS's models after %g s (%s). "
                "Is `python -m lgos_demo_gateway serve` running with "
                "DEMO_GATEWAY_CONFIG_PATH=%s?",
                settings.gateway_url,
                settings.startup_timeout,
                "; ".join(problems),
                settings.config_path,
            )
            return 1
        log.info(
            "The gateway at %s/model/info carries every graph's lgos object%s.",
            settings.gateway_url,
            "" if changed else " (nothing had changed)",
        )
        return 0
    except SyncError as exc:
        log.error("%s", exc)
        return 1


if __name__ == "__main__":
    sys.exit(main())
