"""The benchmark suite runs end to end in its quick mode and reports every figure.

Not a timing test: it checks that each figure exists, is positive and that
the ratios are computed from the figures they name.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest

from bench.report import table
from bench.run import GROUPS, parser
from tests.procs import ROOT

STAT_KEYS = {"rate", "p50_ms", "p99_ms", "n", "concurrency", "round_rates"}


def check_stat(stat: dict[str, Any], concurrency: int = 1) -> None:
    assert stat.keys() >= STAT_KEYS
    assert stat["concurrency"] == concurrency
    assert stat["n"] >= concurrency
    assert stat["rate"] > 0
    assert 0 < stat["p50_ms"] <= stat["p99_ms"]
    assert stat["rate"] == max(stat["round_rates"])


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # A module-scoped run: the postgres_uri fixture is function-scoped, so
    # the suite creates (and drops) its own temporary database.
    output = tmp_path_factory.mktemp("bench") / "bench.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "bench.run", "--quick", "--seconds", "0.2"),
            *("--output", str(output)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    data = json.loads(output.read_text())
    data["stdout"] = done.stdout
    return data


def test_machine_and_table(results: dict[str, Any]) -> None:
    machine = results["machine"]
    assert machine["logical_cores"] >= 1
    assert machine["cpu_model"]
    assert machine["python"].startswith("3.")
    assert machine["packages"]["langgraph"]
    assert machine["packages"]["langgraph-openai-serve"]
    assert results["settings"]["quick"] is True
    stdout = results["stdout"]
    for text in ("responses_c1_vs_floor", "stream responses", "idle streams", "JSON:"):
        assert text in stdout


def test_floors_and_requests(results: dict[str, Any]) -> None:
    floors, requests = results["figures"]["floors"], results["figures"]["requests"]
    for suffix, concurrency in (("", 1), ("_c16", 16)):
        check_stat(floors[f"direct{suffix}"], concurrency)
        check_stat(floors[f"bare{suffix}"], concurrency)
        expected = 1 / (
            1 / floors[f"direct{suffix}"]["rate"] + 1 / floors[f"bare{suffix}"]["rate"]
        )
        assert math.isclose(floors[f"floor{suffix}"], expected)
        for name in ("responses", "chat", "bare_graph"):
            check_stat(requests[f"{name}_c{concurrency}"], concurrency)
        # The bare server's route running the graph has its CPU measured.
        assert requests[f"bare_graph_c{concurrency}"]["cpu_ms"] > 0
    versus = results["ratios"]["chat_c16_vs_bare_graph"]
    assert math.isclose(
        versus["value"],
        requests["chat_c16"]["rate"] / requests["bare_graph_c16"]["rate"],
    )
    ratio = results["ratios"]["responses_c1_vs_floor"]
    assert math.isclose(
        ratio["value"], requests["responses_c1"]["rate"] / floors["floor"]
    )
    assert ratio["meets"] is (ratio["value"] >= 0.9)


def test_streaming(results: dict[str, Any]) -> None:
    stream = results["figures"]["stream"]
    assert stream["chunks"] == 200
    for name in ("astream", "astream_lgos_modes", "responses", "chat"):
        check_stat(stream[name])
        # The first text chunk arrives within each run, so its percentiles too.
        assert 0 < stream[name]["first_p50_ms"] <= stream[name]["p50_ms"]
    ratio = results["ratios"]["stream_responses_total_vs_astream_bare"]
    bare = results["figures"]["floors"]["bare"]["p50_ms"]
    expected = stream["responses"]["p50_ms"] / (stream["astream"]["p50_ms"] + bare)
    assert math.isclose(ratio["value"], expected)
    assert ratio["target"] == "<= 1.30"


def test_interrupt_and_background(results: dict[str, Any]) -> None:
    interrupt = results["figures"]["interrupt_postgres"]
    assert "skipped" not in interrupt, interrupt.get("skipped")
    check_stat(interrupt["plain"])
    check_stat(interrupt["round_trip"])
    assert interrupt["pause_p50_ms"] > 0 and interrupt["resume_p50_ms"] > 0
    assert math.isclose(
        interrupt["ratio"],
        interrupt["round_trip"]["p50_ms"] / interrupt["plain"]["p50_ms"],
    )
    # The floor: LangGraph's own saver doing the same pause and resume in process.
    check_stat(interrupt["floor"])
    assert interrupt["floor_pause_p50_ms"] > 0 and interrupt["floor_resume_p50_ms"] > 0
    assert interrupt["floor"]["cpu_ms"] > 0 and interrupt["round_trip"]["cpu_ms"] > 0
    assert math.isclose(
        interrupt["vs_floor"],
        interrupt["round_trip"]["p50_ms"] / interrupt["floor"]["p50_ms"],
    )
    assert math.isclose(
        interrupt["floor_ratio"],
        interrupt["floor"]["p50_ms"] / interrupt["plain"]["p50_ms"],
    )
    check_stat(interrupt["direct_plain"])
    http = interrupt["plain"]["p50_ms"] - interrupt["direct_plain"]["p50_ms"]
    assert math.isclose(
        interrupt["floor_http_ms"], interrupt["floor"]["p50_ms"] + 2 * http
    )
    assert math.isclose(
        interrupt["vs_floor_http"],
        interrupt["round_trip"]["p50_ms"] / interrupt["floor_http_ms"],
    )
    for name, key in (
        ("interrupt_round_trip_vs_floor_http", "vs_floor_http"),
        ("interrupt_round_trip_vs_plain", "ratio"),
        ("interrupt_round_trip_vs_floor", "vs_floor"),
        ("interrupt_floor_vs_plain", "floor_ratio"),
    ):
        assert results["ratios"][name]["value"] == interrupt[key]
    assert results["ratios"]["interrupt_round_trip_vs_plain"]["target"] == "<= 2.00"
    assert "interrupt floor" in results["stdout"]
    background = results["figures"]["background"]
    memory = background["memory"]
    check_stat(memory["plain"])
    check_stat(memory["completed"])
    assert 0 < memory["submit_p50_ms"] <= memory["completed"]["p99_ms"]
    assert results["ratios"]["background_memory_vs_plain"]["value"] == memory["ratio"]
    # Hatchet only runs with --hatchet and an engine; the reason is given.
    assert "--hatchet" in background["hatchet"]["skipped"]


def test_cost_as_work_grows(results: dict[str, Any]) -> None:
    figures = results["figures"]
    sizes = figures["graph_size"]
    assert list(sizes) == ["1", "10"]
    for data in sizes.values():
        check_stat(data["direct"])
        check_stat(data["responses"])
        assert math.isclose(data["ratio"], data["responses"]["rate"] / data["floor"])
    lengths = figures["conversation"]
    assert list(lengths) == ["1", "100"]
    assert lengths["100"]["body_bytes"] > 50 * lengths["1"]["body_bytes"]
    for data in lengths.values():
        for name in ("direct", "bare", "bare_graph", "responses"):
            check_stat(data[name])
        expected = 1 / (1 / data["direct"]["rate"] + 1 / data["bare"]["rate"])
        assert math.isclose(data["floor"], expected)
        assert math.isclose(
            data["vs_bare_graph"],
            data["responses"]["rate"] / data["bare_graph"]["rate"],
        )
    streams = figures["concurrent_streams"]
    assert list(streams) == ["1", "20"]
    for level, data in streams.items():
        check_stat(data, int(level))
        assert math.isclose(data["chunks_per_s"], 200 * data["rate"])


def test_memory(results: dict[str, Any]) -> None:
    memory = results["figures"]["memory"]
    idle = memory["idle_streams"]
    assert idle["streams"] == 20
    assert idle["rss_before_mb"] > 0
    assert idle["rss_open_mb"] > 0
    growth = memory["growth"]
    assert growth["requests"] == 500
    assert len(growth["samples_mb"]) == 11 and min(growth["samples_mb"]) > 0
    assert math.isclose(
        growth["growth_per_1000_mb"],
        1000 * (growth["samples_mb"][-1] - growth["samples_mb"][0]) / 500,
    )


def test_table_renders_a_partial_run(results: dict[str, Any]) -> None:
    # What --only produces: the floors plus a subset of the groups.
    partial = {**results, "figures": {"floors": results["figures"]["floors"]}}
    partial["ratios"] = {}
    text = table(partial)
    assert "direct_c16" in text and "stream" not in text


def test_only_rejects_unknown_groups(capsys: pytest.CaptureFixture[str]) -> None:
    assert parser().parse_args(["--only", "stream,memory"]).only == ["stream", "memory"]
    assert parser().parse_args([]).only == list(GROUPS)
    with pytest.raises(SystemExit):
        parser().parse_args(["--only", "streem"])
    assert "unknown group(s) streem" in capsys.readouterr().err
