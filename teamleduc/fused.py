"""Fused multiply-adds for the fixed-order dot products of ``evaluate`` and ``grade``.

Every pair value is a chain ``s = fma(a[l], b[l], s)`` over each block of terms, ``l``
ascending: one rounding per term, the same in the single dot product of
:func:`teamleduc.evaluate._dot` and in the grader's register tiles, so both give the same bytes.
LLVM's ``llvm.fma`` is correctly rounded by definition: on a CPU with FMA units it is one
instruction, on one without it a call to the C library's ``fma``, slower but the same bytes. So
a grading's files do not depend on the machine either.

numba offers no fused multiply-add, and LLVM's vectoriser leaves scalar ``llvm.fma`` calls
unpacked, so :func:`tile_fma` writes the grader's inner loop in LLVM IR directly: a tile of
``ROWS x COLS`` pairs whose sums live in ``ROWS * COLS / WIDTH`` vector registers, each step
broadcasting one value of A per row and loading ``COLS`` values of B.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: pairs per register tile: rows of A (broadcast) x columns of B (vectors); 14 x 16 sums in 28
#: vector registers of 8 doubles: the fastest of the shapes tried (8 x 8 to 16 x 16, 10 x 24, 6 x 32)
ROWS = 14
COLS = 16
#: doubles per vector (AVX-512; LLVM splits it on narrower machines, with the same values)
WIDTH = 8

_F64 = ir.DoubleType()
_I64 = ir.IntType(64)


def _fma_function(builder, ty):
    name = "llvm.fma.f64" if ty is _F64 else f"llvm.fma.v{ty.count}f64"
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(ty, [ty, ty, ty]), name)


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c`` with one rounding (float64)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.call(_fma_function(builder, _F64), args)

    return sig, codegen


@intrinsic
def tile_fma(typingctx, ap, a0, bp, b0, m, out):
    """``s = fma(ap[a0 + l * ROWS + i], bp[b0 + l * COLS + j], s)`` for ``l = 0 .. m - 1``,
    where ``s`` is ``out[i * COLS + j]``: the chains of ``ROWS x COLS`` pairs continued over
    ``m`` more terms, from packed rows of A and B (contiguous float64 arrays, no bounds
    check), ``out`` of ``ROWS * COLS``. A chain started at +0.0 and continued over a block's
    terms in pieces has the same bytes as over the block at once."""
    arrays = (ap, bp, out)
    if not all(
        isinstance(t, types.Array) and t.ndim == 1 and t.layout == "C" and t.dtype == types.float64
        for t in arrays
    ) or not all(isinstance(t, types.Integer) for t in (a0, b0, m)):
        return None  # numba reports that no signature matches
    sig = types.void(ap, a0, bp, b0, m, out)

    def codegen(context, builder, signature, args):
        vec = ir.VectorType(_F64, WIDTH)
        fused = _fma_function(builder, vec)
        pa, a0, pb, b0, steps, po = (
            context.make_array(t)(context, builder, v).data
            if isinstance(t, types.Array)
            else context.cast(builder, v, t, types.int64)
            for t, v in zip(signature.args, args, strict=True)
        )
        pa = builder.gep(pa, [a0])
        pb = builder.gep(pb, [b0])
        per_row = COLS // WIDTH
        first = [
            builder.load(
                builder.bitcast(builder.gep(po, [ir.Constant(_I64, k * WIDTH)]), vec.as_pointer()),
                align=8,
            )
            for k in range(ROWS * per_row)
        ]
        start = builder.block
        loop = builder.append_basic_block("tile.loop")
        body = builder.append_basic_block("tile.body")
        done = builder.append_basic_block("tile.done")
        builder.branch(loop)

        builder.position_at_end(loop)
        l = builder.phi(_I64)
        sums = [builder.phi(vec) for _ in range(ROWS * per_row)]
        l.add_incoming(ir.Constant(_I64, 0), start)
        for s, f in zip(sums, first, strict=True):
            s.add_incoming(f, start)
        builder.cbranch(builder.icmp_signed("<", l, steps), body, done)

        builder.position_at_end(body)
        b_base = builder.mul(l, ir.Constant(_I64, COLS))
        b = [
            builder.load(
                builder.bitcast(
                    builder.gep(pb, [builder.add(b_base, ir.Constant(_I64, k * WIDTH))]),
                    vec.as_pointer(),
                ),
                align=8,
            )
            for k in range(per_row)
        ]
        a_base = builder.mul(l, ir.Constant(_I64, ROWS))
        lanes = ir.Constant(ir.VectorType(ir.IntType(32), WIDTH), [0] * WIDTH)
        new = []
        for i in range(ROWS):
            x = builder.load(builder.gep(pa, [builder.add(a_base, ir.Constant(_I64, i))]))
            x = builder.insert_element(ir.Constant(vec, ir.Undefined), x, ir.Constant(_I64, 0))
            x = builder.shuffle_vector(x, ir.Constant(vec, ir.Undefined), lanes)
            new += [builder.call(fused, [x, b[k], sums[i * per_row + k]]) for k in range(per_row)]
        step_end = builder.block
        l.add_incoming(builder.add(l, ir.Constant(_I64, 1)), step_end)
        for s, n in zip(sums, new, strict=True):
            s.add_incoming(n, step_end)
        builder.branch(loop)

        builder.position_at_end(done)
        for k, s in enumerate(sums):
            target = builder.gep(po, [ir.Constant(_I64, k * WIDTH)])
            builder.store(s, builder.bitcast(target, vec.as_pointer()), align=8)
        return context.get_dummy_value()

    return sig, codegen
