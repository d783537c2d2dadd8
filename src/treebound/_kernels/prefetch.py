"""Software prefetch for numba kernels (LLVM's ``llvm.prefetch`` intrinsic).

Tree growth reads per-sample rows (``codes_t[s]``, one cache line per sample) in the order of a
node's sample list, which the hardware prefetcher cannot predict; asking for the row a few
samples ahead hides most of the cache-miss latency.
"""

from __future__ import annotations

from llvmlite import ir
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic


def _prefetch_python(arr, index):
    """The hint's plain-Python form (``NUMBA_DISABLE_JIT=1``): nothing to hint."""


@intrinsic
def _prefetch_intrinsic(typingctx, arr, index):
    """Hint that element ``index`` of the C-contiguous array ``arr``'s data (counted flat, in
    elements) will be read soon. No effect on results; never faults."""
    if not isinstance(arr, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read access, high temporal locality, data cache
        builder.call(fn, [i8p, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


# An intrinsic cannot run as Python, and with the JIT off every kernel that calls it does.
prefetch = _prefetch_python if config.DISABLE_JIT else _prefetch_intrinsic
