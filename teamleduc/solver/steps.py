"""The steps of a solve session: the main phase, the export, the refinement and the verified
result, each a function of the session's state (:class:`.session.SolveSession`).

:func:`solve_and_export` alternates the main phase (:func:`main_phase`: iterate and measure at
growing intervals) with exports (:func:`export_step`) until a stop reason holds;
:func:`refine_step` refines the best export; :func:`verified_result` re-measures the
submission independently and makes the :class:`.result.SolveResult`; :func:`write_step`
writes it and the last checkpoint.
"""

from __future__ import annotations

import dataclasses
import math
import time

from ..peak_memory import peak_resident_bytes
from .export import (
    ExportResult,
    export,
    from_alternatives,
    measured,
    submission_gap,
    with_alternatives,
    with_submission,
)
from .measurement import Measurement
from .plan import finish_after_export, measured_main_deadline
from .refine import (
    halves_export,
    held_again,
    refine_export,
    refined_team_signals,
    stratified_export,
    unheld_start,
)
from .result import (
    INTERRUPTED,
    ITERATION_LIMIT,
    SOLVED,
    STATUS_MESSAGES,
    TARGET_REACHED,
    TIME_LIMIT,
    SolveResult,
    write_outputs,
)
from .session import SolveSession

#: export budget after Ctrl-C (the LP export's; a stratified export takes what it takes)
INTERRUPT_EXPORT_SECONDS = 0.5
#: why the main phase stopped for an early export of the LP export (a target is set)
TRIAL = "trial"


def main_phase(run: SolveSession) -> str:
    """Iterate and measure until a stop reason; returns it (a status of :mod:`.result`, or
    :data:`TRIAL`). A big game written to a folder then saves a checkpoint, and from here on
    its first Ctrl-C aborts. The last iterate is measured unless it just was."""
    alg, plan, phases = run.alg, run.plan, run.phases
    while True:
        if run.stop.set:
            stopped_by = INTERRUPTED
            break
        if plan.max_iterations is not None and alg.iterations >= plan.max_iterations:
            stopped_by = ITERATION_LIMIT
            break
        deadline = measured_main_deadline(
            phases, plan.time_limit, run.measure_seconds, plan.out is not None
        )
        if run.elapsed() >= deadline and alg.iterations > 0:
            # (at least one iteration: with none there is nothing to export)
            stopped_by = TIME_LIMIT
            break
        started = run.elapsed()
        alg.step()
        now = run.elapsed()
        run.step_seconds, run.steps = run.step_seconds + now - started, run.steps + 1
        if now >= run.next_measure or alg.converged or alg.measure_each_step:
            m = run.measure_average()
            run.measure_seconds.append(run.elapsed() - now)
            run.record(m)
            run.next_measure = now * 1.3 + 0.02
            if m.gap <= max(run.internal_target, 0.0) or alg.converged:
                stopped_by = SOLVED if alg.converged else TARGET_REACHED
                break
        if plan.out is not None and now - run.last_checkpoint >= plan.checkpoint_interval:
            run.save_checkpoint()
            run.last_checkpoint = run.elapsed()
        if now >= run.next_export:
            stopped_by = TRIAL
            break
    if phases.quick_stop:
        # a big game's submission takes tens of seconds to write and its export as
        # long: the first Ctrl-C from here on aborts and keeps this checkpoint
        run.save_checkpoint()
        if stopped_by == INTERRUPTED:
            raise KeyboardInterrupt
        run.stop.graceful = False
    history = run.history
    if (
        stopped_by in (ITERATION_LIMIT, TIME_LIMIT, INTERRUPTED)
        and alg.iterations > 0
        and (
            not history
            or history[-1].iteration != alg.iterations
            or history[-1].what in ("export", "refine")
        )
    ):
        run.record(alg.measure(run.total(), run.candidates))
    return stopped_by


def export_step(run: SolveSession, stopped_by: str) -> ExportResult:
    """Export both teams' strategies now, within the time ``stopped_by`` leaves; the export is
    recorded and kept as ``run.best`` if it is the best so far."""
    alg, game, plan, phases = run.alg, run.game, run.plan, run.phases
    max_signals, each_team = plan.max_signals, plan.each_team
    if stopped_by == INTERRUPTED:
        # Ctrl-C: a short export of the best so far (small games end within 2 s;
        # writing a big game's 100 signals still takes its time)
        budget = min(INTERRUPT_EXPORT_SECONDS, phases.export_budget)
    elif stopped_by in (TRIAL, TARGET_REACHED):
        budget = min(max(phases.main_deadline - run.elapsed(), 0.05), 0.5 * run.elapsed() + 0.2)
    else:
        budget = max(phases.end - run.elapsed(), 0.05)
    t_step = time.perf_counter()
    # a big game that is refined next is exported as the refinement's starting point
    # (team zips: each team's K signals with free weights; CSV: equal weights), not
    # through the general export, whose candidates the refinement would not use
    halves_first = (
        phases.stratified_only
        and phases.refine_seconds > 0
        and stopped_by in (ITERATION_LIMIT, TIME_LIMIT)
        and all(d.num_members == 2 for d in game.dags)
    )
    if halves_first and each_team:
        # team zips that are refined: as many signals per team as the refinement
        # time can move at this machine's speed (DCFR's, measured just now)
        run.refine_cap = refined_team_signals(
            game, max_signals, phases.refine_seconds, run.step_seconds / max(run.steps, 1)
        )
        ex = run.halves = halves_export(
            game, alg.stratified, run.refine_cap, each_team, submission=False
        )
    elif halves_first:
        # the CSV submission: the start of the shared-weights refinement (equal
        # weights; the refinement moves them)
        ex = stratified_export(game, alg.stratified, max_signals, submission=False)
    else:
        alternatives = measured(game, alg.export_alternatives(max_signals))
        ex = (
            from_alternatives(game, alternatives, max_signals=max_signals, per_team=each_team)
            if phases.stratified_only
            else None
        )
    if ex is None:
        alg.export_candidates(run.candidates, time_limit=0.25 * budget)
        budget = max(budget - (time.perf_counter() - t_step), 0.05)
        if any(a is not None for a in alternatives):
            budget *= 0.6  # keep time to merge the mixtures into the submission
        ex = export(
            game,
            run.candidates,
            max_signals=max_signals,
            time_limit=budget,
            target_gap=plan.target_gap if plan.target_gap is not None else 0.0,
            per_team=each_team,
        )
        ex = with_alternatives(game, ex, alternatives, max_signals=max_signals, per_team=each_team)
    direct = alg.direct_export(max_signals)
    if direct is not None and direct.gap < ex.gap:
        ex = direct
    run.export_seconds = time.perf_counter() - t_step
    em = Measurement(alg.iterations, run.total(), ex.lower, ex.upper, "export")
    run.record(em)
    if run.best is None or ex.gap < run.best[0].gap:
        run.best = (ex, em)
    return ex


def _status_after_export(run: SolveSession, stopped_by: str) -> str | None:
    """The run's status once the export after ``stopped_by`` is made, or None to go on (then
    the next trial export and the average's internal target are set)."""
    target_gap = run.plan.target_gap
    if target_gap is not None and run.best[0].gap <= target_gap:
        return SOLVED if stopped_by == SOLVED else TARGET_REACHED
    if stopped_by == SOLVED:
        return SOLVED
    if stopped_by in (INTERRUPTED, ITERATION_LIMIT, TIME_LIMIT) or run.elapsed() >= run.phases.end:
        return stopped_by if stopped_by in (INTERRUPTED, ITERATION_LIMIT) else TIME_LIMIT
    if stopped_by == TARGET_REACHED:
        # the average met the internal target but the export did not: iterate further
        run.internal_target = min(run.internal_target, run.best[0].gap) / 4
    run.next_export = 2.0 * run.elapsed() if run.phases.trials else math.inf
    if run.stop.set:
        return INTERRUPTED
    return None


def solve_and_export(run: SolveSession) -> str:
    """Main phases and exports until the run stops; returns its status (``run.best`` holds
    the best export)."""
    while True:
        stopped_by = main_phase(run)
        export_step(run, stopped_by)
        status = _status_after_export(run, stopped_by)
        if status is not None:
            return status


def refine_step(run: SolveSession, status: str) -> tuple[ExportResult, str]:
    """The best export, refined for the phases' refinement seconds (:mod:`.refine`; ``auto``:
    until the finish, whose seconds a big game sizes by its own export step) unless the run
    was solved, met its target or was interrupted; returns it and the status (a Ctrl-C
    during the refinement makes it ``interrupted``)."""
    ex = run.best[0]
    phases, plan, alg = run.phases, run.plan, run.alg
    wanted = phases.refine_seconds > 0 and status not in (SOLVED, TARGET_REACHED, INTERRUPTED)
    if not (wanted and ex.gap > 0):
        return ex, status
    reserve = phases.reserve
    if phases.stratified_only and run.export_seconds is not None:
        # sized by this run's own export step: its speed now, load included
        reserve = finish_after_export(run.export_seconds, plan.out is not None)
    left = max(plan.time_limit - reserve - run.elapsed(), 0.05)
    # auto (None): up to the finish, taking what the export and the finish leave unused
    budget = left if plan.refine_seconds is None else min(phases.refine_seconds, left)
    keep_sizes = ex is run.halves
    if phases.stratified_only:
        # a big game's submission (up to 1.4 GB on team-leduc where it does not share the
        # mixtures' arrays) is not held while refining: it is built from the mixtures if the
        # refinement does not beat them
        ex = dataclasses.replace(ex, submission=None)
        run.best = run.halves = None
    alg.release_scratch()  # the minimiser's values and flows: not used while refining
    pairs = all(d.num_members == 2 for d in run.game.dags)
    if phases.stratified_only and pairs and not keep_sizes and not plan.each_team:
        ex = unheld_start(ex, alg.stratified, plan.max_signals)
    refined = refine_export(
        run.game,
        ex,
        max_signals=run.refine_cap if keep_sizes else plan.max_signals,
        time_limit=budget,
        candidates=run.candidates,
        opponents=alg.refine_opponents(),
        progress=run.record_refinement,
        restart=alg.stratified,
        keep_sizes=keep_sizes,
        per_team=plan.each_team,
        stop=run.stop.requested,  # Ctrl-C ends the refinement after its iteration
    )
    if refined is not ex:
        ex = refined
        run.record_bounds(ex.lower, ex.upper, "export")
    ex = held_again(ex, alg.stratified, plan.max_signals)
    if run.stop.set:  # Ctrl-C during the refinement: write its best export, as at any stop
        status = INTERRUPTED
    return ex, status


def verified_result(run: SolveSession, ex: ExportResult, status: str) -> SolveResult:
    """The result of the run with export ``ex``: its submission is built if it was not and
    measured again independently (:func:`.export.submission_gap`), which must agree."""
    plan = run.plan
    ex = with_submission(run.game, ex)  # a refinement's start that was not refined or beaten
    lower, upper = ex.lower, ex.upper
    lo2, up2, verified_by = submission_gap(plan.config, ex.submission)
    if abs(lo2 - lower) > 1e-7 * max(1.0, abs(lower)) or abs(up2 - upper) > 1e-7 * max(
        1.0, abs(upper)
    ):
        raise RuntimeError(
            f"export bounds disagree with the independent measurement: "
            f"[{lower}, {upper}] vs [{lo2}, {up2}]"
        )
    lower, upper = lo2, up2
    if plan.target_gap is not None and upper - lower <= plan.target_gap and status != SOLVED:
        status = TARGET_REACHED
    return SolveResult(
        preset=plan.config.name,
        method=plan.method,
        parameters=run.parameters,
        status=status,
        message=STATUS_MESSAGES[status],
        iterations=run.alg.iterations,
        seconds=run.total(),
        lower=lower,
        upper=upper,
        signals=ex.signals,
        team_signals=(ex.mixtures[0].size, ex.mixtures[1].size),
        export_format=plan.export_format,
        max_signals=plan.max_signals,
        mixtures=ex.mixtures,
        export_seconds=ex.seconds,
        history=tuple(run.history),
        submission=ex.submission,
        peak_memory=peak_resident_bytes(),
        verified_by=verified_by,
        out_dir=str(plan.out) if plan.out is not None else None,
    )


def write_step(run: SolveSession, result: SolveResult) -> SolveResult:
    """Write the result's outputs and the last checkpoint into the output folder, if any;
    returns the result as reported (its peak memory includes the submission's writing)."""
    if run.plan.out is not None:
        result = write_outputs(result, run.plan.out, run.plan.config)
        run.save_checkpoint()
    return result
