"""The compiled per-member passes of the export refinement (:mod:`.refine`).

In a refinement block one member of a team plays K signals of behavioural strategies while the
other member's per-signal strategies are fixed: a perfect-recall problem per signal. These
kernels run it over the public tree, one signal per thread, arrays signal-major (K, nodes,
ranks): the members' reach at every node (:func:`_member_reach`) and the free member's at the
terminals (:func:`_member_reach_terminals`), the team's terminal reach of the pair
(:func:`_pair_reach`), the free member's counterfactual values (:func:`_member_values`) and
its regret update (:func:`_member_pass`), and a block's average strategy
(:func:`_block_average`). The free member's kernels walk its own nodes and their frontiers
(:mod:`.member_frontier`) instead of the tree. Tested against numpy in ``tests/test_refine.py``.
"""

import numba
import numpy as np
from numba import get_thread_id, njit, prange


@njit(cache=True, inline="always")
def _u(i):
    """``i`` as an unsigned index (the caller knows it is >= 0): numba then skips the
    wraparound check of negative indices in the inner loops (as in :mod:`teamleduc.dag.kernels`)."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def _regret_step(sj, rj, i, legal_m, nl, q0, q1, q2, pos_f, neg_f):
    """Regret matching at information set ``i`` of an own node with legal actions
    ``legal_m`` (``nl`` of them) and action values ``q0, q1, q2`` (float64): updates
    ``rj[i]`` and ``sj[i]``, returns the expected value under the strategy before."""
    ev = 0.0
    if legal_m[0]:
        ev += sj[i, 0] * q0
    if legal_m[1]:
        ev += sj[i, 1] * q1
    if legal_m[2]:
        ev += sj[i, 2] * q2
    tot = 0.0
    for a in range(3):
        if legal_m[a]:
            q = q0 if a == 0 else (q1 if a == 1 else q2)
            r = rj[i, a] + q - ev
            r *= pos_f if r > 0 else neg_f
            rj[i, a] = r
            tot += max(r, 0.0)
    for a in range(3):
        if legal_m[a]:
            sj[i, a] = max(rj[i, a], 0.0) / tot if tot > 0 else 1.0 / nl
    return ev


@njit(cache=True, parallel=True)
def _member_pass(
    own, legal, tptr, tz, optr, om, cv, sigma, reg, scratch, root, pos_f, neg_f, live
):  # fmt: skip
    """Per-signal CFR update of one member (``sigma``/``reg`` (K, M R, 3)) against
    counterfactual terminal values ``cv`` (K, Z, R); writes each signal's value at the root
    into ``root`` (K, R). Walks the member's own nodes from the last to the first and, below
    each action, its frontier (:func:`.member_frontier.member_frontier`: ``own`` ... ``om``):
    an action's value is the sum, in float64, of its frontier's terminal values and then
    its own nodes' values, in ascending order. Signals in parallel: each writes only its own
    slices, and its own nodes' values into the running thread's
    ``scratch[numba.get_thread_id()]`` ((threads, M, R): :func:`member_scratch`).

    ``live[j, h]`` false (the fixed member never gets to node h in signal j) skips own node
    h (its regrets would only be rescaled, which leaves the strategy as it is; its value is
    0). The refiner's ``live`` is closed under descendants and ``cv`` is +0 at the terminals
    it does not reach (the fixed member's reach there is 0), so every skipped value is the
    0 the sums would give. Against the walk over every node that this replaced (release
    0.4.12), the sums are grouped otherwise: the same values to rounding, 2.2-2.3 times as
    fast on team-leduc (docs/history/solver.md). Three ranks (both big presets) take a loop
    written out for them, with the same sums in the same order."""
    M = own.shape[0]
    K, _, R = cv.shape
    for j in prange(K):
        Vo = scratch[get_thread_id()]
        sj, rj, cj, lj = sigma[j], reg[j], cv[j], live[j]
        q = np.zeros((3, R))
        for m in range(M - 1, -1, -1):
            if not lj[own[m]]:
                for x in range(R):
                    Vo[m, x] = 0.0
                continue
            lm = legal[m]
            nl = 0
            for a in range(3):
                if not lm[a]:
                    continue
                nl += 1
                s = 3 * m + a
                if R == 3:
                    b0, b1, b2 = 0.0, 0.0, 0.0
                    for e in range(tptr[s], tptr[s + 1]):
                        cz = cj[tz[e]]
                        b0 += cz[0]
                        b1 += cz[1]
                        b2 += cz[2]
                    for e in range(optr[s], optr[s + 1]):
                        vo = Vo[om[e]]
                        b0 += vo[0]
                        b1 += vo[1]
                        b2 += vo[2]
                    q[a, 0], q[a, 1], q[a, 2] = b0, b1, b2
                    continue
                for x in range(R):
                    q[a, x] = 0.0
                for e in range(tptr[s], tptr[s + 1]):
                    for x in range(R):
                        q[a, x] += cj[tz[e], x]
                for e in range(optr[s], optr[s + 1]):
                    for x in range(R):
                        q[a, x] += Vo[om[e], x]
            for x in range(R):
                i = m * R + x
                Vo[m, x] = _regret_step(sj, rj, i, lm, nl, q[0, x], q[1, x], q[2, x], pos_f, neg_f)
        s = 3 * M
        for x in range(R):
            v = 0.0
            for e in range(tptr[s], tptr[s + 1]):
                v += cj[tz[e], x]
            for e in range(optr[s], optr[s + 1]):
                v += Vo[om[e], x]
            root[j, x] = v


def member_scratch(num_own: int, num_ranks: int, dtype) -> np.ndarray:
    """The own nodes' values :func:`_member_pass` (or reach :func:`_member_reach_terminals`)
    keeps per thread: (threads, M, R) of ``dtype`` for numba's current number of threads."""
    return np.empty((numba.get_num_threads(), num_own, num_ranks), dtype)


@njit(cache=True, parallel=True)
def _member_reach_terminals(own, legal, tptr, tz, optr, om, sigma, out, cum, wj, scratch):
    """Reach (K, Z, R) at the terminals of one member's per-signal strategies ``sigma``
    (K, M R, 3), walking its own nodes and their frontiers (``own`` ... ``om``, as
    :func:`_member_pass`); adds ``wj[j]`` x reach-weighted sigma to ``cum`` when ``wj`` is
    non-empty. The products are those of :func:`_member_reach` along each path, so the same
    bits at the terminals (an own node's reach lives in the running thread's
    ``scratch`` (threads, M, R)); about 1.6 times as fast on team-leduc, and (K, Z, R)
    instead of (K, N, R). Signals in parallel."""
    M = own.shape[0]
    K, _, R = out.shape
    acc = wj.shape[0] > 0
    for j in prange(K):
        Ro = scratch[get_thread_id()]
        oj, sj, cj = out[j], sigma[j], cum[j]
        v = np.empty(R, out.dtype)
        s = 3 * M
        for e in range(tptr[s], tptr[s + 1]):
            for x in range(R):
                oj[tz[e], x] = 1.0
        for e in range(optr[s], optr[s + 1]):
            for x in range(R):
                Ro[om[e], x] = 1.0
        for m in range(M):
            for a in range(3):
                if not legal[m, a]:
                    continue
                s = 3 * m + a
                if R == 3:
                    i = 3 * m
                    v0 = Ro[m, 0] * sj[i, a]
                    v1 = Ro[m, 1] * sj[i + 1, a]
                    v2 = Ro[m, 2] * sj[i + 2, a]
                    if acc:
                        cj[i, a] += wj[j] * Ro[m, 0] * sj[i, a]
                        cj[i + 1, a] += wj[j] * Ro[m, 1] * sj[i + 1, a]
                        cj[i + 2, a] += wj[j] * Ro[m, 2] * sj[i + 2, a]
                    for e in range(tptr[s], tptr[s + 1]):
                        oz = oj[tz[e]]
                        oz[0], oz[1], oz[2] = v0, v1, v2
                    for e in range(optr[s], optr[s + 1]):
                        ro = Ro[om[e]]
                        ro[0], ro[1], ro[2] = v0, v1, v2
                    continue
                for x in range(R):
                    i = m * R + x
                    v[x] = Ro[m, x] * sj[i, a]
                    if acc:
                        cj[i, a] += wj[j] * Ro[m, x] * sj[i, a]
                for e in range(tptr[s], tptr[s + 1]):
                    for x in range(R):
                        oj[tz[e], x] = v[x]
                for e in range(optr[s], optr[s + 1]):
                    for x in range(R):
                        Ro[om[e], x] = v[x]


@njit(cache=True, parallel=True)
def _member_reach(parent, action, kind, actor, seat, id_of, sigma, out):
    """Reach (K, N, R) at every node of one member's per-signal strategies (the fixed
    member's at a block's start, the exact checks' float64 reach). Signals in parallel."""
    K, N, R = out.shape
    for j in prange(K):
        oj, sj = out[j], sigma[j]
        for x in range(R):
            oj[0, x] = 1.0
        for h in range(1, N):
            p = _u(parent[h])
            op = oj[p]
            oh = oj[_u(h)]
            if kind[p] == 0 and actor[p] == seat:
                a = _u(action[h])
                for x in range(R):
                    oh[x] = op[x] * sj[_u(id_of[p, x]), a]
            else:
                for x in range(R):
                    oh[x] = op[x]


#: terminals per block of the per-terminal kernels (a block walks the signals in order)
_ZBLOCK = 512


@njit(cache=True, parallel=True)
def _pair_reach(p, rfix, rfree, term, free_second, out, clear=True):
    """The team's (Z, R*R) terminal reach ``out[z, a*R + b]`` (a: the first member's rank) from
    the signal weights ``p``, the fixed member's per-signal reach ``rfix`` (K, Z, R) at the
    terminals and the free member's ``rfree`` (K, N, R) at every node (second member when
    ``free_second``). Blocks of terminals in parallel, signals in order within a block. With
    ``clear`` False the signals are added to ``out`` as it is: consecutive chunks of signals
    then give the same sums, bit for bit, as all of them at once. Three ranks (both big
    presets) take a loop written out for them, with the same sums in the same order."""
    K, _, R = rfix.shape
    Z = term.shape[0]
    if clear:
        out[:] = 0.0
    for blk in prange((Z + _ZBLOCK - 1) // _ZBLOCK):
        z0 = blk * _ZBLOCK
        z1 = min(z0 + _ZBLOCK, Z)
        for j in range(K):
            pj = p[j]
            if pj == 0.0:
                continue
            if R == 3:
                xj, fj = rfix[j], rfree[j]
                for z in range(z0, z1):
                    h = _u(term[z])
                    if free_second:
                        a0, a1, a2 = xj[z, 0], xj[z, 1], xj[z, 2]
                        b0, b1, b2 = fj[h, 0], fj[h, 1], fj[h, 2]
                    else:
                        a0, a1, a2 = fj[h, 0], fj[h, 1], fj[h, 2]
                        b0, b1, b2 = xj[z, 0], xj[z, 1], xj[z, 2]
                    oz = out[z]
                    _add_row(oz, 0, pj * a0, b0, b1, b2)
                    _add_row(oz, 3, pj * a1, b0, b1, b2)
                    _add_row(oz, 6, pj * a2, b0, b1, b2)
                continue
            for z in range(z0, z1):
                h = term[z]
                for a in range(R):
                    ra = pj * (rfix[j, z, a] if free_second else rfree[j, h, a])
                    if ra != 0.0:
                        for b in range(R):
                            rb = rfree[j, h, b] if free_second else rfix[j, z, b]
                            out[z, a * R + b] += ra * rb


@njit(cache=True, inline="always")
def _add_row(oz, i, ra, b0, b1, b2):
    """``oz[i + b] += ra * rb`` for the three ranks b, unless ``ra`` is 0 (as the loop of
    :func:`_pair_reach` does)."""
    if ra != 0.0:
        oz[i] += ra * b0
        oz[i + 1] += ra * b1
        oz[i + 2] += ra * b2


@njit(cache=True, parallel=True)
def _member_values(W, rfix, free_second, out):
    """Counterfactual terminal values (K, Z, R) of the free member: ``W`` (Z, R, R) summed
    against the fixed member's per-signal terminal reach ``rfix`` (K, Z, R), over the fixed
    member's rank (the first index of ``W`` when ``free_second``, else the second). Each value
    is ``((0 + W r_0) + W r_1) + ...`` in float64, which is +0 where the fixed member never gets
    (every ``r`` 0: ``W`` is finite). Three ranks (both big presets) take a loop written out
    for them: about three times as fast as the general one on team-leduc, the same bits."""
    K, Z, R = rfix.shape
    for blk in prange((Z + _ZBLOCK - 1) // _ZBLOCK):
        z0 = blk * _ZBLOCK
        z1 = min(z0 + _ZBLOCK, Z)
        for j in range(K):
            rj, oj = rfix[j], out[j]
            if R == 3:
                for z in range(z0, z1):
                    r0 = np.float64(rj[z, 0])
                    r1 = np.float64(rj[z, 1])
                    r2 = np.float64(rj[z, 2])
                    Wz = W[z]
                    if free_second:
                        oj[z, 0] = ((0.0 + Wz[0, 0] * r0) + Wz[1, 0] * r1) + Wz[2, 0] * r2
                        oj[z, 1] = ((0.0 + Wz[0, 1] * r0) + Wz[1, 1] * r1) + Wz[2, 1] * r2
                        oj[z, 2] = ((0.0 + Wz[0, 2] * r0) + Wz[1, 2] * r1) + Wz[2, 2] * r2
                    else:
                        oj[z, 0] = ((0.0 + Wz[0, 0] * r0) + Wz[0, 1] * r1) + Wz[0, 2] * r2
                        oj[z, 1] = ((0.0 + Wz[1, 0] * r0) + Wz[1, 1] * r1) + Wz[1, 2] * r2
                        oj[z, 2] = ((0.0 + Wz[2, 0] * r0) + Wz[2, 1] * r1) + Wz[2, 2] * r2
                continue
            for z in range(z0, z1):
                for x in range(R):
                    s = 0.0
                    for y in range(R):
                        if free_second:
                            s += W[z, y, x] * rj[z, y]
                        else:
                            s += W[z, x, y] * rj[z, y]
                    oj[z, x] = s


@njit(cache=True, parallel=True)
def _block_average(cum, fallback, out):
    """A block's average strategy: ``out[j, i] = cum[j, i] / ((cum[j, i, 0] + cum[j, i, 1]) +
    cum[j, i, 2])``, in ``cum``'s type, or ``fallback[j, i]`` where that sum is not positive
    (the block never reached the information set). These are numpy's bits for
    ``np.divide(cum, cum.sum(axis=2, keepdims=True), out=fallback.copy(), where=sum > 0)``, in
    one pass instead of four: on team-leduc those took two thirds of a block's exact check.
    Signals in parallel; ``cum``, ``fallback`` and ``out`` are (K, n, 3)."""
    K, n, _ = cum.shape
    for j in prange(K):
        cj, fj, oj = cum[j], fallback[j], out[j]
        for i in range(n):
            t = cj[i, 0] + cj[i, 1] + cj[i, 2]
            if t > 0:
                for a in range(3):
                    oj[i, a] = cj[i, a] / t
            else:
                for a in range(3):
                    oj[i, a] = fj[i, a]
