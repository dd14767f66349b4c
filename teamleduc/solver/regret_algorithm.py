"""The regret minimisers of :mod:`.dag_cfr` behind the driver's algorithm interface.

:class:`RegretAlgorithm` is internal to the toolkit (not part of :mod:`teamleduc.api`): the
driver (:mod:`.methods`) and the benchmarks drive a regret minimiser through it.
"""

from __future__ import annotations

import math

from .candidates import Candidates
from .measurement import Measurement


class RegretAlgorithm:
    """Adapter of :class:`.dag_cfr.RegretMinimizer` for the driver (internal to the toolkit;
    the benchmarks drive it too)."""

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

    def release_scratch(self) -> None:
        """Free the regret minimiser's scratch arrays before a long phase that does not
        iterate (the refinement): they are allocated again on the next use."""
        self.rm.release_scratch()

    def state(self) -> dict:
        return self.rm.state()

    def load_state(self, state: dict, iterations: int) -> None:
        if int(state["t"]) != iterations:
            raise ValueError(
                f"its algorithm made {int(state['t'])} iterations, its metadata says {iterations}"
            )
        self.rm.load_state(state)
