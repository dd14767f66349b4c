"""What a solve run's arguments resolve to: the checked request (:class:`SolvePlan`) and the
time phases it is given on its game (:class:`Phases`).

The plan is made before anything runs, so that a bad argument or a damaged checkpoint is
refused at once; the phases, once the algorithm has built its game: they keep time inside
``time_limit`` for the export (:func:`_export_budget`), the refinement
(:func:`.refine.auto_seconds`) and the re-measurement and writing (:func:`_finish_reserve`,
and once a big game's export has run, :func:`finish_after_export`, sized by its speed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..arguments import (
    check_callable,
    check_count,
    check_flag,
    check_number,
    check_path,
    excerpt,
    shown,
)
from ..config import GameConfig, get_config, require_config
from ..errors import ArgumentTypeError, ArgumentValueError
from ..infosets import infoset_tables
from .budget import EXPORT_FORMATS, check_format, per_team
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


#: a value of :func:`check_solve_arguments` not given (the argument is not checked)
_UNSET = object()


def check_solve_arguments(config: object = _UNSET, method: object = _UNSET, **arguments) -> dict:
    """The arguments of :func:`.driver.solve` checked before anything runs or is written
    (types first: a bool is no number, ``"5"`` no time limit), as a dict of those given, each
    as the solver takes it: ``config`` a GameConfig of two teams, ``refine_seconds="auto"``
    None. ArgumentTypeError / ArgumentValueError naming the argument; arguments it does not
    know are returned as they are (the driver checks them)."""
    out = dict(arguments)
    if config is not _UNSET:
        out["config"] = config = get_config(config)
        if len(config.teams) != 2:
            raise ArgumentValueError(
                f"preset {config.name} has {len(config.teams)} teams; the solver "
                "needs exactly two (team A against team B)"
            )
    if method is not _UNSET:
        if method is not None and not isinstance(method, str):
            raise ArgumentTypeError(
                f"method must be a method name (str) or None, not {type(method).__name__} "
                f"{shown(method)}"
            )
        if method is not None and method not in METHODS:
            raise ArgumentValueError(
                f"unknown method {excerpt(method)}; choose one of {', '.join(METHODS)}"
            )
        out["method"] = method
    numbers = {  # name: (positive, optional); each finite, checkpoint_interval inf: never
        "time_limit": (True, False),
        "checkpoint_interval": (False, False),
        "target_gap": (False, True),
        "export_time": (False, True),
        "refine_seconds": (False, True),
    }
    for name, (positive, optional) in numbers.items():
        if name not in out:
            continue
        value = out[name]
        if name == "refine_seconds" and isinstance(value, str):
            if value.strip().lower() != "auto":
                raise ArgumentTypeError(
                    f"refine_seconds must be a number, None or 'auto', not str {excerpt(value)}"
                )
            value = None  # teamleduc solve --refine-seconds auto
        minimum = None if positive else 0.0
        out[name] = check_number(
            value,
            name,
            positive=positive,
            minimum=minimum,
            optional=optional,
            finite=name != "checkpoint_interval",
        )
    limit, refine = out.get("time_limit"), out.get("refine_seconds")
    if limit is not None and refine is not None and refine >= limit:
        raise ArgumentValueError(
            f"refine_seconds ({refine:g}) must be less than time_limit ({limit:g}): the "
            "refinement is part of the time limit, after the solving"
        )
    if "max_iterations" in out:
        out["max_iterations"] = check_count(
            out["max_iterations"], "max_iterations", minimum=1, optional=True
        )
    if "max_signals" in out:
        out["max_signals"] = check_count(  # the challenge's cap
            out["max_signals"], "max_signals", minimum=1, maximum=MAX_SIGNALS
        )
    for name in ("out_dir", "resume"):
        if out.get(name) is not None:
            check_path(out[name], name)
    if "progress" in out:
        check_callable(out["progress"], "progress")
    for name in ("handle_sigint", "overwrite"):
        if name in out:
            out[name] = check_flag(out[name], name)
    fmt = out.get("export_format")
    if fmt is not None and not isinstance(fmt, str):
        raise ArgumentTypeError(
            f"export_format must be 'csv', 'teams2025' or None, not {type(fmt).__name__} "
            f"{shown(fmt)}"
        )
    if fmt is not None and fmt not in EXPORT_FORMATS:
        raise ArgumentValueError(
            f"unknown export format {excerpt(fmt)}; choose one of {', '.join(EXPORT_FORMATS)}"
        )
    return out


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
    """The plan of :func:`.driver.solve`'s arguments, every one checked
    (:func:`check_solve_arguments`: ArgumentTypeError / ArgumentValueError naming it, or
    :class:`~teamleduc.errors.TeamLeducError`); the checkpoint to resume is loaded and
    checked whole."""
    require_config(config)
    checked = check_solve_arguments(
        config,
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
    time_limit, target_gap = checked["time_limit"], checked["target_gap"]
    max_iterations, max_signals = checked["max_iterations"], checked["max_signals"]
    checkpoint_interval, handle_sigint = checked["checkpoint_interval"], checked["handle_sigint"]
    export_time, refine_seconds = checked["export_time"], checked["refine_seconds"]
    previous = None
    if resume is not None:
        previous = load_checkpoint(resume, config)
        if method is None:
            method = previous.method
        if method != previous.method:
            raise ArgumentValueError(
                f"the checkpoint in {resume} was made by {previous.method!r}, not {method!r}"
            )
    if method is None:
        method = DEFAULT_METHOD
    if method not in METHODS:  # a checkpoint's own method name
        raise ArgumentValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    export_format = check_format(export_format, config)
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


#: a big game's finish (the re-measurement of its submission, its files and checkpoint) in
#: units of its own stratified export step, which does much the same exact work at the same
#: speed, plus seconds that do not scale with it: on team-leduc the finish took 1.16 to 1.65
#: steps (300 s quiet, 60 s quiet and beside two busy loops), the re-measurement alone 0.51
#: to 0.58; on team-leduc-2025 (60 s, team zips) a 0.65-0.88 s step was followed by a
#: finish of 1.86-2.98 s (0.38-0.46 s re-measuring, quiet and beside two busy loops)
FINISH_PER_EXPORT, FINISH_FIXED = 2.0, 2.0
REMEASURE_PER_EXPORT, REMEASURE_FIXED = 1.0, 0.5


def finish_after_export(export_seconds: float, writing: bool) -> float:
    """Seconds to keep for the finish of a big game (:func:`.export.is_big`) exported by
    stratified signals alone, from ``export_seconds``, how long its export step took in this
    run: the machine's speed now, load included, where :func:`_finish_reserve`'s rates are a
    quiet machine's."""
    if writing:
        return FINISH_PER_EXPORT * export_seconds + FINISH_FIXED
    return REMEASURE_PER_EXPORT * export_seconds + REMEASURE_FIXED


#: a big game's export step and finish in units of the least of its last three exact
#: measurements of the averages (both teams' best responses) in the same run: 74 to 101
#: with the files written and 45 to 52 without beside two busy loops, 124 and 75 on a
#: quiet machine, where the quiet rates of ``main_deadline`` come first (60 s team-leduc
#: solves; the measurement's speed follows the load only roughly)
EXPORT_AND_FINISH_PER_MEASURE = 110.0
EXPORT_AND_REMEASURE_PER_MEASURE = 65.0


def measured_main_deadline(
    phases: Phases, time_limit: float, measure_seconds: Sequence[float], writing: bool
) -> float:
    """When the main phase of a big game (:func:`.export.is_big`) exported by stratified
    signals alone ends, given ``measure_seconds``, the last measurements' seconds in this
    run: early enough for the export and the finish at the machine's speed now, load
    included, and never later than ``phases.main_deadline`` (a quiet machine's rates). The
    least of the last three, once three are made: the first ones carry first calls and
    spikes (0.66, 0.57 and 0.53 s against 0.38 to 0.42 later, beside two busy loops)."""
    if not (phases.stratified_only and len(measure_seconds) >= 3):
        return phases.main_deadline
    per = EXPORT_AND_FINISH_PER_MEASURE if writing else EXPORT_AND_REMEASURE_PER_MEASURE
    needed = per * min(list(measure_seconds)[-3:]) + phases.refine_seconds
    return min(phases.main_deadline, max(time_limit - needed, 0.0))
