"""The result of a round robin: team A's exact values, the match scores, the ranked leaderboard.

:class:`GradeResult` holds ``V[X, Y]``, team A's exact value with X as team A against Y as team
B; X's match score against Y is the mean of its two team utilities,
``S[X, Y] = (V[X, Y] - V[Y, X]) / 2`` (antisymmetric). :func:`rank_standings` turns them into
leaderboard rows (:class:`Standing`), whose columns, over the n - 1 opponents of X, are:

- ``mean_score``: mean of ``S[X, Y]``; the ranking key (higher is better; ties share a rank);
- ``mean_as_team_a``: mean of ``V[X, Y]``; ``mean_as_team_b``: mean of ``-V[Y, X]``
  (so ``mean_score`` is their average);
- ``worst_match``: the smallest ``S[X, Y]`` and ``worst_opponent`` that Y;
- ``path``: where the submission was read from (``baseline`` for a baseline);
- ``signals``: the number of signals listed in X's meta-strategy;
- ``worst_case_as_team_a`` / ``worst_case_as_team_b``: X's guaranteed value as team A
  (``-BR_B(x)``) and as team B (``-BR_A(y)``), minus the exact best correlated response of the
  other team (:mod:`teamleduc.best_response`); empty when not computed.

Computing the values is :mod:`teamleduc.grade`'s job, writing them to files
:mod:`teamleduc.leaderboard`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import __version__
from .names import display_name, display_width, file_text, pad, terminal_text

LEADERBOARD_COLUMNS = (
    "rank",
    "name",
    "path",
    "mean_score",
    "mean_as_team_a",
    "mean_as_team_b",
    "worst_match",
    "worst_opponent",
    "signals",
    "worst_case_as_team_a",
    "worst_case_as_team_b",
)


@dataclass(frozen=True)
class Standing:
    """One row of the leaderboard (see the module docstring for the columns)."""

    rank: int
    name: str
    source: str
    mean_score: float
    mean_as_team_a: float
    mean_as_team_b: float
    worst_match: float
    worst_opponent: str
    signals: int
    worst_case_as_team_a: float = float("nan")
    worst_case_as_team_b: float = float("nan")

    def row(self) -> list:
        return [
            self.rank,
            self.name,
            self.source,
            self.mean_score,
            self.mean_as_team_a,
            self.mean_as_team_b,
            self.worst_match,
            self.worst_opponent,
            self.signals,
            self.worst_case_as_team_a,
            self.worst_case_as_team_b,
        ]


@dataclass(frozen=True)
class InvalidEntry:
    """A submission left out of the round robin, with the first problem found."""

    name: str
    source: str
    message: str


@dataclass(frozen=True, eq=False)
class GradeResult:
    """A graded round robin.

    Attributes
    ----------
    names : (n,) entrant names in input order (submissions, then baselines).
    sources : (n,) their paths, or "baseline".
    signals : (n,) signals listed in each meta-strategy.
    values : (n, n) ``V[i, j]`` team A's exact value with i as team A and j as team B
        (the diagonal is self-play, not used in the leaderboard).
    standings : leaderboard rows, best first.
    invalid : submissions left out.
    work : what the grading computed and what it took from its cache (see
        :func:`teamleduc.grade.grade`); not part of the result's value.
    """

    preset: str
    names: tuple[str, ...]
    sources: tuple[str, ...]
    signals: tuple[int, ...]
    values: np.ndarray
    standings: tuple[Standing, ...]
    invalid: tuple[InvalidEntry, ...]
    seconds: float = field(default=0.0, compare=False)
    work: dict = field(default_factory=dict, compare=False)

    @classmethod
    def ranked(
        cls, preset, names, sources, signals, values, worst=None, invalid=(), work=None
    ) -> GradeResult:
        """A result whose standings are ranked from ``values`` and, when computed, each
        entrant's worst case ``(as team A, as team B)`` (:func:`rank_standings`)."""
        names, sources, signals = tuple(names), tuple(sources), tuple(signals)
        standings = rank_standings(names, sources, signals, values, worst)
        work = {} if work is None else work
        return cls(preset, names, sources, signals, values, standings, tuple(invalid), work=work)

    @property
    def scores(self) -> np.ndarray:
        """(n, n) ``S[i, j] = (V[i, j] - V[j, i]) / 2``: i's match score against j (0 on the diagonal)."""
        v = self.values
        return 0.5 * (v - v.T) + 0.0

    def order(self) -> list[int]:
        """Entrant indices in leaderboard order."""
        index = {n: i for i, n in enumerate(self.names)}
        return [index[s.name] for s in self.standings]

    def __str__(self) -> str:
        lines = [
            f"{self.preset}: {len(self.names)} entrants graded in both seatings"
            + (
                f", {len(self.invalid)} invalid submission{'s' * (len(self.invalid) != 1)} left out"
                if self.invalid
                else ""
            )
        ]
        if self.standings:
            # names as the terminal shows them (control characters escaped), padded by the
            # columns they take, so a name can neither move the cursor nor break the table
            shown = [display_name(s.name) for s in self.standings]
            width = max(4, max(display_width(x) for x in shown))
            lines.append(
                f"{'rank':>4}  {'name':<{width}}  {'score':>9}  {'as A':>9}  {'as B':>9}  "
                f"{'worst':>9}  signals  {'worst A':>9}  {'worst B':>9}"
            )
            for s, name in zip(self.standings, shown, strict=True):
                lines.append(
                    f"{s.rank:>4}  {pad(name, width)}  {format_value(s.mean_score, 9)}  "
                    f"{format_value(s.mean_as_team_a, 9)}  {format_value(s.mean_as_team_b, 9)}  "
                    f"{format_value(s.worst_match, 9)}  {s.signals:>7}  "
                    f"{format_value(s.worst_case_as_team_a, 9)}  {format_value(s.worst_case_as_team_b, 9)}"
                )
        for bad in self.invalid:  # a long path echoed in it: the line cut, with its length
            lines.append(
                terminal_text(
                    f"invalid: {display_name(bad.name)} ({display_name(bad.source)}): "
                    f"{display_name(bad.message)}"
                )
            )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """The result as JSON-ready data (``grade.json``, ``grade --json``); names, paths and
        messages exactly, except lone surrogates (undecodable bytes of a file name) written
        as ``\\xNN`` (:func:`teamleduc.names.file_text`), so the text is valid UTF-8."""
        order = self.order()
        return {
            "preset": self.preset,
            "version": __version__,
            "leaderboard": [
                dict(zip(LEADERBOARD_COLUMNS, _json_row(s.row()))) | {"source": file_text(s.source)}
                for s in self.standings
            ],
            "names": [file_text(self.names[i]) for i in order],
            "scores": _json_matrix(self.scores[np.ix_(order, order)], diagonal=False),
            "values_team_a": _json_matrix(self.values[np.ix_(order, order)]),
            "invalid": [
                {
                    "name": file_text(b.name),
                    "source": file_text(b.source),
                    "message": file_text(b.message),
                }
                for b in self.invalid
            ],
        }


def _json_float(x: float):
    return None if not np.isfinite(x) else float(x)


def _json_matrix(m: np.ndarray, diagonal: bool = True) -> list[list]:
    """Rows of ``m`` as lists of floats, None where not finite (and on the diagonal unless
    ``diagonal``): in one pass over the array, since a class of 1,000 has a million entries."""
    cells = m.astype(object)
    cells[~np.isfinite(m)] = None
    if not diagonal:
        np.fill_diagonal(cells, None)
    return cells.tolist()


def _json_row(row):
    return [
        _json_float(v) if isinstance(v, float) else file_text(v) if isinstance(v, str) else v
        for v in row
    ]


def format_value(x: float, width: int) -> str:
    """``x`` signed with 4 decimals, right-aligned in ``width``; ``-`` when not finite."""
    return f"{'-':>{width}}" if not np.isfinite(x) else f"{x:+{width}.4f}"


def rank_standings(
    names: Sequence[str],
    sources: Sequence[str],
    signals: Sequence[int],
    values: np.ndarray,
    guarantees: Sequence[tuple[float, float]] | None = None,
) -> tuple[Standing, ...]:
    """Leaderboard rows, best first, from the (n, n) team-A values and, when computed, each
    entrant's worst case ``(as team A, as team B)``."""
    n = len(names)
    if n == 0:
        return ()
    scores = 0.5 * (values - values.T)
    off = ~np.eye(n, dtype=bool)
    rows = []
    for i in range(n):
        if n > 1:
            others = np.flatnonzero(off[i])
            s = scores[i, others]
            worst = int(others[np.argmin(s)])  # first minimum: deterministic
            rows.append(
                (
                    names[i],
                    sources[i],
                    float(s.mean()),
                    float(values[i, others].mean()),
                    float(-values[others, i].mean()),
                    float(scores[i, worst]),
                    names[worst],
                    signals[i],
                )
            )
        else:
            rows.append((names[i], sources[i], np.nan, np.nan, np.nan, np.nan, "", signals[i]))
        rows[-1] += tuple(
            float(v) for v in (guarantees[i] if guarantees is not None else (np.nan, np.nan))
        )
    order = sorted(
        range(n), key=lambda i: (-rows[i][2] if np.isfinite(rows[i][2]) else 0.0, rows[i][0])
    )
    out, rank, prev = [], 0, None
    for pos, i in enumerate(order):
        score = rows[i][2]
        # equal scores (to 1e-12 chips) share a rank ("1, 2, 2, 4")
        if prev is None or not (np.isfinite(score) and abs(score - prev) <= 1e-12):
            rank = pos + 1
        prev = score
        out.append(Standing(rank, *[v + 0.0 if isinstance(v, float) else v for v in rows[i]]))
    return tuple(out)
