"""The machine a benchmark ran on: CPU, cores, memory, Python, packages, commit.

Stored with every result (``results["machine"]``) and printed above the tables,
because figures from different machines or package versions do not compare.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import psutil

from bench.harness import ROOT

PACKAGES = (
    "langgraph-openai-serve",
    "langgraph",
    "langchain-core",
    "fastapi",
    "starlette",
    "pydantic",
    "uvicorn",
    "sse-starlette",
    "orjson",
    "aiohttp",
    "psycopg",
    "hatchet-sdk",
)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def machine() -> dict[str, Any]:
    """CPU, cores, memory, Python, package versions, date, commit and load."""
    return {
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "physical_cores": psutil.cpu_count(logical=False),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "git_commit": _git("rev-parse", "--short", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain")),
        "load_average_at_start": list(os.getloadavg()),
        "packages": {name: _version(name) for name in PACKAGES},
    }
