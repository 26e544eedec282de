"""LLVM operations numba does not name, for the kernels of every game: bit counts of a word, the
nonzero bytes of a block of a mask as a word, and unaligned / bulk stores into the byte arrays of
masks and observations.

The loads and stores address the array's data directly, so numba's own bounds checking
(``NUMBA_BOUNDSCHECK=1``) cannot see them: the caller makes sure the bytes lie inside a contiguous
array of bytes (a mask or observation row, whose size the kernel knows when it compiles). Each has
two forms, chosen once, when this module is imported:

* the raw intrinsic (``raw_store_u64``, ``raw_copy_bytes``, ``raw_nonzero_bits64``), which checks
  nothing: the normal path, whose machine code this choice does not change;
* a checked form (``checked_store_u64`` ...) that raises IndexError unless the array is contiguous
  and every byte it touches lies inside it, then calls the raw one: used in a process that runs
  numba bounds-checked (:data:`CHECKED`, from ``NUMBA_BOUNDSCHECK``), as the fuzz tests do
  (``tests/conftest.py``'s ``boundscheck_env``), so that an out-of-range store raises there
  like any other out-of-bounds index instead of writing past the array.

``store_u64``, ``copy_bytes`` and ``nonzero_bits64``, what the kernels import, are the form chosen.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic, register_jitable

#: the checked forms are in use: this process runs numba bounds-checked (``NUMBA_BOUNDSCHECK`` set to
#: a non-zero value when numba was imported)
CHECKED = bool(config.BOUNDSCHECK)


@intrinsic
def popcount(typingctx, w):
    """Set bits of a uint64 (LLVM's ctpop)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), ir.IntType(64))

    return sig, codegen


@intrinsic
def raw_store_u64(typingctx, arr, byte, w):
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
def raw_copy_bytes(typingctx, arr, dst, src, nbytes):
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
def raw_nonzero_bits64(typingctx, arr, start):
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


# ---- checked forms (bounds-checked processes) -------------------------------------------------


@register_jitable
def _inside(arr, byte, nbytes) -> bool:
    """Bytes ``byte .. byte + nbytes - 1`` of ``arr``'s data lie inside a contiguous ``arr``."""
    return arr.flags.c_contiguous and nbytes >= 0 and byte >= 0 and byte + nbytes <= arr.size * arr.itemsize


@register_jitable
def checked_store_u64(arr, byte, w):
    """:func:`raw_store_u64`, or IndexError if the 8 bytes do not lie inside the array."""
    if not _inside(arr, byte, 8):
        raise IndexError("store_u64: the 8 bytes stored are not inside the array")
    raw_store_u64(arr, byte, w)


@register_jitable
def checked_copy_bytes(arr, dst, src, nbytes):
    """:func:`raw_copy_bytes`, or IndexError if either range is not inside the array or they overlap."""
    if not (_inside(arr, dst, nbytes) and _inside(arr, src, nbytes)):
        raise IndexError("copy_bytes: a range copied is not inside the array")
    if dst < src + nbytes and src < dst + nbytes and nbytes > 0:
        raise IndexError("copy_bytes: the ranges overlap")
    raw_copy_bytes(arr, dst, src, nbytes)


@register_jitable
def checked_nonzero_bits64(arr, start):
    """:func:`raw_nonzero_bits64`, or IndexError if the 64 bytes do not lie inside the array."""
    if not _inside(arr, start, 64):
        raise IndexError("nonzero_bits64: the 64 bytes read are not inside the array")
    return raw_nonzero_bits64(arr, start)


if CHECKED:
    store_u64 = checked_store_u64
    copy_bytes = checked_copy_bytes
    nonzero_bits64 = checked_nonzero_bits64
else:
    store_u64 = raw_store_u64
    copy_bytes = raw_copy_bytes
    nonzero_bits64 = raw_nonzero_bits64


__all__ = ["CHECKED", "checked_copy_bytes", "checked_nonzero_bits64", "checked_store_u64", "copy_bytes", "lowest_bit",
           "nonzero_bits64", "popcount", "raw_copy_bytes", "raw_nonzero_bits64", "raw_store_u64", "store_u64"]
