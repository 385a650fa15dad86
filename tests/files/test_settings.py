"""Settings, storage and database selection, and two services on one PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from obstore.store import LocalStore, MemoryStore, S3Store
from pydantic import ValidationError

from lgos_demo_files import FilesSettings, create_app
from lgos_demo_files.__main__ import main
from lgos_demo_files.metadata import (
    PostgresMetadataStore,
    SqliteMetadataStore,
    open_metadata,
)
from lgos_demo_files.settings import PLACEHOLDER_API_KEY
from lgos_demo_files.storage import open_store
from tests.files.conftest import StackFactory

pytestmark = [pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in (
        "ENV",
        "HOST",
        "PORT",
        "API_KEY",
        "STORAGE_URL",
        "DATABASE_URL",
        "MAX_BYTES",
        "SWEEP_INTERVAL_SECONDS",
        "POOL_SIZE",
    ):
        monkeypatch.delenv(f"DEMO_FILES_{name}", raising=False)
    return monkeypatch


def test_defaults(clean_env: pytest.MonkeyPatch) -> None:
    settings = FilesSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.env == "development"
    assert (settings.host, settings.port) == ("127.0.0.1", 8003)
    assert settings.api_key.get_secret_value() == PLACEHOLDER_API_KEY == "lgos-demo"
    assert settings.max_bytes == 50 * 1024 * 1024
    assert settings.storage_url == ".data/files/objects"
    assert settings.database_url == ".data/files/metadata.sqlite3"
    assert settings.sweep_interval_seconds == 300
    assert PLACEHOLDER_API_KEY not in repr(settings)


def test_environment_variables(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DEMO_FILES_MAX_BYTES", "1234")
    clean_env.setenv("DEMO_FILES_API_KEY", "s3cret-value")
    clean_env.setenv("DEMO_FILES_STORAGE_URL", "s3://bucket/files")
    clean_env.setenv("DEMO_FILES_PORT", "")  # empty means default
    settings = FilesSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.max_bytes == 1234
    assert settings.api_key.get_secret_value() == "s3cret-value"
    assert settings.storage_url == "s3://bucket/files"
    assert settings.port == 8003


def test_production_refuses_the_placeholder_key(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError, match="placeholder"):
        FilesSettings(_env_file=None, env="production")  # type: ignore[call-arg]
    clean_env.setenv("DEMO_FILES_ENV", "production")
    with pytest.raises(ValidationError, match="placeholder"):
        FilesSettings(_env_file=None)  # type: ignore[call-arg]
    clean_env.setenv("DEMO_FILES_API_KEY", "a-real-secret")
    assert FilesSettings(_env_file=None).env == "production"  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="must not be empty"):
        FilesSettings(_env_file=None, api_key="   ")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        FilesSettings(_env_file=None, max_bytes=0)  # type: ignore[call-arg]


def test_main_exits_cleanly_on_invalid_settings(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    clean_env.chdir(tmp_path)  # no .env here
    clean_env.setenv("DEMO_FILES_ENV", "production")
    with pytest.raises(SystemExit) as exited:
        main(["--port", "0"])
    assert exited.value.code == 2
    assert "placeholder" in capsys.readouterr().err


def test_storage_url_selects_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-access")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    s3 = open_store("s3://demo-bucket/lgos/files")
    assert isinstance(s3, S3Store)
    assert s3.prefix == "lgos/files"
    assert s3.config.get("bucket") == "demo-bucket"
    bare = open_store("s3://demo-bucket")
    assert isinstance(bare, S3Store) and not bare.prefix

    target = tmp_path / "a" / "b"
    local = open_store(f"file://{target}")
    assert isinstance(local, LocalStore)
    assert local.prefix == target and target.is_dir()

    monkeypatch.chdir(tmp_path)
    relative = open_store("rel/objects")
    assert isinstance(relative, LocalStore)
    assert relative.prefix == tmp_path / "rel" / "objects"

    assert isinstance(open_store("memory://"), MemoryStore)

    for bad in ("", "s3://", "gs://bucket", "ftp://host/x", "file://remote/x"):
        with pytest.raises(ValueError):
            open_store(bad)


def test_database_url_selects_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # create_app makes the default storage directory
    assert isinstance(open_metadata("postgresql://u:p@h/db"), PostgresMetadataStore)
    assert isinstance(open_metadata("postgres://u:p@h/db"), PostgresMetadataStore)
    for url, path in [
        ("sqlite:///relative.db", "relative.db"),
        ("sqlite:////abs/files.db", "/abs/files.db"),
        (":memory:", ":memory:"),
        (str(tmp_path / "m.sqlite3"), str(tmp_path / "m.sqlite3")),
    ]:
        store = open_metadata(url)
        assert isinstance(store, SqliteMetadataStore)
        assert store.path == path
    for bad in ("mysql://u@h/db", "sqlite://x.db", ""):
        with pytest.raises(ValueError):
            open_metadata(bad)
    with pytest.raises(ValueError):
        create_app(FilesSettings(_env_file=None, database_url="mysql://h/db"))  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        create_app(FilesSettings(_env_file=None, storage_url="gs://b"))  # type: ignore[call-arg]


@pytest.mark.anyio
async def test_defaults_live_under_the_gitignored_data_directory(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert "/.data/" in (ROOT / ".gitignore").read_text().splitlines()
    clean_env.chdir(tmp_path)
    app = create_app(FilesSettings(_env_file=None, sweep_interval_seconds=0))  # type: ignore[call-arg]
    async with app.router.lifespan_context(app):
        assert (tmp_path / ".data" / "files" / "objects").is_dir()
        assert (tmp_path / ".data" / "files" / "metadata.sqlite3").is_file()


@pytest.mark.anyio
async def test_two_services_share_one_postgres(
    make_pg_stack: StackFactory, pg_database_url: str
) -> None:
    # Same database and storage; the second start finds the table in place.
    async with (
        make_pg_stack(database_url=pg_database_url) as first,
        make_pg_stack(database_url=pg_database_url) as second,
    ):
        created = await first.client.files.create(
            file=("s.txt", b"shared"), purpose="batch"
        )
        assert (await second.client.files.retrieve(created.id)).filename == "s.txt"
        assert (await second.client.files.content(created.id)).content == b"shared"
        await second.client.files.delete(created.id)
        assert (await first.client.files.list()).data == []
