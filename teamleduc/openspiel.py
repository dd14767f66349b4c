"""Team Leduc in OpenSpiel: every preset as a registered Python game, and policies both ways.

Importing this module registers one game with OpenSpiel's own registry,
``pyspiel.register_game(GAME_TYPE, TeamLeducGame)``, under the name ``python_teamleduc``
with one parameter, ``preset``::

    pyspiel.load_game("python_teamleduc", {"preset": "tiny-team-leduc"})

One name with a parameter, as OpenSpiel's ``leduc_poker(players=3)`` does: the preset is part
of the game string (``python_teamleduc(preset=kuhn-3p)``), so OpenSpiel's serialisation and
pickling bring back the same preset, and every preset (new ones too) is a game without a new
registration.

The game is the toolkit's engine seen through OpenSpiel's interface, not a second
implementation of the rules: a state is a node of the public tree (:mod:`teamleduc.tree`) plus
the dealt ranks. Chance nodes, in order: one per seat dealing its private rank, with the exact
probability ``(suits - copies of the rank already dealt) / (cards left)`` (suits are not told
apart, so ranks with their multiplicity are the outcomes), then the tree's own public chance
nodes (the small blind of ``rlcard-leduc``, ``1 / S``; the community card, ``(suits - copies
dealt) / (C - S)``). Player actions are the tree's slots 0 c (call/check), 1 r (raise), 2 f
(fold); chance outcomes are rank ids (seat ids for a dealt blind). Returns are chips, read
from the payoff tables every exact evaluation uses (:func:`teamleduc.payoffs.payoff_groups`).

``information_state_string(p)`` is the spec's information-set string of seat p + 1
(``/C:J???/P1:r/``; players are 0-based in OpenSpiel), so the rows of a :class:`~open_spiel.python.policy.TabularPolicy` are the
lines of ``leduc4-infosets-player{p+1}.csv``, one to one. The information-state tensor is the
environments' observation vector (:mod:`teamleduc.envs.game`: own rank, community, seat, seat to
act, active seats, contributions, action history; games with blinds add the small-blind
seat); the observation tensor is the same without the history. Every preset passes OpenSpiel's
``pyspiel.random_sim_test`` with serialisation (``tests/test_openspiel.py``).

Policies both ways: :func:`to_submission` turns an OpenSpiel policy (a ``TabularPolicy``, any
``Policy``, a C++ ``pyspiel.TabularPolicy``, or a list of ``(policy, weight)`` for a correlated
strategy) over these games or over OpenSpiel's own ``leduc_poker`` / ``kuhn_poker`` into a
checked :class:`~teamleduc.files.model.Submission`; :func:`to_policies` gives back one
``TabularPolicy`` per signal. docs/frameworks.md has an example and the speeds.
"""

from __future__ import annotations

import functools
import numbers
import os
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

try:
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import get_all_states
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "teamleduc.openspiel needs OpenSpiel (pyspiel): pip install 'teamleduc[openspiel]'"
    ) from e

from .config import DEFAULT_PRESET, PRESETS, GameConfig, get_config
from .envs.game import env_game
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .files.model import Submission, check_submission, whole_teams
from .infosets import INFOSET_FILE, infoset_tables, mask, node_histories
from .payoffs import payoff_groups
from .strategy import submission_from_policy, write_converted
from .tree import CHANCE, DECISION, TERMINAL, build_tree

__all__ = [
    "GAME_NAME",
    "GAME_TYPE",
    "SignalPolicy",
    "TeamLeducGame",
    "TeamLeducState",
    "load_game",
    "preset_of",
    "tabular_policy",
    "to_policies",
    "to_submission",
]

GAME_NAME = "python_teamleduc"
_ACTION_NAMES = ("Call", "Raise", "Fold")
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
#: OpenSpiel's leduc_poker actions (0 fold, 1 call, 2 raise) as our columns c, r, f
_LEDUC_COLUMNS = np.array([2, 0, 1])

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Team Leduc Hold'em (teamleduc presets)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=max(c.num_seats for c in PRESETS.values()),
    min_num_players=min(c.num_seats for c in PRESETS.values()),
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"preset": DEFAULT_PRESET},
)


# -- the engine of one preset ----------------------------------------------------------------


class _Engine:
    """What every state of one preset reads: the tree, its tables and per-node lists. Built once
    per preset and shared: a state refers to it by its preset's name (:data:`_ENGINES`), so
    OpenSpiel's clone (a deep copy of the state's ``__dict__``) copies a few atomic values."""

    def __init__(self, config: GameConfig):
        tree = build_tree(config)
        self.config = config
        self.tree = tree
        self.tables = infoset_tables(tree)
        self.hist = node_histories(tree)
        self.kind = tree.kind.tolist()
        self.actor = tree.actor.tolist()
        self.num_seats = config.num_seats
        #: OpenSpiel's current player at every node once the cards are dealt
        self.player = np.select(
            [tree.kind == DECISION, tree.kind == CHANCE], [tree.actor, _CHANCE], _TERMINAL
        ).tolist()
        self.children = tree.children
        #: the legal actions of every node as one of 8 lists (code = bits c 1, r 2, f 4)
        self.legal_code = (tree.legal.astype(np.int64) @ np.array([1, 2, 4])).tolist()
        self.legal_lists = [[a for a in range(3) if code >> a & 1] for code in range(8)]
        self.contrib = tree.contrib
        self.community = tree.community.tolist()
        self.parent = tree.parent.tolist()
        self.action = tree.action.tolist()
        self.chance_width = tree.children.shape[1] - 3
        self.active = tree.active
        self._outcomes: dict[bytes, list[tuple[int, float]]] = {}
        self.history_slots = env_game(config).history_slots
        S, R = config.num_seats, config.num_ranks
        chance = np.flatnonzero(tree.kind == CHANCE)
        root = chance[tree.parent[chance] < 0]
        inner = chance[tree.parent[chance] >= 0]
        kids = tree.children[inner, 3:]
        slot = np.arange(kids.shape[1])
        is_deal = (kids >= 0) & (tree.community[np.maximum(kids, 0)] == slot) & (slot < R)
        if not ((kids < 0) | is_deal).all():
            raise ArgumentValueError(
                f"preset {config.name}: its tree has a chance node that deals neither the "
                "community card nor the small blind; teamleduc.openspiel cannot express it"
            )
        self.blind_outcomes: list[tuple[int, float]] = []
        if root.size:
            probability = getattr(tree, "blind_probability", None)
            if probability is None:
                raise ArgumentValueError(
                    f"preset {config.name}: its root is a chance node without probabilities; "
                    "teamleduc.openspiel cannot express it"
                )
            slots = np.flatnonzero(tree.children[0, 3:] >= 0)
            self.blind_outcomes = [
                (int(b), float(probability[tree.children[0, 3 + b]])) for b in slots
            ]
        term = tree.terminals
        contrib = tree.contrib[term].astype(np.float64)
        self.min_utility = -float(contrib.max())
        self.max_utility = float((contrib.sum(axis=1, keepdims=True) - contrib).max())
        self.max_chance_nodes = S + int(config.has_community) + int(root.size > 0)
        self.deal_weights = [R ** (S - 1 - i) for i in range(S)]
        self.game_info = pyspiel.GameInfo(
            num_distinct_actions=3,
            max_chance_outcomes=max(R, len(self.blind_outcomes)),
            num_players=S,
            min_utility=self.min_utility,
            max_utility=self.max_utility,
            utility_sum=0.0,
            max_game_length=self.history_slots,
        )

    def moves(self, node: int) -> list[int]:
        """``3 * seat + action`` of every action on the path to ``node``, in order."""
        out = []
        parent = self.parent[node]
        while parent >= 0:
            if self.kind[parent] == DECISION:
                out.append(3 * self.actor[parent] + self.action[node])
            node, parent = parent, self.parent[parent]
        return out[::-1]

    def deal_outcomes(self, cards: bytes) -> list[tuple[int, float]]:
        """Exact probability of each rank for the next card given the ranks ``cards`` dealt:
        (copies left of the rank) / (cards left); ranks without a copy left are not listed."""
        if cards not in self._outcomes:
            c = self.config
            left = c.num_cards - len(cards)
            counts = [cards.count(r) for r in range(c.num_ranks)]
            self._outcomes[cards] = [
                (r, (c.suits - n) / left) for r, n in enumerate(counts) if n < c.suits
            ]
        return self._outcomes[cards]

    @functools.cached_property
    def _payoffs(self) -> tuple[list, list[int]]:
        """Each seat's :class:`~teamleduc.payoffs.PayoffGroups` (the tables every exact
        evaluation reads: share, key, pot, paid, as lists) and the position of every node
        among the terminals."""
        position = np.full(self.tree.num_nodes, -1, np.int64)
        position[self.tree.terminals] = np.arange(len(self.tree.terminals))
        groups = [payoff_groups(self.tree, (s,)) for s in range(self.num_seats)]
        lists = [
            (g.share.tolist(), g.key.tolist(), g.pot.tolist(), g.paid.tolist()) for g in groups
        ]
        return lists, position.tolist()

    def returns(self, node: int, cards: bytes) -> list[float]:
        """Chips won by every seat at terminal ``node`` when the seats hold ``cards``: the
        engine's payoff tables, ``share * pot - paid``."""
        groups, position = self._payoffs
        z = position[node]
        d = sum(r * w for r, w in zip(cards, self.deal_weights))  # the deal's index
        return [share[key[z]][d] * pot[z] - paid[z] for share, key, pot, paid in groups]


#: the engine of every preset loaded so far, by name (states refer to theirs by name)
_ENGINES: dict[str, _Engine] = {}


def _engine(preset: str) -> _Engine:
    if preset not in _ENGINES:
        _ENGINES[preset] = _Engine(get_config(preset))
    return _ENGINES[preset]


def _preset_name(preset) -> str:
    """The preset name of ``preset`` (a name or one of the presets' GameConfigs)."""
    if isinstance(preset, GameConfig):
        for name, config in PRESETS.items():
            if config == preset:
                return name
        raise ArgumentValueError(
            f"preset: the GameConfig {preset.name!r} is not one of the presets; the OpenSpiel "
            f"game takes a preset name ({', '.join(PRESETS)})"
        )
    if not isinstance(preset, str):
        raise ArgumentTypeError(
            f"preset must be a preset name (str), not {type(preset).__name__} {preset!r}"
        )
    return get_config(preset).name


# -- the game, its states and observers ------------------------------------------------------


class TeamLeducGame(pyspiel.Game):
    """A preset of :mod:`teamleduc.config` as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params=None):
        params = dict(params or {})
        unknown = sorted(set(params) - {"preset"})
        if unknown:
            raise ArgumentValueError(
                f"{GAME_NAME}: unknown parameter(s) {', '.join(unknown)}; the only one is preset"
            )
        name = _preset_name(params.get("preset", DEFAULT_PRESET))
        self._engine = _engine(name)
        super().__init__(GAME_TYPE, self._engine.game_info, {"preset": name})

    def new_initial_state(self) -> TeamLeducState:
        return TeamLeducState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
        return _Observer(
            self._engine, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )

    def max_chance_nodes_in_history(self) -> int:
        return self._engine.max_chance_nodes


class TeamLeducState(pyspiel.State):
    """One history: the ranks dealt so far and the public node (which holds the actions, the
    small blind and the community card)."""

    def __init__(self, game: TeamLeducGame):
        super().__init__(game)
        # OpenSpiel clones a Python state by deep-copying its __dict__: few, atomic values
        self._preset: str = game._engine.config.name
        self._cards = b""  # rank of each seat dealt so far
        self._node = 0

    @property
    def _community(self) -> int:
        """The community rank, -1 before it is dealt."""
        return _ENGINES[self._preset].community[self._node]

    @property
    def _engine(self) -> _Engine:
        return _ENGINES[self._preset]

    def current_player(self) -> int:
        e = _ENGINES[self._preset]
        if len(self._cards) < e.num_seats:
            return _CHANCE
        return e.player[self._node]

    def _legal_actions(self, player: int) -> list[int]:
        e = _ENGINES[self._preset]
        return e.legal_lists[e.legal_code[self._node]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        e = self._engine
        if len(self._cards) < e.config.num_seats:
            return e.deal_outcomes(self._cards)
        if self._node == 0:  # the root's public chance: the small blind
            return e.blind_outcomes
        return e.deal_outcomes(self._cards)  # the community card: every private card is out

    def _apply_action(self, action: int) -> None:
        e = self._engine
        action = int(action)
        if len(self._cards) < e.config.num_seats:  # a private card: a rank with a copy left
            if not any(action == a for a, _ in e.deal_outcomes(self._cards)):
                raise ArgumentValueError(self._not_an_outcome(action))
            self._cards += bytes((action,))
            return
        node = self._node
        if e.kind[node] == CHANCE:  # the small blind or the community card
            child = e.children.item(node, 3 + action) if 0 <= action < e.chance_width else -1
            # the community card needs a copy left in the deck; only _infoset_states deals any
            # rank (it marks its states _any_community), where just the probabilities differ
            lenient = getattr(self, "_any_community", False)
            if child >= 0 and node != 0 and not lenient:
                outcomes = e.deal_outcomes(self._cards)
                child = child if any(action == a for a, _ in outcomes) else -1
            if child < 0:
                raise ArgumentValueError(self._not_an_outcome(action))
        else:
            child = e.children.item(node, action) if 0 <= action < 3 else -1
        if child < 0:
            raise ArgumentValueError(f"action {action} is not legal in {self}")
        self._node = child

    def _not_an_outcome(self, action: int) -> str:
        """The message for chance action ``action`` that is not one of this node's outcomes."""
        e = self._engine
        deal = len(self._cards) < e.config.num_seats or self._node != 0
        names = e.config.ranks if deal else [f"P{b + 1}" for b in range(e.config.num_seats)]
        legal = ", ".join(f"{a} ({names[a]})" for a, _ in self.chance_outcomes())
        return (
            f"action {action} is not legal at this chance node of {self._preset} "
            f"(cards dealt: {' '.join(e.config.ranks[r] for r in self._cards) or 'none'}); "
            f"its outcomes are {legal}"
        )

    def _action_to_string(self, player: int, action: int) -> str:
        e = self._engine
        top = 3 if player != pyspiel.PlayerId.CHANCE else max(e.config.num_ranks, e.num_seats)
        if not 0 <= action < top:
            raise ArgumentValueError(f"action {action} is not an action of {self._preset}")
        if player != pyspiel.PlayerId.CHANCE:
            return _ACTION_NAMES[action]
        if len(self._cards) < e.config.num_seats:
            return f"Deal:{e.config.ranks[action]}"
        if self._node == 0:
            return f"SmallBlind:P{action + 1}"
        return f"Community:{e.config.ranks[action]}"

    def is_terminal(self) -> bool:
        e = _ENGINES[self._preset]
        return len(self._cards) == e.num_seats and e.player[self._node] == _TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._engine.config.num_seats
        return _ENGINES[self._preset].returns(self._node, self._cards)

    def __str__(self) -> str:
        ranks = self._engine.config.ranks
        return " ".join(ranks[r] for r in self._cards) + " " + self._engine.hist[self._node]


class _Observer:
    """OpenSpiel's PyObserver interface (``tensor``, ``dict``, ``set_from``, ``string_from``).

    Tensor pieces, in order: ``own_rank`` (R; or ``cards`` (S, R) with every seat's rank, or
    nothing, as the observation type's private information says), ``community`` (R, two-round
    games), ``seat`` (S), ``to_act`` (S), ``active`` (S), ``contributions`` (S), ``small_blind``
    (S, games with blinds) and, with perfect recall, ``history`` (H, 3S): the layout of the
    environments' observation vector. Strings: the spec's information-set string with perfect
    recall, else the deal mask and the public state now."""

    def __init__(self, engine: _Engine, iig_obs_type, params):
        if params:
            raise ArgumentValueError(
                f"{GAME_NAME}: observer parameters are not supported: {params}"
            )
        c = engine.config
        S, R = c.num_seats, c.num_ranks
        private = iig_obs_type.private_info
        self._engine = engine
        self._all = private == pyspiel.PrivateInfoType.ALL_PLAYERS
        self._single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._public = bool(iig_obs_type.public_info)
        self._recall = bool(iig_obs_type.perfect_recall)
        pieces = []
        if self._single:
            pieces.append(("own_rank", (R,)))
        elif self._all:
            pieces.append(("cards", (S, R)))
        if self._public and c.has_community:
            pieces.append(("community", (R,)))
        pieces.append(("seat", (S,)))
        if self._public:
            pieces += [("to_act", (S,)), ("active", (S,)), ("contributions", (S,))]
            if c.blinds:
                pieces.append(("small_blind", (S,)))
            if self._recall:
                pieces.append(("history", (engine.history_slots, 3 * S)))
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: TeamLeducState, player: int) -> None:
        e, d, node = self._engine, self.dict, state._node
        self.tensor.fill(0.0)
        cards = state._cards
        if self._single and player < len(cards):
            d["own_rank"][cards[player]] = 1.0
        if self._all:
            d["cards"][np.arange(len(cards)), list(cards)] = 1.0
        if "community" in d and state._community >= 0:
            d["community"][state._community] = 1.0
        d["seat"][player] = 1.0
        if self._public:
            to_act = state.current_player()
            if to_act >= 0:
                d["to_act"][to_act] = 1.0
            d["active"][:] = e.active[node]
            d["contributions"][:] = e.contrib[node]
            if "small_blind" in d:
                blind = int(e.tree.blind[node]) if hasattr(e.tree, "blind") else 0
                if blind >= 0:
                    d["small_blind"][blind] = 1.0
            if self._recall:
                moves = e.moves(node)
                d["history"][np.arange(len(moves)), moves] = 1.0

    def string_from(self, state: TeamLeducState, player: int) -> str:
        e, node = self._engine, state._node
        c = e.config
        cards = state._cards
        if self._single:
            deal = mask(c, player, cards[player]) if player < len(cards) else "?" * c.num_seats
        elif self._all:
            names = [c.ranks[r] for r in cards] + ["?"] * (c.num_seats - len(cards))
            deal = ("," if any(len(r) > 1 for r in c.ranks) else "").join(names)
        else:
            deal = "?" * c.num_seats
        if not self._public:
            return f"/C:{deal}/"
        if self._recall:
            return f"/C:{deal}/" + e.hist[node]
        community = f"C:{c.ranks[state._community]}/" if state._community >= 0 else ""
        to_act = state.current_player()
        active = "".join("1" if a else "0" for a in e.active[node].tolist())
        chips = ",".join(str(x) for x in e.contrib[node].tolist())
        who = f"P{to_act + 1}" if to_act >= 0 else "-"
        return f"/C:{deal}/{community} chips:{chips} active:{active} to_act:{who}"


pyspiel.register_game(GAME_TYPE, TeamLeducGame)


def load_game(preset: str | GameConfig = DEFAULT_PRESET) -> TeamLeducGame:
    """``pyspiel.load_game("python_teamleduc", {"preset": preset})``."""
    return pyspiel.load_game(GAME_NAME, {"preset": _preset_name(preset)})


# -- which preset a game is ------------------------------------------------------------------

#: OpenSpiel's own games and the presets they are: {short name: {players: preset}}
_NATIVE = {"leduc_poker": {2: "leduc", 3: "leduc-3p"}, "kuhn_poker": {2: "kuhn", 3: "kuhn-3p"}}


def _require_game(game, what: str = "game"):
    if not isinstance(game, pyspiel.Game):
        raise ArgumentTypeError(
            f"{what}: an OpenSpiel game (pyspiel.Game), not {type(game).__name__}"
        )
    return game


def preset_of(game) -> str:
    """The preset that OpenSpiel game ``game`` is: ours (``python_teamleduc``) or OpenSpiel's
    ``leduc_poker`` / ``kuhn_poker`` with default parameters (2 or 3 players); else
    ArgumentValueError naming the game."""
    _require_game(game)
    name = game.get_type().short_name
    params = game.get_parameters()
    if name == GAME_NAME:
        return params["preset"]
    if name in _NATIVE:
        extra = {k: v for k, v in params.items() if k != "players"}
        defaults = {
            k: v
            for k, v in game.get_type().parameter_specification.items()
            if k in extra and k != "players"
        }
        if extra == defaults and game.num_players() in _NATIVE[name]:
            return _NATIVE[name][game.num_players()]
    raise ArgumentValueError(
        f"game {game}: not a teamleduc preset; this converts {GAME_NAME}(preset=...) and "
        "OpenSpiel's leduc_poker and kuhn_poker (2 or 3 players, default parameters)"
    )


# -- one state per information set -----------------------------------------------------------


def _deal_templates(config: GameConfig) -> list[tuple[int, ...]]:
    """R possible deals in which every seat holds every rank once: seat s holds (k + s) mod R
    in deal k (at most ceil(S / R) <= suits copies of a rank)."""
    S, R = config.num_seats, config.num_ranks
    return [tuple((k + s) % R for s in range(S)) for k in range(R)]


def _infoset_states(game: TeamLeducGame, seats: Sequence[int]) -> dict[tuple[int, int], object]:
    """``{(seat, id): state}``: one state of every information set of ``seats``, reached by
    OpenSpiel's own ``apply_action`` from the initial state (a walk of the public tree per deal
    template; the community card is any rank, also one the template's deal leaves no copy of,
    which only the probabilities would notice)."""
    e = game._engine
    seats = set(seats)
    out: dict[tuple[int, int], object] = {}
    for deal in _deal_templates(e.config):
        root = game.new_initial_state()
        for r in deal:
            root.apply_action(r)
        root._any_community = True  # copied by every clone: any community rank is dealt
        stack = [root]
        while stack:
            state = stack.pop()
            node = state._node
            kind = e.kind[node]
            if kind == TERMINAL:
                continue
            if kind == DECISION:
                seat = e.actor[node]
                if seat in seats:
                    out.setdefault((seat, int(e.tables[seat].id_of[node, deal[seat]])), state)
            slots = np.flatnonzero(e.children[node] >= 0).tolist()
            for slot in reversed(slots):
                stack.append(state.child(slot if kind == DECISION else slot - 3))
    for state in out.values():  # the states handed out check the deck again
        state._any_community = False
    return out


def tabular_policy(game, players: Sequence[int] | None = None) -> os_policy.TabularPolicy:
    """A uniform :class:`~open_spiel.python.policy.TabularPolicy` of ``game``
    (``python_teamleduc``) for ``players`` (0-based; None: all), whose rows of each player are
    in the order of ``leduc4-infosets-player{p+1}.csv``.

    OpenSpiel's own ``TabularPolicy(game)`` enumerates every history, deals included; this
    passes it one state per information set instead (OpenSpiel's ``states`` argument), so it
    also builds team-leduc's 590,640 rows (slowly: a walk of the tree per rank)."""
    game = _our_game(game)
    seats = range(game.num_players()) if players is None else _players(players, game)
    return _template(str(game), tuple(sorted(int(p) for p in seats))).__copy__()


def _players(players, game) -> tuple[int, ...]:
    """``players`` as distinct 0-based player ids of ``game``, or ArgumentTypeError /
    ArgumentValueError naming ``players``."""
    n = game.num_players()
    want = f"a sequence of 0-based player ids 0..{n - 1} (or None for all)"
    try:
        if isinstance(players, (str, bytes, dict)):
            raise TypeError
        given = list(players)
    except TypeError:
        raise ArgumentTypeError(
            f"players must be {want}, not {type(players).__name__} {players!r}"
        ) from None
    out = []
    for p in given:
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Integral):
            raise ArgumentTypeError(
                f"players must be {want}; {p!r} ({type(p).__name__}) is not a player id"
            )
        if not 0 <= p < n:
            raise ArgumentValueError(f"players: {int(p)} is not a player of {game} (0..{n - 1})")
        out.append(int(p))
    if not out:
        raise ArgumentValueError(f"players: empty; give at least one of 0..{n - 1} (None: all)")
    if len(set(out)) != len(out):
        raise ArgumentValueError(f"players: {out} names a player twice")
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _template(game_string: str, players: tuple[int, ...]) -> os_policy.TabularPolicy:
    """The uniform TabularPolicy of :func:`tabular_policy` (cached; callers copy it)."""
    game = pyspiel.load_game(game_string)
    states = _infoset_states(game, players)
    keyed = {f"{seat:03d}:{i:09d}": state for (seat, i), state in states.items()}
    return os_policy.TabularPolicy(game, list(players), states=keyed)


def _our_game(game) -> TeamLeducGame:
    _require_game(game)
    if game.get_type().short_name != GAME_NAME:
        raise ArgumentValueError(f"game {game}: expected a {GAME_NAME} game")
    return game


# -- OpenSpiel's own leduc_poker / kuhn_poker ------------------------------------------------


class _NativeMap(NamedTuple):
    """Each decision information state of OpenSpiel's game as one of ours: ``keys[i]`` (its
    information-state string) is seat ``seat[i]``'s information set ``ids[i]``; its action a is
    our column ``columns[i, a]``."""

    keys: list[str]
    seat: np.ndarray
    ids: np.ndarray
    columns: np.ndarray
    states: list


@functools.lru_cache(maxsize=8)
def _native_map(game_string: str) -> _NativeMap:
    game = pyspiel.load_game(game_string)
    name = game.get_type().short_name
    config = get_config(preset_of(game))
    tree = build_tree(config)
    tables = infoset_tables(tree)
    S = config.num_seats
    states = get_all_states.get_all_states(
        game, depth_limit=-1, include_terminals=False, include_chance_states=False
    )
    keys, seat, ids, columns, reps = [], [], [], [], []
    seen = set()
    for state in states.values():
        p = state.current_player()
        key = state.information_state_string(p)
        if key in seen:
            continue
        seen.add(key)
        node, cards = 0, []
        for player, action in ((h.player, h.action) for h in state.full_history()):
            if player == pyspiel.PlayerId.CHANCE:
                rank = action // config.suits
                if len(cards) < S:
                    cards.append(rank)
                    continue
                node = int(tree.children[node, 3 + rank])
            else:
                node = _native_step(tree, name, node, player, action, game)
        if tree.kind[node] != DECISION or tree.actor[node] != p:
            raise TeamLeducError(f"{game}: the rules differ from {config.name} at {key!r}")
        keys.append(key)
        seat.append(p)
        ids.append(int(tables[p].id_of[node, cards[p]]))
        columns.append(_native_columns(tree, name, node))
        reps.append(state)
    return _NativeMap(keys, np.array(seat), np.array(ids), np.array(columns), reps)


def _native_columns(tree, name: str, node: int) -> np.ndarray:
    """Our column c, r, f of each of OpenSpiel's actions at ``node``: leduc_poker 0 fold,
    1 call, 2 raise; kuhn_poker 0 pass (fold facing a bet, else check), 1 bet (call facing a
    bet, else raise)."""
    if name == "leduc_poker":
        return _LEDUC_COLUMNS
    return np.array([2, 0, -1]) if tree.legal[node, 2] else np.array([0, 1, -1])


def _native_step(tree, name: str, node: int, player: int, action: int, game) -> int:
    if tree.kind[node] != DECISION or tree.actor[node] != player:
        raise TeamLeducError(f"{game}: player {player} acts where the preset's rules do not")
    column = int(_native_columns(tree, name, node)[action])
    child = int(tree.children[node, column]) if column >= 0 else -1
    if child < 0:
        raise TeamLeducError(f"{game}: action {action} has no counterpart in the preset's rules")
    return child


# -- OpenSpiel policy -> submission ----------------------------------------------------------


class SignalPolicy(NamedTuple):
    """One signal of a correlated strategy: an OpenSpiel policy, its probability and (from
    :func:`to_policies`) the signal id it had in the submission."""

    policy: object
    weight: float
    signal: int | None = None


def _python_policy(policy, game):
    """A Python ``Policy`` of ``policy`` (a C++ ``pyspiel.TabularPolicy`` is copied)."""
    if isinstance(policy, pyspiel.TabularPolicy):
        if game is None:
            raise ArgumentValueError(
                "policy: a pyspiel.TabularPolicy does not know its game; pass game="
            )
        return os_policy.pyspiel_policy_to_python_policy(game, policy)
    if isinstance(policy, pyspiel.Policy):  # a C++ policy, e.g. CFRSolver.average_policy()
        if game is None:
            raise ArgumentValueError("policy: a pyspiel.Policy does not know its game; pass game=")
        return policy
    if not isinstance(policy, os_policy.Policy):
        raise ArgumentTypeError(
            "policy: an OpenSpiel policy (open_spiel.python.policy.Policy, e.g. a TabularPolicy, "
            f"or a pyspiel.TabularPolicy), or a list of (policy, weight); not "
            f"{type(policy).__name__}"
        )
    return policy


def _missing_error(string: str, seat: int, line: int, count: int, total: int, game, policy):
    return ArgumentValueError(
        f"policy: no probabilities for the information state {string!r} (player {seat}, line "
        f"{line} of {INFOSET_FILE.format(seat=seat + 1)}) of {game}; {count:,} of {total:,} "
        f"information states are missing: is the policy over another game? (it is over "
        f"{policy.game})"
    )


def _rows_of_our_game(policy, game: TeamLeducGame, seats) -> dict[int, np.ndarray]:
    """{seat: (n, 3)} rows of an OpenSpiel policy over our game, in file order."""
    e = game._engine
    out = {}
    if isinstance(policy, os_policy.TabularPolicy):
        index = pd.Index(list(policy.state_lookup.keys()))
        rows_of = np.fromiter(policy.state_lookup.values(), np.int64, len(index))
        table = np.asarray(policy.action_probability_array, np.float64)
        for s in seats:
            strings = e.tables[s].strings
            at = index.get_indexer(strings)
            missing = np.flatnonzero(at < 0)
            if missing.size:
                i = int(missing[0])
                raise _missing_error(strings[i], s, i + 1, missing.size, len(strings), game, policy)
            out[s] = table[rows_of[at], :3]
        return out
    states = _infoset_states(game, seats)
    for s in seats:
        rows = np.zeros((e.tables[s].size, 3))
        for i in range(e.tables[s].size):
            rows[i] = _state_row(policy, states[(s, i)], s, e.tables[s].strings[i], 3)
        out[s] = rows
    return out


def _state_row(policy, state, seat: int, name: str, width: int) -> np.ndarray:
    """``policy.action_probabilities(state, seat)`` as a row of ``width`` actions."""
    try:
        if isinstance(policy, pyspiel.Policy):  # C++: the state's player is the one to act
            probs = policy.action_probabilities(state)
        else:
            probs = policy.action_probabilities(state, seat)
    except Exception as err:  # the user's policy cannot answer this state
        raise ArgumentValueError(
            f"policy: no probabilities for the information state {name!r} (player {seat}): "
            f"{type(err).__name__}: {err}"
        ) from None
    row = np.zeros(width)
    for a, p in probs.items():
        if not (isinstance(a, numbers.Integral) and 0 <= a < width):
            raise ArgumentValueError(f"policy: action {a!r} at {name!r} is not one of the game's")
        row[int(a)] = p
    return row


def _rows_of_native(policy, game, seats) -> dict[int, np.ndarray]:
    """{seat: (n, 3)} rows of a policy over OpenSpiel's leduc_poker / kuhn_poker: each of its
    information states (suits told apart) mapped to ours (ranks only). A policy that plays two
    suits of one rank differently (by more than 1e-9) has no equivalent here: refused."""
    m = _native_map(str(game))
    config = get_config(preset_of(game))
    tables = infoset_tables(build_tree(config))
    width = game.num_distinct_actions()
    if isinstance(policy, os_policy.TabularPolicy):
        index = pd.Index(list(policy.state_lookup.keys()))
        at = index.get_indexer(m.keys)
        take = np.fromiter(policy.state_lookup.values(), np.int64, len(index))
        table = np.asarray(policy.action_probability_array, np.float64)
        mine = np.isin(m.seat, seats)
        missing = np.flatnonzero((at < 0) & mine)
        if missing.size:
            i = int(missing[0])
            raise ArgumentValueError(
                f"policy: no probabilities for {game}'s information state {m.keys[i]!r} "
                f"(player {int(m.seat[i])}); {missing.size:,} of {int(mine.sum()):,} are "
                f"missing: is the policy over another game? (it is over {policy.game})"
            )
        theirs = np.zeros((len(m.keys), width))
        theirs[mine] = table[take[at[mine]]][:, :width]
    else:
        theirs = np.zeros((len(m.keys), width))
        for i in np.flatnonzero(np.isin(m.seat, seats)).tolist():
            theirs[i] = _state_row(policy, m.states[i], int(m.seat[i]), m.keys[i], width)
    ours = np.zeros((len(m.keys), 3))
    cols = m.columns[:, :width]
    valid = cols >= 0
    rows = np.repeat(np.arange(len(m.keys)), valid.sum(axis=1))
    ours[rows, cols[valid]] = theirs[valid]
    out = {}
    for s in seats:
        pick = np.flatnonzero(m.seat == s)
        n = tables[s].size
        first = np.full(n, -1)
        first[m.ids[pick][::-1]] = pick[::-1]
        if (first < 0).any():  # every information set of ours is one of theirs
            i = int(np.argmax(first < 0))
            raise TeamLeducError(f"{game}: no information state for {tables[s].strings[i]}")
        spread = np.abs(ours[pick] - ours[first[m.ids[pick]]]).max(axis=1)
        if (spread > 1e-9).any():
            j = int(pick[int(np.argmax(spread))])
            k = int(first[m.ids[j]])
            raise ArgumentValueError(
                f"policy: it plays {m.keys[k]!r} and {m.keys[j]!r} differently ("
                f"{theirs[k].tolist()} and {theirs[j].tolist()}), cards of one rank in "
                f"two suits; {config.name} does not tell suits apart, so the policy has no "
                "equivalent there"
            )
        sums = np.zeros((n, 3))
        np.add.at(sums, m.ids[pick], ours[pick])
        counts = np.bincount(m.ids[pick], minlength=n)[:, None]
        # where the suits' rows differ (by at most 1e-9) their mean, else the row itself
        apart = np.bincount(m.ids[pick], weights=spread > 0, minlength=n) > 0
        out[s] = np.where(apart[:, None], sums / counts, ours[first])
    return out


def _over_another_game(policy, game) -> bool:
    return isinstance(policy, os_policy.Policy) and str(policy.game) != str(game)


def _policy_seats(policy, config: GameConfig) -> tuple[int, ...]:
    """The players a policy plays (C++ policies: every player), as whole teams."""
    players = getattr(policy, "player_ids", None) or range(config.num_seats)
    chosen = tuple(sorted(int(p) for p in players))
    try:
        return whole_teams(config, chosen)
    except ValueError as err:
        raise ArgumentValueError(f"policy: {err}") from None


def to_submission(
    policy,
    game=None,
    *,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> Submission:
    """A checked :class:`~teamleduc.files.model.Submission` of an OpenSpiel policy.

    Parameters
    ----------
    policy : an OpenSpiel ``Policy`` (a ``TabularPolicy``, any ``Policy``, a C++
        ``pyspiel.TabularPolicy``) over ``python_teamleduc`` or OpenSpiel's ``leduc_poker`` /
        ``kuhn_poker``: one signal. Or a list of ``(policy, weight)`` (or :class:`SignalPolicy`,
        whose signal ids are kept): a correlated strategy, signal k drawn with weight k. The
        seats are the policy's players (whole teams).
    game : the game the policy is over; None: ``policy.game`` (a C++ policy needs it).
    out : if given, write the submission there (folder, or a zip if it ends in ``.zip``),
        only once everything converted; ``overwrite`` replaces it.

    An information state the policy does not cover (a policy over another game) raises
    :class:`ArgumentValueError` naming the first one; a bad row raises
    :class:`TeamLeducError` naming its seat, line and information set. Nothing is written then.
    """
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise ArgumentTypeError(f"out: a path (str or os.PathLike), not {type(out).__name__}")
    if game is not None:
        _require_game(game)
    if isinstance(policy, SignalPolicy):
        policy = [policy]
    several = isinstance(policy, (list, tuple))
    if several:
        pairs = [_signal_pair(p, k) for k, p in enumerate(policy)]
        if not pairs:
            raise ArgumentValueError("policy: an empty list (no signal)")
    else:
        pairs = [SignalPolicy(policy, 1.0)]
    games = []
    python_policies = []
    for pair in pairs:
        p = _python_policy(pair.policy, game)
        g = game if game is not None else p.game
        if game is None and games and str(g) != str(games[0]):
            raise ArgumentValueError(
                f"policy: the signals are over different games ({games[0]}, {g})"
            )
        games.append(g)
        python_policies.append(p)
    g = games[0]
    config = get_config(preset_of(g))
    # a policy over another game is checked state by state (the first missing one is named)
    ours = [p for p in python_policies if not _over_another_game(p, g)]
    seats = _policy_seats(ours[0], config) if ours else tuple(range(config.num_seats))
    for p in ours[1:]:
        if _policy_seats(p, config) != seats:
            raise ArgumentValueError("policy: every signal must play the same players")
    if g.get_type().short_name == GAME_NAME:
        rows = [_rows_of_our_game(p, g, seats) for p in python_policies]
    else:
        rows = [_rows_of_native(p, g, seats) for p in python_policies]
    for p in python_policies:  # every state had a row, and yet the policy is over another game
        if _over_another_game(p, g):
            raise ArgumentValueError(
                f"policy: it is over {p.game}, not over {g} (it has probabilities for every "
                f"information state of {g}, but the games differ)"
            )
    signals = [{s + 1: r[s] for s in seats} for r in rows]
    sub = submission_from_policy(
        signals if several else signals[0],
        config,
        seats=seats,
        weights=[float(p.weight) for p in pairs] if several else None,
        weights_name="policy weights",
    )
    ids = [p.signal for p in pairs]
    if all(i is not None for i in ids):
        sub = Submission(np.array(ids), sub.probs, sub.seats, sub.strategies)
    sub = check_submission(sub, config, "the converted policy")
    if out is not None:
        write_converted(sub, out, config, overwrite)
    return sub


def _signal_pair(item, k: int) -> SignalPolicy:
    if isinstance(item, SignalPolicy):
        return item
    if isinstance(item, (list, tuple)) and len(item) == 2:
        weight = item[1]
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
            raise ArgumentTypeError(f"policy[{k}]: the weight must be a number, not {weight!r}")
        return SignalPolicy(item[0], float(weight))
    raise ArgumentTypeError(
        f"policy[{k}]: a list of policies holds (policy, weight) pairs, not {type(item).__name__}"
    )


# -- submission -> OpenSpiel policies --------------------------------------------------------


def to_policies(submission, game) -> list[SignalPolicy]:
    """One :class:`SignalPolicy` (an OpenSpiel ``TabularPolicy``, its probability, its signal
    id) per signal of ``submission``, over ``game``: ``python_teamleduc`` (rows from
    :func:`tabular_policy`) or OpenSpiel's ``leduc_poker`` / ``kuhn_poker`` (OpenSpiel's own
    ``TabularPolicy(game)``; both suits of a rank play its row). The policies cover the
    submission's seats; ``to_submission(to_policies(sub, game))`` gives ``sub`` back exactly."""
    _require_game(game)
    config = get_config(preset_of(game))
    sub = check_submission(submission, config, "submission")
    seats = list(sub.seats)
    if game.get_type().short_name == GAME_NAME:
        template = _template(str(game), tuple(seats))
        index = pd.Index(list(template.state_lookup.keys()))
        tables = game._engine.tables
        where = {}
        for s in seats:
            at = index.get_indexer(tables[s].strings)
            if (at < 0).any():  # cannot happen: the rows are made from these strings
                raise TeamLeducError(f"{game}: rows missing for seat {s + 1}")
            where[s] = np.fromiter(template.state_lookup.values(), np.int64)[at]
        out = []
        for k in range(sub.num_signals):
            pol = template.__copy__(copy_action_probability_array=True)
            for s in seats:
                pol.action_probability_array[where[s]] = sub.strategies[s][k]
            out.append(SignalPolicy(pol, float(sub.probs[k]), int(sub.signals[k])))
        return out
    m = _native_map(str(game))
    decisions = {k: st for k, st, p in zip(m.keys, m.states, m.seat.tolist()) if p in seats}
    template = os_policy.TabularPolicy(game, seats, states=decisions)  # no second enumeration
    mine = np.flatnonzero(np.isin(m.seat, seats))
    rows = np.array([template.state_lookup[m.keys[i]] for i in mine.tolist()], np.int64)
    width = game.num_distinct_actions()
    cols = m.columns[mine, :width]
    out = []
    for k in range(sub.num_signals):
        pol = template.__copy__(copy_action_probability_array=True)
        table = np.zeros((len(mine), width))
        for s in seats:
            pick = m.seat[mine] == s
            ours = sub.strategies[s][k][m.ids[mine[pick]]]
            table[pick] = np.where(
                cols[pick] >= 0, np.take_along_axis(ours, np.maximum(cols[pick], 0), axis=1), 0.0
            )
        pol.action_probability_array[rows] = table
        out.append(SignalPolicy(pol, float(sub.probs[k]), int(sub.signals[k])))
    return out
