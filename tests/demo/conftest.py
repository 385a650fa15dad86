import pytest

from lgos_demo_api.settings import DemoApiSettings


@pytest.fixture
def offline_settings() -> DemoApiSettings:
    """Settings that select the offline model whatever the environment says."""
    return DemoApiSettings(_env_file=None, openai_api_key=None, offline_chunk_delay=0.0)
