"""The Helm chart (deploy/helm/lgos): rendered, linted, validated, and run.

``helm`` is the pinned release ``scripts/ensure-helm.sh`` builds from the Go
module proxy (the ``stack`` tier: a pinned outside program). Each value set
of the chart's ``ci/`` folder is rendered with ``helm template`` and linted
with ``helm lint --strict``; every rendered object is validated against the
Kubernetes schemas of the oldest version the chart supports and the newest
that kubernetes-validate ships (strict: an unknown field is an error). The
other tests read the rendered objects for what a cluster would do with them
(probes, grace periods, Secret references, selectors), and the last one runs
the API container's rendered command and environment as a process against
PostgreSQL.
"""

from __future__ import annotations

import base64
import copy
import json
import signal
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import kubernetes_validate
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.hatchet import hatchet_engine  # noqa: F401 - session fixture
from tests.procs import ROOT, ensured, free_port, lgos_command, running
from tests.tiers import needs
from tests.waiting import wait_until

pytestmark = [pytest.mark.stack]

CHART = ROOT / "deploy" / "helm" / "lgos"
VALUE_SETS = sorted(
    p.name.removesuffix("-values.yaml") for p in (CHART / "ci").glob("*-values.yaml")
)
# The chart's kubeVersion floor, and the newest schemas kubernetes-validate has.
KUBE_VERSIONS = ("1.27.0", "1.37.0")
RELEASE = "lgos"
STOP_WAIT_SECONDS = 15
"""What LGOS waits, after its grace period, for the stopped runs to end
(``langgraph_openai_serve.server.shutdown.STOP_WAIT_SECONDS``)."""

Manifest = dict[str, Any]


@pytest.fixture(scope="session")
@needs("stack")
def helm() -> str:
    """The pinned ``helm`` (built once, cached under ~/.cache/lgos/helm)."""
    return ensured("ensure-helm.sh", timeout=1800)


def _run_helm(helm: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [helm, *args], capture_output=True, text=True, timeout=60, check=False
    )


@cache
def _render_cached(helm: str, values: str, kube: str, extra: tuple[str, ...]) -> str:
    done = _run_helm(
        helm,
        "template",
        RELEASE,
        str(CHART),
        "--namespace",
        "lgos",
        "--kube-version",
        kube,
        "-f",
        str(CHART / "ci" / f"{values}-values.yaml"),
        *extra,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def render(
    helm: str, values: str, *extra: str, kube: str = KUBE_VERSIONS[-1]
) -> list[Manifest]:
    """The objects ``helm template`` renders for ``ci/<values>-values.yaml``."""
    text = _render_cached(helm, values, kube, extra)
    return [doc for doc in yaml.safe_load_all(text) if doc]


def render_error(helm: str, values: str, *extra: str) -> str:
    """``helm template``'s error output; fails the test if it rendered."""
    done = _run_helm(
        helm,
        "template",
        RELEASE,
        str(CHART),
        "-f",
        str(CHART / "ci" / f"{values}-values.yaml"),
        *extra,
    )
    assert done.returncode != 0, f"rendered, but should not have:\n{done.stdout[:2000]}"
    return done.stderr


def one(docs: list[Manifest], kind: str, name: str) -> Manifest:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, (
        f"{kind}/{name}: {[(d['kind'], d['metadata']['name']) for d in docs]}"
    )
    return found[0]


def kinds(docs: list[Manifest]) -> list[str]:
    return sorted(f"{d['kind']}/{d['metadata']['name']}" for d in docs)


def container(deployment: Manifest) -> Manifest:
    (only,) = deployment["spec"]["template"]["spec"]["containers"]
    return only


def env_of(deployment: Manifest) -> dict[str, Manifest]:
    return {e["name"]: e for e in container(deployment).get("env", [])}


def secret_data(docs: list[Manifest], name: str) -> dict[str, str]:
    secret = one(docs, "Secret", name)
    return {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


API = f"{RELEASE}-api"
WORKER = f"{RELEASE}-worker"
CONNECTIONS = f"{RELEASE}-connections"


# --- lint, schemas ------------------------------------------------------------


@pytest.mark.parametrize("values", VALUE_SETS)
def test_helm_lint_strict_passes(helm: str, values: str) -> None:
    done = _run_helm(
        helm,
        "lint",
        "--strict",
        str(CHART),
        "-f",
        str(CHART / "ci" / f"{values}-values.yaml"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in done.stdout
    assert "[WARNING]" not in done.stdout and "[ERROR]" not in done.stdout


@pytest.mark.parametrize("kube", KUBE_VERSIONS)
@pytest.mark.parametrize("values", VALUE_SETS)
def test_every_rendered_object_is_valid_kubernetes(
    helm: str, values: str, kube: str
) -> None:
    docs = render(helm, values, kube=kube)
    assert docs
    for doc in docs:
        try:
            kubernetes_validate.validate(doc, kube, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(
                f"{doc['kind']}/{doc['metadata']['name']} (Kubernetes {kube}): {error.message} at {list(error.path)}"
            )


def test_the_validator_refuses_what_kubernetes_would(helm: str) -> None:
    """The schemas bite: a misspelt probe field and a string port are refused."""
    deployment = one(render(helm, "defaults"), "Deployment", API)
    kubernetes_validate.validate(deployment, KUBE_VERSIONS[-1], strict=True)
    misspelt = copy.deepcopy(deployment)
    container(misspelt)["readinessProbe"]["httpGet"]["paths"] = "/health/ready"
    wrong_type = copy.deepcopy(deployment)
    container(wrong_type)["ports"][0]["containerPort"] = "8000"
    for broken in (misspelt, wrong_type):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(broken, KUBE_VERSIONS[-1], strict=True)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (
            "defaults",
            [
                f"Deployment/{API}",
                f"Deployment/{WORKER}",
                f"PodDisruptionBudget/{API}",
                f"PodDisruptionBudget/{WORKER}",
                f"Secret/{CONNECTIONS}",
                f"Service/{RELEASE}",
                f"ServiceAccount/{RELEASE}",
            ],
        ),
        (
            "scaled",
            [
                f"Deployment/{API}",
                f"Deployment/{WORKER}",
                f"HorizontalPodAutoscaler/{API}",
                f"Ingress/{RELEASE}",
                f"PodDisruptionBudget/{API}",
                f"PodDisruptionBudget/{WORKER}",
                f"Secret/{RELEASE}-api-keys",
                f"Secret/{CONNECTIONS}",
                f"Service/{RELEASE}",
                f"ServiceAccount/{RELEASE}",
            ],
        ),
        (
            "existing-secrets",
            [
                f"Deployment/{API}",
                f"Deployment/{WORKER}",
                f"PodDisruptionBudget/{API}",
                f"PodDisruptionBudget/{WORKER}",
                f"Service/{RELEASE}",
            ],
        ),
        (
            "no-workers",
            [
                f"Deployment/{API}",
                f"PodDisruptionBudget/{API}",
                f"Secret/{CONNECTIONS}",
                f"Service/{RELEASE}",
                f"ServiceAccount/{RELEASE}",
            ],
        ),
    ],
)
def test_each_value_set_renders_its_objects(
    helm: str, values: str, expected: list[str]
) -> None:
    assert kinds(render(helm, values)) == sorted(expected)


# --- the API pods: probes, graceful termination ---------------------------------


@pytest.mark.parametrize("values", VALUE_SETS)
def test_api_probes_use_the_lgos_health_routes(helm: str, values: str) -> None:
    api = container(one(render(helm, values), "Deployment", API))
    port_names = {p["name"]: p["containerPort"] for p in api["ports"]}
    assert api["livenessProbe"]["httpGet"] == {"path": "/health/live", "port": "http"}
    assert api["readinessProbe"]["httpGet"] == {"path": "/health/ready", "port": "http"}
    assert api["startupProbe"]["httpGet"] == {"path": "/health/live", "port": "http"}
    assert port_names["http"] == 8000
    assert api["command"][:3] == [
        "lgos",
        "serve",
        "lgos_demo_api.registry:create_registry",
    ]
    assert api["command"][api["command"].index("--port") + 1] == "8000"


@pytest.mark.parametrize("values", VALUE_SETS)
def test_termination_grace_outlasts_the_lgos_drain(helm: str, values: str) -> None:
    deployment = one(render(helm, values), "Deployment", API)
    pod = deployment["spec"]["template"]["spec"]
    api = container(deployment)
    shutdown_grace = float(env_of(deployment)["LGOS_SHUTDOWN_GRACE_SECONDS"]["value"])
    pre_stop = (
        api.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command")
    )
    sleep = float(pre_stop[1]) if pre_stop else 0.0
    if pre_stop:
        assert pre_stop[0] == "sleep"
    grace = pod["terminationGracePeriodSeconds"]
    assert grace > sleep + shutdown_grace
    if values != "no-workers":  # the one set that names its own period
        uvicorn_wait = float(
            api["command"][api["command"].index("--timeout-graceful-shutdown") + 1]
        )
        assert grace >= sleep + shutdown_grace + STOP_WAIT_SECONDS + uvicorn_wait


def test_grace_values_flow_into_the_pod(helm: str) -> None:
    defaults = one(render(helm, "defaults"), "Deployment", API)
    assert env_of(defaults)["LGOS_SHUTDOWN_GRACE_SECONDS"]["value"] == "30"
    assert container(defaults)["lifecycle"]["preStop"]["exec"]["command"] == [
        "sleep",
        "5",
    ]
    assert (
        defaults["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        == 5 + 30 + 15 + 5 + 10
    )
    scaled = one(render(helm, "scaled"), "Deployment", API)
    assert env_of(scaled)["LGOS_SHUTDOWN_GRACE_SECONDS"]["value"] == "45"
    assert (
        scaled["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        == 5 + 45 + 15 + 5 + 10
    )
    fixed = one(render(helm, "no-workers"), "Deployment", API)
    assert fixed["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 90
    assert "lifecycle" not in container(fixed)


def test_the_worker_outlasts_its_own_drain(helm: str) -> None:
    for values, grace in (("defaults", 90), ("scaled", 90)):
        worker = one(render(helm, values), "Deployment", WORKER)
        assert env_of(worker)["LGOS_SHUTDOWN_GRACE_SECONDS"]["value"] == str(grace)
        period = worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        assert period == grace + STOP_WAIT_SECONDS + 10
    shorter = render(helm, "defaults", "--set", "worker.shutdownGraceSeconds=20")
    assert (
        one(shorter, "Deployment", WORKER)["spec"]["template"]["spec"][
            "terminationGracePeriodSeconds"
        ]
        == 45
    )


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "api.terminationGracePeriodSeconds=30",
            "api.terminationGracePeriodSeconds (30) must exceed",
        ),
        (
            "worker.terminationGracePeriodSeconds=90",
            "worker.terminationGracePeriodSeconds (90) must exceed",
        ),
    ],
)
def test_a_grace_period_shorter_than_the_drain_is_refused(
    helm: str, setting: str, message: str
) -> None:
    assert message in render_error(helm, "defaults", "--set", setting)


def test_rolling_updates_keep_every_replica_serving(helm: str) -> None:
    spec = one(render(helm, "defaults"), "Deployment", API)["spec"]
    assert spec["replicas"] == 2
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1},
    }


# --- selectors: PDB, Service, HPA, Ingress ------------------------------------


@pytest.mark.parametrize("values", VALUE_SETS)
def test_disruption_budgets_and_service_select_their_own_pods(
    helm: str, values: str
) -> None:
    docs = render(helm, values)
    pods = {
        d["metadata"]["name"]: d["spec"]["template"]["metadata"]["labels"]
        for d in docs
        if d["kind"] == "Deployment"
    }
    for deployment in (d for d in docs if d["kind"] == "Deployment"):
        assert matches(
            deployment["spec"]["selector"]["matchLabels"],
            pods[deployment["metadata"]["name"]],
        )
    api_pdb = one(docs, "PodDisruptionBudget", API)["spec"]["selector"]["matchLabels"]
    service = one(docs, "Service", RELEASE)["spec"]["selector"]
    for selector in (api_pdb, service):
        assert [name for name, labels in pods.items() if matches(selector, labels)] == [
            API
        ]
    if WORKER in pods:
        worker_pdb = one(docs, "PodDisruptionBudget", WORKER)["spec"]["selector"][
            "matchLabels"
        ]
        assert [
            name for name, labels in pods.items() if matches(worker_pdb, labels)
        ] == [WORKER]


def test_the_default_budget_never_blocks_a_drain(helm: str) -> None:
    docs = render(helm, "no-workers")  # one replica
    assert one(docs, "PodDisruptionBudget", API)["spec"]["maxUnavailable"] == 1
    assert "minAvailable" not in one(docs, "PodDisruptionBudget", API)["spec"]
    assert (
        one(render(helm, "scaled"), "PodDisruptionBudget", API)["spec"]["minAvailable"]
        == 2
    )


def test_the_autoscaler_owns_the_api_replica_count(helm: str) -> None:
    docs = render(helm, "scaled")
    hpa = one(docs, "HorizontalPodAutoscaler", API)["spec"]
    assert hpa["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": API,
    }
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (3, 12)
    targets = {
        m["resource"]["name"]: m["resource"]["target"]["averageUtilization"]
        for m in hpa["metrics"]
    }
    assert targets == {"cpu": 60, "memory": 80}
    assert "replicas" not in one(docs, "Deployment", API)["spec"]
    # Utilization is a share of the request: the pods must request CPU.
    assert container(one(docs, "Deployment", API))["resources"]["requests"]["cpu"]


def test_the_ingress_routes_to_the_api_service(helm: str) -> None:
    docs = render(helm, "scaled")
    ingress = one(docs, "Ingress", RELEASE)["spec"]
    service = one(docs, "Service", RELEASE)["spec"]
    assert ingress["ingressClassName"] == "nginx"
    assert ingress["tls"] == [{"secretName": "lgos-tls", "hosts": ["lgos.example.com"]}]
    (rule,) = ingress["rules"]
    (path,) = rule["http"]["paths"]
    assert path["backend"]["service"] == {
        "name": RELEASE,
        "port": {"number": service["ports"][0]["port"]},
    }
    assert service["ports"][0]["targetPort"] == "http"


def _metrics_env(deployment: Manifest) -> dict[str, str]:
    return {
        name: entry["value"]
        for name, entry in env_of(deployment).items()
        if name.startswith("LGOS_METRICS_")
    }


def _annotations(deployment: Manifest) -> dict[str, str]:
    return deployment["spec"]["template"]["metadata"]["annotations"]


def test_metrics_have_a_port_of_their_own_and_are_announced(helm: str) -> None:
    docs = render(helm, "scaled")
    service_ports = one(docs, "Service", RELEASE)["spec"]["ports"]
    assert {
        "name": "metrics",
        "port": 9464,
        "targetPort": "metrics",
        "protocol": "TCP",
    } in service_ports
    for name in (API, WORKER):
        deployment = one(docs, "Deployment", name)
        annotations = _annotations(deployment)
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/port"] == "9464"
        assert annotations["prometheus.io/path"] == "/metrics"
        assert {
            "name": "metrics",
            "containerPort": 9464,
            "protocol": "TCP",
        } in container(deployment)["ports"]
    # Not on the API's port: the Ingress routes that one to anyone.
    assert _metrics_env(one(docs, "Deployment", API)) == {
        "LGOS_METRICS_ON_API_PORT": "false",
        "LGOS_METRICS_PORT": "9464",
        "LGOS_METRICS_HOST": "0.0.0.0",
    }
    assert _metrics_env(one(docs, "Deployment", WORKER)) == {
        "LGOS_METRICS_PORT": "9464",
        "LGOS_METRICS_HOST": "0.0.0.0",
    }
    apart = render(helm, "scaled", "--set", "metrics.workerPort=9500")
    assert (
        _annotations(one(apart, "Deployment", WORKER))["prometheus.io/port"] == "9500"
    )
    assert _metrics_env(one(apart, "Deployment", WORKER))["LGOS_METRICS_PORT"] == "9500"
    assert _metrics_env(one(apart, "Deployment", API))["LGOS_METRICS_PORT"] == "9464"


def test_metrics_on_the_api_port_or_none(helm: str) -> None:
    only_api_port = render(
        helm, "defaults", "--set", "metrics.enabled=true", "--set", "metrics.port=null"
    )
    api = one(only_api_port, "Deployment", API)
    assert _annotations(api)["prometheus.io/port"] == "8000"
    assert _metrics_env(api) == {"LGOS_METRICS_ON_API_PORT": "true"}
    worker = one(only_api_port, "Deployment", WORKER)
    assert _metrics_env(worker) == {}
    assert "prometheus.io/scrape" not in _annotations(worker)
    off = render(helm, "defaults")
    assert _metrics_env(one(off, "Deployment", API)) == {
        "LGOS_METRICS_ON_API_PORT": "false"
    }
    for name in (API, WORKER):
        deployment = one(off, "Deployment", name)
        assert not [
            k for k in _annotations(deployment) if k.startswith("prometheus.io/")
        ]
        assert "metrics" not in {p["name"] for p in container(deployment)["ports"]}
    assert [p["name"] for p in one(off, "Service", RELEASE)["spec"]["ports"]] == [
        "http"
    ]


# --- secrets: the database URI, the Hatchet token, the keys --------------------


def _secret_refs(deployment: Manifest) -> dict[str, tuple[str, str]]:
    return {
        name: (
            e["valueFrom"]["secretKeyRef"]["name"],
            e["valueFrom"]["secretKeyRef"]["key"],
        )
        for name, e in env_of(deployment).items()
        if "secretKeyRef" in e.get("valueFrom", {})
    }


def test_chart_created_secrets_hold_what_the_pods_read(helm: str) -> None:
    docs = render(helm, "scaled")
    data = secret_data(docs, CONNECTIONS)
    for name in (API, WORKER):
        refs = _secret_refs(one(docs, "Deployment", name))
        assert refs["LGOS_POSTGRES_URI"] == (CONNECTIONS, "postgres-uri")
        assert refs["HATCHET_CLIENT_TOKEN"] == (CONNECTIONS, "hatchet-token")
        for secret, key in refs.values():
            assert key in secret_data(docs, secret)
    assert (
        data["postgres-uri"]
        == "postgresql://lgos:change-me@postgres.example.internal:5432/lgos"
    )
    assert data["hatchet-token"] == "hatchet-client-token"
    # No secret value is written into the pods' specs.
    for name in (API, WORKER):
        assert "change-me" not in json.dumps(one(docs, "Deployment", name))
        assert "hatchet-client-token" not in json.dumps(one(docs, "Deployment", name))


def test_the_key_file_is_mounted_where_lgos_reads_it(helm: str) -> None:
    docs = render(helm, "scaled")
    deployment = one(docs, "Deployment", API)
    env = env_of(deployment)
    assert "LGOS_API_KEYS" not in env
    key_file = Path(env["LGOS_API_KEY_FILE"]["value"])
    (mount,) = [
        m for m in container(deployment)["volumeMounts"] if m["name"] == "api-keys"
    ]
    (volume,) = [
        v
        for v in deployment["spec"]["template"]["spec"]["volumes"]
        if v["name"] == "api-keys"
    ]
    # A whole-directory mount (no subPath), so that the kubelet updates it.
    assert "subPath" not in mount and mount["readOnly"] is True
    assert key_file.parent == Path(mount["mountPath"])
    assert volume["secret"]["secretName"] == f"{RELEASE}-api-keys"
    assert volume["secret"]["items"] == [{"key": "api-keys", "path": key_file.name}]
    lines = secret_data(docs, f"{RELEASE}-api-keys")["api-keys"].splitlines()
    assert lines == ["sk-team-a team-a", "sk-team-b team-b", "sk-ops"]
    # The keys stay out of the rollout checksum: a rotation restarts nothing.
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert "checksum/api-keys" not in annotations
    other_keys = render(helm, "scaled", "--set-json", 'apiKeys.keys=["sk-new"]')
    assert (
        one(other_keys, "Deployment", API)["spec"]["template"]
        == deployment["spec"]["template"]
    )
    # The worker serves no HTTP API: no keys there.
    assert "LGOS_API_KEY_FILE" not in env_of(one(docs, "Deployment", WORKER))


def test_keys_in_the_environment_roll_the_pods_when_they_change(helm: str) -> None:
    def api(keys: str) -> Manifest:
        docs = render(
            helm,
            "defaults",
            "--set",
            "apiKeys.enabled=true",
            "--set",
            "apiKeys.mode=env",
            "--set-json",
            f"apiKeys.keys={keys}",
        )
        assert secret_data(docs, f"{RELEASE}-api-keys")[
            "api-keys"
        ].splitlines() == json.loads(keys)
        return one(docs, "Deployment", API)

    before, after = api('["sk-a"]'), api('["sk-b"]')
    assert _secret_refs(before)["LGOS_API_KEYS"] == (f"{RELEASE}-api-keys", "api-keys")
    assert "LGOS_API_KEY_FILE" not in env_of(before)
    checksum = "checksum/api-keys"
    assert _annotations(before)[checksum] != _annotations(after)[checksum]


def test_existing_secrets_are_referenced_and_none_is_created(helm: str) -> None:
    docs = render(helm, "existing-secrets")
    assert not [d for d in docs if d["kind"] == "Secret"]
    api = one(docs, "Deployment", API)
    assert _secret_refs(api) == {
        "LGOS_POSTGRES_URI": ("lgos-postgres", "uri"),
        "HATCHET_CLIENT_TOKEN": ("lgos-hatchet", "token"),
        "LGOS_API_KEYS": ("lgos-api-keys", "keys"),
    }
    assert _secret_refs(one(docs, "Deployment", WORKER)) == {
        "LGOS_POSTGRES_URI": ("lgos-postgres", "uri"),
        "HATCHET_CLIENT_TOKEN": ("lgos-hatchet", "token"),
    }
    assert api["spec"]["template"]["spec"]["serviceAccountName"] == "lgos-runner"
    assert "api-keys" not in {
        v["name"] for v in api["spec"]["template"]["spec"]["volumes"]
    }


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--set", "postgres.uri="), "set postgres.uri or postgres.existingSecret"),
        (("--set", "hatchet.token="), "set hatchet.token or hatchet.existingSecret"),
        (
            ("--set", "apiKeys.enabled=true"),
            "set apiKeys.keys or apiKeys.existingSecret",
        ),
        (("--set", "postgres.existingSecret=both"), "not both"),
        (("--set", "api.replica=3"), "additional properties 'replica' not allowed"),
        (("--set", "apiKeys.mode=header"), "apiKeys/mode"),
    ],
)
def test_values_that_cannot_run_are_refused(
    helm: str, extra: tuple[str, ...], message: str
) -> None:
    assert message in render_error(helm, "defaults", *extra)


def test_the_install_notes_say_how_to_reach_the_api(helm: str) -> None:
    def notes(values: str) -> str:
        done = _run_helm(
            helm,
            "install",
            RELEASE,
            str(CHART),
            "--dry-run=client",
            "-f",
            str(CHART / "ci" / f"{values}-values.yaml"),
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split("NOTES:", 1)[1]

    public = notes("scaled")
    assert "https://lgos.example.com/v1" in public
    assert "asks for no key" not in public
    private = notes("no-workers")
    assert f"service/{RELEASE} 8000:80" in private
    assert "asks for no key" in private
    assert "inside the API pod" in private


# --- Hatchet and the worker ---------------------------------------------------


def test_the_worker_runs_lgos_worker_on_hatchet(helm: str) -> None:
    docs = render(helm, "scaled")
    worker = one(docs, "Deployment", WORKER)
    command = container(worker)["command"]
    assert command == [
        "lgos",
        "worker",
        "lgos_demo_api.registry:create_registry",
        "--name",
        "lgos",
        "--slots",
        "8",
    ]
    env = env_of(worker)
    assert env["LGOS_BACKGROUND_ENGINE"]["value"] == "hatchet"
    assert env["HATCHET_CLIENT_HOST_PORT"]["value"] == "hatchet-engine.hatchet.svc:7070"
    assert (
        env["HATCHET_CLIENT_SERVER_URL"]["value"]
        == "http://hatchet-api.hatchet.svc:8080"
    )
    assert env["HATCHET_CLIENT_TLS_STRATEGY"]["value"] == "none"
    assert env["HATCHET_CLIENT_WORKER_HEALTHCHECK_ENABLED"]["value"] == "true"
    probe = container(worker)["livenessProbe"]["httpGet"]
    assert probe == {"path": "/health", "port": "health"}
    assert {"name": "health", "containerPort": 8001, "protocol": "TCP"} in container(
        worker
    )["ports"]
    assert env["HATCHET_CLIENT_WORKER_HEALTHCHECK_PORT"]["value"] == "8001"
    assert worker["spec"]["replicas"] == 3
    # The API puts background runs on the same engine.
    api_env = env_of(one(docs, "Deployment", API))
    for name in (
        "LGOS_BACKGROUND_ENGINE",
        "HATCHET_CLIENT_HOST_PORT",
        "HATCHET_CLIENT_TLS_STRATEGY",
    ):
        assert api_env[name] == env[name]


def test_without_hatchet_no_worker_runs_and_runs_stay_in_process(helm: str) -> None:
    docs = render(helm, "no-workers")
    assert [d["metadata"]["name"] for d in docs if d["kind"] == "Deployment"] == [API]
    env = env_of(one(docs, "Deployment", API))
    assert env["LGOS_BACKGROUND_ENGINE"]["value"] == "memory"
    assert not [name for name in env if name.startswith("HATCHET_")]
    assert "hatchet-token" not in secret_data(docs, CONNECTIONS)


# --- the rendered containers, run ---------------------------------------------


def _resolve_env(docs: list[Manifest], deployment: Manifest) -> dict[str, str]:
    """The container's variables as the kubelet would set them (0.0.0.0 made 127.0.0.1)."""
    resolved = {}
    for name, entry in env_of(deployment).items():
        if "value" in entry:
            # Loopback for what binds every address in a pod (the tests
            # listen on this machine only).
            resolved[name] = (
                "127.0.0.1" if entry["value"] == "0.0.0.0" else entry["value"]
            )
        else:
            ref = entry["valueFrom"]["secretKeyRef"]
            resolved[name] = secret_data(docs, ref["name"])[ref["key"]]
    return resolved


def _mount_secrets(docs: list[Manifest], deployment: Manifest) -> None:
    """Write each Secret volume's files where the container mounts them."""
    volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
    for mount in container(deployment)["volumeMounts"]:
        secret = volumes[mount["name"]].get("secret")
        if secret is None:
            continue
        data = secret_data(docs, secret["secretName"])
        for item in secret["items"]:
            target = Path(mount["mountPath"]) / item["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(data[item["key"]])


def _command(deployment: Manifest) -> list[str]:
    """The container's command, on loopback, with this environment's ``lgos``."""
    command = [
        ("127.0.0.1" if arg == "0.0.0.0" else arg)
        for arg in container(deployment)["command"]
    ]
    assert command[0] == "lgos"
    return [*lgos_command(), *command[1:]]


def _url(port: int, probe: Manifest) -> str:
    return f"http://127.0.0.1:{port}{probe['httpGet']['path']}"


def _sample(url: str, name: str, **labels: str) -> float | None:
    """The value of one sample of a Prometheus endpoint (parsed), or None."""
    answer = httpx.get(url, timeout=5)
    assert answer.status_code == 200, answer.text
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return None


@pytest.mark.timeout(300)
def test_the_rendered_api_and_worker_serve_a_background_response_on_hatchet(
    helm: str,
    postgres_uri: str,
    hatchet_engine: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    """Run both containers' commands with their rendered variables and files.

    What stands in for the cluster: the Secrets' values are resolved as the
    kubelet would, the key Secret is written where it is mounted, what binds
    0.0.0.0 in a pod binds loopback (the worker's health server through
    worker.extraEnv), each port is a free one, and ``lgos`` is this
    environment's. The engine is a real Hatchet engine, PostgreSQL the
    suite's. Then the probes' paths answer, the key is required, a background
    Response submitted to the API runs on the worker, both metrics ports
    count it (and the API's own port serves none), and SIGTERM ends each
    process with status 0 within its pod's grace period.
    """
    api_port, health_port = free_port(), free_port()
    api_metrics, worker_metrics = free_port(), free_port()
    docs = render(
        helm,
        "defaults",
        "--set",
        "registryFactory=tests.lgos.interrupt_graphs:serve_background_registry",
        "--set",
        f"postgres.uri={postgres_uri}",
        "--set",
        f"hatchet.token={hatchet_engine['HATCHET_CLIENT_TOKEN']}",
        "--set",
        f"hatchet.hostPort={hatchet_engine['HATCHET_CLIENT_HOST_PORT']}",
        "--set",
        f"hatchet.serverUrl={hatchet_engine['HATCHET_CLIENT_SERVER_URL']}",
        "--set",
        "hatchet.tlsStrategy=none",
        "--set",
        f"api.port={api_port}",
        "--set",
        f"worker.healthPort={health_port}",
        "--set-json",
        'worker.extraEnv=[{"name": "HATCHET_CLIENT_WORKER_HEALTHCHECK_BIND_ADDRESS", "value": "127.0.0.1"}]',
        "--set",
        "apiKeys.enabled=true",
        "--set-json",
        'apiKeys.keys=["sk-chart-test tenant-a"]',
        "--set",
        f"apiKeys.mountPath={tmp_path / 'keys'}",
        "--set",
        "metrics.enabled=true",
        "--set",
        f"metrics.port={api_metrics}",
        "--set",
        f"metrics.workerPort={worker_metrics}",
    )
    api, worker = one(docs, "Deployment", API), one(docs, "Deployment", WORKER)
    _mount_secrets(docs, api)
    api_probes = container(api)
    base = f"http://127.0.0.1:{api_port}"
    key = {"Authorization": "Bearer sk-chart-test"}
    with (
        running(
            _command(worker),
            ready_url=_url(health_port, container(worker)["startupProbe"]),
            log=tmp_path / "worker.log",
            env=_resolve_env(docs, worker),
            timeout=120,
        ) as worker_process,
        running(
            _command(api),
            ready_url=_url(api_port, api_probes["startupProbe"]),
            log=tmp_path / "api.log",
            env=_resolve_env(docs, api),
            timeout=120,
        ) as api_process,
    ):
        ready = _url(api_port, api_probes["readinessProbe"])
        wait_until(
            lambda: httpx.get(ready, timeout=5).status_code == 200,
            timeout=30,
            message=lambda: f"{ready} to answer 200 (lgos serve's readiness probe)",
        )
        assert httpx.get(ready, timeout=5).json()["checks"]["hatchet"] == "ok"
        assert (
            httpx.get(
                _url(api_port, api_probes["livenessProbe"]), timeout=5
            ).status_code
            == 200
        )
        assert (
            httpx.get(
                _url(health_port, container(worker)["livenessProbe"]), timeout=5
            ).status_code
            == 200
        )
        refused = httpx.get(f"{base}/v1/models", timeout=10)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "invalid_api_key"
        queued = httpx.post(
            f"{base}/v1/responses",
            json={"model": "echo", "input": "through the chart", "background": True},
            headers=key,
            timeout=30,
        )
        assert queued.status_code == 200, queued.text
        response_id = queued.json()["id"]

        def completed() -> dict[str, Any] | None:
            body = httpx.get(
                f"{base}/v1/responses/{response_id}", headers=key, timeout=10
            ).json()
            return body if body["status"] == "completed" else None

        done = wait_until(completed, timeout=60, interval=0.2)
        assert "through the chart" in json.dumps(done["output"])
        # Where the pods' annotations tell Prometheus to scrape.
        assert _annotations(api)["prometheus.io/port"] == str(api_metrics)
        assert _annotations(worker)["prometheus.io/port"] == str(worker_metrics)
        path = _annotations(api)["prometheus.io/path"]
        runs = "lgos_background_runs_total"
        api_url = f"http://127.0.0.1:{api_metrics}{path}"
        assert _sample(api_url, runs, model="echo", state="queued") == 1
        worker_url = f"http://127.0.0.1:{worker_metrics}{path}"
        wait_until(
            lambda: _sample(worker_url, runs, model="echo", state="completed") == 1,
            timeout=10,
        )
        assert httpx.get(f"{base}/metrics", timeout=5).status_code == 404
        for deployment, process in ((api, api_process), (worker, worker_process)):
            process.send_signal(signal.SIGTERM)
            grace = deployment["spec"]["template"]["spec"][
                "terminationGracePeriodSeconds"
            ]
            assert process.wait(timeout=grace) == 0, deployment["metadata"]["name"]
