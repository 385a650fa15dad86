"""Preview the docs site (``just docs serve``); Ctrl-C is a normal stop.

MkDocs' own command answers Ctrl-C with "Aborted!" and exit status 1, which
``just`` then reports as a failed recipe. Usage: ``python scripts/docs-serve.py
--dev-addr 127.0.0.1:8005`` (any ``mkdocs serve`` option).
"""

from __future__ import annotations

import contextlib
import sys

import click
from mkdocs.__main__ import cli

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt, click.exceptions.Abort):
        cli.main(args=["serve", *sys.argv[1:]], standalone_mode=False)
