"""What a solve run's arguments resolve to: the checked request (:class:`SolvePlan`) and the
time phases it is given on its game (:class:`Phases`).

The plan is made before anything runs, so that a bad argument or a damaged checkpoint is
refused at once; the phases, once the algorithm has built its game: they keep time inside
``time_limit`` for the export (:func:`_export_budget`), the refinement
(:func:`.refine.auto_seconds`) and the re-measurement and writing (:func:`_finish_reserve`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import GameConfig, require_config
from ..errors import TeamLeducError
from ..infosets import infoset_tables
from .budget import check_format, per_team
from .checkpoint import Checkpoint
from .checkpoint import load as load_checkpoint
from .export import MAX_SIGNALS, is_big
from .measurement import Measurement
from .methods import DEFAULT_METHOD, METHODS
from .refine import auto_seconds


@dataclass(frozen=True)
class SolvePlan:
    """The checked arguments of one session of :func:`.driver.solve`.

    ``method`` is resolved (the checkpoint's when resuming without one); ``previous`` is the
    checkpoint it resumes (None for a fresh run); ``out`` is the folder the session writes
    (the staging folder of ``out_dir``), None for none; ``each_team``: each team has its own
    meta-strategy (the 2025 team zips)."""

    config: GameConfig
    method: str
    time_limit: float
    target_gap: float | None
    max_iterations: int | None
    max_signals: int
    export_format: str
    each_team: bool
    out: Path | None
    resume: str | Path | None
    previous: Checkpoint | None
    progress: Callable[[Measurement], None] | None
    checkpoint_interval: float
    handle_sigint: bool
    export_time: float | None
    refine_seconds: float | None


def plan_solve(
    config: GameConfig,
    method: str | None,
    *,
    time_limit: float,
    target_gap: float | None,
    max_iterations: int | None,
    max_signals: int,
    out: Path | None,
    resume: str | Path | None,
    progress: Callable[[Measurement], None] | None,
    checkpoint_interval: float,
    handle_sigint: bool,
    export_time: float | None,
    refine_seconds: float | None,
    export_format: str | None,
) -> SolvePlan:
    """The plan of :func:`.driver.solve`'s arguments, every one checked (ValueError or
    :class:`~teamleduc.errors.TeamLeducError`); the checkpoint to resume is loaded and
    checked whole."""
    require_config(config)
    if len(config.teams) != 2:
        raise TeamLeducError(
            f"preset {config.name} has {len(config.teams)} teams; the solver "
            "needs exactly two (team A against team B)"
        )
    previous = None
    if resume is not None:
        previous = load_checkpoint(resume, config)
        if method is None:
            method = previous.method
        if method != previous.method:
            raise ValueError(
                f"the checkpoint in {resume} was made by {previous.method!r}, not {method!r}"
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
    for name, value in (
        ("refine_seconds", refine_seconds),
        ("export_time", export_time),
        ("target_gap", target_gap),
    ):
        if value is not None and not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number >= 0, not {value}")
    return SolvePlan(
        config=config,
        method=method,
        time_limit=time_limit,
        target_gap=target_gap,
        max_iterations=max_iterations,
        max_signals=max_signals,
        export_format=export_format,
        each_team=per_team(export_format),
        out=Path(out) if out is not None else None,
        resume=resume,
        previous=previous,
        progress=progress,
        checkpoint_interval=checkpoint_interval,
        handle_sigint=handle_sigint,
        export_time=export_time,
        refine_seconds=refine_seconds,
    )


@dataclass(frozen=True)
class Phases:
    """A session's time plan, in seconds since it started: the main phase ends by
    ``main_deadline``, the export by ``end``; ``refine_seconds`` follow, then ``reserve``
    for the re-measurement and the writing. ``stratified_only``: a big game solved by a
    regret minimiser, exported by its stratified signals alone (quick); ``quick_stop``: a
    big game written to a folder, whose first Ctrl-C keeps the solver's state instead of a
    submission; ``trials``: the LP export is tried early, at doubling times (a target on a
    game it exports)."""

    export_budget: float
    reserve: float
    refine_seconds: float
    main_deadline: float
    end: float
    stratified_only: bool
    quick_stop: bool
    trials: bool


def plan_phases(plan: SolvePlan, game, startup: float) -> Phases:
    """The phases of ``plan`` on ``game``, after ``startup`` seconds spent building it."""
    # team zips: up to max_signals per team, and the merged CSV files when they fit
    signals = plan.max_signals * (2 if plan.each_team else 1)
    reserve = _finish_reserve(game, signals, plan.out is not None)
    # a big game solved by a regret minimiser is exported by its stratified signals alone
    # (quick); the small games and the double oracle use the LP export
    stratified_only = is_big(game) and METHODS[plan.method] == "dag_cfr"
    # Ctrl-C on a big game keeps the solver's state, not a submission (CheckpointKept)
    quick_stop = plan.out is not None and is_big(game) and plan.handle_sigint
    export_budget = (
        _export_budget(plan.time_limit, stratified_only)
        if plan.export_time is None
        else float(plan.export_time)
    )
    refine_seconds = plan.refine_seconds
    if refine_seconds is None:
        # by default only for a regret minimiser on a game the LP export does not solve;
        # also with a target, which that export does not meet there
        refine_seconds = (
            auto_seconds(game, plan.time_limit, plan.max_signals, startup=startup)
            if METHODS[plan.method] == "dag_cfr"
            else 0.0
        )
    refine_seconds = max(float(refine_seconds), 0.0)
    main_deadline = max(plan.time_limit - export_budget - reserve - refine_seconds, 0.0)
    return Phases(
        export_budget=export_budget,
        reserve=reserve,
        refine_seconds=refine_seconds,
        main_deadline=main_deadline,
        end=max(plan.time_limit - reserve - refine_seconds, main_deadline),
        stratified_only=stratified_only,
        quick_stop=quick_stop,
        # with a target, the LP export can meet it long before the average does; a
        # stratified export is never better than the average, so big games are exported
        # when the average meets the target, or at the end
        trials=plan.target_gap is not None and not stratified_only,
    )


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
    # rates from 300 s team-leduc runs (590,640 information sets, 100 signals): the export
    # re-measured in 5-6 s (5.9 kept); then about 10 s for the files and the checkpoint and
    # 2-3 s after the refinement's end building the refined submission (20.3 kept; the runs
    # ended 5 s early)
    reserve = 0.05 + 1e-5 * infosets  # exploitability of the export
    if writing:
        reserve += 3e-7 * max_signals * infosets  # strategy CSV files
        reserve += 4 * 4 * rows / 3e8  # checkpoint arrays
    return reserve
