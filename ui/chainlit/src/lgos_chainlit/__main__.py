"""Run the UI from any directory: ``python -m lgos_chainlit [chainlit run options]``.

Equivalent to ``CHAINLIT_APP_ROOT=ui/chainlit chainlit run
ui/chainlit/src/lgos_chainlit/app.py --headless [options]``, e.g.::

    uv run python -m lgos_chainlit --host 127.0.0.1 --port 8001
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from lgos_chainlit.paths import APP_FILE, APP_ROOT


def main(argv: Sequence[str] | None = None) -> None:
    """Start ``chainlit run`` on the app, headless, with the LGOS app root."""
    # Chainlit reads its app root when it is first imported: set it before.
    # (Only from a source checkout: an installed wheel has no ui/chainlit.)
    if (APP_ROOT / ".chainlit" / "config.toml").is_file():
        os.environ.setdefault("CHAINLIT_APP_ROOT", str(APP_ROOT))
    from chainlit.cli import cli

    args = list(sys.argv[1:] if argv is None else argv)
    if not {"--headless", "-h"} & set(args):
        args.insert(0, "--headless")
    cli.main(args=["run", str(APP_FILE), *args], prog_name="chainlit")


if __name__ == "__main__":
    main()
