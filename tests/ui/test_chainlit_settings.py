import importlib

import openai
import pytest

from lgos_chainlit.settings import ChainlitSettings, get_settings, make_client


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch):
    for name in (
        "DEMO_CHAINLIT_OPENAI_BASE_URL",
        "DEMO_CHAINLIT_OPENAI_API_KEY",
        "DEMO_CHAINLIT_REQUEST_TIMEOUT",
        "DEMO_CHAINLIT_MAX_RETRIES",
        "DEMO_CHAINLIT_DEFAULT_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_defaults_point_at_a_local_lgos() -> None:
    settings = ChainlitSettings()

    assert settings.openai_base_url == "http://127.0.0.1:8000/v1"
    assert settings.openai_api_key.get_secret_value() == "lgos-demo"
    assert settings.request_timeout > 0
    assert settings.default_model is None


def test_settings_read_the_demo_chainlit_prefix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_CHAINLIT_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DEMO_CHAINLIT_OPENAI_API_KEY", "sk-proxy")
    monkeypatch.setenv("DEMO_CHAINLIT_REQUEST_TIMEOUT", "7.5")
    monkeypatch.setenv("DEMO_CHAINLIT_DEFAULT_MODEL", "chat")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://elsewhere/v1")

    settings = get_settings()

    assert settings.openai_base_url == "http://127.0.0.1:9/v1"
    assert settings.openai_api_key.get_secret_value() == "sk-proxy"
    assert settings.request_timeout == 7.5
    assert settings.default_model == "chat"
    assert "sk-proxy" not in repr(settings)


def test_invalid_timeout_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_CHAINLIT_REQUEST_TIMEOUT", "0")

    with pytest.raises(ValueError, match="request_timeout"):
        ChainlitSettings()


@pytest.mark.anyio
async def test_make_client_uses_the_settings() -> None:
    settings = ChainlitSettings(
        openai_base_url="http://127.0.0.1:9/v1", request_timeout=3, max_retries=0
    )

    async with make_client(settings) as client:
        assert str(client.base_url) == "http://127.0.0.1:9/v1/"
        assert client.api_key == "lgos-demo"
        assert client.timeout == 3
        assert client.max_retries == 0


@pytest.mark.anyio
async def test_a_closed_client_raises_the_sdk_connection_error() -> None:
    """The SDK passes HTTPX's bare RuntimeError for a closed client through;
    the UI's callbacks catch OpenAI errors, so the session client turns it
    into one (not retried: nothing is listening on port 9 anyway)."""
    settings = ChainlitSettings(openai_base_url="http://127.0.0.1:9/v1", max_retries=2)
    client = make_client(settings)
    await client.close()

    with pytest.raises(openai.APIConnectionError, match="chat ended"):
        await client.models.retrieve("chat")
    assert client.is_closed()


@pytest.mark.anyio
async def test_app_lists_no_profiles_when_lgos_is_unreachable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Port 9 (discard) is closed on loopback: the connection is refused at once.
    monkeypatch.setenv("DEMO_CHAINLIT_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DEMO_CHAINLIT_MAX_RETRIES", "0")
    app = importlib.import_module("lgos_chainlit.app")

    assert await app.chat_profiles(None, None) == []


def test_app_registers_the_chainlit_callbacks() -> None:
    from chainlit.config import config

    importlib.import_module("lgos_chainlit.app")

    assert config.code.on_chat_start is not None
    assert config.code.on_message is not None
    assert config.code.on_settings_update is not None
    assert config.code.set_chat_profiles is not None
    assert config.code.on_chat_end is not None
