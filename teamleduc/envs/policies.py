"""Policy adapters between the environments and the submission format.

* :class:`SubmissionPolicy`: a submission or baseline as an agent. It reads the environments'
  ``info`` (``seat``, ``infoset_index``, ``hand``) and samples an action from the row of its
  strategy; each team draws its signal once per hand from its meta-strategy, as the spec says
  (a new ``info["hand"]`` number, or :meth:`SubmissionPolicy.new_hand`, starts a hand).
* :func:`policy_submission` / :func:`write_policy`: the reverse. A tabular policy (per seat an
  (n, 3) array in information-set order, or a mapping from information-set string to
  probabilities; a list of such policies for several signals) becomes a validated
  :class:`~teamleduc.submission.Submission`, which ``evaluate``, ``exploitability`` and
  ``grade`` accept as it is, or a submission folder or ``.zip``.

Seats in a policy mapping are keyed by agent name (``"player_1"``) or by 0-based seat (the
:class:`~teamleduc.submission.Submission` convention).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..baselines import baseline_strategy, is_baseline
from ..config import get_config
from ..entrants import load_entrant
from ..errors import TeamLeducError
from ..submission import Submission, write_submission
from ..tree import build_tree
from .game import env_game

__all__ = [
    "SubmissionPolicy",
    "greedy_policy",
    "policy_submission",
    "team_entrants",
    "write_policy",
]


def team_entrants(config, players) -> list:
    """One :class:`~teamleduc.entrants.Entrant` per team of ``config``.

    ``players`` is one submission argument (a baseline name, a path or a Submission) playing
    every team, or a sequence with one per team (team A first); each must play its team's seats.
    """
    config = get_config(config)
    teams = config.teams
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        players = [players] * len(teams)
    players = list(players)
    if len(players) != len(teams):
        raise TeamLeducError(
            f"{config.name} has {len(teams)} teams; give one submission for all of them or "
            f"one per team, not {len(players)}"
        )
    out = []
    for spec, seats in zip(players, teams):
        entrant = load_entrant(spec, config, seats=tuple(seats))
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

    def __init__(self, players, preset="team-leduc", seed=None):
        self.config = get_config(preset)
        self.entrants = team_entrants(self.config, players)
        self.name = " / ".join(dict.fromkeys(e.name for e in self.entrants))
        self._team_of = [self.config.team_of(s) for s in range(self.config.num_seats)]
        self._meta = [np.cumsum(e.submission.probs) for e in self.entrants]
        self._strategies = [
            self.entrants[self._team_of[s]].submission.strategies[s]
            for s in range(self.config.num_seats)
        ]
        self.rng = np.random.default_rng(seed)
        self.signals = [0] * len(self.entrants)  # index into each team's meta-strategy
        self._hand = None

    def new_hand(self) -> None:
        """Draw every team's signal for a new hand."""
        self.signals = [
            min(int(np.searchsorted(c, self.rng.random(), side="right")), len(c) - 1)
            for c in self._meta
        ]

    def row(self, seat: int, infoset_index: int) -> np.ndarray:
        """(3,) probabilities of 0-based ``seat`` at an information set, under the drawn signal."""
        return self._strategies[seat][self.signals[self._team_of[seat]], infoset_index]

    def sample(self, seat: int, infoset_index: int) -> int:
        """An action of 0-based ``seat`` drawn from its row (no illegal action has mass)."""
        p = self.row(seat, infoset_index)
        u = self.rng.random()
        a = 0 if u < p[0] else (1 if u < p[0] + p[1] else 2)
        while a > 0 and p[a] == 0:  # rounding past the last action with mass
            a -= 1
        return a

    def _follow(self, info) -> int:
        hand = info.get("hand")
        if hand is None or hand != self._hand:
            self._hand = hand
            self.new_hand()
        return int(info["seat"]) - 1

    def probabilities(self, observation, info) -> np.ndarray:
        seat = self._follow(info)
        return self.row(seat, int(info["infoset_index"]))

    def act(self, observation, info) -> int:
        seat = self._follow(info)
        return self.sample(seat, int(info["infoset_index"]))

    __call__ = act


def _seat_key(config, key) -> int:
    if isinstance(key, str):
        if key.startswith("player_") and key[7:].isdigit():
            seat = int(key[7:]) - 1
        else:
            raise TeamLeducError(f"policy key {key!r}: use an agent name like player_1")
    else:
        seat = int(key)
    if not 0 <= seat < config.num_seats:
        raise TeamLeducError(f"policy key {key!r}: {config.name} has seats 1..{config.num_seats}")
    return seat


def _fill_rows(tree, seat, fill) -> np.ndarray:
    if isinstance(fill, str) and is_baseline(fill):
        return baseline_strategy(fill, tree, seat)
    raise TeamLeducError(f"fill must be a baseline name (e.g. 'uniform'), not {fill!r}")


def _seat_table(game, seat, table, fill_rows) -> np.ndarray:
    """One seat's (n, 3) behavioural strategy from an array or a string mapping."""
    tab = game.tables[seat]
    n = tab.size
    if isinstance(table, Mapping):
        out = np.full((n, 3), np.nan)
        for key, probs in table.items():
            try:
                i = tab.lookup[key]
            except KeyError:
                raise TeamLeducError(
                    f"{key!r} is not an information set of player_{seat + 1} in {game.config.name}"
                ) from None
            out[i] = np.asarray(probs, dtype=np.float64).reshape(3)
    else:
        out = np.array(table, dtype=np.float64)
        if out.shape != (n, 3):
            raise TeamLeducError(
                f"policy of player_{seat + 1}: shape {out.shape}, expected ({n}, 3) "
                "(one row per information set, columns c, r, f)"
            )
    given = ~np.isnan(out).any(axis=1)
    if (out[given] < 0).any() or not np.isfinite(out[given]).all():
        raise TeamLeducError(f"policy of player_{seat + 1}: probabilities must be >= 0 and finite")
    out = np.where(tab.legal, np.nan_to_num(out), 0.0)  # illegal actions get no mass
    total = out.sum(axis=1, keepdims=True)
    empty = (total[:, 0] <= 0) | ~given
    out = np.where(empty[:, None], fill_rows, out / np.where(total > 0, total, 1.0))
    return out


def policy_submission(policy, preset="team-leduc", *, probs=None, fill="uniform") -> Submission:
    """A tabular policy as a validated Submission.

    Parameters
    ----------
    policy : {seat: table} (one signal) or a list of them (one per signal). A seat is
        ``"player_k"`` or a 0-based int; a table is an (n, 3) array (row = information-set
        index, columns c, r, f) or a mapping from information-set string to (p_c, p_r, p_f).
        Rows are renormalised over the legal actions (mass on an illegal action is dropped);
        rows absent from a mapping, NaN rows and rows without mass on a legal action are taken
        from the baseline ``fill`` (default uniform). A seat missing from a team that the policy
        plays is also played by ``fill``; every signal must cover the same seats.
    probs : signal probabilities (default equal).
    """
    game = env_game(preset)
    config = game.config
    signals = [policy] if isinstance(policy, Mapping) else list(policy)
    if not signals:
        raise TeamLeducError("the policy has no signal")
    keyed = [{_seat_key(config, k): v for k, v in sig.items()} for sig in signals]
    played = set(keyed[0])
    if any(set(k) != played for k in keyed):
        raise TeamLeducError("every signal of the policy must give the same seats")
    seats = sorted({s for t in config.teams if played & set(t) for s in t})
    tree = build_tree(config)
    strategies = {}
    for s in seats:
        fill_rows = _fill_rows(tree, s, fill)
        strategies[s] = np.stack(
            [_seat_table(game, s, k[s], fill_rows) if s in k else fill_rows for k in keyed]
        )
    p = np.full(len(keyed), 1.0 / len(keyed)) if probs is None else np.asarray(probs, float)
    sub = Submission(np.arange(len(keyed)), p, tuple(seats), strategies)
    problems = sub.problems(config)
    if problems:
        raise TeamLeducError("invalid policy: " + "; ".join(problems))
    return sub


def greedy_policy(values, preset="team-leduc") -> dict:
    """{seat: (n, 3) one-hot of the legal action with the highest value} from {seat: (n, 3)
    action values} (e.g. a Q-table indexed by ``info["infoset_index"]``); ties go to the first
    action in the order c, r, f."""
    game = env_game(preset)
    out = {}
    for key, v in values.items():
        seat = _seat_key(game.config, key)
        legal = game.tables[seat].legal
        v = np.asarray(v, dtype=np.float64)
        if v.shape != legal.shape:
            raise TeamLeducError(
                f"values of player_{seat + 1}: shape {v.shape}, expected {legal.shape}"
            )
        best = np.argmax(np.where(legal, v, -np.inf), axis=1)
        out[key] = np.eye(3)[best]
    return out


def write_policy(policy, path, preset="team-leduc", *, overwrite=False, **kwargs):
    """:func:`policy_submission` written as a submission folder (or ``.zip``); returns the path."""
    config = get_config(preset)
    sub = policy_submission(policy, config, **kwargs)
    return write_submission(sub, path, overwrite=overwrite, config=config)
