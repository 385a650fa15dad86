"""``lgos serve`` hands Uvicorn its options, with LGOS's worker health-check default."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from langgraph_openai_serve import cli as lgos_cli


@pytest.fixture
def uvicorn_options(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Capture what ``lgos serve`` passes to Uvicorn instead of serving."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr(lgos_cli, "_check_factory", lambda *_args: None)
    monkeypatch.setattr(lgos_cli.uvicorn_command, "callback", seen.update)
    monkeypatch.delenv("UVICORN_TIMEOUT_WORKER_HEALTHCHECK", raising=False)
    monkeypatch.delenv("LGOS_REGISTRY_FACTORY", raising=False)  # serve sets it
    return seen


def test_workers_get_a_minute_to_answer_the_health_check(
    uvicorn_options: dict[str, Any],
) -> None:
    result = CliRunner().invoke(
        lgos_cli.cli, ["serve", "my_app:factory", "--workers", "2"]
    )
    assert result.exit_code == 0, result.output
    assert uvicorn_options["workers"] == 2
    assert uvicorn_options["timeout_worker_healthcheck"] == 60
    assert uvicorn_options["app"].endswith(":create_app_from_env")


def test_an_explicit_health_check_timeout_wins(uvicorn_options: dict[str, Any]) -> None:
    args = ["serve", "my_app:factory", "--timeout-worker-healthcheck", "7"]
    result = CliRunner().invoke(lgos_cli.cli, args)
    assert result.exit_code == 0, result.output
    assert uvicorn_options["timeout_worker_healthcheck"] == 7


def test_the_variable_sets_it_too(
    uvicorn_options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UVICORN_TIMEOUT_WORKER_HEALTHCHECK", "9")
    result = CliRunner().invoke(lgos_cli.cli, ["serve", "my_app:factory"])
    assert result.exit_code == 0, result.output
    assert uvicorn_options["timeout_worker_healthcheck"] == 9
