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
    """Whether ``root`` (Chainlit's app root) holds this package's config.

    True for ``ui/chainlit/`` itself and for a folder whose
    ``.chainlit/config.toml`` is a copy of its (a root of its own for a second UI,
    since Chainlit deletes ``<root>/.files`` when it shuts down).
    """
    try:
        ours = APP_ROOT / ".chainlit" / "config.toml"
        return Path(root).resolve() == APP_ROOT or (
            (Path(root) / ".chainlit" / "config.toml").read_bytes() == ours.read_bytes()
        )
    except OSError:
        return False
