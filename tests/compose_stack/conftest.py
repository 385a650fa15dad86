"""The demo stack on a real Docker engine, started with `just demo` as a user would.

``scripts/compose-e2e.sh prepare`` makes an engine answer, builds stand-ins for
the public images (no registry is reachable in CI) and writes what these tests
need (``DOCKER_HOST``, ``DEMO_*_IMAGE``) to ``.data/compose-e2e.env``. These
tests are the ``compose`` tier (tests/tiers.py): without that file, or with no
engine answering, they fail and say how to prepare the engine or leave the
tier out.

``ComposeStack`` runs ``just demo`` with no mode flag (so the script's own
engine probe picks Compose), in the Compose project ``lgos-e2e`` with its own
volumes and free loopback ports, and reads the containers' state with
``docker compose ps``. The module's stack starts from empty volumes and is
removed with them (``docker compose down -v``) at the end. ``compose_stack``
makes such a stack in another project, for a module of its own
(test_scale_out.py runs `just demo --replicas 2` as ``lgos-scale``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.e2e.conftest import (  # noqa: F401 - the module-scoped browser fixture
    _CALL_FAILED,  # browser_page reads it: a screenshot when the test failed
    REPO,
    base_env,
    browser,
    browser_page,
)
from tests.procs import free_port
from tests.tiers import needs

ENV_FILE = REPO / ".data" / "compose-e2e.env"
PROJECT = "lgos-e2e"
SCALE_PROJECT = "lgos-scale"
"""The project of `just demo --replicas` (test_scale_out.py): its own
containers, volumes and ports, so it may run beside ``PROJECT``."""
LONG_RUNNING = (
    "postgres",
    "hatchet-lite",
    "api",
    "worker",
    "files",
    "corpus",
    "chainlit",
)
ONE_SHOT = ("hatchet-token",)
# From `just demo` to every service healthy, image build included. Measured
# here: about 3 minutes on a cold build cache, under 2 minutes warm.
HEALTHY_WITHIN_SECONDS = 480.0
# Ctrl-C stops the containers (Compose's graceful stop, 10 s per container
# at most) before `just demo` returns.
STOPPED_WITHIN_SECONDS = 120.0


def _read_env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def _unavailable(reason: str) -> NoReturn:
    # A tier that was asked for and cannot run fails (tests/tiers.py); a
    # machine without an engine leaves the compose tier out instead.
    pytest.fail(
        f"the compose tier cannot run: {reason}; prepare the engine and images with "
        "`bash scripts/compose-e2e.sh prepare` (or run `just test-compose`), or leave "
        "the tier out (`just test-fast`, or pytest -m 'not compose')",
        pytrace=False,
    )


def raise_failed(
    args: tuple[str, ...], done: subprocess.CompletedProcess[str]
) -> NoReturn:
    """Raise AssertionError naming ``docker ARGS``, its exit status and output."""
    raise AssertionError(
        f"docker {' '.join(args)} failed ({done.returncode}):\n"
        f"{done.stdout}\n{done.stderr}"
    )


@dataclass
class ComposeStack:
    """`just demo` (Compose mode) in the project ``lgos-e2e``, on free ports.

    ``start()`` runs it in its own process group with output to ``log``;
    ``wait_healthy()`` waits for every service; ``interrupt()`` sends the
    SIGINT a terminal's Ctrl-C sends to the whole foreground group.
    """

    env: dict[str, str]
    log: Path
    api_port: int
    ui_port: int
    corpus_port: int
    process: subprocess.Popen[bytes] | None = None
    runs: list[float] = field(default_factory=list)
    project: str = PROJECT

    @property
    def url(self) -> str:
        """The Chainlit UI as the browser opens it."""
        return f"http://127.0.0.1:{self.ui_port}"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}/v1"

    @property
    def api_headers(self) -> dict[str, str]:
        """The demo API's key (``DEMO_LGOS_API_KEY``, default ``lgos-demo``)."""
        key = self.env.get("DEMO_LGOS_API_KEY") or "lgos-demo"
        return {"Authorization": f"Bearer {key}"}

    @property
    def corpus_url(self) -> str:
        return f"http://127.0.0.1:{self.corpus_port}"

    def run_docker(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run ``docker ARGS`` against the test's engine, output captured."""
        return self.run("docker", *args)

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in the checkout with the stack's environment (its
        engine, project and ports), output captured, 300 s at most."""
        return subprocess.run(
            list(argv),
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def docker(self, *args: str, check: bool = True) -> str:
        """Run ``docker ARGS`` against the test's engine; return its stdout."""
        done = self.run_docker(*args)
        if check and done.returncode != 0:
            raise_failed(args, done)
        return done.stdout

    def compose(self, *args: str, check: bool = True) -> str:
        return self.docker("compose", *args, check=check)

    def containers(self) -> list[dict[str, Any]]:
        """``docker compose ps -a`` as JSON objects (Service, State, Health, ...).

        While ``compose up`` recreates a service, ``compose ps`` can list a
        container and then fail to inspect it ("No such container"): that
        answer is asked again (up to 5 times, 1 s apart), as demo.sh's own
        ready check does.
        """
        args = ("compose", "ps", "-a", "--format", "json")
        done = self.run_docker(*args)
        for _ in range(4):
            if done.returncode == 0 or "No such container" not in done.stderr:
                break
            time.sleep(1)
            done = self.run_docker(*args)
        if done.returncode != 0:
            raise_failed(args, done)
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def running(self) -> list[str]:
        """Names of this project's running containers, from the engine itself."""
        out = self.docker(
            "ps",
            "--filter",
            f"label=com.docker.compose.project={self.project}",
            "--format",
            "{{.Names}}",
        )
        return out.split()

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def start(self, *args: str) -> None:
        """Run `just demo ARGS` (no mode flag) as a user does, in the background."""
        just = shutil.which("just", path=self.env.get("PATH"))
        assert just, "`just` is not on PATH"
        self.runs.append(time.monotonic())
        with self.log.open("ab") as sink:
            sink.write(f"\n===== just demo, run {len(self.runs)} =====\n".encode())
            sink.flush()
            self.process = subprocess.Popen(
                [just, "demo", *args],
                cwd=REPO,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_healthy(
        self,
        timeout: float = HEALTHY_WITHIN_SECONDS,
        *,
        extra: tuple[str, ...] = (),
        extra_one_shot: tuple[str, ...] = (),
        counts: dict[str, int] | None = None,
    ) -> float:
        """Wait until every service is healthy (the one-shots exited 0).

        ``extra`` and ``extra_one_shot`` name the services of the profiles
        this run turned on (long-running, and run once). A service with
        several containers (``counts``: how many, for scaled services) is
        healthy when all of them are.

        Returns:
            Seconds from ``start()`` to all healthy.

        Raises:
            AssertionError: `just demo` ended, a one-shot failed, or the
                timeout passed; the message has the states and the log tail.
        """
        assert self.process is not None
        deadline = self.runs[-1] + timeout
        states: dict[str, str] = {}
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"`just demo` ended ({self.process.returncode}) before the "
                    f"stack was healthy:\n{self.output()[-8000:]}"
                )
            states = {}
            for container in self.containers():
                service = container["Service"]
                if service in ONE_SHOT + extra_one_shot:
                    if container["State"] == "exited":
                        code = container.get("ExitCode")
                        assert code == 0, (
                            f"{service} exited {code}:\n{self.logs(service)}"
                        )
                        states[service] = "done"
                    else:
                        states[service] = container["State"]
                elif states.get(service, "healthy") == "healthy":
                    states[service] = container.get("Health") or container["State"]
            for service, count in (counts or {}).items():
                found = sum(c["Service"] == service for c in self.containers())
                if found != count:
                    states[service] = f"{found} of {count} containers"
            if all(states.get(s) == "healthy" for s in LONG_RUNNING + extra) and all(
                states.get(s) == "done" for s in ONE_SHOT + extra_one_shot
            ):
                return time.monotonic() - self.runs[-1]
            time.sleep(2)
        raise AssertionError(
            f"not healthy within {timeout:.0f} s: {states}\n{self.output()[-8000:]}"
        )

    def interrupt(self, timeout: float = STOPPED_WITHIN_SECONDS) -> int:
        """Ctrl-C: SIGINT to `just demo`'s process group; its exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
            raise AssertionError(
                f"`just demo` did not end within {timeout:.0f} s of Ctrl-C"
            ) from None

    def logs(self, service: str, tail: int = 200) -> str:
        return self.compose(
            "logs", "--no-color", "--tail", str(tail), service, check=False
        )

    def down(self) -> None:
        """Remove the project's containers (every profile's), network and volumes."""
        self.compose(
            "--profile",
            "*",
            "down",
            "-v",
            "--remove-orphans",
            "--timeout",
            "10",
            check=False,
        )


@pytest.fixture(scope="module")
@needs("compose")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ComposeStack]:
    """The demo stack in Compose mode, started by `just demo` and healthy."""
    yield from compose_stack(tmp_path_factory, PROJECT)


def compose_stack(
    tmp_path_factory: pytest.TempPathFactory,
    project: str,
    **settings: str,
) -> Iterator[ComposeStack]:
    """A ``ComposeStack`` in ``project`` on free ports, with ``settings`` as
    more variables; its containers and volumes are removed before and after.
    The caller starts it."""
    if not ENV_FILE.exists():
        _unavailable(f"{ENV_FILE.relative_to(REPO)} is missing")
    env = base_env()
    # The developer's .env must not change the project, ports or images.
    env.update(_read_env_file(ENV_FILE))
    env.update(
        COMPOSE_PROJECT_NAME=project,
        POSTGRES_PASSWORD="lgos-e2e",
        DEMO_API_PORT=str(free_port()),
        DEMO_CHAINLIT_PORT=str(free_port()),
        DEMO_CORPUS_PORT=str(free_port()),
        DEMO_PUBLISH_ADDRESS="127.0.0.1",
        DEMO_DOCKER_TIMEOUT="20",
        **settings,
    )
    for name in ("COMPOSE_PROFILES", "COMPOSE_FILE", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(name, None)
    info = subprocess.run(
        ["docker", "info"], env=env, capture_output=True, text=True, timeout=30
    )
    if info.returncode != 0:
        _unavailable(f"no Docker engine answers ({info.stderr.strip()[-200:]})")
    log_dir = tmp_path_factory.mktemp(project)
    stack = ComposeStack(
        env=env,
        log=log_dir / "just-demo.log",
        api_port=int(env["DEMO_API_PORT"]),
        ui_port=int(env["DEMO_CHAINLIT_PORT"]),
        corpus_port=int(env["DEMO_CORPUS_PORT"]),
        project=project,
    )
    stack.down()  # a crashed earlier run's volumes would hide a fresh start
    try:
        yield stack
    finally:
        if stack.process is not None and stack.process.poll() is None:
            try:
                stack.interrupt()
            except AssertionError as exc:
                print(exc)
        stack.down()


@dataclass
class ComposeLogs:
    """One Compose service's recent logs, printed when a browser test fails."""

    stack: ComposeStack
    name: str

    @property
    def log(self) -> Path:
        return self.stack.log

    def output(self) -> str:
        return self.stack.logs(self.name, tail=80)


@pytest.fixture
def page(
    request: pytest.FixtureRequest,
    browser: Any,  # noqa: F811 - the fixture imported above
    stack: ComposeStack,
) -> Iterator[Any]:
    """A fresh browser context on the stack's UI; screenshot and logs on failure."""
    yield from browser_page(
        request,
        browser,
        stack.log.parent,
        tuple(
            ComposeLogs(stack, name)
            for name in ("api", "worker", "chainlit", "files", "open-webui")
        ),
    )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    return report
