"""The team refiner: one team's K signals optimised member by member against the other team.

Why: an exported signal is a product of the members' behavioural strategies, built from the
regret minimiser's average (stratified signals, :mod:`.stratify`) or from pure strategies
(:mod:`.export`); neither is optimised as a product. This module optimises the per-signal
behaviour against the other team's whole belief DAG; :mod:`.refine` decides what an export
refines with it (which mixtures, how many signals, which weights, how long).

What (block-coordinate ascent, per team, alternating members):

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

A refined team mixture replaces the given one only if its exact bound is better. Fixed
weights, when asked for, are returned bit for bit.

The per-member passes are numba kernels (:mod:`.refine_kernels`), one signal per thread,
arrays signal-major (K, ..., ranks); the free member's walk its own decision nodes and their
frontiers (:mod:`.member_frontier`), skipping the own nodes the fixed member never reaches in
that signal; the other team's updates reuse :func:`teamleduc.dag.cfr_update`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import numba
import numpy as np

from ..dag import ROW_DTYPE, DagGame, best_values, cfr_update, flows
from ..infosets import infoset_tables
from .dag_cfr import dcfr
from .export import guaranteed_value
from .member_frontier import member_frontier
from .mixtures import ProductStrategy, TeamMixture
from .refine_kernels import (
    _block_average,
    _member_pass,
    _member_reach,
    _member_reach_terminals,
    _member_values,
    _pair_reach,
    member_scratch,
)

#: iterations per block (warm started): long enough for a warm block to beat its start
BLOCK_ITERS = 200
#: a block measures its average exactly every this many iterations and keeps the best
CHECK_EVERY = 10
#: signals per chunk of the float64 reach computations (a (CHUNK, N, R) buffer)
CHUNK = 8
#: a free member's per-signal strategies above this many bytes (as float64) make its
#: iterates float32 (team-leduc with 100 signals: 354 MB; team-leduc-2025: 28 MB)
BIG_ITERATES = 64 * 2**20
#: warm start of a block: the free member's regrets start proportional to its current
#: strategy, at this many times each information set's first instantaneous regret (0: cold)
WARM_ITERS = 10.0
#: ... and the signal weights (when free) likewise start from the current weights
WARM_WEIGHTS = True
#: the member each team frees in its first block (index into the team's seats): team A's
#: seat 1, team B's seat 4. On team-leduc a 300 s solve refines one block per team, so this
#: is the only member it refines; chosen from counted runs of ``python -m benchmarks
#: block_split`` (their figures: docs/history/solver.md, "The member a refinement frees first")
FIRST_FREE = (0, 1)


_NONE = np.zeros(0)


def _better(team: int):
    """``better(a, b)``: is bound ``a`` better than ``b`` for ``team`` (A maximises)?"""
    return (lambda a, b: a > b) if team == 0 else (lambda a, b: a < b)


@contextlib.contextmanager
def _one_signal_at_a_time():
    """The per-signal kernels started inside hand their signals to the threads one at a time
    as threads free up, not in numba's equal shares: signals cost unequal time (the fixed
    member reaches more of the tree in some), and a hundred chunks cost nothing next to a
    signal's pass. The results are the same: each signal writes only its own slices. (The
    level loops of :mod:`teamleduc.dag` hand each thread one run of a level's nodes of equal
    modelled work instead, :func:`teamleduc.dag.structure.level_shares`: for their tens of
    thousands of small nodes numba's per-chunk scheduling cost more than the balance won.)"""
    old = numba.set_parallel_chunksize(1)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(old)


class _TeamRefiner:
    """One team's K signals under refinement: the members' per-signal strategies and the
    weights, improved one member's block at a time (:meth:`block`)."""

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
        #: the terminals' own rows in a (K, Z, R) reach (:meth:`_team_reach`)
        self._terminals_in_order = np.arange(self.Z, dtype=np.int32)
        self.shortest_block = 0.0  # seconds of one iteration and a check, by the last block
        self.check_seconds = 0.0  # seconds of the last exact check (the next block's margin)

    def _reach(self, s, sg, out):
        """Member ``s``'s reach ``out`` (k, N, R) at every node of its k strategies ``sg``."""
        t = self.tree
        with _one_signal_at_a_time():
            _member_reach(t.parent, t.action, t.kind, t.actor, s, self.tabs[s].id_of, sg, out)
        return out

    def _free_reach(self, s, sg, out, cum=_NONE, wj=_NONE):
        """Member ``s``'s reach ``out`` (K, Z, R) at the terminals of its strategies ``sg``,
        adding ``wj[j]`` x its reach-weighted strategy to ``cum`` when ``wj`` is given
        (:func:`_member_reach_terminals`)."""
        f = member_frontier(self.tree, s)
        scratch = member_scratch(len(f.own), self.R, out.dtype)
        with _one_signal_at_a_time():
            _member_reach_terminals(*f.arrays, sg, out, cum if cum.size else sg, wj, scratch)
        return out

    def _chunks(self, s, sg, cum=None):
        """(j0, j1, reach): member ``s``'s float64 reach (j1 - j0, N, R) of signals j0..j1-1 of
        ``sg``, :data:`CHUNK` signals at a time in one (CHUNK, N, R) buffer (not K of them:
        1.1 GB on team-leduc), in signal order. With ``cum``, of the block average of ``cum``
        (``sg`` where unreached, :func:`_block_average`), built a chunk at a time too (not
        a whole (K, n, 3) float64 copy: 354 MB on team-leduc)."""
        c = min(self.K, CHUNK)
        buf = np.empty((c, self.tree.num_nodes, self.R))
        avg = None if cum is None else np.empty((c,) + sg.shape[1:], np.float64)
        for j0 in range(0, self.K, c):
            j1 = min(self.K, j0 + c)
            part = sg[j0:j1]
            if avg is not None:
                part = avg[: j1 - j0]
                _block_average(cum[j0:j1], sg[j0:j1], part)
            yield j0, j1, self._reach(s, part, buf[: j1 - j0])

    def _terminal_reach(self, s, sg, live=None, dtype=np.float64) -> np.ndarray:
        """(K, Z, R) reach of member ``s``'s per-signal strategies ``sg`` at the terminals,
        computed in float64 (:meth:`_chunks`) and stored as ``dtype``; ``live`` (K, N) bool, if
        given, marks the nodes each signal reaches."""
        term = self.tree.terminals
        out = np.empty((self.K, len(term), self.R), dtype)
        for j0, j1, b in self._chunks(s, sg):
            out[j0:j1] = b[:, term]
            if live is not None:
                np.any(b > 0, axis=2, out=live[j0:j1])
        return out

    def _team_reach(self, p, rfix, rfree, free_second):
        """(Z, R*R) team terminal reach (see :func:`_pair_reach`) from both members' reach
        (K, Z, R) at the terminals."""
        out = np.empty((self.Z, self.R * self.R))
        _pair_reach(p, rfix, rfree, self._terminals_in_order, free_second, out)
        return out

    def _exact_team_reach(self, p, rfix, s, sg, free_second, cum=None) -> np.ndarray:
        """:meth:`_team_reach` of member ``s`` playing ``sg`` (with ``cum``: the block average
        of ``cum``, ``sg`` where unreached) with its reach in float64, summed chunk by chunk
        (:meth:`_chunks`; the same sums, bit for bit, as at once)."""
        out = np.zeros((self.Z, self.R * self.R))
        for j0, j1, b in self._chunks(s, sg, cum):
            _pair_reach(p[j0:j1], rfix[j0:j1], b, self.tree.terminals, free_second, out, False)
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
        best_val, best_cum, best_p = self._iterate(free_k, deadline, max_iters, iters, warm, stop)
        # the block's arrays went with its frame: the kept average is built now, in float64
        free = self.seats[free_k]
        avg = np.empty_like(self.sig[free])
        _block_average(best_cum, self.sig[free], avg)  # unreached: the strategy as it was
        self.sig[free], self.p = avg, best_p / best_p.sum()
        return best_val

    def _iterate(self, free_k, deadline, max_iters, iters, warm, stop) -> tuple:
        """The iterations and checks of :meth:`block`; returns the best check's exact value,
        ``cum`` and weights."""
        g, t, team = self.game, self.tree, self.team
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
        # the fixed member's reach is computed in float64 a few signals at a time and kept in
        # the iterates' type (on big games the block's checks then choose among averages with
        # float32 reaches; the kept mixture's bound is measured exactly all the same, by
        # guaranteed_value); the free member's values at its own nodes live in a (threads,
        # M, R) scratch of the regret pass (its root values in ``root``) and its reach is
        # kept at the terminals only. On big games the free member's iterates (strategy,
        # regrets, cumulative strategy), values and reach are float32 (team-leduc, K = 100:
        # 0.83 GB of iterates and terminal reach instead of 1.66 GB; the iterates are
        # rounded to 2**-24 relative, far below such a game's gap); small games keep float64,
        # so that they reach exact equilibria
        dt = np.float32 if self.sig[free].nbytes > BIG_ITERATES else np.float64
        live = np.empty((self.K, t.num_nodes), np.bool_)  # nodes the fixed member reaches
        rf = self._terminal_reach(fixed, self.sig[fixed], live, dt)
        r = np.empty((self.K, self.Z, self.R), dt)  # the free member's terminal reach
        root = np.empty((self.K, self.R), dt)
        sg = self.sig[free].astype(dt)
        reg = np.zeros_like(sg)
        cum = np.zeros_like(sg)
        pp = self.p.copy()
        regp = np.zeros(self.K)
        cump = np.zeros(self.K)
        cv = np.empty((self.K, self.Z, self.R), np.float32)
        frontier = member_frontier(t, free)

        def team_reach(rfree, weights=None):
            q = pp if weights is None else weights
            return self._team_reach(q, rf, rfree, free_k == 1)

        TA = team_reach(self._free_reach(free, sg, r))

        def member_values():
            """``cv``: the free member's terminal values against the other team's current
            strategy (its flow) and the fixed member."""
            W = g.weights(team, flows(od, osig, oF)).reshape(self.Z, self.R, self.R)
            _member_values(W, rf, free_k == 1, cv)

        def member_pass(strategy, pos_f, neg_f):
            """The free member's regret pass on ``reg`` (root values into ``root``) from
            ``cv``; its own nodes' values go to a scratch of numba's current threads."""
            scratch = member_scratch(len(frontier.own), self.R, dt)
            with _one_signal_at_a_time():
                _member_pass(*frontier.arrays, cv, strategy, reg, scratch, root, pos_f, neg_f, live)

        if warm > 0:
            # regrets proportional to the current strategy make it the first iterate; their
            # scale (warm x the information set's largest first regret) sets how fast it
            # moves. ``cum`` (zero until the first iteration) is the scratch: no extra arrays
            member_values()
            cum[:] = sg
            member_pass(cum, 1.0, 1.0)
            np.abs(reg, out=cum)
            scale = cum.max(axis=2, keepdims=True)
            tiny = np.finfo(reg.dtype).tiny  # regrets proportional to sg, however small
            np.multiply(sg, np.where(scale > 0, warm * scale, tiny), out=reg)
            cum.fill(0.0)
            if WARM_WEIGHTS and not self.fixed_weights:
                # the same for the signal weights: they start where they are
                vals = root.sum(axis=1, dtype=np.float64)
                first = float(np.max(np.abs(vals - pp @ vals)))
                regp = pp * (warm * first if first > 0 else 1e-300)
        better = _better(team)
        # the best average so far is kept as its ``cum`` (the iterates' type) and weights,
        # and built in float64 only at the block's end (:func:`_block_average` is a function
        # of ``cum`` and the unchanged ``self.sig[free]``: the same bits as built at once)
        best_val, best_cum, best_p = None, None, None
        oVm = oV  # the exact checks' max DP: cfr_update rewrites every value it reads

        def check():
            """Measure the block's average so far exactly; keep it if it is the best."""
            nonlocal best_val, best_cum, best_p
            pa = pp if self.fixed_weights else cump / cump.sum()
            # the average's reach in float64, a few signals at a time (unreached
            # information sets: the strategy as it was)
            TAa = self._exact_team_reach(pa, rf, free, self.sig[free], free_k == 1, cum)
            bv = best_values(g, 1 - team, TAa, oVm)
            val = -bv if team == 0 else bv
            if best_val is None or better(val, best_val):
                if best_cum is None:
                    best_cum = np.empty_like(cum)
                np.copyto(best_cum, cum)
                best_val, best_p = val, pa.copy()

        it = 0
        t_start = time.perf_counter()
        # the block ends by its deadline, not after it: an iteration starts only if it, the
        # final check and the step's exact measurement of the kept mixture (about as long as
        # a check) still fit (on team-leduc each is over a second: the blocks used to end
        # about 6 s late, eating into the time kept for writing the submission)
        # (until this block's first check, the margin is the last block's)
        checked, one_iteration = -1, 0.0
        while it < max_iters and (
            it == 0
            or (
                time.perf_counter() + one_iteration + 2.0 * self.check_seconds < deadline
                and not (stop is not None and stop())
            )
        ):
            if iters is not None and it >= iters:
                now = time.perf_counter()
                if deadline - now >= 0.6 * iters * (now - t_start) / it:
                    break
            t_iteration = time.perf_counter()
            it += 1
            pos_f, neg_f = disc.factors(it)
            w = float(it) ** 2
            cfr_update(g, 1 - team, TA, oV, oreg, osig, olast, pos_f, neg_f, False)
            member_values()  # the other team's average is not needed
            member_pass(sg, pos_f, neg_f)
            vals = root.sum(axis=1, dtype=np.float64)
            regp = regp + vals - pp @ vals
            regp *= np.where(regp > 0, pos_f, neg_f)
            self._free_reach(free, sg, r, cum, w * pp)
            cump += w * pp
            if not self.fixed_weights:
                q = np.maximum(regp, 0.0)
                pp = q / q.sum() if q.sum() > 0 else np.full(self.K, 1.0 / self.K)
            TA = team_reach(r)
            one_iteration = time.perf_counter() - t_iteration
            if it % CHECK_EVERY == 0:
                t_check = time.perf_counter()
                check()
                checked, self.check_seconds = it, time.perf_counter() - t_check
        if checked != it:  # the last iteration's average, unless just measured
            t_check = time.perf_counter()
            check()
            self.check_seconds = time.perf_counter() - t_check
        # what the shortest block takes: one iteration and the final check
        self.shortest_block = one_iteration + self.check_seconds
        self.opponent = (oreg, osig)  # the next block's opponent starts from here
        return best_val, best_cum, best_p

    def mixture(self, p, sig) -> TeamMixture:
        """The mixture of the signals with positive weight. Fixed weights are returned
        bit for bit as given, so that both teams' equal weights still merge into K signals."""
        keep = np.flatnonzero(p > 0)
        # views: the refiner replaces its arrays and never writes into them
        items = tuple(ProductStrategy(self.seats, {s: sig[s][j] for s in self.seats}) for j in keep)
        w = self.given[keep] if self.fixed_weights else p[keep] / p[keep].sum()
        return TeamMixture(self.team, self.seats, w, items)


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
        warm: float = WARM_ITERS,
        first: int | None = None,
    ):
        team = mixture.team
        tabs = infoset_tables(game.tree)
        sizes = {s: tabs[s].size for s in mixture.seats}
        order = np.argsort(-mixture.weights, kind="stable")[:signals]
        w = list(mixture.weights[order])
        wmin = min(w) if w else 1.0
        more = list(extra)[: max(signals - len(w), 0)]  # the extras fill the free signals
        w += [0.1 * wmin] * len(more)
        items = tuple(mixture.items[j] for j in order) + tuple(more)
        # the (K, n, 3) behaviour of the chosen signals, built once; a stratified mixture's
        # own arrays when its signals keep their order (the refiner never writes into them)
        chosen = TeamMixture(team, mixture.seats, np.ones(len(items)), items)
        sig = chosen.strategies(sizes, share=True)
        self.game, self.team = game, team
        self.refiner = _TeamRefiner(game, team, sig, np.array(w), fixed_weights)
        # the solver's arrays are copied once; from then on the blocks pass on their own
        self.refiner.opponent = None if opponent is None else tuple(a.copy() for a in opponent)
        self.best = (bound, mixture)
        self.block_iters = block_iters
        self.warm = warm  # the blocks' warm start (:data:`WARM_ITERS`)
        # a block that failed is likely to fail again from the same point: that member's
        # next block is twice as long (until a block of either member succeeds)
        self.length = [block_iters, block_iters]
        self.blocks = 0
        #: the member the first block frees (:data:`FIRST_FREE` unless given)
        self.first = FIRST_FREE[team] if first is None else first
        if self.first not in (0, 1):
            raise ValueError(f"first must be 0 or 1 (a member of the team), got {first!r}")
        self.shortest_step = 0.0  # seconds of the shortest step, measured by the last one

    def out_of_time(self, end: float) -> bool:
        """True if a step begun now would end after ``end`` (as measured by the last step)."""
        return time.perf_counter() + self.shortest_step >= end

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
        free_k = (self.first + self.blocks) % 2
        # a block replaces (never writes into) these arrays: references suffice to undo it
        before = (tr.p, tr.sig[tr.seats[free_k]])
        tr.block(free_k, deadline, max_iters, iters=self.length[free_k], warm=self.warm, stop=stop)
        t_measure = time.perf_counter()
        mix = tr.mixture(tr.p, tr.sig)
        val = guaranteed_value(self.game, mix)  # of the mixture as written (zero weights dropped)
        self.shortest_step = tr.shortest_block + time.perf_counter() - t_measure
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
    warm: float = WARM_ITERS,
    first: int | None = None,
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
    current iteration (a block cut short is still measured and kept only if better); ``warm``
    is the blocks' warm start (:data:`WARM_ITERS`); ``first`` the member (0 or 1) the first
    block frees (:data:`FIRST_FREE`). Returns ``(bound, mixture)``, the input
    unchanged unless a strictly better exactly measured mixture was found."""
    run = TeamRefinement(
        game,
        mixture,
        bound,
        signals=signals,
        extra=extra,
        block_iters=block_iters,
        fixed_weights=fixed_weights,
        opponent=opponent,
        warm=warm,
        first=first,
    )
    end = time.perf_counter() + time_limit
    while blocks is None or run.blocks < blocks:
        if run.blocks > 0 and (run.out_of_time(end) or (stop is not None and stop())):
            break
        run.step(end, max_iters, stop=stop)
        if progress is not None:
            progress(mixture.team, run.blocks - 1, run.best[0])
    return run.best


def _warmup() -> None:
    """Compile the refinement kernels for both iterate types on tiny-team-leduc, so that a
    timed refinement never pays for them (``python -m teamleduc.warmup``): float64 (small
    games) and float32 (big games, :data:`BIG_ITERATES`, forced here by a zero threshold).
    Without the second, team-leduc's first refinement compiled for about 14 s of its time."""
    global BIG_ITERATES
    from ..config import get_config
    from .dag_cfr import RegretMinimizer
    from .stratify import stratified_mixture

    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    rm.iterate(5)
    starts = []
    for team in (0, 1):
        mix = stratified_mixture(rm.game, team, rm.average_sigma(team), 3)
        starts.append((mix, guaranteed_value(rm.game, mix)))
    threshold = BIG_ITERATES
    try:
        for big in (threshold, 0):
            BIG_ITERATES = big
            for mix, bound in starts:
                refine_team(
                    rm.game,
                    mix,
                    bound,
                    signals=3,
                    time_limit=60.0,
                    blocks=2,
                    max_iters=CHECK_EVERY,
                    fixed_weights=True,
                )
    finally:
        BIG_ITERATES = threshold
