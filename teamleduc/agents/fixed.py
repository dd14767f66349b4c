"""One seat against fixed others: the exact value of any strategy of that seat, and its ceiling.

Every learning agent of the study plays one seat while a rule bot plays every other seat (the
teammate included, in team presets). With the others fixed, the seat's expected utility is
linear in its own terminal reach (:func:`teamleduc.reach.coalition_weights`)::

    u_s(sigma) = sum_z sum_x W_s[z, x] R_s^sigma[z, x]

so one weight array per seat gives the exact value of every policy the agent passes through
(the points of a learning curve) and, through the best-response dynamic programme of
:mod:`teamleduc.best_response` on the same ``W_s``, the exact best-response value: the ceiling
that no policy of that seat can pass. Nothing is sampled. This is the machinery of
:func:`teamleduc.envs.play.seat_value`, kept here per seat so that it is built once per study.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..best_response import best_response_to_weights
from ..config import GameConfig, require_config
from ..entrants import load_entrant
from ..errors import TeamLeducError
from ..reach import coalition_weights, seat_terminal_reach, team_reach
from ..tree import PublicTree, build_tree

__all__ = ["FixedOthers", "fixed_others"]


@dataclass(frozen=True, eq=False)
class FixedOthers:
    """The seats ``seats`` of ``config``, each against ``bot`` on every other seat.

    Attributes
    ----------
    bot : the bot's name; submission : the bot as a one-signal Submission of every seat.
    weights : {seat: (Z, R) W_s}; ceilings : {seat: exact best-response value of that seat}.
    best : {seat: (n, 3) a pure best response of that seat (point masses)}.
    """

    config: GameConfig
    tree: PublicTree
    bot: str
    submission: object
    seats: tuple[int, ...]
    weights: dict
    ceilings: dict
    best: dict

    def value(self, seat: int, strategy: np.ndarray) -> float:
        """Exact expected utility of 0-based ``seat`` playing ``strategy`` ((n, 3), c r f)."""
        reach = seat_terminal_reach(self.tree, seat, np.ascontiguousarray(strategy, np.float64))
        return float((self.weights[seat] * reach).sum()) + 0.0

    def mean_value(self, policy: dict) -> float:
        """Mean over ``self.seats`` of :meth:`value` for ``policy`` {seat: (n, 3)}."""
        return float(np.mean([self.value(s, policy[s]) for s in self.seats]))

    def submission_of(self, policy: dict):
        """``policy`` {0-based seat: (n, 3)} completed with the bot on every other seat, as a validated
        one-signal Submission of every seat (:func:`teamleduc.envs.policy_submission`)."""
        from ..envs import policy_submission

        full = {  # 0-based seats here, numbered from 1 for the public function
            s + 1: policy.get(s, self.submission.strategies[s][0])
            for s in range(self.config.num_seats)
        }
        return policy_submission(full, self.config)

    @property
    def ceiling(self) -> float:
        """Mean over ``self.seats`` of the exact best-response values."""
        return float(np.mean([self.ceilings[s] for s in self.seats]))


def _weights(tree: PublicTree, bot, seat: int) -> np.ndarray:
    """W of ``seat`` with ``bot`` (one signal) on every other seat, grouped by team."""
    fixed = []
    for team in tree.config.teams:
        group = tuple(s for s in team if s != seat)
        if group:
            fixed.append((group, team_reach(tree, bot, group)))
    return coalition_weights(tree, (seat,), fixed)


@functools.lru_cache(maxsize=32)
def _fixed_others(config: GameConfig, bot: str, seats: tuple[int, ...]) -> FixedOthers:
    tree = build_tree(config)
    entrant = load_entrant(bot, config)
    sub = entrant.submission
    if len(sub.probs) != 1:
        raise TeamLeducError(
            f"{entrant.name}: the study's bots play one signal (a baseline), this one has "
            f"{len(sub.probs)}"
        )
    weights, ceilings, best = {}, {}, {}
    for s in seats:
        W = _weights(tree, sub, s)
        W.setflags(write=False)
        br = best_response_to_weights(tree, (s,), W, opponent=entrant.name)
        weights[s], ceilings[s], best[s] = W, float(br.value), br.strategies[s]
    return FixedOthers(config, tree, entrant.name, sub, seats, weights, ceilings, best)


def fixed_others(config: GameConfig, bot: str, seats=None) -> FixedOthers:
    """:class:`FixedOthers` of ``seats`` (0-based; default every seat) against the baseline
    ``bot`` (cached per game, bot and seats)."""
    require_config(config)
    seats = tuple(range(config.num_seats)) if seats is None else tuple(sorted(set(seats)))
    bad = [s + 1 for s in seats if not 0 <= s < config.num_seats]
    if bad:
        raise TeamLeducError(f"{config.name} has seats 1..{config.num_seats}, not {bad}")
    return _fixed_others(config, str(bot), seats)
