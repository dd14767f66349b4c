"""The measured-figures writer (benchmarks/figures.py): a run replaces its own section of the
page and nothing else; a new command's section joins its benchmark's group. No benchmark runs."""

from __future__ import annotations

import io
import os
import sys

import pytest

from benchmarks import __main__ as runner
from benchmarks import figures

PAGE = """# Measured figures

Hand-written text stays.

## The solver

<!-- figures solver: python -m benchmarks solver -->
#### `python -m benchmarks solver`

2026-11-25; 2 CPUs

```text
old solver table
```
<!-- /figures -->

## Grading

<!-- figures grade_scale: python -m benchmarks grade_scale -->
old grading
<!-- /figures -->

Closing words.
"""


def test_the_command_holds_the_benchmark_settings_only():
    env = {"BENCH_SOLVER_PRESETS": "leduc", "TEAMLEDUC_BENCH_DIR": "/d", "HOME": "/h"}
    env["BENCH_FIGURES"] = "1"
    assert figures.command_line("solver", env) == (
        "BENCH_SOLVER_PRESETS=leduc TEAMLEDUC_BENCH_DIR=/d python -m benchmarks solver"
    )
    assert figures.command_line("game", {}) == "python -m benchmarks game"


def test_a_run_replaces_its_own_section_and_nothing_else(tmp_path):
    page = tmp_path / "measured-figures.md"
    page.write_text(PAGE, encoding="utf-8")
    figures.write_section(
        "solver", "new table\nrow 2\n", command="python -m benchmarks solver",
        date="2026-12-01", where="4 CPUs", seconds=61.2, page=page,
    )  # fmt: skip
    text = page.read_text(encoding="utf-8")
    assert "old solver table" not in text
    assert "```text\nnew table\nrow 2\n```" in text
    assert "2026-12-01; 4 CPUs; 61 s" in text
    # everything else as it was, byte for byte
    before, after = PAGE.split("<!-- figures solver")[0], PAGE.split("<!-- /figures -->", 1)[1]
    assert text.startswith(before)
    assert text.endswith(after)
    assert text.count("<!-- /figures -->") == 2
    # the same run again gives the same page
    figures.write_section(
        "solver", "new table\nrow 2\n", command="python -m benchmarks solver",
        date="2026-12-01", where="4 CPUs", seconds=61.2, page=page,
    )  # fmt: skip
    assert page.read_text(encoding="utf-8") == text


def test_a_new_command_joins_its_benchmark_or_goes_last(tmp_path):
    page = tmp_path / "measured-figures.md"
    page.write_text(PAGE, encoding="utf-8")
    leduc = "BENCH_SOLVER_PRESETS=leduc python -m benchmarks solver"
    figures.write_section("solver", "leduc only", command=leduc, date="d", where="w", page=page)
    figures.write_section("envs", "steps/s", command="python -m benchmarks envs",
                          date="d", where="w", page=page)  # fmt: skip
    lines = page.read_text(encoding="utf-8").splitlines()
    found = figures.sections(lines)
    assert [(s.name, s.command) for s in found] == [
        ("solver", "python -m benchmarks solver"),
        ("solver", leduc),
        ("grade_scale", "python -m benchmarks grade_scale"),
        ("envs", "python -m benchmarks envs"),
    ]
    assert "old solver table" in "\n".join(lines)  # the default run's section is kept
    assert found[1].start < lines.index("## Grading") < found[2].start
    assert lines.index("Closing words.") < found[3].start


def test_the_runner_keeps_what_a_benchmark_prints(tmp_path, monkeypatch):
    page = tmp_path / "measured-figures.md"
    page.write_text("# Measured figures\n", encoding="utf-8")

    class Fake:
        @staticmethod
        def main():
            print("42 hands/s")

    monkeypatch.setitem(sys.modules, "benchmarks.bench_fake", Fake)
    monkeypatch.setattr(figures, "PAGE", page)
    for key in [k for k in os.environ if "BENCH_" in k]:
        monkeypatch.delenv(key)
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdout", shown)
    runner.run("bench_fake", record=True)
    assert shown.getvalue() == "42 hands/s\n"  # the terminal still sees the output
    text = page.read_text(encoding="utf-8")
    assert "<!-- figures fake: python -m benchmarks fake -->" in text
    assert "```text\n42 hands/s\n```" in text
    assert "python -m benchmarks fake" in figures.listing(page)


def test_the_next_benchmark_starts_with_numbas_thread_count(monkeypatch):
    """A benchmark that sets numba's thread count (roofline, refinement, ...) leaves the next
    one in ``python -m benchmarks`` the default, even when it fails."""
    import numba

    class Sets:
        @staticmethod
        def main():
            numba.set_num_threads(1)
            raise SystemExit("stopped")

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread in numba's pool: nothing to restore")
    monkeypatch.setitem(sys.modules, "benchmarks.bench_sets", Sets)
    before = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        with pytest.raises(SystemExit):
            runner.run("bench_sets", record=False)
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
    finally:
        numba.set_num_threads(before)


def test_the_documentation_page_has_well_formed_sections():
    text = figures.PAGE.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = figures.sections(lines)
    assert found, "docs/measured-figures.md has no benchmark section"
    assert len(found) == text.count(figures.END)  # every section is closed
    assert len({s.command for s in found}) == len(found)  # one section per command
    for s in found:
        assert s.command.endswith(f"python -m benchmarks {s.name}"), s.command
