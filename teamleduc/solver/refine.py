"""Optional refinement of an export: K signals per team, optimised member by member.

Why: an exported signal is a product of the members' behavioural strategies, built from the
regret minimiser's average (stratified signals, :mod:`.stratify`) or from pure strategies
(:mod:`.export`); neither is optimised as a product. This module optimises the per-signal
behaviour against the other team's whole belief DAG.

What (block-coordinate descent, per team, alternating members):

* start from the team's exported mixture (plus peeled candidates, up to ``K`` signals, unless
  both teams have the same equal weights: then the weights stay fixed so that the merged
  meta-strategy keeps K signals);
* fix one member's per-signal strategies; the other member's per-signal behavioural
  strategies and the signal weights are then a *perfect-recall* problem for the team (one
  member plays, the fixed member is part of the environment per signal), solved by
  regret matching (DCFR factors) against the other team, which itself runs DAG-CFR on its
  whole belief DAG (it may play any correlated strategy);
* after each block the averaged mixture is measured **exactly** (the other team's exact best
  response on its belief DAG) and the best mixture is kept; then the members swap roles.

A refined team mixture replaces the exported one only if its exact bound is better, and the
refined export is returned only if its exact gap is smaller, so the reported gap stays the
exact gap of what is written. The merged meta-strategy keeps at most ``max_signals`` signals
(:func:`teamleduc.submission.merge_team_mixtures`).

The per-seat passes are numba kernels over the public tree (one loop over nodes vectorised
over signals and private cards); the other team's updates reuse :func:`.dag.cfr_update`.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..infosets import infoset_tables
from .common import ProductStrategy, TeamMixture
from .dag import DagGame, ROW_DTYPE, cfr_update, flows, sweep
from .dag_cfr import dcfr
from .export import guaranteed_value

#: default number of signals a refined team mixture may use (before the merge cap)
DEFAULT_SIGNALS = 30
#: seconds per block below which refine_export uses fewer blocks
BLOCK_SECONDS = 20.0


@njit(cache=True)
def _member_pass(kind, children, actor, seat, id_of, term_index, cv, sigma, reg, V, pos_f, neg_f):
    """Per-signal CFR update of one member (``sigma``/``reg`` (K, n, 3)) against counterfactual
    terminal values ``cv`` (Z, K, R); fills ``V`` (N, K, R)."""
    N = kind.shape[0]
    K = cv.shape[1]
    R = cv.shape[2]
    for h in range(N - 1, -1, -1):
        if kind[h] == 2:
            z = term_index[h]
            for j in range(K):
                for x in range(R):
                    V[h, j, x] = cv[z, j, x]
        elif kind[h] == 0 and actor[h] == seat:
            for j in range(K):
                for x in range(R):
                    i = id_of[h, x]
                    ev = 0.0
                    for a in range(3):
                        c = children[h, a]
                        if c >= 0:
                            ev += sigma[j, i, a] * V[c, j, x]
                    V[h, j, x] = ev
                    tot = 0.0
                    nl = 0
                    for a in range(3):
                        c = children[h, a]
                        if c >= 0:
                            nl += 1
                            r = reg[j, i, a] + V[c, j, x] - ev
                            r *= pos_f if r > 0 else neg_f
                            reg[j, i, a] = r
                            tot += max(r, 0.0)
                    for a in range(3):
                        if children[h, a] >= 0:
                            sigma[j, i, a] = max(reg[j, i, a], 0.0) / tot if tot > 0 else 1.0 / nl
        else:
            for j in range(K):
                for x in range(R):
                    s = 0.0
                    for a in range(children.shape[1]):
                        c = children[h, a]
                        if c >= 0:
                            s += V[c, j, x]
                    V[h, j, x] = s


@njit(cache=True)
def _member_reach(parent, action, kind, actor, seat, id_of, sigma, out, cum, wj):
    """Reach (N, K, R) of one member's per-signal strategies; adds ``wj[j]`` x reach-weighted
    sigma to ``cum`` when ``wj`` is non-empty."""
    N, K, R = out.shape
    for j in range(K):
        for x in range(R):
            out[0, j, x] = 1.0
    acc = wj.shape[0] > 0
    for h in range(1, N):
        p = parent[h]
        if kind[p] == 0 and actor[p] == seat:
            a = action[h]
            for j in range(K):
                for x in range(R):
                    i = id_of[p, x]
                    out[h, j, x] = out[p, j, x] * sigma[j, i, a]
                    if acc:
                        cum[j, i, a] += wj[j] * out[p, j, x] * sigma[j, i, a]
        else:
            for j in range(K):
                for x in range(R):
                    out[h, j, x] = out[p, j, x]


_NONE = np.zeros(0)


class _TeamRefiner:
    def __init__(self, game: DagGame, team: int, sig: dict, weights: np.ndarray,
                 fixed_weights: bool = False):
        self.game, self.team = game, team
        self.fixed_weights = fixed_weights
        self.tree = game.tree
        self.tabs = infoset_tables(self.tree)
        self.seats = game.dags[team].seats
        self.sig = {s: np.ascontiguousarray(sig[s], dtype=np.float64) for s in self.seats}
        self.p = np.asarray(weights, dtype=np.float64) / np.sum(weights)
        self.K = len(self.p)
        self.R = game.config.num_ranks
        self.Z = len(self.tree.terminals)

    def _reach(self, s, sg, out=None, cum=_NONE, wj=_NONE):
        t = self.tree
        if out is None:
            out = np.empty((t.num_nodes, self.K, self.R))
        _member_reach(t.parent, t.action, t.kind, t.actor, s, self.tabs[s].id_of, sg, out,
                      cum if cum.size else sg, wj)
        return out

    def _team_reach(self, p, r0, r1):
        return np.einsum("j,zja,zjb->zab", p, r0, r1).reshape(self.Z, self.R * self.R)

    def block(self, free_k: int, deadline: float, max_iters: int = 10 ** 9) -> None:
        """Optimise member ``free_k``'s strategies and the weights until ``deadline``."""
        g, t, team = self.game, self.tree, self.team
        term = t.terminals
        free, fixed = self.seats[free_k], self.seats[1 - free_k]
        od = g.dags[1 - team]
        oreg = np.zeros(od.num_rows, ROW_DTYPE)
        ocum = np.zeros(od.num_rows, ROW_DTYPE)
        osig = od.uniform_sigma()
        olast = np.zeros(0, ROW_DTYPE)
        oV, oF = od.new_values(), od.new_values()
        disc = dcfr()
        rf = np.ascontiguousarray(self._reach(fixed, self.sig[fixed])[term])
        sg = self.sig[free].copy()
        reg = np.zeros_like(sg)
        cum = np.zeros_like(sg)
        pp = self.p.copy()
        regp = np.zeros(self.K)
        cump = np.zeros(self.K)
        r = np.empty((t.num_nodes, self.K, self.R))
        V = np.empty_like(r)
        sw = sweep(t)
        id_of = self.tabs[free].id_of

        def team_reach(rfree):
            return self._team_reach(pp, rf, rfree) if free_k == 1 else self._team_reach(pp, rfree, rf)

        TA = team_reach(self._reach(free, sg, r)[term])
        it = 0
        while it < max_iters and (it == 0 or time.perf_counter() < deadline):
            it += 1
            pos_f, neg_f = disc.factors(it)
            w = float(it) ** 2
            cfr_update(g, 1 - team, TA, oV, oreg, osig, olast, pos_f, neg_f, False)
            TB = flows(od, osig, oF, ocum, w)
            W = g.weights(team, TB).reshape(self.Z, self.R, self.R)
            if free_k == 1:
                cv = np.einsum("zab,zja->zjb", W, rf)
            else:
                cv = np.einsum("zab,zjb->zja", W, rf)
            _member_pass(t.kind, t.children, t.actor, free, id_of, sw.term_index,
                         np.ascontiguousarray(cv), sg, reg, V, pos_f, neg_f)
            vals = V[0].sum(axis=1)
            regp = regp + vals - pp @ vals
            regp *= np.where(regp > 0, pos_f, neg_f)
            self._reach(free, sg, r, cum, w * pp)
            cump += w * pp
            if not self.fixed_weights:
                q = np.maximum(regp, 0.0)
                pp = q / q.sum() if q.sum() > 0 else np.full(self.K, 1.0 / self.K)
            TA = team_reach(r[term])
        tot = cum.sum(axis=2, keepdims=True)
        self.sig[free] = np.where(tot > 0, cum / np.where(tot > 0, tot, 1.0), self.sig[free])
        if not self.fixed_weights:
            self.p = cump / cump.sum()

    def mixture(self, p, sig) -> TeamMixture:
        keep = np.flatnonzero(p > 0)
        items = tuple(ProductStrategy(self.seats, {s: sig[s][j].copy() for s in self.seats})
                      for j in keep)
        w = p[keep] / p[keep].sum()
        return TeamMixture(self.team, self.seats, w, items)


def refine_team(game: DagGame, mixture: TeamMixture, bound: float, *, signals: int,
                time_limit: float, extra=(), blocks: int = 3, progress=None,
                max_iters: int = 10 ** 9, fixed_weights: bool = False):
    """Refine one team's mixture for ``time_limit`` seconds with at most ``signals`` signals.

    ``bound`` is the exact guaranteed value of ``mixture``; ``extra`` are further team
    strategies (e.g. peels) to fill up to ``signals`` signals. ``fixed_weights`` keeps the
    signal weights (only the per-signal behaviour moves), e.g. to keep both teams' equal
    weights aligned in the merged meta-strategy. Returns ``(bound, mixture)``,
    the input unchanged unless a strictly better exactly measured mixture was found."""
    team = mixture.team
    tabs = infoset_tables(game.tree)
    sizes = {s: tabs[s].size for s in mixture.seats}
    order = np.argsort(-mixture.weights, kind="stable")[:signals]
    strat = mixture.strategies(sizes)
    sig = {s: [strat[s][j] for j in order] for s in mixture.seats}
    w = list(mixture.weights[order])
    if extra:
        wmin = min(w) if w else 1.0
        tm = TeamMixture(team, mixture.seats, np.ones(len(extra)), tuple(extra))
        es = tm.strategies(sizes)
        for j in range(len(extra)):
            if len(w) >= signals:
                break
            for s in mixture.seats:
                sig[s].append(es[s][j])
            w.append(0.1 * wmin)
    sig = {s: np.array(v) for s, v in sig.items()}
    tr = _TeamRefiner(game, team, sig, np.array(w), fixed_weights)
    t0 = time.perf_counter()
    best = (bound, mixture)
    better = (lambda a, b: a > b) if team == 0 else (lambda a, b: a < b)
    for b in range(blocks):
        free_k = 1 - (b % 2)
        deadline = t0 + time_limit * (b + 1) / blocks
        if time.perf_counter() >= deadline and b > 0:
            break
        tr.block(free_k, deadline, max_iters)
        mix = tr.mixture(tr.p, tr.sig)
        val = guaranteed_value(game, mix)    # of the mixture as written (zero weights dropped)
        if progress is not None:
            progress(team, b, val)
        if better(val, best[0]):
            best = (val, mix)
    return best


def refine_export(game: DagGame, ex, *, max_signals: int, time_limit: float, candidates=None,
                  signals: int = DEFAULT_SIGNALS, progress=None, max_iters: int = 10 ** 9):
    """The export ``ex`` (:class:`.export.ExportResult`) refined for ``time_limit`` seconds
    (half per team); returned only if its exact gap is smaller, else ``ex`` itself."""
    from .export import ExportResult, merge_submission
    t0 = time.perf_counter()
    mix = list(ex.mixtures)
    bounds = [ex.lower, ex.upper]
    # equal weights on both sides (stratified signals) merge into K signals: keep them so
    aligned = (mix[0].size == mix[1].size and np.array_equal(mix[0].weights, mix[1].weights))
    for team in (0, 1):
        cap = mix[team].size if aligned else min(signals, max_signals + 1 - mix[1 - team].size)
        if cap < 1 or len(game.dags[team].seats) != 2:
            continue
        extra = []
        if candidates is not None and not aligned:
            have = {it.key() for it in mix[team].items}
            extra = [s for s in candidates.of_kind(team, "peel") if s.key() not in have]
        budget = (time_limit - (time.perf_counter() - t0)) / (2 - team)
        # a block needs about 20 s on team-leduc-2025 to improve on its start: fewer, longer
        # blocks when time is short
        blocks = max(1, min(3, int(budget // BLOCK_SECONDS)))
        bounds[team], mix[team] = refine_team(game, mix[team], bounds[team], signals=cap,
                                              time_limit=max(budget, 0.0), extra=extra,
                                              blocks=blocks, progress=progress,
                                              max_iters=max_iters, fixed_weights=aligned)
    if bounds[1] - bounds[0] >= ex.gap:
        return ex
    sub = merge_submission(game, tuple(mix))
    assert sub.num_signals <= max_signals
    return ExportResult(mixtures=tuple(mix), lower=float(bounds[0]), upper=float(bounds[1]),
                        rounds=ex.rounds, columns=ex.columns,
                        seconds=ex.seconds + time.perf_counter() - t0, submission=sub)
