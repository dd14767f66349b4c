"""Gymnasium environment for one seat: every other seat is played by a fixed submission.

An episode is one hand. The learner's seat acts whenever it is to act; every other seat, the
teammate included, is played by ``others`` (a baseline name, a submission path or a
Submission, or one per team), each team drawing its signal once per hand. Every seat acts at
least once in round 1 before the hand can end (the first pass goes 1, 2, ..., n and a hand
ends only when all seats but one folded), so ``reset`` always returns a state where the
learner is to act. The reward, at the end of the hand, is the seat's utility in chips (its
team's total with ``team_rewards=True``).

Observations are the float32 vector of :mod:`teamleduc.envs.game`; the legal actions are in
``info["action_mask"]`` and :meth:`SeatEnv.action_masks` (the convention of maskable learners),
and ``action_space.sample()`` draws a legal action; an illegal action raises
:class:`~teamleduc.envs.game.IllegalActionError` naming the legal ones.
"""

from __future__ import annotations

import numbers

import gymnasium
import numpy as np
from gymnasium import spaces

from ..arguments import check_flag, check_seed
from ..errors import ArgumentTypeError, ArgumentValueError
from .game import Hand, env_game
from .policies import SubmissionPolicy
from .render import render_table

__all__ = ["LegalDiscrete", "SeatEnv"]


class LegalDiscrete(spaces.Discrete):
    """``Discrete(3)`` whose ``sample()`` without a mask draws a legal action of the hand in play
    (all three when the hand is over), so a random agent written the usual way never plays an
    illegal action; ``contains`` is Discrete's, legal or not."""

    def __init__(self, hand: Hand, seed=None):
        super().__init__(3, seed=seed)
        self._hand = hand

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and not self._hand.over:
            mask = self._hand.legal_mask().astype(np.int8)
        return super().sample(mask=mask, probability=probability)


class SeatEnv(gymnasium.Env):
    """One seat of ``preset`` against fixed ``others`` (module docstring).

    Parameters
    ----------
    preset : preset name or GameConfig.
    seat : the learner's seat, 1-based (the handout's P1..Pn; agent ``player_<seat>``).
    others : who plays every other seat (one submission argument, or one per team).
    seed : seed of the first reset (same as ``reset(seed=...)``).
    team_rewards : reward the team's total instead of the seat's own utility.
    render_mode : None, ``"ansi"`` or ``"human"``.
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        preset="team-leduc",
        seat: int = 1,
        others="uniform",
        seed: int | None = None,
        team_rewards: bool = False,
        render_mode: str | None = None,
    ):
        game = env_game(preset)
        self.game = game
        self.config = game.config
        S = self.config.num_seats
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, numbers.Integral):
            raise ArgumentTypeError(
                f"seat must be an int 1..{S} (1-based, as player_1 ... player_{S}), not "
                f"{type(seat).__name__} {seat!r}"
            )
        if not 1 <= seat <= S:
            raise ArgumentValueError(f"seat must be 1..{S} for {self.config.name}, not {seat!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.seat = int(seat) - 1
        self.render_mode = render_mode
        self.team_rewards = check_flag(team_rewards, "team_rewards")
        seed = check_seed(seed, high=None, optional=True)
        self.others = SubmissionPolicy(others, self.config, what="others")
        self.observation_space = spaces.Box(0.0, game.obs_high, dtype=np.float32)
        team = self.config.teams[self.config.team_of(self.seat)]
        self._reward_seats = list(team) if self.team_rewards else [self.seat]
        self.hand = Hand(game)
        self.action_space = LegalDiscrete(self.hand)
        self.hands_dealt = 0
        self._seed = seed
        self._over = True
        self._dealt = False  # no hand before the first reset

    def reset(self, *, seed=None, options=None):
        # numpy integers too, which Gymnasium's seeding refuses
        seed = check_seed(seed, high=None, optional=True)
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        super().reset(seed=seed)
        if seed is not None:
            self.hands_dealt = 0  # info["hand"] counts hands since the last seeded reset
        self.others.rng = self.np_random
        self.hand.deal(self.np_random)
        self.hands_dealt += 1
        self.others.new_hand()
        self._over = False
        self._dealt = True
        self._play_others()
        if self.render_mode == "human":
            self.render()
        return self.hand.observation(self.seat), self._info()

    def step(self, action):
        if self._over:
            if not self._dealt:
                raise RuntimeError("step: no hand dealt: call reset() first")
            raise RuntimeError("the hand is over: call reset() before step()")
        self.hand.act(action)  # IllegalActionError naming the legal actions
        self._play_others()
        reward = 0.0
        if self.hand.over:
            self._over = True
            reward = float(self.hand.utilities()[self._reward_seats].sum()) + 0.0
        if self.render_mode == "human":
            self.render()
        return self.hand.observation(self.seat), reward, self._over, False, self._info()

    def action_masks(self) -> np.ndarray:
        """(3,) bool legal actions c, r, f of the learner (all False when the hand is over);
        RuntimeError before the first ``reset`` (there is no hand, so no legal action)."""
        if not self._dealt:
            raise RuntimeError("action_masks: no hand dealt: call reset() first")
        return self.hand.legal_mask().copy()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: pass render_mode='ansi'")
            return None
        text = render_table(self.hand, viewer=self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _play_others(self) -> None:
        hand, me, others = self.hand, self.seat, self.others
        while not hand.over and hand.to_act != me:
            s = hand.to_act
            hand.act(others.sample(s, hand.infoset_index(s)))

    def _info(self) -> dict:
        hand = self.hand
        mine = not hand.over
        return {
            "action_mask": hand.legal_mask().astype(np.int8),
            "infoset": hand.infoset(self.seat) if mine else None,
            "infoset_index": hand.infoset_index(self.seat) if mine else -1,
            "seat": self.seat + 1,
            "hand": self.hands_dealt,
        }
