"""Field access for compiled kernels: a view of one model/data field inside its arena buffer.

A kernel receives an arena as the tuple ``A = (f64, i32, u8, meta)`` with ``meta[0]`` the offsets, ``meta[1]`` the rows, ``meta[2]`` the cols (see
`engine._layout.Arena.buffers`) and reaches a field by its index, e.g.
``xpos = f2(D, DF.xpos)``. These helpers inline to a pointer offset: no copy, no allocation.
"""
from numba import njit


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
    return A[0][o:o + r * c].reshape((r, c))


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
    return A[1][o:o + r * c].reshape((r, c))


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
