"""PettingZoo AEC environment of any preset: :func:`env` (wrapped) and :class:`raw_env`.

Agents ``player_1`` ... ``player_n`` are the handout's seats P1..Pn (``player_0`` would put every
seat one off from the information-set files ``leduc4-infosets-player{i}.csv``, the submission
files and every message of the toolkit). Actions ``Discrete(3)`` in the spec's column order:
0 ``c`` call/check, 1 ``r`` raise, 2 ``f`` fold. Observations are
``{"observation": float32 vector, "action_mask": int8 (3,)}`` (the layout is in
:mod:`teamleduc.envs.game`); the mask is the observer's legal actions when it is to act, all 0
otherwise. Rewards come at the end of the hand, in chips: each seat's own utility, or with
``team_rewards=True`` its team's total. ``infos[agent]`` holds ``infoset`` (the spec string) and
``infoset_index`` (its 0-based line in ``leduc4-infosets-player{i}.csv``) for the agent to act
(``None`` and -1 for the others), ``seat`` (1-based) and ``hand`` (hands dealt since the last
seeded reset: a policy adapter draws its signals again when it changes).

An illegal action raises :class:`~teamleduc.envs.game.IllegalActionError` naming the legal ones,
in ``raw_env`` and in ``env()``: a penalty would change the game that ``evaluate`` and ``grade``
score, and an agent that never sees its mistake learns nothing from it. ``env(illegal_reward=x)``
gives PettingZoo's classic behaviour instead (``TerminateIllegalWrapper``: the hand ends, the
offender gets ``x``, everyone else 0).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..arguments import check_flag, check_seed
from ..errors import ArgumentTypeError, ArgumentValueError
from .game import EnvGame, Hand, action_index, agent_name, env_game
from .render import render_table

__all__ = ["env", "raw_env"]


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    """The unwrapped AEC environment; see the module docstring. Use :func:`env` normally."""

    metadata = {
        "name": "teamleduc_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self, preset="team-leduc", team_rewards: bool = False, render_mode: str | None = None
    ):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        game = env_game(preset)
        self.game: EnvGame = game
        self.config = game.config
        self.team_rewards = check_flag(team_rewards, "team_rewards")
        self.render_mode = render_mode
        S = game.num_seats
        self.possible_agents = [agent_name(s) for s in range(S)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, game.obs_high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (3,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(3) for a in self.possible_agents}
        self._team_of = [self.config.team_of(s) for s in range(S)]
        self._no_mask = np.zeros(3, np.int8)
        self.hand = Hand(game)
        self.hands_dealt = 0
        self._rng = np.random.default_rng()
        self.agents = []  # until reset: no agent, no hand (step and observe refuse)
        self._dealt = False

    def observation_space(self, agent):
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None

    def action_space(self, agent):
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None

    def _unknown(self, agent) -> Exception:
        """The error for an ``agent`` that is not one of ``possible_agents``, listing them (its
        seat is 1-based: ``player_1`` is P1; ``player_0`` does not exist)."""
        names = ", ".join(self.possible_agents)
        shown = repr(agent) if len(repr(agent)) <= 80 else repr(agent)[:80] + "..."
        if not isinstance(agent, str):
            return ArgumentTypeError(
                f"agent must be an agent name ({names}), not {type(agent).__name__} {shown}"
            )
        return ArgumentValueError(f"agent: unknown agent {shown}; the agents are {names}")

    # -- the AEC interface -----------------------------------------------------------------

    def reset(self, seed=None, options=None):
        """Deal a new hand; with ``seed`` (an int >= 0) the deal sequence restarts (cheap: no
        rebuilding)."""
        if seed is not None:
            self._rng = np.random.default_rng(check_seed(seed, high=None, optional=True))
            self.hands_dealt = 0  # infos' "hand" counts hands since the last seeded reset
        self.hand.deal(self._rng)
        self.hands_dealt += 1
        self._dealt = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self._idle_info(s) for s, a in enumerate(self.agents)}
        seat = self.hand.to_act
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = self._actor_info(seat)
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        if not self.agents:
            raise RuntimeError(self._no_agents("step"))
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        hand = self.hand
        seat = self._seat_of[agent]
        hand.act(action)  # raises IllegalActionError naming the legal actions
        self.infos[agent] = self._idle_info(seat)
        self._cumulative_rewards[agent] = 0.0
        if hand.over:
            u = hand.utilities()
            if self.team_rewards:
                team = np.zeros(len(self.config.teams))
                np.add.at(team, self._team_of, u)
                u = team[self._team_of]
            self.rewards = {a: float(x) + 0.0 for a, x in zip(self.agents, u.tolist())}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            nxt = hand.to_act
            self.agent_selection = self.possible_agents[nxt]
            self.infos[self.agent_selection] = self._actor_info(nxt)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        try:
            seat = self._seat_of[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None
        if not self._dealt:
            raise RuntimeError("observe: no hand dealt: call reset() first")
        hand = self.hand
        m = hand.legal_mask().astype(np.int8) if hand.to_act == seat else self._no_mask.copy()
        return {"observation": hand.observation(seat), "action_mask": m}

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``; RuntimeError (not a KeyError) before ``reset`` and once
        every agent is done and has stepped out with ``step(None)``."""
        if not self.agents:
            raise RuntimeError(self._no_agents("last"))
        return super().last(observe)

    def _no_agents(self, what: str) -> str:
        if not self._dealt:
            return f"{what}: no hand dealt: call reset() first"
        return (
            f"{what}: the hand is over and every agent has stepped out (step(None)): call "
            "reset() for a new hand"
        )

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode: pass render_mode='ansi'")
            return None
        text = render_table(self.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass

    # -- helpers ---------------------------------------------------------------------------

    def _idle_info(self, seat: int) -> dict:
        return {"infoset": None, "infoset_index": -1, "seat": seat + 1, "hand": self.hands_dealt}

    def _actor_info(self, seat: int) -> dict:
        hand = self.hand
        return {
            "infoset": hand.infoset(seat),
            "infoset_index": hand.infoset_index(seat),
            "seat": seat + 1,
            "hand": self.hands_dealt,
        }


def _hot(name: str) -> property:
    """An attribute read straight from the unwrapped environment (refused before ``reset``, as
    OrderEnforcingWrapper refuses it), instead of through every layer's ``__getattr__``."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"``{name}`` of the unwrapped environment")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with the attributes that every ``last()`` and
    ``agent_iter()`` reads taken from the unwrapped environment in one step: the layered
    ``__getattr__`` forwarding otherwise costs about half the time of a step."""

    def __init__(self, env):
        super().__init__(env)
        self._raw = env.unwrapped

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``; once every agent is done and has stepped out, a
        RuntimeError saying so instead of a KeyError on the last agent's name."""
        if self._has_reset and not self._raw.agents:
            raise RuntimeError(self._raw._no_agents("last"))
        return super().last(observe)

    agents = _hot("agents")
    agent_selection = _hot("agent_selection")
    terminations = _hot("terminations")
    truncations = _hot("truncations")
    rewards = _hot("rewards")
    infos = _hot("infos")
    _cumulative_rewards = _hot("_cumulative_rewards")


class AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper, refusing an action outside ``Discrete(3)`` with a
    TypeError or ValueError naming ``action`` (:func:`~teamleduc.envs.game.action_index`)
    instead of a bare AssertionError (which ``python -O`` would also skip); ``None`` is the
    action of an agent that is done, and only of one. A fast path for plain ints 0..2."""

    def __init__(self, env):
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action):
        if type(action) is int and 0 <= action < 3:
            self.env.step(action)
            return
        raw = self._raw
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        if action is None and done:
            self.env.step(None)
            return
        if done:
            raise ValueError(f"action {action!r}: {agent} is done; its only action is None")
        self.env.step(action_index(action))


def env(
    preset="team-leduc",
    team_rewards: bool = False,
    render_mode: str | None = None,
    illegal_reward: float | None = None,
):
    """The AEC environment of ``preset`` wrapped as PettingZoo's classic games are: out-of-bounds
    actions refused (:class:`AssertOutOfBounds`), no ``step`` before ``reset``
    (:class:`OrderEnforcing`; both are PettingZoo's wrappers with faster attribute access). An illegal action raises an error naming the legal ones; with
    ``illegal_reward`` it ends the hand with that reward instead (``TerminateIllegalWrapper``)."""
    e = raw_env(preset, team_rewards=team_rewards, render_mode=render_mode)
    if illegal_reward is not None:
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=_reward(illegal_reward))
    return OrderEnforcing(AssertOutOfBounds(e))


def _reward(value) -> float:
    """``illegal_reward`` as a finite float: a number (numpy's too), not a bool or string; an int
    too large for a float (``10**400``) or an infinite or NaN one is refused, naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(
            f"illegal_reward must be a number or None, not {type(value).__name__} {value!r}"[:300]
        )
    try:
        reward = float(value)
    except OverflowError:
        reward = math.inf
    if not math.isfinite(reward):
        raise ArgumentValueError(f"illegal_reward must be finite, not {value!r}"[:300])
    return reward
