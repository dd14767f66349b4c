"""Entrant names: one policy for reading, writing and showing them.

Names are data. They come from ``grade NAME=PATH``, a names file, the folder or zip names of a
class folder and Python callers; they reach data files, presentations and the terminal:

- data files (``leaderboard.csv``, ``matrix.csv``, ``values.csv``, ``invalid.csv``,
  ``grade.json``): the name exactly, quoted by the format's own rules (every CSV field holding
  ``,``, ``"``, CR or LF is quoted; JSON escapes). The one exception is what UTF-8 cannot hold:
  a lone surrogate, which is how :func:`os.fsdecode` keeps an undecodable byte of a non-UTF-8
  folder name, is written as the escape ``\\xNN`` of that byte (:func:`file_text`);
- presentations (the terminal, ``leaderboard.md``, ``leaderboard.html``, the heatmap): the name
  as :func:`display_name` shows it: control characters (C0, DEL, C1: ESC, CR, LF ...),
  format characters (bidi overrides and isolates, zero-width characters), line and paragraph
  separators and lone surrogates as backslash escapes (``\\x1b``, ``\\r``, ``\\n``,
  ``\\u202e``), everything else as written. The heatmap draws it literally (no mathtext, no
  TeX), shortened to :data:`PICTURE_CHARS` characters, with characters its font lacks escaped;
- names a person types (``NAME=PATH``, a names file, :class:`~teamleduc.entrants.NamedPath`)
  are refused when empty or only whitespace, or longer than :data:`MAX_NAME_CHARS`; their paths
  when longer than :data:`MAX_PATH_CHARS` or holding a NUL character (:func:`check_named_path`).
"""

from __future__ import annotations

import unicodedata

from .errors import TeamLeducError

#: the longest name accepted from a names file, ``NAME=PATH`` or NamedPath (characters)
MAX_NAME_CHARS = 1000
#: the longest path accepted there (characters)
MAX_PATH_CHARS = 4096
#: the largest names file read (bytes); a larger one is refused from its size before reading
MAX_NAMES_FILE_BYTES = 16 << 20
#: the heatmap shortens a name to this many characters (the full name is in matrix.csv)
PICTURE_CHARS = 32

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_ESCAPED_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def _surrogate(c: str) -> str:
    """A lone surrogate as an escape: the byte ``os.fsdecode`` kept (``\\xff``), else ``\\udxxx``."""
    code = ord(c)
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def file_text(text: str) -> str:
    """``text`` as a UTF-8 file holds it: exactly, except each lone surrogate (an undecodable
    byte of a file name, as :func:`os.fsdecode` keeps it) written as the escape of its byte."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_surrogate(c) if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _escape(c: str) -> str:
    if c in _SHORT:
        return _SHORT[c]
    code = ord(c)
    if 0xD800 <= code <= 0xDFFF:
        return _surrogate(c)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _needs_escape(c: str) -> bool:
    return unicodedata.category(c) in _ESCAPED_CATEGORIES


def display_name(text: str) -> str:
    """``text`` as the terminal, the Markdown and HTML pages and the heatmap show it: control
    and format characters (ESC, CR, LF, TAB, bidi overrides, zero-width characters), line and
    paragraph separators and lone surrogates as backslash escapes, the rest as written; a
    name can neither move the cursor, recolour the terminal, reorder a line nor break a row."""
    text = str(text)
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(c) if _needs_escape(c) else c for c in text)


#: the longest line of a message printed on the terminal (characters); a longer one (a huge
#: argument echoed back) is cut, with its length said
MAX_LINE_CHARS = 2000


def terminal_text(text: str) -> str:
    """A message for the terminal: each of its lines as :func:`display_name` shows it (a name
    or path quoted in an error message can neither move the cursor nor recolour the
    terminal), the line breaks kept, a line over :data:`MAX_LINE_CHARS` cut."""
    return "\n".join(_bounded(display_name(line)) for line in str(text).split("\n"))


def _bounded(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[: MAX_LINE_CHARS - 80]}... (a line of {len(line):,} characters, cut)"


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (East Asian) characters count 2, combining
    marks 0; so the columns of the grading table line up."""
    if text.isascii():
        return len(text)
    width = 0
    for c in text:
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (see :func:`display_width`)."""
    return text + " " * max(0, width - display_width(text))


#: font the heatmap draws names with (bundled with matplotlib: the same picture everywhere)
PICTURE_FONT = "DejaVu Sans"
_font_chars: set[int] | None = None


def picture_label(name: str, limit: int = PICTURE_CHARS) -> str:
    """``name`` as the heatmap draws it: :func:`display_name`, each character
    :data:`PICTURE_FONT` has no glyph for as its escape (never an empty box), and shortened
    to ``limit`` characters with a final ``…``."""
    global _font_chars
    if _font_chars is None:
        from matplotlib.font_manager import FontProperties, findfont, get_font

        font = get_font(findfont(FontProperties(family=PICTURE_FONT)))
        _font_chars = set(font.get_charmap())
    text = display_name(name)
    if not text.isascii():
        text = "".join(c if ord(c) in _font_chars else _escape(c) for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_named_path(name: object, path: object, where: str) -> tuple[str, str]:
    """``(name, path)`` stripped, checked as a name and path a person typed; TeamLeducError
    (exit 2) naming ``where`` (the argument, or the file and line) and what is wrong, TypeError
    if either is not text."""
    if not isinstance(name, str):
        raise TypeError(f"{where}: the name must be a str, not {type(name).__name__}")
    if not isinstance(path, str):
        raise TypeError(f"{where}: the path must be a str, not {type(path).__name__}")
    name, path = name.strip(), path.strip()
    if not name:
        raise TeamLeducError(f"{where}: empty name (a name needs a visible character)")
    if len(name) > MAX_NAME_CHARS:
        raise TeamLeducError(
            f"{where}: name of {len(name):,} characters (at most {MAX_NAME_CHARS:,}): "
            f"{display_name(name[:40])}..."
        )
    if not path:
        raise TeamLeducError(f"{where}: empty path for {display_name(name)}")
    if len(path) > MAX_PATH_CHARS:
        raise TeamLeducError(
            f"{where}: path of {len(path):,} characters (at most {MAX_PATH_CHARS:,}) "
            f"for {display_name(name)}"
        )
    if "\0" in path:
        raise TeamLeducError(f"{where}: path holding a NUL character for {display_name(name)}")
    return name, path
