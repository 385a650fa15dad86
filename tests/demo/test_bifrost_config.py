"""Bifrost's config.json for the demo (``lgos_demo_gateway.bifrost``).

What the file must hold follows the recorded run behind Bifrost v1.4.19
(``../shared/bifrost/README.md``): the ``openai`` provider's
``network_config.base_url`` is LGOS's origin without ``/v1``
(``base_url_with_v1_suffix.bf_v1_wire.jsonl`` shows ``/v1/v1/models`` when it
has one), no config store and no log store.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lgos_demo_gateway.bifrost import (
    KEY_VARIABLE,
    OFFLINE_PRICING_URL,
    bifrost_config,
    lgos_origin,
    main,
)


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://api:8000", "http://api:8000"),
        ("http://api:8000/", "http://api:8000"),
        ("http://api:8000/v1", "http://api:8000"),
        ("https://lgos.example/v1/", "https://lgos.example"),
        ("http://proxy/lgos/v1", "http://proxy/lgos"),
    ],
)
def test_the_base_url_is_the_origin_without_v1(url: str, origin: str) -> None:
    assert lgos_origin(url) == origin
    config = bifrost_config(url)
    assert config["providers"]["openai"]["network_config"]["base_url"] == origin


@pytest.mark.parametrize("url", ["api:8000", "", "ftp://api"])
def test_a_url_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="not an http"):
        bifrost_config(url)
    assert main(["--lgos-url", url, "--print"]) == 2


def test_the_file_mode_calls_nothing_but_lgos() -> None:
    config = bifrost_config("http://api:8000")
    # File mode: nothing stored beside config.json, no web UI configuration.
    assert config["config_store"] == {"enabled": False}
    assert config["logs_store"] == {"enabled": False}
    assert config["client"]["enable_logging"] is False
    # No schema to look up, and the price catalogue sync goes to this machine.
    assert "$schema" not in config
    pricing = config["framework"]["pricing"]
    assert pricing["pricing_url"] == OFFLINE_PRICING_URL
    assert pricing["pricing_url"].startswith("http://127.0.0.1:")
    urls = [
        value
        for value in json.dumps(config).split('"')
        if value.startswith(("http://", "https://"))
    ]
    assert sorted(urls) == sorted(["http://api:8000", OFFLINE_PRICING_URL])
    # One provider, never retrying a POST (a graph would run twice), and the
    # key read from the environment, never written into the file.
    (provider,) = config["providers"]
    openai = config["providers"][provider]
    assert openai["network_config"]["max_retries"] == 0
    assert openai["network_config"]["default_request_timeout_in_seconds"] >= 600
    (key,) = openai["keys"]
    assert key["value"] == f"env.{KEY_VARIABLE}"
    assert key["models"] == ["*"]


def test_out_writes_config_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["--lgos-url", "http://127.0.0.1:8000/v1", "--out", str(tmp_path)]) == 0
    written = json.loads((tmp_path / "config.json").read_text())
    assert written == bifrost_config("http://127.0.0.1:8000")
    assert list(tmp_path.iterdir()) == [tmp_path / "config.json"]
    assert "LGOS at http://127.0.0.1:8000" in capsys.readouterr().out


def test_print_prints_the_same_json(capsys: pytest.CaptureFixture) -> None:
    assert main(["--lgos-url", "http://api:8000", "--print"]) == 0
    assert json.loads(capsys.readouterr().out) == bifrost_config("http://api:8000")


def test_check_fails_when_lgos_does_not_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    # Port 9 (discard) on loopback: nothing listens, the connection is refused.
    code = main(
        [
            "--lgos-url",
            "http://127.0.0.1:9",
            "--check",
            "--wait",
            "0",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 1
    assert "LGOS does not answer at http://127.0.0.1:9/v1/health" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "config.json").exists()
