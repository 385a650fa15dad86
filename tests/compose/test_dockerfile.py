"""The Dockerfile builds from the lockfile what the services need.

These checks read the Dockerfile and compare it with the workspace; the
image is built for real by the Compose end-to-end tests (tests/compose_stack).
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest
from packaging.requirements import Requirement

from tests.compose.stack import DOCKERFILE, DOCKERIGNORE, ROOT, load


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            pairs.append((keyword.upper(), " ".join(rest.split())))
    return pairs


def _pyproject(path: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / path / "pyproject.toml").read_text("utf-8"))


def _members() -> list[str]:
    return _pyproject(".")["tool"]["uv"]["workspace"]["members"]


def _sync_commands() -> list[str]:
    return [
        args for kind, args in _instructions() if kind == "RUN" and "uv sync" in args
    ]


def _build_args() -> dict[str, str]:
    """The Dockerfile's `ARG NAME=default` values."""
    args: dict[str, str] = {}
    for kind, text in _instructions():
        if kind == "ARG" and "=" in text:
            name, _, value = text.partition("=")
            args[name] = value
    return args


def _stages() -> set[str]:
    """The names the Dockerfile gives its stages (`FROM image AS name`)."""
    return {
        text.split()[-1]
        for kind, text in _instructions()
        if kind == "FROM" and len(text.split()) == 3
    }


def test_base_images_are_pinned() -> None:
    args = _build_args()
    images = [
        re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], a.split()[0])
        for kind, a in _instructions()
        if kind == "FROM" and a.split()[0] not in _stages()
    ]
    assert images
    for image in images:
        _, _, tag = image.partition(":")
        assert tag and tag != "latest", image
        assert re.match(r"\d+\.\d+", tag), image
    assert any(i.startswith("ghcr.io/astral-sh/uv:") for i in images)
    # The Python of the image is one the workspace supports.
    assert args["PYTHON_IMAGE"] == "python:3.11-slim-bookworm"
    assert ">=3.11" in _pyproject(".")["project"]["requires-python"]


def test_base_images_are_build_arguments_compose_passes() -> None:
    # Every FROM outside the file's own stages is a build argument, so a
    # machine without registry access (CI) can name local stand-ins, and
    # compose.yaml passes each from a DEMO_*_IMAGE variable whose default is
    # the Dockerfile's own.
    stages = set()
    for kind, text in _instructions():
        if kind == "FROM":
            image, *rest = text.split()
            if image in stages:
                continue
            assert re.fullmatch(r"\$\{\w+\}", image), image
            if rest:
                stages.add(rest[-1])
    build = load({"POSTGRES_PASSWORD": "x"})["services"]["api"]["build"]
    assert build["args"] == {
        name: value
        for name, value in _build_args().items()
        if name in ("PYTHON_IMAGE", "UV_IMAGE")
    }
    replaced = load({"POSTGRES_PASSWORD": "x", "DEMO_PYTHON_IMAGE": "mine/python:1.0"})[
        "services"
    ]["api"]["build"]["args"]
    assert replaced["PYTHON_IMAGE"] == "mine/python:1.0"


def test_no_syntax_directive_so_the_built_in_frontend_builds_it() -> None:
    # A `# syntax=` line makes BuildKit pull a frontend image before every
    # build, which fails where no registry answers; the built-in frontend
    # (Docker 20.10+) supports RUN --mount.
    first_lines = DOCKERFILE.read_text(encoding="utf-8").splitlines()[:5]
    assert not any(re.match(r"#\s*syntax\s*=", line) for line in first_lines)


def test_every_uv_sync_is_frozen_to_the_lockfile() -> None:
    syncs = _sync_commands()
    assert len(syncs) == 2  # dependencies first, then the workspace
    for command in syncs:
        assert "--frozen" in command and "--no-dev" in command
        assert "--all-packages" in command
        assert "--mount=type=cache,target=/root/.cache/uv" in command
    assert "--no-install-workspace" in syncs[0]
    assert "source=uv.lock,target=uv.lock" in syncs[0]


def test_every_workspace_member_is_bind_mounted_for_the_dependency_layer() -> None:
    sources = set(re.findall(r"source=([^,\s]+)", _sync_commands()[0]))
    expected = {"uv.lock", "pyproject.toml"} | {
        f"{member}/pyproject.toml" for member in _members()
    }
    assert sources == expected
    for source in sources:
        assert (ROOT / source).is_file(), source


def test_the_services_get_the_extras_they_need() -> None:
    extras = set(re.findall(r"--extra (\w+)", _sync_commands()[0]))
    assert extras == set(re.findall(r"--extra (\w+)", _sync_commands()[1]))
    defined = set(_pyproject("lgos")["project"]["optional-dependencies"])
    assert extras <= defined
    # What the demo packages' own dependencies pull in...
    pulled: set[str] = set()
    for member in _members():
        for text in _pyproject(member)["project"]["dependencies"]:
            requirement = Requirement(text)
            if requirement.name == "langgraph-openai-serve":
                pulled |= requirement.extras
    # ...plus the flags: lgos serve/worker, PostgreSQL, Hatchet and Langfuse.
    assert {"server", "postgres", "hatchet", "tracing"} <= pulled | extras


def test_the_image_runs_as_a_non_root_user() -> None:
    users = [a for kind, a in _instructions() if kind == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert re.search(rf"useradd .*\b{users[-1]}$", DOCKERFILE.read_text("utf-8"), re.M)


def test_volume_mount_points_are_made_writable_for_that_user() -> None:
    runs = " ".join(a for kind, a in _instructions() if kind == "RUN")
    made = re.search(r"mkdir -p ([^&]+)&& chown -R \S+ ([^&]+)", runs)
    assert made
    created = set(made.group(1).split())
    owned = set(made.group(2).split())
    services = load()["services"]
    targets = {
        volume.split(":")[1]
        for name in ("api", "worker", "files", "corpus", "chainlit")
        for volume in services[name].get("volumes", [])
        if not volume.split(":")[1].startswith("/run/")  # read-only token
    }
    assert targets
    for target in targets:
        assert any(target == d or target.startswith(d + "/") for d in created), target
        assert any(target == d or target.startswith(d + "/") for d in owned), target


def test_the_venv_is_on_path_and_copied_to_the_same_place() -> None:
    envs = " ".join(a for kind, a in _instructions() if kind == "ENV")
    assert "UV_PROJECT_ENVIRONMENT=/app/.venv" in envs
    assert "PATH=/app/.venv/bin:$PATH" in envs
    assert ("COPY", "--from=build /app /app") in _instructions()


def _ignored(path: str) -> bool:
    """Whether .dockerignore leaves `path` out (last matching rule wins)."""
    from fnmatch import fnmatch

    ignored = False
    for rule in DOCKERIGNORE.read_text("utf-8").splitlines():
        rule = rule.strip()
        if not rule or rule.startswith("#"):
            continue
        negate = rule.startswith("!")
        pattern = rule.lstrip("!").rstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if pattern.startswith("**/"):
            tail = pattern[3:]
            hit = any(fnmatch(part, tail) for part in parts)
        else:
            hit = any(fnmatch(prefix, pattern) for prefix in prefixes)
        if hit:
            ignored = not negate
    return ignored


@pytest.mark.parametrize(
    "path",
    [
        "uv.lock",
        "pyproject.toml",
        "lgos/pyproject.toml",
        "lgos/README.md",
        "lgos/src/langgraph_openai_serve/cli.py",
        "demo/api/src/lgos_demo_api/registry.py",
        "demo/files/src/lgos_demo_files/__main__.py",
        "ui/chainlit/src/lgos_chainlit/app.py",
        "ui/chainlit/.chainlit/config.toml",
        "demo/compose/with-hatchet-token.sh",
    ],
)
def test_the_build_context_keeps_what_the_image_needs(path: str) -> None:
    assert (ROOT / path).exists(), path
    assert not _ignored(path)


@pytest.mark.parametrize(
    "path",
    [".env", ".venv/bin/python", ".data/x", ".git/HEAD", "tests/x.py", "demo/api/.env"],
)
def test_the_build_context_leaves_out_local_state_and_secrets(path: str) -> None:
    assert _ignored(path)


def test_the_default_target_is_the_services_image() -> None:
    """`docker build .` and Compose's Python services build the last stage."""
    froms = [text for kind, text in _instructions() if kind == "FROM"]
    assert froms[-1] == "runtime"
    assert "runtime AS gateway" in froms


def test_the_gateway_target_has_the_pinned_litellm_proxy() -> None:
    script = (ROOT / "scripts" / "ensure-litellm.sh").read_text(encoding="utf-8")
    [pinned] = re.findall(r'^version="([^"]+)"$', script, re.M)
    assert _build_args()["LITELLM_VERSION"] == pinned != "1.107.0"
    instructions = _instructions()
    assert ("COPY", "--from=litellm /opt/litellm /opt/litellm") in instructions
    assert ("ENV", "DEMO_GATEWAY_LITELLM=/opt/litellm/bin/litellm") in instructions
    runs = " ".join(a for kind, a in instructions if kind == "RUN")
    assert '"litellm[proxy]==${LITELLM_VERSION}"' in runs
