"""The error model of submission files: every problem found is a :class:`Finding` (file, line,
information set, message); a problem that stops reading raises :class:`SubmissionError`, which
carries the same fields and every finding made so far.

Readers, validation and the grader share it, so that a student sees the same words whichever
command found the problem.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TeamLeducError

#: at most this many findings of one kind per file are listed (the rest are counted)
DEFAULT_CAP = 20


@dataclass(frozen=True)
class Finding:
    """One problem (an error or a warning) found in a submission.

    Attributes
    ----------
    file : the file as named inside the submission (``top/strategy0-player1.csv``), or None
        for a problem of the whole submission.
    line : 1-based line of a text file; for a ``.npy`` file the 0-based row, numbered as in
        ``player_{i}_infosets.txt``; None for a problem of the whole file.
    infoset : the information set of that line, in the file's own notation, or None.
    message : what is wrong, in words a student can act on.
    """

    file: str | None
    line: int | None
    infoset: str | None
    message: str

    @property
    def location(self) -> str:
        where = self.file or "submission"
        if self.line is not None:
            unit = "row" if (self.file or "").endswith(".npy") else "line"
            where += f", {unit} {self.line}"
        return where

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.infoset:
            text += f" (information set {self.infoset})"
        return text

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "infoset": self.infoset,
            "message": self.message,
        }


def more_findings(
    display: str | None, count: int, cap: int, what: str = "lines with errors"
) -> Finding:
    """The finding that stands for ``count`` problems beyond the first ``cap`` listed."""
    return Finding(display, None, None, f"{count:,} more {what} not listed (the first {cap} are)")


class SubmissionError(TeamLeducError):
    """A submission that cannot be read or is invalid (exit code 1).

    ``file`` and ``line`` locate the first problem; ``findings`` lists every problem found
    (at least the first one).
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        infoset: str | None = None,
        findings: list[Finding] | None = None,
    ):
        self.finding = Finding(file, line, infoset, message)
        self.findings = list(findings) if findings else [self.finding]
        self.file, self.line, self.infoset, self.message = file, line, infoset, message
        super().__init__(str(self.finding))


class SubmissionNotFoundError(TeamLeducError, FileNotFoundError):
    """A submission path that does not exist (or a broken or looping symbolic link): the
    toolkit's error (exit code 2, one line on the command line) and a FileNotFoundError, so
    that ``except FileNotFoundError`` and ``except OSError`` keep catching it."""

    exit_code = 2

    def __init__(self, message: str):
        TeamLeducError.__init__(self, message)
