"""The concurrent-streams ratios carry issue 22's targets at the right levels."""

from __future__ import annotations

from typing import Any

from bench.report import ratios
from bench.streams import streams_ratios, streams_rows


def _figure(chunks_per_s: float, first_p50_ms: float) -> dict[str, Any]:
    return {
        "rate": chunks_per_s / 200,
        "chunks_per_s": chunks_per_s,
        "p50_ms": 2 * first_p50_ms,
        "first_p50_ms": first_p50_ms,
    }


def _level(lgos: tuple[float, float], astream: tuple[float, float]) -> dict[str, Any]:
    return {
        **_figure(*lgos),
        "floors": {"astream": _figure(*astream), "bare_stream": _figure(*lgos)},
    }


FIGURES = {
    "floors": {},
    "concurrent_streams": {
        "1": _level((40_000, 5.0), (36_000, 4.0)),
        "100": _level((36_000, 500.0), (30_000, 400.0)),
        "500": _level((34_000, 2500.0), (30_000, 2400.0)),
    },
}


def test_targets_sit_at_500_and_100_streams() -> None:
    out = streams_ratios(FIGURES)
    value, target, _ = out["streams_c500_chunks_vs_c1"]
    assert (value, target) == (34_000 / 40_000, ">= 0.90")
    assert out["streams_c100_chunks_vs_c1"][1] is None
    value, target, _ = out["streams_c100_first_delta_vs_astream"]
    assert (value, target) == (500 / 400, "<= 1.30")
    assert out["streams_c500_first_delta_vs_astream"][1] is None
    assert out["streams_c1_first_delta_vs_bare_stream"][0] == 1.0
    # The floors' own scaling: only at the highest level.
    assert out["streams_c500_astream_chunks_vs_c1"][0] == 30_000 / 36_000
    assert "streams_c100_astream_chunks_vs_c1" not in out


def test_verdicts_in_the_report() -> None:
    out = ratios(FIGURES)
    assert out["streams_c500_chunks_vs_c1"]["meets"] is False  # 0.85
    assert out["streams_c100_first_delta_vs_astream"]["meets"] is True  # 1.25


def test_results_without_floors_or_the_figure() -> None:
    old = {"1": _figure(40_000, 5.0), "500": _figure(36_000, 2500.0)}
    out = streams_ratios({"concurrent_streams": old})
    assert list(out) == ["streams_c500_chunks_vs_c1"]
    assert streams_ratios({"floors": {}}) == {}
    rows = streams_rows({"concurrent_streams": old})
    assert [row[:2] for row in rows[1:]] == [("1", "responses"), ("500", "responses")]
    assert streams_rows({}) == []
