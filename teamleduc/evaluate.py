"""Exact expected team utility of two submissions (spec section 4), and head-to-head matches.

The value of team A (seats 1, 3) playing submission X against team B (seats 2, 4) playing Y is

    v(X, Y) = sum_z sum_{xA, xB}  C[z, xA, xB] * T_A[z, xA] * T_B[z, xB]

over terminal public histories z and the private ranks xA = (x1, x3), xB = (x2, x4), where

* ``C[z, xA, xB] = P(deal, community of z) * u_A(z, deal)`` (:func:`chance_matrix`) depends on
  the game alone, and only through the terminal's active seats and community card: it is kept
  as one small table per such group (49 for team-leduc), never as a (Z, 9, 9) array;
* ``T_A[z, xA] = sum_j p_j R_1^j[z, x1] R_3^j[z, x3]`` is team A's correlated reach
  (:func:`team_reach`): the probability that team A's own actions lead to z when its members
  hold xA, averaged over its signal j; ``R_i^j`` is the product of seat i's action
  probabilities along the path. Linear in the number of signals of each team, never in the
  product of the two teams' numbers of signals, because the teams' signals are independent.

Everything is enumerated (deals, community cards, signals, actions); nothing is sampled.
Folding team B into ``W_B[z, xA] = sum_xB C[z, xA, xB] T_B[z, xB]`` (:func:`team_b_weights`)
makes one value a dot product ``<T_A, W_B>`` and a tournament one matrix of dot products
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

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from . import __version__
from .config import GameConfig, get_config
from .errors import TeamLeducError
from .infosets import infoset_tables
from .payoffs import deal_community_probabilities, deal_probabilities, showdown_shares
from .tree import DECISION, PublicTree, build_tree

__all__ = [
    "Entrant", "EvalResult", "MatchResult", "chance_matrix", "evaluate", "evaluate_reach",
    "load_entrant", "match", "seat_terminal_reach", "team_b_weights", "team_reach",
    "team_seats", "conditional_value",
]


# --------------------------------------------------------------------------- game side

def team_seats(config: GameConfig) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 0-based seats of team A and team B; the game must have exactly two teams."""
    if len(config.teams) != 2:
        raise TeamLeducError(
            f"preset {config.name} has {len(config.teams)} teams; exact team evaluation needs "
            f"exactly two (team A = {{{','.join(str(s + 1) for s in config.teams[0])}}} against team B)")
    return tuple(config.teams[0]), tuple(config.teams[1])


def _team_layout(config: GameConfig) -> np.ndarray:
    """(R**|A|, R**|B|) deal index of every (xA, xB): the C-order deal axis regrouped by team."""
    A, B = team_seats(config)
    S, R = config.num_seats, config.num_ranks
    index = np.arange(R ** S).reshape((R,) * S)
    return np.ascontiguousarray(index.transpose(list(A) + list(B)).reshape(R ** len(A), R ** len(B)))


@functools.lru_cache(maxsize=4)
def _terminal_keys(tree: PublicTree):
    """Group the terminals by (active seats, community rank): payoffs only depend on that.

    Returns ``(key (Z,), share (K, D), weight (K, D), pot (Z,), paid_A (Z,))`` with ``share``
    team A's share of the pot and ``weight`` P(deal[, community]) for each group.
    """
    config = tree.config
    A, _ = team_seats(config)
    S = config.num_seats
    term = tree.terminals
    active = tree.active[term]
    community = tree.community[term].astype(np.int64)
    bits = active.astype(np.int64) @ (1 << np.arange(S, dtype=np.int64))
    code = bits * (config.num_ranks + 1) + (community + 1)
    uniq, key = np.unique(code, return_inverse=True)
    D = config.num_ranks ** S
    share = np.empty((len(uniq), D))
    weight = np.empty((len(uniq), D))
    joint = deal_community_probabilities(config) if config.has_community else None
    for k, c in enumerate(uniq.tolist()):
        mask = np.array([(c // (config.num_ranks + 1)) >> s & 1 for s in range(S)], bool)
        y = c % (config.num_ranks + 1) - 1
        share[k] = showdown_shares(config, mask, y, A)
        weight[k] = deal_probabilities(config) if y < 0 else joint[:, y]
    contrib = tree.contrib[term].astype(np.float64)
    pot = contrib.sum(axis=1)
    paid = contrib[:, list(A)].sum(axis=1)
    return key.astype(np.int64), share, weight, pot, paid


@functools.lru_cache(maxsize=4)
def _team_tables(tree: PublicTree):
    """The group tables in the team layout: ``(key, pot, paid, ws (K, nA, nB), w (K, nA, nB))``
    with ``C[z] = pot_z * ws[key_z] - paid_z * w[key_z]``."""
    key, share, weight, pot, paid = _terminal_keys(tree)
    layout = _team_layout(tree.config)
    ws = np.ascontiguousarray((weight * share)[:, layout])
    w = np.ascontiguousarray(weight[:, layout])
    return key, pot, paid, ws, w


def chance_matrix(tree: PublicTree) -> np.ndarray:
    """(Z, R**|A|, R**|B|): P(deal, community) x team A's utility at each terminal.

    Row z belongs to ``tree.terminals[z]``; ``C[z, xA, xB]`` with xA the ranks of team A's seats
    in team order as one C-order index (x1 * R + x3 for team-leduc), likewise xB. Equal to
    :func:`teamleduc.payoffs.chance_utility` with its deal axis regrouped by team (a test checks
    it). The evaluator never builds this array (162 MB for team-leduc): it applies
    ``C[z] = pot_z * ws[key_z] - paid_z * w[key_z]`` from the few (active seats, community)
    groups of terminals on the fly (:func:`team_b_weights`).
    """
    key, pot, paid, ws, w = _team_tables(tree)
    return pot[:, None, None] * ws[key] - paid[:, None, None] * w[key]


@functools.lru_cache(maxsize=8)
def _seat_edges(tree: PublicTree, seat: int):
    """The seat's edges: ``edge`` (N,) index of the seat's action entering each node (-1 if
    none), the tree's ``parent``, and per edge the parent's first information-set id (ids of
    (node, rank) are that + rank) and the action; plus the terminals."""
    table = infoset_tables(tree)[seat]
    par = tree.parent
    p = np.maximum(par, 0)
    child = np.flatnonzero((par >= 0) & (tree.actor[p] == seat) & (tree.kind[p] == DECISION))
    base = table.id_of[par[child], 0]
    edge = np.full(tree.num_nodes, -1, np.int64)
    edge[child] = np.arange(len(child))
    return (edge, tree.parent.astype(np.int64), base.astype(np.int64),
            tree.action[child].astype(np.int64), tree.terminals.astype(np.int64))


@njit(cache=True)
def _reach_kernel(parent, edge, base, action, strategy, terminals, reach):
    # Pre-order (parent[i] < i): one pass; edge[i] >= 0 when the seat's action enters node i.
    # ``reach`` (N, R) is scratch space, reused between calls.
    num_nodes, R = reach.shape
    for r in range(R):
        reach[0, r] = 1.0
    for i in range(1, num_nodes):
        p = parent[i]
        e = edge[i]
        if e >= 0:
            for r in range(R):
                reach[i, r] = reach[p, r] * strategy[base[e] + r, action[e]]
        else:
            for r in range(R):
                reach[i, r] = reach[p, r]
    out = np.empty((terminals.shape[0], R))
    for z in range(terminals.shape[0]):
        for r in range(R):
            out[z, r] = reach[terminals[z], r]
    return out


def _kernel_array(a) -> np.ndarray:
    """C-contiguous, writeable float64 (the one array type the compiled kernels are cached for)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    return a if a.flags.writeable else a.copy()


def seat_terminal_reach(tree: PublicTree, seat: int, strategy: np.ndarray, work=None) -> np.ndarray:
    """(Z, R) reach of ``seat`` at every terminal when it plays ``strategy`` ((n, 3), c r f).

    ``work``: optional (N, R) float64 scratch array, reused across calls to save allocations."""
    table = infoset_tables(tree)[seat]
    strategy = _kernel_array(strategy)
    if strategy.shape != (table.size, 3):
        raise ValueError(f"strategy of seat {seat + 1} has shape {strategy.shape}, "
                         f"expected ({table.size}, 3)")
    edge, parent, base, action, terminals = _seat_edges(tree, seat)
    if work is None:
        work = np.empty((tree.num_nodes, tree.config.num_ranks))
    return _reach_kernel(parent, edge, base, action, strategy, terminals, work)


def team_reach(tree: PublicTree, submission, seats) -> np.ndarray:
    """(Z, R**len(seats)) correlated reach of the team ``seats`` played by ``submission``.

    ``T[z, x] = sum_j p_j prod_{i in seats} R_i^j[z, x_i]`` with x the members' ranks as one
    C-order index in the order of ``seats``. Cost: one tree pass per seat and signal.
    """
    seats = tuple(int(s) for s in seats)
    missing = [s for s in seats if s not in submission.strategies]
    if missing:
        raise TeamLeducError(
            f"the submission has no strategy for seat(s) {','.join(str(s + 1) for s in missing)} "
            f"(it plays seats {','.join(str(s + 1) for s in sorted(submission.strategies))})")
    R = tree.config.num_ranks
    Z = len(tree.terminals)
    out = np.zeros((Z, R ** len(seats)))
    member = np.empty((len(seats), Z, R))
    digits = np.indices((R,) * len(seats)).reshape(len(seats), -1).T.copy()   # (R**k, k)
    work = np.empty((tree.num_nodes, R))
    for j, p in enumerate(np.asarray(submission.probs, dtype=np.float64).tolist()):
        if p == 0.0:
            continue
        for m, s in enumerate(seats):
            member[m] = seat_terminal_reach(tree, s, submission.strategies[s][j], work)
        _accumulate_team(out, p, member, digits)
    return out


@njit(cache=True)
def _accumulate_team(out, p, member, digits):
    # out[z, x] += p * prod_m member[m, z, digits[x, m]]; digits[x] = ranks of the C-order index x
    k, Z, R = member.shape
    if k == 2:                      # the common case, written out (x = x0 * R + x1)
        for z in range(Z):
            for a in range(R):
                pa = p * member[0, z, a]
                for b in range(R):
                    out[z, a * R + b] += pa * member[1, z, b]
        return
    for z in range(Z):
        for x in range(out.shape[1]):
            prod = p
            for m in range(k):
                prod *= member[m, z, digits[x, m]]
            out[z, x] += prod


@njit(cache=True)
def _weights_b(key, pot, paid, ws, w, TB):
    # out[z, a] = sum_b C[z, a, b] TB[z, b],  C[z, a, b] = pot_z ws[k, a, b] - paid_z w[k, a, b]
    Z = key.shape[0]
    nA, nB = ws.shape[1], ws.shape[2]
    out = np.empty((Z, nA))
    for z in range(Z):
        k = key[z]
        for a in range(nA):
            s = 0.0
            for b in range(nB):
                s += (pot[z] * ws[k, a, b] - paid[z] * w[k, a, b]) * TB[z, b]
            out[z, a] = s
    return out


#: block length of every dot product: partial sums over consecutive blocks, then their sum in
#: block order, so a single evaluation and the grader's matrix give bit-identical values
BLOCK = 4096


@njit(cache=True)
def _dot(x, y, block):
    total = 0.0
    for lo in range(0, x.shape[0], block):
        s = 0.0
        for i in range(lo, min(x.shape[0], lo + block)):
            s += x[i] * y[i]
        total += s
    return total


def team_b_weights(tree: PublicTree, reach_b: np.ndarray) -> np.ndarray:
    """(Z, R**|A|) ``W_B[z, xA] = sum_xB C[z, xA, xB] T_B[z, xB]``: team A's value is <T_A, W_B>."""
    key, pot, paid, ws, w = _team_tables(tree)
    reach_b = _kernel_array(reach_b)
    if reach_b.shape != (len(key), ws.shape[2]):
        raise ValueError(f"team B reach has shape {reach_b.shape}, expected {(len(key), ws.shape[2])}")
    return _weights_b(key, pot, paid, ws, w, reach_b)


def evaluate_reach(tree: PublicTree, reach_a: np.ndarray, reach_b: np.ndarray) -> float:
    """Team A's exact expected utility from both teams' correlated terminal reaches."""
    w = team_b_weights(tree, reach_b)
    return float(_dot(_kernel_array(reach_a).ravel(), w.ravel(), BLOCK))


# --------------------------------------------------------------------------- entrants

@dataclass(frozen=True, eq=False)
class Entrant:
    """A named submission: a path or a baseline name, resolved to a loaded Submission."""

    name: str
    source: str                 # the path, or "baseline"
    submission: object          # teamleduc.submission.Submission (duck-typed: signals, probs, seats, strategies)

    @property
    def num_signals(self) -> int:
        return int(len(self.submission.signals))


def _as_config(config) -> GameConfig:
    return config if isinstance(config, GameConfig) else get_config(config)


def load_entrant(spec, config, seats=None) -> Entrant:
    """Resolve one argument of ``evaluate``/``match``/``grade``.

    ``spec`` is a baseline name (``uniform``, ``always-call``, ``aggressive``, ``cautious``,
    ``random-pure`` or ``random-pure:SEED``), a path to a submission folder or ``.zip``, an
    :class:`Entrant`, or an already loaded Submission. A baseline name wins over a folder of
    the same name; write ``./uniform`` for the folder. ``seats`` (0-based) limits loading to the
    seats that will play.
    """
    from . import baselines

    config = _as_config(config)
    if isinstance(spec, Entrant):
        return spec
    if hasattr(spec, "strategies") and hasattr(spec, "probs"):
        return Entrant(name="submission", source="object", submission=spec)
    text = str(spec)
    if isinstance(spec, str) and baselines.is_baseline(text):
        return Entrant(name=baselines.canonical_name(text), source="baseline",
                       submission=baselines.baseline(text, config, seats=seats))
    path = Path(spec)
    if not path.exists():
        raise TeamLeducError(f"{text}: no such submission folder or .zip, and not a baseline "
                             f"(baselines: {', '.join(baselines.BASELINES)}, random-pure:SEED)")
    from .submission import load_submission
    sub = load_submission(path, config, seats=None if seats is None else tuple(seats))
    return Entrant(name=entrant_name(path), source=str(path), submission=sub)


def entrant_name(path) -> str:
    """Display name of a submission path: the folder name, or the file name without ``.zip``."""
    path = Path(path)
    name = path.name if path.name else path.resolve().name
    return name[:-4] if name.lower().endswith(".zip") else name


# --------------------------------------------------------------------------- results

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

    @property
    def value_b(self) -> float:
        return -self.value if self.value != 0 else 0.0

    def __str__(self) -> str:
        cond = ""
        if self.cards is not None:
            cond = " given cards " + ",".join(self.cards) + (
                f" and community {self.community}" if self.community is not None else "")
        return (f"{self.preset}: team A ({self.team_a}, seats {_seats_text(self.seats_a)}, "
                f"{self.signals_a} signal{'s' * (self.signals_a != 1)}) vs team B ({self.team_b}, "
                f"seats {_seats_text(self.seats_b)}, {self.signals_b} signal{'s' * (self.signals_b != 1)})"
                f"{cond}\n"
                f"exact expected utility: team A {self.value:+.12f}, team B {self.value_b:+.12f} "
                f"chips per hand")

    def to_dict(self) -> dict:
        d = {"value": self.value, "value_team_b": self.value_b,
             "team_a": {"name": self.team_a, "seats": [s + 1 for s in self.seats_a],
                        "signals": self.signals_a},
             "team_b": {"name": self.team_b, "seats": [s + 1 for s in self.seats_b],
                        "signals": self.signals_b}}
        if self.cards is not None:
            d["cards"] = list(self.cards)
            d["community"] = self.community
        d.update({"seconds": round(self.seconds, 4), "preset": self.preset, "version": __version__})
        return d


@dataclass(frozen=True)
class MatchResult:
    """X against Y in both seatings. ``score_x = (value_xy - value_yx) / 2``, the mean of X's
    team utilities; ``score_y = -score_x``."""

    preset: str
    x: str
    y: str
    value_xy: float          # team A's value with X as team A, Y as team B
    value_yx: float          # team A's value with Y as team A, X as team B
    signals_x: int = 0
    signals_y: int = 0
    seconds: float = field(default=0.0, compare=False)

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
        return (f"{self.preset}: {self.x} vs {self.y}\n"
                f"  {self.x} as team A, {self.y} as team B: {self.x} {self.value_xy:+.12f}\n"
                f"  {self.y} as team A, {self.x} as team B: {self.x} {-self.value_yx:+.12f}\n"
                f"score ({self.x}, mean of both seatings): {self.score_x:+.12f} chips per hand; "
                + (f"winner {w}" if w else "a draw"))

    def to_dict(self) -> dict:
        return {"score": self.score_x, "score_y": self.score_y, "x": self.x, "y": self.y,
                "x_as_team_a": self.value_xy, "x_as_team_b": -self.value_yx,
                "value_x_as_a": self.value_xy, "value_y_as_a": self.value_yx,
                "signals_x": self.signals_x, "signals_y": self.signals_y,
                "winner": self.winner, "seconds": round(self.seconds, 4),
                "preset": self.preset, "version": __version__}


# --------------------------------------------------------------------------- conditional values

def _rank_index(config: GameConfig, name: str) -> int:
    try:
        return config.ranks.index(name.strip().upper() if len(name.strip()) == 1 else name.strip())
    except ValueError:
        raise TeamLeducError(f"unknown rank {name!r}; ranks of {config.name}: {' '.join(config.ranks)}") from None


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
        raise TeamLeducError("that deal is impossible: the deck has only "
                             f"{config.suits} card(s) of each rank")
    if community is not None and not config.has_community:
        raise TeamLeducError(f"{config.name} has no community card")
    key, share, weight, pot, paid = _terminal_keys(tree)
    utility = pot * share[key, d] - paid                   # (Z,) u_A at the deal
    xa = int(np.ravel_multi_index([cards[s] for s in A], (R,) * len(A)))
    xb = int(np.ravel_multi_index([cards[s] for s in B], (R,) * len(B)))
    terms = utility * np.asarray(reach_a)[:, xa] * np.asarray(reach_b)[:, xb]
    comm = tree.community[tree.terminals].astype(np.int64)
    if not config.has_community:
        return float(terms.sum())
    joint = deal_community_probabilities(config)[d]        # (R,) P(x, y)
    if community is not None:
        y = int(community)
        if joint[y] == 0:
            raise TeamLeducError("that community card is impossible with that deal")
        return float(terms[(comm < 0) | (comm == y)].sum())
    # average over y: round-1 ends count once, round-2 ends with weight P(y | x)
    w = np.where(comm < 0, 1.0, joint[np.maximum(comm, 0)] / p_deal)
    return float((terms * w).sum())


# --------------------------------------------------------------------------- API

def evaluate(team_a, team_b, config="team-leduc", *, cards=None, community=None) -> EvalResult:
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
    config = _as_config(config)
    A, B = team_seats(config)
    tree = build_tree(config)
    ea = load_entrant(team_a, config, seats=A)
    eb = load_entrant(team_b, config, seats=B)
    ta = team_reach(tree, ea.submission, A)
    tb = team_reach(tree, eb.submission, B)
    card_names = comm_name = None
    if cards is None:
        if community is not None:
            raise TeamLeducError("--community needs --cards")
        value = evaluate_reach(tree, ta, tb)
    else:
        names = [c for c in (cards.replace(" ", ",").split(",") if isinstance(cards, str) else cards) if c != ""]
        if len(names) != config.num_seats:
            raise TeamLeducError(f"give one rank per seat ({config.num_seats}), e.g. "
                                 + ",".join(config.ranks[min(i, config.num_ranks - 1)] for i in range(config.num_seats)))
        idx = [_rank_index(config, str(c)) for c in names]
        y = None if community is None else _rank_index(config, str(community))
        value = conditional_value(tree, ta, tb, idx, y)
        card_names = tuple(config.ranks[i] for i in idx)
        comm_name = None if y is None else config.ranks[y]
    value = float(value) + 0.0      # no negative zero in reports
    return EvalResult(value=value, preset=config.name, team_a=ea.name, team_b=eb.name,
                      seats_a=A, seats_b=B, signals_a=ea.num_signals, signals_b=eb.num_signals,
                      cards=card_names, community=comm_name, seconds=time.perf_counter() - t0)


def match(x, y, config="team-leduc") -> MatchResult:
    """X against Y in both seatings (X as team A, then X as team B); X's score is the mean of
    its two team utilities. Each submission must play every seat (or be a baseline)."""
    t0 = time.perf_counter()
    config = _as_config(config)
    A, B = team_seats(config)
    tree = build_tree(config)
    ex = load_entrant(x, config)
    ey = load_entrant(y, config)
    if ex.name == ey.name and ex is not ey and ex.source != ey.source:
        ey = Entrant(name=ey.name + " (2)", source=ey.source, submission=ey.submission)
    vxy = evaluate_reach(tree, team_reach(tree, ex.submission, A), team_reach(tree, ey.submission, B))
    vyx = evaluate_reach(tree, team_reach(tree, ey.submission, A), team_reach(tree, ex.submission, B))
    return MatchResult(preset=config.name, x=ex.name, y=ey.name, value_xy=vxy + 0.0, value_yx=vyx + 0.0,
                       signals_x=ex.num_signals, signals_y=ey.num_signals,
                       seconds=time.perf_counter() - t0)


def _warmup() -> None:
    """Compile the kernels once on a tiny game."""
    from .baselines import baseline
    config = get_config("tiny-team")
    tree = build_tree(config)
    A, B = team_seats(config)
    sub = baseline("uniform", config)
    evaluate_reach(tree, team_reach(tree, sub, A), team_reach(tree, sub, B))
