"""The files of a graded round robin: leaderboard (CSV and Markdown), matrices, heatmap, JSON.

:func:`write_outputs` writes every file of a :class:`~teamleduc.standings.GradeResult` into one
folder, each through a temporary file renamed into place. Floats are written as their shortest
round-trip decimal, so the files are byte-identical for the same result.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from . import __version__
from .infosets import write_text_atomic
from .standings import LEADERBOARD_COLUMNS, GradeResult, format_value


def _csv_text(rows: Iterable[Sequence]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow(
            [
                ""
                if (isinstance(v, (float, np.floating)) and not np.isfinite(v))
                else (repr(float(v)) if isinstance(v, (float, np.floating)) else v)
                for v in r
            ]
        )
    return buf.getvalue()


def _md_cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def leaderboard_markdown(result: GradeResult) -> str:
    """The leaderboard as a markdown table, then the invalid submissions."""
    n = len(result.names)
    lines = [
        f"# Leaderboard ({result.preset})",
        "",
        f"{n} entrant{'s' * (n != 1)}, every pair played in both seatings; exact expected team "
        "utility in chips per hand. Score = mean over opponents of the mean of the two team "
        "utilities of a match; worst match = the lowest such match score. Worst case as A / "
        "as B = the value the entrant guarantees against an exact best correlated response "
        "of the other team.",
        "",
        "| rank | name | path | mean score | mean as team A | mean as team B | worst match "
        "| signals | worst case as A | worst case as B |",
        "|---:|:---|:---|---:|---:|---:|:---|---:|---:|---:|",
    ]
    for s in result.standings:
        worst = (
            "-"
            if not np.isfinite(s.worst_match)
            else f"{s.worst_match:+.4f} vs {_md_cell(s.worst_opponent)}"
        )
        lines.append(
            f"| {s.rank} | {_md_cell(s.name)} | {_md_cell(s.source)} | "
            f"{format_value(s.mean_score, 0)} | "
            f"{format_value(s.mean_as_team_a, 0)} | {format_value(s.mean_as_team_b, 0)} | {worst} | {s.signals} | "
            f"{format_value(s.worst_case_as_team_a, 0)} | {format_value(s.worst_case_as_team_b, 0)} |"
        )
    if result.invalid:
        lines += [
            "",
            f"## Invalid submissions ({len(result.invalid)}, not graded)",
            "",
            "| name | path | first problem |",
            "|:---|:---|:---|",
        ]
        for b in result.invalid:
            lines.append(f"| {_md_cell(b.name)} | {_md_cell(b.source)} | {_md_cell(b.message)} |")
    lines += ["", f"teamleduc {__version__}, preset {result.preset}.", ""]
    return "\n".join(lines)


def write_heatmap(result: GradeResult, path: str | os.PathLike[str]) -> Path:
    """PNG heatmap of the match scores S[row, column], entrants in leaderboard order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = result.order()
    n = len(order)
    names = [result.names[i] for i in order]
    s = result.scores[np.ix_(order, order)] if n else np.zeros((0, 0))
    m = s.copy()
    np.fill_diagonal(m, np.nan)
    lim = float(np.nanmax(np.abs(m))) if n > 1 and np.isfinite(m).any() else 1.0
    lim = lim if lim > 0 else 1.0
    size = max(4.0, min(24.0, 1.0 + 0.45 * n))
    fig, ax = plt.subplots(figsize=(size + 1.5, size), dpi=100)
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#dddddd")
    im = ax.imshow(m, cmap=cmap, vmin=-lim, vmax=lim, interpolation="nearest")
    ax.set_xticks(range(n), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), names, fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_ylabel("entrant (row's score)")
    ax.set_title(f"Match scores, chips per hand ({result.preset})")
    if n <= 25:
        for i in range(n):
            for j in range(n):
                if i != j:
                    ax.text(
                        j,
                        i,
                        f"{m[i, j]:+.2f}",
                        ha="center",
                        va="center",
                        fontsize=6,
                        color="white" if abs(m[i, j]) > 0.6 * lim else "black",
                    )
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="row's score against column")
    fig.tight_layout()
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, format="png", metadata={"Software": None})
    plt.close(fig)
    tmp.replace(path)
    return path


def write_outputs(
    result: GradeResult, out_dir: str | os.PathLike[str], heatmap: bool = True
) -> list[Path]:
    """Write the grading files into ``out_dir`` (created if needed); returns their paths.

    ``leaderboard.csv`` / ``.md``, ``matrix.csv`` (S[row, column], leaderboard order, empty
    diagonal), ``values.csv`` (team A's value for every ordered pair), ``invalid.csv``,
    ``grade.json`` and, unless ``heatmap`` is false, ``matrix.png``.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    order = result.order()
    names = [result.names[i] for i in order]
    S = result.scores
    files = {
        "leaderboard.csv": _csv_text([LEADERBOARD_COLUMNS] + [s.row() for s in result.standings]),
        "leaderboard.md": leaderboard_markdown(result),
        "matrix.csv": _csv_text(
            [["entrant"] + names]
            + [
                [result.names[i]] + [S[i, j] if i != j else float("nan") for j in order]
                for i in order
            ]
        ),
        "values.csv": _csv_text(
            [("team_a", "team_b", "value_team_a")]
            + [
                (result.names[i], result.names[j], result.values[i, j])
                for i in order
                for j in order
                if i != j
            ]
        ),
        "invalid.csv": _csv_text(
            [("name", "path", "message")] + [(b.name, b.source, b.message) for b in result.invalid]
        ),
        "grade.json": json.dumps(result.to_dict(), indent=2) + "\n",
    }
    paths = []
    for name, text in files.items():
        write_text_atomic(out / name, text)
        paths.append(out / name)
    if heatmap:
        paths.append(write_heatmap(result, out / "matrix.png"))
    return paths
