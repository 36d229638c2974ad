"""Field access for compiled kernels: a view of one model/data field inside its arena buffer.

A kernel receives an arena as the tuple ``A = (f64, i32, u8, meta)`` with ``meta[0]`` the offsets, ``meta[1]`` the rows, ``meta[2]`` the cols (see
`engine._layout.Arena.buffers`) and reaches a field by its index, e.g.
``xpos = f2(D, DF.xpos)``. These helpers inline to a pointer offset: no copy, no allocation.
"""
from numba import njit, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


# The decorator options of every pipeline kernel. `_nrt=False` compiles without numba's reference
# counting: each array view a kernel takes or passes on otherwise costs an atomic incref/decref
# call (measured: a third of a pendulum's step time), and kernels here never allocate, so nothing
# needs counting. A kernel that allocated would fail to compile under this flag.
# error_model="numpy": a float division by zero gives inf/nan as in MuJoCo's C (numba's default
# raises ZeroDivisionError, and checks every division for it).
KERNEL = dict(cache=True, nogil=True, _nrt=False, error_model="numpy")


def _widen(t):
    """The argument type a kernel is compiled for when another kernel passes ``t``: constants
    lose their literal value and narrow integers become int64."""
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return types.int64
    return t


def kernel(fn):
    """``njit(**KERNEL)``, compiled once per argument shape however other kernels call it.

    Why: numba specialises a kernel called from another kernel on the exact argument types,
    literal constants included (``f(M, D, 0)`` and ``f(M, D, k)`` are two compilations), and
    an int32 read from a model array differs from an int64 loop index. Each specialisation
    links and re-optimises everything the kernel calls, so the stage compositions were each
    compiled 3-6 times (measured: 716 specialisations of 438 functions, ~20 minutes on 2
    cores). Widening the argument types of kernel-to-kernel calls keeps one; the caller casts
    its arguments, and LLVM still folds the constants once it inlines the call."""
    dispatcher = njit(**KERNEL)(fn)
    resolve = dispatcher.get_call_template

    def get_call_template(args, kws):
        return resolve(tuple(_widen(a) for a in args), {k: _widen(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def composite(fn):
    """A kernel whose code is copied into each kernel that calls it (numba's inline="always")
    instead of being compiled as a kernel of its own: for the compositions of whole pipeline
    stages (`engine.forward.run`). Each kernel that calls a stage links and re-optimises the
    stage's whole call tree, so every separately compiled composition that reaches forward
    dynamics costs a whole-engine optimisation (~25 s on 2 cores)."""
    return njit(inline="always", **KERNEL)(fn)


@intrinsic
def _as2d(typingctx, flat, rows, cols):
    """(rows, cols) C-contiguous view of the 1-D contiguous array ``flat`` of rows*cols items.

    Why not ``flat.reshape((rows, cols))``: numba's reshape calls an out-of-line C helper
    (~35 ns) on every call, and the stages take dozens of 2-D views per step; this builds the
    array header in place (same data pointer and owner, no copy, no call)."""
    if not (isinstance(flat, types.Array) and flat.ndim == 1 and flat.layout == "C"):
        return None
    retty = types.Array(flat.dtype, 2, "C")
    sig = retty(flat, rows, cols)

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        out = make_array(retty)(context, builder)
        r = context.cast(builder, args[1], sig.args[1], types.intp)
        c = context.cast(builder, args[2], sig.args[2], types.intp)
        isz = src.itemsize
        populate_array(out, data=src.data, shape=[r, c], strides=[builder.mul(c, isz), isz],
                       itemsize=isz, meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, retty, out._getvalue())

    return sig, codegen


@njit(inline="always", cache=True, nogil=True)
def f1(A, k):
    """float64 field k as a 1-D view (rows*cols values)."""
    o = A[3][0, k]
    return A[0][o:o + A[3][1, k] * A[3][2, k]]


@njit(inline="always", cache=True, nogil=True)
def f2(A, k):
    """float64 field k as a (rows, cols) view."""
    o = A[3][0, k]
    r = A[3][1, k]
    c = A[3][2, k]
    return _as2d(A[0][o:o + r * c], r, c)


@njit(inline="always", cache=True, nogil=True)
def i1(A, k):
    """int32 field k as a 1-D view."""
    o = A[3][0, k]
    return A[1][o:o + A[3][1, k] * A[3][2, k]]


@njit(inline="always", cache=True, nogil=True)
def i2(A, k):
    """int32 field k as a (rows, cols) view."""
    o = A[3][0, k]
    r = A[3][1, k]
    c = A[3][2, k]
    return _as2d(A[1][o:o + r * c], r, c)


@njit(inline="always", cache=True, nogil=True)
def u1(A, k):
    """uint8 field k as a 1-D view."""
    o = A[3][0, k]
    return A[2][o:o + A[3][1, k] * A[3][2, k]]


@njit(inline="always", cache=True, nogil=True)
def fs(A, k):
    """float64 scalar field k (a 1x1 field such as opt_timestep or time)."""
    return A[0][A[3][0, k]]


@njit(inline="always", cache=True, nogil=True)
def is_(A, k):
    """int32 scalar field k (a 1x1 field such as opt_integrator)."""
    return A[1][A[3][0, k]]
