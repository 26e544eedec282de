"""Scratch arrays on the stack for the kernels: no allocation, no reference counting.

A numba array made with ``np.empty`` costs a heap allocation and a free, and every function that
receives it counts a reference to it on entry and another off on exit, with an atomic instruction
each time. In a kernel that calls small helpers in a loop with the same scratch vector (in one game a
vector checked action by action) the counting and the allocations were nearly 40% of the
batched step's time.

``stack_empty(shape, dtype)`` returns an uninitialised C-contiguous array whose memory lives in the
calling kernel's stack frame, with no memory-info block (numba's reference counts on it are calls
that return at once). ``shape`` is an int or a tuple of ints known when the kernel compiles (a
module constant or a literal): the frame's size is fixed. The rules for using one:

* it lives until the function that called ``stack_empty`` returns: never return it, store it in
  another array's place or keep a view of it beyond that call (numba cannot check this);
* it starts with arbitrary contents, like ``np.empty``: fill it before reading;
* keep it small, at most :data:`MAX_STACK_BYTES` (64 KiB): it is on the stack of whichever thread
  runs the kernel, under the frames of the kernels that called it.

Passing it down to helpers, slicing it and indexing it are all as for any array.

``borrowed(array)`` is the same array (data, shape, strides) without its memory-info block: the
views taken of it, and the helpers it is passed to, count no references. A batched kernel borrows
its argument arrays once on entry, so that the per-game row views (``states[i]``, ``masks[i]``, ...)
cost no atomic instructions; the arrays a parallel (``prange``) kernel hands its threads are built
the same way by numba. The borrowed array is valid while the array it came from lives: use it only
inside the call that received that array, and never return or store it.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

#: the largest scratch array, in bytes, a kernel may put on the stack with :func:`stack_empty`
MAX_STACK_BYTES = 1 << 16


def _static_dims(shape) -> tuple[int, ...] | None:
    if isinstance(shape, types.IntegerLiteral):
        return (int(shape.literal_value),)
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.IntegerLiteral) for t in shape.types):
        return tuple(int(t.literal_value) for t in shape.types)
    return None


@intrinsic
def stack_empty(typingctx, shape, dtype):
    """``np.empty(shape, dtype)`` in the caller's stack frame (see the module docstring)."""
    dims = _static_dims(shape)
    if dims is None:  # numba retries with the literal types; a shape known only at run time fails typing
        return None
    if any(d < 0 for d in dims):
        raise TypingError(f"stack_empty: negative dimension in {dims}")
    if not isinstance(dtype, (types.NumberClass, types.DType)):
        raise TypingError(f"stack_empty: the dtype must be a numpy scalar type such as np.int64, got {dtype}")
    elem = dtype.dtype if isinstance(dtype, types.DType) else dtype.instance_type
    count = 1
    for d in dims:
        count *= d
    if count * np.dtype(str(elem)).itemsize > MAX_STACK_BYTES:
        raise TypingError(f"stack_empty: {dims} of {elem} is more than {MAX_STACK_BYTES} bytes for the stack")
    arrty = types.Array(elem, len(dims), "C")

    def codegen(context, builder, signature, args):
        ary = context.make_array(arrty)(context, builder)
        llty = context.get_data_type(elem)
        itemsize = context.get_abi_sizeof(llty)
        data = cgutils.alloca_once(builder, llty, size=max(count, 1))
        strides, step = [], itemsize
        for d in reversed(dims):
            strides.insert(0, step)
            step *= d
        intp = context.get_value_type(types.intp)
        populate_array(ary, data=data, shape=[intp(d) for d in dims], strides=[intp(s) for s in strides],
                       itemsize=intp(itemsize), meminfo=None)
        return ary._getvalue()

    return arrty(shape, dtype), codegen


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` without its memory-info block (see the module docstring)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, args[0])
        out = context.make_array(arr)(context, builder)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()

    return arr(arr), codegen


__all__ = ["MAX_STACK_BYTES", "borrowed", "stack_empty"]
