"""The solver's driver: :func:`solve` runs one method under a time budget and exports.

A run iterates the method (:mod:`.methods`) and measures it exactly at growing intervals,
exports both teams' strategies as a merged submission (:mod:`.export`), optionally refines that
export (:mod:`.refine`), re-measures the submission independently and writes it
(:func:`.result.write_outputs`). Budgets (:func:`_export_budget`, :func:`_finish_reserve`) keep
time for the export and the writing inside ``time_limit``; Ctrl-C stops at the next safe point
(:class:`_StopFlag`); a checkpoint lets a later session resume the run.
"""

from __future__ import annotations

import dataclasses
import json
import math
import resource
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..config import GameConfig, get_config
from ..errors import TeamLeducError
from ..files.reading import load_submission
from ..infosets import infoset_tables
from ..interrupts import keyboard_interrupt
from ..outputs import link_or_copy, remove, staged_folder
from .budget import check_format, per_team
from .checkpoint import CHECKPOINT_NAME, Checkpoint, check_state, progress_of
from .checkpoint import load as load_checkpoint
from .checkpoint import save as save_checkpoint_file
from .common import Candidates, Measurement, ProductStrategy, TeamMixture
from .export import (
    MAX_SIGNALS,
    ExportResult,
    export,
    from_alternatives,
    is_big,
    measured,
    submission_gap,
    with_alternatives,
    with_submission,
)
from .methods import DEFAULT_METHOD, METHODS, make_algorithm
from .refine import _warmup as refine_warmup
from .refine import (
    auto_seconds,
    halves_export,
    refine_export,
    refined_team_signals,
    stratified_export,
)
from .report import PLOT_NAME, REPORT_NAME, load_plotting
from .result import (
    CSV_DIR,
    INTERRUPTED,
    ITERATION_LIMIT,
    SOLVED,
    STATUS_MESSAGES,
    SUBMISSION_DIR,
    TARGET_REACHED,
    TIME_LIMIT,
    CheckpointKept,
    SolveResult,
    write_outputs,
)

DEFAULT_TIME_LIMIT = 300.0
#: export budget after Ctrl-C (the LP export's; a stratified export takes what it takes)
INTERRUPT_EXPORT_SECONDS = 0.5


def _peak_memory() -> int:
    """Peak resident memory of this process in bytes (Linux reports KiB)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class _StopFlag:
    """Ctrl-C sets the flag (the run stops at the next safe point); a second one aborts, and
    so does the first once ``graceful`` is False (a big game after its main phase)."""

    def __init__(self, install: bool):
        self.set = False
        self.graceful = True
        self._old = None
        self._install = install and threading.current_thread() is threading.main_thread()

    def __enter__(self):
        if self._install:

            def handler(signum, frame):
                if self.set or not self.graceful:
                    keyboard_interrupt(signum, frame)
                    return
                self.set = True

            self._old = signal.signal(signal.SIGINT, handler)
        return self

    def __exit__(self, *exc):
        if self._install:
            signal.signal(signal.SIGINT, self._old)
        return False


def _export_budget(time_limit: float, stratified_only: bool = False) -> float:
    """Seconds kept for the export at the end of a run of ``time_limit`` seconds; an export by
    stratified signals alone (a big game, :func:`.export.is_big`, solved by a regret
    minimiser) takes seconds, the LP export more."""
    if stratified_only:
        return min(max(0.03 * time_limit, 1.0), 30.0)
    return min(max(0.15 * time_limit, 0.2), 600.0)


def _finish_reserve(game, max_signals: int, writing: bool) -> float:
    """Seconds to keep after the export: the independent re-measurement of the submission and,
    with an output folder, writing it and the checkpoint (rates measured on team-leduc)."""
    infosets = sum(t.size for t in infoset_tables(game.tree))
    rows = sum(d.num_rows for d in game.dags)
    reserve = 0.05 + 5e-6 * infosets  # exploitability of the export
    if writing:
        # strategy CSV files: team-leduc's 100 signals x 590,640 information sets took about
        # 40 s after a 300 s run (5.5e-7 per entry left it 14 s over its limit)
        reserve += 7e-7 * max_signals * infosets
        reserve += 4 * 4 * rows / 3e8  # checkpoint arrays
    return reserve


def solve(
    config: GameConfig | str,
    method: str | None = DEFAULT_METHOD,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    target_gap: float | None = None,
    max_iterations: int | None = None,
    max_signals: int = 100,
    out_dir: str | Path | None = None,
    resume: str | Path | None = None,
    progress: Callable[[Measurement], None] | None = None,
    checkpoint_interval: float = 120.0,
    handle_sigint: bool = True,
    export_time: float | None = None,
    refine_seconds: float | None = None,
    export_format: str | None = None,
    overwrite: bool = False,
    _staged: bool = False,
) -> SolveResult:
    """Solve a two-team game for TMECor and export a submission.

    Parameters
    ----------
    config : a :class:`~teamleduc.config.GameConfig` or a preset name.
    method : one of :data:`METHODS`; None takes the checkpoint's when resuming, else the
        default.
    time_limit : wall-clock seconds for this session, export included.
    target_gap : stop as soon as the *exported* submission's exact gap is at most this.
    max_iterations : stop the algorithm after this many iterations (over all sessions).
    max_signals : cap on the exported meta-strategy's signals: of the merged one (K_A + K_B -
        1) for a CSV submission, of each team's own for 2025 team zips (``export_format``).
    out_dir : if given, write ``submission/``, ``solve-report.json``, ``convergence.png`` and
        ``checkpoint.npz`` there, as one unit (:func:`teamleduc.outputs.staged_folder`): the
        run works in a temporary sibling ``.NAME.XXXX.tmp`` (periodic checkpoints, every
        ``checkpoint_interval`` seconds, go there too, so after a hard kill the last one is
        in it) that replaces ``out_dir`` only at the end; on an error or an abort
        ``out_dir`` is untouched. An existing non-empty ``out_dir`` is refused unless
        ``overwrite``, or unless it is the ``resume`` folder (a run continued in place).
    resume : a run folder (or checkpoint file) to continue; its method is used. The whole
        checkpoint is checked before anything runs (:func:`.checkpoint.load`).
    overwrite : replace an existing non-empty ``out_dir``.
    progress : callable receiving every :class:`Measurement` as it is made.
    handle_sigint : while running, Ctrl-C stops the run at the next safe point, exports the
        best strategies so far and writes the outputs and the checkpoint (status
        ``interrupted``); a second Ctrl-C, or one after that point, aborts. On a big game
        (:func:`.export.is_big`) with ``out_dir``, whose export and submission take tens of
        seconds, the first Ctrl-C aborts at once. An abort raises KeyboardInterrupt: it is
        :class:`.result.CheckpointKept` when the run had saved a checkpoint (a big game saves
        one at the Ctrl-C and at the end of its main phase; every run, every
        ``checkpoint_interval`` seconds), which ``out_dir`` then holds alone (with the
        submission of the run it resumed, if any); otherwise ``out_dir`` is untouched.
    export_time : seconds kept for the final export (default 15% of ``time_limit``).
    refine_seconds : seconds (within ``time_limit``) for refining the final export
        (:mod:`.refine`); the refined export is kept only if its exact gap is smaller.
        0 = off; None (default) = :func:`.refine.auto_seconds` for a regret minimiser (half
        of the time left after building the DAGs, on games from small-team-leduc up, when
        that buys each team about 40 refinement iterations, else 0), otherwise off. Not
        after Ctrl-C, nor when the target gap was met before.
    export_format : ``"csv"`` (one merged submission, ``submission/`` of CSV files) or
        ``"teams2025"`` (``submission/`` holds ``team13.zip`` and ``team24.zip``, each team
        with its own meta-strategy of up to ``max_signals`` signals; the merged CSV
        submission is written too, to ``submission-csv/``, when it fits ``max_signals``);
        None (default) = the preset's edition (:func:`.budget.native_format`: team zips for
        team-leduc-2025).

    Returns
    -------
    SolveResult
    """
    if out_dir is not None and not _staged:
        args = dict(locals())
        folder = None if resume is None else Path(resume)
        if folder is not None and folder.suffix == ".npz":
            folder = folder.parent
        load_plotting()
        kept = None
        with staged_folder(out_dir, overwrite, allow=folder) as stage:
            args.update(out_dir=stage, _staged=True)
            try:
                result = solve(**args)
            except KeyboardInterrupt:
                kept = _keep_checkpoint(stage, folder)
                if kept is None:
                    raise
        if kept is not None:
            raise CheckpointKept(str(out_dir), *kept)
        return dataclasses.replace(result, out_dir=str(out_dir))
    config = get_config(config) if not isinstance(config, GameConfig) else config
    if len(config.teams) != 2:
        raise TeamLeducError(
            f"preset {config.name} has {len(config.teams)} teams; the solver "
            "needs exactly two (team A against team B)"
        )
    prev = None
    if resume is not None:
        prev = load_checkpoint(resume, config)
        if method is None:
            method = prev.method
        if method != prev.method:
            raise ValueError(
                f"the checkpoint in {resume} was made by {prev.method!r}, not {method!r}"
            )
    if method is None:
        method = DEFAULT_METHOD
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if max_iterations is not None and max_iterations < 1:
        raise ValueError(f"max_iterations must be at least 1, not {max_iterations}")
    if not (time_limit > 0 and math.isfinite(time_limit)):  # NaN and inf would never stop
        raise ValueError(f"time_limit must be a finite number of seconds > 0, not {time_limit}")
    if not 1 <= max_signals <= MAX_SIGNALS:
        raise ValueError(
            f"max_signals must be between 1 and {MAX_SIGNALS} (the challenge's "
            f"cap), not {max_signals}"
        )
    export_format = check_format(export_format, config)
    each_team = per_team(export_format)
    for name, value in (
        ("refine_seconds", refine_seconds),
        ("export_time", export_time),
        ("target_gap", target_gap),
    ):
        if value is not None and not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number >= 0, not {value}")

    t0 = time.perf_counter()
    base_seconds = prev.seconds if prev else 0.0
    candidates = prev.candidates if prev else Candidates()
    history: list[Measurement] = list(prev.history) if prev else []
    alg = make_algorithm(method, config, candidates if prev else None)
    if prev is not None:
        check_state(resume, prev.state, alg.state())
        alg.load_state(prev.state, prev.iterations)
    game = alg.game
    out = Path(out_dir) if out_dir is not None else None

    def session() -> float:
        return time.perf_counter() - t0

    def total() -> float:
        return base_seconds + session()

    def record(m: Measurement) -> None:
        history.append(m)
        if progress is not None:
            progress(m)

    def save_checkpoint() -> None:
        if out is not None:
            save_checkpoint_file(
                out,
                Checkpoint(
                    config.name,
                    method,
                    alg.iterations,
                    total(),
                    history,
                    alg.state(),
                    candidates,
                    config.to_dict(),
                ),
            )

    # team zips: up to max_signals per team, and the merged CSV files when they fit
    reserve = _finish_reserve(game, max_signals * (2 if each_team else 1), out is not None)
    # a big game solved by a regret minimiser is exported by its stratified signals alone
    # (quick); the small games and the double oracle use the LP export
    stratified_only = is_big(game) and METHODS[method] == "dag_cfr"
    # Ctrl-C on a big game keeps the solver's state, not a submission (CheckpointKept)
    quick_stop = out is not None and is_big(game) and handle_sigint
    export_budget = (
        _export_budget(time_limit, stratified_only) if export_time is None else float(export_time)
    )
    if refine_seconds is None:
        # by default only for a regret minimiser on a game the LP export does not solve;
        # also with a target, which that export does not meet there (small-team-leduc, target
        # 1e-4 in 120 s: 3.1e-2 without refinement)
        refine_seconds = (
            auto_seconds(game, time_limit, max_signals, startup=session())
            if METHODS[method] == "dag_cfr"
            else 0.0
        )
    refine_seconds = max(float(refine_seconds), 0.0)
    parameters = dict(alg.parameters, refine_seconds=refine_seconds, export_format=export_format)
    main_deadline = max(time_limit - export_budget - reserve - refine_seconds, 0.0)
    end = max(time_limit - reserve - refine_seconds, main_deadline)
    internal_target = target_gap if target_gap is not None else -math.inf
    status = TIME_LIMIT
    best = None  # (export result, measurement)
    halves = None  # the team zips' refinement start (each team's own K signals), if made
    refine_cap = max_signals  # its signals per team (fewer for team zips on a slow machine)
    if prev is not None:
        best = _previous_export(resume, config)
    last_ckpt = session()
    step_seconds, steps = 0.0, 0  # the algorithm's own time, for its speed
    next_measure = 0.05 * min(time_limit, 10.0)
    # with a target, try the LP export early and then at doubling times: on the games it
    # exports, it can meet the target long before the average does (tiny-team-leduc: exact
    # after 2 s, when the average is at 1e-5). The first trial used to wait for 5 % of the
    # limit (30 s of a 600 s limit). A stratified export is never better than the average, so
    # big games are exported when the average meets the target, or at the end.
    trials = target_gap is not None and not stratified_only
    next_export = 0.5 if trials else math.inf

    def measure_average() -> Measurement:
        """The average's exact bounds. On a big game a Ctrl-C does not wait for them (a few
        seconds on team-leduc): the algorithm's state is whole meanwhile, so it is saved and
        the run aborts at once (the caller keeps the checkpoint)."""
        if not quick_stop:
            return alg.measure(total(), candidates)
        stop.graceful = False
        try:
            return alg.measure(total(), candidates)
        except KeyboardInterrupt:
            save_checkpoint()
            raise
        finally:
            stop.graceful = True

    with _StopFlag(handle_sigint) as stop:
        while True:
            # ---- main phase: iterate and measure
            stopped_by = None
            while True:
                if stop.set:
                    stopped_by = INTERRUPTED
                    break
                if max_iterations is not None and alg.iterations >= max_iterations:
                    stopped_by = ITERATION_LIMIT
                    break
                if session() >= main_deadline and alg.iterations > 0:
                    # (at least one iteration: with none there is nothing to export)
                    stopped_by = TIME_LIMIT
                    break
                started = session()
                alg.step()
                now = session()
                step_seconds, steps = step_seconds + now - started, steps + 1
                if now >= next_measure or alg.converged or alg.measure_each_step:
                    m = measure_average()
                    record(m)
                    next_measure = now * 1.3 + 0.02
                    if m.gap <= max(internal_target, 0.0) or alg.converged:
                        stopped_by = SOLVED if alg.converged else TARGET_REACHED
                        break
                if out is not None and now - last_ckpt >= checkpoint_interval:
                    save_checkpoint()
                    last_ckpt = session()
                if now >= next_export:
                    stopped_by = "trial"
                    break
            if quick_stop:
                # a big game's submission takes tens of seconds to write and its export as
                # long: the first Ctrl-C from here on aborts and keeps this checkpoint
                save_checkpoint()
                if stopped_by == INTERRUPTED:
                    raise KeyboardInterrupt
                stop.graceful = False
            if (
                stopped_by in (ITERATION_LIMIT, TIME_LIMIT, INTERRUPTED)
                and alg.iterations > 0
                and (
                    not history
                    or history[-1].iteration != alg.iterations
                    or history[-1].what in ("export", "refine")
                )
            ):
                record(alg.measure(total(), candidates))

            # ---- export
            if stopped_by == INTERRUPTED:
                # Ctrl-C: a short export of the best so far (small games end within 2 s;
                # writing a big game's 100 signals still takes its time)
                budget = min(INTERRUPT_EXPORT_SECONDS, export_budget)
            elif stopped_by in ("trial", TARGET_REACHED):
                budget = min(max(main_deadline - session(), 0.05), 0.5 * session() + 0.2)
            else:
                budget = max(end - session(), 0.05)
            t_cand = time.perf_counter()
            # a big game that is refined next is exported as the refinement's starting point
            # (team zips: each team's K signals with free weights; CSV: equal weights), not
            # through the general export, whose candidates the refinement would not use
            halves_first = (
                stratified_only
                and refine_seconds > 0
                and stopped_by in (ITERATION_LIMIT, TIME_LIMIT)
                and all(d.num_members == 2 for d in game.dags)
            )
            if halves_first and each_team:
                # team zips that are refined: as many signals per team as the refinement
                # time can move at this machine's speed (DCFR's, measured just now)
                refine_cap = refined_team_signals(
                    game, max_signals, refine_seconds, step_seconds / max(steps, 1)
                )
                ex = halves = halves_export(
                    game, alg.stratified, refine_cap, each_team, submission=False
                )
            elif halves_first:
                # the CSV submission: the start of the shared-weights refinement (equal
                # weights; the refinement moves them)
                ex = stratified_export(game, alg.stratified, max_signals, submission=False)
            else:
                alternatives = measured(game, alg.export_alternatives(max_signals))
                ex = (
                    from_alternatives(
                        game, alternatives, max_signals=max_signals, per_team=each_team
                    )
                    if stratified_only
                    else None
                )
            if ex is None:
                alg.export_candidates(candidates, time_limit=0.25 * budget)
                budget = max(budget - (time.perf_counter() - t_cand), 0.05)
                if any(a is not None for a in alternatives):
                    budget *= 0.6  # keep time to merge the mixtures into the submission
                ex = export(
                    game,
                    candidates,
                    max_signals=max_signals,
                    time_limit=budget,
                    target_gap=target_gap if target_gap is not None else 0.0,
                    per_team=each_team,
                )
                ex = with_alternatives(
                    game, ex, alternatives, max_signals=max_signals, per_team=each_team
                )
            direct = alg.direct_export(max_signals)
            if direct is not None and direct.gap < ex.gap:
                ex = direct
            em = Measurement(alg.iterations, total(), ex.lower, ex.upper, "export")
            record(em)
            if best is None or ex.gap < best[0].gap:
                best = (ex, em)
            if target_gap is not None and best[0].gap <= target_gap:
                status = SOLVED if stopped_by == SOLVED else TARGET_REACHED
                break
            if stopped_by == SOLVED:
                status = SOLVED
                break
            if stopped_by in (INTERRUPTED, ITERATION_LIMIT, TIME_LIMIT) or session() >= end:
                status = stopped_by if stopped_by in (INTERRUPTED, ITERATION_LIMIT) else TIME_LIMIT
                break
            if stopped_by == TARGET_REACHED:
                # the average met the internal target but the export did not: iterate further
                internal_target = min(internal_target, best[0].gap) / 4
            next_export = 2.0 * session() if trials else math.inf
            if stop.set:
                status = INTERRUPTED
                break

        ex = best[0]
        if (
            refine_seconds > 0
            and status not in (SOLVED, TARGET_REACHED, INTERRUPTED)
            and ex.gap > 0
        ):
            budget = min(refine_seconds, max(time_limit - reserve - session(), 0.05))

            def refined_block(lower, upper):
                # each block's mixture is measured exactly: the refined pair's best so far
                record(Measurement(alg.iterations, total(), lower, upper, "refine"))

            keep_sizes = ex is halves
            if stratified_only:
                # a big game's submission (1.4 GB on team-leduc) is not held while refining:
                # it is built from the mixtures if the refinement does not beat them
                ex = dataclasses.replace(ex, submission=None)
                best = halves = None
            refined = refine_export(
                game,
                ex,
                max_signals=refine_cap if keep_sizes else max_signals,
                time_limit=budget,
                candidates=candidates,
                opponents=alg.refine_opponents(),
                progress=refined_block,
                restart=alg.stratified,
                keep_sizes=keep_sizes,
                per_team=each_team,
                stop=lambda: stop.set,  # Ctrl-C ends the refinement after its iteration
            )
            if refined is not ex:
                ex = refined
                record(Measurement(alg.iterations, total(), ex.lower, ex.upper, "export"))
            if stop.set:  # Ctrl-C during the refinement: write its best export, as at any stop
                status = INTERRUPTED
        ex = with_submission(game, ex)  # a refinement's start that was not refined or beaten
        lower, upper = ex.lower, ex.upper
        lo2, up2, verified_by = submission_gap(config, ex.submission)
        if abs(lo2 - lower) > 1e-7 * max(1.0, abs(lower)) or abs(up2 - upper) > 1e-7 * max(
            1.0, abs(upper)
        ):
            raise RuntimeError(
                f"export bounds disagree with the independent measurement: "
                f"[{lower}, {upper}] vs [{lo2}, {up2}]"
            )
        lower, upper = lo2, up2
        if target_gap is not None and upper - lower <= target_gap and status != SOLVED:
            status = TARGET_REACHED
        result = SolveResult(
            preset=config.name,
            method=method,
            parameters=parameters,
            status=status,
            message=STATUS_MESSAGES[status],
            iterations=alg.iterations,
            seconds=total(),
            lower=lower,
            upper=upper,
            signals=ex.signals,
            team_signals=(ex.mixtures[0].size, ex.mixtures[1].size),
            export_format=export_format,
            max_signals=max_signals,
            mixtures=ex.mixtures,
            export_seconds=ex.seconds,
            history=tuple(history),
            submission=ex.submission,
            peak_memory=_peak_memory(),
            verified_by=verified_by,
            out_dir=str(out) if out is not None else None,
        )
        if out is not None:
            write_outputs(result, out, config)
            save_checkpoint()
    if stop.set and status != INTERRUPTED:
        raise KeyboardInterrupt  # Ctrl-C after the run's last check: abort, write nothing
    return result


def _keep_checkpoint(stage: Path, resumed: Path | None) -> tuple[int, float] | None:
    """After an abort, make the run's latest checkpoint in ``stage`` its output: anything
    else there (half written) goes, and the submission, report and plot of the run it
    resumed come along (linked), since the checkpoint's history includes that export and
    the next ``--resume`` starts from it. Returns the checkpoint's (iterations, seconds), or
    None if the run saved none (then ``out_dir`` stays untouched)."""
    checkpoint = stage / CHECKPOINT_NAME
    if not checkpoint.is_file():
        return None
    for path in stage.iterdir():
        if path.name != CHECKPOINT_NAME:
            remove(path)
    if resumed is not None and resumed.is_dir():
        for name in (SUBMISSION_DIR, CSV_DIR, REPORT_NAME, PLOT_NAME):
            if (resumed / name).exists():
                link_or_copy(resumed / name, stage / name)
    return progress_of(checkpoint)


def _previous_export(resume, config):
    """The submission a resumed run had exported (``<run>/submission``), as a stand-in export
    result with the bounds its own ``solve-report.json`` gives, so that resuming never ends
    with a worse export; None if there is none. (Not the checkpoint's last export: a run
    aborted after a checkpoint may have measured an export that it never wrote.)"""
    folder = Path(resume)
    folder = folder.parent if folder.is_file() else folder
    if not (folder / SUBMISSION_DIR).is_dir() or not (folder / REPORT_NAME).is_file():
        return None
    try:
        report = json.loads((folder / REPORT_NAME).read_text())
        last = Measurement(
            int(report["iterations"]),
            float(report["seconds"]),
            float(report["value_lower"]),
            float(report["value_upper"]),
            "export",
        )
        sub = load_submission(folder / SUBMISSION_DIR, config)
    except Exception:
        return None
    mixtures = tuple(_mixture_of(sub, config, t) for t in (0, 1))
    ex = ExportResult(
        mixtures=mixtures,
        lower=last.lower,
        upper=last.upper,
        rounds=0,
        columns=(0, 0),
        seconds=0.0,
        submission=sub,
    )
    return ex, last


def _mixture_of(sub, config, team: int) -> TeamMixture:
    """A team's marginal mixture in a merged submission (signals with equal strategies merged
    only by probability; used for reporting sizes)."""
    seats = tuple(sorted(config.teams[team]))
    keys: dict[bytes, int] = {}
    weights, items = [], []
    for k, p in enumerate(sub.probs):
        probs = {s: sub.strategies[s][k] for s in seats}
        item = ProductStrategy(seats, probs)
        key = item.key()
        if key in keys:
            weights[keys[key]] += p
        else:
            keys[key] = len(items)
            items.append(item)
            weights.append(p)
    return TeamMixture(team, seats, np.array(weights), tuple(items))


def _warmup() -> None:
    """Compile the solver's kernels on tiny games (``python -m teamleduc.warmup``)."""
    refine_warmup()
    solve("tiny-team", "dcfr", time_limit=5.0, max_iterations=20, handle_sigint=False)
    solve("kuhn", "double-oracle", time_limit=5.0, max_iterations=3, handle_sigint=False)
