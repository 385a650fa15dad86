"""MkDocs hook: the site serves Mermaid itself instead of loading it from a CDN.

Material for MkDocs draws ```` ```mermaid ```` blocks with the ``mermaid``
global and loads it from unpkg.com only when no script of the page defined it.
``mkdocs.yml`` lists ``assets/javascripts/mermaid.min.js`` in
``extra_javascript``; this hook adds that file to the site from the Mermaid npm
package pinned by ``scripts/docs-js/package-lock.json``, which
``bash scripts/ensure-node-clients.sh`` installs (``just docs`` and
``just test`` run it). So the diagrams draw offline too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
MERMAID = ROOT / "scripts/docs-js/node_modules/mermaid/dist/mermaid.min.js"
SITE_PATH = "assets/javascripts/mermaid.min.js"


def on_files(files: Files, *, config: Any) -> Files:
    """Add the installed ``mermaid.min.js`` to the site at ``SITE_PATH``."""
    if not MERMAID.is_file():
        msg = (
            f"{MERMAID.relative_to(ROOT)} is missing: install it with "
            "`bash scripts/ensure-node-clients.sh scripts/docs-js` (just docs does)"
        )
        raise PluginError(msg)
    files.append(File.generated(config, SITE_PATH, abs_src_path=str(MERMAID)))
    return files
