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

The episodes run in a compiled kernel (:func:`teamleduc.envs.kernels.train_slice`: the
simulator's dealing, the bot's sampling and the payoffs) on the environments' public tree and
tables (:func:`teamleduc.envs.env_game`), one after the other: every update sees the Q-table
left by the one before, exactly as the sequential algorithm. ``train(n)`` runs them in slices
of at most :data:`SLICE` episodes (about 0.1 s on team-leduc), one random stream across the
slices, so that Ctrl-C ends a long training at once and the result is the same bit for bit
whatever the slices. The current policy is the greedy one
(:func:`teamleduc.envs.policies.greedy_rows`), exported as a submission by
:func:`teamleduc.envs.policy_submission`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np

from ..arguments import check_seed
from ..config import GameConfig, require_config
from ..envs import env_game
from ..envs.kernels import seed_generator, train_slice
from ..envs.policies import greedy_rows
from ..envs.simulate import cumulative_rows, payoff_tables, tree_tables
from ..errors import ArgumentTypeError, ArgumentValueError
from .fixed import fixed_others

__all__ = ["PROJECT_PARAMETERS", "GRID", "SLICE", "QLearning", "check_count"]

#: episodes per call of the compiled kernel: the longest time Ctrl-C waits is one slice
SLICE = 1 << 14


def check_count(n, what: str) -> int:
    """``n`` as an int >= 0; TypeError for a bool, a float or a string, ValueError below 0,
    naming ``what``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ArgumentTypeError(f"{what} must be an int, not {type(n).__name__} {n!r}")
    if n < 0:
        raise ArgumentValueError(f"{what} must be >= 0, not {int(n)}")
    return int(n)


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
    learn played by the bot). ``Q`` is {0-based seat: (n, 3)} (views into one flat table).
    ``progress``, if given, is called with the number of episodes of each slice done.
    """

    name = "qlearning"

    def __init__(
        self,
        config: GameConfig,
        bot: str,
        *,
        alpha: float = 0.01,
        gamma: float = 0.5,
        epsilon: float = 0.8,
        seats=None,
        seed: int = 0,
        progress: Callable[[int], object] | None = None,
    ):
        self.check_parameters(alpha, gamma, epsilon)
        seed = check_seed(seed)
        self.progress = progress
        self.config = require_config(config)
        self.fixed = fixed_others(self.config, bot, seats)
        self.bot = self.fixed.bot
        self.seats = self.fixed.seats
        # + 0.0: a "-0" typed for a parameter is shown and used as 0
        self.alpha, self.gamma, self.epsilon = (float(v) + 0.0 for v in (alpha, gamma, epsilon))
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

    @staticmethod
    def check_parameters(alpha, gamma, epsilon) -> None:
        """TypeError / ValueError naming the first of ``alpha``, ``gamma``, ``epsilon`` that is
        not a number in [0, 1] (NaN and infinities included)."""
        for label, v in (("alpha", alpha), ("gamma", gamma), ("epsilon", epsilon)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ArgumentTypeError(f"{label} must be a number, not {type(v).__name__} {v!r}")
            if not (math.isfinite(v) and 0.0 <= float(v) <= 1.0):
                raise ArgumentValueError(f"{label} must be in [0, 1], not {v}")

    def train(self, n: int) -> None:
        """Run ``n`` more episodes (each call draws its own seed from the agent's seed
        sequence), in slices of :data:`SLICE`: a KeyboardInterrupt ends it between two slices,
        leaving the episodes done counted in ``episodes``."""
        n = check_count(n, "n")
        if n == 0:
            return
        c, t = self.config, self._tree
        seed = int(self._seed.spawn(1)[0].generate_state(1)[0])
        group, pot, paid, share = self._pay
        seats = np.array(self.seats, np.int64)
        deck = np.arange(c.num_cards, dtype=np.int64)  # shuffled in place across the slices
        seed_generator(seed)
        end = self.episodes + n
        while self.episodes < end:
            k = min(SLICE, end - self.episodes)
            self.episodes = train_slice(
                k,
                self.episodes,
                seats,
                deck,
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
                c.suits,
                c.num_seats,
                c.has_community,
                c.dealt_blind,
                self._zrow,
                group,
                pot,
                paid,
                share,
            )
            if self.progress is not None:
                self.progress(k)

    def policy(self) -> dict:
        """{0-based seat: (n, 3)} the greedy policy of the current Q-tables (point masses)."""
        tables = env_game(self.config).tables
        return {s: greedy_rows(tables[s], q, f"Q of player_{s + 1}") for s, q in self.Q.items()}

    def submission(self):
        """The current policy as a full Submission (other seats: the bot)."""
        return self.fixed.submission_of(self.policy())
