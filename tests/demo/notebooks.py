"""The marimo notebooks of demo/api/notebooks, for the tests that run them.

Where they are, the offline environment they run in (a user's configured
key that they must ignore), and :func:`load_notebook`, which imports one as
a module (marimo files are modules).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from tests.procs import executable

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "demo" / "api" / "notebooks"
JUST = executable("just")


def offline_env() -> dict[str, str]:
    """The environment of a user whose .env configures a real provider.

    The notebooks run offline by default, so this key must never be used
    (there is no network here: using it would fail the run).
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DEMO_API_", "LGOS_", "OPENAI_", "LANGFUSE_", "OTEL_"))
    }
    env["DEMO_API_OPENAI_API_KEY"] = "sk-from-the-users-env-file"
    env["DEMO_API_OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
    env["DEMO_API_OFFLINE_CHUNK_DELAY"] = "0.5"  # the notebooks set their own
    return env


def load_notebook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"lgos_notebook_{name}", NOTEBOOKS / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
