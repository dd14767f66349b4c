"""Batch simulator: N hands on the public tree at once, with one compiled kernel.

The kernel deals the cards of a chunk of hands (a partial Fisher-Yates shuffle of the deck)
and draws each team's signals, then walks all of the chunk's hands down the public tree
together, one action of every live hand per pass: at each decision node it samples the actor's
action from one flat table of cumulative probabilities indexed by (seat, signal, information
set); a chance node takes the hand's community card. It
returns the terminal node of each hand, and the payoffs are read from the exact tables of
:func:`teamleduc.payoffs.payoff_groups` (the same numbers :func:`teamleduc.evaluate.evaluate`
sums), so no rule is written twice. The kernel draws from numba's generator, reseeded from ``seed`` at every chunk of
:data:`teamleduc.envs.kernels.CHUNK` hands (chunks run in parallel threads): the same seed gives the same hands,
whatever the number of threads. Use it for fast rollouts and as an independent Monte Carlo
check of the exact evaluator, never as a grader.
"""

from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass

import numpy as np

from ..arguments import check_seed
from ..errors import ArgumentTypeError, ArgumentValueError
from ..payoffs import payoff_groups
from ..tree import PublicTree
from .game import env_game
from .kernels import play_hands
from .policies import team_entrants

__all__ = ["Simulation", "simulate"]


@dataclass(frozen=True, eq=False)
class Simulation:
    """Sampled hands. ``utilities`` (n, S) chips won per hand and seat; ``teams`` the seats of
    each team (0-based); ``terminal`` (n,) the terminal node of each hand."""

    preset: str
    utilities: np.ndarray
    terminal: np.ndarray
    teams: tuple[tuple[int, ...], ...]
    seconds: float

    @property
    def n_hands(self) -> int:
        return int(self.utilities.shape[0])

    def team_utilities(self) -> np.ndarray:
        """(n, T) each team's total per hand."""
        return np.stack([self.utilities[:, list(t)].sum(axis=1) for t in self.teams], axis=1)

    def mean(self) -> np.ndarray:
        """(S,) mean utility per seat."""
        return self.utilities.mean(axis=0)

    def stderr(self) -> np.ndarray:
        """(S,) standard error of each seat's mean."""
        return self.utilities.std(axis=0, ddof=1) / np.sqrt(self.n_hands)

    def team_mean(self) -> np.ndarray:
        return self.team_utilities().mean(axis=0)

    def team_stderr(self) -> np.ndarray:
        return self.team_utilities().std(axis=0, ddof=1) / np.sqrt(self.n_hands)

    @property
    def hands_per_second(self) -> float:
        return self.n_hands / self.seconds if self.seconds > 0 else float("inf")


@functools.lru_cache(maxsize=8)
def tree_tables(tree: PublicTree) -> tuple[np.ndarray, np.ndarray]:
    """``(gid, zrow)``: (N, R) information-set id of (node, rank) for the seat acting at node
    (-1 elsewhere), and (N,) the row of each terminal node in ``tree.terminals`` (-1 elsewhere)."""
    tables = env_game(tree.config).tables
    gid = np.full((tree.num_nodes, tree.config.num_ranks), -1, np.int32)
    for tab in tables:
        gid[tab.node, tab.rank] = np.arange(tab.size, dtype=np.int32)
    zrow = np.full(tree.num_nodes, -1, np.int64)
    zrow[tree.terminals] = np.arange(len(tree.terminals))
    return gid, zrow


def cumulative_rows(strategy: np.ndarray) -> np.ndarray:
    """(K, n, 2) thresholds: action c if u < t0, r if u < t1, else f; a threshold is 1 where no
    later action has mass, so rounding never picks an action of probability 0."""
    c = np.cumsum(strategy[..., :2], axis=-1)
    c[..., 1] = np.where(strategy[..., 2] > 0, c[..., 1], 1.0)
    c[..., 0] = np.where((strategy[..., 1] > 0) | (strategy[..., 2] > 0), c[..., 0], 1.0)
    return c


#: hands per chunk: each chunk reseeds numba's generator from (seed, chunk), so the hands do not
#: depend on how the chunks are spread over threads


def simulate(preset, submissions, n_hands: int, seed: int = 0) -> Simulation:
    """Play ``n_hands`` hands of ``preset`` with every team played by ``submissions``.

    Parameters
    ----------
    preset : preset name or GameConfig.
    submissions : one submission argument (baseline name, path or Submission) for every team,
        or one per team (team A first). Each team draws its own signal per hand.
    n_hands : number of hands (an int >= 1).
    seed : seed of the simulator's generator, an int in 0..2**32 - 1 (the kernel's generator
        takes 32 bits: a larger seed would silently repeat a smaller one's hands).

    Returns
    -------
    Simulation with ``utilities`` (n_hands, S) in chips.
    """
    import time

    t0 = time.perf_counter()
    if isinstance(n_hands, (bool, np.bool_)) or not isinstance(n_hands, numbers.Integral):
        raise ArgumentTypeError(
            f"n_hands must be an int >= 1, not {type(n_hands).__name__} {n_hands!r}"
        )
    if n_hands < 1:
        raise ArgumentValueError(f"n_hands must be >= 1, not {n_hands}")
    seed = check_seed(seed, "seed", high=2**32)  # the kernel's generator takes 32 bits
    if seed is None:
        raise ArgumentTypeError("seed must be an int in 0..2**32 - 1, not None")
    game = env_game(preset)
    config, tree = game.config, game.tree
    S = config.num_seats
    entrants = team_entrants(config, submissions, "submissions")
    team_of = np.array([config.team_of(s) for s in range(S)], np.int64)
    gid, zrow = tree_tables(tree)
    blocks, base, size = [], [], []
    at = 0
    for s in range(S):
        strat = np.asarray(entrants[team_of[s]].submission.strategies[s], np.float64)
        blocks.append(cumulative_rows(strat).reshape(-1, 2))
        base.append(at)
        size.append(strat.shape[1])
        at += strat.shape[0] * strat.shape[1]
    thresholds = np.ascontiguousarray(np.concatenate(blocks))
    K = max(len(e.submission.probs) for e in entrants)
    meta_cum = np.ones((len(entrants), K))
    meta_len = np.array([len(e.submission.probs) for e in entrants], np.int64)
    for t, e in enumerate(entrants):
        meta_cum[t, : meta_len[t]] = np.cumsum(e.submission.probs)
    n = int(n_hands)
    try:
        cards = np.empty((n, S), np.int8 if config.num_ranks < 128 else np.int64)
        terminal = np.empty(n, np.int64)
        utilities = np.empty((n, S), np.float64)
    except (MemoryError, ValueError):  # ValueError: past numpy's largest array ("dimension")
        need = n * (S * (1 if config.num_ranks < 128 else 8) + 8 + 8 * S)
        raise ArgumentValueError(
            f"n_hands={n:,}: the results need {need / 2**30:,.1f} GiB, more than this machine "
            "can give; simulate fewer hands per call"
        ) from None
    group, pot, paid, share = payoff_tables(tree)
    play_hands(
        n,
        seed,
        tree.children,
        tree.kind,
        tree.actor,
        gid,
        thresholds,
        np.array(base, np.int64),
        np.array(size, np.int64),
        team_of,
        meta_cum,
        meta_len,
        config.num_cards,
        config.suits,
        S,
        config.has_community,
        config.dealt_blind,
        zrow,
        group,
        pot,
        paid,
        share,
        cards,
        terminal,
        utilities,
    )
    return Simulation(
        preset=config.name,
        utilities=utilities,
        terminal=terminal,
        teams=tuple(tuple(t) for t in config.teams),
        seconds=time.perf_counter() - t0,
    )


@functools.lru_cache(maxsize=4)
def payoff_tables(tree: PublicTree):
    """``(group, pot, paid, share)`` of every seat from :func:`teamleduc.payoffs.payoff_groups`:
    (Z,) payoff group of each terminal, (Z,) pot, (S, Z) chips put in, (S, K, D) share of the pot
    per group and deal; a seat's utility is ``share[s, group[z], deal] * pot[z] - paid[s, z]``."""
    groups = [payoff_groups(tree, (s,)) for s in range(tree.config.num_seats)]
    g0 = groups[0]
    assert all((g.key == g0.key).all() for g in groups)  # the groups depend on the tree only
    return (
        np.ascontiguousarray(g0.key),
        np.ascontiguousarray(g0.pot),
        np.stack([g.paid for g in groups]),
        np.stack([g.share for g in groups]),
    )
