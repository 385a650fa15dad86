"""Where metrics are read from: this process, or every worker of ``lgos serve``.

With several worker processes (``lgos serve --workers N``, or ``--reload``'s
server process) each worker records into files of its own in a shared
directory, prometheus-client's multiprocess mode, and a scrape of any worker
(or of the metrics port) merges them: counters and histograms are summed,
the gauges of running work (``multiprocess_mode="livesum"``) are summed over
live processes only. :func:`prepare_multiprocess_dir` sets the directory up
before the workers start; without it (one process) the metrics live in
prometheus-client's default registry, with its ``process_*`` and
``python_*`` metrics.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

__all__ = [
    "MULTIPROC_DIR_ENV",
    "LiveMultiProcessCollector",
    "exposition_registry",
    "prepare_multiprocess_dir",
    "prune_dead_processes",
    "start_metrics_server",
]

MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's variable: the directory of multiprocess mode."""

_LIVE_FILE = re.compile(r"gauge_live\w+?_(\d+)\.db")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def prune_dead_processes(path: str | Path) -> list[int]:
    """Drop the live-gauge files of processes that no longer run; return their IDs.

    A worker that crashed (and was replaced) never decremented its gauges;
    without this its runs and streams would count as in flight for ever.
    """
    dead = sorted(
        {
            pid
            for name in os.listdir(path)
            if (found := _LIVE_FILE.fullmatch(name)) is not None
            and not _alive(pid := int(found.group(1)))
        }
    )
    for pid in dead:
        mark_process_dead(pid, str(path))
    return dead


class LiveMultiProcessCollector(MultiProcessCollector):
    """prometheus-client's multiprocess collector, pruning dead workers first."""

    def collect(self) -> Iterable[Metric]:
        """Merge the files of ``self._path`` after :func:`prune_dead_processes`."""
        prune_dead_processes(self._path)
        return super().collect()


@functools.cache
def _multiprocess_registry(path: str) -> CollectorRegistry:
    registry = CollectorRegistry()
    LiveMultiProcessCollector(registry, path)
    return registry


def exposition_registry() -> CollectorRegistry:
    """Return the registry a scrape reads.

    The merged files of every process when ``PROMETHEUS_MULTIPROC_DIR`` is
    set, else this process's default registry.
    """
    path = os.environ.get(MULTIPROC_DIR_ENV)
    return _multiprocess_registry(path) if path else REGISTRY


def prepare_multiprocess_dir(*, workers: int, reload: bool) -> Callable[[], None]:
    """Set up multiprocess mode for ``lgos serve``, before any worker starts.

    When the operator set ``PROMETHEUS_MULTIPROC_DIR``, that directory is used
    and emptied of the ``*.db`` files of an earlier run (stale values would be
    summed into the new ones). Otherwise, when Uvicorn will run the app in
    other processes (``workers > 1`` or ``reload``), a new temporary directory
    is created and named in the environment, which the workers inherit. With
    one process nothing changes.

    Returns:
        A clean-up to call when the server has exited (it removes a
        directory this function created; it never removes the operator's).

    """
    configured = os.environ.get(MULTIPROC_DIR_ENV)
    if configured:
        Path(configured).mkdir(parents=True, exist_ok=True)
        for stale in Path(configured).glob("*.db"):
            stale.unlink(missing_ok=True)
        return lambda: None
    if workers <= 1 and not reload:
        return lambda: None
    path = tempfile.mkdtemp(prefix="lgos-metrics-")
    os.environ[MULTIPROC_DIR_ENV] = path

    def clean_up() -> None:
        if os.environ.get(MULTIPROC_DIR_ENV) == path:
            del os.environ[MULTIPROC_DIR_ENV]
        with contextlib.suppress(OSError):
            shutil.rmtree(path)

    return clean_up


def start_metrics_server(port: int, host: str) -> None:
    """Serve ``GET /metrics`` on ``host:port`` from a daemon thread of this process.

    ``lgos serve`` starts it in its main process, which in multiprocess mode
    serves no requests itself and reads the workers' files.

    Raises:
        OSError: The address cannot be bound (in use, or not local).

    """
    start_http_server(port, addr=host, registry=exposition_registry())
