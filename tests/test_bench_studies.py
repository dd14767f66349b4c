"""The studies benchmark (benchmarks/bench_studies.py) runs to its end with one cfr:N count: it
once stopped at the cfr:N timings (a cache it cleared had moved), after the studies, so
``make bench`` ended there."""

from __future__ import annotations

from benchmarks import bench_studies


def test_the_studies_benchmark_runs_to_its_end(monkeypatch, capsys):
    monkeypatch.setenv("BENCH_STUDIES_CFR", "10")
    bench_studies.main()
    out = capsys.readouterr().out
    assert "study p2-advantage" in out and "study abstraction" in out
    assert "cfr:10 on kuhn-100" in out and "cfr:10 on leduc-stack50" in out
