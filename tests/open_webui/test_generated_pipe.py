"""The Open WebUI pipe is generated from its source and the client core.

``ui/open-webui/lgos_pipe.py`` is what Open WebUI loads; it is written by
``ui/open-webui/generate.py`` from ``pipe_source.py`` and the ``lgos_client``
modules it imports. A hand edit of the committed file, or a change to its
sources without generating again, fails here.
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
    assert PIPE_FILE.read_text(encoding="utf-8") == generator.generate(), (
        "ui/open-webui/lgos_pipe.py differs from its sources: run `just pipe`"
    )


@pytest.mark.integration  # runs ruff to format the generation
def test_a_hand_edit_of_the_pipe_is_caught(tmp_path: Path, capsys) -> None:
    edited = tmp_path / "lgos_pipe.py"
    text = PIPE_FILE.read_text(encoding="utf-8")
    edited.write_text(text, encoding="utf-8")
    assert generator.main(["--check", "--output", str(edited)]) == 0

    edited.write_text(
        text.replace("MAX_FUNCTION_ROUNDS = 4", "MAX_FUNCTION_ROUNDS = 5", 1),
        encoding="utf-8",
    )
    assert generator.main(["--check", "--output", str(edited)]) == 1
    assert "run `just pipe`" in capsys.readouterr().err


def test_the_pipe_holds_the_core_it_imports() -> None:
    """Every core module the source imports is inlined once, and nothing in
    the generated file imports the core (Open WebUI has no ``lgos_client``)."""
    source = ast.parse(generator.SOURCE.read_text(encoding="utf-8"))
    wanted = {
        node.module.split(".")[1]
        for node in source.body
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("lgos_client.")
    }
    text = PIPE_FILE.read_text(encoding="utf-8")
    assert wanted, "the pipe source imports no core module"
    for name in wanted:
        assert text.count(f"\n# lgos_client.{name}") == 1, name
    generated = ast.parse(text)
    for node in ast.walk(generated):
        if isinstance(node, ast.ImportFrom):
            assert not (node.module or "").startswith("lgos_client")
        if isinstance(node, ast.Import):
            assert all(not a.name.startswith("lgos_client") for a in node.names)


def test_the_core_imports_only_what_open_webui_ships() -> None:
    """The core imports the standard library, ``openai``, ``pydantic`` and
    itself: Open WebUI runs the pipe with nothing else."""
    allowed = {"openai", "pydantic", "lgos_client"} | set(sys.stdlib_module_names)
    for path in sorted(generator.CORE.glob("*.py")):
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
def sources(tmp_path: Path) -> tuple[Path, Path]:
    core = tmp_path / "lgos_client"
    core.mkdir()
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
    source = _write(
        tmp_path,
        "pipe_source",
        '"""\ntitle: test\n"""\n\nimport json\n\n'
        "from lgos_client.beta import beta\n\n\ndef pipe() -> str:\n"
        "    return json.dumps(beta())\n",
    )
    return source, core


@pytest.mark.integration  # runs ruff to format the generation
def test_generation_inlines_dependencies_first(sources) -> None:
    source, core = sources
    text = generator.generate(source, core)
    assert text.startswith('"""\ntitle: test\n"""\n')
    assert text.index("# lgos_client.alpha: Alpha things.") < text.index(
        "# lgos_client.beta: Beta things."
    )
    assert text.count("logger = logging.getLogger(__name__)") == 1
    assert "__all__" not in text
    namespace: dict[str, object] = {}
    exec(compile(text, "lgos_pipe.py", "exec"), namespace)
    assert namespace["pipe"]() == "2"  # type: ignore[operator]


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
    ],
)
def test_generation_refuses_what_it_cannot_inline(
    sources, module: str, text: str, says: str
) -> None:
    source, core = sources
    path = core / f"{module}.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")
    with pytest.raises(generator.GenerationError, match=says):
        generator.generate(source, core)
