"""The documentation holds together: every relative link resolves, and the README stays short.

Every Markdown link or image ``[text](target)`` / ``![alt](target)`` in README.md,
CONTRIBUTING.md and docs/*.md whose target is relative must name an existing file, and a
``#anchor`` must name a heading of the target, slugged by GitHub's rules (lower case, every
character that is not a letter, digit, space, ``-`` or ``_`` dropped, spaces turned into
``-``, repeated slugs numbered ``-1``, ``-2``, ...). Links inside code are not links.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").glob("*.md")]
    + [*(ROOT / "docs" / "history").glob("*.md")]
    + [ROOT / "submissions" / "README.md", ROOT / "data" / "README.md"]
)
README_MAX_LINES = 260

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_INLINE_CODE = re.compile(r"`+[^`]*`+")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (inline Markdown reduced to the text it shows)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, numbered as GitHub numbers repeats."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[tuple[int, str]]:
    """(line number, target) of every link and image outside code."""
    out = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for m in _LINK.finditer(_INLINE_CODE.sub("", line)):
            out.append((number, m.group(1)))
    return out


def broken_links(path: Path) -> list[str]:
    """One message per relative link of ``path`` that names no file or no heading."""
    problems = []
    for number, target in links(path):
        if _EXTERNAL.match(target):
            continue  # http:, https:, mailto: ...
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{number}"
        if not dest.exists():
            problems.append(f"{where}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where}: {target}: no heading #{anchor} in {dest.name}")
        elif anchor and dest.is_dir():
            problems.append(f"{where}: {target}: an anchor into a folder")
    return problems


def test_the_documents_exist():
    names = {p.relative_to(ROOT).as_posix().removeprefix("docs/") for p in DOCS}
    for page in (
        "README.md",
        "CONTRIBUTING.md",
        "rules-and-presets.md",
        "files-and-validation.md",
        "evaluation-and-grading.md",
        "best-responses.md",
        "solver.md",
        "measured-figures.md",
        "history/solver.md",
        "python-api.md",
        "design.md",
    ):
        assert page in names


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_slugs_follow_github():
    assert slug("Validating: `teamleduc validate`") == "validating-teamleduc-validate"
    assert slug("Odd input: what is accepted, what is refused") == (
        "odd-input-what-is-accepted-what-is-refused"
    )
    assert slug("The solver: `teamleduc solve`") == "the-solver-teamleduc-solve"
    assert (
        slug("How it is checked (`tests/test_belief.py`)") == "how-it-is-checked-teststest_beliefpy"
    )
    assert slug("Set-up (two commands)") == "set-up-two-commands"


def test_the_checker_finds_broken_links(tmp_path):
    (tmp_path / "other.md").write_text("# A title\n\n## Twice\n\n## Twice\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n"
        "[ok](other.md) [ok](other.md#a-title) [ok](other.md#twice-1) ![ok](pic.png)\n"
        "[ok](#page) [ok](https://example.org/missing.md) `[code](missing.md)`\n"
        "```\n[fenced](missing.md)\n```\n"
        "[bad](missing.md)\n"
        "[bad anchor](other.md#no-such-heading)\n"
        "![bad image](missing.png)\n"
        "[bad local](#nowhere)\n",
        encoding="utf-8",
    )
    problems = broken_links(page)
    assert len(problems) == 4, problems
    assert [p.split(": ", 1)[1] for p in problems] == [
        "missing.md: no such file",
        "other.md#no-such-heading: no heading #no-such-heading in other.md",
        "missing.png: no such file",
        "#nowhere: no heading #nowhere in page.md",
    ]


def test_contributing_lists_every_benchmark():
    """CONTRIBUTING.md's table of benchmarks names every benchmarks/bench_NAME.py, and no other."""
    modules = {p.stem.removeprefix("bench_") for p in (ROOT / "benchmarks").glob("bench_*.py")}
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z_0-9]+)` \|", text, flags=re.M))
    assert listed == modules
