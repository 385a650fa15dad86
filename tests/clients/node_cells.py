"""Run one cell of a JavaScript client script (``tests/clients/js/*.mjs``).

A script is ``node <client>.mjs <cell>`` with the demo API's base URL in
``LGOS_BASE_URL`` and the cells' inputs (their prompts, ``JS_INPUTS`` of
``tests/clients/matrix.py``) as JSON in ``LGOS_CELL_INPUTS``; it prints one
JSON object: the cell's ``result`` (or the ``error`` the client raised) and
``requests``, every HTTP exchange the client made. :func:`run_cell` prints
that exchange log, so pytest shows it (request bodies, statuses, error
bodies) beside any failing assertion.
``scripts/ensure-node-clients.sh`` installs the packages (``just test`` runs it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.clients.matrix import JS_INPUTS
from tests.demo_services import clean_env
from tests.tiers import require

JS = Path(__file__).resolve().parent / "js"


def node() -> str:
    """The ``node`` executable, with the client packages installed beside the scripts."""
    require("clients")
    found = shutil.which("node")
    if found is None or not (JS / "node_modules").is_dir():
        pytest.fail(
            "the JS client tests need Node.js 20+ and tests/clients/js/node_modules: "
            "run `bash scripts/ensure-node-clients.sh` (just test does)",
            pytrace=False,
        )
    return found


@dataclass(frozen=True)
class Cell:
    """What a cell returned, and the HTTP exchanges the client made for it."""

    result: Any
    requests: list[dict[str, Any]]

    def sent(self, path: str) -> list[Any]:
        """The JSON bodies the client sent to ``path`` (``/v1/responses``), in order."""
        return [r.get("body") for r in self.requests if r["path"] == path]


def run_cell(script: str, cell: str, base_url: str, *, timeout: float = 45) -> Cell:
    """Run ``cell`` of ``script`` against ``base_url``.

    Fails the test, with the client's error and the exchanges, when the cell
    raised; a cell that expects an error returns it as its result.
    """
    inputs = {"LGOS_BASE_URL": base_url, "LGOS_CELL_INPUTS": json.dumps(JS_INPUTS)}
    done = subprocess.run(
        [node(), script, cell],
        cwd=JS,
        env=clean_env() | inputs,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        pytest.fail(
            f"node {script} {cell} exited {done.returncode}\n{done.stdout}{done.stderr}",
            pytrace=False,
        )
    outcome = json.loads(lines[-1])
    print(f"{script} {cell}: the client's HTTP exchanges")
    print(json.dumps(outcome["requests"], indent=1))
    if done.stderr:
        print(f"stderr:\n{done.stderr}")
    if not outcome["ok"]:
        pytest.fail(
            f"{script} {cell} raised {json.dumps(outcome['error'], indent=1)}\n"
            f"{outcome['stack']}\nrequests: {json.dumps(outcome['requests'], indent=1)}",
            pytrace=False,
        )
    return Cell(outcome["result"], outcome["requests"])
