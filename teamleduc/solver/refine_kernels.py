"""The compiled per-member passes of the export refinement (:mod:`.refine`).

In a refinement block one member of a team plays K signals of behavioural strategies while the
other member's per-signal strategies are fixed: a perfect-recall problem per signal. These
kernels run it over the public tree, one signal per thread, arrays signal-major (K, nodes,
ranks): the members' reach (:func:`_member_reach`), the team's terminal reach of the pair
(:func:`_pair_reach`), the free member's counterfactual values (:func:`_member_values`) and
its regret update (:func:`_member_pass`), and a block's average strategy
(:func:`_block_average`). Tested against numpy in ``tests/test_refine.py``.
"""

import numba
import numpy as np
from numba import get_thread_id, njit, prange


@njit(cache=True, inline="always")
def _u(i):
    """``i`` as an unsigned index (the caller knows it is >= 0): numba then skips the
    wraparound check of negative indices in the inner loops (as in :mod:`teamleduc.dag.kernels`)."""
    return np.uint64(i)


@njit(cache=True, parallel=True)
def _member_pass(
    kind, children, actor, seat, id_of, term_index, cv, sigma, reg, scratch, root, pos_f, neg_f,
    live,
):  # fmt: skip
    """Per-signal CFR update of one member (``sigma``/``reg`` (K, n, 3)) against counterfactual
    terminal values ``cv`` (K, Z, R); writes each signal's values at the root into ``root``
    (K, R). Signals in parallel: each writes only its own slice of ``sigma``, ``reg`` and
    ``root``, and its node values into the running thread's ``scratch[numba.get_thread_id()]``
    ((threads, N + 1, R), row N zeros: :func:`member_scratch`), reused from signal to signal
    instead of a (K, N, R) array of every signal's values (about 8 % faster on team-leduc,
    docs/history/solver.md). Nodes where ``live[j, h]`` is
    false (the fixed member never gets there in signal j, so every value below is 0) are
    skipped: their regrets would only be rescaled, which leaves the strategy as it is; a
    parent reads such a child's value from the zero row, as the same +0 it was once written."""
    N = kind.shape[0]
    K, _, R = cv.shape
    for j in prange(K):
        Vj = scratch[get_thread_id()]
        sj, rj, cj, lj = sigma[j], reg[j], cv[j], live[j]
        for h in range(N - 1, -1, -1):
            if not lj[h]:
                continue
            if kind[h] == 2:
                z = term_index[h]
                for x in range(R):
                    Vj[h, x] = cj[z, x]
            elif kind[h] == 0 and actor[h] == seat:
                for x in range(R):
                    i = id_of[h, x]
                    ev = 0.0
                    for a in range(3):
                        c = children[h, a]
                        if c >= 0:
                            ev += sj[i, a] * Vj[c if lj[c] else N, x]
                    Vj[h, x] = ev
                    tot = 0.0
                    nl = 0
                    for a in range(3):
                        c = children[h, a]
                        if c >= 0:
                            nl += 1
                            r = rj[i, a] + Vj[c if lj[c] else N, x] - ev
                            r *= pos_f if r > 0 else neg_f
                            rj[i, a] = r
                            tot += max(r, 0.0)
                    for a in range(3):
                        if children[h, a] >= 0:
                            sj[i, a] = max(rj[i, a], 0.0) / tot if tot > 0 else 1.0 / nl
            else:
                for x in range(R):
                    s = 0.0
                    for a in range(children.shape[1]):
                        c = children[h, a]
                        if c >= 0:
                            s += Vj[c if lj[c] else N, x]
                    Vj[h, x] = s
        for x in range(R):
            root[j, x] = Vj[0 if lj[0] else N, x]


def member_scratch(num_nodes: int, num_ranks: int, dtype) -> np.ndarray:
    """The node values :func:`_member_pass` keeps per thread: (threads, N + 1, R) of ``dtype``
    for numba's current number of threads, row N zeros (the value of a node skipped)."""
    scratch = np.empty((numba.get_num_threads(), num_nodes + 1, num_ranks), dtype)
    scratch[:, num_nodes] = 0.0
    return scratch


@njit(cache=True, parallel=True)
def _member_reach(parent, action, kind, actor, seat, id_of, sigma, out, cum, wj):
    """Reach (K, N, R) of one member's per-signal strategies; adds ``wj[j]`` x reach-weighted
    sigma to ``cum`` when ``wj`` is non-empty. Signals in parallel."""
    K, N, R = out.shape
    acc = wj.shape[0] > 0
    for j in prange(K):
        oj, sj, cj = out[j], sigma[j], cum[j]
        for x in range(R):
            oj[0, x] = 1.0
        for h in range(1, N):
            p = _u(parent[h])
            op = oj[p]
            oh = oj[_u(h)]
            if kind[p] == 0 and actor[p] == seat:
                a = _u(action[h])
                for x in range(R):
                    i = _u(id_of[p, x])
                    oh[x] = op[x] * sj[i, a]
                    if acc:
                        cj[i, a] += wj[j] * op[x] * sj[i, a]
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
