"""A Chainlit app root of its own for each test process and each UI started.

Chainlit keeps a session's uploaded and shown files under
``<app root>/.files`` and removes that whole folder when a server shuts down
(``chainlit.server``'s lifespan). Two UIs sharing ``ui/chainlit`` as their
app root (an xdist worker's in-process tests and a UI another worker started)
would delete each other's files mid-test. :func:`app_root` copies ``ui/chainlit``'s config and pages into a folder of
its own, so the LGOS config is the same and the files are not shared.
"""

from __future__ import annotations

import shutil
from pathlib import Path

UI_ROOT = Path(__file__).resolve().parents[1] / "ui" / "chainlit"


def app_root(folder: Path) -> Path:
    """Copy ``ui/chainlit``'s config, pages and public files (not ``.files``,
    not the package's source) into ``folder`` and return it: a
    ``CHAINLIT_APP_ROOT``. Copies, not links: Chainlit refuses a page whose
    real path lies outside its app root."""
    shutil.copytree(
        UI_ROOT,
        folder,
        ignore=shutil.ignore_patterns(".files", "src", "__pycache__"),
        dirs_exist_ok=True,
    )
    return folder
