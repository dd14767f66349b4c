"""TMECor solver: ``solve(config, method=...)`` and its result.

One entry point, like :func:`scipy.optimize.linprog`: the method name is checked against
:data:`METHODS` and dispatched to one module per algorithm:

====================  ==========================================================================
``"dcfr"``            discounted CFR on both teams' belief DAGs (:mod:`.dag_cfr`, the default)
``"cfr+"``            CFR+ on both DAGs (:mod:`.dag_cfr`)
``"pcfr+"``           predictive CFR+ on both DAGs (:mod:`.dag_cfr`)
``"double-oracle"``   column generation over joint pure strategies with exact best responses,
                      restricted games solved by HiGHS (:mod:`.column_generation`)
====================  ==========================================================================

Every run ends with an export (:mod:`.export`): both teams' strategies as mixtures of at most
``max_signals`` product strategies merged into one submission. The reported bounds and gap are
those of the **exported submission**, measured with exact team best responses
(:func:`teamleduc.best_response.exploitability`); the progress measurements of the run (average
strategies of a regret minimiser, restricted equilibria of the double oracle) are exact too,
but of the strategies inside the algorithm.

Example
-------
>>> from teamleduc.solver import solve
>>> r = solve("kuhn", method="dcfr", time_limit=5, target_gap=1e-6)   # doctest: +SKIP
>>> print(r.lower, r.upper)                                           # doctest: +SKIP
-0.0555555... -0.0555555...
"""

from __future__ import annotations

import math
import resource
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..config import GameConfig, get_config
from ..errors import TeamLeducError
from .common import Candidates, Measurement, TeamMixture
from .export import MAX_SIGNALS

#: method name -> module (one module per algorithm)
METHODS = {
    "dcfr": "dag_cfr",
    "cfr+": "dag_cfr",
    "pcfr+": "dag_cfr",
    "double-oracle": "column_generation",
}
DEFAULT_METHOD = "dcfr"
DEFAULT_TIME_LIMIT = 300.0

#: status codes of :class:`SolveResult`
TARGET_REACHED, TIME_LIMIT, ITERATION_LIMIT, INTERRUPTED, SOLVED = 0, 1, 2, 3, 4
STATUS_MESSAGES = {
    TARGET_REACHED: "the exported submission reached the target gap",
    TIME_LIMIT: "time limit reached",
    ITERATION_LIMIT: "iteration limit reached",
    INTERRUPTED: "interrupted (Ctrl-C): best strategies so far exported",
    SOLVED: "solved exactly: no best response improves on the restricted game",
}

__all__ = ["solve", "SolveResult", "METHODS", "DEFAULT_METHOD", "DEFAULT_TIME_LIMIT", "Measurement"]


def _peak_memory() -> int:
    """Peak resident memory of this process in bytes (Linux reports KiB)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Outcome of :func:`solve`.

    Attributes
    ----------
    status : 0 target gap reached, 1 time limit, 2 iteration limit, 3 interrupted, 4 solved
        exactly (see :data:`STATUS_MESSAGES`); ``message`` words it.
    lower, upper : exact bounds on the TMECor value (team A's chips) certified by the exported
        submission: ``lower`` = what its team-A half guarantees (against team B's exact best
        response), ``upper`` = team A's exact best-response value against its team-B half.
    gap : ``upper - lower``, the exported submission's saddle-point gap.
    iterations, seconds : algorithm iterations and wall-clock seconds over all sessions of the
        run (a resumed run adds up).
    signals : signals of the merged meta-strategy; ``team_signals`` each team's mixture size.
    history : every exact measurement of the run (``Measurement.what`` says of what).
    submission : the exported full submission (not in :meth:`to_dict`).
    peak_memory : peak resident memory of the process in bytes.
    """

    preset: str
    method: str
    parameters: dict
    status: int
    message: str
    iterations: int
    seconds: float
    lower: float
    upper: float
    signals: int
    team_signals: tuple[int, int]
    export_seconds: float
    history: tuple
    submission: object
    peak_memory: int
    verified_by: str
    out_dir: str | None = None

    @property
    def gap(self) -> float:
        return self.upper - self.lower

    @property
    def success(self) -> bool:
        return self.status in (TARGET_REACHED, SOLVED)

    def __str__(self) -> str:
        def count(n, word):
            return f"{n} {word}" + ("" if n == 1 else "s")

        lines = [
            f"{self.preset}: {self.method}, {count(self.iterations, 'iteration')} in "
            f"{self.seconds:.1f} s ({self.message})",
            f"  TMECor value of team A in [{self.lower:+.9f}, {self.upper:+.9f}]",
            f"  exported submission: {count(self.signals, 'signal')} "
            f"(team A {self.team_signals[0]}, team B {self.team_signals[1]}), "
            f"exact saddle-point gap {self.gap:.3e} "
            f"(measured by {self.verified_by})",
            f"  peak memory {self.peak_memory / 2**30:.2f} GiB",
        ]
        if self.out_dir:
            lines.append(f"  written to {self.out_dir}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "preset": self.preset,
            "version": __version__,
            "algorithm": self.method,
            "parameters": _jsonable(self.parameters),
            "status": self.status,
            "message": self.message,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
            "value_lower": self.lower,
            "value_upper": self.upper,
            "gap": self.gap,
            "signals": self.signals,
            "team_signals": list(self.team_signals),
            "export_seconds": round(self.export_seconds, 3),
            "peak_memory_bytes": self.peak_memory,
            "peak_memory_gib": round(self.peak_memory / 2**30, 3),
            "gap_measured_by": self.verified_by,
            "history": [m.to_dict() for m in self.history],
        }


def _jsonable(obj):
    """Infinite floats as strings ("inf", "-inf"): strict JSON has no Infinity."""
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and math.isinf(obj):
        return "inf" if obj > 0 else "-inf"
    return obj


# --------------------------------------------------------------------------- algorithms


class _RegretAlgorithm:
    """Adapter of :class:`.dag_cfr.RegretMinimizer` for the driver."""

    def __init__(self, config, method: str):
        from .dag_cfr import VARIANTS, RegretMinimizer

        self.rm = RegretMinimizer(config, VARIANTS[method], name=method)
        self.game = self.rm.game
        self.parameters = {"discounting": VARIANTS[method].to_dict(), "alternating": True}
        self.converged = False
        self.measure_each_step = False

    @property
    def iterations(self) -> int:
        return self.rm.t

    def step(self) -> None:
        self.rm.iterate(1)

    def measure(self, elapsed: float, candidates: Candidates) -> Measurement:
        return self.rm.measure(elapsed, candidates)

    def export_candidates(self, candidates: Candidates, time_limit: float = math.inf) -> None:
        self.rm.add_export_candidates(candidates, time_limit=time_limit)

    def export_alternatives(self, max_signals: int) -> tuple:
        """Per team, the average as ``max_signals`` stratified signals (:mod:`.stratify`) for a
        team of two, the average itself (one signal) for a team of one; None before the first
        iteration. Equal weights on both sides merge into ``max_signals`` signals."""
        if self.rm.t == 0:
            return (None, None)
        return tuple(
            self.stratified(k, max_signals if d.num_members == 2 else 1)
            for k, d in enumerate(self.game.dags)
        )

    def stratified(self, team: int, signals: int):
        """Team ``team``'s average as ``signals`` stratified signals (also the refinement's
        restart, :func:`.refine.refine_export`)."""
        from .stratify import stratified_mixture

        return stratified_mixture(self.game, team, self.rm.average_sigma(team), signals)

    def direct_export(self, max_signals: int):
        return None

    def refine_opponents(self) -> tuple:
        """For refining team k: the other team's (regrets, current strategy), to start the
        refinement's opponent near equilibrium instead of from uniform."""
        return ((self.rm.reg[1], self.rm.sigma[1]), (self.rm.reg[0], self.rm.sigma[0]))

    def state(self) -> dict:
        return self.rm.state()

    def load_state(self, state: dict, iterations: int) -> None:
        self.rm.load_state(state)


class _DoubleOracleAlgorithm:
    """Adapter of :class:`.column_generation.DoubleOracle` for the driver."""

    def __init__(self, config, initial: Candidates | None = None):
        from .column_generation import DoubleOracle

        self.do = DoubleOracle(config, initial=initial)
        self.game = self.do.game
        self.parameters = {"lp": "scipy.optimize.linprog(method='highs')"}
        self._pending = None
        self.measure_each_step = True

    @property
    def iterations(self) -> int:
        return self.do.iterations

    @property
    def converged(self) -> bool:
        return getattr(self.do, "converged", False)

    def step(self) -> None:
        self._pending = self.do.iterate()

    def measure(self, elapsed: float, candidates: Candidates) -> Measurement:
        m = self._pending if self._pending is not None else self.do.iterate()
        self._pending = None
        self.export_candidates(candidates)
        return Measurement(m.iteration, elapsed, m.lower, m.upper, "restricted")

    def export_candidates(self, candidates: Candidates, time_limit: float = math.inf) -> None:
        for team in (0, 1):
            for s in self.do.rg.sets[team].items:
                candidates.add(team, s, "column")

    #: no average to restart a refinement from (:func:`.refine.refine_export`)
    stratified = None

    def export_alternatives(self, max_signals: int) -> tuple:
        return (None, None)

    def refine_opponents(self) -> tuple:
        return (None, None)

    def direct_export(self, max_signals: int):
        """The best restricted mixtures measured so far, if they fit in ``max_signals``."""
        from .export import ExportResult, merge_submission

        if self.do.best[0] is None:
            return None
        a, b, lower, upper = self.do.best_mixtures()
        if a.size + b.size - 1 > max_signals:
            return None
        sub = merge_submission(self.game, (a, b))
        return ExportResult(
            mixtures=(a, b),
            lower=lower,
            upper=upper,
            rounds=0,
            columns=self.do.rg.shape,
            seconds=0.0,
            submission=sub,
        )

    def state(self) -> dict:
        return {}

    def load_state(self, state: dict, iterations: int) -> None:
        self.do.iterations = iterations


def _make_algorithm(method: str, config, candidates: Candidates | None):
    if METHODS[method] == "dag_cfr":
        return _RegretAlgorithm(config, method)
    return _DoubleOracleAlgorithm(config, candidates)


# --------------------------------------------------------------------------- driver


class _StopFlag:
    """Ctrl-C sets the flag (the run stops at the next safe point); a second one aborts."""

    def __init__(self, install: bool):
        self.set = False
        self._old = None
        self._install = install and threading.current_thread() is threading.main_thread()

    def __enter__(self):
        if self._install:

            def handler(signum, frame):
                if self.set:
                    raise KeyboardInterrupt
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
    from ..infosets import infoset_tables

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
    config,
    method: str | None = DEFAULT_METHOD,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    target_gap: float | None = None,
    max_iterations: int | None = None,
    max_signals: int = 100,
    out_dir=None,
    resume=None,
    progress=None,
    checkpoint_interval: float = 120.0,
    handle_sigint: bool = True,
    export_time: float | None = None,
    refine_seconds: float | None = None,
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
    max_signals : cap on the exported meta-strategy's signals (K_A + K_B - 1).
    out_dir : if given, write ``submission/``, ``solve-report.json``, ``convergence.png`` and
        ``checkpoint.npz`` there (checkpoints also every ``checkpoint_interval`` seconds).
    resume : a run folder (or checkpoint file) to continue; its method is used.
    progress : callable receiving every :class:`Measurement` as it is made.
    handle_sigint : while running, Ctrl-C stops the run at the next safe point, exports the
        best strategies so far and writes the checkpoint (a second Ctrl-C aborts).
    export_time : seconds kept for the final export (default 15% of ``time_limit``).
    refine_seconds : seconds (within ``time_limit``) for refining the final export
        (:mod:`.refine`); the refined export is kept only if its exact gap is smaller.
        0 = off; None (default) = :func:`.refine.auto_seconds` for a regret minimiser (half
        of the time left after building the DAGs, on games from small-team-leduc up, when
        that buys each team about 40 refinement iterations, else 0), otherwise off. Not
        after Ctrl-C, nor when the target gap was met before.

    Returns
    -------
    SolveResult
    """
    from . import checkpoint as ckpt
    from .export import (
        export,
        from_alternatives,
        is_big,
        measured,
        submission_gap,
        with_alternatives,
    )

    config = get_config(config) if not isinstance(config, GameConfig) else config
    if len(config.teams) != 2:
        raise TeamLeducError(
            f"preset {config.name} has {len(config.teams)} teams; the solver "
            "needs exactly two (team A against team B)"
        )
    prev = None
    if resume is not None:
        prev = ckpt.load(resume, config)
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
    if not time_limit > 0:  # also refuses NaN, which would never stop
        raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit}")
    if not 1 <= max_signals <= MAX_SIGNALS:
        raise ValueError(
            f"max_signals must be between 1 and {MAX_SIGNALS} (the challenge's "
            f"cap), not {max_signals}"
        )
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
    alg = _make_algorithm(method, config, candidates if prev else None)
    if prev is not None:
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
            ckpt.save(
                out,
                ckpt.Checkpoint(
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

    reserve = _finish_reserve(game, max_signals, out is not None)
    # a big game solved by a regret minimiser is exported by its stratified signals alone
    # (quick); the small games and the double oracle use the LP export
    stratified_only = is_big(game) and METHODS[method] == "dag_cfr"
    export_budget = (
        _export_budget(time_limit, stratified_only) if export_time is None else float(export_time)
    )
    if refine_seconds is None:
        # by default only for a regret minimiser on a game the LP export does not solve;
        # also with a target, which that export does not meet there (small-team-leduc, target
        # 1e-4 in 120 s: 3.1e-2 without refinement)
        from .refine import auto_seconds

        refine_seconds = (
            auto_seconds(game, time_limit, max_signals, startup=session())
            if METHODS[method] == "dag_cfr"
            else 0.0
        )
    refine_seconds = max(float(refine_seconds), 0.0)
    parameters = dict(alg.parameters, refine_seconds=refine_seconds)
    main_deadline = max(time_limit - export_budget - reserve - refine_seconds, 0.0)
    end = max(time_limit - reserve - refine_seconds, main_deadline)
    internal_target = target_gap if target_gap is not None else -math.inf
    status = TIME_LIMIT
    best = None  # (export result, measurement)
    halves = None  # the export of the refinement's starting point, if made
    if prev is not None:
        best = _previous_export(resume, config, history)
    last_ckpt = session()
    next_measure = 0.05 * min(time_limit, 10.0)
    # with a target, try the LP export early and then at doubling times: on the games it
    # exports, it can meet the target long before the average does (tiny-team-leduc: exact
    # after 2 s, when the average is at 1e-5). The first trial used to wait for 5 % of the
    # limit (30 s of a 600 s limit). A stratified export is never better than the average, so
    # big games are exported when the average meets the target, or at the end.
    trials = target_gap is not None and not stratified_only
    next_export = 0.5 if trials else math.inf

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
                alg.step()
                now = session()
                if now >= next_measure or alg.converged or alg.measure_each_step:
                    m = alg.measure(total(), candidates)
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
                budget = min(30.0, export_budget)
            elif stopped_by in ("trial", TARGET_REACHED):
                budget = min(max(main_deadline - session(), 0.05), 0.5 * session() + 0.2)
            else:
                budget = max(end - session(), 0.05)
            t_cand = time.perf_counter()
            # a big game that is refined next is exported as the refinement's starting point
            # (its halves), not as max_signals equal weights it would only restart from
            halves_first = (
                stratified_only
                and refine_seconds > 0
                and stopped_by in (ITERATION_LIMIT, TIME_LIMIT)
                and all(d.num_members == 2 for d in game.dags)
            )
            if halves_first:
                from .refine import halves_export

                ex = halves = halves_export(game, alg.stratified, max_signals)
            else:
                alternatives = measured(game, alg.export_alternatives(max_signals))
                ex = (
                    from_alternatives(game, alternatives, max_signals=max_signals)
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
                )
                ex = with_alternatives(game, ex, alternatives, max_signals=max_signals)
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
            from .refine import refine_export

            budget = min(refine_seconds, max(time_limit - reserve - session(), 0.05))

            def refined_block(lower, upper):
                # each block's mixture is measured exactly: the refined pair's best so far
                record(Measurement(alg.iterations, total(), lower, upper, "refine"))

            refined = refine_export(
                game,
                ex,
                max_signals=max_signals,
                time_limit=budget,
                candidates=candidates,
                opponents=alg.refine_opponents(),
                progress=refined_block,
                restart=alg.stratified,
                keep_sizes=ex is halves,
            )
            if refined is not ex:
                ex = refined
                record(Measurement(alg.iterations, total(), ex.lower, ex.upper, "export"))
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
    return result


def _previous_export(resume, config, history):
    """The submission a resumed run had exported (``<run>/submission``), as a stand-in export
    result, so that resuming never ends with a worse export; None if there is none."""
    from ..submission import load_submission
    from .export import ExportResult

    folder = Path(resume)
    folder = folder.parent if folder.is_file() else folder
    exports = [m for m in history if m.what == "export"]
    if not exports or not (folder / "submission").is_dir():
        return None
    try:
        sub = load_submission(folder / "submission", config)
    except Exception:
        return None
    last = exports[-1]
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
    from .common import ProductStrategy

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


def write_outputs(result: SolveResult, out: Path, config) -> None:
    """``submission/``, ``solve-report.json`` and ``convergence.png`` in ``out``."""
    from ..submission import write_submission
    from .report import PLOT_NAME, plot_convergence, write_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_submission(result.submission, out / "submission", overwrite=True, config=config)
    write_report(result, out)
    plot_convergence(
        result.history,
        out / PLOT_NAME,
        title=f"{result.preset}: {result.method}, exact saddle-point gap",
    )


def _warmup() -> None:
    """Compile the solver's kernels on tiny games (``python -m teamleduc.warmup``)."""
    from . import refine

    refine._warmup()
    solve("tiny-team", "dcfr", time_limit=5.0, max_iterations=20, handle_sigint=False)
    solve("kuhn", "double-oracle", time_limit=5.0, max_iterations=3, handle_sigint=False)
