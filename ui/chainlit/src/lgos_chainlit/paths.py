"""Where the Chainlit app and its app root (config, welcome page) live."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
APP_FILE = PACKAGE_DIR / "app.py"
"""The module given to ``chainlit run``."""

APP_ROOT = PACKAGE_DIR.parents[1]
"""``ui/chainlit/``: holds ``.chainlit/config.toml``, ``chainlit.md`` and
``public/``. Chainlit reads them from ``CHAINLIT_APP_ROOT`` (default: the
current directory), so it must point here."""


def app_root_is_configured(root: str | Path) -> bool:
    """Whether ``root`` (Chainlit's app root) is this package's app root."""
    try:
        return Path(root).resolve() == APP_ROOT
    except OSError:
        return False
