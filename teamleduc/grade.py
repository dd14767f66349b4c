"""Round-robin grading: every submission against every other, in both seatings, exactly.

For n entrants the grader computes each entrant's correlated reach as team A, ``T_A^X``, and its
team-B weights ``W_B^Y = sum_xB C T_B^Y`` once (one tree pass per seat and signal, see
:mod:`teamleduc.evaluate`), then every team-A value at once:

    V[X, Y] = <T_A^X, W_B^Y>            (X as team A against Y as team B)

an n x n matrix of dot products, so a tournament costs n loads plus one small matrix product.
With ``worst_case`` on, each entrant's exact worst case as team A and as team B (two exact team
best responses) is computed while it is loaded. :mod:`teamleduc.standings` ranks the result
(match scores, leaderboard columns); :mod:`teamleduc.leaderboard` writes its files.

Invalid submissions (anything :func:`teamleduc.files.reading.load_submission` refuses, which is
what ``teamleduc validate`` reports) are listed with their first problem and left out of the
round robin; one bad submission never stops the run. Output is deterministic: the same inputs
give byte-identical files whatever ``jobs`` is, because every sum runs in a fixed order (the
blocked dot product of :func:`teamleduc.evaluate.evaluate_reach`, used here pair by pair).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Iterable

import numpy as np
from numba import njit, prange

from .config import GameConfig, get_config
from .entrants import Entrant, NamedPath, entrant_name, load_entrant
from .errors import TeamLeducError
from .evaluate import BLOCK, team_b_weights, team_seats
from .leaderboard import write_outputs
from .reach import coalition_weights, kernel_array, team_reach
from .standings import GradeResult, InvalidEntry, Standing, rank_standings
from .tree import build_tree

__all__ = ["GradeResult", "InvalidEntry", "Standing", "grade", "pair_values", "write_outputs"]


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
    if isinstance(spec, NamedPath):
        return spec, spec.name, "baseline" if is_baseline(spec.path) else spec.path
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
    submissions: Iterable = (),
    config: GameConfig | str = "team-leduc",
    *,
    baselines: Iterable[str] | str = (),
    jobs: int | None = 1,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
    heatmap: bool = True,
    worst_case: bool = True,
    overwrite: bool = False,
) -> GradeResult:
    """Grade every pair of entrants in both seatings by exact expected team utility.

    Parameters
    ----------
    submissions : submission paths (folders or ``.zip``); baseline names are accepted too, and
        :class:`~teamleduc.entrants.NamedPath` for a path graded under a given name.
    config : GameConfig or preset name.
    baselines : baseline names added to the round robin (``"all"`` for all five).
    jobs : processes that load submissions in parallel (0 or None: one per CPU; needs the
        ``fork`` start method, else loading is sequential); the output does not depend on it.
    out : if given, the folder to write ``leaderboard.csv``, ``leaderboard.md``,
        ``matrix.csv``, ``values.csv``, ``matrix.png`` and ``grade.json`` into.
        The folder is written as one unit; an existing non-empty one is refused unless
        ``overwrite`` (:func:`teamleduc.leaderboard.write_outputs`).
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
        standings=rank_standings(names, sources, signals, values, worst),
        invalid=invalid,
        seconds=time.perf_counter() - t0,
    )
    if out is not None:
        write_outputs(result, out, heatmap=heatmap, overwrite=overwrite)
    return result


def _warmup() -> None:
    """Compile the matrix kernels once."""
    pair_values(np.ones((2, 5)), np.ones((2, 5)))
