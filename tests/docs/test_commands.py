"""Every `just` recipe and `lgos` command the docs mention exists.

Shell blocks are not executed; instead, commands in them and in inline code
are checked against `just --summary` (the root justfile and, for
`just demo/<recipe>`, `demo/justfile`) and the `lgos` click group (its
subcommands and their options).
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from langgraph_openai_serve.cli import cli
from tests.docs.markdown_blocks import ROOT, blocks, pages

pytestmark = [pytest.mark.integration]

SHELL = {"bash", "sh", "shell", "console", ""}
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
# A command at the start of a line or after a shell separator.
_COMMAND = re.compile(r"(?:^|&&|\|\||;|\$ )\s*(?:\w+=\S+\s+)*(just|lgos)\s+([^#\n]*)")


def mentions(page: Path) -> list[tuple[str, str, str]]:
    """``(tool, arguments, where)`` for each command the page mentions."""
    found: list[tuple[str, str, str]] = []
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    fenced: set[int] = set()
    for block in blocks(page):
        start = block.line
        fenced.update(range(start - 1, start + block.code.count("\n") + 1))
        if block.lang in SHELL:
            for offset, line in enumerate(block.code.splitlines()):
                for match in _COMMAND.finditer(line):
                    where = f"{name}:{start + offset}"
                    found.append((match.group(1), match.group(2).strip(), where))
    for number, line in enumerate(text.splitlines(), start=1):
        if number in fenced:
            continue
        for span in _INLINE.findall(line):
            for match in _COMMAND.finditer(span):
                where = f"{name}:{number}"
                found.append((match.group(1), match.group(2).strip(), where))
    return found


@cache
def recipes(justfile: str) -> frozenset[str]:
    result = subprocess.run(
        ["just", "--justfile", justfile, "--summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return frozenset(result.stdout.split())


def check_just(arguments: str) -> str | None:
    words = arguments.split()
    if not words or words[0].startswith("-"):
        return None  # `just` alone or `just --list`
    recipe = words[0]
    if "/" in recipe:
        folder, _, name = recipe.rpartition("/")
        known = recipes(f"{folder}/justfile")
    else:
        name, known = recipe, recipes("justfile")
    return None if name in known else f"no recipe {recipe!r}"


def check_lgos(arguments: str) -> str | None:
    words = arguments.split()
    if not words or words[0].startswith("-"):
        return None if not words or words[0] in {"--help", "--version"} else "option?"
    command = cli.commands.get(words[0])
    if command is None:
        return f"no subcommand {words[0]!r} (known: {sorted(cli.commands)})"
    options = {opt for param in command.params for opt in param.opts}
    options |= {"--help"}
    unknown = [w.split("=")[0] for w in words[1:] if w.startswith("--")]
    unknown = [o for o in unknown if o not in options]
    return f"{words[0]} has no option(s) {unknown}" if unknown else None


PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_commands_exist(page: Path) -> None:
    problems = []
    for tool, arguments, where in mentions(page):
        check = check_just if tool == "just" else check_lgos
        if (problem := check(arguments)) is not None:
            problems.append(f"{where}: `{tool} {arguments}`: {problem}")
    assert not problems, "\n".join(problems)


def test_the_scanner_finds_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Run `just demo` or `lgos serve app:f --port 1`; it just works.\n\n"
        "```bash\nexport X=1\nLGOS_X=1 lgos worker app:f --slots 2  # just a note\n"
        "pip install uv && just docs serve\n```\n",
        encoding="utf-8",
    )
    found = [(tool, args) for tool, args, _ in mentions(page)]
    assert found == [
        ("lgos", "worker app:f --slots 2"),
        ("just", "docs serve"),
        ("just", "demo"),
        ("lgos", "serve app:f --port 1"),
    ]
    assert check_just("nope") == "no recipe 'nope'"
    assert check_lgos("serve app:f --no-such-option")
    assert check_lgos("serve app:f --root-path /x --proxy-headers") is None


@pytest.mark.parametrize("justfile", ["justfile", "demo/justfile"])
def test_every_recipe_lists_a_summary(justfile: str) -> None:
    # `just --list` shows the comment line right above a recipe: a note on a
    # second line would replace the summary (it did for `demo` and `bench`).
    listed = subprocess.run(
        ["just", "--justfile", justfile, "--list", "--list-heading", ""],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert listed
    for line in listed:
        _, _, summary = line.partition("#")
        assert summary.strip()[:1].isupper(), f"{justfile}: {line.strip()}"
        assert not summary.strip().startswith(("(", "ARGS", "No exit")), line
