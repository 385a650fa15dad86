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


REPO_ROOT = APP_ROOT.parents[1]
"""The repository root of a source checkout."""

DEFAULT_DATA_DIR = (
    REPO_ROOT / ".data"
    if (APP_ROOT / ".chainlit" / "config.toml").is_file()
    else Path.cwd() / ".data"
)
"""Where the UI keeps its SQLite database and generated auth secret: the
(gitignored) ``.data/`` at the repository root of a source checkout, else
``.data/`` in the current directory."""


def app_root_is_configured(root: str | Path) -> bool:
    """Whether ``root`` (Chainlit's app root) is this package's app root."""
    try:
        return Path(root).resolve() == APP_ROOT
    except OSError:
        return False
