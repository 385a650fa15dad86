"""New LGOS projects from templates: what ``lgos new NAME`` writes.

A template is a folder of files under ``scaffold/templates/`` (package data):
``common/`` holds what every project gets (``pyproject.toml``, the README,
``.env.example``, the Dockerfile, the chat-model switch), and each template's
folder adds its graph, its registry factory and its test. A file's name ends
in ``.tmpl``, which is dropped; a folder named ``__module__`` becomes the
project's import package. Placeholders are written ``{{key}}`` and replaced
by plain string substitution (no template language: the Dockerfile's and the
shell's ``${...}`` stay as they are).

The new project depends on LGOS where the running LGOS came from
(:func:`lgos_source`): a version from the package index, or the folder of a
source checkout, a wheel, or a Git commit, as recorded by the installer
(PEP 610 ``direct_url.json``).
"""

from __future__ import annotations

import json
import keyword
import re
import shlex
import sys
from dataclasses import dataclass
from importlib import metadata
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

__all__ = [
    "DISTRIBUTION",
    "TEMPLATES",
    "LgosSource",
    "ScaffoldError",
    "create_project",
    "lgos_source",
    "module_name",
    "render",
]

DISTRIBUTION: Final = "langgraph-openai-serve"
"""The distribution a new project depends on (with its ``server`` extra)."""

TEMPLATES: Final = {
    "chat": "one model call with instructions",
    "interrupt": "the model drafts, a person approves (interrupts, a checkpointer)",
    "server-tool": "the graph runs a calculator tool inside the Response",
}
"""The template names ``lgos new --template`` takes, with what each makes."""

_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9._-]*[A-Za-z0-9])?$")
_PLACEHOLDER = re.compile(r"\{\{[a-z_]+\}\}")

# Module names a project's package must not shadow: its own dependencies and
# the test folder (the standard library is checked as well).
_TAKEN = frozenset(
    {
        "langgraph_openai_serve",
        "langgraph",
        "langchain",
        "langchain_core",
        "langchain_openai",
        "openai",
        "fastapi",
        "starlette",
        "pydantic",
        "uvicorn",
        "httpx",
        "click",
        "pytest",
        "tests",
        "test",
    }
)


class ScaffoldError(ValueError):
    """A project cannot be created: a bad name, template or target folder."""


@dataclass(frozen=True, slots=True)
class LgosSource:
    """Where a new project gets LGOS from.

    Attributes:
        requirement: The PEP 508 requirement for ``[project].dependencies``,
            always with the ``server`` extra (``lgos`` itself), e.g.
            ``langgraph-openai-serve[server]==0.1.0``.
        uv_source: The TOML inline table for ``[tool.uv.sources]``
            (``{ path = "/src/lgos", editable = true }``), or None when the
            package index provides it.
        local_path: The local folder or file uv installs it from (a Docker
            build needs it as a build context), or None.
        origin: Where it comes from, in words, for the README.

    """

    requirement: str
    uv_source: str | None
    local_path: Path | None
    origin: str


def module_name(name: str) -> str:
    """Return the import package name of project ``name``.

    ``my-bot`` and ``My.Bot`` both give ``my_bot``.

    Raises:
        ScaffoldError: ``name`` is not a valid project name (letters, digits,
            ``-``, ``_`` and ``.``, starting with a letter and ending with a
            letter or digit), or its module name is a Python keyword, a
            standard-library module or one of the project's dependencies.

    """
    if not _NAME.match(name):
        msg = (
            f"{name!r} is not a valid project name: use letters, digits, '-', "
            "'_' and '.', starting with a letter and ending with a letter or digit"
        )
        raise ScaffoldError(msg)
    module = re.sub(r"[-_.]+", "_", name).lower()
    if (
        keyword.iskeyword(module)
        or module in sys.stdlib_module_names
        or module in _TAKEN
    ):
        msg = (
            f"{name!r} would be the Python package {module!r}, which is taken "
            "(a keyword, a standard-library module or a dependency); choose "
            "another name"
        )
        raise ScaffoldError(msg)
    return module


def _toml_string(value: str) -> str:
    # A JSON string is a valid TOML basic string.
    return json.dumps(value)


def _path_of(url: str) -> Path:
    return Path(url2pathname(unquote(urlparse(url).path)))


def _checkout_of_this_module() -> Path | None:
    """Return the ``lgos`` folder of the checkout this module runs from, if any."""
    folder = Path(__file__).resolve().parents[3]  # lgos/src/<package>/scaffold/
    project = folder / "pyproject.toml"
    if project.is_file() and f'name = "{DISTRIBUTION}"' in project.read_text(
        encoding="utf-8"
    ):
        return folder
    return None


def lgos_source(distribution: metadata.Distribution | None = None) -> LgosSource:
    """Say where the running LGOS came from, as a dependency of a new project.

    Reads the installer's PEP 610 record (``direct_url.json``) of
    ``distribution`` (default: the installed ``langgraph-openai-serve``):

    - no record (installed from a package index): the same version from the
      index, ``langgraph-openai-serve[server]==VERSION``;
    - a local folder (a checkout, editable or not): a uv path source on that
      folder, editable when the install was;
    - a wheel or sdist file, or a URL: a uv path or URL source on it;
    - a Git commit: a uv Git source on that commit (and subdirectory).

    Not installed at all (running from a source tree on ``sys.path``), it
    takes the checkout this module lives in, as an editable path source.

    Raises:
        ScaffoldError: LGOS is neither installed nor running from a checkout,
            or its record names a version control system other than Git.

    """
    requirement = f"{DISTRIBUTION}[server]"
    if distribution is None:
        try:
            distribution = metadata.distribution(DISTRIBUTION)
        except metadata.PackageNotFoundError:
            checkout = _checkout_of_this_module()
            if checkout is None:
                msg = f"cannot tell where {DISTRIBUTION} was installed from"
                raise ScaffoldError(msg) from None
            return _folder_source(requirement, checkout, editable=True)
    record = distribution.read_text("direct_url.json")
    if not record:
        version = distribution.version
        return LgosSource(
            requirement=f"{requirement}=={version}",
            uv_source=None,
            local_path=None,
            origin=f"version {version} from your package index",
        )
    direct = json.loads(record)
    url: str = direct["url"]
    if "dir_info" in direct:
        editable = bool(direct["dir_info"].get("editable"))
        return _folder_source(requirement, _path_of(url), editable=editable)
    if "vcs_info" in direct:
        vcs = direct["vcs_info"]
        if vcs.get("vcs") != "git":
            msg = f"{DISTRIBUTION} came from {vcs.get('vcs')!r}; only Git is supported"
            raise ScaffoldError(msg)
        parts = [
            f"git = {_toml_string(url)}",
            f"rev = {_toml_string(vcs['commit_id'])}",
        ]
        if direct.get("subdirectory"):
            parts.append(f"subdirectory = {_toml_string(direct['subdirectory'])}")
        return LgosSource(
            requirement=requirement,
            uv_source="{ " + ", ".join(parts) + " }",
            local_path=None,
            origin=f"commit {vcs['commit_id'][:12]} of {url}",
        )
    if urlparse(url).scheme == "file":
        archive = _path_of(url)
        return LgosSource(
            requirement=requirement,
            uv_source=f"{{ path = {_toml_string(str(archive))} }}",
            local_path=archive,
            origin=f"the file {archive}",
        )
    return LgosSource(
        requirement=requirement,
        uv_source=f"{{ url = {_toml_string(url)} }}",
        local_path=None,
        origin=url,
    )


def _folder_source(requirement: str, folder: Path, *, editable: bool) -> LgosSource:
    table = f"path = {_toml_string(str(folder))}"
    if editable:
        table += ", editable = true"
    return LgosSource(
        requirement=requirement,
        uv_source=f"{{ {table} }}",
        local_path=folder,
        origin=f"the source checkout at {folder}",
    )


def render(text: str, values: dict[str, str]) -> str:
    """Replace each ``{{key}}`` of ``text`` with ``values[key]``.

    Raises:
        ScaffoldError: ``text`` has a placeholder ``values`` lacks.

    """
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    left = _PLACEHOLDER.search(text)
    if left:
        msg = f"template placeholder {left.group()} has no value"
        raise ScaffoldError(msg)
    return text


def _templates() -> Traversable:
    return files(__package__ or __name__).joinpath("templates")


def _walk(folder: Traversable, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            found.extend(_walk(entry, (*prefix, entry.name)))
        elif entry.name.endswith(".tmpl"):
            found.append((*prefix, entry.name))
    return found


def _file_name(part: str, module: str) -> str:
    """Return the name in the project of a template path part.

    ``__module__`` is the package, ``dot-x`` is ``.x`` (package data keeps
    no dot files) and ``.tmpl`` is dropped.
    """
    if part == "__module__":
        return module
    if part.startswith("dot-"):
        part = "." + part.removeprefix("dot-")
    return part.removesuffix(".tmpl")


def _docker_values(name: str, source: LgosSource) -> dict[str, str]:
    tag = name.lower()
    if source.local_path is None:
        return {"docker_build": f"docker build -t {tag} .", "docker_lgos": ""}
    # uv.lock records the path as pyproject.toml gives it (absolute), so the
    # build copies LGOS to that same path, from a build context named lgos.
    path = source.local_path
    archive = path.name.endswith((".whl", ".tar.gz", ".zip"))
    folder, copied = (path.parent, path.name) if archive else (path, ".")
    return {
        "docker_build": (
            f"docker build --build-context lgos={shlex.quote(str(folder))} -t {tag} ."
        ),
        "docker_lgos": (
            "# LGOS comes from a local path (pyproject.toml's [tool.uv.sources]):\n"
            "# the build context named lgos, copied to the path uv.lock records.\n"
            f"COPY --from=lgos {json.dumps([copied, path.as_posix()])}\n"
        ),
    }


def create_project(
    name: str,
    template: str = "chat",
    *,
    parent: Path | None = None,
    source: LgosSource | None = None,
) -> Path:
    """Write a new uv project ``parent/name`` from ``template``.

    Args:
        name: The project's name: its folder, its distribution name and the
            model it serves; its import package is :func:`module_name`.
        template: One of :data:`TEMPLATES`.
        parent: The folder to create it in (default: the current one).
        source: Where the project gets LGOS (default: :func:`lgos_source`).

    Returns:
        The project's folder.

    Raises:
        ScaffoldError: An unknown template, an invalid name, a target that
            exists and is a file or a non-empty folder, or (from
            :func:`lgos_source`) an LGOS of unknown origin.

    """
    if template not in TEMPLATES:
        msg = f"unknown template {template!r}; choose one of {', '.join(TEMPLATES)}"
        raise ScaffoldError(msg)
    module = module_name(name)
    target = (parent or Path.cwd()) / name
    if target.is_file() or (target.is_dir() and any(target.iterdir())):
        msg = f"{target} already exists and is not empty; choose another name"
        raise ScaffoldError(msg)
    source = source or lgos_source()
    root = _templates()
    chosen = root.joinpath(template)
    values = {
        "name": name,
        "module": module,
        "name_lower": name.lower(),
        "template": template,
        "lgos_requirement": _toml_string(source.requirement),
        "uv_sources": (
            ""
            if source.uv_source is None
            else f"\n[tool.uv.sources]\n{DISTRIBUTION} = {source.uv_source}\n"
        ),
        "lgos_origin": source.origin,
        **_docker_values(name, source),
    }
    for fragment in ("about", "try"):
        text = chosen.joinpath(f"{fragment}.md").read_text(encoding="utf-8")
        values[fragment] = render(text, values).strip()
    planned: dict[Path, str] = {}
    for folder in (root.joinpath("common"), chosen):
        for parts in _walk(folder):
            text = folder.joinpath(*parts).read_text(encoding="utf-8")
            relative = [_file_name(part, module) for part in parts]
            planned[Path(*relative)] = render(text, values)
    for relative, text in planned.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target
