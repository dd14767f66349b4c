"""Exact expected team utility of two submissions (spec section 4), and head-to-head matches.

The value of team A (seats 1, 3) playing submission X against team B (seats 2, 4) playing Y is

    v(X, Y) = sum_z sum_{xA, xB}  C[z, xA, xB] * T_A[z, xA] * T_B[z, xB]

over terminal public histories z and the private ranks xA = (x1, x3), xB = (x2, x4), where

* ``C[z, xA, xB] = P(deal, community of z) * u_A(z, deal)`` (:func:`teamleduc.payoffs.chance_utility`
  with its deal axis regrouped by team) depends on the game alone, and only through the
  terminal's active seats and community card: it is kept as one small table per such group
  (49 for team-leduc, :func:`teamleduc.payoffs.payoff_groups`), never as a (Z, 9, 9) array;
* ``T_A[z, xA] = sum_j p_j R_1^j[z, x1] R_3^j[z, x3]`` is team A's correlated reach
  (:func:`teamleduc.reach.team_reach`): the probability that team A's own actions lead to z when its members
  hold xA, averaged over its signal j; ``R_i^j`` is the product of seat i's action
  probabilities along the path. Linear in the number of signals of each team, never in the
  product of the two teams' numbers of signals, because the teams' signals are independent.

Everything is enumerated (deals, community cards, signals, actions); nothing is sampled.
Folding team B into ``W_B[z, xA] = sum_xB C[z, xA, xB] T_B[z, xB]`` (:func:`team_b_weights`, the
coalition weights of :mod:`teamleduc.reach`, shared with the best responses) makes one value a dot product ``<T_A, W_B>`` and a tournament one matrix of dot products
(:mod:`teamleduc.grade`). Team B's value is ``-v(X, Y)``: every pot is paid out in full, so the
game is zero-sum between the teams.

A match of X against Y is played in both seatings; X's score is the mean of its two team
utilities, ``(v(X, Y) - v(Y, X)) / 2``.

Kernels are compiled with numba and sum in a fixed sequential order, so every value is
bit-for-bit reproducible (the grader's output is deterministic). The method is the "exact
evaluation" of ``design.md``: public-tree reach arrays, as in the sequence-form evaluation of
extensive-form games, with each team's signal as an outer mixture (TMECor, spec section 5).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numba import njit

from . import __version__
from .config import ConfigLike, GameConfig, get_config
from .entrants import Entrant, EntrantSpec, NamedPath, load_entrant
from .errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from .fused import fma
from .payoffs import deal_community_probabilities, deal_probabilities, payoff_groups
from .reach import coalition_weights, kernel_array, team_reach
from .tree import PublicTree, build_tree

__all__ = [
    "EvalResult",
    "MatchResult",
    "conditional_value",
    "evaluate",
    "evaluate_reach",
    "match",
    "team_b_weights",
    "team_seats",
]


# --------------------------------------------------------------------------- game side


def team_seats(config: GameConfig) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 0-based seats of team A and team B; the game must have exactly two teams."""
    if len(config.teams) != 2:
        raise TeamLeducError(
            f"preset {config.name} has {len(config.teams)} teams; exact team evaluation needs "
            f"exactly two (team A = {{{','.join(str(s + 1) for s in config.teams[0])}}} against team B)"
        )
    return tuple(config.teams[0]), tuple(config.teams[1])


#: block length of every dot product: partial sums over consecutive blocks, then their sum in
#: block order, so a single evaluation and the grader's matrix give bit-identical values
BLOCK = 4096


@njit(cache=True)
def _dot(x, y, block):
    # block by block: s = fma(x[i], y[i], s) for i ascending from +0.0, then total += s
    total = 0.0
    for lo in range(0, x.shape[0], block):
        s = 0.0
        for i in range(lo, min(x.shape[0], lo + block)):
            s = fma(x[i], y[i], s)
        total += s
    return total


def team_b_weights(tree: PublicTree, reach_b: np.ndarray) -> np.ndarray:
    """(Z, R**|A|) ``W_B[z, xA] = sum_xB C[z, xA, xB] T_B[z, xB]``: team A's value is <T_A, W_B>.

    :func:`teamleduc.reach.coalition_weights` of team A against team B's reach."""
    A, B = team_seats(tree.config)
    return coalition_weights(tree, A, [(B, reach_b)])


def evaluate_reach(tree: PublicTree, reach_a: np.ndarray, reach_b: np.ndarray) -> float:
    """Team A's exact expected utility from both teams' correlated terminal reaches."""
    w = team_b_weights(tree, reach_b)
    return float(_dot(kernel_array(reach_a).ravel(), w.ravel(), BLOCK))


# --------------------------------------------------------------------------- results

#: the units a value is reported in: chips (the default everywhere) or big blinds (RLCard's
#: unit, for games with blinds)
CHIPS, BIG_BLINDS = "chips", "big blinds"


def big_blind_of(config: GameConfig) -> int:
    """The big blind of ``config``, the divisor of a value in big blinds; TeamLeducError naming
    ``--unit bb`` for a game without blinds."""
    if not config.big_blind:
        raise TeamLeducError(
            f"--unit bb: {config.name} has no blinds (big blinds are the unit of games with "
            "blinds, e.g. rlcard-leduc); report it in chips"
        )
    return config.big_blind


def _seats_text(seats) -> str:
    return ",".join(str(s + 1) for s in seats)


@dataclass(frozen=True)
class EvalResult:
    """Exact expected utility of team A (``value``) when ``team_a`` plays team A's seats and
    ``team_b`` plays team B's. ``value_b = -value`` (zero-sum). With ``cards`` set, the value
    is conditional on that deal (and on ``community`` if given)."""

    value: float
    preset: str
    team_a: str
    team_b: str
    seats_a: tuple[int, ...]
    seats_b: tuple[int, ...]
    signals_a: int
    signals_b: int
    cards: tuple[str, ...] | None = None
    community: str | None = None
    seconds: float = field(default=0.0, compare=False)
    unit: str = CHIPS

    def in_big_blinds(self, config: GameConfig) -> EvalResult:
        """The result with its value in big blinds (:func:`big_blind_of`)."""
        return replace(self, value=self.value / big_blind_of(config), unit=BIG_BLINDS)

    @property
    def value_b(self) -> float:
        return -self.value if self.value != 0 else 0.0

    def __str__(self) -> str:
        cond = ""
        if self.cards is not None:
            cond = (
                " given cards "
                + ",".join(self.cards)
                + (f" and community {self.community}" if self.community is not None else "")
            )
        return (
            f"{self.preset}: team A ({self.team_a}, seats {_seats_text(self.seats_a)}, "
            f"{self.signals_a} signal{'s' * (self.signals_a != 1)}) vs team B ({self.team_b}, "
            f"seats {_seats_text(self.seats_b)}, {self.signals_b} signal{'s' * (self.signals_b != 1)})"
            f"{cond}\n"
            f"exact expected utility: team A {self.value:+.12f}, team B {self.value_b:+.12f} "
            f"{self.unit} per hand"
        )

    def to_dict(self) -> dict:
        d = {
            "value": self.value,
            "value_team_b": self.value_b,
            "team_a": {
                "name": self.team_a,
                "seats": [s + 1 for s in self.seats_a],
                "signals": self.signals_a,
            },
            "team_b": {
                "name": self.team_b,
                "seats": [s + 1 for s in self.seats_b],
                "signals": self.signals_b,
            },
        }
        if self.cards is not None:
            d["cards"] = list(self.cards)
            d["community"] = self.community
        d.update({"seconds": round(self.seconds, 4), "preset": self.preset, "version": __version__})
        if self.unit != CHIPS:
            d["unit"] = self.unit
        return d


@dataclass(frozen=True)
class MatchResult:
    """X against Y in both seatings. ``score_x = (value_xy - value_yx) / 2``, the mean of X's
    team utilities; ``score_y = -score_x``."""

    preset: str
    x: str
    y: str
    value_xy: float  # team A's value with X as team A, Y as team B
    value_yx: float  # team A's value with Y as team A, X as team B
    signals_x: int = 0
    signals_y: int = 0
    seconds: float = field(default=0.0, compare=False)
    unit: str = CHIPS

    def in_big_blinds(self, config: GameConfig) -> MatchResult:
        """The match with its values in big blinds (:func:`big_blind_of`)."""
        bb = big_blind_of(config)
        return replace(
            self, value_xy=self.value_xy / bb, value_yx=self.value_yx / bb, unit=BIG_BLINDS
        )

    @property
    def score_x(self) -> float:
        return 0.5 * (self.value_xy - self.value_yx)

    @property
    def score_y(self) -> float:
        return -self.score_x

    @property
    def winner(self) -> str | None:
        if abs(self.score_x) <= 1e-12:
            return None
        return self.x if self.score_x > 0 else self.y

    def __str__(self) -> str:
        w = self.winner
        return (
            f"{self.preset}: {self.x} vs {self.y}\n"
            f"  {self.x} as team A, {self.y} as team B: {self.x} {self.value_xy:+.12f}\n"
            f"  {self.y} as team A, {self.x} as team B: {self.x} {-self.value_yx:+.12f}\n"
            f"score ({self.x}, mean of both seatings): {self.score_x:+.12f} {self.unit} per hand; "
            + (f"winner {w}" if w else "a draw")
        )

    def to_dict(self) -> dict:
        return {
            "score": self.score_x,
            "score_y": self.score_y,
            "x": self.x,
            "y": self.y,
            "x_as_team_a": self.value_xy,
            "x_as_team_b": -self.value_yx,
            "value_x_as_a": self.value_xy,
            "value_y_as_a": self.value_yx,
            "signals_x": self.signals_x,
            "signals_y": self.signals_y,
            "winner": self.winner,
            "seconds": round(self.seconds, 4),
            "preset": self.preset,
            "version": __version__,
        } | ({"unit": self.unit} if self.unit != CHIPS else {})


# --------------------------------------------------------------------------- conditional values


def _rank_index(config: GameConfig, name, what: str) -> int:
    """0-based rank of a rank name; an int is refused (it could be read as a name, as in
    kuhn-100 whose ranks are 1..100, or as an index: never guessed)."""
    if not isinstance(name, str):
        raise ArgumentTypeError(
            f"{what}: give a rank name ({' '.join(config.ranks)}), not "
            f"{type(name).__name__} {name!r}"
        )
    try:
        return config.ranks.index(name.strip().upper() if len(name.strip()) == 1 else name.strip())
    except ValueError:
        raise ArgumentValueError(
            f"{what}: unknown rank {name!r}; ranks of {config.name}: {' '.join(config.ranks)}"
        ) from None


def _card_names(config: GameConfig, cards) -> list:
    """The rank names of ``cards`` (``"J,Q,Q,K"``, ``"J Q Q K"`` or a sequence of names)."""
    if isinstance(cards, str):  # an empty field is an error, never dropped
        from .replay import split_cards

        return split_cards(cards)
    if isinstance(cards, (bytes, Mapping)) or not isinstance(cards, Iterable):
        raise ArgumentTypeError(
            f"cards: give one rank name per seat, e.g. 'J,Q,Q,K', not {cards!r}"[:200]
        )
    names = list(cards)
    for k, c in enumerate(names, 1):
        if isinstance(c, str) and not c.strip():
            raise ArgumentValueError(f"cards: card {k} is empty; give one rank name per seat")
    return names


def conditional_value(tree: PublicTree, reach_a, reach_b, cards, community=None) -> float:
    """Team A's expected utility given the private ranks ``cards`` (0-based rank per seat) and,
    in games with a community card, the community rank (None: averaged over it).

    ``E[u_A | x, y] = sum_z [z agrees with y] u_A(z, x) T_A[z, xA] T_B[z, xB]``; hands that end
    before the community card is dealt agree with every y.
    """
    config = tree.config
    A, B = team_seats(config)
    R, S = config.num_ranks, config.num_seats
    cards = tuple(int(c) for c in cards)
    d = int(np.ravel_multi_index(cards, (R,) * S))
    p_deal = deal_probabilities(config)[d]
    if p_deal == 0:
        raise TeamLeducError(
            f"that deal is impossible: the deck has only {config.suits} card(s) of each rank"
        )
    if community is not None and not config.has_community:
        raise TeamLeducError(f"{config.name} has no community card")
    g = payoff_groups(tree, A)
    utility = g.pot * g.share[g.key, d] - g.paid  # (Z,) u_A at the deal
    xa = int(np.ravel_multi_index([cards[s] for s in A], (R,) * len(A)))
    xb = int(np.ravel_multi_index([cards[s] for s in B], (R,) * len(B)))
    terms = utility * np.asarray(reach_a)[:, xa] * np.asarray(reach_b)[:, xb]
    if config.dealt_blind:  # averaged over the dealt small blind too
        terms = terms * tree.blind_probability[tree.terminals]
    comm = tree.community[tree.terminals].astype(np.int64)
    if not config.has_community:
        return float(terms.sum())
    joint = deal_community_probabilities(config)[d]  # (R,) P(x, y)
    if community is not None:
        y = int(community)
        if joint[y] == 0:
            raise TeamLeducError("that community card is impossible with that deal")
        return float(terms[(comm < 0) | (comm == y)].sum())
    # average over y: round-1 ends count once, round-2 ends with weight P(y | x)
    w = np.where(comm < 0, 1.0, joint[np.maximum(comm, 0)] / p_deal)
    return float((terms * w).sum())


# --------------------------------------------------------------------------- API


def check_spec(spec, what: str):
    """``spec`` if it can name a submission (a path, a baseline name, an Entrant or NamedPath,
    a loaded submission); ArgumentTypeError naming ``what`` otherwise (None, a number, a dict),
    instead of a message from ``pathlib`` that names no argument; ArgumentValueError for an
    empty path, which would be read as the current folder."""
    if isinstance(spec, (str, os.PathLike)) and not os.fspath(spec):
        raise ArgumentValueError(
            f"{what} is empty: give a submission path, a baseline name or a loaded Submission"
        )
    if isinstance(spec, (str, os.PathLike, Entrant, NamedPath)) or hasattr(spec, "strategies"):
        return spec
    raise ArgumentTypeError(
        f"{what}: give a submission path, a baseline name or a loaded Submission, not "
        f"{type(spec).__name__} {spec!r}"[:300]
    )


def evaluate(
    team_a: EntrantSpec,
    team_b: EntrantSpec,
    config: ConfigLike = "team-leduc",
    *,
    cards: Sequence[int | str] | str | None = None,
    community: int | str | None = None,
) -> EvalResult:
    """Exact expected utility of team A when ``team_a`` plays team A's seats (1, 3) and
    ``team_b`` team B's (2, 4).

    Parameters
    ----------
    team_a, team_b : a submission path (folder or ``.zip``), a baseline name, an
        :class:`Entrant` or a loaded Submission. Only the seats each plays are used.
    config : GameConfig or preset name.
    cards : optional private ranks of every seat, e.g. ``"J,Q,Q,K"`` or ``("J", "Q", "Q", "K")``:
        the value is then conditional on that deal.
    community : optional community rank (with ``cards``), e.g. ``"J"``.

    Returns
    -------
    EvalResult with ``value`` (team A) and ``value_b = -value``.

    Examples
    --------
    >>> evaluate("uniform", "uniform", "leduc").value  # OpenSpiel's leduc_poker, uniform policy
    -0.078125
    """
    t0 = time.perf_counter()
    config = get_config(config)
    A, B = team_seats(config)
    tree = build_tree(config)
    ea = load_entrant(check_spec(team_a, "team_a"), config, seats=A, role="team A's submission")
    eb = load_entrant(check_spec(team_b, "team_b"), config, seats=B, role="team B's submission")
    ta = team_reach(tree, ea.submission, A)
    tb = team_reach(tree, eb.submission, B)
    card_names = comm_name = None
    if cards is None:
        if community is not None:
            raise TeamLeducError("--community needs --cards")
        value = evaluate_reach(tree, ta, tb)
    else:
        names = _card_names(config, cards)
        if len(names) != config.num_seats:
            raise TeamLeducError(
                f"give one rank per seat ({config.num_seats}), e.g. "
                + ",".join(
                    config.ranks[min(i, config.num_ranks - 1)] for i in range(config.num_seats)
                )
            )
        idx = [_rank_index(config, c, f"card {i + 1}") for i, c in enumerate(names)]
        y = None if community is None else _rank_index(config, community, "community")
        value = conditional_value(tree, ta, tb, idx, y)
        card_names = tuple(config.ranks[i] for i in idx)
        comm_name = None if y is None else config.ranks[y]
    value = float(value) + 0.0  # no negative zero in reports
    return EvalResult(
        value=value,
        preset=config.name,
        team_a=ea.name,
        team_b=eb.name,
        seats_a=A,
        seats_b=B,
        signals_a=ea.num_signals,
        signals_b=eb.num_signals,
        cards=card_names,
        community=comm_name,
        seconds=time.perf_counter() - t0,
    )


def match(x: EntrantSpec, y: EntrantSpec, config: ConfigLike = "team-leduc") -> MatchResult:
    """X against Y in both seatings (X as team A, then X as team B); X's score is the mean of
    its two team utilities. Each submission must play every seat (or be a baseline)."""
    t0 = time.perf_counter()
    config = get_config(config)
    A, B = team_seats(config)
    tree = build_tree(config)
    every = tuple(range(config.num_seats))
    ex = load_entrant(check_spec(x, "x"), config, role="X", require=every)
    ey = load_entrant(check_spec(y, "y"), config, role="Y", require=every)
    if ex.name == ey.name and ex is not ey and ex.source != ey.source:
        ey = Entrant(name=ey.name + " (2)", source=ey.source, submission=ey.submission)
    vxy = evaluate_reach(
        tree, team_reach(tree, ex.submission, A), team_reach(tree, ey.submission, B)
    )
    vyx = evaluate_reach(
        tree, team_reach(tree, ey.submission, A), team_reach(tree, ex.submission, B)
    )
    return MatchResult(
        preset=config.name,
        x=ex.name,
        y=ey.name,
        value_xy=vxy + 0.0,
        value_yx=vyx + 0.0,
        signals_x=ex.num_signals,
        signals_y=ey.num_signals,
        seconds=time.perf_counter() - t0,
    )


def _warmup() -> None:
    """Compile the kernels once on a tiny game."""
    from .baselines import baseline

    config = get_config("tiny-team")
    tree = build_tree(config)
    A, B = team_seats(config)
    sub = baseline("uniform", config)
    evaluate_reach(tree, team_reach(tree, sub, A), team_reach(tree, sub, B))
