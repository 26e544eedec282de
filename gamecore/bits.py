"""LLVM operations numba does not name, for the kernels of every game: bit counts of a word, the
nonzero bytes of a block of a mask as a word, and unaligned / bulk stores into the byte arrays of
masks and observations.

The loads and stores do not check bounds: the caller makes sure the bytes lie inside a contiguous
array of bytes (a mask or observation row, whose size the kernel knows when it compiles).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, w):
    """Set bits of a uint64 (LLVM's ctpop)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), ir.IntType(64))

    return sig, codegen


@intrinsic
def store_u64(typingctx, arr, byte, w):
    """Store the uint64 ``w`` at byte offset ``byte`` of ``arr``'s data, unaligned (callers check
    that the 8 bytes lie inside a contiguous array of bytes)."""
    sig = types.void(arr, types.int64, types.uint64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(builder.bitcast(ary.data, ir.IntType(8).as_pointer()), [args[1]])
        builder.store(args[2], builder.bitcast(ptr, ir.IntType(64).as_pointer())).align = 1
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def lowest_bit(typingctx, w):
    """Index of the lowest set bit of a non-zero uint64 (LLVM's cttz)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.cttz(args[0], ir.Constant(ir.IntType(1), 1)), ir.IntType(64))

    return sig, codegen


@intrinsic
def copy_bytes(typingctx, arr, dst, src, nbytes):
    """memcpy within ``arr``'s data: ``nbytes`` bytes from byte offset ``src`` to ``dst`` (callers
    check that both ranges lie inside a contiguous array of bytes and do not overlap)."""
    sig = types.void(arr, types.int64, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        data = builder.bitcast(ary.data, ir.IntType(8).as_pointer())
        cgutils.raw_memcpy(builder, builder.gep(data, [args[1]]), builder.gep(data, [args[2]]), args[3], 1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def nonzero_bits64(typingctx, arr, start):
    """Bit j set where byte ``start + j`` of ``arr``'s data is not 0, for j < 64: one vector compare
    (callers check that the 64 bytes lie inside a contiguous array of bytes)."""
    sig = types.uint64(arr, types.int64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        vty = ir.VectorType(ir.IntType(8), 64)
        ptr = builder.gep(builder.bitcast(ary.data, ir.IntType(8).as_pointer()), [args[1]])
        v = builder.load(builder.bitcast(ptr, vty.as_pointer()), align=1)
        return builder.bitcast(builder.icmp_unsigned("!=", v, ir.Constant(vty, None)), ir.IntType(64))

    return sig, codegen


__all__ = ["copy_bytes", "lowest_bit", "nonzero_bits64", "popcount", "store_u64"]
