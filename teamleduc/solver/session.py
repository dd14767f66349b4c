"""The state of one solve session (:class:`SolveSession`): its clock, its measurements, its
checkpoints and where its main phase and exports stand.

The steps of :mod:`.steps` read and advance this state; :func:`.driver.solve` makes one
session per call.
"""

from __future__ import annotations

import collections
import math
import time

from .candidates import Candidates
from .checkpoint import Checkpoint
from .checkpoint import save as save_checkpoint_file
from .measurement import Measurement
from .plan import SolvePlan, plan_phases
from .resumed import previous_export
from .stop_flag import StopFlag


class SolveSession:
    """One session of a run: ``plan``, its ``alg`` (the method's adapter, :mod:`.methods`) and
    ``candidates``, started at ``t0`` (:func:`time.perf_counter`, when the solve call began:
    the time limit's clock), with Ctrl-C reported by ``stop``.

    ``best`` is the best export so far as (export result, measurement); ``halves`` the team
    zips' refinement start (each team's own K signals) if made, and ``refine_cap`` its signals
    per team."""

    def __init__(self, plan: SolvePlan, alg, candidates: Candidates, t0: float, stop: StopFlag):
        prev = plan.previous
        self.plan, self.alg, self.game = plan, alg, alg.game
        self.candidates, self.stop, self.t0 = candidates, stop, t0
        self.base_seconds = prev.seconds if prev else 0.0
        self.history: list[Measurement] = list(prev.history) if prev else []
        self.phases = plan_phases(plan, alg.game, startup=self.elapsed())
        self.parameters = dict(
            alg.parameters,
            refine_seconds=self.phases.refine_seconds,
            export_format=plan.export_format,
        )
        self.internal_target = plan.target_gap if plan.target_gap is not None else -math.inf
        self.best = previous_export(plan.resume, plan.config) if prev is not None else None
        self.halves = None
        self.refine_cap = plan.max_signals
        self.last_checkpoint = self.elapsed()
        self.step_seconds, self.steps = 0.0, 0  # the algorithm's own time, for its speed
        self.export_seconds: float | None = None  # the last export step's, for the finish
        # the last measurements' seconds, for the time the export and finish will take
        self.measure_seconds: collections.deque[float] = collections.deque(maxlen=3)
        self.next_measure = 0.05 * min(plan.time_limit, 10.0)
        # with a target, try the LP export early and then at doubling times
        self.next_export = 0.5 if self.phases.trials else math.inf

    def elapsed(self) -> float:
        """Seconds since this session started."""
        return time.perf_counter() - self.t0

    def total(self) -> float:
        """Seconds of the run over all its sessions."""
        return self.base_seconds + self.elapsed()

    def record(self, m: Measurement) -> None:
        """Add ``m`` to the history and report it."""
        self.history.append(m)
        if self.plan.progress is not None:
            self.plan.progress(m)

    def record_bounds(self, lower: float, upper: float, what: str) -> None:
        """Record the exact bounds of the strategies measured now (``what`` says which)."""
        self.record(Measurement(self.alg.iterations, self.total(), lower, upper, what))

    def record_refinement(self, lower: float, upper: float) -> None:
        """A refinement block's exact bounds: the refined pair's best so far."""
        self.record_bounds(lower, upper, "refine")

    def save_checkpoint(self) -> None:
        """Save the run's state in the output folder, if any."""
        plan = self.plan
        if plan.out is not None:
            save_checkpoint_file(
                plan.out,
                Checkpoint(
                    plan.config.name,
                    plan.method,
                    self.alg.iterations,
                    self.total(),
                    self.history,
                    self.alg.state(),
                    self.candidates,
                    plan.config.to_dict(),
                ),
            )

    def measure_average(self) -> Measurement:
        """The average's exact bounds. On a big game a Ctrl-C does not wait for them (a few
        seconds on team-leduc): the algorithm's state is whole meanwhile, so it is saved and
        the run aborts at once (the caller keeps the checkpoint)."""
        if not self.phases.quick_stop:
            return self.alg.measure(self.total(), self.candidates)
        self.stop.graceful = False
        try:
            return self.alg.measure(self.total(), self.candidates)
        except KeyboardInterrupt:
            self.save_checkpoint()
            raise
        finally:
            self.stop.graceful = True
