"""The passes over a team's belief DAG: regret update, best-response DP, flows, marginals.

Python entry points of the compiled kernels (:mod:`teamleduc.dag.kernels`), checking the
arrays they are handed. On large trees the kernels run level by level, a level's nodes in
parallel, each thread one run of them of about equal work (:func:`.structure.level_shares`;
a node writes only its own row of ``V`` or its children's rows of ``F``), the
terminals in a loop of their own; small trees use serial passes in node order (children have
larger ids), the max DP level by level.

* :func:`cfr_update` - leaf values from the other team's reach, values under the current
  strategy, and the regret update with regret matching, in one bottom-up pass;
  :func:`match_regrets` - the same regret matching alone (a resumed run's current strategy);
* :func:`best_values` - the exact best-response DP (max over rows) into a full ``V``;
  :func:`max_dp_levels` runs the same kernel on two level buffers (``(widest level + 1, B + 1)``
  each, the node's row given by its position in its level) and records the maximising row per
  (team node, belief) instead: the exact team best response of :mod:`teamleduc.best_response_dp`, which
  needs no full ``V``;
* :func:`flows` - flow and terminal reach of a behavioural DAG strategy, optionally adding the
  flow of every row to a cumulative (average) strategy; :func:`normalize` turns cumulative
  row weights into a behavioural strategy;
* :func:`marginals` - each member's behavioural marginal of a DAG strategy.

Row arrays (regrets, strategies, cumulative strategies) are float32 (:data:`ROW_DTYPE`): they
are the bulk of the memory traffic, and every value, flow and payoff is accumulated in float64.
"""

from __future__ import annotations

import numba
import numpy as np

from ..infosets import infoset_tables
from .kernels import (
    _cfr_par,
    _cfr_ser,
    _flows_par,
    _flows_ser,
    _marginals,
    _match_all,
    _max_par,
    _max_ser,
    _normalize,
)
from .structure import (
    ROW_DTYPE,
    DagGame,
    TeamDag,
    level_shares,
    sweep,
    team_index,
    team_nodes,
)


def _shares(dag: TeamDag, work: str) -> np.ndarray:
    """The runs of each level that the parallel kernel of pass ``work`` hands to the threads
    numba runs now."""
    return level_shares(dag, numba.get_num_threads(), work)


def _per_thread(columns: int) -> np.ndarray:
    """(threads, at least ``columns``) float64 scratch, one row per thread that numba runs
    now, the rows at least a cache line apart: rows sharing a line made the threads writing
    them wait on each other (false sharing)."""
    width = -(-max(columns, 1) // 8) * 8 + 8  # whole 64-byte lines and one more
    return np.zeros((numba.get_num_threads(), width))


def _scratch(dag: TeamDag) -> tuple[np.ndarray, np.ndarray]:
    return _per_thread(dag.max_rows), _per_thread(dag.num_deals)


_EMPTY_F4 = np.zeros(0, ROW_DTYPE)


def _check_rows(dag: TeamDag, *arrays) -> None:
    for a in arrays:
        if a.dtype != ROW_DTYPE or a.shape != (dag.num_rows,):
            raise ValueError(
                f"row array must be {np.dtype(ROW_DTYPE).name} of shape "
                f"({dag.num_rows},), got {a.dtype} {a.shape}"
            )


def _check_values(dag: TeamDag, V: np.ndarray) -> None:
    if V.shape != (dag.tree.num_nodes + 1, dag.num_beliefs + 1) or V.dtype != np.float64:
        raise ValueError(
            f"values/flows must be float64 of shape (N + 1, B + 1) = "
            f"{(dag.tree.num_nodes + 1, dag.num_beliefs + 1)} (TeamDag.new_values()), "
            f"got {V.dtype} {V.shape}"
        )


def cfr_update(
    game: DagGame,
    team: int,
    reach_other: np.ndarray,
    V: np.ndarray,
    reg,
    sigma,
    last,
    pos_f: float,
    neg_f: float,
    predictive: bool,
) -> float:
    """One regret update of ``team`` against the other team's terminal reach; returns the
    value of the current strategy (before the update). ``last`` may be empty unless
    ``predictive``."""
    dag = game.dags[team]
    tree = dag.tree
    _check_rows(dag, reg, sigma)
    if predictive:
        _check_rows(dag, last)
    sw = sweep(tree)
    util, w = _scratch(dag)
    T = np.ascontiguousarray(reach_other, dtype=np.float64)
    _check_values(dag, V)
    args = (
        tree.kind,
        dag.child_pad,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_child_pad,
        dag.possible,
        tree.terminals,
        team,
        game.C_table,
        game.C_index,
        T,
        dag.cx_ptr,
        dag.cx_idx,
        V,
        reg,
        sigma,
        last if predictive else _EMPTY_F4,
        float(pos_f),
        float(neg_f),
        bool(predictive),
        util,
        w,
        dag.num_beliefs,
        tree.children,
        np.empty(tree.num_nodes + 1, np.bool_),
    )
    if sw.parallel:
        _cfr_par(sw.order, _shares(dag, "regret"), *args)
    else:
        _cfr_ser(*args)
    return dag.root_value(V)


def match_regrets(dag: TeamDag, reg, last, predictive: bool) -> np.ndarray:
    """The current strategy that :func:`cfr_update` derives from the regrets ``reg`` (and,
    when ``predictive``, the last instantaneous regrets ``last``), bit for bit: a resumed run
    recomputes it instead of reading it from its checkpoint."""
    _check_rows(dag, reg)
    if predictive:
        _check_rows(dag, last)
    sigma = np.empty(dag.num_rows, ROW_DTYPE)
    q, _ = _scratch(dag)
    _match_all(
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        reg,
        last if predictive else _EMPTY_F4,
        bool(predictive),
        sigma,
        q,
    )
    return sigma


_NO_CHOICE = np.zeros((0, 0), np.int32)
_NO_POSSIBLE = np.zeros((0, 0), np.bool_)


def _max_dp(
    dag: TeamDag,
    W: np.ndarray,
    slot: np.ndarray,
    Va: np.ndarray,
    Vb: np.ndarray,
    prune: bool,
    choice: np.ndarray,
    parallel: bool,
) -> None:
    """Run the max DP kernel against the weights W (Z, X)."""
    tree = dag.tree
    sw = sweep(tree)
    W = np.ascontiguousarray(W, dtype=np.float64)
    if W.shape != (len(tree.terminals), dag.num_deals):
        raise ValueError(
            f"W has shape {W.shape}, expected ({len(tree.terminals)}, {dag.num_deals})"
        )
    kernel = _max_par if parallel else _max_ser
    kernel(
        sw.order,
        _shares(dag, "max") if parallel else sw.bounds,
        tree.kind,
        dag.child_pad,
        dag.member,
        dag.table,
        dag.tab_offsets,
        dag.tab_child_pad,
        dag.possible if prune else _NO_POSSIBLE,
        bool(prune),
        sw.term_index,
        W,
        dag.cx_ptr,
        dag.cx_idx,
        slot,
        Va,
        Vb,
        choice,
        team_index(dag),
        dag.num_beliefs,
        tree.children,
    )


def best_values(game: DagGame, team: int, reach_other: np.ndarray, V: np.ndarray) -> float:
    """Fill ``V`` with the exact best-response DP of ``team`` against the other team's
    terminal reach; returns the best-response value. Beliefs the team cannot reach keep 0."""
    dag = game.dags[team]
    _check_values(dag, V)
    sw = sweep(dag.tree)
    _max_dp(dag, game.weights(team, reach_other), sw.ident, V, V, True, _NO_CHOICE, sw.parallel)
    return dag.root_value(V)


def max_dp_levels(
    dag: TeamDag, W: np.ndarray, parallel: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The max DP against the team's weights W (Z, X) keeping only two levels of values:
    ``(root_values (B,), choice)``, ``choice`` (team nodes, B) int32 the maximising table row
    of every (team node, belief) for :func:`extract_pure`. Every belief is valued (no
    pruning), so ``root_values[b]`` is the best value from belief b.

    Serial by default: one best response is a single short pass, for which threads measured
    no faster on team-leduc (2 CPUs) and loading the threaded kernel costs cold time."""
    sw = sweep(dag.tree)
    shape = (sw.width + 1, dag.num_beliefs + 1)  # last row and column: zero dummies
    Va, Vb = np.zeros(shape), np.zeros(shape)
    choice = np.full((len(team_nodes(dag)), dag.num_beliefs), -1, np.int32)
    _max_dp(dag, W, sw.pos, Va, Vb, False, choice, parallel)
    return Va[sw.pos[0], : dag.num_beliefs].copy(), choice


def flows(
    dag: TeamDag,
    sigma: np.ndarray,
    F: np.ndarray,
    cum: np.ndarray | None = None,
    weight: float = 0.0,
) -> np.ndarray:
    """Fill ``F`` (N, B) with the flow of the behavioural DAG strategy ``sigma``; with ``cum``
    add ``weight`` x (flow of every row) to it. Returns the terminal reach (Z, X) float64.
    The dummy node's row ``F[N]`` is scratch: the serial pass writes missing children's flows
    there, the parallel one each thread's own spare row."""
    tree = dag.tree
    _check_rows(dag, sigma)
    acc = cum is not None
    if acc:
        _check_rows(dag, cum)
    _check_values(dag, F)
    F[0, :] = 0.0
    F[0, dag.roots] = 1.0
    sw = sweep(tree)
    Tout = np.zeros((len(tree.terminals), dag.num_deals))
    args = (
        tree.kind,
        dag.child_pad,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_child_pad,
        tree.terminals,
        dag.cx_ptr,
        dag.cx_idx,
        sigma,
        F,
        Tout,
        cum if acc else _EMPTY_F4,
        float(weight),
        acc,
        dag.num_beliefs,
        tree.children,
    )
    if sw.parallel:
        _flows_par(sw.order, _shares(dag, "flow"), *args, _per_thread(dag.num_beliefs + 1))
    else:
        _flows_ser(*args)
    return Tout


def normalize(dag: TeamDag, cum: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Behavioural strategy from cumulative row weights (uniform where they are all zero)."""
    out = np.empty(dag.num_rows, ROW_DTYPE) if out is None else out
    _normalize(team_nodes(dag), dag.table, dag.row0, dag.tab_offsets, dag.tab_start, cum, out)
    return out


def marginals(dag: TeamDag, sigma: np.ndarray, F: np.ndarray) -> dict[int, np.ndarray]:
    """Each member's behavioural marginal of the DAG strategy ``sigma`` (flow ``F`` filled by
    :func:`flows` for the same ``sigma``): ``{seat: (n, 3)}``, uniform over the legal actions
    where the strategy never reaches. For a team of one this is exactly the strategy; for two
    members the product of the marginals forgets the correlation."""
    tabs = infoset_tables(dag.tree)
    nums = [np.zeros((tabs[s].size, 3)) for s in dag.seats]
    n1 = nums[1] if len(nums) > 1 else np.zeros((0, 3))
    _marginals(
        dag.tree.kind,
        dag.member,
        dag.table,
        dag.row0,
        dag.tab_offsets,
        dag.tab_start,
        dag.tab_assign,
        dag.id_of,
        sigma,
        F,
        nums[0],
        n1,
    )
    out = {}
    for s, num in zip(dag.seats, nums):
        den = num.sum(axis=1, keepdims=True)
        uniform = tabs[s].uniform_strategy()
        out[s] = np.where(den > 0, num / np.where(den > 0, den, 1.0), uniform)
    return out
