"""The peak tracer (benchmarks/peak_trace.py): it runs a teamleduc command in this process,
passes its exit code on, notes a rise of the peak where the main thread made it, and reports
the last rises and the MiB of rises by call site. No figure is checked, only attribution."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from benchmarks import peak_trace
from teamleduc.peak_memory import peak_resident_bytes

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="VmHWM is Linux's")


def test_a_rise_is_noted_at_the_line_that_made_it(monkeypatch):
    """A command that touches 64 MiB more than the process's peak so far is seen rising
    inside that command's own function."""
    import teamleduc.cli

    def command(argv):
        big = np.ones((peak_resident_bytes() + (64 << 20)) // 8)  # touched: resident
        deadline = time.perf_counter() + 0.2
        while time.perf_counter() < deadline:  # Python lines, so the watcher gets its turn
            big[0] += 1.0
        raise SystemExit(3)

    monkeypatch.setattr(teamleduc.cli, "main", command)
    rises, code = peak_trace.trace(["anything"])
    assert code == 3
    assert any("test_peak_trace.py" in site and "command" in site for _, _, site in rises)


def test_the_report_names_the_last_rises_and_the_sites():
    rises = [(0.1, 100, "a.py:1:f"), (0.2, 140, "b.py:2:g"), (0.3, 150, "b.py:2:g")]
    text = peak_trace.report(rises, top=2)
    assert text.splitlines()[0].startswith("peak 150 MiB")
    assert "     50 MiB  b.py:2:g" in text
    assert peak_trace.report([]) == "the peak never rose by 8 MiB"


def test_without_a_command_it_prints_its_use(capsys):
    assert peak_trace.main([]) == 2
    assert "python -m benchmarks.peak_trace" in capsys.readouterr().out
    assert peak_trace.main(["--top"]) == 2
    assert peak_trace.main(["--top", "x", "--", "--version"]) == 2
    assert "--top needs a number" in capsys.readouterr().err
