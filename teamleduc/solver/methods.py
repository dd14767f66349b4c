"""The solver's methods (:data:`METHODS`) and their adapters to the driver's interface.

The driver (:mod:`.driver`) runs any algorithm through one small interface: ``step``,
``measure``, ``export_candidates``, ``export_alternatives``, ``direct_export``, ``stratified``,
``refine_opponents``, ``state``/``load_state``. :class:`_RegretAlgorithm` adapts the regret
minimisers of :mod:`.dag_cfr`, :class:`_DoubleOracleAlgorithm` the column generation of
:mod:`.column_generation` (each imported on first use: they compile kernels).
"""

from __future__ import annotations

import math

from ..config import GameConfig
from .common import Candidates, Measurement

#: method name -> module (one module per algorithm)
METHODS = {
    "dcfr": "dag_cfr",
    "cfr+": "dag_cfr",
    "pcfr+": "dag_cfr",
    "double-oracle": "column_generation",
}
DEFAULT_METHOD = "dcfr"


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

    def stratified(self, team: int, signals: int, weights=None):
        """Team ``team``'s average as ``signals`` stratified signals, equally likely or with
        the given ``weights`` (also the refinement's restart, :func:`.refine.refine_export`)."""
        from .stratify import stratified_mixture

        return stratified_mixture(
            self.game, team, self.rm.average_sigma(team), signals, weights=weights
        )

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


def make_algorithm(
    method: str, config: GameConfig, candidates: Candidates | None = None
) -> _RegretAlgorithm | _DoubleOracleAlgorithm:
    """The driver's adapter of ``method`` (a key of :data:`METHODS`) on ``config``."""
    if METHODS[method] == "dag_cfr":
        return _RegretAlgorithm(config, method)
    return _DoubleOracleAlgorithm(config, candidates)
