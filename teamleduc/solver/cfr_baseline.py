"""The ``cfr:N`` baseline: the toolkit's DCFR average strategy after N iterations.

The pokercamp page's tournament plays "solver bots run for a range of iterations"; these are
they, deterministic (DCFR from uniform, no randomness), one signal, two-player presets only.
:mod:`teamleduc.baselines` looks this module up by name, so the baselines stay below the solver.
"""

from __future__ import annotations

import functools

import numpy as np

from ..config import GameConfig
from ..errors import TeamLeducError
from .dag_cfr import RegretMinimizer, dcfr
from .stratify import stratified_mixture


@functools.lru_cache(maxsize=8)
def solver_average(config: GameConfig, iterations: int) -> dict[int, np.ndarray]:
    """{seat: (n, 3)} average strategies of the toolkit's DCFR after ``iterations`` (the
    ``cfr:N`` baseline; cached, both seats come from one run)."""
    if config.num_seats != 2 or any(len(t) != 1 for t in config.teams):
        raise TeamLeducError(
            f"baseline cfr:{iterations} is for two-player presets; {config.name} has "
            f"{config.num_seats} seats in {len(config.teams)} teams"
        )
    # DCFR as published (averages t**2), not the solver's tuned dcfr: the baseline stays
    # the one its documentation and every grading made with it describe
    rm = RegretMinimizer(config, dcfr(), name="dcfr")
    rm.iterate(iterations)
    out = {}
    for team, seats in enumerate(config.teams):
        mixture = stratified_mixture(rm.game, team, rm.average_sigma(team), 1)
        (item,) = mixture.items
        for s in seats:
            out[s] = np.asarray(item.probs[s], dtype=np.float64)
            out[s].setflags(write=False)
    return out
