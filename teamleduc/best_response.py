"""Exact team best responses, the saddle-point gap ("exploitability") and NashConv.

A team best response is the best *correlated* reply of a whole team (its members choosing one
joint pure strategy together) to a fixed opponent. Against fixed opponents the team's expected
utility is linear in its correlated terminal reach ``T``:

    u(T) = sum_z sum_x W[z, x] T[z, x],
    W[z, x_C] = sum_{x_others} P(deal, community of z) u_C(z, deal) prod_groups reach_g[z, x_g]

(:func:`teamleduc.reach.coalition_weights`; ``reach_g`` is each opposing team's correlated reach
``sum_j p_j prod_members R_i^j``). Its maximum over joint pure strategies is the public-belief
dynamic programme of :mod:`teamleduc.best_response_dp` (design notes; Zhang, Farina and Sandholm, "Team
belief DAG", ICML 2023, restricted to public actions): exact, and one compiled pass per depth.

For a full submission ``x`` (team A's seats) / ``y`` (team B's):

* ``BR_B(x)``: team B's best-response value against x, in team B's utility;
* ``BR_A(y)``: team A's best-response value against y, in team A's utility;
* the **saddle-point gap** ``BR_A(y) + BR_B(x)`` (= ``BR_A(y) - (-BR_B(x))`` in team-A chips),
  zero exactly at a TMECor; half of it is the "exploitability" the course reports.

With teams of one the same machinery gives ordinary best responses (the belief is the
responder's own card), and ``NashConv = sum_i (BR_i(sigma_-i) - u_i(sigma))`` (Lanctot et al.,
2017); for two players NashConv equals the gap above.
"""

from __future__ import annotations

import dataclasses
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import __version__
from .best_response_dp import argmax_actions, max_dp
from .config import ConfigLike, GameConfig, get_config, require_config
from .dag import team_beliefs
from .entrants import EntrantSpec, load_entrant
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .evaluate import BIG_BLINDS, CHIPS, big_blind_of, check_spec
from .reach import coalition_weights, team_reach
from .tree import PublicTree, build_tree

__all__ = [
    "BestResponse",
    "Exploitability",
    "NashConv",
    "best_response",
    "best_response_to_weights",
    "exploitability",
    "nash_conv",
    "worst_cases",
    "opponent_reaches",
    "team_name",
]


# --------------------------------------------------------------------------- naming helpers


def team_name(config: GameConfig, team_index: int) -> str:
    """``A``, ``B``, ... for teams of two; ``seat k`` for a team of one in a game of singletons."""
    if all(len(t) == 1 for t in config.teams) and len(config.teams) > 2:
        return f"seat {config.teams[team_index][0] + 1}"
    return chr(ord("A") + team_index)


def _seats_text(seats) -> str:
    return ",".join(str(s + 1) for s in seats)


def _team_index(config: GameConfig, team) -> int:
    """Team index from 0/1/..., 'a'/'b'/..., or a tuple of 0-based seats (ints: a bool, a
    float such as 1.5 or another type is refused rather than truncated)."""

    def integer(x) -> int:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
            raise ArgumentTypeError(
                f"responding_team {team!r}: give a team index (0 = team A), a letter a, b, ... "
                "or the team's 0-based seats"
            )
        return int(x)

    if isinstance(team, str):
        t = team.strip().lower()
        if len(t) == 1 and "a" <= t <= "z":
            i = ord(t) - ord("a")
        else:
            raise ArgumentValueError(f"unknown team {team!r}; use a, b, ...")
    elif isinstance(team, (tuple, list)):
        seats = tuple(sorted(integer(s) for s in team))
        matches = [i for i, tm in enumerate(config.teams) if tuple(sorted(tm)) == seats]
        if not matches:
            raise ArgumentValueError(
                f"0-based seats {seats} are not a team of {config.name} (its teams: "
                f"{', '.join(str(tuple(t)) for t in config.teams)})"
            )
        i = matches[0]
    else:
        i = integer(team)
    if not 0 <= i < len(config.teams):
        raise ArgumentValueError(f"{config.name} has {len(config.teams)} teams; no team {team!r}")
    return i


# --------------------------------------------------------------------------- opponents


def opponent_reaches(tree: PublicTree, submission, team_index: int) -> list:
    """``[(seats, reach)]`` of every team other than ``team_index``, played by ``submission``."""
    config = tree.config
    out = []
    for t, seats in enumerate(config.teams):
        if t == team_index:
            continue
        seats = tuple(seats)
        missing = [s for s in seats if s not in submission.strategies]
        if missing:
            raise TeamLeducError(
                f"the opponent submission does not play seat(s) {_seats_text(missing)} "
                f"(it plays {_seats_text(sorted(submission.strategies))})"
            )
        out.append((seats, team_reach(tree, submission, seats)))
    return out


# --------------------------------------------------------------------------- best response


@dataclass(frozen=True, eq=False)
class BestResponse:
    """An exact best response of one team.

    Attributes
    ----------
    config : the game.
    team : the responding team's 0-based seats.
    value : the responding team's own total expected utility (chips per hand) when it plays
        ``strategies`` against the opponent: the maximum over its joint pure strategies.
    strategies : {seat: (n_seat, 3) float64} point masses (columns c, r, f); information sets
        the response never reaches get their first legal action.
    team_index : index of the team in ``config.teams`` (None if not a team of the game).
    opponent : display name of the opponent ("" if given as weights).
    seconds : wall time of the computation.
    """

    config: GameConfig
    team: tuple[int, ...]
    value: float
    strategies: dict
    team_index: int | None = None
    opponent: str = ""
    seconds: float = 0.0

    @property
    def actions(self) -> dict:
        """{seat: (n_seat,) int} the chosen action (0 c, 1 r, 2 f) at every information set."""
        return {s: np.argmax(p, axis=1) for s, p in self.strategies.items()}

    @property
    def team_label(self) -> str:
        if self.team_index is None:
            return f"seats {_seats_text(self.team)}"
        return f"team {team_name(self.config, self.team_index)}"

    def to_submission(self):
        """The response as a one-signal Submission playing the team's seats."""
        from .files.model import Submission

        return Submission(
            signals=np.zeros(1, np.int64),
            probs=np.ones(1),
            seats=self.team,
            strategies={s: self.strategies[s][None] for s in self.team},
        )

    def __str__(self) -> str:
        against = f" to {self.opponent}" if self.opponent else ""
        sizes = ", ".join(
            f"seat {s + 1}: {self.strategies[s].shape[0]:,} information sets" for s in self.team
        )
        return (
            f"{self.config.name}: exact best response of {self.team_label} "
            f"(seats {_seats_text(self.team)}){against}\n"
            f"  value for {self.team_label}: {self.value:+.12f} chips per hand\n"
            f"  pure joint strategy ({sizes}); {self.seconds:.2f} s"
        )

    def to_dict(self) -> dict:
        return {
            "preset": self.config.name,
            "version": __version__,
            "team": None if self.team_index is None else team_name(self.config, self.team_index),
            "seats": [s + 1 for s in self.team],
            "opponent": self.opponent,
            "value": self.value,
            "seconds": round(self.seconds, 4),
        }


def best_response_to_weights(
    tree: PublicTree, seats, W: np.ndarray, *, team_index=None, opponent: str = ""
) -> BestResponse:
    """The joint pure strategy of ``seats`` maximising ``sum(W * T_seats)``.

    Parameters
    ----------
    seats : the team's 0-based seats (1 or 2); W's rank axes follow their ascending order.
    W : (Z, R**len(seats)) weights, e.g. :func:`teamleduc.reach.coalition_weights`.
    """
    t0 = time.perf_counter()
    seats = tuple(sorted(int(s) for s in seats))
    beliefs = team_beliefs(tree, seats)
    dp = max_dp(tree, beliefs, W)
    actions = argmax_actions(tree, dp)
    eye = np.eye(3)
    strategies = {s: eye[actions[s]] for s in seats}
    return BestResponse(
        config=tree.config,
        team=seats,
        value=dp.value,
        strategies=strategies,
        team_index=team_index,
        opponent=opponent,
        seconds=time.perf_counter() - t0,
    )


def best_response(
    config: ConfigLike,
    responding_team: int | str | Sequence[int],
    opponent: EntrantSpec,
    *,
    opponent_name: str | None = None,
) -> BestResponse:
    """Exact best response of ``responding_team`` to ``opponent``.

    Parameters
    ----------
    config : GameConfig or preset name.
    responding_team : team index (0 = team A), letter ``"a"``/``"b"``, or the team's seats.
    opponent : Submission playing every seat outside the responding team (extra seats are
        ignored), a baseline name or a submission path.
    """
    t0 = time.perf_counter()
    config = get_config(config)
    tree = build_tree(config)
    t = _team_index(config, responding_team)
    _check_name(opponent_name, "opponent_name")
    seats = tuple(sorted(config.teams[t]))
    others = tuple(s for s in range(config.num_seats) if s not in seats)
    entrant = load_entrant(check_spec(opponent, "opponent"), config, others, role="SUB")
    W = coalition_weights(tree, seats, opponent_reaches(tree, entrant.submission, t))
    br = best_response_to_weights(
        tree, seats, W, team_index=t, opponent=opponent_name or entrant.name
    )
    return dataclasses.replace(br, seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------- exploitability


@dataclass(frozen=True, eq=False)
class Exploitability:
    """Exact best responses to both halves of a full submission (two-team games).

    Attributes
    ----------
    br_a : team A's best response to y (the submission's team-B part); ``br_a.value = BR_A(y)``.
    br_b : team B's best response to x (its team-A part); ``br_b.value = BR_B(x)``.
    value : team A's expected utility when the submission plays itself, ``v(x, y)``.
    """

    config: GameConfig
    br_a: BestResponse
    br_b: BestResponse
    value: float
    name: str = ""
    seconds: float = 0.0
    unit: str = CHIPS

    def in_big_blinds(self) -> Exploitability:
        """Every value divided by the game's big blind (``--unit bb``)."""
        bb = big_blind_of(self.config)
        return dataclasses.replace(
            self,
            br_a=dataclasses.replace(self.br_a, value=self.br_a.value / bb),
            br_b=dataclasses.replace(self.br_b, value=self.br_b.value / bb),
            value=self.value / bb,
            unit=BIG_BLINDS,
        )

    @property
    def gap(self) -> float:
        """Saddle-point gap ``BR_A(y) + BR_B(x)`` (>= 0; 0 exactly at a TMECor)."""
        return self.br_a.value + self.br_b.value

    @property
    def exploitability(self) -> float:
        """Half the gap: the course's "exploitability"."""
        return self.gap / 2

    @property
    def worst_case_a(self) -> float:
        """The submission's guaranteed value as team A: ``-BR_B(x)``."""
        return -self.br_b.value

    @property
    def worst_case_b(self) -> float:
        """The submission's guaranteed value as team B: ``-BR_A(y)``."""
        return -self.br_a.value

    def __str__(self) -> str:
        c = self.config
        A, B = (_seats_text(t) for t in c.teams[:2])
        who = f"{self.name} " if self.name else ""
        return "\n".join(
            [
                f"{c.name}: exact exploitability of {who}(x = its team A, seats {A}; y = its team B, seats {B})",
                f"  BR_B(x)  team B's best response to x:      {self.br_b.value:+.12f}  (x guarantees {self.worst_case_a:+.12f} as team A)",
                f"  BR_A(y)  team A's best response to y:      {self.br_a.value:+.12f}  (y guarantees {self.worst_case_b:+.12f} as team B)",
                f"  v(x, y)  team A's value of x against y:    {self.value:+.12f}",
                f"  saddle-point gap BR_A(y) + BR_B(x):        {self.gap:.12f}",
                f"  exploitability (half the gap):             {self.exploitability:.12f}",
                f"  ({_unit_note(self.unit)}{self.seconds:.2f} s)",
            ]
        )

    def to_dict(self) -> dict:
        return {
            "preset": self.config.name,
            "version": __version__,
            "submission": self.name,
            "br_b_of_x": self.br_b.value,
            "br_a_of_y": self.br_a.value,
            "value": self.value,
            "worst_case_a": self.worst_case_a,
            "worst_case_b": self.worst_case_b,
            "gap": self.gap,
            "exploitability": self.exploitability,
            "seconds": round(self.seconds, 4),
        } | ({"unit": self.unit} if self.unit != CHIPS else {})


def _unit_note(unit: str) -> str:
    """``"big blinds per hand; "`` for a result in big blinds, nothing for chips (the default)."""
    return "" if unit == CHIPS else f"{unit} per hand; "


def _check_name(name, what: str) -> None:
    if name is not None and not isinstance(name, str):
        raise ArgumentTypeError(f"{what} must be a str or None, not {type(name).__name__}")


def _require_two_teams(config: GameConfig, what: str) -> None:
    if len(config.teams) != 2:
        raise TeamLeducError(
            f"{what} needs a game with exactly two teams; {config.name} has "
            f"{len(config.teams)} (use NashConv for games of single players)"
        )


def exploitability(
    config: ConfigLike, submission: EntrantSpec, *, name: str | None = None
) -> Exploitability:
    """Both exact team best responses to a full submission, and the saddle-point gap."""
    t0 = time.perf_counter()
    config = get_config(config)
    _require_two_teams(config, "exploitability")
    _check_name(name, "name")
    tree = build_tree(config)
    entrant = load_entrant(
        check_spec(submission, "submission"), config, tuple(range(config.num_seats)), role="SUB"
    )
    sub = entrant.submission
    missing = [s for s in range(config.num_seats) if s not in sub.strategies]
    if missing:
        raise TeamLeducError(
            f"exploitability needs a full submission (every seat); this one does not "
            f"play seat(s) {_seats_text(missing)}: use best-response --against instead"
        )
    label = name or entrant.name
    A, B = (tuple(sorted(t)) for t in config.teams)
    ((_, reach_x),) = opponent_reaches(tree, sub, 1)  # team A's reach under x
    ((_, reach_y),) = opponent_reaches(tree, sub, 0)  # team B's reach under y
    W_a = coalition_weights(tree, A, [(B, reach_y)])
    W_b = coalition_weights(tree, B, [(A, reach_x)])
    br_a = best_response_to_weights(tree, A, W_a, team_index=0, opponent=f"{label} (y)")
    br_b = best_response_to_weights(tree, B, W_b, team_index=1, opponent=f"{label} (x)")
    value = float((W_a * reach_x).sum())
    return Exploitability(
        config=config,
        br_a=br_a,
        br_b=br_b,
        value=value,
        name=label,
        seconds=time.perf_counter() - t0,
    )


def worst_cases(config: GameConfig, submission: EntrantSpec) -> tuple[float | None, float | None]:
    """``(as_A, as_B)``: the submission's exact worst-case team value as team A (``-BR_B(x)``)
    and as team B (``-BR_A(y)``); None for a team the submission does not play."""
    require_config(config)
    _require_two_teams(config, "worst_cases")
    tree = build_tree(config)
    sub = load_entrant(check_spec(submission, "submission"), config).submission
    out = []
    for t in (0, 1):
        seats = tuple(sorted(config.teams[t]))
        if not all(s in sub.strategies for s in seats):
            out.append(None)
            continue
        responder = 1 - t
        r_seats = tuple(sorted(config.teams[responder]))
        W = coalition_weights(tree, r_seats, opponent_reaches(tree, sub, responder))
        out.append(-max_dp(tree, team_beliefs(tree, r_seats), W).value)
    return tuple(out)


# --------------------------------------------------------------------------- NashConv


@dataclass(frozen=True, eq=False)
class NashConv:
    """NashConv of a profile in a game of single players: ``sum_i (BR_i - u_i)``.

    ``br_values[i]`` is seat i's best-response value against the others' strategies,
    ``values[i]`` its on-policy value.
    """

    config: GameConfig
    br_values: tuple
    values: tuple
    name: str = ""
    seconds: float = 0.0
    unit: str = CHIPS

    def in_big_blinds(self) -> NashConv:
        """Every value divided by the game's big blind (``--unit bb``)."""
        bb = big_blind_of(self.config)
        return dataclasses.replace(
            self,
            br_values=tuple(v / bb for v in self.br_values),
            values=tuple(v / bb for v in self.values),
            unit=BIG_BLINDS,
        )

    @property
    def nash_conv(self) -> float:
        return float(sum(b - v for b, v in zip(self.br_values, self.values)))

    def __str__(self) -> str:
        c = self.config
        lines = [f"{c.name}: NashConv of {self.name or 'the profile'} (every team is one seat)"]
        for s, (b, v) in enumerate(zip(self.br_values, self.values)):
            lines.append(
                f"  seat {s + 1}: best response {b:+.12f}, on-policy {v:+.12f}, gain {b - v:.12f}"
            )
        lines.append(
            f"  NashConv: {self.nash_conv:.12f}  (exploitability = NashConv / "
            f"{c.num_seats}: {self.nash_conv / c.num_seats:.12f})"
        )
        if c.num_seats == 2:
            lines.append("  (two players: NashConv = saddle-point gap BR_1 + BR_2)")
        lines.append(f"  ({_unit_note(self.unit)}{self.seconds:.2f} s)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "preset": self.config.name,
            "version": __version__,
            "submission": self.name,
            "br_values": list(self.br_values),
            "values": list(self.values),
            "nash_conv": self.nash_conv,
            "seconds": round(self.seconds, 4),
        } | ({"unit": self.unit} if self.unit != CHIPS else {})


def nash_conv(config: ConfigLike, submission: EntrantSpec, *, name: str | None = None) -> NashConv:
    """NashConv of a full submission in a game whose teams are single seats."""
    t0 = time.perf_counter()
    config = get_config(config)
    if any(len(t) != 1 for t in config.teams):
        raise TeamLeducError(
            f"NashConv is for games of single players; {config.name} has teams "
            "of two (use exploitability)"
        )
    _check_name(name, "name")
    tree = build_tree(config)
    entrant = load_entrant(
        check_spec(submission, "submission"), config, tuple(range(config.num_seats)), role="SUB"
    )
    sub = entrant.submission
    reach = {s: team_reach(tree, sub, (s,)) for s in range(config.num_seats)}
    brs, vals = [], []
    for s in range(config.num_seats):
        W = coalition_weights(
            tree, (s,), [((o,), reach[o]) for o in range(config.num_seats) if o != s]
        )
        brs.append(max_dp(tree, team_beliefs(tree, (s,)), W).value)
        vals.append(float((W * reach[s]).sum()))
    return NashConv(
        config=config,
        br_values=tuple(brs),
        values=tuple(vals),
        name=name or entrant.name,
        seconds=time.perf_counter() - t0,
    )
