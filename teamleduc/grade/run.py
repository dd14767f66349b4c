"""The grading itself: :func:`grade` loads every entrant (in worker processes), then computes
the pair matrix and ranks it. See :mod:`teamleduc.grade` for the method."""

from __future__ import annotations

import contextlib
import multiprocessing
import numbers
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..arguments import check_flag, check_path, excerpt
from ..baselines import baselines_for, canonical_name, parse_baseline, solver_average
from ..config import GameConfig, get_config
from ..entrants import NamedPath
from ..errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from ..evaluate import team_seats
from ..leaderboard import write_outputs
from ..outputs import check_target, lies_within
from ..standings import GradeResult, InvalidEntry
from ..tree import build_tree
from .cache import EntrantRecord, GradeCache
from .entries import describe_entry, unique_names
from .loading import load_estimate, prepare, warm_kernels
from .memory import parse_memory, resident_bytes
from .products import pair_matrix
from .progress import progress_bar
from .workers import Workers


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
    cache: str | os.PathLike[str] | bool | None = None,
    memory: int | str | None = None,
) -> GradeResult:
    """Grade every pair of entrants in both seatings by exact expected team utility.

    Parameters
    ----------
    submissions : submission paths (folders or ``.zip``); baseline names are accepted too, and
        :class:`~teamleduc.entrants.NamedPath` for a path graded under a given name.
    config : GameConfig or preset name.
    baselines : baseline names added to the round robin (``"all"`` for all five, and RLCard's
        rule agents ``rlcard-v1`` and ``rlcard-v2`` on ``rlcard-leduc``:
        :func:`teamleduc.baselines.baselines_for`).
    jobs : processes that load submissions in parallel, and threads of the pair products (0 or
        None: one per CPU; needs the ``fork`` start method, else loading is sequential); the
        output does not depend on it.
    out : if given, the folder to write ``leaderboard.csv``, ``leaderboard.md``,
        ``matrix.csv``, ``values.csv``, ``matrix.png`` and ``grade.json`` into.
        The folder is written as one unit; an existing non-empty one is refused unless
        ``overwrite`` (:func:`teamleduc.leaderboard.write_outputs`), and so is a device, a
        pipe or a path holding an input or the current folder: checked before anything is
        computed or cached (:func:`teamleduc.outputs.check_target`).
    progress : show progress bars on the terminal (stderr).
    worst_case : also compute each entrant's exact worst case as team A and as team B (two
        exact team best responses per entrant; about 1 s each on team-leduc).
    cache : folder of the grading cache (:mod:`teamleduc.grade.cache`); None: ``<out>.cache``
        beside ``out`` (a temporary folder when ``out`` is None); False: a temporary folder.
    memory : budget of the main process in bytes, or text such as ``"2G"`` (default 2 GiB): the
        pair products read as many arrays at once as fit.

    Returns
    -------
    GradeResult; its ``standings`` are the leaderboard, its ``work`` counts what was computed
    (``entrants_loaded``, ``worst_cases_computed``, ``pairs_computed``, ``pairs_cached``,
    ``blocks_resumed``) and names the ``cache``.
    """
    t0 = time.perf_counter()
    config = get_config(config)
    team_seats(config)
    submissions, baselines = _checked_arguments(
        submissions, baselines, jobs, out, cache, progress, heatmap, worst_case, overwrite
    )
    if out is not None:  # the command's rule, before any work and before the cache is made
        check_target(out, overwrite, inputs=_input_paths(submissions))
    check_outside_inputs(out, cache, _input_paths(submissions), names=("out", "cache"))
    budget = parse_memory(memory)
    blist: list[str] = []
    for b in baselines:
        b = b.strip()
        every = baselines_for(config)
        for c in every if b.lower() == "all" else () if b.lower() in ("", "none") else (b,):
            c = canonical_name(c)
            if c not in blist:
                blist.append(c)
    entries = [describe_entry(s) for s in submissions] + [(b, b, "baseline") for b in blist]
    specs = [e[0] for e in entries]
    names_all = unique_names([e[1] for e in entries])
    sources_all = [e[2] for e in entries]

    if cache is None and out is not None:
        cache = default_cache(out)
    with tempfile.TemporaryDirectory(prefix="teamleduc-grade-") as scratch:
        root = Path(scratch) if cache in (None, False) else Path(os.fspath(cache))
        result = _grade(
            specs, names_all, sources_all, config, jobs, progress, worst_case, root, budget
        )
    result = replace(result, seconds=time.perf_counter() - t0)
    if out is not None:
        write_outputs(result, out, heatmap=heatmap, overwrite=overwrite)
    return result


def _checked_arguments(submissions, baselines, jobs, out, cache, *flags):
    """``(submissions, baselines)`` as lists, every argument of :func:`grade` checked: one
    path, baseline name or loaded submission stands for a list of it (a string is never
    taken letter by letter); ``jobs`` None or an int >= 0; flags bools; ``out`` and ``cache``
    paths (``cache`` also False)."""
    one = (str, os.PathLike, NamedPath)
    if isinstance(submissions, one) or hasattr(submissions, "strategies"):
        submissions = [submissions]
    elif (
        submissions is None
        or isinstance(submissions, (bytes, dict))
        or not isinstance(submissions, Iterable)
    ):
        raise ArgumentTypeError(
            "submissions: give a list of submission paths, baseline names or loaded "
            f"submissions, not {type(submissions).__name__}"
        )
    submissions = list(submissions)  # an iterator is read once
    if isinstance(baselines, str):
        baselines = baselines.split(",")
    elif baselines is None or not isinstance(baselines, Iterable):
        raise ArgumentTypeError(
            f"baselines: give names ('all', 'uniform,cautious' or a list), not "
            f"{type(baselines).__name__}"
        )
    baselines = list(baselines)
    for b in baselines:
        if not isinstance(b, str):
            raise ArgumentTypeError(f"baselines: a name is a str, not {type(b).__name__} {b!r}")
    for entry in submissions:  # "" would be graded as the current folder
        if isinstance(entry, str) and not entry:
            raise ArgumentValueError(
                "submissions: an entry is empty: give a submission path or a baseline name"
            )
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral)):
        raise ArgumentTypeError(f"jobs must be an int or None, not {type(jobs).__name__} {jobs!r}")
    if jobs is not None and jobs < 0:
        raise ArgumentValueError(f"jobs must be 0 (one per CPU) or more, not {jobs}")
    for name, flag in zip(("progress", "heatmap", "worst_case", "overwrite"), flags):
        check_flag(flag, name)
    if out is not None:
        check_path(out, "out")
    if cache not in (None, False):
        check_path(cache, "cache")
    return submissions, baselines


def _input_paths(submissions: list) -> list:
    """The paths among ``submissions`` (a baseline name that is no file is skipped by
    :func:`~teamleduc.outputs.check_target`; loaded submissions are no path)."""
    return [
        s.path if isinstance(s, NamedPath) else s
        for s in submissions
        if isinstance(s, (str, os.PathLike, NamedPath))
    ]


def check_outside_inputs(
    out: str | os.PathLike[str] | None,
    cache: str | os.PathLike[str] | bool | None,
    inputs: Iterable,
    *,
    names: tuple[str, str] = ("--out", "--cache"),
) -> None:
    """TeamLeducError (exit 2) if the output folder ``out``, the cache folder ``cache`` or,
    when ``cache`` is None, the default cache ``OUT.cache`` is or lies inside one of
    ``inputs`` (the submission folders graded, and the class folders they come from): the
    grading would write into what it reads (a submission then refused as holding nested
    folders, a class folder gaining entries). Checked before anything is written. ``names``:
    how the message calls the two options (``out``/``cache`` from Python)."""
    folders = []
    for item in inputs:
        if isinstance(item, NamedPath):
            item = item.path
        if not isinstance(item, (str, os.PathLike)):
            continue
        try:
            if os.path.isdir(item):
                folders.append(item)
        except (OSError, ValueError):
            continue
    targets = []
    if out is not None:
        targets.append((names[0], out, None))
    if cache not in (None, False, True):
        targets.append((names[1], cache, None))
    elif cache is None and out is not None:
        targets.append((names[0], out, default_cache(out)))
    for option, given, derived in targets:
        for folder in folders:
            if not lies_within(given if derived is None else derived, folder):
                continue
            where = (
                "it is or lies"
                if derived is None
                else f"its cache {excerpt(str(derived))} (OUT.cache) would lie"
            )
            raise TeamLeducError(
                f"{option} {excerpt(os.fspath(given))}: refused: {where} inside the input "
                f"{excerpt(os.fspath(folder))}, and grading would write into what it grades; "
                "give a folder outside every submission and class folder"
            )


def default_cache(out: str | os.PathLike[str]) -> Path:
    """The cache folder of a grading written to ``out``: ``OUT.cache`` beside it (not inside:
    the output folder is replaced as a whole by every run)."""
    path = Path(os.fspath(out)).resolve()
    return path.parent / f"{path.name or 'grading'}.cache"


def _grade(specs, names_all, sources_all, config, jobs, progress, worst_case, root, budget):
    tree = build_tree(config)
    L = len(tree.terminals) * config.num_ranks ** len(team_seats(config)[0])
    try:
        store = GradeCache(root, config)
    except OSError as e:
        raise TeamLeducError(
            f"cannot use {root} as the grading cache ({e.strerror or e}); "
            "choose another folder with --cache DIR, or --no-cache"
        ) from None
    store.remove_stale()
    n_all = len(specs)
    records: list = [None] * n_all
    work = {
        "entrants_loaded": 0,
        "worst_cases_computed": 0,
        "pairs_computed": 0,
        "pairs_cached": 0,
        "blocks_resumed": 0,
        "cache": str(root),
    }
    jobs = _resolve_jobs(jobs)
    tasks = [(i, s, config, worst_case, str(root), L) for i, s in enumerate(specs)]

    def collect(r) -> None:
        index, record, loaded, worst_done = r
        records[index] = record
        work["entrants_loaded"] += int(loaded)
        work["worst_cases_computed"] += int(worst_done)
        bar.update(1)

    bar = progress_bar(n_all, "loading", progress)
    try:
        if jobs > 1 and n_all > 1 and "fork" in multiprocessing.get_all_start_methods():
            # fork: workers inherit the built tree and the compiled kernels
            warm_kernels(worst_case)
            # cfr:N baselines run the solver (parallel kernels): run it here, once, so the
            # workers inherit its cached result instead of starting threads after a fork
            for spec in specs:
                if isinstance(spec, str) and spec.startswith("cfr:"):
                    # a preset it does not apply to: the worker reports the entry invalid
                    with contextlib.suppress(TeamLeducError):
                        solver_average(config, parse_baseline(spec)[1])
            budget_loads = max(256 << 20, budget - resident_bytes())
            estimates = [load_estimate(s) for s in specs]
            Workers(min(jobs, n_all), budget_loads).run(tasks, collect, estimates)
        else:
            for t in tasks:
                collect(prepare(t))
    finally:
        bar.close()

    valid = [i for i in range(n_all) if records[i].valid]
    invalid = tuple(
        InvalidEntry(names_all[i], sources_all[i], records[i].message)
        for i in range(n_all)
        if not records[i].valid
    )
    keys = list(dict.fromkeys(records[i].key for i in valid))
    by_key = {records[i].key: records[i] for i in valid}
    spec_of = {records[i].key: specs[i] for i in valid}

    def recompute(key: str) -> EntrantRecord:
        _index, record, _loaded, _worst = prepare((0, spec_of[key], config, False, str(root), L))
        if not record.valid or record.key != key:
            raise TeamLeducError(f"{spec_of[key]} changed while it was being graded; grade again")
        return record

    import numba

    numba.set_num_threads(max(1, min(jobs, numba.config.NUMBA_NUM_THREADS)))
    budget = max(64 << 20, budget - resident_bytes())
    unique = pair_matrix(store, keys, by_key, L, budget, recompute, progress, work)
    at = [keys.index(records[i].key) for i in valid]
    values = unique[np.ix_(at, at)] + 0.0
    names = tuple(names_all[i] for i in valid)
    sources = tuple(sources_all[i] for i in valid)
    signals = tuple(int(records[i].signals) for i in valid)
    worst = [records[i].worst_case or (np.nan, np.nan) for i in valid]
    return GradeResult.ranked(config.name, names, sources, signals, values, worst, invalid, work)


def _resolve_jobs(jobs: int | None) -> int:
    if jobs is None or jobs <= 0:
        return max(1, os.cpu_count() or 1)
    return int(jobs)
