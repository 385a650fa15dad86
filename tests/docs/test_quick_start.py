"""The README's quick start installs uv and just on Debian's own Python.

Debian, Ubuntu and Homebrew mark their Python as externally managed (PEP 668),
so a bare ``pip install`` there stops before it installs anything. The README's
first command and its alternatives are read from the README itself and run as a
newcomer would: as a user other than root when the suite runs as root, with a
fresh ``HOME`` and a ``PATH`` of ``/usr/bin:/bin`` only (no pyenv, no project
tools), then ``just --version`` and ``just demo --dry-run`` in the same shell.

They reach PyPI, as a newcomer's install does; nothing else is fetched. uv's
own installer script needs ``astral.sh``, which this machine does not reach: its
line is checked to be there and named as not run (``NOT_RUN``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.markdown_blocks import ROOT, blocks
from tests.procs import executable

pytestmark = [pytest.mark.stack]

README = ROOT / "README.md"
# What the shell of a fresh account holds: the system's own folders only.
FRESH_PATH = "/usr/bin:/bin"
# The machine's own network settings (certificate bundle, proxies, package
# index), which a newcomer's shell on it would have too.
MACHINE_ENV = re.compile(
    r"^(SSL_CERT_FILE|SSL_CERT_DIR|PIP_CERT|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL"
    r"|UV_INDEX_URL|UV_DEFAULT_INDEX|UV_NATIVE_TLS|REQUESTS_CA_BUNDLE"
    r"|(?i:https?_proxy|no_proxy))$"
)
# The files `just demo --dry-run` reads, copied as a clone would have them: the
# recipes and scripts/demo.sh, and what its `uv run` needs to install and run
# the launcher (the workspace's manifests and lock, the launcher's package).
_MEMBERS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "uv"
]["workspace"]["members"]
CHECKOUT_FILES = (
    "justfile",
    "demo/justfile",
    "scripts/demo.sh",
    ".env.example",
    "pyproject.toml",
    "uv.lock",
    *(f"{member}/pyproject.toml" for member in _MEMBERS),
    *sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "demo" / "launcher" / "src").rglob("*.py")
    ),
)
NOT_RUN = {"curl": "uv's installer script is served by astral.sh, not reachable here"}
_DEMO = re.compile(r"\bjust demo\s*(#.*)?$")


def quick_start_lines() -> list[str]:
    """Each shell line of the README's Quick start section that starts the demo."""
    text = README.read_text(encoding="utf-8")
    start = text.index("## Quick start")
    end = text.index("\n## ", start + 1)
    first = text[:start].count("\n") + 1
    last = text[:end].count("\n") + 1
    lines = []
    for block in blocks(README):
        if block.lang != "bash" or not first <= block.line <= last:
            continue
        for line in block.code.splitlines():
            if not line.lstrip().startswith("#") and _DEMO.search(line):
                lines.append(line.strip())
    return lines


def newcomer_script(line: str) -> str:
    """``line`` with its ``just demo`` replaced by ``just --version`` and, in the
    checkout, ``just demo --dry-run``, each run the way the line runs ``just``
    (``uvx --from rust-just just`` for the uvx line)."""
    head = line[: _DEMO.search(line).start()]  # type: ignore[union-attr]
    runner = head.rsplit("&&", 1)[-1].lstrip() if "&&" in head else head
    return f"{head}just --version && cd lgos && {runner}just demo --dry-run"


def installer(line: str) -> str:
    """The tool a quick-start line installs with: its first word."""
    return line.split()[0]


def as_newcomer(
    script: str, home: Path, extra_path: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in bash as a fresh account would: ``home`` as ``HOME``
    (and working folder), ``/usr/bin:/bin`` as ``PATH`` (after ``extra_path``),
    and as uid 65534 (nobody) when the suite runs as root."""
    env = {key: value for key, value in os.environ.items() if MACHINE_ENV.match(key)}
    env |= {
        "HOME": str(home),
        "PATH": f"{extra_path}:{FRESH_PATH}" if extra_path else FRESH_PATH,
        "LANG": "C.UTF-8",
    }
    command = ["bash", "-c", script]
    if os.geteuid() == 0:
        for path in [home, *home.rglob("*")]:
            os.lchown(path, 65534, 65534)
        command = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            *command,
        ]
    return subprocess.run(
        command, cwd=home, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def fresh_home() -> Iterator[Path]:
    """An empty home folder holding a copy of the files ``just demo`` reads.

    Made outside pytest's own temporary folder, which only its owner may enter.
    """
    home = Path(tempfile.mkdtemp(prefix="lgos-newcomer-")) / "home"
    checkout = home / "lgos"
    for name in CHECKOUT_FILES:
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    home.parent.chmod(0o755)
    yield home
    shutil.rmtree(home.parent, ignore_errors=True)


def installed_uv() -> Path:
    """The uv binary running this suite (``uv run`` sets ``UV``), else the one on PATH."""
    found = os.environ.get("UV") or executable("uv")
    assert found is not None, "uv is not installed"
    return Path(found).resolve()


def test_the_quick_start_names_each_way_to_install() -> None:
    lines = quick_start_lines()
    assert [installer(line) for line in lines] == ["pipx", "curl", "uv", "uvx", "pip"]
    assert "just test" in README.read_text(encoding="utf-8")


def test_a_bare_pip_install_is_refused_by_debians_python(fresh_home: Path) -> None:
    """The premise: the line the README had before stops on PEP 668."""
    if not any(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED")):
        pytest.fail("Debian's python3 is not marked externally managed here")
    result = as_newcomer("python3 -m pip install uv rust-just", fresh_home)
    assert result.returncode != 0
    assert "externally-managed-environment" in result.stderr


@pytest.mark.parametrize("tool", ["pipx", "curl", "uv", "uvx", "pip"])
def test_a_quick_start_line_installs_just_and_starts_the_demo(
    tool: str, fresh_home: Path
) -> None:
    (line,) = [line for line in quick_start_lines() if installer(line) == tool]
    if tool in NOT_RUN:
        assert "astral.sh" in line
        return  # named, not run: see NOT_RUN
    script = newcomer_script(line)
    extra_path = ""
    if tool == "pipx":
        if shutil.which("pipx", path=FRESH_PATH) is None:
            pytest.fail(
                "Debian's pipx is missing: run scripts/ensure-pipx.sh (as root)"
            )
    elif tool in ("uv", "uvx"):
        # "uv already installed": a folder holding the uv binary and nothing else.
        tools = fresh_home.parent / "uv-only"
        tools.mkdir()
        uv = installed_uv()
        shutil.copy2(uv, tools / "uv")
        shutil.copy2(uv.with_name("uvx"), tools / "uvx")
        extra_path = str(tools)
    elif tool == "pip":
        script = f"python3 -m venv venv && . venv/bin/activate && {script}"
    result = as_newcomer(script, fresh_home, extra_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"^just \d+\.\d+", result.stdout, re.MULTILINE), output
    assert "LGOS demo" in result.stdout, output
    landed = {
        "pipx": ".local/bin/just",
        "uv": ".local/bin/just",
        "pip": "venv/bin/just",
    }
    if tool in landed:  # where the README says it lands
        assert (fresh_home / landed[tool]).is_file()
