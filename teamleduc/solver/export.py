"""Export: both teams' correlated strategies as one small submission, without losing correlation.

A submission is a distribution over signals, each a product of the members' behavioural
strategies. A point of the belief-DAG polytope (a regret minimiser's average) is a mixture of
many pure joint strategies; averaging the members' marginals instead would throw away the
correlation and what it is worth. The export therefore works with *pure joint strategies*:

1. **Candidates** (per team): the exact best responses met during the run (every measurement
   computes one per team) and strategies *peeled* from the average flow
   (:func:`peel`: repeatedly take the pure strategy that follows, at every DAG node it
   reaches, the row with the most remaining flow, and subtract its bottleneck flow).
2. **Re-weighting by linear programming**: the restricted game in which each team mixes only
   its columns is solved by HiGHS (:mod:`teamleduc.solver.column_generation`); the other team's
   exact best response on its *whole* DAG is then added as a column, and so on until the
   restricted solution is stable (a double oracle started from the candidates). Every round
   measures the exact bounds of its two mixtures, and the best mixture of each team is kept.
3. **Sparsification** to at most ``max_signals`` merged signals: a team whose support is too
   large keeps its heaviest columns and is re-weighted against the other team's best responses
   (cutting planes) until stable.
4. **Merge** (:func:`teamleduc.files.model.merge_team_mixtures`): both mixtures on one
   meta-strategy by cutting [0, 1] at the union of the two cumulative distributions
   (K_A + K_B - 1 signals); each team only ever uses its own marginal, so play is unchanged.

The export's gap is exact: ``upper`` is team A's exact best response to team B's exported
mixture, ``lower`` the value of team A's exported mixture against team B's exact best
response. :func:`submission_gap` re-measures a written submission independently with
:func:`teamleduc.best_response.exploitability`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from ..best_response import exploitability
from ..dag import DagGame, best_response_pure, extract_pure
from ..files.model import Submission, merge_team_mixtures
from ..infosets import infoset_tables
from .candidates import Candidates
from .column_generation import RestrictedGame
from .measurement import Measurement
from .mixtures import TeamMixture

#: default cap on the merged meta-strategy's signals (the issue's limit)
MAX_SIGNALS = 100
#: team DAGs with at least this many rows (team-leduc-2025: 1.9 M, team-leduc: 24.7 M) are
#: exported by stratified signals alone: there the LP export never came near them (exact gaps
#: 2-14 against 0.1-0.4) and cost minutes and gigabytes on team-leduc; the small presets (up
#: to 0.1 M rows) keep the LP export, which solves them exactly
BIG_ROWS = 1_000_000


def is_big(game: DagGame) -> bool:
    """True for games that a regret minimiser exports by stratified signals alone (see
    :data:`BIG_ROWS`)."""
    return any(d.num_rows >= BIG_ROWS for d in game.dags)


@dataclass(frozen=True, eq=False)
class ExportResult:
    """Two exported team mixtures, their exact bounds and the merged submission (None while
    the export is only a refinement's start: :func:`with_submission`)."""

    mixtures: tuple[TeamMixture, TeamMixture]
    lower: float
    upper: float
    rounds: int
    columns: tuple[int, int]
    seconds: float
    submission: Submission

    @property
    def gap(self) -> float:
        return self.upper - self.lower

    @property
    def signals(self) -> int:
        return self.submission.num_signals


def peel(
    dag, cum: np.ndarray, count: int, min_share: float = 1e-4, time_limit: float = float("inf")
) -> list:
    """Up to ``count`` pure team strategies peeled greedily from the cumulative flow ``cum``
    (row array of the average strategy's edge flows, any positive scale). Stops when the
    bottleneck falls below ``min_share`` of the total flow, or after ``time_limit`` seconds."""
    deadline = time.perf_counter() + time_limit
    residual = np.asarray(cum, dtype=np.float64).copy()
    total = None  # the flow out of the first DAG decision node = all the flow
    out = []
    for _ in range(count):
        pure = extract_pure(dag, score=residual)
        if pure.rows.size == 0:
            break
        theta = float(residual[pure.rows].min())
        if total is None:
            total = float(residual[pure.rows].max())
        out.append(pure)
        if theta <= min_share * total or time.perf_counter() > deadline:
            break
        residual[pure.rows] -= theta
    return out


class TeamExport:
    """The restricted game of one team's export: the team mixes its candidate columns (and
    the best responses to the other team's restricted strategy, added each round) while the
    other team answers with *cuts*: its exact best responses on its whole DAG.

    After each :meth:`round` the team's mixture ``weights`` is measured exactly: ``bound`` is
    its guaranteed value (team-A chips: a lower bound on v* for team A, an upper bound for
    team B); the best measured mixture is kept in ``best``."""

    def __init__(
        self,
        game: DagGame,
        team: int,
        candidates,
        cuts,
        V,
        generate: bool = True,
        safe=None,
        deadline: float = float("inf"),
    ):
        self.game = game
        self.team = team
        self.rg = RestrictedGame(game)
        self.V = V
        self.generate = generate
        self.rounds = 0
        self.best: tuple[float, np.ndarray] | None = None
        self.done = False
        # a safe start: the given candidate alone (e.g. the average strategy's marginals)
        if safe is not None:
            self.rg.add(team, safe)
        for s in candidates[:1]:
            self.rg.add(team, s)
        for s in cuts:
            self.rg.add(1 - team, s)
            if time.perf_counter() > deadline:
                break
        for s in candidates[1:]:  # in order of preference, as time allows
            if time.perf_counter() > deadline:
                break
            self.rg.add(team, s)
        w = np.zeros(len(self.rg.sets[team]))
        w[0] = 1.0
        bound, _ = self._cut(w)
        self.best = (bound, w)

    def _better(self, bound: float) -> bool:
        if self.best is None:
            return True
        return bound > self.best[0] if self.team == 0 else bound < self.best[0]

    def _cut(self, weights) -> tuple[float, bool]:
        """Measure the team's mixture ``weights``; add the other team's best response."""
        T = self.rg.sets[self.team].mixture_reach(weights)
        other = 1 - self.team
        v, br = best_response_pure(self.game, other, T, self.V[other])
        bound = -v if self.team == 0 else v
        return bound, self.rg.add(other, br)[1]

    def round(self, keep=None) -> float:
        """One round: solve, measure, add the cut (and a new column unless ``keep`` restricts
        the team to the columns ``keep``). Returns the measured bound."""
        team = self.team
        if team == 0:
            sol = self.rg.solve(team_a_cols=keep)
            mine, dual = sol.lam, sol.mu
        else:
            sol = self.rg.solve(team_b_cols=keep)
            mine, dual = sol.mu, sol.lam
        bound, new_cut = self._cut(mine)
        if self._better(bound):
            self.best = (bound, mine.copy())
        new_col = False
        if self.generate and keep is None:
            Tdual = self.rg.sets[1 - team].mixture_reach(dual)
            _, br = best_response_pure(self.game, team, Tdual, self.V[team])
            new_col = self.rg.add(team, br)[1]
        self.rounds += 1
        # stable: the other team's best response is already a cut and nothing new to mix
        self.done = not (new_cut or new_col)
        return bound

    def sparsify(self, cap: int, deadline: float, max_rounds: int = 200) -> None:
        """Keep at most ``cap`` columns (the heaviest of the best mixture) and re-weight them
        against the other team's whole DAG until stable."""
        weights = self.best[1]
        if int((weights > 0).sum()) <= cap:
            return
        keep = np.sort(np.argsort(-weights, kind="stable")[:cap])
        # the truncated mixture, measured, is the fallback if there is no time to re-weight
        w = np.zeros_like(weights)
        w[keep] = weights[keep]
        w /= w.sum()
        bound, _ = self._cut(w)
        self.best = (bound, w)
        for _ in range(max_rounds):
            if time.perf_counter() > deadline:
                break
            self.round(keep=keep)
            if self.done:
                break

    def mixture(self) -> TeamMixture:
        return self.rg.sets[self.team].mixture(self.best[1])


def export(
    game: DagGame,
    candidates: Candidates,
    *,
    max_signals: int = MAX_SIGNALS,
    time_limit: float = 60.0,
    target_gap: float = 0.0,
    max_rounds: int = 1000,
    generate: bool = True,
    max_cuts: int = 50,
    progress=None,
    per_team: bool = False,
) -> ExportResult:
    """Export both teams from ``candidates`` (see the module docstring).

    Parameters
    ----------
    candidates : strategies per team (each team needs at least one); only those of the
        newest batch are used (:meth:`.candidates.Candidates.newest`). The last ``max_cuts``
        best responses (kind ``"br"`` or ``"column"``) and the first ``max_cuts`` peeled
        strategies of each team also start the other team's export as cuts. A ``"product"``
        candidate (the average's marginals) is measured alone first, as a safe start.
    max_signals : cap on the merged meta-strategy's signals; with ``per_team``, on each
        team's own (the 2025 team zips: nothing is merged, see :func:`fits`).
    time_limit : seconds for the rounds (each costs about four exact best responses and two
        small linear programmes); sparsification may add a few seconds.
    target_gap : stop once the best exported pair's exact gap is this small.
    generate : also add each team's best response to the other's restricted strategy as a
        new column every round (column generation on both sides).
    progress : optional callable receiving a :class:`Measurement` per round.
    """
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    if max_signals < 1:
        raise ValueError("max_signals must be at least 1")
    for team in (0, 1):
        if not candidates.items[team]:
            raise ValueError(f"no candidate strategy for team {'AB'[team]}")
    V = [d.new_values() for d in game.dags]
    exports = []
    order = {"product": 0, "column": 1, "br": 2, "peel": 3}
    for team in (0, 1):
        other = candidates.newest(1 - team)
        cuts = [s for s, k in other if k in ("br", "column")][-max_cuts:]
        cuts += [s for s, k in other if k == "peel"][:max_cuts]
        mine = candidates.newest(team)
        # newest best responses first (they answer the latest averages), then peels in order
        ranked = sorted(
            range(len(mine)),
            key=lambda i: (order.get(mine[i][1], 4), -i if mine[i][1] == "br" else i),
        )
        items = [mine[i][0] for i in ranked]
        safe = items[0] if mine[ranked[0]][1] == "product" else None
        build_deadline = t0 + 0.4 * time_limit * (team + 1) / 2
        exports.append(
            TeamExport(
                game,
                team,
                items[1:] if safe is not None else items,
                cuts,
                V,
                generate,
                safe,
                deadline=build_deadline,
            )
        )
    rounds = 0
    while rounds < max_rounds:
        for e in exports:
            if not e.done:
                e.round()
        rounds += 1
        lower, upper = exports[0].best[0], exports[1].best[0]
        if progress is not None:
            progress(Measurement(rounds, time.perf_counter() - t0, lower, upper, "export"))
        if (
            upper - lower <= max(target_gap, 1e-12)
            or all(e.done for e in exports)
            or time.perf_counter() > deadline
        ):
            break

    # at most max_signals merged signals: K_A + K_B - 1 <= max_signals (per team: each <=)
    supp = [int((e.best[1] > 0).sum()) for e in exports]
    if per_team:
        for e, k in zip(exports, supp):
            if k > max_signals:
                e.sparsify(max_signals, deadline)
    elif supp[0] + supp[1] - 1 > max_signals:
        half = (max_signals + 1) // 2
        caps = [half, max_signals + 1 - half]
        if supp[0] < caps[0]:
            caps = [supp[0], max_signals + 1 - supp[0]]
        elif supp[1] < caps[1]:
            caps = [max_signals + 1 - supp[1], supp[1]]
        for e, cap in zip(exports, caps):
            e.sparsify(cap, deadline)

    mixtures = (exports[0].mixture(), exports[1].mixture())
    sub = merge_submission(game, mixtures)
    return ExportResult(
        mixtures=mixtures,
        lower=float(exports[0].best[0]),
        upper=float(exports[1].best[0]),
        rounds=rounds,
        columns=(len(exports[0].rg.sets[0]), len(exports[1].rg.sets[1])),
        seconds=time.perf_counter() - t0,
        submission=sub,
    )


def guaranteed_value(game: DagGame, mixture: TeamMixture) -> float:
    """Exact value (team-A chips) that ``mixture`` guarantees against the other team's exact
    best response on its whole DAG: a lower bound on v* for team A, an upper bound for B."""
    from types import SimpleNamespace

    from .. import reach
    from ..dag import best_values
    from ..files.threads import threads_to_use
    from ..reach import team_reach

    team = mixture.team
    dag = game.dags[team]
    if not mixture.items:
        raise ValueError("guaranteed_value: the mixture has no signals")
    # a few signals at a time, one per thread: a pure item's (n, 3) behaviour is built only
    # while it is summed (all of them at once: 0.7 GB for 100 signals on team-leduc); the
    # signals are added to T in order, so the sums are the same bits as in one team_reach
    # over all of them, on any number of threads
    weights = np.asarray(mixture.weights, dtype=np.float64).tolist()
    T = np.zeros((len(game.tree.terminals), dag.num_deals))
    step = min(reach.THREADS or threads_to_use(), 8)  # a signal per thread in flight
    for j0 in range(0, len(weights), step):
        built = [item.strategies() for item in mixture.items[j0 : j0 + step]]
        played = SimpleNamespace(
            probs=weights[j0 : j0 + step],
            strategies={s: [b[s] for b in built] for s in dag.seats},
        )
        team_reach(game.tree, played, dag.seats, out=T)
    v = best_values(game, 1 - team, T, game.dags[1 - team].new_values())
    return -v if team == 0 else v


def measured(game: DagGame, mixtures) -> tuple:
    """Each of a pair of team mixtures (or None) with its :func:`guaranteed_value`."""
    return tuple(None if m is None else (m, guaranteed_value(game, m)) for m in mixtures)


def fits(weights_a, weights_b, max_signals: int, per_team: bool = False) -> bool:
    """Do two teams' mixtures (their weight vectors) fit the signal budget? ``per_team``:
    each team its own meta-strategy (the 2025 team zips), at most ``max_signals`` signals
    each; otherwise one merged meta-strategy (a CSV submission) of at most ``max_signals``
    signals (:func:`teamleduc.files.model.merge_team_mixtures`)."""
    if per_team:
        return len(weights_a) <= max_signals and len(weights_b) <= max_signals
    return merge_team_mixtures(weights_a, weights_b).probs.size <= max_signals


def with_alternatives(
    game: DagGame,
    ex: ExportResult,
    alternatives,
    *,
    max_signals: int = MAX_SIGNALS,
    per_team: bool = False,
) -> ExportResult:
    """``ex`` with either team's mixture replaced by its alternative (e.g. stratified signals,
    :mod:`.stratify`) where that gives the smallest exact gap within ``max_signals`` merged
    signals (per team with ``per_team``, see :func:`fits`). ``alternatives`` is a pair of
    ``(TeamMixture, exact bound)`` (see :func:`measured`) or None."""
    t0 = time.perf_counter()
    options = []
    for team in (0, 1):
        opts = [(ex.mixtures[team], ex.lower if team == 0 else ex.upper)]
        if alternatives[team] is not None:
            opts.append(alternatives[team])
        options.append(opts)
    best = None
    for a, la in options[0]:
        for b, ub in options[1]:
            if not fits(a.weights, b.weights, max_signals, per_team):
                continue
            if best is None or ub - la < best[3] - best[2]:
                best = (a, b, la, ub)
    a, b, la, ub = best
    if a is ex.mixtures[0] and b is ex.mixtures[1]:
        return ex
    return ExportResult(
        mixtures=(a, b),
        lower=float(la),
        upper=float(ub),
        rounds=ex.rounds,
        columns=ex.columns,
        seconds=ex.seconds + time.perf_counter() - t0,
        submission=merge_submission(game, (a, b)),
    )


def from_alternatives(
    game: DagGame,
    alternatives,
    *,
    max_signals: int = MAX_SIGNALS,
    per_team: bool = False,
    submission: bool = True,
) -> ExportResult | None:
    """The export made of both teams' alternatives alone (pairs ``(TeamMixture, exact
    bound)``, see :func:`measured`); None if one is missing or they do not :func:`fits` the
    budget of ``max_signals`` signals (merged, or per team with ``per_team``). Without
    ``submission`` the merged submission is not built (None; e.g. an export that is refined
    next: 6 s and 1.4 GB on team-leduc)."""
    if any(a is None for a in alternatives):
        return None
    (a, la), (b, ub) = alternatives
    if not fits(a.weights, b.weights, max_signals, per_team):
        return None
    t0 = time.perf_counter()
    sub = merge_submission(game, (a, b)) if submission else None
    return ExportResult(
        mixtures=(a, b),
        lower=float(la),
        upper=float(ub),
        rounds=0,
        columns=(0, 0),
        seconds=time.perf_counter() - t0,
        submission=sub,
    )


def with_submission(game: DagGame, ex: ExportResult) -> ExportResult:
    """``ex`` with its merged submission, built if it has none."""
    if ex.submission is not None:
        return ex
    return dataclasses.replace(ex, submission=merge_submission(game, ex.mixtures))


def merge_submission(game: DagGame, mixtures) -> Submission:
    """One full submission from both teams' mixtures (merged meta-strategy). A team whose
    signals keep their order and are the rows of one array per seat (stratified or refined
    signals on shared weights) lends the submission those arrays (no copy, read by everything
    that takes a submission, written by nothing); any other is copied seat by seat, straight
    into the merged order."""
    a, b = mixtures
    tabs = infoset_tables(game.tree)
    sizes = {s: tabs[s].size for s in range(game.config.num_seats)}
    merged = merge_team_mixtures(a.weights, b.weights)
    strategies = a.rows_in_order(sizes, merged.index_a) | b.rows_in_order(sizes, merged.index_b)
    probs = merged.probs / merged.probs.sum()
    return Submission(
        np.arange(len(probs), dtype=np.int64), probs, tuple(sorted(strategies)), strategies
    )


def team_submission(tree, mixture: TeamMixture) -> Submission:
    """One team's own submission: its mixture's signals and weights as they are (no merge),
    what a 2025 team zip holds (:func:`teamleduc.files.format2025.write_team_zip`). ``tree``: the
    game's public tree."""
    tabs = infoset_tables(tree)
    strategies = mixture.strategies({s: tabs[s].size for s in mixture.seats})
    probs = np.asarray(mixture.weights, dtype=np.float64)
    return Submission(
        np.arange(probs.size, dtype=np.int64),
        probs / probs.sum(),
        tuple(mixture.seats),
        {s: np.asarray(strategies[s]) for s in mixture.seats},
    )


def submission_gap(config, submission: Submission) -> tuple[float, float, str]:
    """Exact (lower, upper) value bounds of a full submission, measured independently of the
    solver's DAG passes by :func:`teamleduc.best_response.exploitability` (team A's
    guaranteed value ``-BR_B(x)`` and its best-response value ``BR_A(y)``), and what measured
    them."""
    r = exploitability(config, submission)
    return float(r.worst_case_a), float(r.br_a.value), "teamleduc.best_response.exploitability"
