"""The team belief DAG: a team's correlated strategy space as flat arrays, and compiled passes.

Zhang, Farina and Sandholm, "Team belief DAG", ICML 2023, restricted to games whose actions are
all public: a DAG node is a (public node, belief) pair, a belief being the rank sets each member
may still hold given what the team's own play has revealed; where a member acts, the team picks
a prescription (an action for every rank the member may hold). This layer sits below both the
exact team best response (:mod:`teamleduc.best_response_dp`, :mod:`teamleduc.best_response`) and the
TMECor solver (:mod:`teamleduc.solver`), which share its structure and kernels; it imports
neither.

* :mod:`.beliefs` - beliefs and prescription tables of a team (the DAG's nodes and edges);
* :mod:`.structure` - one team's DAG laid out on the public tree (:class:`TeamDag`), both
  teams' game (:class:`DagGame`) and the traversal order (:func:`sweep`);
* :mod:`.kernels` - every numba kernel of the layer (one file: numba's cache is per file);
* :mod:`.passes` - regret update, best-response DP, flows, normalisation, marginals;
* :mod:`.pure` - pure joint strategies: extraction by best response, terminal reach.
"""

from __future__ import annotations

import numpy as np

from .beliefs import (
    MAX_TEAM_RANKS,
    PrescriptionTable,
    TeamBeliefs,
    legal_code,
    prescription_table,
    team_beliefs,
)
from .passes import (
    best_values,
    cfr_update,
    flows,
    marginals,
    match_regrets,
    max_dp_levels,
    normalize,
)
from .pure import (
    PureTeamStrategy,
    best_response_pure,
    extract_pure,
    product_reach,
    pure_reach,
)
from .structure import (
    PARALLEL_MIN_NODES,
    ROW_DTYPE,
    DagGame,
    Sweep,
    TeamDag,
    dag_game,
    passes_in_parallel,
    seats_dag,
    sweep,
    team_dag,
)

__all__ = [
    "MAX_TEAM_RANKS",
    "PrescriptionTable",
    "TeamBeliefs",
    "legal_code",
    "prescription_table",
    "team_beliefs",
    "PARALLEL_MIN_NODES",
    "ROW_DTYPE",
    "DagGame",
    "Sweep",
    "TeamDag",
    "dag_game",
    "seats_dag",
    "sweep",
    "team_dag",
    "best_values",
    "cfr_update",
    "flows",
    "marginals",
    "match_regrets",
    "max_dp_levels",
    "normalize",
    "PureTeamStrategy",
    "best_response_pure",
    "extract_pure",
    "product_reach",
    "pure_reach",
]


def _warmup() -> None:
    """Compile the layer's kernels, serial and parallel, on a tiny game
    (``python -m teamleduc.warmup``)."""
    from ..config import get_config

    game = dag_game(get_config("tiny-team"))
    for parallel in (False, True):
        with passes_in_parallel(parallel):
            for k, d in enumerate(game.dags):
                reg = np.zeros(d.num_rows, ROW_DTYPE)
                sigma = d.uniform_sigma()
                V = d.new_values()
                F = d.new_values()
                other = game.dags[1 - k]
                T = flows(other, other.uniform_sigma(), other.new_values())
                cfr_update(game, k, T, V, reg, sigma, reg.copy(), 1.0, 0.0, True)
                for predictive in (False, True):
                    match_regrets(d, reg, reg, predictive)
                flows(d, sigma, F, reg.copy(), 1.0)
                best_response_pure(game, k, T, V)
                normalize(d, sigma)
                marginals(d, sigma, F)
                pure_reach(d, extract_pure(d, V=V))
