"""Run the Files service: ``python -m lgos_demo_files [--host H] [--port P]``.

Settings come from `DEMO_FILES_*` variables and `.env`; `--host` and `--port`
override `DEMO_FILES_HOST` and `DEMO_FILES_PORT`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import uvicorn
from pydantic import ValidationError

from lgos_demo_files.app import create_app
from lgos_demo_files.settings import FilesSettings


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m lgos_demo_files",
        description="The LGOS demo's OpenAI-compatible Files service.",
    )
    parser.add_argument("--host", help="interface to bind (DEMO_FILES_HOST)")
    parser.add_argument("--port", type=int, help="port to listen on (DEMO_FILES_PORT)")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug", "trace"],
    )
    args = parser.parse_args(argv)
    try:
        settings = FilesSettings()
        app = create_app(settings)
    except (ValidationError, ValueError) as exc:
        print(f"lgos_demo_files: invalid settings: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    uvicorn.run(
        app,
        host=args.host or settings.host,
        port=settings.port if args.port is None else args.port,
        log_level=args.log_level,
    )


if __name__ == "__main__":
    main()
