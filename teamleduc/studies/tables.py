"""A study's table written three ways (Markdown, CSV, JSON), and pyplot for its figures.

Every study keeps its rows as a list of dicts with the same keys; these helpers turn them into
the texts the study writes (byte-for-byte the same for the same rows), through
:func:`teamleduc.outputs.write_text_atomic` and :func:`teamleduc.outputs.save_png`.
"""

from __future__ import annotations

import csv
import io
import json

from .. import __version__


def markdown_table(columns: list[tuple[str, str]], rows: list[dict], formats: dict) -> str:
    """A Markdown table: ``columns`` = [(key, header)], ``formats[key]`` a format spec."""
    head = "| " + " | ".join(h for _, h in columns) + " |"
    first = rows[0] if rows else {}
    rule = "|" + "|".join("---" if isinstance(first.get(k), str) else "---:" for k, _ in columns)
    lines = [head, rule + "|"]
    for row in rows:
        cells = [format(row[k], formats.get(k, "")) for k, _ in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def csv_text(columns: list[str], rows: list[dict]) -> str:
    """CSV with a header line (study tables, unlike the spec's files, are for people)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for row in rows:
        w.writerow([repr(row[c]) if isinstance(row[c], float) else row[c] for c in columns])
    return buf.getvalue()


def json_text(study: str, payload: dict) -> str:
    return json.dumps({"study": study, "version": __version__, **payload}, indent=2) + "\n"


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
