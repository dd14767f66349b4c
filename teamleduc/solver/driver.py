"""The solver's entry point: :func:`solve` runs one method under a time budget and exports.

A run iterates the method (:mod:`.methods`) and measures it exactly at growing intervals,
exports both teams' strategies as a merged submission (:mod:`.export`), optionally refines that
export (:mod:`.refine`), re-measures the submission independently and writes it
(:func:`.result.write_outputs`). :func:`solve` checks the arguments (:mod:`.plan`), stages the
output folder and runs one session (:class:`.session.SolveSession`) through the steps of
:mod:`.steps`; Ctrl-C stops at the next safe point (:class:`.stop_flag.StopFlag`); a checkpoint
lets a later session resume the run (:mod:`.resumed`).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from pathlib import Path

from ..config import GameConfig, get_config
from ..outputs import staged_folder
from .candidates import Candidates
from .checkpoint import CheckpointError, check_state, file_of
from .measurement import Measurement
from .methods import DEFAULT_METHOD, make_algorithm
from .plan import SolvePlan, check_solve_arguments, plan_solve
from .report import load_plotting
from .result import INTERRUPTED, CheckpointKept, SolveResult
from .resumed import keep_checkpoint, resumed_folder
from .session import SolveSession
from .steps import refine_step, solve_and_export, verified_result, write_step
from .stop_flag import StopFlag
from .team_refinement import _warmup as refine_warmup

DEFAULT_TIME_LIMIT = 300.0


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
) -> SolveResult:
    """Solve a two-team game for TMECor and export a submission.

    Parameters
    ----------
    config : a :class:`~teamleduc.config.GameConfig` or a preset name.
    method : one of :data:`METHODS`; None takes the checkpoint's when resuming, else the
        default.
    time_limit : wall-clock seconds for this session from the call (checking a resumed
        checkpoint, building the game, the export and the writing included).
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
    started = time.perf_counter()  # the time limit's clock
    # the arguments used before plan_solve checks the rest
    check_solve_arguments(out_dir=out_dir, resume=resume, overwrite=overwrite)
    plan = functools.partial(
        plan_solve,
        get_config(config),
        method,
        time_limit=time_limit,
        target_gap=target_gap,
        max_iterations=max_iterations,
        max_signals=max_signals,
        resume=resume,
        progress=progress,
        checkpoint_interval=checkpoint_interval,
        handle_sigint=handle_sigint,
        export_time=export_time,
        refine_seconds=refine_seconds,
        export_format=export_format,
    )
    if out_dir is None:
        return _run(plan(out=None), started)
    folder = resumed_folder(resume)
    load_plotting()
    kept = None
    with staged_folder(out_dir, overwrite, allow=folder) as stage:
        try:
            result = _run(plan(out=stage), started)
        except KeyboardInterrupt:
            kept = keep_checkpoint(stage, folder)
            if kept is None:
                raise
    if kept is not None:
        raise CheckpointKept(str(out_dir), *kept)
    return dataclasses.replace(result, out_dir=str(out_dir))


def _run(plan: SolvePlan, t0: float) -> SolveResult:
    """One session of the run ``plan``, whose clock started at ``t0``
    (:func:`time.perf_counter`): main phases and exports, refinement, the verified result,
    written to ``plan.out`` if given. A Ctrl-C after the run's last check aborts
    (KeyboardInterrupt) and writes nothing."""
    prev = plan.previous
    candidates = prev.candidates if prev else Candidates()
    alg = make_algorithm(plan.method, plan.config, candidates if prev else None)
    if prev is not None:
        check_state(plan.resume, prev.state, alg.state())
        try:
            alg.load_state(prev.state, prev.iterations)
        except ValueError as e:  # what only the loaded algorithm can check
            raise CheckpointError(
                f"cannot resume from checkpoint {file_of(plan.resume)}: {e}"
            ) from None
    stop = StopFlag(plan.handle_sigint)
    run = SolveSession(plan, alg, candidates, t0, stop)
    with stop:
        status = solve_and_export(run)
        ex, status = refine_step(run, status)
        result = verified_result(run, ex, status)
        result = write_step(run, result)
    if stop.set and status != INTERRUPTED:
        raise KeyboardInterrupt  # Ctrl-C after the run's last check: abort, write nothing
    return result


def _warmup() -> None:
    """Compile the solver's kernels on tiny games (``python -m teamleduc.warmup``)."""
    refine_warmup()
    solve("tiny-team", "dcfr", time_limit=5.0, max_iterations=20, handle_sigint=False)
    solve("kuhn", "double-oracle", time_limit=5.0, max_iterations=3, handle_sigint=False)
