"""Round-robin grading: every submission against every other, in both seatings, exactly.

For n entrants the grader computes each entrant's correlated reach as team A, ``T_A^X``, and its
team-B weights ``W_B^Y = sum_xB C T_B^Y`` once (one tree pass per seat and signal, see
:mod:`teamleduc.evaluate`), then every team-A value at once:

    V[X, Y] = <T_A^X, W_B^Y>            (X as team A against Y as team B)

an n x n matrix of dot products, so a tournament costs n loads plus one small matrix product.
X's match score against Y is the mean of its two team utilities,
``S[X, Y] = (V[X, Y] - V[Y, X]) / 2`` (antisymmetric).

Leaderboard columns, over the n - 1 opponents of X:

- ``mean_score``: mean of ``S[X, Y]``; the ranking key (higher is better; ties share a rank);
- ``mean_as_team_a``: mean of ``V[X, Y]``; ``mean_as_team_b``: mean of ``-V[Y, X]``
  (so ``mean_score`` is their average);
- ``worst_match``: the smallest ``S[X, Y]`` and ``worst_opponent`` that Y;
- ``signals``: the number of signals listed in X's meta-strategy;
- ``worst_case_as_team_a`` / ``worst_case_as_team_b``: X's guaranteed value as team A
  (``-BR_B(x)``) and as team B (``-BR_A(y)``), minus the exact best correlated response of the
  other team (:mod:`teamleduc.best_response`); off with ``worst_case=False``
  (``--no-worst-case``), which leaves the columns empty.

Invalid submissions (anything :func:`teamleduc.submission.load_submission` refuses, which is what
``teamleduc validate`` reports) are listed with their first problem and left out of the round
robin; one bad submission never stops the run. Output is deterministic: the same inputs give
byte-identical files whatever ``jobs`` is, because every sum runs in a fixed order (the blocked
dot product of :func:`teamleduc.evaluate.evaluate_reach`, used here pair by pair).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit, prange

from . import __version__
from .config import get_config
from .entrants import Entrant, entrant_name, load_entrant
from .errors import TeamLeducError
from .evaluate import BLOCK, team_b_weights, team_seats
from .reach import coalition_weights, kernel_array, team_reach
from .tree import build_tree

__all__ = ["GradeResult", "InvalidEntry", "Standing", "grade", "pair_values", "write_outputs"]

LEADERBOARD_COLUMNS = (
    "rank",
    "name",
    "mean_score",
    "mean_as_team_a",
    "mean_as_team_b",
    "worst_match",
    "worst_opponent",
    "signals",
    "worst_case_as_team_a",
    "worst_case_as_team_b",
)


# --------------------------------------------------------------------------- kernel


@njit(cache=True, parallel=True)
def _block_partials(TA, W, block):
    # partial[b, i, j] = sum over l in block b of TA[i, l] * W[j, l], l ascending
    n, L = TA.shape
    nb = (L + block - 1) // block
    out = np.zeros((nb, n, n))
    for b in prange(nb):
        lo = b * block
        hi = min(L, lo + block)
        for i in range(n):
            for j in range(n):
                s = 0.0
                for l in range(lo, hi):
                    s += TA[i, l] * W[j, l]
                out[b, i, j] = s
    return out


@njit(cache=True)
def _sum_blocks(partials):
    nb, n, _ = partials.shape
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            s = 0.0
            for b in range(nb):
                s += partials[b, i, j]
            out[i, j] = s
    return out


def pair_values(reach_a: np.ndarray, weights_b: np.ndarray) -> np.ndarray:
    """(n, n) ``V[i, j] = <reach_a[i], weights_b[j]>`` for stacked (n, L) arrays.

    Summed block by block in a fixed order, bit-identical to
    :func:`teamleduc.evaluate.evaluate_reach` on the same pair, whatever the number of threads.
    """
    ta = kernel_array(reach_a)
    w = kernel_array(weights_b)
    if ta.shape != w.shape or ta.ndim != 2:
        raise ValueError(f"shapes {ta.shape} and {w.shape} must be equal (n, L)")
    if ta.shape[0] == 0:
        return np.zeros((0, 0))
    return _sum_blocks(_block_partials(ta, w, BLOCK))


# --------------------------------------------------------------------------- results


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
    """

    preset: str
    names: tuple[str, ...]
    sources: tuple[str, ...]
    signals: tuple[int, ...]
    values: np.ndarray
    standings: tuple[Standing, ...]
    invalid: tuple[InvalidEntry, ...]
    seconds: float = field(default=0.0, compare=False)

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
            width = max(4, max(len(s.name) for s in self.standings))
            lines.append(
                f"{'rank':>4}  {'name':<{width}}  {'score':>9}  {'as A':>9}  {'as B':>9}  "
                f"{'worst':>9}  signals  {'worst A':>9}  {'worst B':>9}"
            )
            for s in self.standings:
                lines.append(
                    f"{s.rank:>4}  {s.name:<{width}}  {_fmt(s.mean_score, 9)}  "
                    f"{_fmt(s.mean_as_team_a, 9)}  {_fmt(s.mean_as_team_b, 9)}  "
                    f"{_fmt(s.worst_match, 9)}  {s.signals:>7}  "
                    f"{_fmt(s.worst_case_as_team_a, 9)}  {_fmt(s.worst_case_as_team_b, 9)}"
                )
        for bad in self.invalid:
            lines.append(f"invalid: {bad.name} ({bad.source}): {bad.message}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        order = self.order()
        return {
            "preset": self.preset,
            "version": __version__,
            "leaderboard": [
                dict(zip(LEADERBOARD_COLUMNS, _json_row(s.row()))) | {"source": s.source}
                for s in self.standings
            ],
            "names": [self.names[i] for i in order],
            "scores": [
                [_json_float(self.scores[i, j]) if i != j else None for j in order] for i in order
            ],
            "values_team_a": [[_json_float(self.values[i, j]) for j in order] for i in order],
            "invalid": [
                {"name": b.name, "source": b.source, "message": b.message} for b in self.invalid
            ],
        }


def _json_float(x: float):
    return None if not np.isfinite(x) else float(x)


def _json_row(row):
    return [_json_float(v) if isinstance(v, float) else v for v in row]


def _fmt(x: float, width: int) -> str:
    return f"{'-':>{width}}" if not np.isfinite(x) else f"{x:+{width}.4f}"


def _standings(names, sources, signals, values, guarantees=None) -> tuple[Standing, ...]:
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


# --------------------------------------------------------------------------- loading


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n if k == 0 else f"{n} ({k + 1})")
    return out


def _describe(spec) -> tuple:
    """``(spec, name, source)`` of one entrant argument."""
    from .baselines import canonical_name, is_baseline

    if isinstance(spec, Entrant):
        return spec, spec.name, spec.source
    if hasattr(spec, "strategies") and hasattr(spec, "probs"):
        return spec, "submission", "object"
    if isinstance(spec, str) and is_baseline(spec):
        return canonical_name(spec), canonical_name(spec), "baseline"
    return str(spec), entrant_name(spec), str(spec)


def _prepare(task):
    """Load one entrant and compute its reach as team A and weights as team B (worker side).

    Returns ``(index, ok, message, reach_a, weights_b, signals, worst)``; never raises for a
    bad submission. ``worst`` is ``(-BR_B(x), -BR_A(y))`` when ``worst_case`` is on."""
    index, spec, config, worst_case = task
    try:
        tree = build_tree(config)
        A, B = team_seats(config)
        entrant = load_entrant(spec, config)  # every team with files, checked below
        sub = entrant.submission
        missing = sorted(set(A + B) - set(sub.seats))
        if missing:
            return (
                index,
                False,
                "plays seats "
                + ",".join(str(s + 1) for s in sub.seats)
                + " only; grading plays every submission in both seatings, which needs seats "
                + ",".join(str(s + 1) for s in sorted(A + B)),
                None,
                None,
                0,
                None,
            )
        ta = team_reach(tree, sub, A)
        wb = team_b_weights(tree, team_reach(tree, sub, B))
        worst = (np.nan, np.nan)
        if worst_case:
            from .belief import max_dp, team_beliefs

            br_a = max_dp(tree, team_beliefs(tree, A), wb).value
            br_b = max_dp(tree, team_beliefs(tree, B), coalition_weights(tree, B, [(A, ta)])).value
            worst = (-br_b, -br_a)
        return index, True, "", ta.ravel(), wb.ravel(), entrant.num_signals, worst
    except TeamLeducError as e:
        findings = getattr(e, "findings", None)
        message = str(findings[0]) if findings else str(e)
        more = len(findings) - 1 if findings else 0
        if more > 0:
            message += f" (and {more} more problem{'s' * (more != 1)})"
        return index, False, message, None, None, 0, None
    except (OSError, ValueError, MemoryError) as e:
        return index, False, f"{type(e).__name__}: {e}", None, None, 0, None
    except Exception as e:  # a bug must not stop a class's grading: report it on that entry
        return index, False, f"internal error: {type(e).__name__}: {e}", None, None, 0, None


def _progress(total: int, desc: str, enabled: bool):
    from tqdm import tqdm

    # disable=None: shown on a terminal only, so redirected output stays clean
    return tqdm(
        total=total,
        desc=desc,
        unit="sub",
        disable=None if enabled else True,
        leave=False,
        dynamic_ncols=True,
    )


def _resolve_jobs(jobs: int | None) -> int:
    if jobs is None or jobs <= 0:
        return max(1, os.cpu_count() or 1)
    return int(jobs)


# --------------------------------------------------------------------------- API


def grade(
    submissions=(),
    config="team-leduc",
    *,
    baselines=(),
    jobs: int | None = 1,
    out=None,
    progress: bool = False,
    heatmap: bool = True,
    worst_case: bool = True,
) -> GradeResult:
    """Grade every pair of entrants in both seatings by exact expected team utility.

    Parameters
    ----------
    submissions : submission paths (folders or ``.zip``); baseline names are accepted too.
    config : GameConfig or preset name.
    baselines : baseline names added to the round robin (``"all"`` for all five).
    jobs : processes that load submissions in parallel (0 or None: one per CPU; needs the
        ``fork`` start method, else loading is sequential); the output does not depend on it.
    out : if given, the folder to write ``leaderboard.csv``, ``leaderboard.md``,
        ``matrix.csv``, ``values.csv``, ``matrix.png`` and ``grade.json`` into.
    progress : show a progress bar on the terminal (stderr).
    worst_case : also compute each entrant's exact worst case as team A and as team B (two
        exact team best responses per entrant; about 1 s each on team-leduc).

    Returns
    -------
    GradeResult; its ``standings`` are the leaderboard.
    """
    from .baselines import BASELINES, canonical_name, parse_baseline

    t0 = time.perf_counter()
    config = get_config(config)
    team_seats(config)
    if isinstance(baselines, str):
        baselines = baselines.split(",")
    blist: list[str] = []
    for b in baselines:
        b = b.strip()
        for c in BASELINES if b.lower() == "all" else () if b.lower() in ("", "none") else (b,):
            c = canonical_name(c)
            if c not in blist:
                blist.append(c)
    entries = [_describe(s) for s in submissions] + [(b, b, "baseline") for b in blist]
    specs = [e[0] for e in entries]
    names_all = _unique_names([e[1] for e in entries])
    sources_all = [e[2] for e in entries]

    tree = build_tree(config)
    n_all = len(specs)
    L = len(tree.terminals) * config.num_ranks ** len(team_seats(config)[0])
    results = [None] * n_all
    jobs = _resolve_jobs(jobs)
    tasks = [(i, s, config, worst_case) for i, s in enumerate(specs)]
    bar = _progress(n_all, "loading", progress)
    try:
        if jobs > 1 and n_all > 1 and "fork" in multiprocessing.get_all_start_methods():
            # fork: workers inherit the built tree and the compiled kernels
            ctx = multiprocessing.get_context("fork")
            _prepare(
                (0, "uniform", get_config("tiny-team"), worst_case)
            )  # load the kernels before forking
            # cfr:N baselines run the solver (parallel kernels): run it here, once, so the
            # workers inherit its cached result instead of starting threads after a fork
            for spec in specs:
                if isinstance(spec, str) and spec.startswith("cfr:"):
                    from .baselines import solver_average

                    # a preset it does not apply to: the worker reports the entry invalid
                    with contextlib.suppress(TeamLeducError):
                        solver_average(config, parse_baseline(spec)[1])
            with ctx.Pool(processes=min(jobs, n_all), maxtasksperchild=8) as pool:
                for r in pool.imap_unordered(_prepare, tasks):
                    results[r[0]] = r
                    bar.update(1)
        else:
            for t in tasks:
                r = _prepare(t)
                results[r[0]] = r
                bar.update(1)
    finally:
        bar.close()

    valid = [i for i in range(n_all) if results[i][1]]
    invalid = tuple(
        InvalidEntry(names_all[i], sources_all[i], results[i][2])
        for i in range(n_all)
        if not results[i][1]
    )
    signals = tuple(int(results[i][5]) for i in valid)
    worst = [results[i][6] for i in valid]
    ta = np.empty((len(valid), L))
    wb = np.empty((len(valid), L))
    for k, i in enumerate(valid):
        ta[k] = results[i][3]
        wb[k] = results[i][4]
        results[i] = None  # free the worker's copies
    import numba

    numba.set_num_threads(max(1, min(jobs, numba.config.NUMBA_NUM_THREADS)))
    values = pair_values(ta, wb) + 0.0
    del ta, wb
    names = tuple(names_all[i] for i in valid)
    sources = tuple(sources_all[i] for i in valid)
    result = GradeResult(
        preset=config.name,
        names=names,
        sources=sources,
        signals=signals,
        values=values,
        standings=_standings(names, sources, signals, values, worst),
        invalid=invalid,
        seconds=time.perf_counter() - t0,
    )
    if out is not None:
        write_outputs(result, out, heatmap=heatmap)
    return result


# --------------------------------------------------------------------------- output files


def _csv_text(rows) -> str:
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
        "| rank | name | mean score | mean as team A | mean as team B | worst match | signals "
        "| worst case as A | worst case as B |",
        "|---:|:---|---:|---:|---:|:---|---:|---:|---:|",
    ]
    for s in result.standings:
        worst = (
            "-"
            if not np.isfinite(s.worst_match)
            else f"{s.worst_match:+.4f} vs {_md_cell(s.worst_opponent)}"
        )
        lines.append(
            f"| {s.rank} | {_md_cell(s.name)} | {_fmt(s.mean_score, 0)} | "
            f"{_fmt(s.mean_as_team_a, 0)} | {_fmt(s.mean_as_team_b, 0)} | {worst} | {s.signals} | "
            f"{_fmt(s.worst_case_as_team_a, 0)} | {_fmt(s.worst_case_as_team_b, 0)} |"
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


def write_heatmap(result: GradeResult, path) -> Path:
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


def write_outputs(result: GradeResult, out_dir, heatmap: bool = True) -> list[Path]:
    """Write the grading files into ``out_dir`` (created if needed); returns their paths.

    ``leaderboard.csv`` / ``.md``, ``matrix.csv`` (S[row, column], leaderboard order, empty
    diagonal), ``values.csv`` (team A's value for every ordered pair), ``invalid.csv``,
    ``grade.json`` and, unless ``heatmap`` is false, ``matrix.png``.
    """
    from .infosets import write_text_atomic

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


def _warmup() -> None:
    """Compile the matrix kernels once."""
    pair_values(np.ones((2, 5)), np.ones((2, 5)))
