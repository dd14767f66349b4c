"""Column generation (double oracle) over joint pure team strategies.

Method (McMahan, Gordon and Blum, ICML 2003, "Planning in the presence of cost functions
controlled by an adversary"; for team games Farina, Celli, Gatti and Sandholm, NeurIPS 2018,
and Zhang, An and Zeng, ICML 2024). Each team's strategy set is restricted to a few
*columns* (pure joint strategies, or any product strategies); the restricted matrix game

    max_{lambda in simplex}  min_{mu in simplex}  lambda^T M mu,
    M[i, j] = exact value of (A's column i, B's column j)

is solved by two linear programmes with scipy's HiGHS (:func:`solve_matrix_game`). Against the
restricted equilibrium (lambda, mu), each team's **exact** best response on its whole belief DAG
(:func:`teamleduc.dag.best_response_pure`) gives both bounds of the TMECor value:

    lower = value of lambda against B's best response  <=  v*  <=  value of A's best response to mu = upper

and the best responses become new columns. When neither best response improves on the
restricted value the restricted equilibrium is a TMECor of the whole game (gap 0).

Payoffs are exact: a column is stored as its terminal reach ``T[z, x]`` (uint8 for pure
strategies, float64 for mixed behaviour) and ``M[i, j] = sum_z sum_{xA, xB} C[z, xA, xB]
TA_i[z, xA] TB_j[z, xB]`` is computed once per new column against every column of the other
team through the weights ``W`` (:meth:`DagGame.weights`).

The same restricted game serves the export (:mod:`teamleduc.solver.export`): one team mixes a
set of candidate strategies while the other answers on its whole DAG.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from numba import njit, prange
from scipy.optimize import linprog

from ..dag import (
    DagGame,
    PureTeamStrategy,
    best_response_pure,
    dag_game,
    flows,
    product_reach,
    pure_reach,
)
from .candidates import Candidates
from .measurement import Measurement
from .mixtures import TeamMixture

#: restricted-game weights below this are treated as zero (then renormalised)
WEIGHT_EPS = 1e-12


@njit(cache=True)
def _dot(w, t):
    s = 0.0
    for i in range(w.shape[0]):
        if t[i] != 0:
            s += w[i] * t[i]
    return s


@njit(cache=True, parallel=True)
def _gather_dots(Wb, bel, n, out):
    """out[j] = sum_z Wb[z, bel[j, z]] over bel >= 0, for the first n rows of ``bel``."""
    Z = Wb.shape[0]
    for j in prange(n):
        s = 0.0
        for z in range(Z):
            b = bel[j, z]
            if b >= 0:
                s += Wb[z, b]
        out[j] = s


@njit(cache=True)
def _add_beliefs(T, contains, bel, w):
    for z in range(bel.shape[0]):
        b = bel[z]
        if b >= 0:
            for x in range(T.shape[1]):
                T[z, x] += w * contains[b, x]


def terminal_beliefs(dag, reach: np.ndarray) -> np.ndarray | None:
    """(Z,) int8 belief of a pure team-of-two strategy at every terminal (-1: not reached),
    from its 0/1 reach (Z, R*R); None if the reach is not a product of rank sets."""
    R = dag.tree.config.num_ranks
    r = reach.reshape(-1, R, R).astype(bool)
    s1 = (r.any(axis=2) * (1 << np.arange(R))).sum(axis=1)
    s2 = (r.any(axis=1) * (1 << np.arange(R))).sum(axis=1)
    M = (1 << R) - 1
    bel = np.where((s1 > 0) & (s2 > 0), (s1 - 1) * M + (s2 - 1), -1)
    check = np.zeros(r.shape[0] * R * R, np.uint8).reshape(-1, R * R)
    ok = bel >= 0
    check[ok] = dag.contains[bel[ok]].astype(np.uint8)
    if not np.array_equal(check, reach.reshape(-1, R * R)) or dag.num_beliefs > B_MAX:
        return None
    return bel.astype(np.int8)


B_MAX = 127


class ColumnSet:
    """Columns of one team: strategies and their terminal reach, without duplicates.

    Pure strategies of a team of two are stored compactly as their belief at every terminal
    (``(Z,) int8``: the reach is ``contains[belief]``); others as a dense reach (Z * X)."""

    def __init__(self, game: DagGame, team: int):
        self.game = game
        self.team = team
        self.dag = game.dags[team]
        self.items: list = []
        self.index: dict[bytes, int] = {}
        Z = len(game.tree.terminals)
        self._bel = np.full((8, Z), -1, np.int8)  # compact columns (first _nb rows used)
        self._nb = 0
        self._where: list[tuple[int, int]] = []  # column -> (0, row in _bel) | (1, k)
        self._dense: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self.items)

    def find(self, strategy) -> int:
        return self.index.get(strategy.key(), -1)

    def append(self, strategy) -> int:
        """Add ``strategy`` (computing its terminal reach); returns its column index."""
        if isinstance(strategy, PureTeamStrategy):
            reach = pure_reach(self.dag, strategy)
            bel = terminal_beliefs(self.dag, reach) if self.dag.num_members == 2 else None
        else:
            reach = product_reach(self.dag, strategy.probs)
            bel = None
        if bel is not None:
            if self._nb == self._bel.shape[0]:
                grown = np.full((2 * self._nb, self._bel.shape[1]), -1, np.int8)
                grown[: self._nb] = self._bel
                self._bel = grown
            self._bel[self._nb] = bel
            self._where.append((0, self._nb))
            self._nb += 1
        else:
            self._where.append((1, len(self._dense)))
            self._dense.append(np.ascontiguousarray(reach, dtype=np.float64).reshape(-1))
        self.index[strategy.key()] = len(self.items)
        self.items.append(strategy)
        return len(self.items) - 1

    def reach(self, j: int) -> np.ndarray:
        """(Z, X) float64 terminal reach of column j."""
        kind, k = self._where[j]
        Z = len(self.game.tree.terminals)
        if kind == 1:
            return self._dense[k].reshape(Z, -1)
        T = np.zeros((Z, self.dag.num_deals))
        _add_beliefs(T, self.dag.contains, self._bel[k], 1.0)
        return T

    def mixture_reach(self, weights: np.ndarray) -> np.ndarray:
        """(Z, X) reach of the mixture ``weights`` over the columns."""
        Z = len(self.game.tree.terminals)
        T = np.zeros((Z, self.dag.num_deals))
        for j, w in enumerate(np.asarray(weights)):
            if w > 0:
                kind, k = self._where[j]
                if kind == 0:
                    _add_beliefs(T, self.dag.contains, self._bel[k], float(w))
                else:
                    T += w * self._dense[k].reshape(Z, -1)
        return T

    def dots(self, W: np.ndarray) -> np.ndarray:
        """``<W, T_j>`` for every column j (W is (Z, X) of this team)."""
        out = np.empty(len(self.items))
        if self._nb:
            Wb = np.ascontiguousarray(W @ self.dag.contains.T)
            comp = np.empty(self._nb)
            _gather_dots(Wb, self._bel, self._nb, comp)
        w = np.ascontiguousarray(W, dtype=np.float64).reshape(-1)
        for j, (kind, k) in enumerate(self._where):
            out[j] = comp[k] if kind == 0 else _dot(w, self._dense[k])
        return out

    def mixture(self, weights: np.ndarray) -> TeamMixture:
        weights = np.asarray(weights)
        keep = np.flatnonzero(weights > 0)
        w = weights[keep] / weights[keep].sum()
        return TeamMixture(self.team, self.dag.seats, w, tuple(self.items[i] for i in keep))


class RestrictedGame:
    """Both teams' column sets and the exact payoff matrix between them (team A's value)."""

    def __init__(self, game: DagGame):
        self.game = game
        self.sets = (ColumnSet(game, 0), ColumnSet(game, 1))
        self.M = np.zeros((0, 0))

    @property
    def shape(self) -> tuple[int, int]:
        return self.M.shape

    def add(self, team: int, strategy) -> tuple[int, bool]:
        """Add a column (if new); returns (its index, whether it was new)."""
        cs = self.sets[team]
        j = cs.find(strategy)
        if j >= 0:
            return j, False
        j = cs.append(strategy)
        other = self.sets[1 - team]
        if len(other):
            W = self.game.weights(1 - team, cs.reach(j))
            vals = other.dots(W)  # the other team's value of each of its columns
        else:
            vals = np.zeros(0)
        if team == 0:
            self.M = np.vstack([self.M.reshape(len(cs) - 1, len(other)), -vals[None, :]])
        else:
            self.M = np.hstack([self.M.reshape(len(other), len(cs) - 1), vals[:, None]])
        return j, True

    def solve(self, team_a_cols=None, team_b_cols=None) -> RestrictedSolution:
        """Restricted equilibrium over all columns (or the given column subsets)."""
        ia = np.arange(self.M.shape[0]) if team_a_cols is None else np.asarray(team_a_cols)
        ib = np.arange(self.M.shape[1]) if team_b_cols is None else np.asarray(team_b_cols)
        lam, mu, value = solve_matrix_game(self.M[np.ix_(ia, ib)])
        la = np.zeros(self.M.shape[0])
        la[ia] = lam
        mb = np.zeros(self.M.shape[1])
        mb[ib] = mu
        return RestrictedSolution(la, mb, value)


class RestrictedSolution:
    def __init__(self, lam, mu, value):
        self.lam, self.mu, self.value = lam, mu, value


def _clean(w: np.ndarray) -> np.ndarray:
    w = np.where(w > WEIGHT_EPS, w, 0.0)
    s = w.sum()
    if s <= 0:
        raise RuntimeError("linear programme returned an empty mixture")
    return w / s


def _maximin(M: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """max_lambda min_j (lambda^T M)_j by HiGHS; returns lambda and the column player's
    minimax mixture read from the duals (None if they are not usable)."""
    n, m = M.shape
    Ms = M - float(M.min())  # positive payoffs: a better conditioned programme
    c = np.zeros(n + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-Ms.T, np.ones((m, 1))])
    A_eq = np.concatenate([np.ones(n), [0.0]])[None, :]
    bounds = [(0, None)] * n + [(None, None)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = linprog(
            c, A_ub=A_ub, b_ub=np.zeros(m), A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs"
        )
    if res.status != 0:
        raise RuntimeError(f"restricted-game LP failed: {res.message}")
    lam = _clean(res.x[:n])
    mu = None
    marg = getattr(getattr(res, "ineqlin", None), "marginals", None)
    if marg is not None:
        mu = -np.asarray(marg, dtype=np.float64)
        if (mu < -1e-9).any() or abs(mu.sum() - 1.0) > 1e-6:
            mu = None
        else:
            mu = _clean(np.maximum(mu, 0.0))
    return lam, mu


def solve_matrix_game(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Equilibrium of the zero-sum matrix game ``M`` (row player maximises).

    Returns ``(lambda, mu, value)``: the row player's maximin mixture (a HiGHS linear
    programme), the column player's minimax mixture (its duals; a second programme if they
    are unusable) and the row player's guaranteed value ``min_j (lambda^T M)_j`` re-computed
    from the returned mixture.
    """
    M = np.asarray(M, dtype=np.float64)
    lam, mu = _maximin(M)
    if mu is None:
        mu, _ = _maximin(-M.T)
    return lam, mu, float((lam @ M).min())


# --------------------------------------------------------------------------- double oracle


class DoubleOracle:
    """Column generation with exact best responses on both teams' belief DAGs.

    One :meth:`iterate` = solve the restricted game, compute both exact best responses to its
    equilibrium, add them as columns. The restricted equilibrium is itself the output (a
    mixture over columns), so its bounds are those of the strategies that get exported.
    """

    name = "double-oracle"

    def __init__(self, config, *, initial: Candidates | None = None):
        self.game = dag_game(config)
        self.rg = RestrictedGame(self.game)
        self.iterations = 0
        self.history: list[Measurement] = []
        self.best: list = [None, None]  # (bound, mixture) of the best strategy of each team
        self._scratch = [d.new_values() for d in self.game.dags]
        if initial is not None and len(initial):
            for team in (0, 1):
                for s in initial.items[team]:
                    self.rg.add(team, s)
        for team in (0, 1):
            if len(self.rg.sets[team]) == 0:
                # best response to the other team playing uniformly over its DAG
                other = self.game.dags[1 - team]
                T = flows(other, other.uniform_sigma(), other.new_values())
                _, pure = best_response_pure(self.game, team, T, self._scratch[team])
                self.rg.add(team, pure)
        self.solution = None
        self.last = None

    def iterate(self, elapsed: float = 0.0) -> Measurement:
        game = self.game
        sol = self.rg.solve()
        self.solution = sol
        TA = self.rg.sets[0].mixture_reach(sol.lam)
        TB = self.rg.sets[1].mixture_reach(sol.mu)
        up, br_a = best_response_pure(game, 0, TB, self._scratch[0])
        vb, br_b = best_response_pure(game, 1, TA, self._scratch[1])
        lower = -vb
        self.iterations += 1
        m = Measurement(self.iterations, elapsed, lower, up, "restricted")
        self.history.append(m)
        if self.best[0] is None or lower > self.best[0][0]:
            self.best[0] = (lower, self.rg.sets[0].mixture(sol.lam))
        if self.best[1] is None or up < self.best[1][0]:
            self.best[1] = (up, self.rg.sets[1].mixture(sol.mu))
        new_a = self.rg.add(0, br_a)[1]
        new_b = self.rg.add(1, br_b)[1]
        self.last = m
        self.converged = not (new_a or new_b)
        return m

    def best_mixtures(self) -> tuple[TeamMixture, TeamMixture, float, float]:
        """The best measured strategy of each team, with its exact bound."""
        return self.best[0][1], self.best[1][1], self.best[0][0], self.best[1][0]


def double_oracle(
    config,
    *,
    max_iterations: int = 1000,
    time_limit: float = 60.0,
    target_gap: float = 0.0,
    initial: Candidates | None = None,
) -> DoubleOracle:
    """Run :class:`DoubleOracle` until the gap of its restricted equilibrium reaches
    ``target_gap``, no new column appears, or a limit is hit. Returns the solver."""
    t0 = time.perf_counter()
    do = DoubleOracle(config, initial=initial)
    while do.iterations < max_iterations:
        m = do.iterate(time.perf_counter() - t0)
        if m.gap <= target_gap or do.converged or time.perf_counter() - t0 > time_limit:
            break
    return do
