"""The Open WebUI pipe is generated from its source, its parts and the client core.

``ui/open-webui/lgos_pipe.py`` is what Open WebUI loads; it is written by
``ui/open-webui/generate.py`` from ``pipe_source.py`` and the ``lgos_open_webui``
(the pipe's parts) and ``lgos_client`` (the client core) modules it imports. A
hand edit of the committed file, or a change to its sources without generating
again, fails here.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.open_webui.conftest import PIPE_FILE, load_generator

generator = load_generator()


@pytest.mark.integration  # runs ruff to format the generation
def test_the_committed_pipe_is_a_fresh_generation() -> None:
    committed, fresh = PIPE_FILE.read_text(encoding="utf-8"), generator.generate()
    assert committed == fresh, generator.describe_difference(committed, fresh)


@pytest.mark.integration  # runs ruff to format the generation
def test_a_hand_edit_of_the_pipe_is_caught(tmp_path: Path, capsys) -> None:
    """A hand edit fails the check, which names the line and its source."""
    edited = tmp_path / "lgos_pipe.py"
    fresh = generator.generate()
    edited.write_text(fresh, encoding="utf-8")
    assert generator.main(["--check", "--output", str(edited)]) == 0

    edited.write_text(
        fresh.replace("MAX_FUNCTION_ROUNDS = 5", "MAX_FUNCTION_ROUNDS = 6", 1),
        encoding="utf-8",
    )
    assert generator.main(["--check", "--output", str(edited)]) == 1
    said = capsys.readouterr().err
    assert "'MAX_FUNCTION_ROUNDS = 6'" in said
    assert "comes from ui/client/src/lgos_client/ledger.py" in said
    assert "then run `just pipe`" in said


def test_a_difference_in_the_pipe_source_names_it() -> None:
    """The ``Pipe`` class is generated from pipe_source.py, below every banner."""
    fresh = PIPE_FILE.read_text(encoding="utf-8")
    last = fresh.rstrip("\n").splitlines()[-1]
    edited = fresh.replace(last, last + "  # edited", 1)
    said = generator.describe_difference(edited, fresh)
    assert "comes from ui/open-webui/pipe_source.py" in said


def _inlined_imports(path: Path) -> set[tuple[str, str]]:
    """The ``(package, module)`` pairs a source imports from the inlined packages."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            package, _, module = node.module.partition(".")
            if package in generator.PACKAGES and module:
                found.add((package, module))
    return found


def test_the_pipe_holds_the_modules_it_imports() -> None:
    """Every module of the core and of the pipe's parts the source needs
    (directly or through another) is inlined once, every part is needed, and
    nothing in the generated file imports either package (Open WebUI has
    neither ``lgos_client`` nor ``lgos_open_webui``)."""
    wanted: set[tuple[str, str]] = set()
    todo = _inlined_imports(generator.SOURCE)
    while todo:
        package, module = todo.pop()
        if (package, module) not in wanted:
            wanted.add((package, module))
            todo |= _inlined_imports(generator.PACKAGES[package] / f"{module}.py")
    text = PIPE_FILE.read_text(encoding="utf-8")
    assert {package for package, _ in wanted} == set(generator.PACKAGES)
    for package, module in wanted:
        assert text.count(f"\n# {package}.{module}: ") == 1, (package, module)
    parts = {
        ("lgos_open_webui", path.stem)
        for path in generator.PARTS.glob("*.py")
        if path.stem != "__init__"
    }
    assert parts <= wanted, "a part of the pipe no source imports"
    for node in ast.walk(ast.parse(text)):
        names = []
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            assert name.split(".")[0] not in generator.PACKAGES, name


@pytest.mark.parametrize(
    ("package", "allowed"),
    [
        ("lgos_client", {"openai", "pydantic", "lgos_client"}),
        ("lgos_open_webui", {"openai", "pydantic", "lgos_client", "lgos_open_webui"}),
    ],
)
def test_the_packages_import_only_what_open_webui_ships(
    package: str, allowed: set[str]
) -> None:
    """The core imports the standard library, ``openai``, ``pydantic`` and
    itself (never the pipe's parts); the parts may import the core too: Open
    WebUI runs the pipe with nothing else."""
    allowed = allowed | set(sys.stdlib_module_names)
    for path in sorted(generator.PACKAGES[package].glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def sources(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A pipe source on a part (``gamma``) on two core modules (``alpha``, ``beta``)."""
    core = tmp_path / "lgos_client"
    core.mkdir()
    parts = tmp_path / "lgos_open_webui"
    parts.mkdir()
    _write(
        core,
        "alpha",
        '"""Alpha things."""\n\nfrom __future__ import annotations\n\n'
        "import logging\n\n__all__ = ['alpha']\n\n"
        "logger = logging.getLogger(__name__)\n\n\ndef alpha() -> int:\n"
        "    return 1\n",
    )
    _write(
        core,
        "beta",
        '"""Beta things."""\n\nimport logging\n\n'
        "from lgos_client.alpha import alpha\n\n"
        "logger = logging.getLogger(__name__)\n\n\ndef beta() -> int:\n"
        "    return alpha() + 1\n",
    )
    _write(
        parts,
        "gamma",
        '"""Gamma things, on the core."""\n\nimport logging\n\n'
        "from lgos_client.beta import beta\n\n"
        "logger = logging.getLogger(__name__)\n\n\ndef gamma() -> int:\n"
        "    return beta() * 10\n",
    )
    source = _write(
        tmp_path,
        "pipe_source",
        '"""\ntitle: test\n"""\n\nimport json\n\n'
        "from lgos_client.alpha import alpha\n"
        "from lgos_open_webui.gamma import gamma\n\n\ndef pipe() -> str:\n"
        "    return json.dumps([alpha(), gamma()])\n",
    )
    return source, {"lgos_client": core, "lgos_open_webui": parts}


@pytest.mark.integration  # runs ruff to format the generation
def test_generation_inlines_dependencies_first(sources) -> None:
    """A part importing a core module comes after it, each module once."""
    source, packages = sources
    text = generator.generate(source, packages)
    assert text.startswith('"""\ntitle: test\n"""\n')
    banners = [
        "# lgos_client.alpha: Alpha things.",
        "# lgos_client.beta: Beta things.",
        "# lgos_open_webui.gamma: Gamma things, on the core.",
    ]
    assert [text.count(banner) for banner in banners] == [1, 1, 1]
    assert sorted(banners, key=text.index) == banners
    assert text.count("logger = logging.getLogger(__name__)") == 1
    assert "__all__" not in text
    assert "lgos_client.beta, lgos_open_webui.gamma." in text.replace("\n# ", " ")
    namespace: dict[str, object] = {}
    exec(compile(text, "lgos_pipe.py", "exec"), namespace)
    assert namespace["pipe"]() == "[1, 20]"  # type: ignore[operator]


@pytest.mark.parametrize(
    ("module", "text", "says"),
    [
        (
            "beta",
            "from lgos_client.alpha import alpha as first\n",
            "without 'as'",
        ),
        ("beta", "def alpha() -> int:\n    return 3\n", "'alpha' is also defined"),
        (
            "beta",
            "def late():\n    from lgos_client.alpha import alpha\n    return alpha\n",
            "below the top level",
        ),
        ("alpha", "from lgos_client.beta import beta\n", "an import cycle"),
        ("beta", "from json import dumps as logging\n", "'logging' is imported"),
        ("beta", "import lgos_client.alpha\n", "without 'as'"),
        (
            "alpha",
            "from lgos_open_webui.gamma import gamma\n",
            "lgos_client may not import lgos_open_webui",
        ),
        ("gamma", "def beta() -> int:\n    return 4\n", "'beta' is also defined"),
        ("gamma", "from lgos_open_webui.delta import delta\n", "no module"),
    ],
)
def test_generation_refuses_what_it_cannot_inline(
    sources, module: str, text: str, says: str
) -> None:
    source, packages = sources
    package = "lgos_open_webui" if module == "gamma" else "lgos_client"
    path = packages[package] / f"{module}.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")
    with pytest.raises(generator.GenerationError, match=says):
        generator.generate(source, packages)
