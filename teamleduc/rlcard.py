"""Every preset as an RLCard environment, and a trained RLCard agent as a submission.

Importing this module registers one RLCard environment per preset through RLCard's own registry
(:func:`rlcard.envs.registration.register`), so ``rlcard.make("teamleduc-team-leduc")`` works
after ``import teamleduc.rlcard``. The ids are ``teamleduc-<preset>`` (:data:`ENV_IDS`): RLCard's
``make(env_id, config)`` has no keyword arguments for an environment and its ``Env`` forwards
game options only to its own four games, so the preset has to be in the id; the prefix keeps
``teamleduc-leduc`` apart from RLCard's own ``leduc-holdem``.

The environment (:class:`TeamLeducEnv`, a subclass of RLCard's ``Env``) re-implements no rule:
its game object (:class:`TeamLeducGame`) steps a :class:`teamleduc.envs.game.Hand` on the
public tree, so the hands are the ones ``evaluate`` sums over. What differs from RLCard's
``leduc-holdem``, and why:

* player id k is seat k + 1 of the files (team A = ids 0 and 2 in the team games);
* actions are the spec's columns: 0 ``call`` (also a check), 1 ``raise``, 2 ``fold``, so an
  agent's action id is the column of a strategy row; ``raw_legal_actions`` use those names;
* ``obs`` is the observation vector of :mod:`teamleduc.envs.game` (own card, community card,
  seats, chips and the whole betting history), so no two information sets of a seat share one:
  a tabular agent keyed by ``obs`` (RLCard's CFRAgent) learns a policy per information set;
* ``get_payoffs()`` is every seat's utility in chips (the spec's utilities; RLCard's
  ``leduc-holdem`` divides by its big blind); a team's return is the sum over its seats;
* an illegal action raises :class:`~teamleduc.envs.game.IllegalActionError` naming the legal
  ones, where RLCard's Leduc silently plays check or fold instead.

:func:`agent_submission` goes back: it walks the public tree, builds for each information set
the state dictionary the environment gives at it, asks the agent, and returns (or writes) a
validated :class:`~teamleduc.files.model.Submission`.

RLCard is an optional dependency: ``pip install 'teamleduc[rlcard]'``.
"""

from __future__ import annotations

import functools
import numbers
import os
import re
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from .arguments import check_flag, check_seed
from .config import PRESETS, GameConfig, get_config
from .envs.game import Hand, IllegalActionError, action_index, env_game
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .files.model import Submission
from .strategy import build_submission, seat_mapping, seats_of
from .tree import CHANCE, DECISION, TERMINAL

try:
    import rlcard
    from rlcard.envs import Env as _RLCardEnv
    from rlcard.envs.registration import register as _register
    from rlcard.envs.registration import registry as _registry
    from rlcard.utils.utils import remove_illegal as _remove_illegal
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "teamleduc.rlcard needs RLCard, which is not installed: pip install 'teamleduc[rlcard]'"
    ) from e

__all__ = [
    "ACTIONS",
    "ENV_IDS",
    "FeatureVector",
    "TeamLeducEnv",
    "TeamLeducGame",
    "agent_submission",
    "env_id",
    "make",
    "register_all",
]

#: raw action names in the spec's column order (``call`` is also a check)
ACTIONS = ("call", "raise", "fold")
_ACTION_OF = {name: a for a, name in enumerate(ACTIONS)}
#: integer types taken as action ids without further checks (numpy's from np.random.choice)
_PLAIN_INTS = (int, np.int64, np.intp)
#: the configuration keys the environment takes (RLCard's generic ones)
_CONFIG_KEYS = ("allow_step_back", "seed", "game_num_players")


class FeatureVector(np.ndarray):
    """The float32 ``obs`` vector, with ``tostring()`` = ``tobytes()``.

    RLCard 1.2's CFRAgent keys its tables by ``state['obs'].tostring()``, which NumPy 2.3
    removed; this subclass keeps that agent running (RLCard's own games fail there)."""

    def tostring(self) -> bytes:
        return self.tobytes()


# -- the game object ------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _node_lists(config: GameConfig) -> tuple[list, list, list]:
    """Per node, as Python lists (the hot path reads single entries): the legal action names,
    the legal action ids (from ``tree.legal``) and the seat to act (``tree.actor``)."""
    tree = env_game(config).tree
    code = (tree.legal.astype(np.int64) @ np.array([1, 2, 4])).tolist()
    ids = [tuple(a for a in range(3) if c >> a & 1) for c in range(8)]
    names = [tuple(ACTIONS[a] for a in t) for t in ids]
    return [names[c] for c in code], [ids[c] for c in code], tree.actor.tolist()


class TeamLeducGame:
    """RLCard's game object for one preset: a :class:`~teamleduc.envs.game.Hand` of the
    toolkit's engine with the methods RLCard's ``Env`` calls (``init_game``, ``step``,
    ``step_back``, ``get_state``, ``is_over``, ``get_player_id``, ``get_payoffs``,
    ``get_legal_actions``, ``get_num_players``, ``get_num_actions``).

    ``np_random`` is the ``RandomState`` that RLCard's ``Env.seed`` makes from the seed (with
    RLCard's hashing); :meth:`TeamLeducEnv.seed` seeds ``rng``, the generator ``init_game`` deals
    from, with it. With ``allow_step_back`` every step keeps a snapshot of the hand.
    """

    def __init__(self, config: GameConfig, allow_step_back: bool = False):
        self.envgame = env_game(config)
        self.config = self.envgame.config
        self.hand = Hand(self.envgame)
        self.allow_step_back = allow_step_back
        self.np_random = np.random.RandomState()
        self.rng = np.random.default_rng()
        self.history: list[tuple] = []  # snapshots for step_back
        tree = self.envgame.tree
        self._kind = tree.kind
        self._contrib = tree.contrib
        self._round = tree.round
        self._names, self._ids, self._actor = _node_lists(self.config)
        self._ranks = self.config.ranks

    # RLCard's Env.__init__ calls configure only for its own games; the preset fixes everything
    def configure(self, game_config) -> None:  # pragma: no cover - not called for our ids
        pass

    def get_num_players(self) -> int:
        return self.config.num_seats

    @staticmethod
    def get_num_actions() -> int:
        return 3

    def init_game(self) -> tuple[dict, int]:
        """Deal a new hand from ``rng``: ``(state of the player to act, its id)``."""
        self.hand.deal(self.rng)
        return self._started()

    def start(self, cards, community: int = -1, small_blind=None) -> tuple[dict, int]:
        """Start a hand with given 0-based private ranks (the community rank in two-round games,
        the small-blind seat where it is dealt) instead of a random deal."""
        if small_blind is None:
            self.hand.start(cards, community)
        else:
            self.hand.start(cards, community, small_blind)
        return self._started()

    def _started(self) -> tuple[dict, int]:
        self.history = []
        player = self.get_player_id()
        return self.get_state(player), player

    def _require_hand(self, what: str) -> None:
        """RuntimeError before the first hand is dealt (RLCard's games have no state then)."""
        if not self.hand.cards:
            raise RuntimeError(
                f"teamleduc-{self.config.name}: {what} before any hand is dealt: call reset() "
                "(or start()) first"
            )

    def _player_id(self, player) -> int:
        """``player`` as a player id 0..S-1 (numpy integers included), or ArgumentTypeError /
        ArgumentValueError naming ``player_id``."""
        S = self.config.num_seats
        if isinstance(player, (bool, np.bool_)) or not isinstance(player, numbers.Integral):
            raise ArgumentTypeError(
                f"player_id must be an int 0..{S - 1}, not {type(player).__name__} {player!r}"
            )
        if not 0 <= player < S:
            raise ArgumentValueError(
                f"player_id {int(player)} is not a player of teamleduc-{self.config.name} "
                f"(0..{S - 1})"
            )
        return int(player)

    def advance(self, action: int) -> None:
        """The player to act takes 0-based action ``action`` (legality checked by the hand)."""
        h = self.hand
        if not h.cards:
            self._require_hand("step()")
        if self.allow_step_back:
            self.history.append(
                (h.node, len(h.actions), h.history, h.public.copy(), h.community, h.community_after)
            )
        h.act(action)

    def step(self, action) -> tuple[dict, int]:
        """Play raw action ``action`` (``"call"``, ``"raise"``, ``"fold"``): ``(next state,
        next player id)``."""
        self.advance(_ACTION_OF[action] if isinstance(action, str) else action)
        player = self.get_player_id()
        return self.get_state(player), player

    def step_back(self) -> bool:
        """Undo the last action; False at the start of the hand."""
        if not self.history:
            return False
        h = self.hand
        node, n, history, public, community, community_after = self.history.pop()
        h.node, h.history, h.community, h.community_after = (
            node,
            history,
            community,
            community_after,
        )
        del h.actions[n:]
        h.public[:] = public
        return True

    def is_over(self) -> bool:
        return self._kind[self.hand.node] == TERMINAL

    def get_player_id(self) -> int:
        """The player to act; once the hand is over, the one that acted last (RLCard's games
        keep their pointer on a player: never -1, which would index the last agent)."""
        player = self._actor[self.hand.node]
        if player < 0:
            actions = self.hand.actions
            return actions[-1][0] if actions else 0
        return player

    def get_legal_actions(self) -> list[str]:
        """Raw names of the legal actions at this point (none once the hand is over)."""
        return list(self._names[self.hand.node])

    def get_payoffs(self) -> np.ndarray:
        """(S,) utility of every seat in chips; the hand must be over."""
        self._require_hand("get_payoffs()")
        if not self.is_over():
            raise TeamLeducError("get_payoffs: the hand is not over yet (check is_over())")
        return self.hand.utilities()

    def get_state(self, player: int) -> dict:
        """The raw state of ``player`` (RLCard's ``raw_obs``): its card, the community card, the
        chips, its legal actions (none when it is not to act) and, when it is to act, the spec's
        information-set string and its 0-based line in ``leduc4-infosets-player{k+1}.csv``."""
        h = self.hand
        if not h.cards:
            self._require_hand("get_state()")
        if not (type(player) is int and 0 <= player < len(h.cards)):
            player = self._player_id(player)
        node = h.node
        to_act = self._actor[node]
        acting = player == to_act
        chips = self._contrib[node].tolist()
        return {
            "player_id": player,
            "hand": self._ranks[h.cards[player]],
            "public_card": self._ranks[h.community] if h.community >= 0 else None,
            "all_chips": chips,
            "my_chips": chips[player],
            "legal_actions": list(self._names[node]) if acting else [],
            "current_player": to_act if to_act >= 0 else self.get_player_id(),
            "infoset": h.infoset(player) if acting else None,
            "infoset_index": h.infoset_index(player) if acting else -1,
        }


# -- the environment ------------------------------------------------------------------------


def _env_config(config, game: GameConfig) -> dict:
    """RLCard's configuration dictionary, checked: ``seed``, ``allow_step_back`` and, as
    generic RLCard code passes it (PettingZoo's RLCard wrapper does), ``game_num_players``
    equal to the preset's number of players."""
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise ArgumentTypeError(
            f"config must be a dict such as {{'seed': 0, 'allow_step_back': True}}, not "
            f"{type(config).__name__}"
        )
    unknown = [k for k in config if k not in _CONFIG_KEYS]
    if unknown:
        raise ArgumentValueError(
            f"config: unknown key {unknown[0]!r}; the environment takes "
            f"{', '.join(map(repr, _CONFIG_KEYS))} (the preset fixes the rules)"
        )
    players = config.get("game_num_players", game.num_seats)
    if isinstance(players, bool) or players != game.num_seats:
        raise ArgumentValueError(
            f"config: game_num_players={players!r}, but {game.name} has {game.num_seats} "
            "players (the preset fixes them: choose another preset)"
        )
    return {
        "allow_step_back": check_flag(config.get("allow_step_back", False), "allow_step_back"),
        "seed": check_seed(config.get("seed"), "seed", optional=True),
    }


def _rank(config: GameConfig, value, what: str) -> int:
    if isinstance(value, str) and value in config.ranks:
        return config.ranks.index(value)
    integer = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if integer and 0 <= value < config.num_ranks:
        return int(value)
    raise ArgumentValueError(
        f"{what} {value!r}: a rank of {config.name} ({', '.join(config.ranks)}) or its 0-based "
        f"index 0..{config.num_ranks - 1}"
    )


def _ranks(config: GameConfig, cards, community) -> list[int]:
    """[private ranks..., community rank or -1], checked against the deck."""
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__len__"):
        raise ArgumentTypeError(f"cards: a sequence of {config.num_seats} ranks, not {cards!r}")
    if len(cards) != config.num_seats:
        raise ArgumentValueError(
            f"cards: {config.name} deals {config.num_seats} private cards, not {len(cards)}"
        )
    ranks = [_rank(config, c, "cards: rank") for c in cards]
    if config.has_community:
        if community is None:
            raise ArgumentValueError(f"community: {config.name} deals a community card")
        ranks.append(_rank(config, community, "community"))
    elif community is not None:
        raise ArgumentValueError(f"community: {config.name} has no community card")
    else:
        ranks.append(-1)
    used = np.bincount([r for r in ranks if r >= 0], minlength=config.num_ranks)
    if (used > config.suits).any():
        r = int(np.argmax(used > config.suits))
        raise ArgumentValueError(
            f"cards: rank {config.ranks[r]} dealt {int(used[r])} times; the deck has "
            f"{config.suits} of each"
        )
    return ranks


class TeamLeducEnv(_RLCardEnv):
    """RLCard environment of one preset (see the module docstring).

    ``TeamLeducEnv(config, preset=...)``: ``config`` is RLCard's dictionary (``seed``,
    ``allow_step_back``); ``preset`` a preset name or a GameConfig (default: the class's
    ``preset``, set by each registered subclass). ``rlcard.make(env_id(preset), config)``
    builds the same environment.

    Attributes as RLCard's: ``num_players``, ``num_actions`` (3), ``state_shape``
    (``[[obs size]]`` per player), ``action_shape``, ``actions`` (raw names), ``game``.
    """

    preset = "team-leduc"

    def __init__(self, config=None, *, preset=None):
        game_config = get_config(type(self).preset if preset is None else preset)
        checked = _env_config(config, game_config)
        self.name = "teamleduc-" + game_config.name
        self.default_game_config = {}
        self.game = TeamLeducGame(game_config)
        super().__init__(checked)
        self.actions = list(ACTIONS)
        size = self.game.envgame.obs_size
        self.state_shape = [[size] for _ in range(self.num_players)]
        self.action_shape = [None for _ in range(self.num_players)]

    @property
    def config(self) -> GameConfig:
        return self.game.config

    def seed(self, seed=None):
        """Seed the deal as RLCard does (``rlcard.utils.seeding``: ``np_random``, which then
        seeds the game's generator); ``seed`` a non-negative int or None."""
        seed = super().seed(check_seed(seed, "seed", optional=True))
        self.game.rng = np.random.default_rng(self.np_random.randint(2**32, size=4))
        return seed

    def step(self, action, raw_action: bool = False):
        """RLCard's ``step``: an action id 0, 1, 2 (or, with ``raw_action``, its name), checked
        before anything changes: TypeError or ValueError outside the action space,
        IllegalActionError if it is not legal here."""
        if not self.game.hand.cards:
            self.game._require_hand("step()")
        name = self._raw_name(action) if raw_action else self._decode_action(action)
        return super().step(name, raw_action=True)

    def step_back(self):
        """RLCard's ``step_back``; the last entry of ``action_record`` goes too."""
        back = super().step_back()
        if back is not False and self.action_recorder:
            self.action_recorder.pop()
        return back

    def start(self, cards, community=None, small_blind=None):
        """``reset()`` with a chosen deal instead of a random one (to replay a hand, or to
        enumerate deals exactly): ``cards`` the private rank of every player (names such as
        ``"J"`` or 0-based indices), ``community`` the community rank of a two-round game
        (shown when round 2 starts), ``small_blind`` the player posting the small blind where
        it is dealt. Returns ``(state, player id)`` as ``reset`` does."""
        ranks = _ranks(self.config, cards, community)
        state, player = self.game.start(ranks[:-1], ranks[-1], small_blind)
        self.action_recorder = []
        return self._extract_state(state), player

    def get_payoffs(self) -> np.ndarray:
        """(S,) chips won by each seat (ante included); team A's return is the sum over its
        seats (player ids 0 and 2 in the team games)."""
        return self.game.get_payoffs()

    def get_perfect_information(self) -> dict:
        """Every card, the chips, the round, the player to act, its legal actions and the
        history (``1:r 2:f / 1:c`` as ``teamleduc replay`` takes it)."""
        g, h = self.game, self.game.hand
        g._require_hand("get_perfect_information()")
        return {
            "chips": g._contrib[h.node].tolist(),
            "public_card": g._ranks[h.community] if h.community >= 0 else None,
            "hand_cards": [g._ranks[c] for c in h.cards],
            "current_round": int(g._round[h.node]),
            "current_player": g.get_player_id(),
            "legal_actions": g.get_legal_actions(),
            "history": h.actions_text(),
        }

    def _extract_state(self, state: dict) -> dict:
        """RLCard's state dictionary of the raw state ``state`` (made just now by the game)."""
        player = state["player_id"]
        g = self.game
        legal = g._ids[g.hand.node] if state["legal_actions"] else ()
        return {
            "obs": g.hand.observation(player).view(FeatureVector),
            "legal_actions": OrderedDict.fromkeys(legal),
            "raw_obs": state,
            "raw_legal_actions": list(state["legal_actions"]),
            "action_record": self.action_recorder,
        }

    def _get_legal_actions(self) -> list[str]:
        """Raw names of the legal actions of the player to act (as RLCard's poker games)."""
        return self.game.get_legal_actions()

    def _decode_action(self, action_id) -> str:
        """The raw name of action id ``action_id``, if it is legal here."""
        legal = self.game._ids[self.game.hand.node]
        if type(action_id) in _PLAIN_INTS and action_id in legal:  # the fast path
            return ACTIONS[action_id]
        a = action_index(action_id)  # TypeError or ValueError outside the action space
        if a not in legal:
            raise IllegalActionError(self._illegal(a))
        return ACTIONS[a]

    def _raw_name(self, action) -> str:
        if not isinstance(action, str) or action not in _ACTION_OF:
            raise ArgumentValueError(
                f"raw action {action!r}: expected one of {', '.join(map(repr, ACTIONS))}"
            )
        if _ACTION_OF[action] not in self.game._ids[self.game.hand.node]:
            raise IllegalActionError(self._illegal(action))
        return action

    def _illegal(self, action) -> str:
        if self.game.is_over():
            return f"action {action!r}: the hand is over; call reset()"
        legal = ", ".join(f"{a} ({ACTIONS[a]})" for a in self.game._ids[self.game.hand.node])
        return (
            f"action {action!r} is illegal for player {self.game.get_player_id()} here; legal "
            f"actions: {legal}"
        )


# -- registration ---------------------------------------------------------------------------


def env_id(preset) -> str:
    """RLCard id of a preset: ``teamleduc-team-leduc`` for ``team-leduc``."""
    return "teamleduc-" + get_config(preset).name


def _class_name(preset: str) -> str:
    return "TeamLeducEnv_" + re.sub(r"\W", "_", preset)


def register_all() -> dict[str, str]:
    """Register every preset of :data:`teamleduc.config.PRESETS` not yet in RLCard's registry
    (one subclass of :class:`TeamLeducEnv` per preset, the entry point RLCard imports);
    returns {preset: id}."""
    ids = {}
    for name in PRESETS:
        cls_name = _class_name(name)
        cls = globals().get(cls_name)
        if cls is None or cls.preset != name:
            if cls is not None:  # two names with the same identifier: keep both apart
                cls_name += f"_{len(ids)}"
            cls = type(cls_name, (TeamLeducEnv,), {"preset": name, "__module__": __name__})
            globals()[cls_name] = cls
        ids[name] = "teamleduc-" + name
        if ids[name] not in _registry.env_specs:
            _register(env_id=ids[name], entry_point=f"{__name__}:{cls_name}")
    return ids


#: {preset: RLCard id} of every registered preset
ENV_IDS = register_all()


def make(preset="team-leduc", *, seed=None, allow_step_back: bool = False) -> TeamLeducEnv:
    """``rlcard.make(env_id(preset), {"seed": seed, "allow_step_back": allow_step_back})``; a
    GameConfig that is not a preset gets an unregistered :class:`TeamLeducEnv`."""
    config = get_config(preset)
    settings = {"seed": seed, "allow_step_back": allow_step_back}
    if PRESETS.get(config.name) == config:
        register_all()
        return rlcard.make(env_id(config), settings)
    return TeamLeducEnv(settings, preset=config)


# -- agents as submissions ------------------------------------------------------------------

_POLICIES = ("auto", "average", "greedy")


class _Unanswered(Exception):
    """A state the agent cannot answer (the reason is the message)."""


def _is_cfr_agent(agent) -> bool:
    return any(
        c.__name__ == "CFRAgent" and c.__module__ == "rlcard.agents.cfr_agent"
        for c in type(agent).__mro__
    )


def _row_of(agent, cfr: bool, state: dict, policy: str, missing: str) -> np.ndarray:
    """(3,) probabilities c, r, f of ``agent`` (``cfr``: an RLCard CFRAgent) at RLCard state
    ``state``."""
    legal = list(state["legal_actions"])
    names = state["raw_legal_actions"]
    row = np.zeros(3)
    if cfr:  # its average policy, read as its eval_step reads it
        key = state["obs"].tobytes()
        table = agent.average_policy
        if key in table:
            probs = _remove_illegal(np.asarray(table[key], dtype=np.float64), legal)
        elif missing == "uniform":
            probs = _remove_illegal(np.ones(3), legal)
        else:
            raise _Unanswered(
                "the CFRAgent has no average policy for this state (trained on another game, "
                "or it never reached it; missing='uniform' plays it uniformly, as its "
                "eval_step does)"
            )
        if policy == "greedy":
            row[legal[int(np.argmax(probs[legal]))]] = 1.0
        else:
            row[:] = probs
        return row
    try:
        action, info = agent.eval_step(state)
    except Exception as e:  # noqa: BLE001 - any failure of the agent names the state
        raise _Unanswered(f"the agent's eval_step failed: {type(e).__name__}: {e}") from None
    info = info if isinstance(info, Mapping) else {}
    probs = info.get("probs")
    if policy == "average":
        if not isinstance(probs, Mapping):
            raise _Unanswered(
                "the agent's eval_step reports no info['probs'] (use policy='greedy')"
            )
        return _named_row(probs, names, "info['probs']")
    values = info.get("values")
    scores = values if isinstance(values, Mapping) else probs
    if isinstance(scores, Mapping):  # the legal action with the highest value (first on ties)
        v = _named_row(scores, names, "info['values']" if scores is values else "info['probs']")
        best = max(range(len(legal)), key=lambda i: (v[legal[i]], -i))
        row[legal[best]] = 1.0
        return row
    a = _ACTION_OF.get(action) if isinstance(action, str) else action
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Integral) or a not in legal:
        raise _Unanswered(f"the agent's eval_step chose {action!r}, not a legal action {names}")
    row[int(a)] = 1.0
    return row


def _named_row(mapping: Mapping, names: list[str], what: str) -> np.ndarray:
    """(3,) of a mapping from raw legal action names to numbers."""
    row = np.zeros(3)
    for name, p in mapping.items():
        if name not in names:
            raise _Unanswered(f"{what} names {name!r}, not a legal action {names}")
        try:
            row[_ACTION_OF[name]] = float(p)
        except (TypeError, ValueError):
            raise _Unanswered(f"{what}[{name!r}] = {p!r} is not a number") from None
    return row


def _agents_by_seat(config: GameConfig, agents, seats) -> tuple[dict, tuple[int, ...]]:
    """({0-based seat: agent}, 0-based seats to build)."""
    S = config.num_seats
    if isinstance(agents, Mapping):
        given = seat_mapping(config, agents, "agents")
        chosen = seats_of(config, [s + 1 for s in sorted(given)] if seats is None else seats)
    elif isinstance(agents, (list, tuple)):
        if len(agents) != S:
            raise ArgumentValueError(
                f"agents: {config.name} has {S} players; give one agent for all of them, a list "
                f"of {S} (one per player id, as env.set_agents takes) or {{seat: agent}}, not a "
                f"list of {len(agents)}"
            )
        given = dict(enumerate(agents))
        chosen = seats_of(config, seats)
    else:
        given = dict.fromkeys(range(S), agents)
        chosen = seats_of(config, seats)
    missing = [s + 1 for s in chosen if s not in given]
    if missing:
        raise ArgumentValueError(f"agents: no agent for seat {missing[0]}")
    for s in chosen:
        a = given[s]
        if not (_is_cfr_agent(a) or callable(getattr(a, "eval_step", None))):
            raise ArgumentTypeError(
                f"agents: the agent of seat {s + 1} is a {type(a).__name__}, not an RLCard agent "
                "(an object with eval_step(state) -> (action, info))"
            )
    return given, chosen


def _walk(env: TeamLeducEnv, visit) -> None:
    """Call ``visit(node)`` at every decision node of the public tree, in pre-order (children
    c, r, f; chance outcomes in slot order), with ``env``'s hand standing at that node. A
    chance node (a dealt small blind at the root, the community card) is entered by starting
    the hand with that outcome and replaying the actions to it."""
    game = env.game
    config = game.config
    tree = game.envgame.tree
    kind, children, legal = tree.kind, tree.children, tree.legal
    R, S = config.num_ranks, config.num_seats
    game.allow_step_back = True

    def placeholder(community: int) -> tuple[int, ...]:
        """A deal the deck holds beside ``community`` (the visitor then sets the card of the
        seat it asks about): each seat the lowest rank with a copy left."""
        left = [config.suits] * R
        if community >= 0:
            left[community] -= 1
        cards = []
        for _ in range(S):
            r = next(r for r in range(R) if left[r] > 0)
            left[r] -= 1
            cards.append(r)
        return tuple(cards)

    def restart(community: int, blind, path: list[int]) -> None:
        game.start(placeholder(community), community, blind)
        for b in path:
            game.advance(b)

    def down(node: int, blind) -> None:
        if kind[node] != DECISION:
            return
        visit(node)
        for a in range(3):
            if not legal[node, a]:
                continue
            if kind[int(children[node, a])] == CHANCE:  # the community card
                path = [b for _, b in game.hand.actions]
                for y in range(R):
                    restart(y, blind, path)
                    game.advance(a)
                    down(int(game.hand.node), blind)
                    game.step_back()
            else:
                game.advance(a)
                down(int(game.hand.node), blind)
                game.step_back()

    for blind in range(S) if kind[0] == CHANCE else [None]:
        restart(0 if config.has_community else -1, blind, [])
        down(int(game.hand.node), blind)


def agent_submission(
    agents,
    preset="team-leduc",
    *,
    seats=None,
    policy: str = "auto",
    missing: str = "error",
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> Submission:
    """A trained RLCard agent (or one per seat) as a validated Submission, and written with
    ``out``.

    Every information set of every seat built is turned into the state dictionary the
    environment gives there (the same ``obs``, ``legal_actions``, ``raw_obs``), and the agent
    answers it:

    * ``policy="average"``: the distribution its ``eval_step`` reports in ``info['probs']``
      (CFRAgent's average policy, read from its table without changing the agent; NFSPAgent's
      average policy with ``evaluate_with='average_policy'``; RandomAgent's uniform one);
    * ``policy="greedy"``: a point mass on its best legal action: the highest
      ``info['values']`` (DQNAgent's Q-values), else the highest ``info['probs']``, else the
      action ``eval_step`` returns; ties go to the first in the order c, r, f;
    * ``policy="auto"`` (default): ``average`` where the agent reports probabilities, else
      ``greedy``.

    Parameters
    ----------
    agents : one agent playing every seat, a list with one per player id (as
        ``env.set_agents`` takes) or ``{seat: agent}`` with seats 1..S or ``"player_k"``.
    preset : the game the agents were trained on (a preset name or GameConfig).
    seats : the seats to build, numbered 1..S (``None``: every seat, or the seats of the
        mapping; a team: ``"a"``, ``(1, 3)``, ``"1,3"``).
    missing : a CFRAgent without an entry for a state: ``"error"`` (default) or
        ``"uniform"`` (what its ``eval_step`` plays there).
    out, overwrite : write the submission there (a folder, or a zip ending in ``.zip``).

    A state the agent cannot answer (its ``eval_step`` fails, an agent of another game, a
    CFRAgent that never saw it, an illegal or missing action) raises one TeamLeducError naming
    the first such state in file order (seat, line, information-set string); nothing is
    written.
    """
    config = get_config(preset)
    if policy not in _POLICIES:
        raise ArgumentValueError(f"policy {policy!r}: use one of {', '.join(_POLICIES)}")
    if missing not in ("error", "uniform"):
        raise ArgumentValueError(f"missing {missing!r}: use 'error' or 'uniform'")
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise ArgumentTypeError(f"out: a path (str or os.PathLike), not {type(out).__name__}")
    check_flag(overwrite, "overwrite")
    given, chosen = _agents_by_seat(config, agents, seats)
    env = TeamLeducEnv({"seed": 0}, preset=config)
    game = env.game
    tables = game.envgame.tables
    rows = {s: np.full((tables[s].size, 3), np.nan) for s in chosen}
    modes: dict[int, str] = {}
    cfr = {s: _is_cfr_agent(given[s]) for s in chosen}
    actor = game.envgame.tree.actor
    R = config.num_ranks

    def visit(node: int) -> None:
        s = int(actor[node])
        if s not in rows:
            return
        hand = game.hand
        cards = hand.cards
        for r in range(R):
            hand.cards = cards[:s] + (r,) + cards[s + 1 :]
            state = env._extract_state(game.get_state(s))
            agent = given[s]
            mode = modes.get(id(agent), policy)
            try:
                if mode == "auto":  # decided on the agent's first state
                    mode = "greedy"
                    if cfr[s]:
                        mode = "average"
                    else:
                        try:
                            info = agent.eval_step(state)[1]
                        except Exception:  # noqa: BLE001 - reported by _row_of below
                            info = {}
                        if isinstance(info, Mapping) and isinstance(info.get("probs"), Mapping):
                            mode = "average"
                    modes[id(agent)] = mode
                row = _row_of(agent, cfr[s], state, mode, missing)
            except _Unanswered as e:
                i = int(tables[s].id_of[node, r])
                raise TeamLeducError(
                    f"agent_submission: seat {s + 1}, line {i + 1}, {state['raw_obs']['infoset']}"
                    f" (legal {', '.join(state['raw_legal_actions'])}): {e}; nothing was written"
                ) from None
            rows[s][tables[s].id_of[node, r]] = row
        hand.cards = cards

    _walk(env, visit)
    return build_submission(
        {s + 1: rows[s] for s in chosen},
        config,
        seats=[s + 1 for s in chosen],
        out=out,
        overwrite=overwrite,
    )
