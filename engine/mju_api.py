"""The mju_* utilities as mujoco's Python bindings present them (``engine.mju_*``).

Each wrapper checks its arrays as the bindings do (outputs: writeable, C-contiguous numpy arrays
of the right dtype, never converted; inputs: anything numpy turns into one; sizes given by the
arrays, matrices 2-D), raising TypeError naming the argument, then calls the kernel of
`engine.mju` with the C signature. The kernels themselves are for other kernels.
"""
from __future__ import annotations

import inspect
import operator
import os
import random
import sys
import time

import numpy as np

from . import mju as K

F64 = np.float64
I32 = np.int32


# ---- argument checks -------------------------------------------------------------------------
def _out(fn, name, a, size=None, dtype=F64):
    """A writeable output array as a flat view (the caller's memory)."""
    if (not isinstance(a, np.ndarray) or a.dtype != dtype or not a.flags.writeable
            or not a.flags.c_contiguous):
        raise TypeError(f"{fn}(): {name} must be a writeable, C-contiguous numpy array of "
                        f"{np.dtype(dtype).name}")
    if size is not None and a.size != size:
        raise TypeError(f"{fn}(): {name} must have size {size} (got {a.size})")
    return a.reshape(-1)


def _in(fn, name, a, size=None, dtype=F64):
    """An input array, converted as the bindings convert (lists, other float dtypes)."""
    try:
        b = np.ascontiguousarray(a, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}(): {name} must be an array of {np.dtype(dtype).name}") from None
    if size is not None and b.size != size:
        raise TypeError(f"{fn}(): {name} must have size {size} (got {b.size})")
    return b.reshape(-1)


def _mat(fn, name, a, out=False, dtype=F64):
    """A 2-D matrix argument (rows, cols) and its flat view; a 1-D one is one row, as the
    bindings take it."""
    if out:
        _out(fn, name, a, dtype=dtype)
        b = a
    else:
        try:
            b = np.ascontiguousarray(a, dtype=dtype)
        except (TypeError, ValueError):
            raise TypeError(f"{fn}(): {name} must be a matrix of {np.dtype(dtype).name}") \
                from None
    if b.ndim == 1:
        return 1, b.shape[0], b.reshape(-1)
    if b.ndim != 2:
        raise TypeError(f"{fn}(): {name} must be 2-D")
    return b.shape[0], b.shape[1], b.reshape(-1)


def _same(fn, a, an, b, bn):
    if a.size != b.size:
        raise TypeError(f"{fn}(): {an} and {bn} should have the same size")


def _num(x):
    """A kernel's scalar result as a Python number."""
    return x.item() if isinstance(x, np.generic) else x


# ---- wrappers made from a signature table ------------------------------------------------------
# One entry per function: its argument names and kinds. o<k>/i<k>: output/input float64 array
# of size k; on/in: output/input of a common size n, passed to the kernel as a last argument;
# f: float; d: int; b: bool. The generated function has mujoco's signature (keywords work).
_TABLE = {
    "mju_zero": "res:on", "mju_fill": "res:on val:f", "mju_copy": "res:on vec:in",
    "mju_sum": "vec:in", "mju_L1": "vec:in", "mju_scl": "res:on vec:in scl:f",
    "mju_add": "res:on vec1:in vec2:in", "mju_sub": "res:on vec1:in vec2:in",
    "mju_addTo": "res:on vec:in", "mju_subFrom": "res:on vec:in",
    "mju_addToScl": "res:on vec:in scl:f", "mju_addScl": "res:on vec1:in vec2:in scl:f",
    "mju_dot": "vec1:in vec2:in", "mju_norm": "res:in", "mju_normalize": "res:on",
    "mju_isZero": "vec:in", "mju_d2n": "res:on vec:in", "mju_n2d": "res:on vec:in",
    "mju_zero3": "res:o3", "mju_zero4": "res:o4", "mju_unit4": "res:o4",
    "mju_copy3": "res:o3 data:i3", "mju_copy4": "res:o4 data:i4",
    "mju_scl3": "res:o3 vec:i3 scl:f", "mju_add3": "res:o3 vec1:i3 vec2:i3",
    "mju_sub3": "res:o3 vec1:i3 vec2:i3", "mju_addTo3": "res:o3 vec:i3",
    "mju_subFrom3": "res:o3 vec:i3", "mju_addToScl3": "res:o3 vec:i3 scl:f",
    "mju_addScl3": "res:o3 vec1:i3 vec2:i3 scl:f", "mju_dot3": "vec1:i3 vec2:i3",
    "mju_dist3": "pos1:i3 pos2:i3", "mju_norm3": "vec:i3", "mju_normalize3": "vec:o3",
    "mju_normalize4": "vec:o4", "mju_cross": "res:o3 a:i3 b:i3",
    "mju_mulMatVec3": "res:o3 mat:i9 vec:i3", "mju_mulMatTVec3": "res:o3 mat:i9 vec:i3",
    "mju_rotVecQuat": "res:o3 vec:i3 quat:i4", "mju_negQuat": "res:o4 quat:i4",
    "mju_mulQuat": "res:o4 quat1:i4 quat2:i4", "mju_mulQuatAxis": "res:o4 quat:i4 axis:i3",
    "mju_axisAngle2Quat": "res:o4 axis:i3 angle:f", "mju_quat2Vel": "res:o3 quat:i4 dt:f",
    "mju_subQuat": "res:o3 qa:i4 qb:i4", "mju_quat2Mat": "res:o9 quat:i4",
    "mju_mat2Quat": "quat:o4 mat:i9", "mju_derivQuat": "res:o4 quat:i4 vel:i3",
    "mju_quatIntegrate": "quat:o4 vel:i3 scale:f", "mju_quatZ2Vec": "quat:o4 vec:i3",
    "mju_mat2Rot": "quat:o4 mat:i9",
    "mju_mulPose": "posres:o3 quatres:o4 pos1:i3 quat1:i4 pos2:i3 quat2:i4",
    "mju_negPose": "posres:o3 quatres:o4 pos:i3 quat:i4",
    "mju_trnVecPose": "res:o3 pos:i3 quat:i4 vec:i3",
    "mju_transformSpatial": "res:o6 vec:i6 flg_force:d newpos:i3 oldpos:i3 rotnew2old:i9",
    "mju_eig3": "eigval:o3 eigvec:o9 quat:o4 mat:i9",
    "mju_min": "a:f b:f", "mju_max": "a:f b:f", "mju_clip": "x:f min:f max:f",
    "mju_sign": "x:f", "mju_round": "x:f", "mju_isBad": "x:f", "mju_sigmoid": "x:f",
    "mju_Halton": "index:d base:d", "mju_springDamper": "pos0:f vel0:f Kp:f Kv:f dt:f",
    "mju_muscleGain": "len:f vel:f lengthrange:i2 acc0:f prm:i9",
    "mju_muscleBias": "len:f lengthrange:i2 acc0:f prm:i9",
    "mju_muscleDynamics": "ctrl:f act:f prm:i3",
    "mju_bandDiag": "i:d ntotal:d nband:d ndense:d",
}


def _make(name, spec):
    kern = getattr(K, name)
    args = [a.split(":") for a in spec.split()]
    names = [a for a, _ in args]
    sig = inspect.Signature([inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                             for a in names])
    has_n = any(k in ("on", "in") for _, k in args)

    def wrapper(*a, **kw):
        try:
            bound = sig.bind(*a, **kw)
        except TypeError as e:
            raise TypeError(f"{name}(): {e}") from None
        vals, first = [], None
        for (an, kind), v in zip(args, bound.arguments.values()):
            if kind == "f":
                v = float(v)
            elif kind == "d":
                v = operator.index(v)
            elif kind == "b":
                v = bool(v)
            elif kind[0] == "o":
                v = _out(name, an, v, None if kind == "on" else int(kind[1:]))
            else:
                v = _in(name, an, v, None if kind == "in" else int(kind[1:]))
            if kind in ("on", "in"):
                if first is None:
                    first = (an, v)
                else:
                    _same(name, first[1], first[0], v, an)
            vals.append(v)
        if has_n:
            vals.append(first[1].size)
        return _num(kern(*vals))

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__signature__ = sig
    wrapper.__doc__ = kern.__doc__ or kern.py_func.__doc__
    wrapper.kernel = kern       # the compiled kernel with the C signature
    return wrapper


for _name, _spec in _TABLE.items():
    globals()[_name] = _make(_name, _spec)


# ---- wrappers with their own size rules -------------------------------------------------------
def mju_f2n(res, vec):
    """res = vec converted from float32."""
    r = _out("mju_f2n", "res", res)
    v = _in("mju_f2n", "vec", vec, dtype=np.float32)
    _same("mju_f2n", r, "res", v, "vec")
    K.mju_f2n(r, v, r.size)


def mju_n2f(res, vec):
    """res (float32) = vec rounded to float32."""
    r = _out("mju_n2f", "res", res, dtype=np.float32)
    v = _in("mju_n2f", "vec", vec)
    _same("mju_n2f", r, "res", v, "vec")
    K.mju_n2f(r, v, r.size)


def mju_insertionSort(list):  # noqa: A002 (mujoco's argument name)
    """Sort the float64 array in place, increasing."""
    v = _out("mju_insertionSort", "list", list)
    K.mju_insertionSort(v, v.size)


def mju_insertionSortInt(list):  # noqa: A002
    """Sort the int32 array in place, increasing."""
    v = _out("mju_insertionSortInt", "list", list, dtype=I32)
    K.mju_insertionSortInt(v, v.size)


def mju_mulMatVec(res, mat, vec):
    """res = mat @ vec."""
    fn = "mju_mulMatVec"
    nr, nc, m = _mat(fn, "mat", mat)
    v = _in(fn, "vec", vec, nc)
    r = _out(fn, "res", res, nr)
    K.mju_mulMatVec(r, m, v, nr, nc)


def mju_mulMatTVec(res, mat, vec):
    """res = mat.T @ vec."""
    fn = "mju_mulMatTVec"
    nr, nc, m = _mat(fn, "mat", mat)
    v = _in(fn, "vec", vec, nr)
    r = _out(fn, "res", res, nc)
    K.mju_mulMatTVec(r, m, v, nr, nc)


def mju_mulVecMatVec(vec1, mat, vec2):
    """vec1 . (mat @ vec2) for a square mat."""
    fn = "mju_mulVecMatVec"
    nr, nc, m = _mat(fn, "mat", mat)
    if nr != nc:
        raise TypeError(f"{fn}(): mat must be square")
    return _num(K.mju_mulVecMatVec(_in(fn, "vec1", vec1, nr), m, _in(fn, "vec2", vec2, nr), nr))


def mju_transpose(res, mat):
    """res = mat.T."""
    fn = "mju_transpose"
    nr, nc, m = _mat(fn, "mat", mat)
    K.mju_transpose(_out(fn, "res", res, nr * nc), m, nr, nc)


def mju_symmetrize(res, mat):
    """res = (mat + mat.T) / 2."""
    fn = "mju_symmetrize"
    nr, nc, m = _mat(fn, "mat", mat)
    if nr != nc:
        raise TypeError(f"{fn}(): mat must be square")
    K.mju_symmetrize(_out(fn, "res", res, nr * nc), m, nr)


def mju_eye(mat):
    """mat = identity."""
    fn = "mju_eye"
    nr, nc, m = _mat(fn, "mat", mat, out=True)
    if nr != nc:
        raise TypeError(f"{fn}(): mat must be square")
    K.mju_eye(m, nr)


def _mm(fn, res, mat1, mat2, t1, t2):
    r1, c1, a = _mat(fn, "mat1", mat1)
    r2, c2, b = _mat(fn, "mat2", mat2)
    rr, rc, r = _mat(fn, "res", res, out=True)
    rows, inner1 = (c1, r1) if t1 else (r1, c1)
    inner2, cols = (c2, r2) if t2 else (r2, c2)
    if inner1 != inner2:
        raise TypeError(f"{fn}(): the inner sizes of mat1 and mat2 differ")
    if rr != rows or rc != cols:
        raise TypeError(f"{fn}(): res must be {rows} x {cols}")
    return r, a, b, r1, c1, r2, c2


def mju_mulMatMat(res, mat1, mat2):
    """res = mat1 @ mat2."""
    r, a, b, r1, c1, r2, c2 = _mm("mju_mulMatMat", res, mat1, mat2, False, False)
    K.mju_mulMatMat(r, a, b, r1, c1, c2)


def mju_mulMatMatT(res, mat1, mat2):
    """res = mat1 @ mat2.T."""
    r, a, b, r1, c1, r2, c2 = _mm("mju_mulMatMatT", res, mat1, mat2, False, True)
    K.mju_mulMatMatT(r, a, b, r1, c1, r2)


def mju_mulMatTMat(res, mat1, mat2):
    """res = mat1.T @ mat2."""
    r, a, b, r1, c1, r2, c2 = _mm("mju_mulMatTMat", res, mat1, mat2, True, False)
    K.mju_mulMatTMat(r, a, b, r1, c1, c2)


def mju_sqrMatTD(res, mat, diag):
    """res = mat.T @ diag(diag) @ mat (mat.T @ mat when diag is None)."""
    fn = "mju_sqrMatTD"
    nr, nc, m = _mat(fn, "mat", mat)
    r = _out(fn, "res", res, nc * nc)
    K.mju_sqrMatTD(r, m, None if diag is None else _in(fn, "diag", diag, nr), nr, nc)


def mju_dense2sparse(res, mat, rownnz, rowadr, colind):
    """CSR of mat's non-zeros into res/colind (their size is the capacity), rownnz, rowadr;
    return 1 if the capacity is too small, else 0."""
    fn = "mju_dense2sparse"
    nr, nc, m = _mat(fn, "mat", mat)
    r = _out(fn, "res", res)
    ci = _out(fn, "colind", colind, r.size, dtype=I32)
    return _num(K.mju_dense2sparse(r, m, nr, nc, _out(fn, "rownnz", rownnz, nr, I32),
                                   _out(fn, "rowadr", rowadr, nr, I32), ci, r.size))


def _csr(fn, mat, rownnz, rowadr, colind, nr):
    m = _in(fn, "mat", mat)
    rn = _in(fn, "rownnz", rownnz, nr, I32)
    ra = _in(fn, "rowadr", rowadr, nr, I32)
    ci = _in(fn, "colind", colind, m.size, I32)
    if nr and (ra.min() < 0 or rn.min() < 0 or (ra + rn).max() > m.size):
        raise TypeError(f"{fn}(): rowadr/rownnz address outside mat")
    return m, rn, ra, ci


def mju_sparse2dense(res, mat, rownnz, rowadr, colind):
    """res (2-D) = the CSR matrix."""
    fn = "mju_sparse2dense"
    nr, nc, r = _mat(fn, "res", res, out=True)
    m, rn, ra, ci = _csr(fn, mat, rownnz, rowadr, colind, nr)
    if ci.size and (ci.min() < 0 or ci.max() >= nc):
        raise TypeError(f"{fn}(): colind outside res's columns")
    K.mju_sparse2dense(r, m, nr, nc, rn, ra, ci)


def mju_sym2dense(res, mat, rownnz, rowadr, colind):
    """res (n x n) = the symmetric matrix whose lower triangle is the CSR matrix."""
    fn = "mju_sym2dense"
    nr, nc, r = _mat(fn, "res", res, out=True)
    if nr != nc:
        raise TypeError(f"{fn}(): res must be square")
    m, rn, ra, ci = _csr(fn, mat, rownnz, rowadr, colind, nr)
    if ci.size and (ci.min() < 0 or ci.max() >= nc):
        raise TypeError(f"{fn}(): colind outside res's columns")
    K.mju_sym2dense(r, m, nr, rn, ra, ci)


def _band_size(fn, size, ntotal, nband, ndense):
    if not (0 <= ndense <= ntotal and nband >= 1) or \
            size != (ntotal - ndense) * nband + ndense * ntotal:
        raise TypeError(f"{fn}(): mat must have size (ntotal-ndense)*nband + ndense*ntotal")


def mju_dense2Band(res, mat, ntotal, nband, ndense):
    """res = band-dense layout of the lower triangle of mat (ntotal x ntotal)."""
    fn = "mju_dense2Band"
    m = _in(fn, "mat", mat, ntotal * ntotal)
    r = _out(fn, "res", res)
    _band_size(fn, r.size, ntotal, nband, ndense)
    K.mju_dense2Band(r, m, ntotal, nband, ndense)


def mju_band2Dense(res, mat, ntotal, nband, ndense, flg_sym):
    """res (ntotal x ntotal) = the band-dense matrix mat."""
    fn = "mju_band2Dense"
    m = _in(fn, "mat", mat)
    _band_size(fn, m.size, ntotal, nband, ndense)
    K.mju_band2Dense(_out(fn, "res", res, ntotal * ntotal), m, ntotal, nband, ndense,
                     bool(flg_sym))


def mju_bandMulMatVec(res, mat, vec, ntotal, nband, ndense, nvec, flg_sym):
    """res = band-dense mat @ vec for nvec vectors of ntotal."""
    fn = "mju_bandMulMatVec"
    m = _in(fn, "mat", mat)
    _band_size(fn, m.size, ntotal, nband, ndense)
    v = _in(fn, "vec", vec, ntotal * nvec)
    K.mju_bandMulMatVec(_out(fn, "res", res, ntotal * nvec), m, v, ntotal, nband, ndense,
                        nvec, bool(flg_sym))


def mju_cholFactorBand(mat, ntotal, nband, ndense, diagadd, diagmul):
    """In-place band-dense Cholesky; the smallest diagonal, or 0 when rank-deficient."""
    fn = "mju_cholFactorBand"
    m = _out(fn, "mat", mat)
    _band_size(fn, m.size, ntotal, nband, ndense)
    return _num(K.mju_cholFactorBand(m, ntotal, nband, ndense, float(diagadd), float(diagmul)))


def mju_cholSolveBand(res, mat, vec, ntotal, nband, ndense):
    """Solve (L L') res = vec with a band-dense factor."""
    fn = "mju_cholSolveBand"
    m = _in(fn, "mat", mat)
    _band_size(fn, m.size, ntotal, nband, ndense)
    K.mju_cholSolveBand(_out(fn, "res", res, ntotal), m, _in(fn, "vec", vec, ntotal),
                        ntotal, nband, ndense)


def _square(fn, name, mat, out):
    nr, nc, m = _mat(fn, name, mat, out=out)
    if nr != nc:
        raise TypeError(f"{fn}(): {name} must be square")
    return nr, m


def mju_cholFactor(mat, mindiag):
    """In-place Cholesky of a square matrix; return the rank."""
    n, m = _square("mju_cholFactor", "mat", mat, True)
    return _num(K.mju_cholFactor(m, n, float(mindiag)))


def mju_cholSolve(res, mat, vec):
    """Solve (L L') res = vec with L the lower triangle of mat."""
    fn = "mju_cholSolve"
    n, m = _square(fn, "mat", mat, False)
    K.mju_cholSolve(_out(fn, "res", res, n), m, _in(fn, "vec", vec, n), n)


def mju_cholUpdate(mat, x, flg_plus):
    """Rank-one update L L' +/- x x' in place (x overwritten); return the rank."""
    fn = "mju_cholUpdate"
    n, m = _square(fn, "mat", mat, True)
    return _num(K.mju_cholUpdate(m, _out(fn, "x", x, n), n, bool(flg_plus)))


def mju_encodePyramid(pyramid, force, mu):
    """pyramid = edge forces of the contact force (normal, tangential...) with friction mu."""
    fn = "mju_encodePyramid"
    u = _in(fn, "mu", mu)
    f = _in(fn, "force", force)
    if f.size != u.size + 1:
        raise TypeError(f"{fn}(): size of force should be exactly one larger than size of mu")
    K.mju_encodePyramid(_out(fn, "pyramid", pyramid, 2 * u.size), f, u, f.size)


def mju_decodePyramid(force, pyramid, mu):
    """force (normal, tangential...) = the contact force of the pyramid edge forces."""
    fn = "mju_decodePyramid"
    u = _in(fn, "mu", mu)
    f = _out(fn, "force", force)
    if f.size != u.size + 1:
        raise TypeError(f"{fn}(): size of force should be exactly one larger than size of mu")
    p = _in(fn, "pyramid", pyramid, 2 * u.size)
    if u.size == 0:     # frictionless: mujoco's binding reads pyramid[0] of an empty array
        f[0] = 0.0
        return
    K.mju_decodePyramid(f, p, u, f.size)


_EULER = {c: i for i, c in enumerate("xyzXYZ")}


def mju_euler2Quat(quat, euler, seq):
    """quat = rotation of the Euler angles (rad) euler about the axes seq ('xyzXYZ'; lower-case
    intrinsic, upper-case extrinsic)."""
    fn = "mju_euler2Quat"
    if len(seq) != 3:
        raise ValueError(f"{fn}: seq must contain exactly 3 characters")
    for i, c in enumerate(seq):
        if c not in _EULER:
            raise ValueError(f"{fn}: seq[{i}] is '{c}', should be one of x, y, z, X, Y, Z")
    K.mju_euler2Quat(_out(fn, "quat", quat, 4), _in(fn, "euler", euler, 3),
                     np.array([_EULER[c] for c in seq], dtype=I32))


def mju_boxQP(res, R, index, H, g, lower, upper):
    """Minimize 0.5 x'Hx + x'g subject to lower <= x <= upper (either optional); res holds the
    warm start and gets the solution, R (size n*(n+7)) the factor of the free subspace and
    scratch, index (optional, int32 n) the free dimensions. Return their number, -1 on failure."""
    fn = "mju_boxQP"
    r = _out(fn, "res", res)
    n = r.size
    if n <= 0:
        raise ValueError(f"{fn}: problem size n must be positive")
    Rf = _out(fn, "R", R)
    if Rf.size != n * (n + 7):
        raise TypeError(f"{fn}(): size of R should be n*(n+7)")
    Hf = _in(fn, "H", H, n * n)
    gf = _in(fn, "g", g, n)
    lo = None if lower is None else _in(fn, "lower", lower, n)
    up = None if upper is None else _in(fn, "upper", upper, n)
    if lo is not None and up is not None and np.any(lo >= up):
        raise ValueError(f"{fn}: upper bounds must be strictly larger than lower bounds")
    idx = None if index is None else _out(fn, "index", index, n, dtype=I32)
    from .boxqp import box_qp
    return _num(box_qp(r, Rf, idx, Hf, gf, n, lo, up))


def mju_printMat(mat):
    """Print a matrix to stdout, as mujoco does ("%.8f " per entry, a blank line after)."""
    nr, nc, m = _mat("mju_printMat", "mat", mat)
    out = "".join("".join(f"{m[r * nc + c]:.8f} " for c in range(nc)) + "\n"
                  for r in range(nr))
    sys.stdout.write(out + "\n")
    sys.stdout.flush()


def mju_printMatSparse(mat, rownnz, rowadr, colind):
    """Print a CSR matrix to stdout as mujoco does ("(r c): value" per non-zero)."""
    fn = "mju_printMatSparse"
    rn = _in(fn, "rownnz", rownnz, dtype=I32)
    m, rn, ra, ci = _csr(fn, mat, rownnz, rowadr, colind, rn.size)
    lines = []
    for r in range(rn.size):
        lines.append("".join(f"({r} {ci[a]}): {m[a]:9.6f}  "
                             for a in range(ra[r], ra[r] + rn[r])) + "\n")
    sys.stdout.write("".join(lines) + "\n")
    sys.stdout.flush()


def mju_standardNormal(num2):
    """A standard normal random number (Box-Muller on the polar method, as mujoco). mujoco's
    binding takes ``num2`` but returns only the first number; so does this. The sequence is
    Python's ``random``, not the C library's rand()."""
    while True:
        x1 = 2.0 * random.random() - 1.0
        x2 = 2.0 * random.random() - 1.0
        w = x1 * x1 + x2 * x2
        if 0.0 < w < 1.0:
            break
    import math
    return x1 * math.sqrt(-2.0 * math.log(w) / w)


def mju_writeNumBytes(nbytes):
    """nbytes with the largest binary suffix (K, M, G, T, P, E) that divides it exactly."""
    n = operator.index(nbytes)
    for i, s in enumerate("EPTGMK"):
        bits = 1 << (10 * (6 - i))
        if n >= bits and not (n & (bits - 1)):
            return f"{n >> (10 * (6 - i))}{s}"
    return str(n)


def mju_writeLog(type, msg):  # noqa: A002 (mujoco's argument name)
    """Append "date time\\n<type>: <msg>" to the log file (MjLogConfig.get().logfile,
    MUJOCO_LOG.TXT by default, in the working directory) when the configuration logs to a
    file."""
    from .api_extra import log_config
    cfg = log_config()
    if not cfg.logto_file or not cfg.logfile:
        return
    stamp = time.strftime("%a %b %d %H:%M:%S %Y")
    with open(os.path.join(os.getcwd(), cfg.logfile), "a") as f:
        f.write(f"{stamp}\n{type}: {msg}\n\n")


__all__ = sorted([n for n in globals() if n.startswith("mju_")])
