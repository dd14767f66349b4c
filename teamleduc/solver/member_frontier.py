"""One member's own decision nodes and, below each of their actions, the next ones.

Why: in a refinement block the free member's counterfactual values and reach change only at
its own decision nodes. Everywhere else the value of a node is the plain sum of its
children's (the other players' and chance's probabilities are already in the terminal values,
:func:`.refine_kernels._member_values`) and the reach passes through unchanged. So the walk
over the whole public tree (team-leduc: 448,532 nodes, of which one member's are 49,220) can go
from each own node straight to its *frontier*: the terminals and own nodes below each of its
actions with no own node between. :func:`.refine_kernels._member_pass` and
:func:`.refine_kernels._member_reach_terminals` walk these lists instead of the tree.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..tree import DECISION, TERMINAL, PublicTree


@dataclass(frozen=True)
class MemberFrontier:
    """Member ``seat``'s M own decision nodes (ascending ids: an own node's frontier holds
    only larger ones) and their frontiers, as compressed lists per slot ``3 m + a`` (own node
    m, action a) and one last slot ``3 M`` for what lies above every own node (the root's).

    ``own``     (M,) int32   the node ids (information set ``m R + x`` is own node m, rank x,
                              as :func:`teamleduc.infosets.infoset_tables` numbers them)
    ``legal``   (M, 3) bool  the actions of each own node
    ``tptr``    (3M + 2,) int64, ``tz`` int32: terminal indices (into ``tree.terminals``) of
                              slot s at ``tz[tptr[s]:tptr[s + 1]]``, ascending
    ``optr``    (3M + 2,) int64, ``om`` int32: own-node indices of slot s, ascending
    """

    own: np.ndarray
    legal: np.ndarray
    tptr: np.ndarray
    tz: np.ndarray
    optr: np.ndarray
    om: np.ndarray

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the kernels' argument order."""
        return self.own, self.legal, self.tptr, self.tz, self.optr, self.om


def _lists(slot_of: np.ndarray, slots: int) -> tuple[np.ndarray, np.ndarray]:
    """(pointers, indices): the indices of ``slot_of`` grouped by slot, ascending in each."""
    order = np.argsort(slot_of, kind="stable")
    ptr = np.searchsorted(slot_of[order], np.arange(slots + 1)).astype(np.int64)
    return ptr, order.astype(np.int32)


@functools.lru_cache(maxsize=8)
def member_frontier(tree: PublicTree, seat: int) -> MemberFrontier:
    """The frontier lists of ``seat`` on ``tree`` (cached), built level by level: a node's
    slot is its parent's own-node action if the parent is ``seat``'s, else its parent's."""
    own = np.flatnonzero((tree.kind == DECISION) & (tree.actor == seat))
    M = len(own)
    index = np.full(tree.num_nodes, -1, np.int64)
    index[own] = np.arange(M)
    slot = np.full(tree.num_nodes, 3 * M, np.int64)
    for level in tree.levels[1:]:
        p = tree.parent[level]
        slot[level] = np.where(index[p] >= 0, 3 * index[p] + tree.action[level], slot[p])
    tptr, tz = _lists(slot[tree.kind == TERMINAL], 3 * M + 1)
    optr, om = _lists(slot[own], 3 * M + 1)
    legal = tree.children[own, :3] >= 0
    out = MemberFrontier(own.astype(np.int32), legal, tptr, tz, optr, om)
    for a in out.arrays:
        a.setflags(write=False)
    return out
