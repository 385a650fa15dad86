import os
from pathlib import Path

import pytest

from tests.pg import postgres_uri  # noqa: F401 - shared fixture

# Chainlit reads its app root (ui/chainlit/.chainlit/config.toml) when it is
# first imported and writes default files into the working directory when that
# root lacks them; point it at the UI before any test imports chainlit.
os.environ.setdefault(
    "CHAINLIT_APP_ROOT", str(Path(__file__).resolve().parents[1] / "ui" / "chainlit")
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
