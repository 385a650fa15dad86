"""The Compose CLI reads the ``bifrost`` profile as `just demo --bifrost` sets it.

The profile cannot start here: its image, ``maximhq/bifrost``, is public
only, and no registry is reachable (docs/demo/stack.md, "Bifrost"). What the
engine side can check without it is that ``docker compose config`` (the CLI's
own parser and interpolation) accepts the file with the profile on, and
resolves it to what the launcher and the docs promise. No container starts.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.compose.stack import COMPOSE_FILE, ROOT
from tests.demo_services import clean_env


def compose_config(**env: str) -> dict:
    """``docker compose config --format json`` of compose.yaml with ``env``."""
    docker = shutil.which("docker")
    if docker is None:
        pytest.fail("the compose tier needs the docker CLI with Compose", pytrace=False)
    done = subprocess.run(
        [docker, "compose", "-f", str(COMPOSE_FILE), "--env-file", "/dev/null",
         "config", "--format", "json"],
        cwd=ROOT,
        env=clean_env() | {"COMPOSE_PROJECT_NAME": "lgos-bifrost-config"} | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("route", "upstream"),
    [("passthrough", "bifrost:8080/openai_passthrough"), ("v1", "bifrost:8080")],
)
def test_the_cli_resolves_the_bifrost_profile(route: str, upstream: str) -> None:
    config = compose_config(
        POSTGRES_PASSWORD="pw",
        COMPOSE_PROFILES="bifrost,open-webui",
        DEMO_COMPOSE_UI_UPSTREAM=upstream,
        DEMO_BIFROST_PORT="8107",
    )
    services = config["services"]
    assert {"bifrost", "bifrost-config"} <= set(services)
    bifrost = services["bifrost"]
    assert bifrost["image"] == "maximhq/bifrost:v1.4.19"
    assert [(p["host_ip"], p["published"], p["target"]) for p in bifrost["ports"]] == [
        ("127.0.0.1", "8107", 8080)
    ]
    assert bifrost["depends_on"]["bifrost-config"]["condition"] == (
        "service_completed_successfully"
    )
    assert services["bifrost-config"]["volumes"][0]["source"] == "bifrost_data"
    base = f"http://{upstream}/v1"
    assert services["chainlit"]["environment"]["DEMO_CHAINLIT_OPENAI_BASE_URL"] == base
    assert services["chainlit"]["depends_on"]["bifrost"]["condition"] == (
        "service_healthy"
    )
    provision = services["open-webui-provision"]["environment"]
    assert provision["DEMO_OPEN_WEBUI_LGOS_BASE_URL"] == base


def test_without_the_profile_nothing_of_bifrost_runs() -> None:
    services = compose_config(POSTGRES_PASSWORD="pw")["services"]
    assert not {"bifrost", "bifrost-config"} & set(services)
    # The UI's dependency stays, optional: Compose skips it without the profile.
    assert services["chainlit"]["depends_on"]["bifrost"]["required"] is False
    assert services["chainlit"]["environment"]["DEMO_CHAINLIT_OPENAI_BASE_URL"] == (
        "http://api:8000/v1"
    )
