"""The compiled loops over a team's flat belief-DAG arrays (numba, ``cache=True``).

Every kernel of the layer lives in this one file on purpose: the small ``inline="always"``
helpers (``_u``, ``_leaf``, ``_belief_sums``, ``_root_reach``, ...) are inlined into their
callers, and numba's on-disk cache is keyed by the caller's *file*, so a helper in another file
could change without invalidating the cached callers. The kernels take plain arrays (the layout
of :mod:`teamleduc.dag.structure`) and nothing from the package; their Python entry points are
in :mod:`.structure` (reachability, uniform rows, weights), :mod:`.passes` (CFR, max DP, flows,
marginals) and :mod:`.pure` (pure strategies). The underscore names are private to
:mod:`teamleduc.dag`.

Kinds of node: 0 decision, 1 chance, 2 terminal (:mod:`teamleduc.tree`).

The serial passes (:func:`_cfr_ser`, :func:`_flows_ser`, :func:`_max_ser`) and the max DP
(:func:`_max_par`) are compiled without numba's reference counting (``_nrt=False``, an option
numba's own library uses for code that allocates nothing). With it, numba counted a reference
to each array passed to an inlined helper or sliced into a row view: two calls into its
runtime each time, once per node. Without it the bits are the same and the max DP of an exact
best response and the serial passes run faster (side by side with the code before:
``python -m benchmarks engine``). The parallel regret and flow passes keep it: numba already
dropped the counts from their level loops, and no difference was measured (before the loops
took runs of equal work; not measured since). Helpers called once per row take scalars, not
arrays (:func:`_positive_regret`).
"""

import numba
import numpy as np
from numba import njit, prange

_FAST = {"nsz", "arcp", "contract", "reassoc"}  # fastmath without assuming finite values


@njit(cache=True, inline="always")
def _u(i):
    """``i`` as an unsigned index (the caller knows it is >= 0): numba skips the wraparound
    check of negative indices, which measured a third of the time of the inner loops."""
    return np.uint64(i)


@njit(cache=True)
def _uniform_rows(member, table, row0, tab_offsets, tab_start, sigma):
    B = tab_offsets.shape[1] - 1
    for h in range(member.shape[0]):
        if member[h] < 0:
            continue
        t = table[h]
        base = row0[h] - tab_start[t]
        for b in range(B):
            lo = tab_offsets[t, b]
            hi = tab_offsets[t, b + 1]
            for r in range(lo, hi):
                sigma[base + r] = 1.0 / (hi - lo)


@njit(cache=True, inline="always")
def _positive_regret(regret, last_inst, predictive):
    """The regret matched at a row from its stored float32 ``regret`` (not the float64 it
    was rounded from), so that a checkpoint's regrets give back the current strategy exactly,
    plus its last instantaneous regret ``last_inst`` when ``predictive``. Scalars, not the
    arrays and an index: numba counts a reference to every array passed to an inlined helper,
    and in the serial kernel's row loop those counts (two calls to the runtime per row) took a
    third of the regret pass."""
    x = np.float64(regret)
    if predictive:
        x += np.float64(last_inst)
    return max(x, 0.0)


@njit(cache=True, inline="always")
def _normalise_rows(q, total, first, n, sigma):
    # sigma[first + j] = q[j] / total, or uniform when no regret is positive
    if total > 0.0:
        inv = 1.0 / total
        for j in range(n):
            sigma[first + j] = q[j] * inv
    else:
        inv = 1.0 / n
        for j in range(n):
            sigma[first + j] = inv


@njit(cache=True, parallel=True, fastmath=_FAST)
def _match_all(member, table, row0, tab_offsets, tab_start, reg, last, predictive, sigma, q):
    # regret matching of every decision row, as at the end of _cfr_node (the same helpers, the
    # same flags), so a resumed run's current strategy is the solver's own, bit for bit
    # (tests/test_solver.py); q: (threads, max rows) scratch
    B = tab_offsets.shape[1] - 1
    for h in prange(member.shape[0]):
        if member[h] < 0:
            continue
        qh = q[numba.get_thread_id()]
        t = table[h]
        for b in range(B):
            lo = _u(tab_offsets[t, b])
            n = _u(tab_offsets[t, b + 1]) - lo
            first = _u(row0[h] + tab_offsets[t, b] - tab_start[t])
            total = 0.0
            for j in range(n):
                i = first + j
                x = _positive_regret(reg[i], last[i] if predictive else 0.0, predictive)
                qh[j] = x
                total += x
            _normalise_rows(qh, total, first, n, sigma)


@njit(cache=True, parallel=True)
def _weights(C, Ci, T, team, out):
    """``out`` (Z, X_team): the weights of ``team`` against the other team's reach ``T``, the
    payoffs of terminal z being ``C[Ci[z]]``."""
    _, XA, XB = C.shape
    for z in prange(Ci.shape[0]):
        Cz = C[_u(Ci[z])]
        if team == 0:
            for a in range(XA):
                s = 0.0
                for b in range(XB):
                    s += Cz[a, b] * T[z, b]
                out[z, a] = s
        else:
            for b in range(XB):
                out[z, b] = 0.0
            for a in range(XA):
                t = T[z, a]
                if t != 0.0:
                    for b in range(XB):
                        out[z, b] -= Cz[a, b] * t


@njit(cache=True, inline="always")
def _leaf(h, z, team, C, Ci, T, cx_ptr, cx_idx, V, w, B):
    """V[h, b] = sum_{x in b} W[z, x], W from the other team's reach T and the payoffs
    ``C[Ci[z]]``; returns whether any value is non-zero (False at once, values zeroed, where
    the other team never reaches z)."""
    zu = _u(z)
    Tz = T[zu]
    Cz = C[_u(Ci[zu])]
    XA = Cz.shape[0]
    XB = Cz.shape[1]
    other = Tz.shape[0]
    reached = False
    for y in range(other):
        if Tz[y] != 0.0:
            reached = True
            break
    if not reached:
        Vr = V[_u(h)]
        for b in range(B):
            Vr[b] = 0.0
        return False
    if XA == 9 and XB == 9:
        _leaf_weights_9(team, Cz, Tz, w)  # 9 x 9 joint ranks, e.g. both big presets
    elif team == 0:
        for a in range(XA):
            s = 0.0
            Ca = Cz[a]
            for b in range(XB):
                s += Ca[b] * Tz[b]
            w[a] = s
    else:
        for b in range(XB):
            w[b] = 0.0
        for a in range(XA):
            t = Tz[a]
            if t != 0.0:
                Ca = Cz[a]
                for b in range(XB):
                    w[b] -= Ca[b] * t
    _belief_sums(w, cx_ptr, cx_idx, V, h, B)
    return True


@njit(cache=True, inline="always")
def _leaf_weights_9(team, Cz, Tz, w):
    """:func:`_leaf`'s weights of a terminal for 9 x 9 joint ranks, with loops of a length
    the compiler knows: the same sums in the same order."""
    if team == 0:
        for a in range(9):
            s = 0.0
            Ca = Cz[a]
            for b in range(9):
                s += Ca[b] * Tz[b]
            w[a] = s
    else:
        for b in range(9):
            w[b] = 0.0
        for a in range(9):
            t = Tz[a]
            if t != 0.0:
                Ca = Cz[a]
                for b in range(9):
                    w[b] -= Ca[b] * t


@njit(cache=True, inline="always")
def _belief_sums(w, cx_ptr, cx_idx, V, row, B):
    """V[row, b] = sum_{x in b} w[x]: leaf values from the team's weights w (X,)."""
    Vr = V[_u(row)]
    for bel in range(B):
        s = 0.0
        for k in range(_u(cx_ptr[bel]), _u(cx_ptr[bel + 1])):
            s += w[_u(cx_idx[k])]
        Vr[bel] = s


@njit(cache=True, inline="always")
def _sum_children(h, children, V, B, nonzero):
    """V[h] = the sum of the children's values (a node where the team does not act); the
    node is marked in ``nonzero`` when a child is."""
    Vh = V[_u(h)]
    for b in range(B):
        Vh[b] = 0.0
    any_child = False
    for a in range(children.shape[1]):
        c = children[h, a]
        if c >= 0 and nonzero[c]:
            any_child = True
            Vc = V[_u(c)]
            for b in range(B):
                Vh[b] += Vc[b]
    nonzero[h] = any_child


@njit(cache=True, inline="always", fastmath=_FAST)
def _cfr_node(
    h,
    children,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    possible,
    V,
    reg,
    sigma,
    last,
    pos_f,
    neg_f,
    predictive,
    util,
    B,
    nonzero,
):
    """One team node of the bottom-up regret pass. ``nonzero`` marks the nodes whose values may
    be non-zero (the dummy node N never is): where every child's values are zero, so are the
    rows' utilities, and the gather of child values is skipped (the update is the same)."""
    t = _u(table[h])
    c0 = _u(children[h, 0])  # padded: the dummy node N (all-zero values) if missing
    c1 = _u(children[h, 1])
    c2 = _u(children[h, 2])
    live = nonzero[c0] or nonzero[c1] or nonzero[c2]
    nonzero[h] = live
    # unsigned indices throughout: numba checks every signed index for wraparound, which
    # cost a third of this loop; the table's offsets and the node's first row are hoisted
    V0 = V[c0]
    V1 = V[c1]
    V2 = V[c2]
    Vh = V[_u(h)]
    ph = possible[_u(h)]
    off = tab_offsets[t]
    base = _u(row0[h] - tab_start[t])
    for b in range(B):
        if not ph[b]:
            Vh[b] = 0.0
            continue
        lo = _u(off[b])
        n = _u(off[b + 1]) - lo
        first = base + lo
        ev = 0.0
        if live:
            for j in range(n):
                r = lo + j
                # padded: the dummy belief B (value 0) where no rank plays the action
                u = V0[_u(tab_child[r, 0])] + V1[_u(tab_child[r, 1])] + V2[_u(tab_child[r, 2])]
                util[j] = u
                ev += sigma[first + j] * u
        else:
            for j in range(n):
                util[j] = 0.0
        Vh[b] = ev
        total = 0.0
        for j in range(n):
            i = first + j
            inst = util[j] - ev
            x = reg[i] + inst
            reg[i] = x * (pos_f if x > 0.0 else neg_f)
            if predictive:
                last[i] = inst
            q = _positive_regret(reg[i], last[i] if predictive else 0.0, predictive)
            util[j] = q
            total += q
        _normalise_rows(util, total, first, n, sigma)


@njit(cache=True, parallel=True)
def _cfr_par(
    order,
    cuts,
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    possible,
    terminals,
    team,
    C,
    Ci,
    T,
    cx_ptr,
    cx_idx,
    V,
    reg,
    sigma,
    last,
    pos_f,
    neg_f,
    predictive,
    util,
    w,
    B,
    child_all,
    nonzero,
):
    """The regret pass: every terminal's values first, in terminal order (one pass streaming
    the other team's reach ``T`` in order, each terminal's payoffs ``C[Ci[z]]`` from their
    small table: inside the level sweep the same reads came scattered, and cost about a sixth
    more of the pass), then the other nodes
    level by level from the bottom, the shares of each level
    (:func:`.structure.level_shares`) in parallel."""
    nonzero[kind.shape[0]] = False  # the dummy node
    for z in prange(terminals.shape[0]):
        h = terminals[z]
        nonzero[h] = _leaf(h, z, team, C, Ci, T, cx_ptr, cx_idx, V, w[numba.get_thread_id()], B)
    for lev in range(cuts.shape[0] - 1, -1, -1):
        for s in prange(cuts.shape[1] - 1):
            th = numba.get_thread_id()
            for i in range(cuts[lev, s], cuts[lev, s + 1]):
                h = order[i]
                if kind[h] == 2:
                    continue
                if member[h] < 0:
                    _sum_children(h, child_all, V, B, nonzero)
                else:
                    _cfr_node(
                        h,
                        children,
                        table,
                        row0,
                        tab_offsets,
                        tab_start,
                        tab_child,
                        possible,
                        V,
                        reg,
                        sigma,
                        last,
                        pos_f,
                        neg_f,
                        predictive,
                        util[th],
                        B,
                        nonzero,
                    )


@njit(cache=True, _nrt=False)
def _cfr_ser(
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    possible,
    terminals,
    team,
    C,
    Ci,
    T,
    cx_ptr,
    cx_idx,
    V,
    reg,
    sigma,
    last,
    pos_f,
    neg_f,
    predictive,
    util,
    w,
    B,
    child_all,
    nonzero,
):
    """:func:`_cfr_par` without threads, in node order (children have larger ids)."""
    nonzero[kind.shape[0]] = False  # the dummy node
    for z in range(terminals.shape[0]):
        h = terminals[z]
        nonzero[h] = _leaf(h, z, team, C, Ci, T, cx_ptr, cx_idx, V, w[0], B)
    th = 0
    for h in range(kind.shape[0] - 1, -1, -1):
        if kind[h] == 2:
            continue
        if member[h] < 0:
            _sum_children(h, child_all, V, B, nonzero)
        else:
            _cfr_node(
                h,
                children,
                table,
                row0,
                tab_offsets,
                tab_start,
                tab_child,
                possible,
                V,
                reg,
                sigma,
                last,
                pos_f,
                neg_f,
                predictive,
                util[th],
                B,
                nonzero,
            )


@njit(cache=True, inline="always")
def _max_node(
    h,
    kind,
    children,
    member,
    table,
    tab_offsets,
    tab_child,
    possible,
    prune,
    term_index,
    W,
    cx_ptr,
    cx_idx,
    slot,
    Vin,
    Vout,
    choice,
    team_index,
    B,
    child_all,
):
    """One node of the max DP: children's values are read from ``Vin[slot[c]]``, the node's
    written to ``Vout[slot[h]]`` (both the full (N + 1, B + 1) array, or two level buffers).
    ``prune`` leaves 0 where the belief is not ``possible``; a non-empty ``choice`` records
    the maximising table row at team nodes."""
    row = slot[h]
    if kind[h] == 2:
        _belief_sums(W[term_index[h]], cx_ptr, cx_idx, Vout, row, B)
        return
    if member[h] < 0:
        for b in range(B):
            Vout[row, b] = 0.0
        for a in range(child_all.shape[1]):
            c = child_all[h, a]
            if c >= 0:
                rc = slot[c]
                for b in range(B):
                    Vout[row, b] += Vin[rc, b]
        return
    t = table[h]
    V0 = Vin[_u(slot[children[h, 0]])]  # padded: the dummy node N (zero values) if missing
    V1 = Vin[_u(slot[children[h, 1]])]
    V2 = Vin[_u(slot[children[h, 2]])]
    Vh = Vout[_u(row)]
    record = choice.shape[0] > 0
    d = team_index[h] if record else 0
    for b in range(B):
        if prune and not possible[h, b]:
            Vh[b] = 0.0
            continue
        best = -np.inf
        arg = -1
        for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
            ru = _u(r)
            u = V0[_u(tab_child[ru, 0])] + V1[_u(tab_child[ru, 1])] + V2[_u(tab_child[ru, 2])]
            if u > best:
                best = u
                arg = r
        Vh[b] = best
        if record:
            choice[d, b] = arg


@njit(cache=True, parallel=True, _nrt=False)
def _max_par(
    order,
    cuts,
    kind,
    children,
    member,
    table,
    tab_offsets,
    tab_child,
    possible,
    prune,
    term_index,
    W,
    cx_ptr,
    cx_idx,
    slot,
    Va,
    Vb,
    choice,
    team_index,
    B,
    child_all,
):
    """Level by level from the leaves; even levels write ``Va``
    and read ``Vb``, odd levels the reverse (pass the same array twice for a full ``V``); the
    shares of each level (:func:`.structure.level_shares`) in parallel."""
    for lev in range(cuts.shape[0] - 1, -1, -1):
        Vout, Vin = (Va, Vb) if lev % 2 == 0 else (Vb, Va)
        for s in prange(cuts.shape[1] - 1):
            for i in range(cuts[lev, s], cuts[lev, s + 1]):
                _max_node(
                    order[i],
                    kind,
                    children,
                    member,
                    table,
                    tab_offsets,
                    tab_child,
                    possible,
                    prune,
                    term_index,
                    W,
                    cx_ptr,
                    cx_idx,
                    slot,
                    Vin,
                    Vout,
                    choice,
                    team_index,
                    B,
                    child_all,
                )


@njit(cache=True, _nrt=False)
def _max_ser(
    order,
    bounds,
    kind,
    children,
    member,
    table,
    tab_offsets,
    tab_child,
    possible,
    prune,
    term_index,
    W,
    cx_ptr,
    cx_idx,
    slot,
    Va,
    Vb,
    choice,
    team_index,
    B,
    child_all,
):
    """:func:`_max_par` without threads, for small trees."""
    for lev in range(bounds.shape[0] - 2, -1, -1):
        Vout, Vin = (Va, Vb) if lev % 2 == 0 else (Vb, Va)
        for i in range(bounds[lev], bounds[lev + 1]):
            _max_node(
                order[i],
                kind,
                children,
                member,
                table,
                tab_offsets,
                tab_child,
                possible,
                prune,
                term_index,
                W,
                cx_ptr,
                cx_idx,
                slot,
                Vin,
                Vout,
                choice,
                team_index,
                B,
                child_all,
            )


@njit(cache=True, inline="always")
def _terminal_reach(z, h, cx_ptr, cx_idx, F, Tout, B):
    """Tout[z, x] = the flow of every belief b holding x, at terminal h."""
    Tz = Tout[_u(z)]
    Fh = F[_u(h)]
    for x in range(Tz.shape[0]):
        Tz[x] = 0.0
    for b in range(B):
        f = Fh[b]
        if f != 0.0:
            for k in range(_u(cx_ptr[b]), _u(cx_ptr[b + 1])):
                Tz[_u(cx_idx[k])] += f


@njit(cache=True, inline="always", fastmath=_FAST)
def _flow_node(
    h,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    sigma,
    F,
    cum,
    wt,
    accumulate,
    B,
    child_all,
    spare,
):
    """One non-terminal node of the top-down flow pass: its children's flows (and, with
    ``accumulate``, ``wt`` x each row's flow added to ``cum``). A missing child's flows go to
    ``spare`` (never read), the calling thread's own row: with the dummy node's row of ``F``
    every thread wrote the same cache lines."""
    if member[h] < 0:
        for a in range(child_all.shape[1]):
            c = child_all[h, a]
            if c >= 0:
                for b in range(B):
                    F[c, b] = F[h, b]
        return
    t = _u(table[h])
    dummy = F.shape[0] - 1  # the dummy node, where ``children`` points for a missing child
    c0, c1, c2 = children[h, 0], children[h, 1], children[h, 2]
    F0 = F[_u(c0)] if c0 < dummy else spare  # writes to the dummy belief B are never read
    F1 = F[_u(c1)] if c1 < dummy else spare
    F2 = F[_u(c2)] if c2 < dummy else spare
    Fh = F[_u(h)]
    for b in range(B):
        F0[b] = 0.0
        F1[b] = 0.0
        F2[b] = 0.0
    off = tab_offsets[t]  # hoisted with the node's first row, indices unsigned
    base = _u(row0[h] - tab_start[t])
    for b in range(B):
        f = Fh[b]
        if f == 0.0:
            continue
        lo = _u(off[b])
        n = _u(off[b + 1]) - lo
        first = base + lo
        for j in range(n):
            e = f * sigma[first + j]
            if e == 0.0:
                continue
            if accumulate:
                cum[first + j] += wt * e
            r = lo + j
            F0[_u(tab_child[r, 0])] += e
            F1[_u(tab_child[r, 1])] += e
            F2[_u(tab_child[r, 2])] += e


@njit(cache=True, parallel=True)
def _flows_par(
    order,
    cuts,
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    terminals,
    cx_ptr,
    cx_idx,
    sigma,
    F,
    Tout,
    cum,
    wt,
    accumulate,
    B,
    child_all,
    spare,
):
    """The flow pass: level by level from the root, the shares of each level
    (:func:`.structure.level_shares`) in parallel, the terminals' reach last, in terminal
    order (streamed, as in :func:`_cfr_par`)."""
    for lev in range(cuts.shape[0]):
        for s in prange(cuts.shape[1] - 1):
            own = spare[numba.get_thread_id()]
            for i in range(cuts[lev, s], cuts[lev, s + 1]):
                h = order[i]
                if kind[h] == 2:
                    continue
                _flow_node(
                    h,
                    children,
                    member,
                    table,
                    row0,
                    tab_offsets,
                    tab_start,
                    tab_child,
                    sigma,
                    F,
                    cum,
                    wt,
                    accumulate,
                    B,
                    child_all,
                    own,
                )
    for z in prange(terminals.shape[0]):
        _terminal_reach(z, terminals[z], cx_ptr, cx_idx, F, Tout, B)


@njit(cache=True, _nrt=False)
def _flows_ser(
    kind,
    children,
    member,
    table,
    row0,
    tab_offsets,
    tab_start,
    tab_child,
    terminals,
    cx_ptr,
    cx_idx,
    sigma,
    F,
    Tout,
    cum,
    wt,
    accumulate,
    B,
    child_all,
):
    """:func:`_flows_par` without threads, in node order (a missing child's flows go to the
    dummy node's row)."""
    spare = F[kind.shape[0]]
    for h in range(kind.shape[0]):
        if kind[h] == 2:
            continue
        _flow_node(
            h,
            children,
            member,
            table,
            row0,
            tab_offsets,
            tab_start,
            tab_child,
            sigma,
            F,
            cum,
            wt,
            accumulate,
            B,
            child_all,
            spare,
        )
    for z in range(terminals.shape[0]):
        _terminal_reach(z, terminals[z], cx_ptr, cx_idx, F, Tout, B)


@njit(cache=True, parallel=True)
def _normalize(nodes, table, row0, tab_offsets, tab_start, cum, out):
    B = tab_offsets.shape[1] - 1
    for i in prange(nodes.shape[0]):
        h = nodes[i]
        t = table[h]
        base = row0[h] - tab_start[t]
        for b in range(B):
            lo = tab_offsets[t, b]
            hi = tab_offsets[t, b + 1]
            s = 0.0
            for r in range(lo, hi):
                s += cum[base + r]
            if s > 0.0:
                for r in range(lo, hi):
                    out[base + r] = cum[base + r] / s
            else:
                for r in range(lo, hi):
                    out[base + r] = 1.0 / (hi - lo)


@njit(cache=True, inline="always")
def _root_reach(N, B, roots):
    """(N, B) bool with only the root beliefs at the root node marked."""
    reached = np.zeros((N, B), np.bool_)
    for b in roots:
        reached[0, b] = True
    return reached


@njit(cache=True, inline="always")
def _pass_down(h, children, reached, B):
    """At a node where the team does not act, every child keeps the node's beliefs."""
    for a in range(children.shape[1]):
        c = children[h, a]
        if c >= 0:
            for b in range(B):
                reached[c, b] = reached[h, b]


@njit(cache=True, inline="always")
def _reach_row(h, r, children, tab_child, reached):
    """Mark the (child, belief) pairs that table row ``r`` leads to from team node ``h``."""
    for a in range(3):
        cb = tab_child[r, a]
        if cb >= 0:
            reached[children[h, a], cb] = True


@njit(cache=True)
def _reachable(kind, children, member, table, tab_offsets, tab_child, roots, B):
    """(N, B) bool: the (node, belief) pairs some strategy of the team reaches (children
    have larger ids than their parent)."""
    N = kind.shape[0]
    out = _root_reach(N, B, roots)
    for h in range(N):
        if kind[h] == 2:
            continue
        if member[h] < 0:
            _pass_down(h, children, out, B)
            continue
        t = table[h]
        for b in range(B):
            if out[h, b]:
                for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
                    _reach_row(h, r, children, tab_child, out)
    return out


#: how :func:`_extract` picks a row: best value in V, largest score, or a recorded choice
BY_VALUES, BY_SCORE, BY_CHOICE = 0, 1, 2


@njit(cache=True)
def _extract(
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
    V,
    score,
    choice,
    team_index,
    mode,
    actions0,
    actions1,
    chosen,
):
    """Walk down from the roots choosing one row per reached (node, belief): the row with the
    best continuation value in ``V``, the largest ``score``, or the row ``choice`` recorded by
    the max DP (``mode``). Writes the members' actions and the chosen row indices; returns how
    many rows were chosen."""
    N, B = kind.shape[0], tab_offsets.shape[1] - 1
    R = tab_assign.shape[1]
    reached = _root_reach(N, B, roots)
    n = 0
    for h in range(N):
        if kind[h] == 2:
            continue
        if member[h] < 0:
            _pass_down(h, children, reached, B)
            continue
        t = table[h]
        base = row0[h] - tab_start[t]
        m = member[h]
        for b in range(B):
            if not reached[h, b]:
                continue
            arg = tab_offsets[t, b]
            if mode == BY_CHOICE:
                arg = choice[team_index[h], b]
            else:
                best = -np.inf
                for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
                    if mode == BY_VALUES:
                        u = 0.0
                        for a in range(3):
                            cb = tab_child[r, a]
                            if cb >= 0:
                                u += V[children[h, a], cb]
                    else:
                        u = score[base + r]
                    if u > best:
                        best = u
                        arg = r
            chosen[n] = base + arg
            n += 1
            for x in range(R):
                act = tab_assign[arg, x]
                if act >= 0:
                    i = id_of[m, h, x]
                    if m == 0:
                        actions0[i] = act
                    else:
                        actions1[i] = act
            _reach_row(h, arg, children, tab_child, reached)
    return n


@njit(cache=True)
def _pure_seat_reach(parent, action, actor, kind, id_of, seat, acts, out):
    N, R = out.shape
    for x in range(R):
        out[0, x] = 1
    for h in range(1, N):
        p = parent[h]
        if kind[p] == 0 and actor[p] == seat:
            a = action[h]
            for x in range(R):
                out[h, x] = out[p, x] if acts[id_of[p, x]] == a else 0
        else:
            for x in range(R):
                out[h, x] = out[p, x]


@njit(cache=True, parallel=True)
def _marginals(
    kind, member, table, row0, tab_offsets, tab_start, tab_assign, id_of, sigma, F, num0, num1
):
    N, B = kind.shape[0], tab_offsets.shape[1] - 1
    R = tab_assign.shape[1]
    for h in prange(N):  # a node writes only its own information sets
        m = member[h]
        if m < 0:
            continue
        t = table[h]
        base = row0[h] - tab_start[t]
        for b in range(B):
            f = F[h, b]
            if f == 0.0:
                continue
            for r in range(tab_offsets[t, b], tab_offsets[t, b + 1]):
                e = f * sigma[base + r]
                if e == 0.0:
                    continue
                for x in range(R):
                    a = tab_assign[r, x]
                    if a >= 0:
                        i = id_of[m, h, x]
                        if m == 0:
                            num0[i, a] += e
                        else:
                            num1[i, a] += e
