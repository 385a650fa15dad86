from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI
from pydantic import ValidationError

from lgos_demo_api.models import chat_model, model_label, uses_offline_model
from lgos_demo_api.offline import OfflineChatModel
from lgos_demo_api.settings import DemoApiSettings, get_settings

ENV_NAMES = [
    "DEMO_API_OPENAI_API_KEY",
    "DEMO_API_OPENAI_BASE_URL",
    "DEMO_API_OPENAI_RESPONSES_MODEL",
    "DEMO_API_OFFLINE_CHUNK_DELAY",
]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_defaults(clean_env: Path) -> None:
    settings = get_settings()
    assert settings.openai_api_key is None
    assert settings.openai_base_url is None
    assert settings.openai_responses_model == "gpt-4.1-mini"
    assert settings.offline_chunk_delay == 0.02


def test_environment_variables_use_the_demo_api_prefix(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_API_OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("DEMO_API_OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("DEMO_API_OPENAI_RESPONSES_MODEL", "gpt-env")
    monkeypatch.setenv("DEMO_API_OFFLINE_CHUNK_DELAY", "0")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unprefixed-is-ignored")
    settings = get_settings()
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-env"
    assert "sk-env" not in repr(settings)
    assert settings.openai_base_url == "http://localhost:11434/v1"
    assert settings.openai_responses_model == "gpt-env"
    assert settings.offline_chunk_delay == 0.0


def test_dotenv_file_is_read_fresh_each_time(clean_env: Path) -> None:
    (clean_env / ".env").write_text("DEMO_API_OPENAI_RESPONSES_MODEL=from-dotenv\n")
    assert get_settings().openai_responses_model == "from-dotenv"
    (clean_env / ".env").write_text("DEMO_API_OPENAI_RESPONSES_MODEL=changed\n")
    assert get_settings().openai_responses_model == "changed"


def test_negative_chunk_delay_is_rejected(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_API_OFFLINE_CHUNK_DELAY", "-1")
    with pytest.raises(ValidationError):
        get_settings()


def test_offline_model_without_key() -> None:
    settings = DemoApiSettings(
        _env_file=None, openai_api_key=None, offline_chunk_delay=0.5
    )
    model = chat_model(settings)
    assert isinstance(model, OfflineChatModel)
    assert model.chunk_delay == 0.5
    assert uses_offline_model(settings)
    assert model_label(settings) == "offline model"


def test_openai_responses_model_with_key() -> None:
    settings = DemoApiSettings(
        _env_file=None,
        openai_api_key="sk-test",
        openai_base_url="http://localhost:9999/v1",
        openai_responses_model="gpt-test",
    )
    model = chat_model(settings)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-test"
    assert model.openai_api_key is not None
    assert model.openai_api_key.get_secret_value() == "sk-test"
    assert model.openai_api_base == "http://localhost:9999/v1"
    assert model.use_responses_api is True
    assert model.store is False
    assert model.streaming is True
    assert not uses_offline_model(settings)
    assert model_label(settings) == "gpt-test"
