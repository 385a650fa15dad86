"""`just demo --replicas 2` on a real Docker engine: scale-out through HAProxy.

One stack for the module, in its own Compose project (``lgos-scale``): two API
replicas behind the balancer (round robin over the replicas whose
``/health/ready`` passes), two Hatchet workers, one PostgreSQL, one Hatchet
engine. Every request goes through the balancer, as a client's would. Which
replica served a request is read from what the balancer did (its
``X-LGOS-Replica`` header: the address it connected to, matched against the
containers' addresses on the Compose network) and confirmed by the replicas'
own Prometheus counters; which worker ran a background run, from the workers'
counters.

The offline model is paced so that the runs last long enough to stop a
process in the middle: streamed words 0.1 s apart, calls that are not streamed
(a background run's) 2 s each. The worker is killed early in the module and
its run's outcome checked last: Hatchet takes about 30 s to notice a dead
worker, which the tests in between use.
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.compose_stack.conftest import SCALE_PROJECT, ComposeStack, compose_stack
from tests.procs import free_port
from tests.tiers import needs
from tests.waiting import wait_until

pytestmark = [pytest.mark.compose, pytest.mark.timeout(900)]

REPLICAS = 2
WORKERS = 2
OVERLAY = "compose.yaml:demo/compose/replicas.yaml"
# A reviewer's answer that is neither approve nor reject: the `approval`
# graph's summary quotes it, so the streamed answer lasts about 7 s.
INSTRUCTIONS = "Approve only half of it: " + " ".join(f"step{i}" for i in range(40))
RESEARCH_REQUEST = "Compare LangGraph interrupts and OpenAI Agents SDK approvals"


@pytest.fixture(scope="module")
@needs("compose")
def scale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ComposeStack]:
    """The stack of `just demo --replicas 2`, not yet started."""
    yield from compose_stack(
        tmp_path_factory,
        SCALE_PROJECT,
        COMPOSE_FILE=OVERLAY,
        DEMO_BALANCER_STATS_PORT=str(free_port()),
        DEMO_API_OFFLINE_CHUNK_DELAY="0.1",
        DEMO_API_OFFLINE_ANSWER_DELAY="2",
    )


@pytest.fixture(scope="module")
def healthy(scale: ComposeStack) -> float:
    """`just demo --replicas 2`, every container healthy; seconds it took."""
    scale.start("--replicas", str(REPLICAS))
    return scale.wait_healthy(
        extra=("balancer",), counts={"api": REPLICAS, "worker": WORKERS}
    )


@pytest.fixture
def client(scale: ComposeStack, healthy: float) -> Iterator[httpx.Client]:
    """An HTTP client of the balancer, with the demo's key."""
    with httpx.Client(
        base_url=scale.api_url, headers=scale.api_headers, timeout=60
    ) as http:
        yield http


# --- what the engine, the balancer and the replicas say -----------------------


def containers_by_address(scale: ComposeStack, service: str) -> dict[str, str]:
    """``{"ip:port": container name}`` of a service's running containers, the
    address as the balancer connects to it (the API's port 8000)."""
    ids = scale.compose("ps", "-q", service).split()
    if not ids:
        return {}
    out = scale.docker(
        "inspect",
        "--format",
        "{{.Name}} {{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
        *ids,
    )
    found = {}
    for line in out.splitlines():
        name, _, address = line.strip().lstrip("/").partition(" ")
        if address:
            found[f"{address}:8000"] = name
    return found


def replica(reply: httpx.Response) -> str:
    """The replica that answered: the balancer's ``X-LGOS-Replica``."""
    served = reply.headers.get("x-lgos-replica")
    assert served, f"no X-LGOS-Replica header: {dict(reply.headers)}"
    return served


def balancer_servers(scale: ComposeStack) -> dict[str, str]:
    """``{server slot: status}`` of the API backend, from HAProxy's statistics
    (CSV), for the slots a replica's address fills (the empty ones are in
    maintenance: no DNS answer for them)."""
    port = scale.env["DEMO_BALANCER_STATS_PORT"]
    rows = httpx.get(f"http://127.0.0.1:{port}/stats;csv", timeout=10).text
    header, *lines = rows.splitlines()
    columns = header.lstrip("# ").split(",")
    servers = {}
    for line in lines:
        row = dict(zip(columns, line.split(","), strict=False))
        if (
            row.get("pxname") == "api"
            and row.get("svname", "").startswith("api")
            and not row["status"].startswith("MAINT")
        ):
            servers[row["svname"]] = row["status"]
    return servers


def up_servers(scale: ComposeStack) -> int:
    """How many replicas the balancer sends requests to."""
    return sum(status == "UP" for status in balancer_servers(scale).values())


def scrape(scale: ComposeStack, container: str, port: int, key: str = "") -> str:
    """A container's Prometheus metrics, fetched inside it (the image's Python)."""
    code = (
        "import sys, urllib.request as u; "
        f"r = u.Request('http://127.0.0.1:{port}/metrics'); "
        f"{'r.add_header(' + repr('Authorization') + ', ' + repr('Bearer ' + key) + '); ' if key else ''}"
        "sys.stdout.write(u.urlopen(r, timeout=5).read().decode())"
    )
    return scale.docker("exec", container, "python", "-c", code)


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of a metrics page (0 when absent)."""
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and all(
                found.labels.get(k) == v for k, v in labels.items()
            ):
                return found.value
    return 0.0


def api_sample(scale: ComposeStack, container: str, name: str, **labels: str) -> float:
    key = scale.env.get("DEMO_LGOS_API_KEY") or "lgos-demo"
    return sample(scrape(scale, container, 8000, key), name, **labels)


def wait_for_replicas(scale: ComposeStack, count: int = REPLICAS) -> dict[str, str]:
    """Wait until ``count`` replicas are healthy and the balancer sends to
    each; return their addresses."""

    def ready() -> dict[str, str] | None:
        by_address = containers_by_address(scale, "api")
        healthy = [
            c
            for c in scale.containers()
            if c["Service"] == "api" and c.get("Health") == "healthy"
        ]
        if len(healthy) == len(by_address) == up_servers(scale) == count:
            return by_address
        return None

    return wait_until(
        ready,
        timeout=120,
        interval=0.5,
        message=lambda: (
            f"{count} replicas up behind the balancer: {balancer_servers(scale)}"
        ),
    )


# --- the approval graph's pause, over plain HTTP ------------------------------


def pause(client: httpx.Client) -> tuple[str, str, str]:
    """Pause an ``approval`` run; return (response ID, call ID, replica)."""
    reply = client.post(
        "/responses", json={"model": "approval", "input": "Refund order 42"}
    )
    assert reply.status_code == 200, reply.text
    [call] = [i for i in reply.json()["output"] if i["type"] == "function_call"]
    assert call["name"] == "lgos_interrupt"
    return reply.json()["id"], call["call_id"], replica(reply)


def resume_body(previous: str, call_id: str, answer: str, **extra: Any) -> dict:
    return {
        "model": "approval",
        "previous_response_id": previous,
        "input": [
            {"type": "function_call_output", "call_id": call_id, "output": answer}
        ],
        **extra,
    }


def events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The JSON events of a server-sent event stream."""
    for line in lines:
        if line.startswith("data: ") and line != "data: [DONE]":
            yield json.loads(line[len("data: ") :])


def error_code(reply: httpx.Response) -> str:
    reply.read()
    return reply.json()["error"]["code"]


# --- the tests ----------------------------------------------------------------


def test_just_demo_replicas_puts_two_replicas_behind_the_balancer(
    scale: ComposeStack, healthy: float, client: httpx.Client
) -> None:
    print(f"just demo --replicas 2 to every service healthy: {healthy:.0f} s")
    banner = scale.output()
    assert "  API replicas:          2 behind HAProxy, round robin" in banner
    assert f"  OpenAI-compatible API: {scale.api_url}" in banner
    services = Counter(c["Service"] for c in scale.containers())
    assert services["api"] == REPLICAS
    assert services["worker"] == WORKERS
    assert services["balancer"] == 1
    # The balancer took the API's published port; the replicas publish nothing.
    published = {
        (c["Service"], p["PublishedPort"])
        for c in scale.containers()
        for p in c.get("Publishers") or []
        if p.get("PublishedPort")
    }
    assert ("balancer", scale.api_port) in published
    assert not [port for service, port in published if service == "api"]
    # Round robin over both: consecutive requests alternate.
    addresses = wait_for_replicas(scale)
    served = [replica(client.get("/models")) for _ in range(6)]
    assert set(served) == set(addresses), (served, addresses)
    assert all(a != b for a, b in itertools.pairwise(served)), served
    # The key is still required, through the balancer as on one replica.
    refused = httpx.get(f"{scale.api_url}/models", timeout=10)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "invalid_api_key"
    # The UI talks to the balancer.
    ui_env = scale.compose("exec", "-T", "chainlit", "env").splitlines()
    assert "DEMO_CHAINLIT_OPENAI_BASE_URL=http://balancer:8000/v1" in ui_env


@dataclass
class KilledRun:
    """A background run whose worker was killed while it ran."""

    response_id: str
    answer: dict[str, Any]
    doomed: str
    survivor: str
    killed_at: float


@pytest.fixture(scope="module")
def killed_run(scale: ComposeStack, healthy: float) -> KilledRun:
    """Start a background `deep-research` run and SIGKILL the worker running it.

    Module-scoped, and asked for early: Hatchet takes about 30 s to notice a
    dead worker, while the tests in between run.
    """
    workers = containers_by_address(scale, "worker")
    assert len(workers) == WORKERS
    tools = [{"type": "web_search"}]
    with httpx.Client(
        base_url=scale.api_url, headers=scale.api_headers, timeout=60
    ) as client:
        plan = client.post(
            "/responses",
            json={"model": "deep-research", "input": RESEARCH_REQUEST, "tools": tools},
        )
        assert plan.status_code == 200, plan.text
        [call] = [i for i in plan.json()["output"] if i["type"] == "function_call"]
        answer = {
            "model": "deep-research",
            "previous_response_id": plan.json()["id"],
            "tools": tools,
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": "Start research",
                }
            ],
        }
        created = client.post("/responses", json={**answer, "background": True})
        assert created.status_code == 200, created.text
        response_id = created.json()["id"]

        def status() -> str:
            return client.get(f"/responses/{response_id}").json()["status"]

        wait_until(lambda: status() == "in_progress", timeout=60, interval=0.2)

        # The worker running it: the one whose counters have it in flight.
        def running_on() -> str | None:
            for name in workers.values():
                metrics = scrape(scale, name, 9464)
                if sample(metrics, "lgos_runs_in_flight", model="deep-research") >= 1:
                    return name
            return None

        doomed = wait_until(running_on, timeout=20, interval=0.2)
        scale.docker("kill", doomed)
        killed_at = time.monotonic()
        assert status() == "in_progress", "killed mid-run"
    survivor = next(n for n in workers.values() if n != doomed)
    return KilledRun(response_id, answer, doomed, survivor, killed_at)


def test_a_worker_is_killed_in_the_middle_of_a_background_run(
    killed_run: KilledRun,
) -> None:
    # The run was in progress on the killed worker (its lgos_runs_in_flight);
    # the last test of the module checks what became of it.
    assert killed_run.doomed != killed_run.survivor


def test_a_pause_taken_on_one_replica_is_resumed_on_another(
    scale: ComposeStack, client: httpx.Client
) -> None:
    addresses = wait_for_replicas(scale)
    before = {
        name: (
            api_sample(scale, name, "lgos_interrupts_paused_total", model="approval"),
            api_sample(scale, name, "lgos_interrupts_resumed_total", model="approval"),
        )
        for name in addresses.values()
    }
    previous, call_id, paused_on = pause(client)
    done = client.post("/responses", json=resume_body(previous, call_id, "approve"))
    assert done.status_code == 200, done.text
    resumed_on = replica(done)
    assert resumed_on != paused_on, "round robin sends the resume to the other one"
    assert done.json()["status"] == "completed"
    text = done.json()["output"][-1]["content"][0]["text"]
    assert "approved" in text.lower(), text
    # The replicas' own counters agree with the balancer's header.
    paused_name, resumed_name = addresses[paused_on], addresses[resumed_on]
    after = {
        name: (
            api_sample(scale, name, "lgos_interrupts_paused_total", model="approval"),
            api_sample(scale, name, "lgos_interrupts_resumed_total", model="approval"),
        )
        for name in addresses.values()
    }
    assert after[paused_name][0] - before[paused_name][0] == 1
    assert after[resumed_name][1] - before[resumed_name][1] == 1
    assert after[paused_name][1] == before[paused_name][1]


def test_a_replica_killed_mid_stream_fails_the_stream_and_the_retry_completes_once(
    scale: ComposeStack, client: httpx.Client
) -> None:
    addresses = wait_for_replicas(scale)
    previous, call_id, _ = pause(client)
    body = resume_body(previous, call_id, INSTRUCTIONS, stream=True)
    seen: list[str] = []
    broke: Exception | None = None
    with client.stream("POST", "/responses", json=body) as reply:
        assert reply.status_code == 200
        killed = replica(reply)
        stream = events(reply.iter_lines())
        try:
            for event in stream:
                seen.append(event["type"])
                if event["type"] == "response.output_text.delta":
                    # The answer is streaming: the replica dies (SIGKILL).
                    scale.docker("kill", addresses[killed])
                    break
            for event in stream:
                seen.append(event["type"])
        except httpx.HTTPError as exc:
            broke = exc
    assert "response.output_text.delta" in seen
    assert "response.completed" not in seen, seen
    print(f"the killed replica's stream ended with {broke!r} after {seen[-1]}")
    survivor = next(a for a in addresses if a != killed)
    survivor_name = addresses[survivor]
    resumed_before = api_sample(
        scale, survivor_name, "lgos_interrupts_resumed_total", model="approval"
    )

    # The same request again, as a client retries: the balancer sends it to
    # the survivor (the dead one is marked down, or refuses the connection and
    # the request goes elsewhere). Until the survivor takes over the run's
    # lease it may answer 409 run_busy, which a client retries.
    answers: list[str] = []

    def retried() -> tuple[str, list[str]] | None:
        with client.stream("POST", "/responses", json=body) as again:
            if again.status_code != 200:
                code = error_code(again)
                answers.append(f"{again.status_code} {code}")
                assert code in {"run_busy", "server_shutting_down"}, answers
                return None
            types = [event["type"] for event in events(again.iter_lines())]
            return replica(again), types

    served, types = wait_until(
        retried, timeout=90, interval=0.5, message=lambda: f"a retry: {answers}"
    )
    print(f"retries before the survivor answered: {answers}")
    assert served == survivor
    assert types[-1] == "response.completed", types
    # The work was done once: the survivor resumed the pause once, and the
    # pause is gone (an identical resume is refused, nothing runs again).
    resumed_after = api_sample(
        scale, survivor_name, "lgos_interrupts_resumed_total", model="approval"
    )
    assert resumed_after - resumed_before == 1
    again = client.post("/responses", json={**body, "stream": False})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "interrupt_state_conflict"
    # The killed replica comes back (as a restart policy or an operator
    # would start it) and the balancer sends to it again.
    scale.docker("start", addresses[killed])
    wait_for_replicas(scale)


@dataclass
class Load:
    """Steady traffic through the balancer from a few threads: each request
    retried, as the OpenAI SDKs do, when the answer is retryable (503 with
    Retry-After); every other failure is a dropped request."""

    url: str
    headers: dict[str, str]
    stop: threading.Event = field(default_factory=threading.Event)
    completed: Counter[str] = field(default_factory=Counter)
    retryable: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def request(self, http: httpx.Client, streaming: bool) -> None:
        body: dict[str, Any] = {"model": "chat", "input": "Hello from the load"}
        if streaming:
            body["stream"] = True
        for _attempt in range(5):
            try:
                with http.stream("POST", "/responses", json=body) as reply:
                    if reply.status_code == 503 and reply.headers.get("retry-after"):
                        self.retryable.append(error_code(reply))
                        time.sleep(float(reply.headers["retry-after"]))
                        continue
                    if reply.status_code != 200:
                        self.dropped.append(f"{reply.status_code} {reply.read()!r}")
                        return
                    if streaming:
                        last = [e["type"] for e in events(reply.iter_lines())][-1:]
                        if last != ["response.completed"]:
                            self.dropped.append(f"stream ended with {last}")
                            return
                    else:
                        reply.read()
                        assert reply.json()["status"] == "completed"
                    self.completed[replica(reply)] += 1
                    return
            except httpx.HTTPError as exc:
                self.dropped.append(repr(exc))
                return
        self.dropped.append("still 503 after 5 attempts")

    def run(self, streaming: bool) -> None:
        with httpx.Client(base_url=self.url, headers=self.headers, timeout=60) as http:
            while not self.stop.is_set():
                self.request(http, streaming)


def _at_least(load: Load, count: int) -> bool:
    return sum(load.completed.values()) >= count


def test_a_rolling_restart_under_load_drops_no_request(
    scale: ComposeStack, healthy: float
) -> None:
    addresses = wait_for_replicas(scale)
    load = Load(scale.api_url, scale.api_headers)
    threads = [
        threading.Thread(target=load.run, args=(streaming,), daemon=True)
        for streaming in (False, False, True, True)
    ]
    for thread in threads:
        thread.start()
    restarted = []
    try:
        wait_until(lambda: sum(load.completed.values()) >= 10, timeout=60)
        for name in sorted(addresses.values()):
            # One at a time: SIGTERM (the drain), start, wait until it is
            # healthy and the balancer sends to it, then the next.
            scale.docker("restart", "--time", "40", name)
            restarted.append(name)
            addresses = wait_for_replicas(scale)
            wait_until(
                functools.partial(_at_least, load, sum(load.completed.values()) + 5),
                timeout=60,
                message="load served after the restart",
            )
    finally:
        load.stop.set()
        for thread in threads:
            thread.join(timeout=60)
    print(
        f"rolling restart of {restarted}: {sum(load.completed.values())} requests "
        f"completed {dict(load.completed)}, retryable answers {Counter(load.retryable)}"
    )
    assert load.dropped == [], load.dropped
    assert set(load.retryable) <= {"server_shutting_down"}
    # Both replicas served load, before and after their restart.
    assert len(load.completed) >= REPLICAS


def test_the_background_run_whose_worker_died_failed_cleanly_and_ran_once(
    scale: ComposeStack, client: httpx.Client, killed_run: KilledRun
) -> None:
    response_id = killed_run.response_id
    failed = wait_until(
        lambda: (
            (body := client.get(f"/responses/{response_id}").json())["status"]
            in {"failed", "completed", "cancelled"}
            and body
        ),
        timeout=180,
        interval=1,
        message="the engine to notice the dead worker",
    )
    print(
        f"the run ended {failed['status']} within "
        f"{time.monotonic() - killed_run.killed_at:.0f} s of its worker's death"
    )
    # Failed, not lost and not run again elsewhere (the engine's retries are
    # off: a graph run is not idempotent); the survivor never ran it.
    assert failed["status"] == "failed", failed
    assert failed["error"] is not None
    survivor_metrics = scrape(scale, killed_run.survivor, 9464)
    for state in ("in_progress", "completed"):
        assert (
            sample(
                survivor_metrics,
                "lgos_background_runs_total",
                model="deep-research",
                state=state,
            )
            == 0
        ), state
    # The pause it answered is still there and answers once, in the foreground.
    answers: list[str] = []

    def resumed() -> dict[str, Any] | None:
        reply = client.post("/responses", json=killed_run.answer)
        if reply.status_code == 409 and reply.json()["error"]["code"] == "run_busy":
            answers.append("run_busy")
            return None
        assert reply.status_code == 200, reply.text
        return reply.json()

    report = wait_until(resumed, timeout=60, interval=0.5)
    assert report["status"] == "completed"
    again = client.post("/responses", json=killed_run.answer)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "interrupt_state_conflict"
    assert client.get(f"/responses/{response_id}").json()["status"] == "failed"
    scale.docker("start", killed_run.doomed)
