"""Depth-limited expectiminimax with the hand-strength heuristic (the project's search agent).

The project's agent (section II.B of the report) searches the game tree from its decision:
its own nodes maximise, the opponents' nodes minimise, chance nodes average, and below a depth
limit a heuristic replaces the rest of the tree: "the difference between the number of hands
better and worse than ours". As in the report, the unseen cards are taken as uniform and
independent of the actions (the opponents' cards are not inferred from their bets), so the
search depends only on the public node and the agent's own rank: the agent is a deterministic
policy over its information sets, computed here for all of them at once, by sweeps over the
public tree (no per-history recursion).

Definitions, for the agent's seat ``s`` holding rank ``x`` at public node ``n``:

* unseen cards: the deck minus ``x`` and the community card if it is shown; an opponent's rank
  ``r`` has ``count(r)`` unseen cards;
* hand strength against one opponent: ``w = #unseen cards worse than ours / #unseen``,
  ``t = #tied / #unseen`` (a pair with the community card beats every unpaired rank; before the
  community card only the private ranks compare);
* heuristic ``h(n, x) = P_win * (pot - own) - P_lose * own`` with ``k`` active opponents taken
  independently: ``P_win = w**k``, ``P_lose = 1 - (w + t)**k``. With one opponent this is
  ``(better - worse hands) / #unseen`` weighted by the chips at stake, and at a showdown it is
  the exact expected utility under the uniform assumption; a fold ends at its exact payoff;
* ``V_0 = h``; for ``k >= 1``: ``V_k(n)`` = max over the legal children of ``V_{k-1}`` at the
  agent's nodes (and its teammates'), min at the opponents', the exact payoff at terminals, and
  at a chance node the average of ``V_k`` over the community card (``count(y) / #unseen``; chance
  does not use up depth);
* the policy at depth ``d``: the legal action maximising ``V_d(child)`` (ties to the first of
  c, r, f). Depth 0 scores each action's child by the heuristic alone.
"""

from __future__ import annotations

import numpy as np

from ..config import GameConfig, require_config
from ..envs import env_game, policy_submission
from ..errors import TeamLeducError
from ..tree import CHANCE, DECISION, TERMINAL, PublicTree

__all__ = ["Expectiminimax", "expectiminimax_values", "heuristic"]


def _unseen(config, community: np.ndarray) -> np.ndarray:
    """(N, R_own, R_opp) number of unseen cards of each rank, given own rank and the node's
    community card (-1 when not shown)."""
    R, suits = config.num_ranks, config.suits
    r = np.arange(R)
    own = (r[:, None] == r[None, :]).astype(np.int64)  # (own, opp)
    comm = (community[:, None] == r[None, :]).astype(np.int64)  # (N, opp)
    return suits - own[None, :, :] - comm[:, None, :]


def heuristic(tree: PublicTree, seat: int) -> np.ndarray:
    """(N, R) hand-strength heuristic of 0-based ``seat`` holding each rank at every node
    (module docstring); exact payoffs at fold terminals."""
    config = tree.config
    R = config.num_ranks
    community = tree.community.astype(np.int64)
    count = _unseen(config, community).astype(np.float64)  # (N, x, r)
    r = np.arange(R)
    paired = (r[None, :] == community[:, None]) & (community[:, None] >= 0)
    strength = r[None, :] + R * paired  # (N, rank)
    ours = strength[:, :, None]  # (N, x, 1)
    theirs = strength[:, None, :]  # (N, 1, r)
    total = count.sum(axis=2)
    w = (count * (theirs < ours)).sum(axis=2) / total
    t = (count * (theirs == ours)).sum(axis=2) / total
    active = tree.active.astype(bool)
    k = active.sum(axis=1) - active[:, seat]  # active opponents
    own = tree.contrib[:, seat].astype(np.float64)[:, None]
    pot = tree.pot.astype(np.float64)[:, None]
    kk = k[:, None]
    p_win = np.where(kk > 0, w**kk, 1.0)
    p_lose = np.where(kk > 0, 1.0 - (w + t) ** kk, 0.0)
    h = p_win * (pot - own) - p_lose * own
    h = np.where(~active[:, seat][:, None], -own, h)  # the seat folded
    return h


def expectiminimax_values(tree: PublicTree, seat: int, depth: int) -> np.ndarray:
    """(N, R) ``V_depth`` of 0-based ``seat`` at every node and own rank (module docstring).
    The sweeps stop at a fixed point (once ``depth`` passes the longest line of play), so a
    huge ``depth`` costs what the tree's depth costs."""
    from .qlearning import check_count

    config = tree.config
    depth = check_count(depth, "depth")
    R = config.num_ranks
    h = heuristic(tree, seat)
    kind, actor, children = tree.kind, tree.actor, tree.children
    team = config.teams[config.team_of(seat)]
    dec = np.flatnonzero(kind == DECISION)
    maxing = np.isin(actor[dec], team)
    kids = children[dec, :3]  # (D, 3), -1 where illegal
    legal = kids >= 0
    safe = np.where(legal, kids, 0)
    # community deals (none in one-round games); a dealt small blind's root is no such node
    chance = np.flatnonzero((kind == CHANCE) & (tree.parent >= 0))
    ckids = children[chance, 3 : 3 + R] if len(chance) else np.zeros((0, R), np.int64)
    # P(community y | own x) from the unseen cards before the community card is shown
    before = _unseen(config, np.full(1, -1))[0].astype(np.float64)  # (x, y)
    p_comm = before / before.sum(axis=1, keepdims=True)
    p_comm = np.where((ckids >= 0)[:, None, :], p_comm[None], 0.0)  # (C, x, y)
    csafe = np.where(ckids >= 0, ckids, 0)
    V = h.copy()
    for _ in range(depth + 1):
        prev = V
        V = h.copy()
        if _ > 0:
            vals = prev[safe]  # (D, 3, R)
            big = np.where(legal[:, :, None], vals, -np.inf)
            small = np.where(legal[:, :, None], vals, np.inf)
            V[dec] = np.where(maxing[:, None], big.max(axis=1), small.min(axis=1))
        # chance nodes average this depth's values of their (non-chance) children
        if len(chance):
            V[chance] = np.einsum("cxy,cyx->cx", p_comm, V[csafe])
        if _ > 0 and np.array_equal(V, prev):
            break  # V_k = V_(k-1): a fixed point, every deeper search gives these values
    V[kind == TERMINAL] = h[kind == TERMINAL]
    return V


class Expectiminimax:
    """Depth-limited expectiminimax on every seat of a game (no training).

    ``policy()`` is {0-based seat: (n, 3)} the deterministic policy of depth ``depth`` on ``seats``
    (default every seat); ``submission()`` that policy as a Submission.
    """

    name = "expectiminimax"

    def __init__(self, config: GameConfig, depth: int = 1, seats=None):
        self.config = require_config(config)
        from .qlearning import check_count

        self.depth = check_count(depth, "depth")
        S = self.config.num_seats
        self.seats = tuple(range(S)) if seats is None else tuple(sorted(set(seats)))
        bad = [s for s in self.seats if not (isinstance(s, int) and 0 <= s < S)]
        if bad or not self.seats:
            raise TeamLeducError(
                f"seats {list(seats)}: give 0-based seats of {self.config.name} (0..{S - 1})"
            )

    def policy(self) -> dict:
        game = env_game(self.config)
        tree = game.tree
        out = {}
        for s in self.seats:
            tab = game.tables[s]
            V = expectiminimax_values(tree, s, self.depth)
            kids = tree.children[tab.node, :3]  # (n, 3)
            score = V[np.where(kids >= 0, kids, 0), tab.rank[:, None]]
            best = np.argmax(np.where(tab.legal, score, -np.inf), axis=1)
            out[s] = np.eye(3)[best]
        return out

    def submission(self):
        return policy_submission({s + 1: a for s, a in self.policy().items()}, self.config)
