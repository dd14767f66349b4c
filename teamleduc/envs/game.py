"""One hand of any preset, stepped on the public tree: the engine under every environment.

:class:`EnvGame` gathers what the environments need from a preset, once (cached per
configuration): the public tree and information-set tables of :mod:`teamleduc.tree` and
:mod:`teamleduc.infosets`, the layout of the observation vector, and the history tokens of the
information-set strings. :class:`Hand` is one hand in play: a node id of that tree, the cards,
and the public part of the observation kept up to date action by action. Nothing here knows the
betting rules: a legal action is a non-negative entry of ``tree.children``, the next seat is
``tree.actor``, the chips are ``tree.contrib``, and the payoff is
:func:`teamleduc.payoffs.utilities_at`. Resetting a hand costs one deal and a few array fills.

Observation vector (float32, length ``EnvGame.obs_size``; S seats, R ranks, H = the longest
action history of the preset), blocks in this order (:meth:`EnvGame.layout` gives the offsets):

=============  ======  ============================================================
own_rank       R       one-hot of the observer's private rank (weakest first)
community      R       one-hot of the community rank; all 0 before the deal (absent
                       in one-round games: width 0)
seat           S       one-hot of the observer's seat
to_act         S       one-hot of the seat to act; all 0 when the hand is over
active         S       1 for every seat that has not folded
contributions  S       chips put in by each seat, ante included (not normalised)
history        H * 3S  slot k (the k-th action of the hand, both rounds, in order):
                       one-hot at ``3 * seat + action`` (action 0 c, 1 r, 2 f); 0 if
                       fewer than k + 1 actions were taken
=============  ======  ============================================================
"""

from __future__ import annotations

import functools
import numbers
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..config import GameConfig, get_config
from ..errors import ArgumentTypeError, ArgumentValueError
from ..infosets import InfosetTable, blind_token, infoset_tables, mask
from ..payoffs import utilities_at
from ..rules import ACTION_CHARS
from ..tree import CHANCE, DECISION, TERMINAL, PublicTree, build_tree

__all__ = [
    "EnvGame",
    "Hand",
    "IllegalActionError",
    "action_index",
    "agent_name",
    "env_game",
]

BLOCKS = ("own_rank", "community", "seat", "to_act", "active", "contributions", "history")


class IllegalActionError(ValueError):
    """An action that is not legal for the seat to act (the message names the legal ones)."""


_ACTIONS = "0 c call/check, 1 r raise, 2 f fold"


def action_index(action) -> int:
    """``action`` as 0, 1 or 2 if it is in the action space ``Discrete(3)``: an int or numpy
    integer (0-d integer arrays too), not a bool, float or string. TypeError or ValueError
    naming ``action`` otherwise (as Gymnasium's ``Discrete.contains`` decides: ``1.0`` and
    ``'1'`` are outside it; ``int(1.5)`` would have played a raise)."""
    if type(action) is int and 0 <= action < 3:  # the fast path: a plain int
        return action
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        hint = " (None is only for an agent that is done)" if action is None else ""
        raise ArgumentTypeError(
            f"action must be an integer 0, 1 or 2 ({_ACTIONS}), not "
            f"{type(action).__name__} {action!r}{hint}"
        )
    if not 0 <= action < 3:
        raise ArgumentValueError(
            f"action {int(action)} is outside the action space Discrete(3) ({_ACTIONS})"
        )
    return int(action)


def _show(value) -> str:
    """``repr(value)``, cut to 80 characters: a message never echoes a huge argument whole."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:80]}... ({len(text):,} characters)"


def _is_int(value) -> bool:
    """An int or numpy integer, not a bool (``True`` would be seat or rank 1)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _integer(value, what: str, low: int, high: int | None = None, why: str = "") -> int:
    """``value`` as an int in ``low..high`` (no upper bound when ``high`` is None): the toolkit's
    TypeError for a bool, float, string or None, ValueError out of range, both naming ``what``."""
    if not _is_int(value):
        raise ArgumentTypeError(f"{what} must be an int, not {type(value).__name__} {_show(value)}")
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise ArgumentValueError(f"{what} must be {span}{why}, not {int(value)}")
    return int(value)


def agent_name(seat: int) -> str:
    """The agent of 0-based ``seat``: ``player_1`` for seat 1, as in the handout. ``seat`` is an
    int >= 0 (TypeError or ValueError naming it: ``-1`` would name ``player_0``, a seat no
    game has)."""
    if type(seat) is not int or seat < 0:
        seat = _integer(seat, "seat (0-based)", 0)
    return f"player_{seat + 1}"


@dataclass(frozen=True, eq=False)
class EnvGame:
    """Everything about one preset that the environments share; built once by :func:`env_game`.

    Attributes
    ----------
    config, tree, tables : the game, its public tree and its information-set tables.
    history_slots : H, the most actions any hand of the preset takes.
    offsets : {block: (start, stop)} of the observation vector (module docstring).
    obs_high : (obs_size,) float32 upper bound of each observation entry (low is 0).
    """

    config: GameConfig
    tree: PublicTree
    tables: tuple[InfosetTable, ...]
    history_slots: int
    offsets: dict
    obs_high: np.ndarray

    @property
    def num_seats(self) -> int:
        return self.config.num_seats

    @property
    def obs_size(self) -> int:
        return self.offsets["history"][1]

    def layout(self) -> list[tuple[str, int, int]]:
        """``[(block, start, stop)]`` of the observation vector, in order."""
        return [(b, *self.offsets[b]) for b in BLOCKS]

    def describe_index(self, i: int) -> str:
        """What observation entry ``i`` means, e.g. ``history[2]: seat 3 r``. ``i`` an int
        (TypeError naming it otherwise); IndexError outside ``0..obs_size - 1``."""
        if not _is_int(i):
            raise ArgumentTypeError(
                f"i (an observation index) must be an int 0..{self.obs_size - 1}, not "
                f"{type(i).__name__} {_show(i)}"
            )
        i = int(i)
        c = self.config
        for block, lo, hi in self.layout():
            if lo <= i < hi:
                k = i - lo
                if block in ("own_rank", "community"):
                    return f"{block}: {c.ranks[k]}"
                if block == "history":
                    slot, rest = divmod(k, 3 * c.num_seats)
                    return f"history[{slot}]: seat {rest // 3 + 1} {ACTION_CHARS[rest % 3]}"
                return f"{block}: seat {k + 1}"
        raise IndexError(f"observation index {i} out of range 0..{self.obs_size - 1}")

    @functools.cached_property
    def history_tokens(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``(actions, community)``: ``actions[3 * seat + a]`` = ``P<k>:<a>/``, ``community[r]`` =
        ``C:<rank>/`` (the tokens of the spec's information-set strings)."""
        acts = tuple(
            f"P{s + 1}:{ACTION_CHARS[a]}/" for s in range(self.num_seats) for a in range(3)
        )
        return acts, tuple(f"C:{r}/" for r in self.config.ranks)

    @functools.cached_property
    def masks(self) -> tuple[tuple[str, ...], ...]:
        """``masks[seat][rank]`` = ``/C:??Q?/``: the start of every information-set string."""
        c = self.config
        return tuple(
            tuple(f"/C:{mask(c, s, r)}/" for r in range(c.num_ranks)) for s in range(c.num_seats)
        )


@functools.lru_cache(maxsize=16)
def _env_game(config: GameConfig) -> EnvGame:
    tree = build_tree(config)
    tables = infoset_tables(tree)
    S, R = config.num_seats, config.num_ranks
    term = tree.terminals
    # actions on the path = depth minus the chance edges: the community card of hands that
    # reach round 2, and a dealt small blind
    chance_edges = (tree.community[term] >= 0).astype(np.int64) + int(config.dealt_blind)
    H = int((tree.depth[term] - chance_edges).max())
    widths = {
        "own_rank": R,
        "community": R if config.has_community else 0,
        "seat": S,
        "to_act": S,
        "active": S,
        "contributions": S,
        "history": H * 3 * S,
    }
    offsets, at = {}, 0
    for b in BLOCKS:
        offsets[b] = (at, at + widths[b])
        at += widths[b]
    high = np.ones(at, np.float32)
    lo, hi = offsets["contributions"]
    high[lo:hi] = float(tree.contrib.max())
    high.setflags(write=False)
    return EnvGame(config, tree, tables, H, offsets, high)


def env_game(preset="team-leduc") -> EnvGame:
    """The :class:`EnvGame` of a preset name or GameConfig (cached: built once per game)."""
    return _env_game(get_config(preset))


class Hand:
    """One hand in play on ``game``'s public tree.

    ``node`` is the public node (always a decision or terminal node between calls: chance nodes
    are passed through with the hand's small blind and community card), ``cards`` the private
    ranks (0-based rank per seat), ``community`` the community rank (-1 before it is dealt or
    in one-round games), ``small_blind`` the 0-based seat that posted the small blind (-1 in
    games without blinds), ``public`` the observer-independent part of the observation.
    """

    def __init__(self, game: EnvGame):
        if not isinstance(game, EnvGame):
            raise ArgumentTypeError(
                f"game must be an EnvGame (teamleduc.envs.env_game(preset)), not "
                f"{type(game).__name__} {_show(game)}"
            )
        self.game = game
        self._num_seats = game.num_seats
        t = game.tree
        self._children = t.children
        self._kind = t.kind
        self._actor = t.actor
        self._legal = t.legal
        self._contrib = t.contrib
        self._active = t.active
        self._id_of = [tab.id_of for tab in game.tables]
        o = game.offsets
        self._o_comm = o["community"][0]
        self._o_rank = o["own_rank"][0]
        self._o_seat = o["seat"][0]
        self._o_act = o["to_act"][0]
        self._sl_active = slice(*o["active"])
        self._sl_contrib = slice(*o["contributions"])
        self._o_hist = o["history"][0]
        self._slot = 3 * game.num_seats
        self._tokens, self._ctokens = game.history_tokens
        self.public = np.zeros(game.obs_size, np.float32)
        self.node = 0
        self.cards: tuple[int, ...] = ()
        self.community = -1
        self.small_blind = -1
        self.root = 0  # the first decision node of the hand (below a dealt small blind)
        self.actions: list[tuple[int, int]] = []  # (seat, action) in order
        self.community_after = -1  # how many actions came before the community card
        self.history = ""  # the information-set string after the mask

    def deal(self, rng: np.random.Generator) -> None:
        """Start a new hand: deal S private cards and the community card from a shuffled deck
        (then, where the small blind is dealt, its seat: one more uniform draw). ``rng`` a
        ``numpy.random.Generator`` (TypeError naming it otherwise)."""
        if not isinstance(rng, np.random.Generator):
            raise ArgumentTypeError(
                f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), not "
                f"{type(rng).__name__} {_show(rng)}"
            )
        c = self.game.config
        need = c.num_seats + (1 if c.has_community else 0)
        ranks = (rng.permutation(c.num_cards)[:need] // c.suits).tolist()
        blind = int(rng.integers(c.num_seats)) if c.dealt_blind else None
        self._start(
            tuple(ranks[: c.num_seats]), ranks[c.num_seats] if c.has_community else -1, blind
        )

    def start(self, cards, community: int = -1, small_blind: int | None = None) -> None:
        """Start a new hand with given private ranks and (two-round games) community rank; the
        community card is shown only when round 2 starts. ``small_blind``: the 0-based seat
        posting the small blind, required where it is dealt (``rlcard-leduc``) and refused
        elsewhere (ArgumentValueError naming it).

        Checked, naming the argument (the toolkit's TypeError or ValueError): ``cards`` is one
        0-based rank per seat, each an int (numpy integers too; not a bool, float or name);
        ``community`` a rank in a two-round game, or -1 (None too) when the hand will not reach
        round 2 (a replay that ends in round 1: reaching round 2 is then refused), and -1 or
        None in a one-round game; together they may not use a rank more often than the deck
        holds it (``suits`` copies): the payoff of a hand that cannot happen would be a wrong
        number. Every check happens before anything changes."""
        c = self.game.config
        S, R = c.num_seats, c.num_ranks
        if isinstance(cards, np.ndarray):
            cards = cards.tolist() if cards.ndim == 1 else cards
        if not isinstance(cards, Sequence) or isinstance(cards, str):
            raise ArgumentTypeError(
                f"cards must be a sequence of {S} ranks (one per seat, 0-based ints), not "
                f"{type(cards).__name__} {_show(cards)}"
            )
        if len(cards) != S:
            raise ArgumentValueError(
                f"cards must be {S} ranks (one per seat of {c.name}), not {len(cards)}: "
                f"{_show(cards)}"
            )
        why = f" (0-based ranks of {c.name}: {', '.join(c.ranks)})" if R <= 13 else ""
        cards = tuple(_integer(x, f"cards[{i}]", 0, R - 1, why) for i, x in enumerate(cards))
        if community is None or (_is_int(community) and community == -1):
            community = -1
        elif not c.has_community:
            raise ArgumentValueError(
                f"community: {c.name} has one betting round and no community card; leave it -1 "
                f"(or None), not {_show(community)}"
            )
        else:
            community = _integer(community, "community", 0, R - 1, why)
        if c.dealt_blind:
            if not _is_int(small_blind) or not 0 <= small_blind < S:
                raise ArgumentValueError(
                    f"small_blind: {c.name} deals the small blind; give the 0-based seat that "
                    f"posts it (0..{S - 1}), not {small_blind!r}"
                )
            small_blind = int(small_blind)
        elif small_blind is not None:
            raise ArgumentValueError(
                f"small_blind: {c.name} does not deal the small blind; leave it None"
            )
        used = Counter(cards)
        if community >= 0:
            used[community] += 1
        rank, times = max(used.items(), key=lambda kv: kv[1])
        if times > c.suits:
            raise ArgumentValueError(
                f"cards and community: rank {c.ranks[rank]} is dealt {times} times, but the deck "
                f"of {c.name} holds {c.suits} of each rank (cards {list(cards)}, community "
                f"{community if community >= 0 else None}); no such hand exists"
            )
        self._start(cards, community, small_blind)

    def _start(self, cards: tuple[int, ...], community: int, small_blind: int | None) -> None:
        """:meth:`start` without the checks (a deal from :meth:`deal`, or checked arguments)."""
        c = self.game.config
        root = 0
        if c.dealt_blind:
            root = int(self._children.item(0, 3 + small_blind))
        self.cards = cards
        self._deck_community = community
        self.community = -1
        self.small_blind = int(small_blind) if c.dealt_blind else (0 if c.blinds else -1)
        self.root = root
        self.node = root
        self.actions = []
        self.community_after = -1
        self.history = blind_token(self.small_blind) if c.dealt_blind else ""
        pub = self.public
        pub[:] = 0.0
        pub[self._sl_active] = 1.0
        pub[self._sl_contrib] = self._contrib[root]
        pub[self._o_act + int(self._actor[root])] = 1.0

    # -- queries ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self._kind[self.node] == TERMINAL

    @property
    def to_act(self) -> int:
        """0-based seat to act, -1 when the hand is over."""
        return int(self._actor[self.node])

    def legal_mask(self) -> np.ndarray:
        """(3,) bool legal actions c, r, f of the seat to act (all False when over)."""
        return self._legal[self.node]

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._legal[self.node]).tolist()

    def _seat(self, seat) -> int:
        """``seat`` checked: a 0-based int seat of the game, and a hand in play (the toolkit's
        TypeError or ValueError naming ``seat``, RuntimeError before :meth:`start`)."""
        S = self._num_seats
        seat = _integer(seat, "seat", 0, S - 1, f" (0-based seats of {self.game.config.name})")
        if not self.cards:
            raise RuntimeError("no hand in play: call start() or deal() first")
        return seat

    def infoset_index(self, seat: int) -> int:
        """0-based line of the current information set of ``seat`` in its file (-1 if it is
        not to act)."""
        if type(seat) is not int or not 0 <= seat < self._num_seats or not self.cards:
            seat = self._seat(seat)
        return int(self._id_of[seat].item(self.node, self.cards[seat]))

    def infoset(self, seat: int) -> str:
        """The spec string of ``seat``'s information set at the current node (it must act)."""
        if type(seat) is not int or not 0 <= seat < self._num_seats or not self.cards:
            seat = self._seat(seat)
        return self.game.masks[seat][self.cards[seat]] + self.history

    def observation(self, seat: int) -> np.ndarray:
        """(obs_size,) float32 observation of ``seat`` (module docstring)."""
        if type(seat) is not int or not 0 <= seat < self._num_seats or not self.cards:
            seat = self._seat(seat)
        v = self.public.copy()
        v[self._o_rank + self.cards[seat]] = 1.0
        v[self._o_seat + seat] = 1.0
        return v

    def utilities(self) -> np.ndarray:
        """(S,) chips won by each seat; RuntimeError before the hand is over."""
        if not self.cards:
            raise RuntimeError("utilities: no hand in play: call start() or deal() first")
        if not self.over:
            raise RuntimeError(
                f"utilities: the hand is not over ({self.actions_text() or 'no action yet'}; "
                f"player_{self.to_act + 1} is to act)"
            )
        return utilities_at(self.game.tree, self.node, self.cards, self.community)

    def actions_text(self) -> str:
        """The actions so far as ``teamleduc replay`` takes them: ``1:c 2:r / 3:c`` (seat:action,
        ``/`` where the community card came)."""
        tokens = [f"{seat + 1}:{ACTION_CHARS[a]}" for seat, a in self.actions]
        if self.community_after >= 0:
            tokens.insert(self.community_after, "/")
        return " ".join(tokens)

    def illegal_message(self, action) -> str:
        legal = ", ".join(f"{a} ({ACTION_CHARS[a]})" for a in self.legal_actions())
        return (
            f"action {action!r} is illegal for player_{self.to_act + 1} here; "
            f"legal actions: {legal} (0 c call/check, 1 r raise, 2 f fold)"
        )

    # -- stepping --------------------------------------------------------------------------

    def act(self, action: int) -> None:
        """The seat to act takes ``action`` (0 c, 1 r, 2 f): TypeError or ValueError if it is
        outside ``Discrete(3)`` (:func:`action_index`), IllegalActionError if illegal here."""
        node = self.node
        a = action if type(action) is int and 0 <= action < 3 else action_index(action)
        if not self.cards:
            raise RuntimeError(f"action {action!r}: no hand in play: call start() or deal() first")
        child = int(self._children.item(node, a))
        if child < 0 or self._kind[node] != DECISION:
            if self._kind[node] == TERMINAL:
                raise IllegalActionError(
                    f"action {action!r}: the hand is over ({self.actions_text()}); no seat is to "
                    "act: start or deal a new hand"
                )
            raise IllegalActionError(self.illegal_message(action))
        chance = self._kind[child] == CHANCE
        if chance and self._deck_community < 0:
            c = self.game.config
            raise ArgumentValueError(
                f"community: this hand of {c.name} reaches round 2 here, but start() was given "
                f"no community rank (-1); give one (0..{c.num_ranks - 1}) to play round 2"
            )
        seat = int(self._actor[node])
        pub = self.public
        k = len(self.actions)
        pub[self._o_hist + k * self._slot + 3 * seat + a] = 1.0
        self.actions.append((seat, a))
        self.history += self._tokens[3 * seat + a]
        if chance:
            y = self._deck_community
            self.community = y
            self.community_after = k + 1
            pub[self._o_comm + y] = 1.0
            self.history += self._ctokens[y]
            child = int(self._children.item(child, 3 + y))
        self.node = child
        pub[self._sl_contrib] = self._contrib[child]
        pub[self._sl_active] = self._active[child]
        pub[self._o_act + seat] = 0.0
        nxt = int(self._actor[child])
        if nxt >= 0:
            pub[self._o_act + nxt] = 1.0
