"""Pictures people can read: the heatmap from 3 to 100 entrants, leaderboard.html, and the
convergence plot's target gap and refinement start."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest

from teamleduc.leaderboard import (
    MAX_VALUES_SHOWN,
    heatmap_layout,
    leaderboard_html,
    write_heatmap,
    write_outputs,
)
from teamleduc.solver.measurement import Measurement
from teamleduc.solver.report import plot_convergence, refinement_start
from teamleduc.standings import GradeResult, InvalidEntry


def result_of(n, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, n))
    names = tuple(f"<e{i}>" if i == 0 else f"entrant-{i}" for i in range(n))
    sources = tuple(f"subs/{i}.zip" for i in range(n))
    signals = (1,) * n
    invalid = (InvalidEntry("bad & broken", "subs/bad", "x < y"),)
    return GradeResult.ranked("kuhn", names, sources, signals, values, invalid=invalid)


def test_the_layout_follows_the_number_of_entrants():
    layouts = {n: heatmap_layout(n) for n in (3, 10, 30, 31, 100)}
    sizes = [layouts[n]["size"] for n in (3, 10, 30, 100)]
    assert sizes == sorted(sizes) and sizes[0] >= 5 and sizes[-1] == 30
    fonts = [layouts[n]["value_font"] for n in (3, 10, 30)]
    assert fonts == sorted(fonts, reverse=True) and min(fonts) >= 5 and max(fonts) <= 11
    assert layouts[30]["values"] and not layouts[31]["values"] and MAX_VALUES_SHOWN == 30
    # a value like "+0.12" fits its cell wherever values are written: 5 characters of about
    # 0.6 em each within the cell's width
    for n in range(3, MAX_VALUES_SHOWN + 1):
        lay = heatmap_layout(n)
        cell = 72 * 0.8 * lay["size"] / n
        assert 5 * 0.6 * lay["value_font"] <= cell
    assert heatmap_layout(100)["label_font"] >= 5


def test_names_never_overlap_and_all_are_shown_while_they_fit():
    """A name's line (1.2 times its font) fits between two named rows; every entrant is named
    up to 200 (a class), one in k beyond (1,000 entrants: one in 4)."""
    for n in range(1, 3001):
        lay = heatmap_layout(n)
        cell = 72 * 0.8 * lay["size"] / n
        assert lay["label_every"] * cell >= 1.2 * lay["label_font"] - 1e-9
        assert (lay["label_every"] - 1) * cell < 1.2 * lay["label_font"]  # no more sparse
    assert all(heatmap_layout(n)["label_every"] == 1 for n in range(1, 201))
    assert heatmap_layout(1000)["label_every"] == 4


def test_a_heatmap_of_1000_names_one_in_four_with_its_rank(tmp_path, monkeypatch):
    import matplotlib.axes

    ticks = []
    original = matplotlib.axes.Axes.set_yticks
    monkeypatch.setattr(
        matplotlib.axes.Axes,
        "set_yticks",
        lambda self, t, labels=None, **k: (
            ticks.append(list(labels)) or original(self, t, labels, **k)
        ),
    )
    result = result_of(1000)
    write_heatmap(result, tmp_path / "m.png")
    (labels,) = ticks
    order = result.order()
    assert len(labels) == 250
    assert labels[:2] == [f"1. {result.names[order[0]]}", f"5. {result.names[order[4]]}"]


@pytest.mark.parametrize("n", [3, 100])
def test_heatmaps_of_3_and_100_entrants(tmp_path, monkeypatch, n):
    import matplotlib.axes

    texts = []
    original = matplotlib.axes.Axes.text
    monkeypatch.setattr(
        matplotlib.axes.Axes,
        "text",
        lambda self, *a, **k: texts.append(k.get("fontsize")) or original(self, *a, **k),
    )
    path = write_heatmap(result_of(n), tmp_path / "m.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if n == 3:
        assert len(texts) == 6 and set(texts) == {heatmap_layout(3)["value_font"]}
    else:
        assert texts == []  # values hidden; the colour bar reads them


def test_leaderboard_html_is_one_self_contained_page(tmp_path):
    result = result_of(4)
    paths = write_outputs(result, tmp_path)
    assert tmp_path / "leaderboard.html" in paths
    html = (tmp_path / "leaderboard.html").read_text()
    png = (tmp_path / "matrix.png").read_bytes()
    embedded = re.search(r'src="data:image/png;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(embedded) == png
    assert "http" not in html.replace("data:image", "") and "<script" not in html
    assert "&lt;e0&gt;" in html and "<e0>" not in html  # names escaped
    assert "bad &amp; broken" in html and "x &lt; y" in html
    for s in result.standings:
        assert f"<td>{s.source}</td>" in html
    assert html.index(result.standings[0].source) < html.index(result.standings[1].source)
    assert "base64" not in leaderboard_html(result, None)


def test_the_convergence_plot_marks_the_target_and_the_refinement(tmp_path, monkeypatch):
    import matplotlib.axes

    lines = []
    for kind in ("axhline", "axvline"):
        original = getattr(matplotlib.axes.Axes, kind)

        def record(self, x, *a, _kind=kind, _orig=original, **k):
            lines.append((_kind, x, k.get("label")))
            return _orig(self, x, *a, **k)

        monkeypatch.setattr(matplotlib.axes.Axes, kind, record)
    history = [
        Measurement(10, 0.5, -0.1, 0.2, "average"),
        Measurement(20, 1.0, -0.05, 0.05, "export"),
        Measurement(30, 2.5, -0.01, 0.01, "refine"),
        Measurement(40, 4.0, -0.001, 0.001, "refine"),
    ]
    assert refinement_start(history) == 2.5
    assert refinement_start(history[:2]) is None
    plot_convergence(history, tmp_path / "c.png", "t", target_gap=1e-3)
    assert ("axhline", 1e-3, "target gap 0.001") in lines
    assert ("axvline", 2.5, "refinement starts (2.5 s)") in lines
    lines.clear()
    plot_convergence(history[:2], tmp_path / "d.png", "t")
    assert lines == [] and (tmp_path / "d.png").read_bytes()[:4] == b"\x89PNG"


def test_the_convergence_plot_is_byte_reproducible(tmp_path):
    """No matplotlib version in the PNG and no temporary file left: two runs, the same bytes."""
    history = [
        Measurement(10, 0.5, -0.1, 0.2, "average"),
        Measurement(20, 1.0, -0.05, 0.05, "export"),
    ]
    first = plot_convergence(history, tmp_path / "a" / "c.png", "t", target_gap=1e-3)
    second = plot_convergence(history, tmp_path / "b" / "c.png", "t", target_gap=1e-3)
    assert first.read_bytes() == second.read_bytes()
    assert b"matplotlib" not in first.read_bytes()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["c.png"]
