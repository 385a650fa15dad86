"""Bifrost's configuration for the demo: ``python -m lgos_demo_gateway.bifrost``.

``just demo --bifrost`` puts Bifrost (its HTTP transport, ``bifrost-http``,
or the ``maximhq/bifrost`` image) between the UIs and the demo API. Bifrost
reads ``config.json`` from its app directory; this module writes it from the
stack's own settings:

- one provider, ``openai``, whose ``network_config.base_url`` is LGOS's
  origin *without* ``/v1`` (Bifrost appends ``/v1/...`` itself: a base URL
  ending in ``/v1`` was recorded sending ``/v1/v1/models``), whose key is read
  from the ``DEMO_BIFROST_LGOS_API_KEY`` variable (``env.`` reference: the key
  is never written to the file), and which never retries (a retried POST
  would run a graph twice);
- no configuration store and no log store (file mode: nothing written
  beside the file, Bifrost's web UI off);
- the pricing catalogue's sync pointed at a closed port on Bifrost's own
  machine, so Bifrost keeps its built-in prices instead of downloading them,
  and no ``$schema`` key (nothing to look up): the gateway calls nothing
  but LGOS.

It uses the standard library only, so ``just demo --dry-run`` can run the file
with any Python 3.11 before the workspace is installed.

Usage::

    python -m lgos_demo_gateway.bifrost --lgos-url http://api:8000 --out /app/data
    python -m lgos_demo_gateway.bifrost --lgos-url http://127.0.0.1:8000 --print

``--check`` first asks ``<lgos-url>/v1/health`` whether LGOS answers there
(waiting up to ``--wait`` seconds). ``--share-dir`` makes the directory
writable by every user: in Compose the file is written by this image's user
into a volume that Bifrost's image, running as its own user, must be able to
write too (its entrypoint checks). Exit codes: 0 written; 1 LGOS did not
answer; 2 invalid arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "KEY_VARIABLE",
    "OFFLINE_PRICING_URL",
    "bifrost_config",
    "lgos_origin",
    "main",
]

KEY_VARIABLE = "DEMO_BIFROST_LGOS_API_KEY"
"""The variable Bifrost reads LGOS's key from (``env.`` in the file)."""
OFFLINE_PRICING_URL = "http://127.0.0.1:9/bifrost-pricing.json"
"""A closed local port (discard): the pricing sync fails at once, offline."""
REQUEST_TIMEOUT_SECONDS = 3600
"""How long Bifrost waits for one LGOS answer (long graph runs)."""


def lgos_origin(url: str) -> str:
    """LGOS's origin as Bifrost's ``base_url`` wants it: no ``/v1``, no ``/``.

    Raises:
        ValueError: ``url`` is not an ``http(s)://`` URL.

    """
    origin = url.strip().rstrip("/")
    if not origin.startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url!r}")
    return origin.removesuffix("/v1").rstrip("/")


def bifrost_config(lgos_url: str) -> dict[str, Any]:
    """Bifrost's ``config.json`` with LGOS at ``lgos_url`` as its ``openai``.

    Raises:
        ValueError: ``lgos_url`` is not an ``http(s)://`` URL.

    """
    return {
        "client": {
            "drop_excess_requests": False,
            "enable_logging": False,
            "disable_content_logging": True,
        },
        "providers": {
            "openai": {
                "keys": [
                    {
                        "name": "lgos",
                        "value": f"env.{KEY_VARIABLE}",
                        "models": ["*"],
                        "weight": 1.0,
                    }
                ],
                "network_config": {
                    "base_url": lgos_origin(lgos_url),
                    "default_request_timeout_in_seconds": REQUEST_TIMEOUT_SECONDS,
                    "max_retries": 0,
                },
            }
        },
        "config_store": {"enabled": False},
        "logs_store": {"enabled": False},
        "framework": {
            "pricing": {
                "pricing_url": OFFLINE_PRICING_URL,
                "pricing_sync_interval": 365 * 24 * 3600,
            }
        },
    }


def _lgos_answers(origin: str, wait: float) -> str | None:
    """``None`` once ``<origin>/v1/health`` answers 200, else why not."""
    deadline = time.monotonic() + wait
    problem = "no answer"
    while True:
        try:
            with urllib.request.urlopen(f"{origin}/v1/health", timeout=5) as answer:
                if answer.status == 200:
                    return None
                problem = f"HTTP {answer.status}"
        except (urllib.error.URLError, OSError) as exc:
            problem = str(getattr(exc, "reason", exc))
        if time.monotonic() >= deadline:
            return problem
        time.sleep(1)


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or print) Bifrost's ``config.json``; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m lgos_demo_gateway.bifrost",
        description="Write Bifrost's config.json for the LGOS demo.",
    )
    parser.add_argument(
        "--lgos-url", required=True, help="LGOS's origin (a trailing /v1 is removed)"
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", type=Path, help="Bifrost's app directory")
    target.add_argument("--print", action="store_true", help="print it instead")
    parser.add_argument(
        "--check", action="store_true", help="first wait for LGOS's /v1/health"
    )
    parser.add_argument("--wait", type=float, default=120.0, help="seconds (--check)")
    parser.add_argument(
        "--share-dir",
        action="store_true",
        help="make --out writable by every user (Bifrost's image runs as another)",
    )
    args = parser.parse_args(argv)
    try:
        config = bifrost_config(args.lgos_url)
    except ValueError as exc:
        print(f"lgos_demo_gateway.bifrost: {exc}", file=sys.stderr)
        return 2
    origin = config["providers"]["openai"]["network_config"]["base_url"]
    if args.check and (problem := _lgos_answers(origin, args.wait)) is not None:
        print(
            f"lgos_demo_gateway.bifrost: LGOS does not answer at {origin}/v1/health "
            f"({problem}); is the demo API running there?",
            file=sys.stderr,
        )
        return 1
    text = json.dumps(config, indent=2) + "\n"
    if args.print:
        sys.stdout.write(text)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "config.json"
    partial = path.with_suffix(".json.new")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    path.chmod(0o644)
    if args.share_dir:
        # Bifrost's image checks that its user may write the app directory
        # (config.db, logs) and stops otherwise; that user is not this one.
        args.out.chmod(0o777)
    print(f"Bifrost configuration written to {path} (LGOS at {origin})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
