"""A Chainlit app root of its own for each test process and each UI started.

Chainlit keeps a session's uploaded and shown files under
``<app root>/.files`` and removes that whole folder when a server shuts down
(``chainlit.server``'s lifespan). Two UIs sharing ``ui/chainlit`` as their
app root (an xdist worker's in-process tests and a UI another worker started)
would delete each other's files mid-test. :func:`app_root` makes a folder of
symbolic links to everything in ``ui/chainlit`` but ``.files``, so the LGOS
config is the same and the files are not shared.
"""

from __future__ import annotations

from pathlib import Path

UI_ROOT = Path(__file__).resolve().parents[1] / "ui" / "chainlit"


def app_root(folder: Path) -> Path:
    """Fill ``folder`` (created if missing) with links to ``ui/chainlit``'s
    entries, ``.files`` excepted, and return it: a ``CHAINLIT_APP_ROOT``."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in UI_ROOT.iterdir():
        link = folder / entry.name
        if entry.name != ".files" and not link.exists():
            link.symlink_to(entry, target_is_directory=entry.is_dir())
    return folder
