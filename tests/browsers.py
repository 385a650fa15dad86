"""Debian's Chromium for the browser tier, launched one way for every test.

``scripts/ensure-chromium.sh`` installs it (``just test`` runs it). The flags
keep Chromium off the network it cannot reach here (background updates,
sync, first-run pages): without them it opens many refused connections.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tiers import require

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch(playwright: Any) -> Any:
    """Launch Chromium headless with Playwright's sync API; return the browser.

    Fails the running test when it does not declare the ``browser`` tier or
    when Chromium is not installed.
    """
    require("browser")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is not installed: run scripts/ensure-chromium.sh")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
