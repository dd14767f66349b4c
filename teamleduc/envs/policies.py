"""Policy adapters between the environments and the submission format.

* :class:`SubmissionPolicy`: a submission or baseline as an agent. It reads the environments'
  ``info`` (``seat``, ``infoset_index``, ``hand``) and samples an action from the row of its
  strategy; each team draws its signal once per hand from its meta-strategy, as the spec says
  (a new ``info["hand"]`` number, or :meth:`SubmissionPolicy.new_hand`, starts a hand).
* :func:`policy_submission` / :func:`write_policy`: the reverse. A tabular policy (per seat an
  (n, 3) array in information-set order, or a mapping from information-set string to
  probabilities; a list of such policies for several signals) becomes a validated
  :class:`~teamleduc.files.model.Submission`, which ``evaluate``, ``exploitability`` and
  ``grade`` accept as it is, or a submission folder or ``.zip``.

Seats in a policy mapping are keyed by agent name (``"player_1"``) or by seat number, from 1
as in the handout (:func:`teamleduc.strategy.seat_of_key`; 0 is refused, never shifted).
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping

import numpy as np

from ..arguments import check_seed
from ..baselines import baseline_strategy, is_baseline
from ..config import GameConfig, get_config
from ..entrants import Entrant, load_entrant
from ..errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from ..files.model import Submission, real_array
from ..files.writing import write_submission
from ..infosets import InfosetTable
from ..strategy import seat_mapping, submission_from_policy
from ..tree import build_tree
from .game import env_game

__all__ = [
    "SubmissionPolicy",
    "greedy_policy",
    "policy_submission",
    "team_entrants",
    "write_policy",
]


def team_entrants(config: GameConfig, players, what: str = "players") -> list:
    """One :class:`~teamleduc.entrants.Entrant` per team of ``config``.

    ``players`` is one submission argument (a baseline name, a path, a Submission or an
    Entrant) playing every team, or a list or tuple with one per team (team A first); each must
    play its team's seats. A loaded Submission is checked against the game
    (:func:`~teamleduc.files.model.check_submission`), so one of another preset is refused
    here, not mid-episode. Errors name the argument ``what``.
    """
    teams = config.teams
    single = (str, bytes, os.PathLike, Entrant, Submission)
    if isinstance(players, single) or hasattr(players, "strategies"):
        players = [players] * len(teams)
    elif isinstance(players, (list, tuple)):
        players = list(players)
    else:
        raise ArgumentTypeError(
            f"{what}: give a baseline name, a submission path or a Submission (for every "
            f"team), or a list with one per team; not {type(players).__name__} {players!r}"[:300]
        )
    if len(players) != len(teams):
        raise ArgumentValueError(
            f"{what}: {config.name} has {len(teams)} teams; give one submission for all of them "
            f"or one per team, not {len(players)}"
        )
    out = []
    for t, (spec, seats) in enumerate(zip(players, teams)):
        if not isinstance(spec, single) and not hasattr(spec, "strategies"):
            raise ArgumentTypeError(
                f"{what}[{t}]: a baseline name, a submission path or a Submission, not "
                f"{type(spec).__name__} {spec!r}"[:300]
            )
        entrant = load_entrant(spec, config, seats=tuple(seats), role=what)
        missing = [s + 1 for s in seats if s not in entrant.submission.strategies]
        if missing:
            raise TeamLeducError(
                f"{entrant.name} does not play seat(s) {','.join(map(str, missing))}"
            )
        out.append(entrant)
    return out


class SubmissionPolicy:
    """A submission or baseline as an agent of :func:`teamleduc.envs.env` or
    :class:`teamleduc.envs.SeatEnv`.

    Parameters
    ----------
    players : a baseline name, a submission path or a Submission (playing every team), or one
        per team (team A first).
    preset : the game.
    seed : seed of the policy's own random generator (signals and actions); or set ``rng``.

    ``act(observation, info)`` returns an action 0 c, 1 r, 2 f for the seat ``info["seat"]``
    (1-based) at ``info["infoset_index"]``; ``probabilities(observation, info)`` its (3,) row.
    """

    def __init__(self, players, preset="team-leduc", seed=None, *, what: str = "players"):
        self.config = get_config(preset)
        self.entrants = team_entrants(self.config, players, what)
        self.name = " / ".join(dict.fromkeys(e.name for e in self.entrants))
        self._team_of = [self.config.team_of(s) for s in range(self.config.num_seats)]
        self._meta = [np.cumsum(e.submission.probs) for e in self.entrants]
        self._strategies = [
            self.entrants[self._team_of[s]].submission.strategies[s]
            for s in range(self.config.num_seats)
        ]
        self._sizes = [a.shape[1] for a in self._strategies]
        self.rng = np.random.default_rng(check_seed(seed, high=None, optional=True))
        self.signals = [0] * len(self.entrants)  # index into each team's meta-strategy
        self._hand = None

    def new_hand(self) -> None:
        """Draw every team's signal for a new hand."""
        self.signals = [
            min(int(np.searchsorted(c, self.rng.random(), side="right")), len(c) - 1)
            for c in self._meta
        ]

    def row(self, seat: int, infoset_index: int) -> np.ndarray:
        """(3,) probabilities of 0-based ``seat`` at an information set, under the drawn signal.
        ValueError for a seat or an index out of range (-1, the index the environments give an
        agent that is not to act, would read the last row), TypeError for a non-integer."""
        if not (type(seat) is int and type(infoset_index) is int):  # the fast path: plain ints
            seat = _index(seat, "seat")
            infoset_index = _index(infoset_index, "infoset_index")
        if not 0 <= seat < len(self._sizes):
            raise ValueError(
                f"seat {seat}: {self.config.name} has 0-based seats 0..{len(self._sizes) - 1}"
            )
        if not 0 <= infoset_index < self._sizes[seat]:
            raise ValueError(
                f"infoset_index {infoset_index} of player_{seat + 1}: expected 0.."
                f"{self._sizes[seat] - 1} (-1 means the seat is not to act)"
            )
        return self._strategies[seat][self.signals[self._team_of[seat]], infoset_index]

    def sample(self, seat: int, infoset_index: int) -> int:
        """An action of 0-based ``seat`` drawn from its row (no illegal action has mass)."""
        p = self.row(seat, infoset_index)
        u = self.rng.random()
        a = 0 if u < p[0] else (1 if u < p[0] + p[1] else 2)
        while a > 0 and p[a] == 0:  # rounding past the last action with mass
            a -= 1
        return a

    def _follow(self, info) -> tuple[int, int]:
        """``(0-based seat, infoset_index)`` from an environment's ``info``, checked (the
        toolkit's TypeError or ValueError naming ``info``); a new ``info["hand"]`` draws the
        signals again."""
        if type(info) is not dict and not isinstance(info, Mapping):
            raise ArgumentTypeError(
                f"info must be the environment's info dict (with 'seat' and 'infoset_index', as "
                f"env().last() and SeatEnv.step give it), not {type(info).__name__} "
                f"{info!r}"[:300]
            )
        missing = [k for k in ("seat", "infoset_index") if k not in info]
        if missing:
            raise ArgumentValueError(
                f"info must hold 'seat' (1-based) and 'infoset_index' (the environments' info "
                f"of the agent to act); missing {', '.join(repr(k) for k in missing)} in "
                f"{sorted(map(str, info))}"[:300]
            )
        seat = _index(info["seat"], "info['seat']")
        if not 1 <= seat <= len(self._sizes):
            raise ArgumentValueError(
                f"info['seat'] must be 1..{len(self._sizes)} (1-based seats of "
                f"{self.config.name}), not {seat}"
            )
        index = _index(info["infoset_index"], "info['infoset_index']")
        hand = info.get("hand")
        if hand is None or hand != self._hand:
            self._hand = hand
            self.new_hand()
        return seat - 1, index

    def probabilities(self, observation, info) -> np.ndarray:
        """(3,) probabilities c, r, f of the seat ``info["seat"]`` at ``info["infoset_index"]``."""
        return self.row(*self._follow(info))

    def act(self, observation, info) -> int:
        """An action 0 c, 1 r, 2 f of the seat ``info["seat"]``, drawn from its row."""
        return self.sample(*self._follow(info))

    __call__ = act


def _index(value, what: str) -> int:
    """An int (numpy integers included); TypeError naming ``what`` for a bool, float or str."""
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(
            f"{what} must be an int, not {type(value).__name__} {value!r}"[:300]
        )
    return int(value)


def policy_submission(policy, preset="team-leduc", *, probs=None, fill="uniform") -> Submission:
    """A tabular policy as a validated Submission
    (:func:`teamleduc.strategy.submission_from_policy`, with rows renormalised).

    Parameters
    ----------
    policy : {seat: table} (one signal) or a list of them (one per signal). A seat is
        ``"player_k"`` or an int k, numbered from 1 as in the handout (0 is refused); a table
        is an (n, 3) array (row = information-set index, columns c, r, f) or a mapping from
        information-set string to (p_c, p_r, p_f).
        Rows are renormalised over the legal actions (mass on an illegal action is dropped);
        rows absent from a mapping, NaN rows and rows without mass on a legal action are taken
        from the baseline ``fill`` (default uniform). A seat missing from a team that the policy
        plays is also played by ``fill``; every signal must cover the same seats.
    probs : signal probabilities (default equal).
    """
    config = get_config(preset)
    if isinstance(policy, (str, bytes)) or not isinstance(policy, Iterable):
        raise ArgumentTypeError(
            "policy: expected {seat: table} or a list of them (one per signal), not "
            f"{type(policy).__name__}"
        )
    if not isinstance(fill, str):
        raise ArgumentTypeError(
            f"fill must be a baseline name (e.g. 'uniform'), not {type(fill).__name__} {fill!r}"
        )
    if not is_baseline(fill):
        raise ArgumentValueError(f"fill must be a baseline name (e.g. 'uniform'), not {fill!r}")
    tree = build_tree(config)
    signals = policy if isinstance(policy, Mapping) else list(policy)
    return submission_from_policy(
        signals,
        config,
        weights=probs,
        fill=lambda seat: baseline_strategy(fill, tree, seat),
        weights_name="probs",
    )


def greedy_rows(table: InfosetTable, values, what: str) -> np.ndarray:
    """(n, 3) one-hot of the legal action with the highest value in ``values`` (n, 3) of one
    seat's information sets ``table``; ties go to the first action in the order c, r, f; a NaN
    on a legal action is refused (argmax would pick it). ``what`` names the values."""
    legal = table.legal
    v = real_array(values, what)
    if v.shape != legal.shape:
        raise TeamLeducError(f"{what}: shape {v.shape}, expected {legal.shape}")
    nan = np.isnan(v) & legal
    if nan.any():
        i = int(np.argmax(nan.any(axis=1)))
        raise ArgumentValueError(
            f"{what}: NaN at row {i} ({table.strings[i]}) on a legal action "
            f"({int(nan.any(axis=1).sum()):,} rows with NaN)"
        )
    return np.eye(3)[np.argmax(np.where(legal, v, -np.inf), axis=1)]


def greedy_policy(values, preset="team-leduc") -> dict:
    """{seat: (n, 3) one-hot of the legal action with the highest value} from {seat: (n, 3)
    action values} (e.g. a Q-table indexed by ``info["infoset_index"]``; seats keyed as in
    :func:`policy_submission`, the keys kept); ties go to the first action in the order c, r, f."""
    game = env_game(preset)
    seats = seat_mapping(game.config, values, "values")
    tables = game.tables
    return {
        key: greedy_rows(tables[seat], values[key], f"values of player_{seat + 1}")
        for seat, key in zip(seats, values)
    }


def write_policy(policy, path, preset="team-leduc", *, overwrite=False, **kwargs):
    """:func:`policy_submission` written as a submission folder (or ``.zip``); returns the path."""
    config = get_config(preset)
    sub = policy_submission(policy, config, **kwargs)
    return write_submission(sub, path, overwrite=overwrite, config=config)
