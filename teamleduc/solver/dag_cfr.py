"""Regret minimisation on both teams' belief DAGs: CFR+, DCFR and predictive CFR+.

Method. Each team's correlated strategies form the flow polytope of its team belief DAG
(Zhang, Farina and Sandholm, "Team belief DAG: generalizing the sequence form to team games
for fast computation of correlated team max-min equilibria via regret minimization", ICML
2023); the two-team game is a bilinear saddle point over the two polytopes. Counterfactual
regret minimisation (Zinkevich et al., NeurIPS 2007) runs on the DAG exactly as on a tree: a
DAG decision point is a (public node, belief) pair where a member acts, its actions are the
prescriptions (rows of :func:`teamleduc.dag.prescription_table`), and its counterfactual
value of a row is ``sum_a V(child_a, belief through a)``. One iteration per team is

1. ``W`` = the team's payoff weights against the other team's current reach (exact);
2. one bottom-up pass: values under the current strategy, then for every row
   ``R <- R + (u_row - ev)``, discounted, and the new strategy by regret matching;
3. one top-down pass: the flow of the new strategy, added (weight ``t**gamma``) to the
   cumulative strategy, and the team's terminal reach for the other team's next ``W``.

Updates alternate between the teams. The variants differ only by a frozen
:class:`Discounting` (Brown and Sandholm, "Solving imperfect-information games via discounted
regret minimization", AAAI 2019: after each update positive regrets are multiplied by
``t**alpha / (t**alpha + 1)``, negative ones by ``t**beta / (t**beta + 1)``, and iteration t
weighs ``t**gamma`` in the average):

* CFR+ (Tammelin 2014): ``alpha = inf, beta = -inf`` (regrets floored at 0, regret matching+);
* DCFR: ``alpha = 1.5, beta = 0, gamma = 2`` as published; the solver's ``dcfr`` averages with
  ``gamma = 3`` (:data:`SOLVER_DCFR_GAMMA`);
* predictive CFR+ (Farina, Kroer and Sandholm, AAAI 2021): CFR+ whose strategy is regret
  matching on ``R + m`` with the prediction ``m`` = the last instantaneous regret.

The average strategies converge to a TMECor; their exact saddle-point gap is measured with the
exact best-response DP on each DAG (:func:`teamleduc.dag.best_values`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..dag import (
    ROW_DTYPE,
    DagGame,
    best_values,
    cfr_update,
    dag_game,
    extract_pure,
    flows,
    marginals,
    match_regrets,
    normalize,
)
from .candidates import Candidates
from .measurement import Measurement
from .mixtures import ProductStrategy


@dataclass(frozen=True)
class Discounting:
    """How a regret minimiser discounts (see the module docstring).

    alpha, beta : exponents of the factors ``t**a / (t**a + 1)`` applied after iteration t to
        positive and negative cumulative regrets (``inf`` keeps, ``-inf`` zeroes).
    gamma : iteration t weighs ``t**gamma`` in the average strategy.
    predictive : regret matching on ``R + last instantaneous regret`` (predictive CFR+).
    """

    alpha: float = math.inf
    beta: float = -math.inf
    gamma: float = 1.0
    predictive: bool = False

    def factors(self, t: int) -> tuple[float, float]:
        return _factor(self.alpha, t), _factor(self.beta, t)

    def weight(self, t: int) -> float:
        return float(t) ** self.gamma

    def to_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "beta": self.beta,
            "gamma": self.gamma,
            "predictive": self.predictive,
        }


def _factor(e: float, t: int) -> float:
    if e == math.inf:
        return 1.0
    if e == -math.inf:
        return 0.0
    p = float(t) ** e
    return p / (p + 1.0)


def cfr_plus(gamma: float = 2.0) -> Discounting:
    """CFR+ (regret matching+, alternating updates), average weights ``t**gamma``."""
    return Discounting(math.inf, -math.inf, gamma, False)


def dcfr(alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0) -> Discounting:
    """Discounted CFR with the paper's recommended (1.5, 0, 2)."""
    return Discounting(alpha, beta, gamma, False)


#: the averaging exponent of the solver's ``dcfr``: iteration t weighs t**3 instead of the
#: paper's t**2. At equal iterations the averages' exact gap is 10-15 % smaller on
#: team-leduc-2025 (200 to 1,500 iterations) and team-leduc (0.88x at 140, about
#: ``make run``'s count), no worse on leduc, and 1.14x larger on small-team-leduc at 2,000
#: iterations (``python -m benchmarks discounting``)
SOLVER_DCFR_GAMMA = 3.0


#: :func:`power_sum` adds the terms one by one, as :meth:`RegretMinimizer.iterate` does, up to
#: this many iterations (a fraction of a second), and uses Euler-Maclaurin's formula beyond
EXACT_POWER_SUM = 1_000_000


def power_sum(t: int, gamma: float) -> float:
    """``sum_{s=1..t} s**gamma``: the total weight of t iterations' averages. Exactly as
    :meth:`RegretMinimizer.iterate` accumulates it for ``t <=`` :data:`EXACT_POWER_SUM`;
    beyond, to about 1e-12 relative for ``gamma >= 1`` (Euler-Maclaurin; a smaller exponent
    misses its constant term, about 5e-7 relative at gamma 0), in constant time, whatever
    ``t`` a checkpoint holds."""
    if t <= EXACT_POWER_SUM:
        total = 0.0
        for s in range(1, t + 1):
            total += float(s) ** gamma
        return total
    x = float(t)
    return x ** (gamma + 1) / (gamma + 1) + x**gamma / 2 + gamma * x ** (gamma - 1) / 12


def pcfr_plus(gamma: float = 2.0) -> Discounting:
    """Predictive CFR+."""
    return Discounting(math.inf, -math.inf, gamma, True)


#: how far (absolute, in probability) a checkpoint's average terminal reach may be from the
#: reach of its float32 cumulative strategy after t iterations: ``1e-5 + 1e-7 * sqrt(t)``. The
#: two differ by the float32 rounding of the cumulative strategies, which grows about as
#: sqrt(t): 1.8e-7, 4.9e-7 and 2.3e-6 after 1,000, 10,000 and 100,000 iterations of leduc
#: (5.4e-7 after 10,000 of tiny-team-leduc), well inside; a file altered by more is refused
#: (the bounds of the average would be off by about as much)
REACH_SUM_TOLERANCE = (1e-5, 1e-7)

#: method name -> Discounting (the names ``solve`` accepts for this module)
VARIANTS = {"cfr+": cfr_plus(), "dcfr": dcfr(gamma=SOLVER_DCFR_GAMMA), "pcfr+": pcfr_plus()}


class RegretMinimizer:
    """Regret minimisation on both teams' belief DAGs with a fixed :class:`Discounting`.

    State (per team k): ``reg[k]``, ``cum[k]``, ``sigma[k]`` (and ``last[k]`` when
    predictive), one entry per DAG row; ``reach[k]`` (Z, X) terminal reach of the current
    strategy; ``reach_sum[k]`` (Z, X) the sum of the iterates' terminal reaches, each weighed
    as its flow is in ``cum[k]``. ``t`` counts completed iterations.

    The average's terminal reach is ``reach_sum / (sum of the weights)``: reach is linear in
    the flow, so this is the reach of the average strategy, kept in float64 at the cost of one
    (Z, X) update per iteration, where recomputing it from ``cum`` costs a normalisation and a
    flow pass over every row (most of an exact measurement's time on team-leduc).
    """

    def __init__(self, config, discounting: Discounting, name: str = "dag-cfr"):
        self.game: DagGame = dag_game(config)
        self.discounting = discounting
        self.name = name
        g = self.game
        self.t = 0
        self.reg, self.cum, self.sigma, self.last = [], [], [], []
        self.reach, self.reach_sum = [], []
        self.weight_sum = 0.0  # sum of the weights of iterations 1..t
        # values and flows: scratch of every pass, (N + 1, B + 1) float64 per team (179 MB
        # each on team-leduc), allocated on first use and dropped by release_scratch()
        self._scratch = None
        for d in g.dags:
            self.reg.append(np.zeros(d.num_rows, ROW_DTYPE))
            self.cum.append(np.zeros(d.num_rows, ROW_DTYPE))
            self.sigma.append(d.uniform_sigma())
            self.last.append(np.zeros(d.num_rows if discounting.predictive else 0, ROW_DTYPE))
        for k, d in enumerate(g.dags):
            self.reach.append(flows(d, self.sigma[k], self.F[k]))
            self.reach_sum.append(np.zeros_like(self.reach[k]))

    @property
    def V(self) -> list[np.ndarray]:
        """Per team, the values scratch of the bottom-up passes (allocated on first use)."""
        return self._values_and_flows()[0]

    @property
    def F(self) -> list[np.ndarray]:
        """Per team, the flows scratch of the top-down passes (allocated on first use)."""
        return self._values_and_flows()[1]

    def _values_and_flows(self) -> tuple[list, list]:
        if self._scratch is None:
            dags = self.game.dags
            self._scratch = ([d.new_values() for d in dags], [d.new_values() for d in dags])
        return self._scratch

    def release_scratch(self) -> None:
        """Drop the values and flows scratch (their contents are never read again: every pass
        writes before it reads); the next pass allocates them anew. The refinement calls this
        so that the two teams' scratch (716 MB on team-leduc) is not held beside its own."""
        self._scratch = None

    @property
    def iterations(self) -> int:
        return self.t

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` iterations (alternating updates: team A, then team B)."""
        g, disc = self.game, self.discounting
        for _ in range(n):
            self.t += 1
            pos_f, neg_f = disc.factors(self.t)
            w = disc.weight(self.t)
            self.weight_sum += w
            for k, d in enumerate(g.dags):
                cfr_update(
                    g,
                    k,
                    self.reach[1 - k],
                    self.V[k],
                    self.reg[k],
                    self.sigma[k],
                    self.last[k],
                    pos_f,
                    neg_f,
                    disc.predictive,
                )
                self.reach[k] = flows(d, self.sigma[k], self.F[k], self.cum[k], w)
                self.reach_sum[k] += w * self.reach[k]

    def average_sigma(self, team: int) -> np.ndarray:
        """The average behavioural DAG strategy of ``team`` (a copy)."""
        return normalize(self.game.dags[team], self.cum[team])

    def average_reach(self, team: int) -> np.ndarray:
        """(Z, X) terminal reach of the average strategy: the weighted mean of the iterates'
        reaches (a new array)."""
        if self.t == 0:
            return self.reach[team].copy()
        return self.reach_sum[team] / self.weight_sum

    def _reach_of_cum(self, team: int) -> np.ndarray:
        """(Z, X) terminal reach of the behavioural strategy of ``cum[team]`` (uses the team's
        flow scratch): the average's reach as the float32 cumulative strategy holds it."""
        return flows(self.game.dags[team], self.average_sigma(team), self.F[team])

    def measure(self, elapsed: float = 0.0, candidates: Candidates | None = None) -> Measurement:
        """Exact bounds of the average strategies; their pure best responses go to
        ``candidates``."""
        g = self.game
        TA, TB = self.average_reach(0), self.average_reach(1)
        up = best_values(g, 0, TB, self.V[0])
        if candidates is not None:
            candidates.add(0, extract_pure(g.dags[0], V=self.V[0]))
        vb = best_values(g, 1, TA, self.V[1])
        if candidates is not None:
            candidates.add(1, extract_pure(g.dags[1], V=self.V[1]))
        return Measurement(self.t, elapsed, -vb, up, "average")

    def add_export_candidates(
        self, candidates: Candidates, peel_count: int = 400, time_limit: float = float("inf")
    ) -> None:
        """Add export candidates drawn from the average strategies: pure strategies peeled
        from the average flow (at most ``peel_count`` per team, within ``time_limit`` seconds
        for both teams), and the product of the members' average marginals, as a new batch
        (the export reads the newest batch: :meth:`.candidates.Candidates.newest`)."""
        from .export import peel

        candidates.new_batch()
        for k, d in enumerate(self.game.dags):
            if self.t == 0:
                continue
            for pure in peel(d, self.cum[k], peel_count, time_limit=time_limit / 2):
                candidates.add(k, pure, "peel")
            sig = self.average_sigma(k)
            flows(d, sig, self.F[k])
            candidates.add(k, ProductStrategy(d.seats, marginals(d, sig, self.F[k])), "product")

    # ------------------------------------------------------------------ checkpoints

    def state(self) -> dict[str, np.ndarray]:
        """The arrays a checkpoint keeps: regrets, cumulative strategies, (predictive) last
        regrets and the averaging exponent ``gamma`` the cumulative strategies were made
        with; the current strategy is recomputed from them (a third less to write)."""
        out = {"t": np.array(self.t), "gamma": np.array(float(self.discounting.gamma))}
        for k in (0, 1):
            out[f"reg{k}"] = self.reg[k]
            out[f"cum{k}"] = self.cum[k]
            out[f"last{k}"] = self.last[k]
            out[f"rsum{k}"] = self.reach_sum[k]
        out["wsum"] = np.array(self.weight_sum)
        return out

    def load_state(self, state) -> None:
        g = self.game
        for k, _d in enumerate(g.dags):
            for name, arr in (
                ("reg", self.reg),
                ("cum", self.cum),
                ("last", self.last),
            ):
                a = np.asarray(state[f"{name}{k}"], dtype=ROW_DTYPE)
                if a.shape != arr[k].shape:
                    raise ValueError(
                        f"checkpoint array {name}{k} has shape {a.shape}, "
                        f"expected {arr[k].shape} (another game or method?)"
                    )
                arr[k][...] = a
        self.t = int(state["t"])
        if self.t < 0:
            raise ValueError(f"checkpoint iteration count t = {self.t} is negative")
        gamma = self.discounting.gamma
        saved = float(state.get("gamma", gamma))
        scale = 1.0
        if saved != gamma and self.t > 0:
            # averages made with another exponent (a checkpoint from before 0.4.7: t**2) go
            # on with this one: scaled to this exponent's total weight, so that the next
            # iteration weighs against them as against this exponent's own history
            scale = power_sum(self.t, gamma) / power_sum(self.t, saved)
            for k, c in enumerate(self.cum):
                np.multiply(c, scale, out=c, casting="unsafe")
                if not np.isfinite(c).all():
                    raise ValueError(
                        f"checkpoint array cum{k} overflows float32 once rescaled from averaging "
                        f"exponent {saved:g} to {gamma:g}"
                    )
        if "wsum" in state:  # as iterate() summed it, so that a resume is exact
            wsum = float(state["wsum"])
            # t <= EXACT_POWER_SUM: power_sum adds the same terms in the same order as
            # iterate() did, so a file's sum is it to the last bit (1e-12: any platform);
            # beyond, the running sum's rounding (about t * 1e-16) against the formula
            expected = power_sum(self.t, saved)
            close = 1e-12 if self.t <= EXACT_POWER_SUM else 1e-6
            if not abs(wsum - expected) <= close * expected:
                raise ValueError(
                    f"checkpoint weight sum {wsum!r} is not that of {self.t} iterations "
                    f"weighed t**{saved:g} ({expected!r})"
                )
            self.weight_sum = wsum * scale
        else:  # a checkpoint from before 0.4.8
            self.weight_sum = power_sum(self.t, gamma)
        pred = self.discounting.predictive
        for k, d in enumerate(g.dags):
            self.sigma[k][...] = match_regrets(d, self.reg[k], self.last[k], pred)
            self.reach[k] = flows(d, self.sigma[k], self.F[k])
        for k in (0, 1):
            self.reach_sum[k][...] = self._loaded_reach_sum(state, k, scale)

    def _loaded_reach_sum(self, state, k: int, scale: float) -> np.ndarray:
        """Team ``k``'s ``reach_sum`` from a checkpoint's ``state``: its ``rsum`` array, which
        must agree with the reach of its cumulative strategy to :data:`REACH_SUM_TOLERANCE`
        (else ValueError: the file was altered), or, in a checkpoint from before 0.4.8,
        rebuilt from the cumulative strategy."""
        if self.t == 0:
            return np.zeros_like(self.reach[k])
        of_cum = self._reach_of_cum(k)
        if f"rsum{k}" not in state:
            rebuilt = of_cum * self.weight_sum
            if not np.isfinite(rebuilt).all():
                raise ValueError(f"checkpoint array cum{k} gives a non-finite average reach")
            return rebuilt
        rsum = np.asarray(state[f"rsum{k}"], dtype=np.float64) * scale
        if rsum.shape != of_cum.shape:
            raise ValueError(
                f"checkpoint array rsum{k} has shape {rsum.shape}, expected {of_cum.shape}"
            )
        off = float(np.max(np.abs(rsum / self.weight_sum - of_cum), initial=0.0))
        base, per_root = REACH_SUM_TOLERANCE
        if not off <= base + per_root * math.sqrt(self.t):
            raise ValueError(
                f"checkpoint array rsum{k} (the average's terminal reach) is not the reach of "
                f"its cumulative strategy cum{k} (they differ by {off:.3g}; the file was altered)"
            )
        return rsum
