"""Test tiers: what each test needs from the machine, as pytest markers.

Every test carries one or more tier markers; ``just test-fast`` selects the
tiers that need only uv and PostgreSQL, ``just test`` runs them all.

========== ================================================================
tier       what the tests need
========== ================================================================
unit       nothing: no process, no database (in-process ASGI, files)
integration PostgreSQL, or processes the suite starts itself on loopback
clients    Node.js and the pinned npm packages (``npm ci``): the JavaScript
           clients, the Codex CLI, the docs site's Mermaid; the pinned
           Python CLIs (aider, llm) in their own environments
browser    Debian's Chromium, driven by Playwright
stack      the pinned outside programs: Hatchet engine, LiteLLM proxy,
           Open WebUI, Debian's pipx, Helm
compose    a Docker engine with Compose and the demo's images
========== ================================================================

A test's tiers are the tier markers it declares (on itself, its class or its
module), or else its folder's tier (``FOLDER_TIERS``). A fixture that needs
something says so with :func:`needs`; a test that uses such a fixture,
directly or through another fixture, without declaring its tier is a
collection error that names the fixture and the marker to add. So a tier run
never reaches a test it cannot serve: it deselects the test instead of
skipping it. Helpers that are not fixtures (a Node.js client, a browser
launched by hand) call :func:`require`, which fails a test that does not
declare the tier. A test whose only tier is ``unit`` cannot start a process:
it fails, naming the command, and asks for the ``integration`` marker.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Generator
from typing import Any, TypeVar

import pytest

TIERS = ("unit", "integration", "clients", "browser", "stack", "compose")
FAST = ("unit", "integration")
"""The tiers ``just test-fast`` runs: they need only uv and PostgreSQL."""

DESCRIPTIONS = {
    "unit": "no process, no database",
    "integration": "PostgreSQL or processes on loopback",
    "clients": (
        "Node.js and the pinned npm packages (JavaScript clients, Codex, Mermaid), "
        "the pinned Python CLIs"
    ),
    "browser": "Debian's Chromium",
    "stack": "Hatchet engine, LiteLLM proxy, Open WebUI, pipx or Helm",
    "compose": "a Docker engine with Compose",
}

FOLDER_TIERS = {
    "architecture": "unit",
    "bench": "integration",
    "bifrost": "integration",
    "client": "unit",
    "clients": "clients",
    "compose": "unit",
    "compose_stack": "compose",
    "contract": "unit",
    "demo": "unit",
    "deploy": "stack",
    "docs": "unit",
    "e2e": "browser",
    "files": "unit",
    "gateway": "stack",
    "integration": "integration",
    "lgos": "unit",
    "open_webui": "unit",
    "suite": "unit",
    "ui": "unit",
}
"""The tier every test of a folder under ``tests/`` has, besides its markers."""

_ATTRIBUTE = "lgos_test_tier"
F = TypeVar("F", bound=Callable[..., Any])


def needs(tier: str) -> Callable[[F], F]:
    """Declare that a fixture function needs ``tier`` (one of :data:`TIERS`).

    Put it under ``@pytest.fixture``. Raises ValueError for an unknown tier.
    """
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; one of {', '.join(TIERS)}")

    def mark(function: F) -> F:
        setattr(function, _ATTRIBUTE, tier)
        return function

    return mark


def tiers_of(item: pytest.Item) -> set[str]:
    """The tier markers ``item`` carries (after collection: all its tiers)."""
    return {mark.name for mark in item.iter_markers() if mark.name in TIERS}


def declared(item: pytest.Item) -> set[str]:
    """The tiers ``item`` declares: its tier markers, or else its folder's tier."""
    tiers = tiers_of(item)
    parts = item.nodeid.split("/")
    if (
        not tiers
        and len(parts) > 2
        and parts[0] == "tests"
        and parts[1] in FOLDER_TIERS
    ):
        tiers.add(FOLDER_TIERS[parts[1]])
    return tiers


_running: list[pytest.Item] = []


def require(tier: str) -> None:
    """Fail the running test unless it declares ``tier``.

    For helpers that need a tier's resources without being a fixture (the
    Node.js clients, a browser a test launches itself). Outside a test (a
    session fixture's setup, a script) it does nothing.
    """
    if _running and tier not in tiers_of(_running[-1]):
        pytest.fail(
            f"{_running[-1].nodeid} needs the {tier!r} tier ({DESCRIPTIONS[tier]}); "
            f"mark the test or its module with pytest.mark.{tier} (tests/tiers.py)",
            pytrace=False,
        )


@pytest.hookimpl(tryfirst=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> None:
    """Refuse a tier fixture asked for at run time (``request.getfixturevalue``)
    by a test that does not declare its tier; collection sees only the rest."""
    tier = getattr(fixturedef.func, _ATTRIBUTE, None)
    if tier is not None and _running:
        tiers = tiers_of(_running[-1])
        if tier not in tiers and not (tier == "integration" and tiers - {"unit"}):
            require(tier)


ALLOWED_COMMANDS = {
    "fc-list": "matplotlib lists the machine's fonts once, to build its font cache",
}
"""Commands a library runs for itself, which a ``unit`` test may start: the
name, and why it is not the test's own process."""


def _allowed(args: Any) -> bool:
    """Whether ``args`` (Popen's first argument) runs an allowed command."""
    if isinstance(args, (str, bytes)):
        words = os.fsdecode(args).split()
        first = words[0] if words else ""
    else:
        first = os.fsdecode(next(iter(args), ""))
    return os.path.basename(first) in ALLOWED_COMMANDS


class ProcessInUnitTest(AssertionError):
    """A test whose only tier is ``unit`` tried to start a process."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    """Track the running test; refuse processes in a ``unit``-only test."""
    _running.append(item)
    guard = None
    if tiers_of(item) == {"unit"}:
        guard = pytest.MonkeyPatch()
        start = subprocess.Popen._execute_child  # type: ignore[attr-defined]

        def refuse(self: subprocess.Popen[Any], args: Any, *rest: Any) -> Any:
            if _allowed(args):
                return start(self, args, *rest)
            raise ProcessInUnitTest(
                f"{item.nodeid} is a unit test and started a process ({args!r}); "
                "mark it pytest.mark.integration (tests/tiers.py)"
            )

        guard.setattr(subprocess.Popen, "_execute_child", refuse)
    try:
        return (yield)
    finally:
        if guard is not None:
            guard.undo()
        _running.pop()


def required(item: pytest.Item) -> dict[str, str]:
    """``{tier: fixture name}`` for each tier a fixture of ``item`` needs."""
    found: dict[str, str] = {}
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return found
    for name in info.names_closure:
        for definition in info.name2fixturedefs.get(name, ()):
            tier = getattr(definition.func, _ATTRIBUTE, None)
            if tier is not None:
                found.setdefault(tier, name)
    return found


def pytest_configure(config: pytest.Config) -> None:
    for tier in TIERS:
        config.addinivalue_line("markers", f"{tier}: test tier: {DESCRIPTIONS[tier]}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add each test's folder tier as a marker (before ``-m`` selects), and
    refuse a test whose fixtures need a tier it does not declare."""
    problems = []
    for item in items:
        tiers = declared(item)
        for tier, fixture in sorted(required(item).items()):
            # Every tier but unit may start processes and use PostgreSQL.
            if tier not in tiers and not (tier == "integration" and tiers - {"unit"}):
                problems.append(
                    f"{item.nodeid}: fixture {fixture!r} needs the {tier!r} tier; "
                    f"mark the test or its module with pytest.mark.{tier}"
                )
        if not tiers:
            problems.append(
                f"{item.nodeid}: no tier; mark it with one of {', '.join(TIERS)} "
                "(tests/tiers.py)"
            )
        for tier in tiers:
            item.add_marker(tier)
    if problems:
        raise pytest.UsageError(
            "tests that need a tier they do not declare:\n  " + "\n  ".join(problems)
        )
