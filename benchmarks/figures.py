"""The measured-figures page (docs/measured-figures.md), written by the benchmarks.

Each benchmark run owns one section of the page, keyed by its command (the ``BENCH_*`` and
``TEAMLEDUC_BENCH_*`` settings, then ``python -m benchmarks NAME``) and fenced by HTML comments::

    <!-- figures solver: BENCH_SOLVER_PRESETS=leduc python -m benchmarks solver -->
    ...
    <!-- /figures -->

``python -m benchmarks NAME`` keeps what the benchmark prints and, when it ends normally,
replaces its own section with it, headed by the command, the date, the commit and the machine.
A command seen for the first time gets a new section after the last one of the same benchmark
(else at the end of the page), so the page stays grouped by subject. Everything outside the
markers is written by hand and never touched.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "measured-figures.md"
END = "<!-- /figures -->"
_START = re.compile(r"^<!-- figures (?P<name>[\w-]+): (?P<command>.+?) -->$")
_SETTING = re.compile(r"^(TEAMLEDUC_)?BENCH_")


@dataclass(frozen=True)
class Section:
    """One benchmark section of the page: its benchmark, command, and line span (end included)."""

    name: str
    command: str
    start: int
    end: int


def command_line(name: str, environ=None) -> str:
    """The command that reproduces a run of benchmark ``name``: its settings, then the module."""
    environ = os.environ if environ is None else environ
    settings = [
        f"{k}={environ[k]}" for k in sorted(environ) if _SETTING.match(k) and k != "BENCH_FIGURES"
    ]
    return " ".join([*settings, f"python -m benchmarks {name}"])


def machine() -> str:
    """The machine in words: CPUs, memory, and the load average when the run started."""
    parts = [f"{os.cpu_count()} CPUs ({platform.machine()})"]
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        parts.append(f"{pages / 2**30:.0f} GiB of memory")
    except (AttributeError, ValueError, OSError):
        pass
    if hasattr(os, "getloadavg"):
        parts.append(f"load average {os.getloadavg()[0]:.1f}")
    return ", ".join(parts)


def commit() -> str | None:
    """The checkout's short commit (with ``+changes`` if the tree differs), or None."""
    root = PAGE.parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        )
        if head.returncode:
            return None
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=root, capture_output=True)
    except OSError:
        return None
    return head.stdout.strip() + ("+changes" if dirty.returncode else "")


def sections(lines: list[str]) -> list[Section]:
    """The benchmark sections of a page's lines, in page order."""
    found, open_at = [], None
    for number, line in enumerate(lines):
        m = _START.match(line.strip())
        if m:
            open_at = (m["name"], m["command"], number)
        elif line.strip() == END and open_at is not None:
            found.append(Section(*open_at, number))
            open_at = None
    return found


def render(name: str, command: str, output: str, *, date: str, where: str, seconds=None) -> str:
    """A section's text, markers included: its command, when and where, then the output."""
    head = f"{date}; {where}" + (f"; {seconds:.0f} s" if seconds is not None else "")
    body = output.rstrip("\n").replace("```", "'''")
    return "\n".join(
        [
            f"<!-- figures {name}: {command} -->",
            f"#### `{command}`",
            "",
            head,
            "",
            "```text",
            body,
            "```",
            END,
        ]
    )


def replace_section(text: str, name: str, command: str, section: str) -> str:
    """``text`` with the section of ``command`` replaced by ``section``; a new command's
    section goes after the last section of benchmark ``name``, else at the end."""
    lines = text.splitlines()
    found = sections(lines)
    same = [s for s in found if s.command == command]
    if same:
        at, drop = same[0].start, same[0].end - same[0].start + 1
    else:
        kin = [s for s in found if s.name == name]
        at, drop = (kin[-1].end + 1, 0) if kin else (len(lines), 0)
        if lines:
            section = "\n" + section  # a blank line before a new section
    new = section.splitlines()
    return "\n".join(lines[:at] + new + lines[at + drop :]) + "\n"


def write_section(
    name: str,
    output: str,
    *,
    command: str | None = None,
    seconds: float | None = None,
    date: str | None = None,
    where: str | None = None,
    page: Path | None = None,
) -> None:
    """Replace benchmark ``name``'s section of ``page`` with ``output`` (what the run printed),
    headed by the command, the date (today), the commit and the machine."""
    page = PAGE if page is None else page
    command = command or command_line(name)
    date = date or datetime.date.today().isoformat()
    if where is None:
        rev = commit()
        where = (f"commit {rev}, " if rev else "") + machine()
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    section = render(name, command, output, date=date, where=where, seconds=seconds)
    new = replace_section(text, name, command, section)
    tmp = page.with_name(page.name + ".tmp")
    tmp.write_text(new, encoding="utf-8")
    tmp.replace(page)


def listing(page: Path | None = None) -> str:
    """One line per section of ``page``: its date and command (``python -m benchmarks
    figures``)."""
    lines = (PAGE if page is None else page).read_text(encoding="utf-8").splitlines()
    out = []
    for s in sections(lines):
        dated = next((x for x in lines[s.start + 1 : s.end] if x[:4].isdigit()), "(undated)")
        out.append(f"{dated.split(';')[0]:<12} {s.command}")
    return "\n".join(out)
