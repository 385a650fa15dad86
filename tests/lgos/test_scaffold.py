"""``lgos new``: names, targets, templates, and where the project gets LGOS from.

In-process (click's runner and the scaffold functions); the generated
projects' own tests and servers run in ``tests/integration/test_lgos_new.py``.
"""

from __future__ import annotations

import ast
import json
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from langgraph_openai_serve.cli import cli
from langgraph_openai_serve.scaffold import (
    TEMPLATES,
    LgosSource,
    ScaffoldError,
    create_project,
    lgos_source,
    module_name,
    render,
)
from tests.procs import ROOT

INDEX = LgosSource(
    requirement="langgraph-openai-serve[server]==1.2.3",
    uv_source=None,
    local_path=None,
    origin="version 1.2.3 from your package index",
)


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``lgos new`` writes into the current folder: make it the test's own."""
    monkeypatch.chdir(tmp_path)


def new(*args: str) -> tuple[int, str, str]:
    """Run ``lgos new ARGS`` in the current folder: exit code, stdout, stderr."""
    result = CliRunner().invoke(cli, ["new", *args])
    return result.exit_code, result.stdout, result.stderr


def fake_distribution(tmp_path: Path, record: dict | None) -> metadata.Distribution:
    info = tmp_path / "langgraph_openai_serve-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: langgraph-openai-serve\nVersion: 1.2.3\n"
    )
    if record is not None:
        (info / "direct_url.json").write_text(json.dumps(record))
    return metadata.PathDistribution(info)


# --- refusals ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("1bot", "'1bot' is not a valid project name"),
        ("my bot", "'my bot' is not a valid project name"),
        ("../bot", "'../bot' is not a valid project name"),
        ("bot-", "'bot-' is not a valid project name"),
        ("class", "'class' would be the Python package 'class'"),
        ("JSON", "'JSON' would be the Python package 'json'"),
        ("langgraph", "would be the Python package 'langgraph'"),
        ("Tests", "would be the Python package 'tests'"),
    ],
)
def test_a_bad_name_is_one_line_and_exit_2(
    tmp_path: Path, name: str, says: str
) -> None:
    code, out, err = new(name)
    assert code == 2
    assert out == ""
    assert err.startswith("Error: ")
    assert says in err
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_template_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, _, err = new("bot", "--template", "graphql")
    assert code == 2
    assert err.strip() == (
        "Error: unknown template 'graphql'; choose one of chat, interrupt, server-tool"
    )
    assert not (tmp_path / "bot").exists()


@pytest.mark.parametrize("existing", ["folder", "file"])
def test_an_existing_target_is_refused_and_kept(tmp_path: Path, existing: str) -> None:
    target = tmp_path / "bot"
    if existing == "folder":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    else:
        target.write_text("mine")
    with pytest.raises(ScaffoldError, match="already exists and is not empty"):
        create_project("bot", parent=tmp_path, source=INDEX)
    if existing == "folder":
        assert [p.name for p in target.iterdir()] == ["notes.txt"]
    else:
        assert target.read_text() == "mine"


def test_the_command_refuses_a_non_empty_folder_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "x").write_text("")
    result = CliRunner().invoke(cli, ["new", "bot"])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
    assert result.stderr.strip().endswith(
        "bot already exists and is not empty; choose another name"
    )
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_empty_folder_is_filled(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    target = create_project("bot", parent=tmp_path, source=INDEX)
    assert (target / "bot" / "graph.py").is_file()


def test_module_names() -> None:
    assert module_name("my-bot") == "my_bot"
    assert module_name("My.Support__Bot") == "my_support_bot"
    with pytest.raises(ScaffoldError):
        module_name("")


def test_render_refuses_a_placeholder_without_value() -> None:
    assert render("{{a}} and ${B}", {"a": "x"}) == "x and ${B}"
    with pytest.raises(ScaffoldError, match=r"\{\{b\}\} has no value"):
        render("{{a}} {{b}}", {"a": "x"})


# --- where LGOS comes from ----------------------------------------------------


def test_this_checkout_is_an_editable_path_source() -> None:
    # The workspace installs LGOS editable from its lgos/ folder (uv sync).
    source = lgos_source()
    lgos = (ROOT / "lgos").resolve()
    assert source.requirement == "langgraph-openai-serve[server]"
    assert source.uv_source == f'{{ path = "{lgos}", editable = true }}'
    assert source.local_path == lgos
    assert source.origin == f"the source checkout at {lgos}"


def test_an_index_install_pins_its_version(tmp_path: Path) -> None:
    source = lgos_source(fake_distribution(tmp_path, None))
    assert source == LgosSource(
        requirement="langgraph-openai-serve[server]==1.2.3",
        uv_source=None,
        local_path=None,
        origin="version 1.2.3 from your package index",
    )


def test_a_folder_install_is_a_path_source(tmp_path: Path) -> None:
    record = {"url": "file:///src/my%20lgos/lgos", "dir_info": {}}
    source = lgos_source(fake_distribution(tmp_path, record))
    assert source.uv_source == '{ path = "/src/my lgos/lgos" }'
    assert source.local_path == Path("/src/my lgos/lgos")

    project = create_project("bot", parent=tmp_path, source=source)
    readme = (project / "README.md").read_text()
    assert "docker build --build-context lgos='/src/my lgos/lgos' -t bot ." in readme
    assert (
        'COPY --from=lgos [".", "/src/my lgos/lgos"]\n'
        in (project / "Dockerfile").read_text()
    )


def test_a_git_install_is_a_git_source(tmp_path: Path) -> None:
    record = {
        "url": "https://example.com/lgos.git",
        "vcs_info": {"vcs": "git", "commit_id": "0123456789abcdef" * 2},
        "subdirectory": "lgos",
    }
    source = lgos_source(fake_distribution(tmp_path, record))
    assert source.requirement == "langgraph-openai-serve[server]"
    assert source.uv_source == (
        '{ git = "https://example.com/lgos.git", '
        f'rev = "{"0123456789abcdef" * 2}", subdirectory = "lgos" }}'
    )
    assert source.local_path is None
    assert source.origin == "commit 0123456789ab of https://example.com/lgos.git"


def test_another_vcs_is_refused(tmp_path: Path) -> None:
    record = {"url": "https://x/lgos", "vcs_info": {"vcs": "hg", "commit_id": "1"}}
    with pytest.raises(ScaffoldError, match="only Git"):
        lgos_source(fake_distribution(tmp_path, record))


def test_a_wheel_file_or_url_is_a_path_or_url_source(tmp_path: Path) -> None:
    wheel = "langgraph_openai_serve-1.2.3-py3-none-any.whl"
    local = {"url": f"file:///dist/{wheel}", "archive_info": {}}
    remote = {"url": f"https://example.com/{wheel}", "archive_info": {}}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    from_file = lgos_source(fake_distribution(tmp_path / "a", local))
    from_url = lgos_source(fake_distribution(tmp_path / "b", remote))
    assert from_file.uv_source == f'{{ path = "/dist/{wheel}" }}'
    assert from_file.local_path == Path(f"/dist/{wheel}")
    project = create_project("bot", parent=tmp_path, source=from_file)
    assert (
        "docker build --build-context lgos=/dist -t bot ."
        in (project / "README.md").read_text()
    )
    assert (
        f'COPY --from=lgos ["{wheel}", "/dist/{wheel}"]\n'
        in (project / "Dockerfile").read_text()
    )
    assert from_url.uv_source == f'{{ url = "https://example.com/{wheel}" }}'
    assert from_url.local_path is None


def test_without_an_installation_the_checkout_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing(name: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    source = lgos_source()
    assert source.local_path == (ROOT / "lgos").resolve()
    assert source.uv_source is not None and "editable = true" in source.uv_source


# --- what a project holds -----------------------------------------------------

COMMON = {
    ".dockerignore",
    ".env.example",
    ".gitignore",
    "Dockerfile",
    "README.md",
    "pyproject.toml",
    "my_bot/__init__.py",
    "my_bot/graph.py",
    "my_bot/model.py",
    "my_bot/registry.py",
    "tests/test_graph.py",
}


@pytest.mark.parametrize("template", list(TEMPLATES))
@pytest.mark.parametrize("source", ["index", "checkout"])
def test_a_project_is_complete_and_filled_in(
    tmp_path: Path, template: str, source: str
) -> None:
    chosen = INDEX if source == "index" else lgos_source()
    target = create_project("my-bot", template, parent=tmp_path, source=chosen)
    files = {
        p.relative_to(target).as_posix(): p.read_text()
        for p in target.rglob("*")
        if p.is_file()
    }
    assert set(files) == COMMON
    for path, text in files.items():
        assert "{{" not in text, path
        if path.endswith(".py"):
            ast.parse(text, filename=path)

    project = tomllib.loads(files["pyproject.toml"])
    assert project["project"]["name"] == "my-bot"
    assert project["project"]["dependencies"][0] == chosen.requirement
    sources = project.get("tool", {}).get("uv", {}).get("sources")
    if source == "index":
        assert sources is None
    else:
        lgos = str((ROOT / "lgos").resolve())
        assert sources == {"langgraph-openai-serve": {"path": lgos, "editable": True}}

    factory = "my_bot.registry:create_registry"
    assert 'MODEL = "my-bot"' in files["my_bot/registry.py"]
    assert (
        "def create_registry(resources: ServerResources)" in files["my_bot/registry.py"]
    )
    readme = files["README.md"]
    assert "uv run pytest\n" in readme
    assert f"uv run lgos serve {factory} --port 8010" in readme
    docker = files["Dockerfile"]
    assert (
        f'CMD ["lgos", "serve", "{factory}", "--host", "0.0.0.0", "--port", "8000"]'
        in docker
    )
    assert "COPY my_bot /app/my_bot" in docker
    if source == "checkout":
        lgos = (ROOT / "lgos").resolve()
        assert f'COPY --from=lgos [".", "{lgos.as_posix()}"]\n' in docker
        assert f"docker build --build-context lgos={lgos} -t my-bot ." in readme
    else:
        assert "--from=lgos" not in docker
        assert "docker build -t my-bot ." in readme


def test_the_interrupt_template_pauses_with_a_checkpointer(tmp_path: Path) -> None:
    target = create_project("bot", "interrupt", parent=tmp_path, source=INDEX)
    registry = (target / "bot" / "registry.py").read_text()
    graph = (target / "bot" / "graph.py").read_text()
    assert "features={GraphFeature.INTERRUPTS}" in registry
    assert "run_coordinator=resources.run_coordinator" in registry
    assert "build_graph(model, resources.checkpointer)" in registry
    assert "interrupt(" in graph
    assert "compile(checkpointer=checkpointer" in graph


def test_the_command_prints_the_next_steps(tmp_path: Path) -> None:
    code, out, err = new("my-bot", "-t", "server-tool")
    assert (code, err) == (0, "")
    assert out.endswith(
        "Next steps:\n"
        "  cd my-bot\n"
        "  uv run pytest\n"
        "  uv run lgos serve my_bot.registry:create_registry --port 8010\n"
    )
    assert "from the server-tool template: the model 'my-bot'" in out
    assert f"Created {tmp_path / 'my-bot'} " in out
    assert "calculator" in (tmp_path / "my-bot/my_bot/graph.py").read_text()
