"""Export by stratified signals: a team's average DAG strategy as K equally likely signals that
share its flow, so that correlation is kept almost everywhere.

Why: a regret minimiser's average on the belief DAG is a mixture of a huge number of pure joint
strategies. Peeling a few of them off loses most of it, and averaging the members' marginals
(one signal) loses the correlation; both cost chips on the big presets.

What: K signals, each drawn with probability 1/K, are sent down the team's belief DAG together.
Every signal carries a *mass* at each DAG node (public node h, belief b) it reaches; at the
root each has 1/K. Where a member acts, the node's rows (prescriptions) get room in proportion
to their probabilities, and the signals at (h, b), heaviest first, are packed into them: each
goes whole to the row with the most room left, and is split across rows only when no row has
room for all of it (or, with ``round_share`` <= 1, goes whole to that row anyway when its room
holds at least that share of the signal). Non-member nodes pass every mass to every child. Below a node where the team-mate never acts
again (it folded, or its decisions are over) there is nothing to correlate, and every signal
mixes on its own in the rows' exact proportions.

* Without rounding (the default) the signals' DAG strategies together have exactly the
  average's flow, hence its value (tested). Packing keeps splits rare, so most of each
  signal's play is pure: a pure joint strategy, which the product of its members' behavioural
  marginals exports exactly.
* With rounding at share 0 every signal is pure (except below nodes where the team-mate never
  acts again), and the flow is kept up to one signal's mass per node.

Each signal is exported as the product of its members' behavioural marginals. Both teams use
the same K equal weights, so their merged meta-strategy has K signals, not 2K - 1
(:func:`teamleduc.files.model.merge_team_mixtures` cuts [0, 1] at the union of the two
cumulative distributions, which coincide).

Measured on ``team-leduc-2025`` (averages within 4.5e-3 of the value), exact exported gap with
K packed signals per team: 4.58 (K = 1, the marginals), 1.52 (8), 0.27 (50), 0.151 (100).
Laying the signals end to end in a fixed order and cutting at the rows' cumulative
probabilities instead gave 0.219 with 100 signals (0.163 with rounding at one half); a greedy
split of the same average into 50 conditional-marginal signals per team 0.91; the earlier
export of peeled pure strategies about 2.5. On team-leduc (averages within 0.14 of the value)
100 packed signals give 0.49.

Cost: one compiled pass over the public tree carrying (active beliefs x K) masses per node,
plus the marginals (K x information sets x 3 per member).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..dag import DagGame, sweep
from ..infosets import infoset_tables
from .mixtures import ProductStrategy, TeamMixture

#: default share of a signal's mass that a row's room must hold for the whole signal to go
#: there although it does not fit (inf: never; the signals then keep the exact flow)
ROUND_SHARE = np.inf


@njit(cache=True, inline="always")
def _play(h, m, r, k, mass, children, tab_child, tab_assign, id_of, pool, tot, slot, num0, num1):
    """Signal ``k`` plays row ``r`` at (h, ·) with ``mass``: pass it on, count it per action."""
    for a in range(3):
        cb = tab_child[r, a]
        if cb >= 0:
            cs = slot[children[h, a]]
            pool[cs, cb, k] += mass
            tot[cs, cb] += mass
    for x in range(tab_assign.shape[1]):
        act = tab_assign[r, x]
        if act >= 0:
            i = id_of[m, h, x]
            if m == 0:
                num0[k, i, act] += mass
            else:
                num1[k, i, act] += mass


@njit(cache=True)
def _stratify(
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    tab_assign,
    id_of,
    roots,
    term_index,
    cx_ptr,
    cx_idx,
    sigma,
    weights,
    round_share,
    pool_size,
    max_rows,
    private,
    num0,
    num1,
    reach,
):
    """The pass described in the module docstring. Nodes are in pre-order (children after
    parents), so each node's masses live in a pool slot from its parent's visit to its own.
    Fills the members' action counts ``num0``/``num1`` (K, n, 3) and the signals' DAG terminal
    reach ``reach`` (Z, X) (their flow, before the marginals)."""
    N = kind.shape[0]
    B = tab_offsets.shape[1] - 1
    K = weights.shape[0]
    pool = np.zeros((pool_size, B, K))
    tot = np.zeros((pool_size, B))
    slot = np.full(N, -1, np.int64)
    free = np.arange(pool_size)[::-1].copy()
    nfree = pool_size
    nfree -= 1
    slot[0] = free[nfree]
    for b in roots:
        for k in range(K):
            pool[slot[0], b, k] = weights[k]
            tot[slot[0], b] += weights[k]
    room = np.empty(max_rows)
    order = np.empty(K, np.int64)
    for h in range(N):
        s = slot[h]
        if s < 0:
            continue  # never reached by the team
        if kind[h] == 2:
            z = term_index[h]
            for b in range(B):
                if tot[s, b] > 0.0:
                    for q in range(cx_ptr[b], cx_ptr[b + 1]):
                        reach[z, cx_idx[q]] += tot[s, b]
        else:
            for a in range(children.shape[1]):
                c = children[h, a]
                if c >= 0:
                    if nfree == 0:
                        raise ValueError("stratify: node pool exhausted")
                    nfree -= 1
                    slot[c] = free[nfree]
            m = member[h]
            if m < 0:
                for a in range(children.shape[1]):
                    c = children[h, a]
                    if c >= 0:
                        cs = slot[c]
                        for b in range(B):
                            if tot[s, b] > 0.0:
                                tot[cs, b] = tot[s, b]
                                for k in range(K):
                                    pool[cs, b, k] = pool[s, b, k]
            else:
                t = table[h]
                base = row0[h] - tab_start[t]
                for b in range(B):
                    mass = tot[s, b]
                    if mass <= 0.0:
                        continue
                    lo = tab_offsets[t, b]
                    nr = tab_offsets[t, b + 1] - lo
                    ssum = 0.0
                    for j in range(nr):
                        ssum += sigma[base + lo + j]
                    acc = 0.0  # each row's share of the mass: its room
                    for j in range(nr):  # (cumulated, so that the rooms add up to mass)
                        p = sigma[base + lo + j] / ssum if ssum > 0.0 else 1.0 / nr
                        nxt = acc + p * mass if j < nr - 1 else mass
                        room[j] = nxt - acc
                        acc = nxt
                    # the signals, heaviest first, each to the row with the most room left;
                    # a signal is split only if no row has room for all of it
                    nk = 0
                    for k in range(K):
                        if pool[s, b, k] > 0.0:
                            order[nk] = k
                            nk += 1
                    for i in range(1, nk):
                        v = order[i]
                        q = i
                        while q > 0 and pool[s, b, order[q - 1]] < pool[s, b, v]:
                            order[q] = order[q - 1]
                            q -= 1
                        order[q] = v
                    if private[h]:
                        # the team-mate never acts below h: nothing to correlate with, so every
                        # signal mixes on its own, in the rows' exact proportions
                        for i in range(nk):
                            k = order[i]
                            for j in range(nr):
                                share = room[j] / mass * pool[s, b, k]
                                if share > 0.0:
                                    _play(
                                        h,
                                        m,
                                        lo + j,
                                        k,
                                        share,
                                        children,
                                        tab_child,
                                        tab_assign,
                                        id_of,
                                        pool,
                                        tot,
                                        slot,
                                        num0,
                                        num1,
                                    )
                        continue
                    for i in range(nk):
                        k = order[i]
                        left = pool[s, b, k]
                        whole = True
                        while left > 0.0:
                            bj = 0
                            for j in range(1, nr):
                                if room[j] > room[bj]:
                                    bj = j
                            if whole and room[bj] >= round_share * left:
                                take = left  # all of it (rounding if over the room)
                            elif room[bj] > 0.0:
                                take = min(left, room[bj])
                            else:
                                take = left  # float dust beyond the last room
                            whole = False
                            _play(
                                h,
                                m,
                                lo + bj,
                                k,
                                take,
                                children,
                                tab_child,
                                tab_assign,
                                id_of,
                                pool,
                                tot,
                                slot,
                                num0,
                                num1,
                            )
                            room[bj] -= take
                            left -= take
        # release the slot, clean for its next node
        for b in range(B):
            if tot[s, b] != 0.0:
                tot[s, b] = 0.0
                for k in range(K):
                    pool[s, b, k] = 0.0
        slot[h] = -1
        free[nfree] = s
        nfree += 1


@njit(cache=True)
def _mate_never_acts(kind, actor, children, member, seats, out):
    """``out[h]``: a member acts at h and the other member has no decision below h."""
    N = kind.shape[0]
    below = np.zeros((N, 2), np.bool_)
    for h in range(N - 1, -1, -1):  # children have larger ids than their parent
        for a in range(children.shape[1]):
            c = children[h, a]
            if c >= 0:
                for i in range(2):
                    if below[c, i] or (kind[c] == 0 and actor[c] == seats[i]):
                        below[h, i] = True
    for h in range(N):
        if member[h] >= 0:
            out[h] = not below[h, 1 - member[h]]


def private_nodes(dag) -> np.ndarray:
    """(N,) bool: team nodes below which the acting member's team-mate never acts (it folded,
    or its decisions are over); there the signals mix privately and lose nothing."""
    out = np.zeros(dag.tree.num_nodes, np.bool_)
    if dag.num_members == 2:
        t = dag.tree
        _mate_never_acts(t.kind, t.actor, t.children, dag.member, np.array(dag.seats), out)
    return out


@njit(cache=True, parallel=True)
def _normalise(num, uniform):
    """Counts (K, n, 3) to behaviour in place; uniform where a signal never reaches."""
    K, n = num.shape[0], num.shape[1]
    for k in prange(K):
        for i in range(n):
            t = num[k, i, 0] + num[k, i, 1] + num[k, i, 2]
            for a in range(3):
                num[k, i, a] = num[k, i, a] / t if t > 0.0 else uniform[i, a]


def stratified_counts(
    game: DagGame,
    team: int,
    sigma: np.ndarray,
    signals: int,
    round_share: float = ROUND_SHARE,
    weights: np.ndarray | None = None,
):
    """Run the pass: ({seat: (K, n, 3) action counts}, (Z, X) DAG terminal reach of the
    signals together). ``weights``: the signals' masses at the root (default 1/K each)."""
    if signals < 1:
        raise ValueError("signals must be at least 1")
    d = game.dags[team]
    tree = game.tree
    tabs = infoset_tables(tree)
    K = int(signals)
    nums = [np.zeros((K, tabs[s].size, 3)) for s in d.seats]
    n1 = nums[1] if len(nums) > 1 else np.zeros((K, 0, 3))
    reach = np.zeros((len(tree.terminals), d.num_deals))
    pool_size = (int(tree.depth.max()) + 2) * tree.children.shape[1] + 1
    if weights is None:
        weights = np.full(K, 1.0 / K)
    else:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if weights.shape != (K,) or (weights < 0).any() or abs(weights.sum() - 1.0) > 1e-9:
            raise ValueError(f"weights must be {K} non-negative numbers summing to 1")
    _stratify(
        tree.kind,
        tree.children,
        d.member,
        d.table,
        d.row0,
        d.tab_offsets,
        d.tab_start,
        d.tab_child,
        d.tab_assign,
        d.id_of,
        d.roots,
        sweep(tree).term_index,
        d.cx_ptr,
        d.cx_idx,
        np.asarray(sigma),
        weights,
        float(round_share),
        pool_size,
        d.max_rows,
        private_nodes(d),
        nums[0],
        n1,
        reach,
    )
    return dict(zip(d.seats, nums)), reach


def stratified_mixture(
    game: DagGame,
    team: int,
    sigma: np.ndarray,
    signals: int,
    round_share: float = ROUND_SHARE,
    weights: np.ndarray | None = None,
) -> TeamMixture:
    """``team``'s behavioural DAG strategy ``sigma`` as ``signals`` equally likely product
    strategies (see the module docstring); or with the given ``weights`` (e.g. the other
    team's, so that both teams share one meta-strategy)."""
    counts, _ = stratified_counts(game, team, sigma, signals, round_share, weights)
    tabs = infoset_tables(game.tree)
    probs = {}
    for s, num in counts.items():
        _normalise(num, tabs[s].uniform_strategy())
        probs[s] = num
    d = game.dags[team]
    items = tuple(
        ProductStrategy(d.seats, {s: probs[s][k] for s in d.seats}) for k in range(signals)
    )
    w = np.full(signals, 1.0 / signals) if weights is None else np.asarray(weights, np.float64)
    return TeamMixture(team, d.seats, w.copy(), items)
