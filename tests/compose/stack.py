"""Reading compose.yaml the way Compose does, without a Docker engine.

Compose interpolates `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
`${VAR:?message}`, `${VAR?message}` and `$VAR` in every string of the file,
and `$$` stands for a literal `$`. `interpolate()` implements that subset
(the one compose.yaml uses, nesting excluded) so tests can check the values
the containers would really get.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lgos_chainlit.__main__ import _option as option  # noqa: F401 - the UI's own `--name value` rule, for the tests

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "compose.yaml"
ENV_EXAMPLE = ROOT / ".env.example"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
# The published Compose JSON Schema, where the OpenAI document lives too
# (tests/contract/openapi.py); COMPOSE_SPEC_PATH overrides it.
COMPOSE_SPEC = Path(
    os.environ.get("COMPOSE_SPEC_PATH", "/work/shared/contracts/compose-spec.json")
)

# $$ | ${NAME<op>arg} | ${NAME} | $NAME
_TOKEN = re.compile(
    r"\$\$|\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:-|-|:\?|\?)(?P<arg>[^}]*))?\}"
    r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"
)


class MissingVariableError(ValueError):
    """A `${VAR:?message}` or `${VAR?message}` variable is not set."""


@dataclass(frozen=True)
class Reference:
    """One `${...}` in compose.yaml: the variable, the operator and its argument."""

    name: str
    op: str | None
    arg: str | None


def load_raw() -> dict[str, Any]:
    """compose.yaml as YAML (anchors and merge keys resolved), not interpolated."""
    return yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [text for value in node.values() for text in _strings(value)]
    if isinstance(node, list):
        return [text for item in node for text in _strings(item)]
    return []


def references() -> list[Reference]:
    """Every variable reference in the values of compose.yaml (not comments)."""
    found = []
    for text in _strings(load_raw()):
        for match in _TOKEN.finditer(text):
            if match.group(0) == "$$":
                continue
            name = match.group("braced") or match.group("bare")
            found.append(Reference(name, match.group("op"), match.group("arg")))
    return found


def _substitute(text: str, env: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("braced") or match.group("bare")
        op, arg = match.group("op"), match.group("arg") or ""
        value = env.get(name)
        if op == ":-":
            return value if value else arg
        if op == "-":
            return arg if value is None else value
        if op in (":?", "?") and (value is None or (op == ":?" and not value)):
            raise MissingVariableError(f"{name}: {arg}")
        return value or ""

    return _TOKEN.sub(replace, text)


def interpolate(node: Any, env: dict[str, str]) -> Any:
    """Return `node` with every string interpolated against `env`.

    Raises:
        MissingVariableError: A required variable is unset (or empty for `:?`).

    """
    if isinstance(node, str):
        return _substitute(node, env)
    if isinstance(node, dict):
        return {key: interpolate(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [interpolate(item, env) for item in node]
    return node


def load(env: dict[str, str] | None = None) -> dict[str, Any]:
    """compose.yaml as Compose resolves it against `env`.

    Strings are interpolated; an `environment` entry without a value takes
    the value of the same variable in `env`, or is left out when it is not
    set there. `env` defaults to only POSTGRES_PASSWORD.
    """
    env = {"POSTGRES_PASSWORD": "test"} if env is None else env
    document = interpolate(load_raw(), env)
    for service in document.get("services", {}).values():
        environment = service.get("environment")
        if isinstance(environment, dict):
            service["environment"] = {
                name: env[name] if value is None else value
                for name, value in environment.items()
                if value is not None or name in env
            }
    return document


def passed_through() -> set[str]:
    """Variables given to a container without a value (taken from `.env`)."""
    names = set()
    for service in load_raw()["services"].values():
        environment = service.get("environment") or {}
        names |= {name for name, value in environment.items() if value is None}
    return names


def documented_variables() -> dict[str, str | None]:
    """Names in .env.example (`NAME=value`, or commented `# NAME=value`).

    Values are given for uncommented lines, None for commented ones.
    """
    names: dict[str, str | None] = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$", line.strip())
        if match:
            commented, name, value = match.groups()
            if commented is None or name not in names:
                names[name] = None if commented else value
    return names


def service_environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's `environment` as a dict of strings (map or list form)."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(key): "" if value is None else str(value) for key, value in env.items()}


def argv(value: str | list[str] | None) -> list[str]:
    """A `command`/`entrypoint` as an argument list (shell form split)."""
    if value is None:
        return []
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def healthcheck_urls(service: dict[str, Any]) -> list[str]:
    """HTTP URLs in a service's healthcheck test."""
    test = (service.get("healthcheck") or {}).get("test") or []
    text = " ".join(test) if isinstance(test, list) else str(test)
    return re.findall(r"https?://[^'\"\s)]+", text)
