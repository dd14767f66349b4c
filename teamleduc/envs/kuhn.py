"""gym-kuhn-poker's ``KuhnPoker-v0`` under Gymnasium, played on the toolkit's own engine.

``gymnasium.make("teamleduc/KuhnPoker-v0", number_of_players=N, deck_size=D, betting_rounds=R,
ante=A)`` has the interface of gym-kuhn-poker 0.2 (PyPI ``gym-kuhn-poker``,
``gym_kuhn_poker/envs/kuhn_poker_env.py``) on :class:`teamleduc.envs.game.Hand`: the public tree
of the ``kuhn`` rules with N seats, D ranks of one suit and ante A (:func:`kuhn_config`).

* **Actions** ``Discrete(2)``: 0 PASS (check; fold when facing a bet), 1 BET (bet 1 chip; call
  when facing a bet). One bet per hand at most, no raise; player 0 acts first, then 1, 2, ...;
  after the bet every other player answers once.
* **Episode** = one hand. ``reset()`` returns ``(observations, info)``, ``step(action)`` (the
  action of ``current_player``) returns ``(observations, rewards, terminated, False, info)``:
  one observation per player (a tuple), an (N,) reward vector, zero until the hand ends and
  then each player's net chips.
* **Observation** of player p, int64, length ``N + D + 3*N*R + N``:

  ============  =========  ==============================================================
  player        N          one-hot of p
  card          D          one-hot of p's card, 0 the weakest
  history       3 * N * R  R blocks of N slots, slot (k, q) one-hot over (no action, PASS,
                           BET): block 0 holds each player's action before any bet (the
                           bet included), block 1 the answers to the bet; blocks 2.. stay
                           (1, 0, 0)
  pot           N          chips put in by each player, ante included
  ============  =========  ==============================================================

``betting_rounds`` only sizes the history (gym-kuhn-poker writes blocks 0 and 1 and asserts
R >= 2). For N = 2 every entry, reward and end of hand equals gym-kuhn-poker's (see
``tests/test_kuhn_gym_crosscheck.py``). For N >= 3 gym-kuhn-poker 0.2 is wrong: its state
starts with a player-turn block of 2 entries whatever N, but every offset assumes N, so the
card it shows, the history it writes, the showdown winner (or a ``ValueError``) and, with
R = 2, player N-1's pot entry come from the wrong entries. Here the layout above holds for
every N: the layout of its README and of its code at N = 2.

Exact values: :meth:`KuhnPokerEnv.expected_rewards` and :meth:`KuhnPokerEnv.nash_conv` take a
policy written on these observations and enumerate, through
:func:`teamleduc.envs.policies.policy_submission` and
:func:`teamleduc.best_response.nash_conv`.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from ..arguments import check_seed
from ..best_response import NashConv, nash_conv
from ..config import PRESETS, GameConfig, default_rank_names, get_config
from ..errors import ArgumentTypeError, ArgumentValueError
from ..payoffs import utilities_at
from ..rules import CALL, FOLD, RAISE
from .game import EnvGame, Hand, env_game
from .policies import policy_submission
from .render import render_table

__all__ = ["BET", "PASS", "KuhnPokerEnv", "kuhn_config"]

#: gym-kuhn-poker's ``ActionType``
PASS, BET = 0, 1
#: the environment builds the whole public tree: N * 2**N + 1 nodes, times D cards per seat
MAX_PLAYERS = 8
MAX_DECK = 1000
#: the history block has 3 * N * R entries
MAX_BETTING_ROUNDS = 100
#: chips are int32 in the tree
MAX_ANTE = 10**6
#: exact values enumerate D**N deals (cards per seat, one axis each)
MAX_EXACT_DEALS = 10**5
#: our action for (facing a bet, gym action): PASS checks or folds, BET bets or calls
_OURS = ((CALL, RAISE), (FOLD, CALL))
_WHO = "KuhnPoker-v0"
_ARGUMENTS = ("number_of_players", "deck_size", "betting_rounds", "ante", "render_mode")


def _integer(value, name: str, low: int, high: int, why: str = "") -> int:
    """``value`` as an int in ``low..high``; the toolkit's TypeError or ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(
            f"{_WHO}: {name} must be an int, not {type(value).__name__} {value!r}"[:300]
        )
    if not low <= value <= high:
        raise ArgumentValueError(f"{_WHO}: {name} must be {low}..{high}{why}, not {int(value)}")
    return int(value)


def kuhn_config(number_of_players: int = 2, deck_size: int = 3, ante: int = 1) -> GameConfig:
    """The GameConfig of gym-kuhn-poker's game: ``number_of_players`` seats, ``deck_size`` ranks
    of one suit, ``ante``, one betting round with a bet of 1 and at most one bet (the ``kuhn``
    preset's rules). The preset itself where one matches (``kuhn``: 2 players, 3 cards;
    ``kuhn-3p``: 3 and 4; ``kuhn-100``: 2 and 100; ante 1)."""
    n = _integer(number_of_players, "number_of_players", 2, MAX_PLAYERS)
    d = _integer(deck_size, "deck_size", n, MAX_DECK, f" (at least one card per player: {n})")
    a = _integer(ante, "ante", 1, MAX_ANTE)
    config = get_config(
        "kuhn",
        num_seats=n,
        ranks=default_rank_names(d),
        ante=a,
        teams=tuple((s,) for s in range(n)),
    )
    for name in ("kuhn", "kuhn-3p", "kuhn-100"):
        if PRESETS[name] == config.replace(name=name):
            return PRESETS[name]
    tail = "" if a == 1 else f"-ante{a}"
    return config.replace(name=f"kuhn-{n}p-{d}cards{tail}")


def _history_table(game: EnvGame) -> np.ndarray:
    """(nodes, 2 * N * 3) int64: history blocks 0 and 1 of every public node, built level by
    level from the parent's (gym-kuhn-poker's ``update_state``: an action goes to block 1 once
    a bet was made before it)."""
    tree = game.tree
    n = game.num_seats
    hist = np.zeros((tree.num_nodes, 2 * n, 3), np.int64)
    hist[:, :, 0] = 1
    for level in tree.levels[1:]:
        parent = tree.parent[level]
        hist[level] = hist[parent]
        facing = tree.legal[parent, FOLD]
        ours = tree.action[level]
        bet = np.where(facing, ours == CALL, ours == RAISE).astype(np.int64)
        slot = facing * n + tree.actor[parent]
        hist[level, slot, 0] = 0
        hist[level, slot, 1 + bet] = 1
    return hist.reshape(tree.num_nodes, -1)


class KuhnPokerEnv(gymnasium.Env):
    """gym-kuhn-poker's ``KuhnPoker-v0`` on the toolkit's engine (module docstring).

    Parameters
    ----------
    number_of_players : N, 2..8.
    deck_size : D, N..1000 (cards 0..D-1, one of each).
    betting_rounds : R, 2..100: the number of history blocks in the observation.
    ante : A, 1..10**6 chips each player puts in before the deal (a bet is always 1 chip).
    render_mode : None, ``"ansi"`` or ``"human"``.

    Any other keyword argument is refused (ArgumentTypeError naming it).
    ``reset(options={"cards": (c_0, ..., c_{N-1})})`` deals the given cards (distinct, 0..D-1).
    ``current_player`` is the player to act (-1 once the hand is over); ``info`` holds it too.
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        number_of_players: int = 2,
        deck_size: int = 3,
        betting_rounds: int = 2,
        ante: int = 1,
        render_mode: str | None = None,
        **unknown,
    ):
        if unknown:
            names = ", ".join(sorted(map(str, unknown)))
            raise ArgumentTypeError(
                f"{_WHO}: unknown keyword argument(s) {names}; it takes {', '.join(_ARGUMENTS)}"
            )
        if render_mode not in (None, "ansi", "human"):
            raise ArgumentValueError(
                f"{_WHO}: render_mode must be None, 'ansi' or 'human', not {render_mode!r}"[:300]
            )
        self.config = kuhn_config(number_of_players, deck_size, ante)
        self.number_of_players = n = self.config.num_seats
        self.deck_size = d = self.config.num_ranks
        self.betting_rounds = r = _integer(betting_rounds, "betting_rounds", 2, MAX_BETTING_ROUNDS)
        self.ante = self.config.ante
        self.render_mode = render_mode
        self.game = env_game(self.config)
        self.hand = Hand(self.game)
        self._history = _history_table(self.game)
        self._contrib = self.game.tree.contrib
        self._legal = self.game.tree.legal
        # offsets: player, card, history (blocks 0-1 change, the rest stays (1, 0, 0)), pot
        self._card = n
        self._hist = n + d
        self._hist_end = self._hist + self._history.shape[1]  # blocks 0 and 1
        self._pot = n + d + 3 * n * r
        size = self._pot + n
        template = np.zeros((n, size), np.int64)
        template[:, :n] = np.eye(n, dtype=np.int64)
        template[:, self._hist : self._pot : 3] = 1
        self._template = template
        low = np.zeros(size, np.int64)
        high = np.ones(size, np.int64)
        low[self._pot :], high[self._pot :] = self.ante, self.ante + 1
        player = spaces.Box(low, high, dtype=np.int64)
        self.observation_space = spaces.Tuple([player] * n)
        self.action_space = spaces.Discrete(2)
        self._started = False
        # the engine's payoff of (terminal node, cards), kept for the deals seen lately
        self._payoff = functools.lru_cache(maxsize=1 << 14)(
            functools.partial(utilities_at, self.game.tree)
        )

    # -- Gymnasium API -----------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        """The player to act (0-based, as gym-kuhn-poker counts), -1 when the hand is over."""
        return self.hand.to_act if self._started else -1

    def reset(self, *, seed=None, options=None):
        seed = check_seed(seed, high=None, optional=True)  # numpy integers too
        super().reset(seed=seed)
        cards = self._cards_option(options)
        if cards is None:
            self.hand.deal(self.np_random)
        else:
            self.hand.start(cards)
        base = self._template.copy()  # player and card blocks are fixed for the hand
        base[np.arange(self.number_of_players), self._card + np.asarray(self.hand.cards)] = 1
        self._base = base
        self._started = True
        if self.render_mode == "human":
            self.render()
        return self._observations(), self._info()

    def step(self, action):
        if not self._started:
            raise RuntimeError(f"{_WHO}: call reset() before step()")
        hand = self.hand
        if hand.over:
            raise RuntimeError(f"{_WHO}: the hand is over: call reset() before step()")
        a = action if type(action) is int and 0 <= action <= 1 else self._action(action)
        hand.act(_OURS[self._legal.item(hand.node, FOLD)][a])
        if hand.over:
            rewards = self._payoff(hand.node, hand.cards) + 0.0  # a new array, no -0.0
        else:
            rewards = np.zeros(self.number_of_players)
        if self.render_mode == "human":
            self.render()
        return self._observations(), rewards, bool(hand.over), False, self._info()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: pass render_mode='ansi'")
            return None
        text = render_table(self.hand) if self._started else "(no hand dealt: call reset())"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # -- observations ------------------------------------------------------------------------

    def observation(self, player: int, node: int, card: int) -> np.ndarray:
        """The observation of ``player`` holding ``card`` at public node ``node``."""
        v = self._template[player].copy()
        v[self._card + card] = 1
        v[self._hist : self._hist_end] = self._history[node]
        v[self._pot :] = self._contrib[node]
        return v

    def _observations(self) -> tuple[np.ndarray, ...]:
        node = self.hand.node
        obs = self._base.copy()
        obs[:, self._hist : self._hist_end] = self._history[node]
        obs[:, self._pot :] = self._contrib[node]
        return tuple(obs)

    def _info(self) -> dict:
        return {"current_player": self.current_player}

    def _action(self, action) -> int:
        """``action`` as 0 or 1: an int or numpy integer (0-d arrays too), not a bool, float or
        string (as ``Discrete(2).contains`` decides); the toolkit's errors naming it."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
            raise ArgumentTypeError(
                f"{_WHO}: action must be 0 (PASS) or 1 (BET), not {type(action).__name__} "
                f"{action!r}"[:300]
            )
        if not 0 <= action <= 1:
            raise ArgumentValueError(
                f"{_WHO}: action {int(action)} is outside Discrete(2): 0 PASS, 1 BET"
            )
        return int(action)

    def _cards_option(self, options) -> list[int] | None:
        if options is None:
            return None
        if not isinstance(options, Mapping):
            raise ArgumentTypeError(f"{_WHO}: options must be a dict, not {type(options).__name__}")
        extra = sorted(map(str, set(options) - {"cards"}))
        if extra:
            raise ArgumentValueError(
                f"{_WHO}: unknown option(s) {', '.join(extra)}; reset takes options={{'cards': "
                "(one card per player)}}"
            )
        if "cards" not in options or options["cards"] is None:
            return None
        cards = options["cards"]
        n, d = self.number_of_players, self.deck_size
        if isinstance(cards, np.ndarray):
            cards = cards.tolist()
        if not isinstance(cards, Sequence) or isinstance(cards, str) or len(cards) != n:
            raise ArgumentValueError(
                f"{_WHO}: options['cards'] must be {n} cards (one per player), not {cards!r}"[:300]
            )
        cards = [_integer(c, f"options['cards'][{i}]", 0, d - 1) for i, c in enumerate(cards)]
        if len(set(cards)) != n:
            raise ArgumentValueError(
                f"{_WHO}: options['cards'] must be distinct (one deck, one card each): {cards}"
            )
        return cards

    # -- exact values --------------------------------------------------------------------------

    def policy_submission(self, policy):
        """A policy written on this environment's observations as a validated Submission of
        :attr:`config` (every seat, one signal), for ``evaluate``, ``nash_conv`` and the rest.

        ``policy`` is a callable ``policy(observation) -> (p_pass, p_bet)`` used for every
        player (the observation starts with the player's one-hot), or a sequence of N such
        callables, one per player. It is called once per information set: every public node
        where the player acts, times every card."""
        n = self.number_of_players
        if callable(policy):
            policies = [policy] * n
        elif isinstance(policy, Sequence) and not isinstance(policy, str):
            policies = list(policy)
            if len(policies) != n or not all(callable(p) for p in policies):
                raise ArgumentTypeError(
                    f"{_WHO}: policy must be a callable or a list of {n} callables (one per "
                    f"player), not {policy!r}"[:300]
                )
        else:
            raise ArgumentTypeError(
                f"{_WHO}: policy must be a callable observation -> (p_pass, p_bet), or one per "
                f"player; not {type(policy).__name__}"
            )
        tables = {}
        for seat, table in enumerate(self.game.tables):
            probs = np.array(
                [
                    _probabilities(policies[seat](self.observation(seat, node, card)), seat)
                    for node, card in zip(table.node.tolist(), table.rank.tolist())
                ]
            ).reshape(-1, 2)
            facing = table.legal[:, FOLD]
            rows = np.zeros((table.size, 3))
            rows[:, CALL] = np.where(facing, probs[:, BET], probs[:, PASS])
            rows[:, RAISE] = np.where(facing, 0.0, probs[:, BET])
            rows[:, FOLD] = np.where(facing, probs[:, PASS], 0.0)
            tables[seat + 1] = rows
        return policy_submission(tables, self.config)

    def nash_conv(self, policy) -> NashConv:
        """Exact on-policy values and best-response values of every player
        (:func:`teamleduc.best_response.nash_conv`) for ``policy`` (as
        :meth:`policy_submission` takes it). Enumerates the D**N deals: at most 100,000."""
        n, d = self.number_of_players, self.deck_size
        if d**n > MAX_EXACT_DEALS:
            raise ArgumentValueError(
                f"{_WHO}: exact values enumerate deck_size**number_of_players = {d}**{n} = "
                f"{d**n:,} deals; at most {MAX_EXACT_DEALS:,} (fewer players or cards)"
            )
        return nash_conv(self.config, self.policy_submission(policy), name="policy")

    def expected_rewards(self, policy) -> np.ndarray:
        """(N,) exact expected reward vector of ``policy`` (chips per hand, by enumeration)."""
        return np.array(self.nash_conv(policy).values)


def _probabilities(p, seat: int) -> tuple[float, float]:
    """``(p_pass, p_bet)`` from what a policy returned, checked: two finite non-negative
    numbers summing to 1."""
    try:
        v = np.asarray(p, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        v = np.empty(0)
    if v.shape != (2,) or not np.isfinite(v).all() or (v < 0).any() or abs(v.sum() - 1) > 1e-9:
        raise ArgumentValueError(
            f"{_WHO}: policy of player {seat} must return (p_pass, p_bet), two non-negative "
            f"numbers summing to 1, not {p!r}"[:300]
        )
    return float(v[0]), float(v[1])
