"""The column generation of :mod:`.column_generation` behind the driver's algorithm interface."""

from __future__ import annotations

import math

from .candidates import Candidates
from .measurement import Measurement


class DoubleOracleAlgorithm:
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

    def release_scratch(self) -> None:
        """Nothing to free: the restricted games are small."""

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
