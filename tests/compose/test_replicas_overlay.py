"""demo/compose/replicas.yaml and demo/compose/haproxy.cfg: the scale-out overlay.

No Docker engine runs here: the overlay is read as Compose merges it over
compose.yaml (`!reset` empties a list), checked against the Compose
specification's JSON Schema, and against what the balancer's configuration,
the launcher and the stand-in images say. The stack itself runs in
tests/compose_stack/test_scale_out.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft7Validator

from lgos_demo_launcher.plan import MAX_REPLICAS
from tests.compose.stack import (
    COMPOSE_SPEC,
    ROOT,
    documented_variables,
    interpolate,
    load_raw,
)

OVERLAY = ROOT / "demo" / "compose" / "replicas.yaml"
HAPROXY_CFG = ROOT / "demo" / "compose" / "haproxy.cfg"
STANDINS = ROOT / "scripts" / "compose-standins.sh"


class _OverlayLoader(yaml.SafeLoader):
    """YAML with Compose's `!reset` tag (the value it resets to)."""


def _reset(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    return loader.construct_scalar(node)  # type: ignore[arg-type]


_OverlayLoader.add_constructor("!reset", _reset)


def overlay_raw() -> dict[str, Any]:
    """The overlay as YAML, `!reset` read as its value."""
    return yaml.load(OVERLAY.read_text(encoding="utf-8"), Loader=_OverlayLoader)


def _merge(base: Any, over: Any, reset: bool = False) -> Any:
    # Compose's merge rules, the part the overlay uses: mappings merge key by
    # key, sequences append (ports are replaced only with !reset), scalars win.
    if isinstance(base, dict) and isinstance(over, dict):
        merged = dict(base)
        for key, value in over.items():
            merged[key] = _merge(base[key], value) if key in base else value
        return merged
    if isinstance(base, list) and isinstance(over, list) and not reset:
        return base + [item for item in over if item not in base]
    return over


def merged(env: dict[str, str] | None = None) -> dict[str, Any]:
    """compose.yaml with the overlay over it, interpolated against `env`."""
    env = {"POSTGRES_PASSWORD": "test"} if env is None else env
    base, over = load_raw(), overlay_raw()
    services = dict(base["services"])
    for name, service in over["services"].items():
        if name not in services:
            services[name] = service
            continue
        service = dict(service)
        result = _merge(
            services[name], {k: v for k, v in service.items() if k != "ports"}
        )
        if "ports" in service:
            result["ports"] = service["ports"]  # !reset [] in the overlay
        services[name] = result
    return interpolate({**base, "services": services}, env)


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(COMPOSE_SPEC.read_text(encoding="utf-8"))


def test_the_overlay_and_the_merged_file_validate(schema: dict) -> None:
    for document in (overlay_raw(), merged()):
        errors = list(Draft7Validator(schema).iter_errors(document))
        assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_the_overlay_resets_the_api_ports_with_composes_tag() -> None:
    # A plain `ports: []` would be merged with compose.yaml's (Compose
    # appends lists); only !reset removes the published port.
    assert re.search(r"^    ports: !reset \[\]$", OVERLAY.read_text(), re.M)


def test_the_balancer_takes_the_apis_address_and_the_replicas_publish_nothing() -> None:
    services = merged({"POSTGRES_PASSWORD": "x", "DEMO_API_PORT": "8100"})["services"]
    assert services["api"]["ports"] == []
    assert services["balancer"]["ports"] == [
        "127.0.0.1:8100:8000",
        "127.0.0.1:8404:8404",
    ]
    assert services["api"]["deploy"] == {"replicas": "2"}
    assert services["worker"]["deploy"] == {"replicas": "2"}
    counts = merged(
        {
            "POSTGRES_PASSWORD": "x",
            "DEMO_API_REPLICAS": "3",
            "DEMO_WORKER_REPLICAS": "4",
        }
    )["services"]
    assert counts["api"]["deploy"] == {"replicas": "3"}
    assert counts["worker"]["deploy"] == {"replicas": "4"}


def test_the_clients_talk_to_the_balancer() -> None:
    services = merged()["services"]
    ui = services["chainlit"]
    assert ui["environment"]["DEMO_CHAINLIT_OPENAI_BASE_URL"] == (
        "http://balancer:8000/v1"
    )
    assert ui["depends_on"]["balancer"] == {"condition": "service_healthy"}
    assert services["gateway"]["environment"]["DEMO_GATEWAY_LGOS_BASE_URL"] == (
        "http://balancer:8000/v1"
    )
    assert services["gateway"]["profiles"] == ["gateway"]
    provision = services["open-webui-provision"]["environment"]
    assert provision["DEMO_OPEN_WEBUI_LGOS_BASE_URL"] == "http://balancer:8000/v1"
    through_gateway = merged(
        {"POSTGRES_PASSWORD": "x", "DEMO_COMPOSE_UI_UPSTREAM": "gateway:4000"}
    )["services"]["chainlit"]["environment"]
    assert through_gateway["DEMO_CHAINLIT_OPENAI_BASE_URL"] == (
        "http://gateway:4000/v1"
    )


def test_the_balancer_image_is_pinned_and_replaceable() -> None:
    assert merged()["services"]["balancer"]["image"] == "haproxy:2.6-bookworm"
    env = {"POSTGRES_PASSWORD": "x", "DEMO_HAPROXY_IMAGE": "mine/haproxy:1"}
    assert merged(env)["services"]["balancer"]["image"] == "mine/haproxy:1"
    # The stand-in CI builds is Debian's HAProxy of the same line.
    text = STANDINS.read_text(encoding="utf-8")
    assert 'haproxy_image="lgos-standin/haproxy:2.6-$SUITE"' in text
    assert 'echo "DEMO_HAPROXY_IMAGE=$haproxy_image"' in text
    dockerfile = (
        ROOT / "scripts" / "compose-standins" / "haproxy" / "Dockerfile"
    ).read_text()
    assert "apt-get install -y --no-install-recommends haproxy" in dockerfile


def test_the_configuration_is_mounted_where_the_command_reads_it() -> None:
    balancer = merged()["services"]["balancer"]
    (mount,) = balancer["volumes"]
    source, target, mode = mount.split(":")
    assert (ROOT / source).resolve() == HAPROXY_CFG
    assert mode == "ro"
    assert balancer["command"][-1] == target


def _cfg() -> str:
    return HAPROXY_CFG.read_text(encoding="utf-8")


def test_the_balancer_round_robins_over_ready_replicas() -> None:
    cfg = _cfg()
    assert re.search(r"^    balance roundrobin$", cfg, re.M)
    assert re.search(r"^    option httpchk GET /health/ready$", cfg, re.M)
    assert re.search(r"^    http-check expect status 200$", cfg, re.M)
    # The replicas are the DNS answers for the service name, on the port the
    # API listens on in compose.yaml.
    (template,) = re.findall(r"^    server-template api 1-(\d+) api:(\d+)$", cfg, re.M)
    command = load_raw()["services"]["api"]["command"]
    assert template[1] == command[command.index("--port") + 1]
    # As many slots as `just demo --replicas` allows.
    assert int(template[0]) == MAX_REPLICAS
    assert "nameserver docker 127.0.0.11:53" in cfg
    # Nothing a replica received is sent again.
    assert re.search(r"^    retry-on conn-failure$", cfg, re.M)
    assert "http-response set-header X-LGOS-Replica %si:%sp" in cfg


def test_the_published_ports_are_the_ones_haproxy_binds() -> None:
    binds = set(re.findall(r"^    bind :(\d+)$", _cfg(), re.M))
    published = {
        port.rsplit(":", 1)[1] for port in merged()["services"]["balancer"]["ports"]
    }
    assert published == binds == {"8000", "8404"}
    test = " ".join(merged()["services"]["balancer"]["healthcheck"]["test"])
    assert "/dev/tcp/127.0.0.1/8404" in test and "GET /healthz" in test
    assert re.search(r"^    monitor-uri /healthz$", _cfg(), re.M)


def test_the_drain_ends_before_the_engine_kills_a_replica() -> None:
    api = merged()["services"]["api"]
    grace = int(api["environment"]["LGOS_SHUTDOWN_GRACE_SECONDS"])
    stop = int(str(api["stop_grace_period"]).rstrip("s"))
    # The drain: the grace period, then up to 15 s for stopped runs to end.
    assert stop >= grace + 15


def test_the_overlays_variables_are_documented() -> None:
    documented = documented_variables()
    used = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", OVERLAY.read_text()))
    assert sorted(used - set(documented)) == []


def test_the_standins_dockerfile_directory_exists() -> None:
    directory = Path(ROOT / "scripts" / "compose-standins" / "haproxy")
    assert {p.name for p in directory.iterdir()} == {
        "Dockerfile",
        "docker-entrypoint.sh",
    }
