"""Fixtures of the Compose folder's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compose.fake_demo import Demo


@pytest.fixture
def demo(tmp_path: Path) -> Demo:
    return Demo(tmp_path)
