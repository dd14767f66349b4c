"""Tabular Q-learning of one seat against a fixed bot (the learner of the RLCard Leduc project).

The learner keeps one table ``Q[s][i, a]`` per seat it learns, indexed by that seat's
information set ``i`` (the row of its strategy file, the environments' ``infoset_index``) and
action ``a`` (c, r, f). It plays epsilon-greedy (a uniform legal action with probability
``epsilon``, else the legal action of highest Q, ties to the first in c, r, f) and after each of
its own decisions applies Watkins' update (Watkins and Dayan, "Q-learning", Machine Learning
1992; equation (7) of the project report)::

    Q(s_t, a_t) <- Q(s_t, a_t) + alpha * (r_t + gamma * max_a Q(s_{t+1}, a) - Q(s_t, a_t))

where ``s_{t+1}`` is the learner's next information set of the same hand and ``r_t = 0``, or,
after its last decision, the target is the hand's reward (its chips won, no bootstrap). The
episodes rotate over the learning seats (episode e plays seat ``seats[e % len(seats)]``); the
bot plays every other seat.

The episodes run in one compiled kernel (:func:`teamleduc.envs.kernels.train_episodes`, beside
the simulator's, sharing its dealing, the bot's sampling and the payoffs) on the environments'
public tree and tables (:func:`teamleduc.envs.env_game`), one after the other: every update
sees the Q-table left by the one before, exactly as the sequential algorithm. The current policy is the greedy one
(:func:`teamleduc.envs.greedy_policy`), exported as a submission by
:func:`teamleduc.envs.policy_submission`.
"""

from __future__ import annotations

import numpy as np

from ..config import get_config
from ..envs import env_game, greedy_policy
from ..envs.kernels import train_episodes
from ..envs.simulate import cumulative_rows, payoff_tables, tree_tables
from ..errors import TeamLeducError
from .fixed import fixed_others

__all__ = ["PROJECT_PARAMETERS", "GRID", "QLearning"]

#: the project's hyper-parameter grid (report, section III.A.ii)
GRID = {
    "alpha": (0.001, 0.01, 0.1, 0.2),
    "gamma": (0.1, 0.3, 0.5, 0.8),
    "epsilon": (0.5, 0.8, 0.9, 0.99),
}
#: the combination the project retained against each bot (alpha, gamma, epsilon)
PROJECT_PARAMETERS = {
    "uniform": (0.001, 0.3, 0.5),
    "aggressive": (0.001, 0.5, 0.8),
    "cautious": (0.01, 0.5, 0.8),
}


class QLearning:
    """Tabular epsilon-greedy Q-learning of ``seats`` (0-based; default every seat) against the
    baseline ``bot`` on every other seat.

    ``train(n)`` runs n more episodes (one hand each); ``policy()`` is the current greedy policy
    {seat: (n, 3)}; ``submission()`` that policy as a full Submission (the seats it does not
    learn played by the bot). ``Q`` is {seat: (n, 3)} (views into one flat table).
    """

    name = "qlearning"

    def __init__(
        self,
        config,
        bot: str,
        *,
        alpha: float = 0.01,
        gamma: float = 0.5,
        epsilon: float = 0.8,
        seats=None,
        seed: int = 0,
    ):
        for label, v in (("alpha", alpha), ("gamma", gamma), ("epsilon", epsilon)):
            if not 0.0 <= float(v) <= 1.0:
                raise TeamLeducError(f"{label} must be in [0, 1], not {v}")
        self.config = get_config(config)
        self.fixed = fixed_others(self.config, bot, seats)
        self.bot = self.fixed.bot
        self.seats = self.fixed.seats
        self.alpha, self.gamma, self.epsilon = float(alpha), float(gamma), float(epsilon)
        game = env_game(self.config)
        tree = game.tree
        S = self.config.num_seats
        sizes = [t.size for t in game.tables]
        base = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self._q_base = base
        self._Q = np.zeros((int(sum(sizes)), 3))
        self._legal = np.ascontiguousarray(np.concatenate([t.legal for t in game.tables]))
        self._thresholds = np.ascontiguousarray(
            np.concatenate(
                [cumulative_rows(self.fixed.submission.strategies[s][0]) for s in range(S)]
            )
        )
        self._gid, self._zrow = tree_tables(tree)
        self._pay = payoff_tables(tree)
        self._tree = tree
        self._seed = np.random.SeedSequence(int(seed))
        self.episodes = 0
        self.Q = {s: self._Q[base[s] : base[s] + sizes[s]] for s in self.seats}

    def train(self, n: int) -> None:
        """Run ``n`` more episodes (each draws its own seed from the agent's seed sequence)."""
        n = int(n)
        if n <= 0:
            return
        c, t = self.config, self._tree
        seed = int(self._seed.spawn(1)[0].generate_state(1)[0])
        group, pot, paid, share = self._pay
        self.episodes = train_episodes(
            n,
            self.episodes,
            seed,
            np.array(self.seats, np.int64),
            t.children,
            t.kind,
            t.actor,
            self._gid,
            self._thresholds,
            self._q_base,
            self._Q,
            self._legal,
            self._q_base,
            self.alpha,
            self.gamma,
            self.epsilon,
            c.num_cards,
            c.suits,
            c.num_seats,
            c.has_community,
            self._zrow,
            group,
            pot,
            paid,
            share,
        )

    def policy(self) -> dict:
        """{seat: (n, 3)} the greedy policy of the current Q-tables (point masses)."""
        return greedy_policy(self.Q, self.config)

    def submission(self):
        """The current policy as a full Submission (other seats: the bot)."""
        return self.fixed.submission_of(self.policy())
