"""Run the pinned LiteLLM proxy as a child, kept on the synced configuration.

The proxy runs without a database (`DATABASE_URL` is removed from its
environment): its database mode needs Prisma engine binaries downloaded at run
time, and without a database its management API (`/model/new`,
`/model/update`, `/model/delete`) answers 500 "No DB Connected". A changed
configuration is applied by restarting the proxy, which takes a few seconds
(LiteLLM has no configuration reload without a database).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import httpx

from lgos_demo_gateway.settings import GatewaySettings
from lgos_demo_gateway.sync import (
    LGOS_KEY_VARIABLE,
    MASTER_KEY_VARIABLE,
    SyncError,
    build_config,
    fetch_models,
    gateway_model_info,
    stale_models,
    write_config,
)

__all__ = [
    "OFFLINE_ENV",
    "Supervisor",
    "gateway_answers",
    "proxy_env",
    "sync_once",
    "wait_ready",
    "wait_served",
]

log = logging.getLogger("lgos_demo_gateway")

OFFLINE_ENV = {
    # LiteLLM downloads its model price map at start unless told to use its copy.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    # The admin UI is not part of the demo (and mostly needs a database).
    "DISABLE_ADMIN_UI": "True",
    "NO_PROXY": "127.0.0.1,localhost",
}
"""Variables that keep the proxy offline and quiet."""

REMOVED_ENV = ("DATABASE_URL", "DIRECT_URL", "LITELLM_MASTER_KEY", "STORE_MODEL_IN_DB")
"""Variables of the caller's environment the proxy must not see."""


def proxy_env(settings: GatewaySettings) -> dict[str, str]:
    """Return the proxy's environment: the caller's, offline, with its keys."""
    env = {k: v for k, v in os.environ.items() if k not in REMOVED_ENV}
    env.update(OFFLINE_ENV)
    env[MASTER_KEY_VARIABLE] = settings.master_key.get_secret_value()
    env[LGOS_KEY_VARIABLE] = settings.lgos_api_key.get_secret_value()
    env["PYTHONUNBUFFERED"] = "1"
    return env


def sync_once(settings: GatewaySettings, *, wait_seconds: float = 0.0) -> bool:
    """Read LGOS's models and write the proxy configuration.

    Returns:
        True when the configuration file changed.

    Raises:
        SyncError: LGOS could not be read (see `fetch_models`).

    """
    started = time.monotonic()
    models = fetch_models(
        settings.lgos_base_url,
        api_key=settings.lgos_api_key.get_secret_value(),
        wait_seconds=wait_seconds,
    )
    config = build_config(
        models,
        lgos_base_url=settings.lgos_base_url,
        request_timeout=settings.request_timeout,
        mcp_url=settings.mcp_url,
        mcp_server_name=settings.mcp_server_name,
    )
    changed = write_config(config, settings.config_path)
    log.info(
        "Synced %d LGOS models from %s into %s (%s, %.2f s): %s",
        len(models),
        settings.lgos_base_url,
        settings.config_path,
        "changed" if changed else "unchanged",
        time.monotonic() - started,
        ", ".join(model.id for model in models),
    )
    if settings.mcp_url:
        log.info(
            "MCP server %s (%s) served at the gateway's /mcp, tools named %s-<tool>",
            settings.mcp_server_name,
            settings.mcp_url,
            settings.mcp_server_name,
        )
    return changed


def wait_ready(
    url: str, *, timeout: float, alive: Callable[[], bool] = lambda: True
) -> bool:
    """Wait until `GET <url>/health/liveliness` answers 200 (LiteLLM's liveness route).

    Returns:
        True when ready in time; False on timeout or when `alive()` turns false.

    """
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0, trust_env=False) as client:
        while time.monotonic() < deadline and alive():
            try:
                if client.get(f"{url}/health/liveliness").status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
    return False


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGTERM the proxy when its supervisor dies (prctl)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class Supervisor:
    """Keeps one LiteLLM proxy running on the current synced configuration.

    `run()` syncs (waiting for LGOS), starts the proxy, then every
    `watch_interval` seconds: restarts it when the configuration file changed
    (a `sync` rewrote it), syncs again on SIGHUP or every `sync_interval`
    seconds, and exits when the proxy exits. SIGTERM and SIGINT stop the proxy
    and end `run()` with 0.
    """

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.launched_text: str | None = None
        self._stop = False
        self._resync = False

    def command(self) -> list[str]:
        """Return the proxy's command line."""
        s = self.settings
        return [
            s.litellm,
            "--config",
            str(s.config_path),
            "--host",
            s.host,
            "--port",
            str(s.port),
        ]

    def start(self) -> None:
        """Start the proxy on the current configuration and wait until it is ready.

        Raises:
            SyncError: It exited or was not ready within `startup_timeout`.

        """
        s = self.settings
        self.launched_text = s.config_path.read_text(encoding="utf-8")
        started = time.monotonic()
        self.process = subprocess.Popen(
            self.command(),
            env=proxy_env(s),
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
        process = self.process
        if not wait_ready(
            s.gateway_url,
            timeout=s.startup_timeout,
            alive=lambda: process.poll() is None and not self._stop,
        ):
            if self._stop:
                return
            self.stop_proxy()
            raise SyncError(
                f"the LiteLLM proxy ({' '.join(self.command())}) was not ready at "
                f"{s.gateway_url} within {s.startup_timeout:g} s "
                f"(exit code {process.returncode})"
            )
        log.info(
            "LiteLLM gateway ready on %s/v1 in %.1f s (pid %d)",
            s.gateway_url,
            time.monotonic() - started,
            process.pid,
        )
        self._check_served()

    def _check_served(self) -> None:
        """Log whether `/model/info` now carries LGOS's `lgos` objects."""
        try:
            info = gateway_model_info(
                self.settings.gateway_url,
                master_key=self.settings.master_key.get_secret_value(),
            )
        except SyncError as exc:
            log.warning("Could not read the gateway's /model/info: %s", exc)
            return
        names = sorted(name for name, item in info.items() if "lgos" in item)
        log.info("/model/info carries lgos for %s", ", ".join(names) or "no model")

    def stop_proxy(self) -> None:
        """Stop the proxy (SIGTERM, then SIGKILL after 10 s)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)

    def restart(self, reason: str) -> None:
        """Stop the proxy and start it on the current configuration."""
        log.info("Restarting the LiteLLM gateway: %s", reason)
        self.stop_proxy()
        self.start()

    def _on_stop(self, signum: int, _frame: object) -> None:
        self._stop = True

    def _on_hup(self, _signum: int, _frame: object) -> None:
        self._resync = True

    def run(self) -> int:
        """Sync, start the proxy and keep it current until stopped.

        Returns:
            0 after SIGTERM or SIGINT; the proxy's exit code (1 if it was 0)
            when it exited on its own.

        Raises:
            SyncError: The first sync or the first start failed.

        """
        s = self.settings
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        signal.signal(signal.SIGHUP, self._on_hup)
        sync_once(s, wait_seconds=s.lgos_wait_seconds)
        try:
            self.start()
            next_sync = time.monotonic() + s.sync_interval
            while not self._stop:
                time.sleep(s.watch_interval)
                process = self.process
                if process is None or process.poll() is not None:
                    code = process.returncode if process else 1
                    if self._stop:
                        break
                    log.error("The LiteLLM proxy exited with code %s", code)
                    return code or 1
                due = s.sync_interval > 0 and time.monotonic() >= next_sync
                if self._resync or due:
                    self._resync = False
                    next_sync = time.monotonic() + s.sync_interval
                    try:
                        sync_once(s)
                    except SyncError as exc:
                        log.warning("Sync failed, keeping the configuration: %s", exc)
                try:
                    text = s.config_path.read_text(encoding="utf-8")
                except FileNotFoundError:
                    continue
                if text != self.launched_text:
                    self.restart(f"{s.config_path} changed")
        finally:
            self.stop_proxy()
        return 0


def wait_served(settings: GatewaySettings, *, timeout: float) -> list[str]:
    """Wait until the gateway's `/model/info` matches LGOS; the differences left.

    Raises:
        SyncError: LGOS could not be read.

    """
    models = fetch_models(
        settings.lgos_base_url, api_key=settings.lgos_api_key.get_secret_value()
    )
    deadline = time.monotonic() + timeout
    problems = ["gateway not read yet"]
    while time.monotonic() < deadline:
        try:
            info = gateway_model_info(
                settings.gateway_url,
                master_key=settings.master_key.get_secret_value(),
            )
            problems = stale_models(models, info)
        except SyncError as exc:  # restarting: not answering for a few seconds
            problems = [str(exc)]
        if not problems:
            return []
        time.sleep(0.5)
    return problems


def gateway_answers(settings: GatewaySettings) -> bool:
    """Whether a LiteLLM proxy answers its liveness route at the configured address."""
    return wait_ready(settings.gateway_url, timeout=1.0)
