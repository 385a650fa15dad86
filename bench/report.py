"""Target ratios and the printed tables of a benchmark run (``bench.json``)."""

from __future__ import annotations

from typing import Any

from bench.harness import ROOT
from bench.scaling import scaling_ratios, scaling_rows
from bench.streams import streams_ratios, streams_rows


def _ratio(
    value: float, target: str | None, definition: str
) -> dict[str, float | str | bool | None]:
    meets = None
    if target is not None:
        bound = float(target.split()[1])
        meets = value >= bound if target.startswith(">=") else value <= bound
    return {"value": value, "target": target, "meets": meets, "definition": definition}


def ratios(figures: dict[str, Any]) -> dict[str, Any]:
    """Compute the target ratios of the figures present (value, target, verdict)."""
    out: dict[str, Any] = {}
    floors = figures["floors"]
    if "requests" in figures:
        for name in ("responses", "chat"):
            for suffix, floor_key in (("c1", "floor"), ("c16", "floor_c16")):
                out[f"{name}_{suffix}_vs_floor"] = _ratio(
                    figures["requests"][f"{name}_{suffix}"]["rate"] / floors[floor_key],
                    ">= 0.90",
                    f"{name} rate at {suffix} / 1/(1/direct + 1/bare) at {suffix}",
                )
    for name, data in figures.get("requests", {}).items():
        suffix = name.rpartition("_")[2]
        direct = floors["direct" if suffix == "c1" else f"direct_{suffix}"]
        bare = floors["bare" if suffix == "c1" else f"bare_{suffix}"]
        if "cpu_ms" not in data or "cpu_ms" not in bare:
            continue
        if name.startswith(("runner", "bare_graph")):
            continue
        out[f"{name}_cpu_floor_share"] = _ratio(
            (direct["cpu_ms"] + bare["cpu_ms"]) / data["cpu_ms"],
            None,
            f"(direct CPU + bare server CPU) / LGOS server CPU, per request, {suffix}",
        )
    for suffix in ("c1", "c16"):
        requests = figures.get("requests", {})
        if f"bare_graph_{suffix}" not in requests:
            continue
        for name in ("responses", "chat"):
            out[f"{name}_{suffix}_vs_bare_graph"] = _ratio(
                requests[f"{name}_{suffix}"]["rate"]
                / requests[f"bare_graph_{suffix}"]["rate"],
                None,
                f"{name} rate / a plain route running the graph with ainvoke, {suffix}",
            )
    if "runner_c1" in figures.get("requests", {}):
        out["runner_c1_vs_direct"] = _ratio(
            figures["requests"]["runner_c1"]["rate"] / floors["direct"]["rate"],
            None,
            "in-process run_langgraph rate / graph.ainvoke rate (no HTTP)",
        )
    if "stream" in figures:
        stream = figures["stream"]
        graph_time = stream["astream"]["p50_ms"] + floors["bare"]["p50_ms"]
        graph_first = stream["astream"]["first_p50_ms"] + floors["bare"]["p50_ms"]
        for name in ("responses", "chat"):
            out[f"stream_{name}_total_vs_astream_bare"] = _ratio(
                stream[name]["p50_ms"] / graph_time,
                "<= 1.30",
                f"{name} stream total p50 / (astream p50 + bare p50)",
            )
            if "cpu_ms" in stream[name] and "cpu_ms" in floors["bare"]:
                out[f"stream_{name}_cpu_vs_astream_bare"] = _ratio(
                    stream[name]["cpu_ms"]
                    / (stream["astream"]["cpu_ms"] + floors["bare"]["cpu_ms"]),
                    None,
                    f"LGOS server CPU per {name} stream / (astream CPU + bare CPU)",
                )
            out[f"stream_{name}_first_delta_vs_astream_bare"] = _ratio(
                stream[name]["first_p50_ms"] / graph_first,
                None,
                f"{name} first text delta p50 / (astream first chunk p50 + bare p50)",
            )
    interrupt = figures.get("interrupt_postgres", {})
    if "ratio" in interrupt:
        out["interrupt_round_trip_vs_plain"] = _ratio(
            interrupt["ratio"], "<= 2.00", "pause + resume p50 / plain request p50"
        )
    floor = "in-process AsyncPostgresSaver pause + resume p50"  # older results: none
    for name, key, text in (
        ("round_trip_vs_floor", "vs_floor", f"LGOS / {floor}"),
        ("floor_vs_plain", "floor_ratio", f"{floor} / plain"),
        ("round_trip_vs_floor_http", "vs_floor_http", "LGOS / (floor + 2 × HTTP)"),
    ):
        if key in interrupt:
            out[f"interrupt_{name}"] = _ratio(interrupt[key], None, text)
    for engine, data in figures.get("background", {}).items():
        if "ratio" in data:
            out[f"background_{engine}_vs_plain"] = _ratio(
                data["ratio"], None, "submit → completed p50 / plain request p50"
            )
    out |= {name: _ratio(*spec) for name, spec in streams_ratios(figures).items()}
    out |= {name: _ratio(*spec) for name, spec in scaling_ratios(figures).items()}
    out |= _hatchet_ratios(figures)
    return out


def _hatchet_ratios(figures: dict[str, Any]) -> dict[str, Any]:
    """Background on Hatchet against the engine floor (the SDK alone)."""
    data = figures.get("background", {}).get("hatchet", {})
    if "vs_floor_p99" not in data:
        return {}
    floor = f"Hatchet SDK no-op task {data['floor'].removeprefix('floor_')} floor"
    return {
        "background_hatchet_p99_vs_engine_floor": _ratio(
            data["vs_floor_p99"], "<= 2.00", f"submit → completed p99 / {floor} p99"
        ),
        "background_hatchet_p50_vs_engine_floor": _ratio(
            data["vs_floor_p50"], None, f"submit → completed p50 / {floor} p50"
        ),
    }


def _rows(rows: list[tuple[str, ...]]) -> list[str]:
    width = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width[i]) for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]


def _stat(name: str, data: dict[str, Any], extra: str = "") -> tuple[str, ...]:
    cpu = data.get("cpu_ms")
    return (
        name,
        str(data["concurrency"]),
        f"{data['rate']:.0f}",
        f"{data['p50_ms']:.2f}",
        f"{data['p99_ms']:.2f}",
        "" if cpu is None else f"{cpu:.3f}",
        extra,
    )


HEADER = ("figure", "conc", "req/s", "p50 ms", "p99 ms", "cpu ms", "")


def _stat_rows(figures: dict[str, Any], quote: str = "") -> list[tuple[str, ...]]:
    """Return the floor, request and stream figures as rows (names in ``quote``)."""
    rows: list[tuple[str, ...]] = []
    floors = figures["floors"]
    for key in ("direct", "bare", "direct_c16", "bare_c16"):
        rows.append(_stat(f"{quote}{key}{quote}", floors[key]))
    for key, data in figures.get("requests", {}).items():
        rows.append(_stat(f"{quote}{key}{quote}", data))
    stream = figures.get("stream")
    if stream:
        for key in ("astream", "astream_lgos_modes", "responses", "chat"):
            first = f"first text {stream[key]['first_p50_ms']:.2f} ms"
            rows.append(_stat(f"{quote}stream {key}{quote}", stream[key], first))
    return rows


def _throughput(figures: dict[str, Any]) -> list[str]:
    floors = figures["floors"]
    lines = _rows([HEADER, *_stat_rows(figures)])
    lines.append(
        f"floor c1 = {floors['floor']:.0f} req/s, "
        f"floor c16 = {floors['floor_c16']:.0f} req/s  (1/(1/direct + 1/bare))"
    )
    return lines


def _lifecycle(figures: dict[str, Any]) -> list[str]:
    rows: list[tuple[str, ...]] = [HEADER]
    notes: list[str] = []
    interrupt = figures.get("interrupt_postgres")
    if interrupt is not None and "skipped" in interrupt:
        notes.append(f"interrupt (PostgreSQL): skipped — {interrupt['skipped']}")
    elif interrupt is not None:
        rows.append(_stat("interrupt plain", interrupt["plain"]))
        for name, key, prefix in (
            ("pause→resume", "round_trip", ""),
            ("floor", "floor", "floor_"),
        ):
            if key in interrupt:
                pause, resume = (
                    interrupt[f"{prefix}{leg}_p50_ms"] for leg in ("pause", "resume")
                )
                legs = f"pause {pause:.2f} + resume {resume:.2f} ms"
                rows.append(_stat(f"interrupt {name}", interrupt[key], legs))
        if "direct_plain" in interrupt:
            http = f"floor + 2 × HTTP = {interrupt['floor_http_ms']:.2f} ms"
            rows.append(
                _stat("interrupt direct plain", interrupt["direct_plain"], http)
            )
    for engine, data in figures.get("background", {}).items():
        if "skipped" in data:
            notes.append(f"background ({engine}): skipped — {data['skipped']}")
            continue
        rows.append(_stat(f"background {engine} plain", data["plain"]))
        submit = f"submit {data['submit_p50_ms']:.2f} ms"
        rows.append(_stat(f"background {engine} →done", data["completed"], submit))
    return ([*_rows(rows)] if len(rows) > 1 else []) + notes


def _scaling(figures: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    sizes = figures.get("graph_size")
    if sizes:
        rows: list[tuple[str, ...]] = [
            ("nodes", "direct/s", "lgos/s", "floor/s", "lgos/floor")
        ]
        for size, data in sizes.items():
            rows.append(
                (
                    size,
                    f"{data['direct']['rate']:.0f}",
                    f"{data['responses']['rate']:.0f}",
                    f"{data['floor']:.0f}",
                    f"{data['ratio']:.2f}",
                )
            )
        lines += ["", *_rows(rows)]
    lengths = figures.get("conversation")
    if lengths:
        header = "messages direct/s bare/s bare_graph/s lgos/s floor/s lgos/floor"
        rows = [(*header.split(), "lgos/bare_graph")]
        for length, data in lengths.items():
            graph = data.get("bare_graph")  # none in results from before it
            rows.append(
                (
                    length,
                    *(f"{data[name]['rate']:.0f}" for name in ("direct", "bare")),
                    f"{graph['rate']:.0f}" if graph else "–",
                    f"{data['responses']['rate']:.0f}",
                    f"{data['floor']:.0f}",
                    f"{data['ratio']:.2f}",
                    f"{data['vs_bare_graph']:.2f}" if graph else "–",
                )
            )
        lines += ["", *_rows(rows)]
    if streams := streams_rows(figures):
        lines += ["", *_rows(streams)]
    return lines


def _hatchet_floor(figures: dict[str, Any]) -> list[str]:
    """Render the Hatchet engine floor beside LGOS's background figure."""
    data = figures.get("background", {}).get("hatchet", {})
    if "floor" not in data:
        return []
    rows: list[tuple[str, ...]] = [HEADER]
    rows.append(_stat("background hatchet →done", data["completed"]))
    for name, how in (("rest", "poll REST"), ("listen", "SDK result wait")):
        note = "the floor" if data["floor"] == f"floor_{name}" else ""
        rows.append(_stat(f"engine floor ({how})", data[f"floor_{name}"], note))
    return ["", *_rows(rows)]


def _workers(figures: dict[str, Any]) -> list[str]:
    rows, notes = scaling_rows(figures)
    return ["", *_rows(rows), *notes] if rows else []


def _memory(figures: dict[str, Any]) -> list[str]:
    data = figures.get("memory")
    if not data:
        return []
    idle, grow = data["idle_streams"], data["growth"]
    samples = ", ".join(f"{value:.0f}" for value in grow["samples_mb"])
    return [
        "",
        f"idle streams: {idle['streams']} open: RSS {idle['rss_before_mb']:.1f} → "
        f"{idle['rss_open_mb']:.1f} MiB ({idle['kb_per_stream']:.0f} KiB/stream), "
        f"{idle['rss_after_close_mb']:.1f} MiB after they closed",
        f"growth: {grow['requests']} requests after {grow['warmup_requests']} "
        f"warm-up: RSS {grow['rss_after_warmup_mb']:.1f} → "
        f"{grow['rss_end_mb']:.1f} MiB ({grow['growth_per_1000_mb']:+.3f} MiB/1000); "
        f"samples {samples}",
        *_paused_runs(data.get("paused_runs")),
    ]


def _paused_runs(data: dict[str, Any] | None) -> list[str]:
    """Render the paused-runs line of the memory figures (none before it existed)."""
    if not data:
        return []
    if "skipped" in data:
        return [f"paused runs (PostgreSQL): skipped — {data['skipped']}"]
    return [
        f"paused runs (PostgreSQL): {data['runs']} paused: RSS "
        f"{data['rss_before_mb']:.1f} → {data['rss_paused_mb']:.1f} MiB "
        f"({data['kb_per_paused_run']:.1f} KiB/run), {data['rss_resumed_mb']:.1f} "
        "MiB after they were resumed"
    ]


def _ratio_lines(ratios_: dict[str, Any]) -> list[str]:
    rows: list[tuple[str, ...]] = [("ratio", "value", "target", "meets")]
    for name, data in ratios_.items():
        verdict = {True: "yes", False: "NO", None: "-"}[data["meets"]]
        rows.append((name, f"{data['value']:.2f}", data["target"] or "-", verdict))
    return _rows(rows)


def table(results: dict[str, Any]) -> str:
    """Render the results as plain-text tables (throughput, ratios, the rest)."""
    figures = results["figures"]
    info = results["machine"]
    lines = [
        f"LGOS benchmark — {info['cpu_model']}, {info['logical_cores']} cores, "
        f"Python {info['python']}, {info['date']}",
        "",
        *_throughput(figures),
        "",
        *_ratio_lines(results["ratios"]),
    ]
    lifecycle = _lifecycle(figures)
    if lifecycle:
        lines += ["", *lifecycle]
    lines += _hatchet_floor(figures)
    lines += _scaling(figures) + _memory(figures) + _workers(figures)
    return "\n".join(lines)


def _md(rows: list[tuple[str, ...]]) -> list[str]:
    header, *body = rows
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
        *("| " + " | ".join(row) + " |" for row in body),
    ]


def markdown(results: dict[str, Any]) -> str:
    """Render the results as Markdown tables (for ``docs/benchmarks.md``)."""
    figures, info = results["figures"], results["machine"]
    floors = figures["floors"]
    packages = ", ".join(f"{k} {v}" for k, v in info["packages"].items() if v)
    out = [
        f"Measured {info['date']} on {info['cpu_model']} ({info['logical_cores']} "
        f"cores, {info['memory_gb']} GiB), Python {info['python']}, "
        f"commit `{info['git_commit']}`{' (uncommitted changes)' * info['git_dirty']}, "
        f"`--seconds {results['settings']['seconds']}`, load average at start "
        f"{info['load_average_at_start'][0]:.1f}. Packages: {packages}.",
        "",
    ]
    out += _md([(*HEADER[:-1], "note"), *_stat_rows(figures, quote="`")])
    out += [
        "",
        f"Floors: c1 {floors['floor']:.0f} req/s, c16 {floors['floor_c16']:.0f} req/s.",
        "",
    ]
    ratio_rows: list[tuple[str, ...]] = [("ratio", "value", "target", "meets")]
    for name, data in results["ratios"].items():
        verdict = {True: "yes", False: "**no**", None: "–"}[data["meets"]]
        ratio_rows.append(
            (f"`{name}`", f"{data['value']:.2f}", data["target"] or "–", verdict)
        )
    out += [*_md(ratio_rows), ""]
    for block in (
        _lifecycle(figures),
        _hatchet_floor(figures),
        _scaling(figures),
        _memory(figures),
        _workers(figures),
    ):
        text = "\n".join(block).strip("\n")
        if text:
            out += ["```text", text, "```", ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    import json
    import sys
    from pathlib import Path

    path = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".data" / "bench.json")
    print(markdown(json.loads(path.read_text())), end="")
