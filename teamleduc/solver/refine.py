"""Refinement of an export: K signals per team, optimised member by member.

Why: an exported signal is a product of the members' behavioural strategies, built from the
regret minimiser's average (stratified signals, :mod:`.stratify`) or from pure strategies
(:mod:`.export`); neither is optimised as a product. This module optimises the per-signal
behaviour against the other team's whole belief DAG.

What (block-coordinate ascent, per team, alternating members):

* start from the team's exported mixture (plus peeled candidates, up to ``K`` signals). A
  stratified export (both teams the same K equal weights) is refined instead on free
  weights: for the merged CSV submission, one weight vector shared by both teams (the
  leader refines its K signals with free weights, the follower is stratified on them and
  refined with them fixed, :func:`shared_weights`); for the 2025 team zips, each team its
  own K signals (the solver exports those directly, :func:`halves_export`). Equal weights
  merge into K signals but cannot move. Fixed weights, when asked for, are returned bit
  for bit;
* fix one member's per-signal strategies; the other member's per-signal behavioural
  strategies (and the signal weights unless fixed) are then a *perfect-recall* problem for the
  team (one member plays, the fixed member is part of the environment per signal), solved by
  regret matching (DCFR factors) against the other team, which itself runs DAG-CFR on its
  whole belief DAG (it may play any correlated strategy) from the solver's regrets when given;
* a block starts warm: the free member's regrets are set so that regret matching reproduces
  its current strategy (:data:`WARM_ITERS`), and the other team's regret minimiser goes on
  from the previous block;
* a block lasts :data:`BLOCK_ITERS` iterations (or the rest of the time when another block
  would not fit); its average is measured **exactly** (the other team's exact best response on
  its belief DAG) every :data:`CHECK_EVERY` iterations and the best one is kept; a block that
  does not beat the best mixture so far is undone, and that member's next block is twice as
  long (the same block again would likely fail again); then the members swap roles.

A refined team mixture replaces the exported one only if its exact bound is better, and the
refined export is returned only if its exact gap is smaller, so the reported gap stays the
exact gap of what is written. The merged meta-strategy keeps at most ``max_signals`` signals
(:func:`teamleduc.files.model.merge_team_mixtures`). :func:`auto_seconds` is the solver's
default share of the time limit.

The per-member passes are numba kernels over the public tree (:mod:`.refine_kernels`), one signal per thread, arrays
signal-major (K, nodes, ranks), skipping the nodes the fixed member never reaches in that
signal; the other team's updates reuse :func:`teamleduc.dag.cfr_update`. One iteration on
team-leduc-2025 with 100 signals takes 0.12 s on 2 cores.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from ..dag import ROW_DTYPE, DagGame, best_values, cfr_update, flows, sweep
from ..infosets import infoset_tables
from .common import ProductStrategy, TeamMixture
from .dag_cfr import dcfr
from .export import (
    ExportResult,
    fits,
    from_alternatives,
    guaranteed_value,
    measured,
    merge_submission,
)
from .refine_kernels import _member_pass, _member_reach, _member_values, _pair_reach

#: default number of signals a refined team mixture may use (before the merge cap)
DEFAULT_SIGNALS = 30
#: share of the time limit that refinement gets by default (:func:`auto_seconds`); on
#: team-leduc-2025, 78 s split as 18 s of solving and 2 x 30 s of refining exported a gap of
#: 0.034, as 30 + 2 x 24 s 0.041 and as 55 + 2 x 12 s 0.059
AUTO_SHARE = 0.5
#: ... when it buys each team at least this many refinement iterations (by
#: :func:`iteration_seconds`). Was 100; with 40, team-leduc refines from about 4 minutes:
#: ``solve --time-limit 300`` exported 0.303 without refinement, 0.184 with 150 s of it
#: (0.242 with 100 s, 0.302 with 200 s); team-leduc-2025 in 20 s 0.114 (0.165 without)
AUTO_MIN_ITERS = 40
#: ... and at least this many seconds in all: below, the solver's share is too short too
#: (small-team-leduc, 1.6 s limit: 0.144 with 0.6 s of refinement, 0.039 without; 3 s
#: limit: 8.4e-3 with 1.3 s, 3.3e-2 without)
AUTO_MIN_SECONDS = 1.0
#: ... on games whose DAGs have at least this many rows. Below, the LP export is exact
#: (tiny-team-leduc, 8,832 rows: gaps below 1e-6); small-team-leduc (99,008 rows) is not:
#: ``solve --time-limit 30`` exported 3.1e-2 without refinement, 1.5e-3 with 15 s of it
AUTO_MIN_ROWS = 50_000
#: seconds per (signal x public node) and per opponent DAG row of one refinement iteration,
#: measured on the 2-core machine (team-leduc-2025, 100 signals: 0.12 s; team-leduc: 1.5 s)
_SECONDS_PER_SIGNAL_NODE, _SECONDS_PER_ROW = 2.4e-8, 1.8e-8
#: seconds per DCFR iteration and DAG row of the machine those two constants describe: on a
#: quiet 2-core machine (2026-11-25, team-leduc-2025) DCFR took 1.57e-8 and a refinement
#: iteration 0.43 times :func:`iteration_seconds` (0.033 s with 50 signals, 0.051 s with 100),
#: so the constants hold where DCFR takes 1.57e-8 / 0.43 (:func:`refined_team_signals`)
_DCFR_SECONDS_PER_ROW = 3.6e-8
#: iterations per block (warm started). On team-leduc-2025 with free weights over 50 + 51
#: signals, 15 s per team exported a gap of 0.044 with blocks of 200, 0.046 with 100 and
#: 0.068 with 50; 75 s per team 0.0147 with 200, 0.0185 with 100 and 0.0167 with 400 (with
#: fixed weights over 100 signals and 24 s per team, 100 had beaten 60, 160 and 40)
BLOCK_ITERS = 200
#: the team whose weights lead in the shared-weights CSV export (:func:`shared_weights`):
#: on team-leduc A leading exported 0.0753 and B 0.0821; on team-leduc-2025 each led better
#: in some paired runs (docs/solver-support.md)
SHARED_LEADER = 0
#: a block measures its average exactly every this many iterations and keeps the best
CHECK_EVERY = 10
#: warm start of a block: the free member's regrets start proportional to its current
#: strategy, at this many times each information set's first instantaneous regret (0: cold)
WARM_ITERS = 10.0
#: ... and the signal weights (when free) likewise start from the current weights (before,
#: they restarted from zero regrets in every block; measured neutral within the run-to-run
#: noise on team-leduc-2025: 0.0141 against 0.0147 after 2 x 75 s, 0.0442 both after 2 x 15 s)
WARM_WEIGHTS = True


_NONE = np.zeros(0)


def _better(team: int):
    """``better(a, b)``: is bound ``a`` better than ``b`` for ``team`` (A maximises)?"""
    return (lambda a, b: a > b) if team == 0 else (lambda a, b: a < b)


class _TeamRefiner:
    def __init__(
        self, game: DagGame, team: int, sig: dict, weights: np.ndarray, fixed_weights: bool = False
    ):
        self.game, self.team = game, team
        self.fixed_weights = fixed_weights
        #: the other team's (regrets, strategy), owned: each block takes them over and
        #: leaves its own for the next one
        self.opponent = None
        self.tree = game.tree
        self.tabs = infoset_tables(self.tree)
        self.seats = game.dags[team].seats
        self.sig = {s: np.ascontiguousarray(sig[s], dtype=np.float64) for s in self.seats}
        self.given = np.asarray(weights, dtype=np.float64)
        self.p = self.given / np.sum(weights)
        self.K = len(self.p)
        self.R = game.config.num_ranks
        self.Z = len(self.tree.terminals)

    def _reach(self, s, sg, out=None, cum=_NONE, wj=_NONE):
        t = self.tree
        if out is None:
            out = np.empty((self.K, t.num_nodes, self.R))
        _member_reach(
            t.parent,
            t.action,
            t.kind,
            t.actor,
            s,
            self.tabs[s].id_of,
            sg,
            out,
            cum if cum.size else sg,
            wj,
        )
        return out

    def _team_reach(self, p, rfix, rfree, free_second):
        """(Z, R*R) team terminal reach (see :func:`_pair_reach`)."""
        out = np.empty((self.Z, self.R * self.R))
        _pair_reach(p, rfix, rfree, self.tree.terminals, free_second, out)
        return out

    def block(
        self,
        free_k: int,
        deadline: float,
        max_iters: int = 10**9,
        iters: int | None = None,
        warm: float = WARM_ITERS,
        stop: Callable[[], bool] | None = None,
    ) -> float:
        """Optimise member ``free_k``'s strategies (and the weights unless fixed) until
        ``deadline`` or ``max_iters`` iterations. With ``iters``, stop after that many unless
        the time left would not hold 60 % of another such block (then go on to the deadline).
        The block's average is measured exactly every :data:`CHECK_EVERY` iterations and at
        the end; the best one is kept and its exact value returned (early averages of a block
        are much worse than its start). ``warm`` > 0 starts the free member's regrets so that
        regret matching reproduces its current strategy (:data:`WARM_ITERS`). ``stop()`` true
        ends the block after the current iteration (Ctrl-C in the solver)."""
        g, t, team = self.game, self.tree, self.team
        term = t.terminals
        free, fixed = self.seats[free_k], self.seats[1 - free_k]
        od = g.dags[1 - team]
        if self.opponent is not None:
            (oreg, osig), self.opponent = self.opponent, None
        else:
            oreg = np.zeros(od.num_rows, ROW_DTYPE)
            osig = od.uniform_sigma()
        olast = np.zeros(0, ROW_DTYPE)
        oV, oF = od.new_values(), od.new_values()
        disc = dcfr()
        # the fixed member's reach stays float64 (the exact checks use it); the free member's
        # iterates and the counterfactual values are float32 (half the memory on team-leduc)
        V = np.empty((self.K, t.num_nodes, self.R))
        rf = np.ascontiguousarray(self._reach(fixed, self.sig[fixed], V)[:, term])
        live = V[:, :, 0] > 0  # (K, N): nodes the fixed member reaches
        for x in range(1, self.R):
            live |= V[:, :, x] > 0
        r = np.empty((self.K, t.num_nodes, self.R), np.float32)
        sg = self.sig[free].copy()
        reg = np.zeros_like(sg)
        cum = np.zeros_like(sg)
        pp = self.p.copy()
        regp = np.zeros(self.K)
        cump = np.zeros(self.K)
        cv = np.empty((self.K, self.Z, self.R), np.float32)
        sw = sweep(t)
        id_of = self.tabs[free].id_of

        def team_reach(rfree, weights=None):
            q = pp if weights is None else weights
            return self._team_reach(q, rf, rfree, free_k == 1)

        TA = team_reach(self._reach(free, sg, r))

        def member_values():
            """``cv``: the free member's terminal values against the other team's current
            strategy (its flow) and the fixed member."""
            W = g.weights(team, flows(od, osig, oF)).reshape(self.Z, self.R, self.R)
            _member_values(W, rf, free_k == 1, cv)

        if warm > 0:
            # regrets proportional to the current strategy make it the first iterate; their
            # scale (warm x the information set's largest first regret) sets how fast it
            # moves. ``cum`` (zero until the first iteration) is the scratch: no extra arrays
            member_values()
            cum[:] = sg
            _member_pass(
                t.kind,
                t.children,
                t.actor,
                free,
                id_of,
                sw.term_index,
                cv,
                cum,
                reg,
                V,
                1.0,
                1.0,
                live,
            )
            np.abs(reg, out=cum)
            scale = cum.max(axis=2, keepdims=True)
            np.multiply(sg, np.where(scale > 0, warm * scale, 1e-300), out=reg)
            cum.fill(0.0)
            if WARM_WEIGHTS and not self.fixed_weights:
                # the same for the signal weights: they start where they are
                vals = V[:, 0].sum(axis=1)
                first = float(np.max(np.abs(vals - pp @ vals)))
                regp = pp * (warm * first if first > 0 else 1e-300)
        better = _better(team)
        best_val, best = None, None
        oVm = od.new_values()

        def check():
            """Measure the block's average so far exactly; keep it if it is the best."""
            nonlocal best_val, best
            tot = cum.sum(axis=2, keepdims=True)
            avg = self.sig[free].copy()  # where the block never reached: as before
            np.divide(cum, tot, out=avg, where=tot > 0)
            pa = pp if self.fixed_weights else cump / cump.sum()
            # V is scratch here (the next member pass overwrites all of it)
            bv = best_values(g, 1 - team, team_reach(self._reach(free, avg, V), pa), oVm)
            val = -bv if team == 0 else bv
            if best_val is None or better(val, best_val):
                best_val, best = val, (avg, pa.copy())

        it = 0
        t_start = time.perf_counter()
        while it < max_iters and (
            it == 0 or (time.perf_counter() < deadline and not (stop is not None and stop()))
        ):
            if iters is not None and it >= iters:
                now = time.perf_counter()
                if deadline - now >= 0.6 * iters * (now - t_start) / it:
                    break
            it += 1
            pos_f, neg_f = disc.factors(it)
            w = float(it) ** 2
            cfr_update(g, 1 - team, TA, oV, oreg, osig, olast, pos_f, neg_f, False)
            member_values()  # the other team's average is not needed
            _member_pass(
                t.kind,
                t.children,
                t.actor,
                free,
                id_of,
                sw.term_index,
                cv,
                sg,
                reg,
                V,
                pos_f,
                neg_f,
                live,
            )
            vals = V[:, 0].sum(axis=1)
            regp = regp + vals - pp @ vals
            regp *= np.where(regp > 0, pos_f, neg_f)
            self._reach(free, sg, r, cum, w * pp)
            cump += w * pp
            if not self.fixed_weights:
                q = np.maximum(regp, 0.0)
                pp = q / q.sum() if q.sum() > 0 else np.full(self.K, 1.0 / self.K)
            TA = team_reach(r)
            if it % CHECK_EVERY == 0:
                check()
        check()
        self.sig[free], self.p = best[0], best[1] / best[1].sum()
        self.opponent = (oreg, osig)  # the next block's opponent starts from here
        return best_val

    def mixture(self, p, sig) -> TeamMixture:
        """The mixture of the signals with positive weight. Fixed weights are returned
        bit for bit as given, so that both teams' equal weights still merge into K signals."""
        keep = np.flatnonzero(p > 0)
        # views: the refiner replaces its arrays and never writes into them
        items = tuple(ProductStrategy(self.seats, {s: sig[s][j] for s in self.seats}) for j in keep)
        w = self.given[keep] if self.fixed_weights else p[keep] / p[keep].sum()
        return TeamMixture(self.team, self.seats, w, items)


def iteration_seconds(game: DagGame, signals: int) -> float:
    """Estimated seconds of one refinement iteration with ``signals`` signals (from the sizes,
    so that the default is deterministic)."""
    rows = max(d.num_rows for d in game.dags)
    return _SECONDS_PER_SIGNAL_NODE * signals * game.tree.num_nodes + _SECONDS_PER_ROW * rows


def auto_seconds(game: DagGame, time_limit: float, signals: int, startup: float = 0.0) -> float:
    """Default refinement seconds of a run of ``time_limit`` seconds that spent ``startup``
    seconds before solving (building the DAGs): :data:`AUTO_SHARE` of the rest when both
    teams have two members, a DAG has at least :data:`AUTO_MIN_ROWS` rows (smaller games are
    solved exactly by the LP export) and each team's half buys at least
    :data:`AUTO_MIN_ITERS` iterations and is at least :data:`AUTO_MIN_SECONDS`, else 0. On
    2 cores: small-team-leduc from a 2.5 s limit, team-leduc-2025 from 20 s, team-leduc from
    about 4 minutes."""
    if max(d.num_rows for d in game.dags) < AUTO_MIN_ROWS or any(
        d.num_members != 2 for d in game.dags
    ):
        return 0.0
    share = AUTO_SHARE * max(time_limit - startup, 0.0)
    enough = share / 2 >= AUTO_MIN_ITERS * iteration_seconds(game, signals)
    return share if enough and share >= AUTO_MIN_SECONDS else 0.0


class TeamRefinement:
    """A resumable :func:`refine_team`: :meth:`step` runs one block of the next member (kept
    only if it improves the exact bound; otherwise undone, and that member's next block is
    twice as long), so that a caller may interleave blocks with other work, e.g. the regret
    minimiser going on (:func:`interleaved`). ``best`` = (exact bound, mixture) so far."""

    def __init__(
        self,
        game: DagGame,
        mixture: TeamMixture,
        bound: float,
        *,
        signals: int,
        extra=(),
        block_iters: int = BLOCK_ITERS,
        fixed_weights: bool = False,
        opponent=None,
    ):
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
        self.game, self.team = game, team
        self.refiner = _TeamRefiner(game, team, sig, np.array(w), fixed_weights)
        # the solver's arrays are copied once; from then on the blocks pass on their own
        self.refiner.opponent = None if opponent is None else tuple(a.copy() for a in opponent)
        self.best = (bound, mixture)
        self.block_iters = block_iters
        # a block that failed is likely to fail again from the same point: that member's
        # next block is twice as long (until a block of either member succeeds)
        self.length = [block_iters, block_iters]
        self.blocks = 0

    def step(
        self,
        deadline: float,
        max_iters: int = 10**9,
        opponent=None,
        stop: Callable[[], bool] | None = None,
    ) -> tuple:
        """One block of the next member until ``deadline`` (or its length); ``opponent`` =
        (regrets, strategy) to restart the other team's regret minimiser from (copied), else
        it goes on from the last block. Returns :attr:`best`."""
        tr = self.refiner
        if opponent is not None:
            tr.opponent = tuple(a.copy() for a in opponent)
        free_k = 1 - (self.blocks % 2)
        # a block replaces (never writes into) these arrays: references suffice to undo it
        before = (tr.p, tr.sig[tr.seats[free_k]])
        tr.block(free_k, deadline, max_iters, iters=self.length[free_k], stop=stop)
        mix = tr.mixture(tr.p, tr.sig)
        val = guaranteed_value(self.game, mix)  # of the mixture as written (zero weights dropped)
        if _better(self.team)(val, self.best[0]):
            self.best = (val, mix)
            self.length = [self.block_iters, self.block_iters]
        else:
            # the block made things worse: the next one (other member) starts from the best
            tr.p, tr.sig[tr.seats[free_k]] = before
            self.length[free_k] *= 2
        self.blocks += 1
        return self.best


def refine_team(
    game: DagGame,
    mixture: TeamMixture,
    bound: float,
    *,
    signals: int,
    time_limit: float,
    extra=(),
    blocks: int | None = None,
    block_iters: int = BLOCK_ITERS,
    progress=None,
    max_iters: int = 10**9,
    fixed_weights: bool = False,
    opponent=None,
    stop: Callable[[], bool] | None = None,
) -> tuple[float, TeamMixture]:
    """Refine one team's mixture for ``time_limit`` seconds with at most ``signals`` signals.

    ``bound`` is the exact guaranteed value of ``mixture``; ``extra`` are further team
    strategies (e.g. peels) to fill up to ``signals`` signals. ``fixed_weights`` keeps the
    signal weights (only the per-signal behaviour moves), e.g. to keep both teams' equal
    weights aligned in the merged meta-strategy. Blocks of ``block_iters`` iterations
    (at most ``max_iters``; at most ``blocks`` blocks) alternate the members until the time
    is up; a block that does not improve is undone (:class:`TeamRefinement`). ``opponent`` =
    (regrets, strategy) of the other team's DAG to start its regret minimiser from (e.g. the
    solver's state; it is copied). ``progress(team, block, bound)`` is called after each
    block with the best exact bound so far; ``stop()`` true ends the refinement after the
    current iteration (a block cut short is still measured and kept only if better). Returns ``(bound, mixture)``, the input unchanged
    unless a strictly better exactly measured mixture was found."""
    run = TeamRefinement(
        game,
        mixture,
        bound,
        signals=signals,
        extra=extra,
        block_iters=block_iters,
        fixed_weights=fixed_weights,
        opponent=opponent,
    )
    end = time.perf_counter() + time_limit
    while blocks is None or run.blocks < blocks:
        if run.blocks > 0 and (time.perf_counter() >= end or (stop is not None and stop())):
            break
        run.step(end, max_iters, stop=stop)
        if progress is not None:
            progress(mixture.team, run.blocks - 1, run.best[0])
    return run.best


def halves(max_signals: int) -> tuple[int, int]:
    """Signals per team when both teams' weights are free: K_A + K_B - 1 = ``max_signals``
    merged signals (:func:`teamleduc.files.model.merge_team_mixtures`)."""
    a = (max_signals + 1) // 2
    return a, max_signals + 1 - a


def team_sizes(max_signals: int, per_team: bool = False) -> tuple[int, int]:
    """Signals per team with free weights: ``max_signals`` each when each team has its own
    meta-strategy (``per_team``, the 2025 team zips), else :func:`halves`."""
    return (max_signals, max_signals) if per_team else halves(max_signals)


def refined_team_signals(
    game: DagGame, max_signals: int, seconds: float, dcfr_seconds: float | None = None
) -> int:
    """Signals per team for 2025 team zips refined for ``seconds`` (both teams together): the
    largest K <= ``max_signals`` at which each team's half buys one block of
    :data:`BLOCK_ITERS` iterations, and at least half the cap. More signals refine better
    given the time (same averages, 120 s: 0.0083 with 200 + 201 signals against 0.0114 with
    50 + 51; 300 s: 0.0038 against 0.0077), but an iteration costs more, and a warm block
    that is cut short rarely beats its start (60 s runs of team-leduc-2025 under load: 0.178,
    0.053, 0.074 with 100 per team against 0.054, 0.049 with 50 + 51).

    An iteration's cost is :func:`iteration_seconds` scaled by the machine's speed:
    ``dcfr_seconds``, the run's own seconds per DCFR iteration, against
    :data:`_DCFR_SECONDS_PER_ROW` per DAG row (None: as measured for the constants). On 2
    cores under load: 50 per team at a 60 s limit, 100 from about 95 s; on a quiet machine,
    where DCFR runs 2.3 times as fast, 100 at 60 s."""
    low = max(max_signals // 2, 1)
    rows = max(d.num_rows for d in game.dags)
    scale = 1.0 if not dcfr_seconds else dcfr_seconds / (_DCFR_SECONDS_PER_ROW * rows)
    per_iter = _SECONDS_PER_SIGNAL_NODE * game.tree.num_nodes
    fit = (seconds / 2 / BLOCK_ITERS / scale - _SECONDS_PER_ROW * rows) / per_iter
    return int(min(max_signals, max(low, math.floor(fit))))


def halves_export(
    game: DagGame, restart, max_signals: int, per_team: bool = False, submission: bool = True
) -> ExportResult:
    """The starting point of a restarted :func:`refine_export` as an export of its own: each
    team's average as :func:`team_sizes` stratified signals (``restart(team, K)``; halves of
    ``max_signals`` for a merged CSV submission, ``max_signals`` each with ``per_team``), with
    free weights and exact bounds. A run that refines a big game exports this instead of
    ``max_signals`` equal-weight signals, from which the refinement would only restart here
    (that export took about 25 s of a 5-minute team-leduc run). Without ``submission`` the
    merged submission is not built (:func:`.export.from_alternatives`)."""
    return from_alternatives(
        game,
        _measured_halves(game, restart, max_signals, per_team),
        max_signals=max_signals,
        per_team=per_team,
        submission=submission,
    )


def _measured_halves(game: DagGame, restart, max_signals: int, per_team: bool = False) -> tuple:
    """Each team's ``restart(team, K)`` for K in :func:`team_sizes`, with its exact bound."""
    sizes = team_sizes(max_signals, per_team)
    return measured(game, [restart(team, k) for team, k in enumerate(sizes)])


def refine_export(
    game: DagGame,
    ex: ExportResult,
    *,
    max_signals: int,
    time_limit: float,
    candidates=None,
    signals: int = DEFAULT_SIGNALS,
    progress=None,
    max_iters: int = 10**9,
    blocks: int | None = None,
    opponents=(None, None),
    restart=None,
    keep_sizes: bool = False,
    per_team: bool = False,
    stop: Callable[[], bool] | None = None,
) -> ExportResult:
    """The export ``ex`` (:class:`.export.ExportResult`) refined for ``time_limit`` seconds
    (half per team); returned only if its exact gap is smaller, else ``ex`` itself.
    ``opponents[k]`` = (regrets, strategy) to start team k's opponent from (or None).

    When both teams export the same weights (stratified signals) and ``restart(team, K,
    weights=None)`` gives a team's average as K stratified signals, a merged (CSV) export is
    refined on one shared weight vector (:func:`shared_weights`): equal weights merge into
    ``max_signals`` signals but cannot move, and shared free weights refined better than
    both fixed equal weights and :func:`halves` of the cap with free weights (0.044 against
    0.058 after 30 s on team-leduc-2025, fixed against halves; 0.0753 against 0.1122 after
    150 s on team-leduc, shared against halves). With ``per_team`` the refinement restarts
    from ``max_signals`` signals per team with free weights.
    ``keep_sizes`` refines ``ex``'s mixtures as they are (no restart, no filling up with
    peels; e.g. ``ex`` from :func:`halves_export`). ``progress(lower, upper)`` is called
    after each block with the exact bounds of the pair being refined (its best mixtures so
    far). ``per_team``: each team has its own meta-strategy of up to ``max_signals`` signals
    (the 2025 team zips), so nothing is merged and each team refines its own weights over
    ``max_signals`` signals (see :func:`team_sizes`)."""
    t0 = time.perf_counter()
    mix = list(ex.mixtures)
    bounds = [ex.lower, ex.upper]
    # equal weights on both sides (stratified signals) merge into K signals
    aligned = mix[0].size == mix[1].size and np.array_equal(mix[0].weights, mix[1].weights)
    restarted = (
        not keep_sizes
        and aligned
        and restart is not None
        and all(len(d.seats) == 2 for d in game.dags)
    )
    if restarted and not per_team:
        return shared_weights(
            game,
            ex,
            max_signals=max_signals,
            time_limit=time_limit,
            restart=restart,
            opponents=opponents,
            progress=progress,
            max_iters=max_iters,
            blocks=blocks,
            stop=stop,
        )
    if restarted:
        (ma, la), (mb, ub) = _measured_halves(game, restart, max_signals, per_team)
        mix, bounds = [ma, mb], [la, ub]
    # equal weights kept bit for bit still merge into K
    # (per team, nothing is merged: the weights are free)
    fixed = aligned and not restarted and not keep_sizes and not per_team

    def report(team, block, best):
        bounds[team] = best
        if progress is not None:
            progress(bounds[0], bounds[1])

    # equal weights and the restart keep their sizes; otherwise peels may fill up to the cap
    sized = fixed or restarted or keep_sizes
    for team in (0, 1):
        room = max_signals if per_team else max_signals + 1 - mix[1 - team].size
        cap = mix[team].size if sized else min(signals, room)
        if cap < 1 or len(game.dags[team].seats) != 2 or (stop is not None and stop()):
            continue
        extra = []
        if candidates is not None and not sized:
            have = {it.key() for it in mix[team].items}
            extra = [s for s in candidates.of_kind(team, "peel") if s.key() not in have]
        budget = (time_limit - (time.perf_counter() - t0)) / (2 - team)
        bounds[team], mix[team] = refine_team(
            game,
            mix[team],
            bounds[team],
            signals=cap,
            time_limit=max(budget, 0.0),
            extra=extra,
            progress=report,
            max_iters=max_iters,
            blocks=blocks,
            fixed_weights=fixed,
            opponent=opponents[team],
            stop=stop,
        )
    if bounds[1] - bounds[0] >= ex.gap:
        return ex
    assert fits(mix[0].weights, mix[1].weights, max_signals, per_team)
    sub = merge_submission(game, tuple(mix))
    return ExportResult(
        mixtures=tuple(mix),
        lower=float(bounds[0]),
        upper=float(bounds[1]),
        rounds=ex.rounds,
        columns=ex.columns,
        seconds=ex.seconds + time.perf_counter() - t0,
        submission=sub,
    )


def _heaviest_first(mix: TeamMixture) -> TeamMixture:
    """``mix`` with its signals in decreasing weight (stable): the order in which
    :class:`TeamRefinement` keeps signals, so that a follower refined on these weights keeps
    them in this order and both cumulative distributions coincide."""
    order = np.argsort(-mix.weights, kind="stable")
    return TeamMixture(mix.team, mix.seats, mix.weights[order], tuple(mix.items[j] for j in order))


def shared_weights(
    game: DagGame,
    ex: ExportResult,
    *,
    max_signals: int,
    time_limit: float,
    restart,
    leader: int = SHARED_LEADER,
    opponents=(None, None),
    progress=None,
    max_iters: int = 10**9,
    blocks: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> ExportResult:
    """The CSV export (one merged meta-strategy of at most ``max_signals`` signals) refined
    on one weight vector shared by both teams, each team with its own strategies per signal.

    ``ex`` holds both teams' mixtures on the same weights (e.g. :func:`stratified_export`);
    ``restart(team, K, weights=None)`` gives a team's average as K stratified signals (with
    the given weights). The ``leader`` refines its ``max_signals`` signals with free weights for
    half of ``time_limit``; after each block that improved it, the follower's average is
    stratified on the leader's weights (:func:`.stratify.stratified_mixture`) and the pair
    measured exactly. The follower is then refined for the rest of the time with those
    weights fixed. Both cumulative distributions coincide, so the merged meta-strategy has
    as many signals as the leader. More freedom than :func:`halves` (50 + 51 free weights):
    on the same averages, with 150 s of refinement each, team-leduc exported 0.0753 (team A
    leading; 0.0821 with B) against the halves' 0.1122 (``BENCH_BUDGET_PRESET=team-leduc
    BENCH_BUDGET_SOLVE=150 BENCH_BUDGET_REFINE=150 BENCH_BUDGET_TEAM_K=50 python -m
    benchmarks budget``).

    ``progress(lower, upper)`` receives the exact bounds of the best pair so far that fits
    the cap (its gap never grows; the leader's blocks are reported with the follower
    stratified on its weights). Returns the best such pair, or ``ex`` if none beat it."""
    t0 = time.perf_counter()
    follower = 1 - leader
    lead = ex.mixtures[leader]
    lead_bound = (ex.lower, ex.upper)[leader]
    if lead.size != max_signals:
        lead = restart(leader, max_signals)
        lead_bound = guaranteed_value(game, lead)
    follow = ex.mixtures[follower]
    follow_bound = (ex.lower, ex.upper)[follower]
    if not np.array_equal(follow.weights, lead.weights):
        follow = restart(follower, lead.size, lead.weights)
        follow_bound = guaranteed_value(game, follow)
    best = [ex.gap, ex]

    def pair(lead_mix, lb, follow_mix, fb) -> tuple:
        mixes = (lead_mix, follow_mix) if leader == 0 else (follow_mix, lead_mix)
        bounds = (lb, fb) if leader == 0 else (fb, lb)
        return mixes, bounds

    def consider(mixes, bounds) -> None:
        """Keep the pair if it is the best so far; report the best pair's bounds."""
        if bounds[1] - bounds[0] < best[0]:
            best[:] = [bounds[1] - bounds[0], (mixes, bounds)]
        if progress is not None:
            b = best[1]
            progress(*((b.lower, b.upper) if isinstance(b, ExportResult) else b[1]))

    def stopped() -> bool:
        return stop is not None and stop()

    # the leader: free weights, for half the time
    run = TeamRefinement(game, lead, lead_bound, signals=max_signals, opponent=opponents[leader])
    end = t0 + time_limit / 2
    while blocks is None or run.blocks < blocks:
        if run.blocks > 0 and (time.perf_counter() >= end or stopped()):
            break
        before = run.best[0]
        run.step(end, max_iters, stop=stop)
        if run.best[0] != before:
            lead_bound, lead = run.best[0], _heaviest_first(run.best[1])
            follow = restart(follower, lead.size, lead.weights)
            follow_bound = guaranteed_value(game, follow)
            consider(*pair(lead, lead_bound, follow, follow_bound))
    # the follower: the leader's weights, fixed, for the rest of the time
    run = TeamRefinement(
        game,
        follow,
        follow_bound,
        signals=lead.size,
        fixed_weights=True,
        opponent=opponents[follower],
    )
    end = time.perf_counter() + max(time_limit - (time.perf_counter() - t0), 0.0)
    while not stopped() and (blocks is None or run.blocks < blocks):
        if run.blocks > 0 and time.perf_counter() >= end:
            break
        before = run.best[0]
        run.step(end, max_iters, stop=stop)
        if run.best[0] != before:
            consider(*pair(lead, lead_bound, run.best[1], run.best[0]))
    if isinstance(best[1], ExportResult):
        return ex
    mixes, (lower, upper) = best[1]
    assert fits(mixes[0].weights, mixes[1].weights, max_signals)
    return ExportResult(
        mixtures=tuple(mixes),
        lower=float(lower),
        upper=float(upper),
        rounds=ex.rounds,
        columns=ex.columns,
        seconds=ex.seconds + time.perf_counter() - t0,
        submission=merge_submission(game, tuple(mixes)),
    )


def stratified_export(
    game: DagGame, restart, max_signals: int, submission: bool = True
) -> ExportResult:
    """Both teams' averages as ``max_signals`` equally likely stratified signals
    (``restart(team, K)``), with exact bounds: they merge into ``max_signals`` signals, and
    are the start of :func:`shared_weights`. Without ``submission`` the merged submission
    is not built (:func:`.export.from_alternatives`)."""
    pairs = measured(game, [restart(team, max_signals) for team in (0, 1)])
    return from_alternatives(game, pairs, max_signals=max_signals, submission=submission)


def _warmup() -> None:
    """Compile the refinement kernels (every dtype they meet) on tiny-team-leduc, so that a
    timed refinement never pays for them (``python -m teamleduc.warmup``)."""
    from ..config import get_config
    from .dag_cfr import RegretMinimizer
    from .stratify import stratified_mixture

    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    rm.iterate(5)
    for team in (0, 1):
        mix = stratified_mixture(rm.game, team, rm.average_sigma(team), 3)
        refine_team(
            rm.game,
            mix,
            guaranteed_value(rm.game, mix),
            signals=3,
            time_limit=60.0,
            blocks=2,
            max_iters=CHECK_EVERY,
            fixed_weights=True,
        )
