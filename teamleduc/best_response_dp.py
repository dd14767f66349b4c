"""The exact team best response as a max dynamic programme over public beliefs (MaxDP).

Method (design notes, "Exact team best response"; Zhang, Farina and Sandholm, "Team belief DAG",
ICML 2023, restricted to games whose actions are all public). Against a fixed opponent, a team's
expected utility is linear in its correlated terminal reach: ``u = sum_z sum_x W[z, x] T[z, x]``
(:func:`teamleduc.reach.coalition_weights`). A joint pure strategy of the team reveals, along a
public history, only *which ranks* each member may still hold: the **belief**
``(S_1, S_2)`` of non-empty rank sets. The maximum over joint pure strategies is then a DP on
(public node, belief):

* leaf ``z``:  ``V(z, b) = sum_{x in b} W[z, x]``  (``W @ contains.T``);
* chance, opponent or non-member node: ``V(h, b) = sum_children V(c, b)``;
* node where member ``i`` acts: ``V(h, b) = max over prescriptions f: S_i -> legal actions of
  sum_a V(child_a, b with S_i replaced by f^-1(a))`` (an empty preimage contributes 0).

A team of one uses the singleton beliefs ``{x}`` (one per rank): the DP then is the ordinary
best response, decomposed per private card, which keeps ``kuhn-100`` small.

The beliefs, prescription tables and the compiled DP live in the team belief DAG layer
(:mod:`teamleduc.dag`), shared with the solver: :func:`max_dp` and :func:`argmax_actions` run its
max-DP and extraction kernels on the team's DAG (:func:`teamleduc.dag.max_dp_levels`,
:func:`~teamleduc.dag.extract_pure`). They walk the tree one depth level at a time, keeping only
two levels of values ``(nodes in level, B)``; the argmax is stored as one int32 per (member
decision node, belief).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import get_config
from .dag import TeamBeliefs, TeamDag, extract_pure, max_dp_levels, seats_dag, team_beliefs
from .tree import PublicTree, build_tree

# --------------------------------------------------------------------------- DP API


@dataclass(frozen=True, eq=False)
class MaxDP:
    """Result of :func:`max_dp`.

    Attributes
    ----------
    root_values : (B,) V[root, b] for every belief.
    value : sum of ``root_values`` over ``beliefs.roots``: the team's best-response value.
    choice : (n_dec, B) int32 row of the maximising prescription at each member decision node
        (ascending) and belief, in the table arrays of the team's
        :class:`teamleduc.dag.TeamDag`.
    """

    beliefs: TeamBeliefs
    root_values: np.ndarray
    value: float
    choice: np.ndarray


def leaf_values(beliefs: TeamBeliefs, W: np.ndarray) -> np.ndarray:
    """(Z, B) leaf values ``V(z, b) = sum_{x in b} W[z, x]``."""
    return np.asarray(W, dtype=np.float64) @ beliefs.contains.T


def max_dp(tree: PublicTree, beliefs: TeamBeliefs, W: np.ndarray) -> MaxDP:
    """Maximise ``sum_z sum_x W[z, x] T[z, x]`` over the team's joint pure strategies.

    Parameters
    ----------
    W : (Z, R**m) weights of the team's correlated terminal reach (rows = ``tree.terminals``,
        columns = members' ranks in C order), e.g. from :func:`teamleduc.reach.coalition_weights`.
    """
    root_values, choice = max_dp_levels(_dag(tree, beliefs), W)
    return MaxDP(
        beliefs=beliefs,
        root_values=root_values,
        value=float(root_values[beliefs.roots].sum()),
        choice=choice,
    )


def _dag(tree: PublicTree, beliefs: TeamBeliefs) -> TeamDag:
    """The (cached) belief DAG of ``beliefs``' team on ``tree``."""
    if tree.config != beliefs.config:
        raise ValueError("tree and beliefs belong to different games")
    return seats_dag(tree, beliefs.seats)


def argmax_actions(tree: PublicTree, dp: MaxDP) -> dict[int, np.ndarray]:
    """The pure joint strategy behind ``dp``: ``{seat: (n_seat,) int8 action per infoset}``.

    Information sets the strategy reaches get the maximising prescription's action; the others
    (ranks ruled out by the team's own earlier actions, or public nodes it never reaches) get
    their first legal action in the order c, r, f.
    """
    pure = extract_pure(_dag(tree, dp.beliefs), choice=dp.choice)
    return dict(zip(pure.seats, pure.actions))


def _warmup() -> None:
    """Compile the kernels on a tiny game."""
    tree = build_tree(get_config("tiny-team"))
    for seats in ((0, 2), (1,)):
        b = team_beliefs(tree, seats)
        W = np.zeros((len(tree.terminals), tree.config.num_ranks ** len(seats)))
        argmax_actions(tree, max_dp(tree, b, W))


__all__ = ["MaxDP", "max_dp", "leaf_values", "argmax_actions"]
