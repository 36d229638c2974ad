"""Field access for compiled kernels: a view of one model/data field inside its arena buffer.

A kernel receives an arena as the tuple ``A = (f64, i32, u8, meta)`` with ``meta[0]`` the
offsets, ``meta[1]`` the rows, ``meta[2]`` the cols (see `engine._layout.Arena.buffers`) and
reaches a field by its index, e.g. ``xpos = f2(D, DF.xpos)``.

The accessors are numba intrinsics: each call emits, in the calling kernel, the three loads from
``meta`` and the array header of the view (same data pointer and owner): no copy, no allocation,
no call. Why intrinsics: as numba functions they had to be inlined at numba's IR level (numba
without reference counting returns only arrays passed in as arguments), which re-ran numba's
front end for every call site (measured: a tenth of the engine's compile time).
"""
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

_F64, _I32, _U8 = 0, 1, 2       # the arena buffers, in the order of Arena.buffers


def _accepts(A, k):
    """An arena tuple and an integer field index (a field enum member such as DF.xpos, or an
    integer)."""
    return (isinstance(A, types.BaseTuple) and len(A) == 4
            and all(isinstance(t, types.Array) for t in A.types)
            and isinstance(k, (types.Integer, types.IntEnumMember)))


def _meta_loads(context, builder, sig, args):
    """(offset, rows, cols) of field ``args[1]`` in arena ``args[0]``, as intp values."""
    tup, k = args
    metaty = sig.args[0].types[3]
    meta = make_array(metaty)(context, builder, builder.extract_value(tup, 3))
    kty = sig.args[1]
    if isinstance(kty, types.IntEnumMember):     # represented as its integer value
        kty = kty.dtype
    k = context.cast(builder, k, kty, types.intp)
    shape = cgutils.unpack_tuple(builder, meta.shape)
    strides = cgutils.unpack_tuple(builder, meta.strides)
    out = []
    for row in range(3):
        ptr = cgutils.get_item_pointer2(context, builder, meta.data, shape, strides,
                                        metaty.layout, [context.get_constant(types.intp, row), k])
        out.append(context.cast(builder, builder.load(ptr), metaty.dtype, types.intp))
    return out


def _view(buf, ndim):
    """An intrinsic returning field k of buffer ``buf`` as an ``ndim``-D C-contiguous view."""

    def typer(typingctx, A, k):
        if not _accepts(A, k):
            return None
        bufty = A.types[buf]
        retty = types.Array(bufty.dtype, ndim, "C")

        def codegen(context, builder, sig, args):
            off, rows, cols = _meta_loads(context, builder, sig, args)
            src = make_array(bufty)(context, builder, builder.extract_value(args[0], buf))
            out = make_array(retty)(context, builder)
            isz = context.get_constant(types.intp, context.get_abi_sizeof(
                context.get_data_type(bufty.dtype)))
            if ndim == 1:
                shape, strides = [builder.mul(rows, cols)], [isz]
            else:
                shape, strides = [rows, cols], [builder.mul(cols, isz), isz]
            populate_array(out, data=builder.gep(src.data, [off]), shape=shape, strides=strides,
                           itemsize=isz, meminfo=src.meminfo, parent=src.parent)
            return impl_ret_borrowed(context, builder, retty, out._getvalue())

        return retty(A, k), codegen

    return intrinsic(typer)


def _scalar(buf):
    """An intrinsic returning the first value of field k of buffer ``buf``."""

    def typer(typingctx, A, k):
        if not _accepts(A, k):
            return None
        bufty = A.types[buf]

        def codegen(context, builder, sig, args):
            off, _, _ = _meta_loads(context, builder, sig, args)
            src = make_array(bufty)(context, builder, builder.extract_value(args[0], buf))
            return builder.load(builder.gep(src.data, [off]))

        return bufty.dtype(A, k), codegen

    return intrinsic(typer)


f1 = _view(_F64, 1)
f1.__doc__ = "float64 field k as a 1-D view (rows*cols values)."
f2 = _view(_F64, 2)
f2.__doc__ = "float64 field k as a (rows, cols) view."
i1 = _view(_I32, 1)
i1.__doc__ = "int32 field k as a 1-D view."
i2 = _view(_I32, 2)
i2.__doc__ = "int32 field k as a (rows, cols) view."
u1 = _view(_U8, 1)
u1.__doc__ = "uint8 field k as a 1-D view."
fs = _scalar(_F64)
fs.__doc__ = "float64 scalar field k (a 1x1 field such as opt_timestep or time)."
is_ = _scalar(_I32)
is_.__doc__ = "int32 scalar field k (a 1x1 field such as opt_integrator)."
