"""The files of a graded round robin: leaderboard (CSV and Markdown), matrices, heatmap, JSON.

:func:`write_outputs` writes every file of a :class:`~teamleduc.standings.GradeResult` into one
folder, each through a temporary file renamed into place. Floats are written as their shortest
round-trip decimal, so the files are byte-identical for the same result.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from . import __version__
from .names import PICTURE_FONT, display_name, file_text, picture_label
from .outputs import save_png, staged_folder, write_text_atomic
from .standings import LEADERBOARD_COLUMNS, GradeResult, format_value


def _csv_field(value) -> str:
    """One CSV field: a float as its shortest round-trip decimal (empty when not finite), text
    exactly (:func:`teamleduc.names.file_text`), quoted when it holds ``,``, ``"``, CR or LF
    (the csv module leaves a lone CR unquoted when lines end in LF, and readers then split
    the row there)."""
    if isinstance(value, (float, np.floating)):
        return repr(float(value)) if np.isfinite(value) else ""
    text = file_text(str(value))
    if any(c in text for c in _CSV_SPECIAL):
        return '"' + text.replace('"', '""') + '"'
    return text


_CSV_SPECIAL = ',"\r\n'


def _csv_text(rows: Iterable[Sequence]) -> str:
    """Rows as CSV text, fields by :func:`_csv_field`, each line ending in LF."""
    return "".join(",".join(_csv_field(v) for v in r) + "\n" for r in rows)


def _csv_cell(text: str) -> str:
    """One CSV field as :func:`_csv_text` writes it (quoted only where needed)."""
    return _csv_field(text)


def _float_cells(values: np.ndarray) -> list[str]:
    """The fields :func:`_csv_text` writes for these floats: shortest round-trip decimals,
    empty where not finite; in one pass (a class of 1,000 has a million values)."""
    cells = list(map(repr, values.tolist()))
    for k in np.flatnonzero(~np.isfinite(values)).tolist():
        cells[k] = ""
    return cells


def _matrix_csv(corner: str, labels: Sequence[str], matrix: np.ndarray) -> str:
    """``matrix.csv``: a header row (``corner`` then the labels), then each label with its row;
    the same bytes as :func:`_csv_text` on those rows."""
    names = [_csv_cell(x) for x in labels]
    lines = [",".join([_csv_cell(corner), *names])]
    for name, row in zip(names, matrix, strict=True):
        lines.append(",".join([name, *_float_cells(row)]))
    return "\n".join(lines) + "\n"


def _pairs_csv(header: Sequence[str], labels: Sequence[str], matrix: np.ndarray) -> str:
    """``values.csv``: the header, then one line per ordered pair of distinct labels (row
    label, column label, value), row by row; the same bytes as :func:`_csv_text`."""
    names = [_csv_cell(x) for x in labels]
    lines = [",".join(_csv_cell(h) for h in header)]
    for i, row in enumerate(matrix):
        cells = _float_cells(row)
        lines += [f"{names[i]},{names[j]},{cells[j]}" for j in range(len(names)) if j != i]
    return "\n".join(lines) + "\n"


def _json_text(data: dict, rows_per_line: Sequence[str]) -> str:
    """``data`` as JSON indented by 2, except that the matrices named in ``rows_per_line``
    (lists of lists of numbers) are written a row per line. Those rows go through the
    standard library's C encoder, since ``indent`` alone would put each of a million numbers
    on its own line through the pure-Python one (seconds instead of a fraction of one)."""
    parts = []
    for key, value in data.items():
        if key in rows_per_line:
            rows = ",\n".join("    " + json.dumps(row) for row in value)
            text = f"[\n{rows}\n  ]" if value else "[]"
        else:
            text = json.dumps(value, indent=2).replace("\n", "\n  ")
        parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _match_scores(result: GradeResult) -> np.ndarray:
    """(n, n) match scores with rows and columns in leaderboard order, NaN on the diagonal
    (nobody plays itself): what ``matrix.csv`` and the heatmap show."""
    order = result.order()
    scores = result.scores[np.ix_(order, order)] if order else np.zeros((0, 0))
    np.fill_diagonal(scores, np.nan)
    return scores


#: characters a Markdown cell escapes with a backslash, so a name shows as written: the
#: table's ``|``, the escape itself, emphasis, code, links, HTML tags and entities, math
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\|*_`~[]<>&$"})


def _md_cell(text) -> str:
    """``text`` in a Markdown table cell: shown as :func:`teamleduc.names.display_name` shows
    it (control characters escaped: a CR or LF cannot end the row), with Markdown's special
    characters backslash-escaped so a renderer draws them as written."""
    return display_name(str(text)).translate(_MD_SPECIAL)


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


#: the heatmap writes its values in the cells up to this many entrants (beyond, the colour bar)
MAX_VALUES_SHOWN = 30


def heatmap_layout(n: int) -> dict:
    """Figure size (inches) and font sizes (points) of the heatmap of ``n`` entrants, so cell
    text stays readable from 3 to 100 entrants: the figure grows with n (up to 30 inches), each
    font follows the cell size, and values are written only up to :data:`MAX_VALUES_SHOWN`."""
    size = max(5.0, min(30.0, 3.0 + 0.3 * n))
    cell_points = 72.0 * 0.8 * size / max(n, 1)  # the axes take about 80 % of the figure
    label_font = max(5.0, min(11.0, 0.5 * cell_points))
    return {
        "size": size,
        "values": n <= MAX_VALUES_SHOWN,
        "value_font": max(5.0, min(11.0, 0.27 * cell_points)),
        "label_font": label_font,
        # beyond about 300 entrants a name no longer fits its cell: every k-th is named
        # (overlapping names were unreadable, and drawing 2,000 of them took most of the time)
        "label_every": max(1, math.ceil(1.2 * label_font / cell_points - 1e-9)),
    }


def write_heatmap(result: GradeResult, path: str | os.PathLike[str]) -> Path:
    """PNG heatmap of the match scores S[row, column], entrants in leaderboard order.

    Names are drawn literally (:func:`teamleduc.names.picture_label`: control characters
    escaped, shortened to 32 characters, in the bundled DejaVu Sans): never as mathtext (``$``)
    or TeX, whatever the user's matplotlib settings.
    """
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # matplotlib's own warnings (a glyph missing, a tight layout not reached) are not the
    # user's business: names are escaped where the font lacks a glyph
    with warnings.catch_warnings(), matplotlib.rc_context({"text.usetex": False}):
        warnings.simplefilter("ignore")
        fig = plt.figure(dpi=100)
        try:
            _draw_heatmap(fig, result, matplotlib)
        except BaseException:
            plt.close(fig)
            raise
        return save_png(fig, path)


def _draw_heatmap(fig, result: GradeResult, matplotlib) -> None:
    """Draw the heatmap (see :func:`write_heatmap`) on the empty figure ``fig``."""
    order = result.order()
    n = len(order)
    names = [result.names[i] for i in order]
    m = _match_scores(result)
    lim = float(np.nanmax(np.abs(m))) if n > 1 and np.isfinite(m).any() else 1.0
    lim = lim if lim > 0 else 1.0
    layout = heatmap_layout(n)
    size = layout["size"]
    fig.set_size_inches(size + 1.5, size)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#dddddd")
    im = ax.imshow(m, cmap=cmap, vmin=-lim, vmax=lim, interpolation="nearest")
    every = layout["label_every"]
    ticks = range(0, n, every)
    shown = [picture_label(names[i]) for i in ticks]
    labels = [x if every == 1 else f"{i + 1}. {x}" for i, x in zip(ticks, shown, strict=True)]
    literal = {"parse_math": False, "usetex": False, "fontfamily": PICTURE_FONT}
    ax.set_xticks(ticks, labels, rotation=60, ha="right", fontsize=layout["label_font"], **literal)
    ax.set_yticks(ticks, labels, fontsize=layout["label_font"], **literal)
    ax.set_xlabel("opponent")
    ax.set_ylabel("entrant (row's score)")
    title = f"Match scores, chips per hand ({result.preset})"
    if not layout["values"] and n > 1:
        title += f"\n{n} entrants: values in matrix.csv, colours on the bar"
    if every > 1:
        title += f"; one name in {every}, with its rank"
    ax.set_title(title, parse_math=False)
    if layout["values"]:
        for i in range(n):
            for j in range(n):
                if i != j:
                    ax.text(
                        j,
                        i,
                        f"{m[i, j]:+.2f}",
                        ha="center",
                        va="center",
                        fontsize=layout["value_font"],
                        color="white" if abs(m[i, j]) > 0.6 * lim else "black",
                    )
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="row's score against column")
    fig.tight_layout()


def leaderboard_html(result: GradeResult, png: bytes | None = None) -> str:
    """The leaderboard as one self-contained HTML page: the table, the invalid submissions and
    the heatmap embedded as a base64 PNG (no network, no script); publish it as it is."""
    import base64
    from html import escape

    heads = [
        "rank",
        "name",
        "path",
        "mean score",
        "mean as team A",
        "mean as team B",
        "worst match",
        "signals",
        "worst case as A",
        "worst case as B",
    ]
    rows = []
    for s in result.standings:
        worst = (
            "-"
            if not np.isfinite(s.worst_match)
            else f"{s.worst_match:+.4f} vs {display_name(s.worst_opponent)}"
        )
        cells = [
            str(s.rank),
            display_name(s.name),
            display_name(s.source),
            format_value(s.mean_score, 0),
            format_value(s.mean_as_team_a, 0),
            format_value(s.mean_as_team_b, 0),
            worst,
            str(s.signals),
            format_value(s.worst_case_as_team_a, 0),
            format_value(s.worst_case_as_team_b, 0),
        ]
        rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
    n = len(result.names)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Leaderboard ({escape(result.preset)})</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em}"
        "td:nth-child(n+4){text-align:right;font-variant-numeric:tabular-nums}"
        "th{background:#eee}img{max-width:100%}</style></head><body>",
        f"<h1>Leaderboard ({escape(result.preset)})</h1>",
        f"<p>{n} entrant{'s' * (n != 1)}, every pair played in both seatings; exact expected "
        "team utility in chips per hand. Score = mean over opponents of the mean of the two "
        "team utilities of a match; worst match = the lowest such match score; worst case as "
        "A / as B = the value the entrant guarantees against an exact best correlated "
        "response of the other team.</p>",
        "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead>",
        "<tbody>" + "\n".join(rows) + "</tbody></table>",
    ]
    if result.invalid:
        parts.append(f"<h2>Invalid submissions ({len(result.invalid)}, not graded)</h2>")
        parts.append("<table><tr><th>name</th><th>path</th><th>first problem</th></tr>")
        for b in result.invalid:
            parts.append(
                f"<tr><td>{escape(display_name(b.name))}</td>"
                f"<td>{escape(display_name(b.source))}</td>"
                f"<td>{escape(display_name(b.message))}</td></tr>"
            )
        parts.append("</table>")
    if png is not None:
        data = base64.b64encode(png).decode("ascii")
        parts.append("<h2>Match scores</h2>")
        parts.append(f'<img alt="heatmap of the match scores" src="data:image/png;base64,{data}">')
    parts.append(f"<p>teamleduc {escape(__version__)}, preset {escape(result.preset)}.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_outputs(
    result: GradeResult,
    out_dir: str | os.PathLike[str],
    heatmap: bool = True,
    overwrite: bool = False,
) -> list[Path]:
    """Write the grading files into ``out_dir`` as one unit; returns their paths.

    The files are written into a temporary sibling that replaces ``out_dir`` at the end
    (:func:`teamleduc.outputs.staged_folder`): a failure or Ctrl-C leaves ``out_dir`` as it
    was. An existing non-empty ``out_dir`` is refused unless ``overwrite``, and never replaced
    if it holds a graded submission.

    ``leaderboard.csv`` / ``.md``, ``matrix.csv`` (S[row, column], leaderboard order, empty
    diagonal), ``values.csv`` (team A's value for every ordered pair), ``invalid.csv``,
    ``grade.json``, unless ``heatmap`` is false ``matrix.png``, and ``leaderboard.html`` (the
    table and the heatmap in one self-contained page).

    Names are written by :mod:`teamleduc.names`: exactly in the CSV and JSON files, shown
    escaped in the Markdown and HTML pages and the picture. If drawing the heatmap fails
    (anything but an OSError), every other file is still written, ``matrix.png`` is left out
    of the returned paths and the reason is kept in ``result.work["heatmap_error"]``.
    """
    out = Path(out_dir)
    order = result.order()
    names = [result.names[i] for i in order]
    scores = _match_scores(result)
    files = {
        "leaderboard.csv": _csv_text([LEADERBOARD_COLUMNS] + [s.row() for s in result.standings]),
        "leaderboard.md": leaderboard_markdown(result),
        "matrix.csv": _matrix_csv("entrant", names, scores),
        "values.csv": _pairs_csv(
            ("team_a", "team_b", "value_team_a"), names, result.values[np.ix_(order, order)]
        ),
        "invalid.csv": _csv_text(
            [("name", "path", "message")] + [(b.name, b.source, b.message) for b in result.invalid]
        ),
        "grade.json": _json_text(result.to_dict(), ("scores", "values_team_a")),
    }
    with staged_folder(out, overwrite, inputs=graded_paths(result)) as stage:
        for name, text in files.items():
            write_text_atomic(stage / name, text)
        png = None
        if heatmap:
            try:
                png = write_heatmap(result, stage / "matrix.png").read_bytes()
                files["matrix.png"] = None
            except OSError:
                raise  # a full disk or a lost folder: the outputs as a whole fail
            except Exception as e:  # drawing failed: the one file a grading may go without
                result.work["heatmap_error"] = f"matrix.png not drawn: {type(e).__name__}: {e}"
        write_text_atomic(stage / "leaderboard.html", leaderboard_html(result, png))
        files["leaderboard.html"] = None
    return [out / name for name in files]


def graded_paths(result: GradeResult) -> list[str]:
    """The submission paths of a grading (valid or not), which its outputs must not replace."""
    sources = list(result.sources) + [b.source for b in result.invalid]
    return [s for s in sources if s not in ("baseline", "object")]
