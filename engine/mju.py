"""MuJoCo's mju_* utility functions as compiled kernels with the C API's signatures (seed 001,
"Utility functions": vector, matrix, quaternion, pose, decompositions, miscellaneous).

Each kernel writes into the output arrays its caller gives, as the C functions do, and takes the
sizes the C functions take (``mju_add(res, vec1, vec2, n)``, ``mju_mulMatVec(res, mat, vec, nr,
nc)`` with ``mat`` flat row-major): other kernels call them as they are. Python programs call the
bindings-style wrappers in `engine.mju_api` (exported as ``engine.mju_*``), which check the
arrays and infer the sizes as mujoco's Python bindings do.

Arrays are 1-D float64 (int32 for index arrays); 3x3 matrices are row-major 9-vectors and
quaternions w-first 4-vectors (seed 001 conventions). Where `engine.math` (tuple-returning,
register-resident) already has the operation, the kernel stores its result: one formula each.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import kernel
from . import math as mm
from .actuation import muscle_gain, muscle_bias, muscle_dynamics, _sigmoid
from .enums import mjMINVAL, mjMAXVAL


# ---- vectors of length n (seed 001 "Vector math") -------------------------------------------
@kernel
def mju_zero(res, n):
    """res[:n] = 0."""
    for i in range(n):
        res[i] = 0.0


@kernel
def mju_fill(res, val, n):
    """res[:n] = val."""
    for i in range(n):
        res[i] = val


@kernel
def mju_copy(res, data, n):
    """res[:n] = data[:n]."""
    for i in range(n):
        res[i] = data[i]


@kernel
def mju_sum(vec, n):
    """sum(vec[:n])."""
    s = 0.0
    for i in range(n):
        s += vec[i]
    return s


@kernel
def mju_L1(vec, n):
    """sum(abs(vec[:n]))."""
    s = 0.0
    for i in range(n):
        s += abs(vec[i])
    return s


@kernel
def mju_scl(res, vec, scl, n):
    """res = vec * scl."""
    for i in range(n):
        res[i] = vec[i] * scl


@kernel
def mju_add(res, vec1, vec2, n):
    """res = vec1 + vec2."""
    for i in range(n):
        res[i] = vec1[i] + vec2[i]


@kernel
def mju_sub(res, vec1, vec2, n):
    """res = vec1 - vec2."""
    for i in range(n):
        res[i] = vec1[i] - vec2[i]


@kernel
def mju_addTo(res, vec, n):
    """res += vec."""
    for i in range(n):
        res[i] += vec[i]


@kernel
def mju_subFrom(res, vec, n):
    """res -= vec."""
    for i in range(n):
        res[i] -= vec[i]


@kernel
def mju_addToScl(res, vec, scl, n):
    """res += vec * scl."""
    for i in range(n):
        res[i] += vec[i] * scl


@kernel
def mju_addScl(res, vec1, vec2, scl, n):
    """res = vec1 + vec2 * scl."""
    for i in range(n):
        res[i] = vec1[i] + vec2[i] * scl


@kernel
def mju_dot(vec1, vec2, n):
    """vec1 . vec2."""
    s = 0.0
    for i in range(n):
        s += vec1[i] * vec2[i]
    return s


@kernel
def mju_norm(vec, n):
    """Euclidean length of vec[:n]."""
    return math.sqrt(mju_dot(vec, vec, n))


@kernel
def mju_normalize(res, n):
    """Normalize res[:n] in place; return its length before. A vector shorter than mjMINVAL
    becomes (1, 0, ..., 0); one within mjMINVAL of unit length is left as it is (seed 001)."""
    norm = math.sqrt(mju_dot(res, res, n))
    if norm < mjMINVAL:
        res[0] = 1.0
        for i in range(1, n):
            res[i] = 0.0
    elif abs(norm - 1.0) > mjMINVAL:
        s = 1.0 / norm
        for i in range(n):
            res[i] *= s
    return norm


@kernel
def mju_isZero(vec, n):
    """1 if vec[:n] is all zeros, else 0."""
    for i in range(n):
        if vec[i] != 0.0:
            return 0
    return 1


@kernel
def mju_f2n(res, vec, n):
    """res[:n] = vec[:n] (float32 -> float64)."""
    for i in range(n):
        res[i] = vec[i]


@kernel
def mju_n2f(res, vec, n):
    """res[:n] = vec[:n] (float64 -> float32, rounded)."""
    for i in range(n):
        res[i] = np.float32(vec[i])


mju_d2n = mju_copy     # mjtNum is double here: the conversions are copies, as in mujoco's build
mju_n2d = mju_copy


@kernel
def mju_insertionSort(list, n):  # noqa: A002 (mujoco's argument name)
    """Sort list[:n] in increasing order, in place (stable insertion sort)."""
    for i in range(1, n):
        x = list[i]
        j = i - 1
        while j >= 0 and list[j] > x:
            list[j + 1] = list[j]
            j -= 1
        list[j + 1] = x


mju_insertionSortInt = mju_insertionSort    # the same kernel compiles for int32 lists


# ---- 3- and 4-vectors -------------------------------------------------------------------------
@kernel
def mju_zero3(res):
    mm.set3(res, (0.0, 0.0, 0.0))


@kernel
def mju_zero4(res):
    mm.set4(res, (0.0, 0.0, 0.0, 0.0))


@kernel
def mju_unit4(res):
    """res = (1, 0, 0, 0), the identity quaternion."""
    mm.set4(res, (1.0, 0.0, 0.0, 0.0))


@kernel
def mju_copy3(res, data):
    mm.set3(res, mm.get3(data))


@kernel
def mju_copy4(res, data):
    mm.set4(res, mm.get4(data))


@kernel
def mju_scl3(res, vec, scl):
    mm.set3(res, mm.scl3(vec, scl))


@kernel
def mju_add3(res, vec1, vec2):
    mm.set3(res, mm.add3(vec1, vec2))


@kernel
def mju_sub3(res, vec1, vec2):
    mm.set3(res, mm.sub3(vec1, vec2))


@kernel
def mju_addTo3(res, vec):
    mm.set3(res, mm.add3(res, vec))


@kernel
def mju_subFrom3(res, vec):
    mm.set3(res, mm.sub3(res, vec))


@kernel
def mju_addToScl3(res, vec, scl):
    mm.set3(res, mm.add_scl3(res, vec, scl))


@kernel
def mju_addScl3(res, vec1, vec2, scl):
    mm.set3(res, mm.add_scl3(vec1, vec2, scl))


@kernel
def mju_dot3(vec1, vec2):
    return mm.dot3(vec1, vec2)


@kernel
def mju_dist3(pos1, pos2):
    """|pos1 - pos2|."""
    return mm.norm3(mm.sub3(pos1, pos2))


@kernel
def mju_norm3(vec):
    return mm.norm3(vec)


@kernel
def mju_normalize3(vec):
    """Normalize vec in place (mju_normalize's rules); return its length before."""
    return mju_normalize(vec, 3)


@kernel
def mju_normalize4(vec):
    """Normalize a quaternion in place (a tiny one becomes the identity); return its length
    before."""
    n = math.sqrt((vec[0] * vec[0] + vec[1] * vec[1]) + (vec[2] * vec[2] + vec[3] * vec[3]))
    mm.set4(vec, mm.quat_normalize(vec))
    return n


@kernel
def mju_cross(res, a, b):
    """res = a x b."""
    mm.set3(res, mm.cross3(a, b))


@kernel
def mju_mulMatVec3(res, mat, vec):
    """res = mat @ vec for a 3x3 mat."""
    mm.set3(res, mm.mat_vec(mat, vec))


@kernel
def mju_mulMatTVec3(res, mat, vec):
    """res = mat.T @ vec for a 3x3 mat."""
    mm.set3(res, mm.mat_t_vec(mat, vec))


# ---- matrices (row-major, flat) ---------------------------------------------------------------
@kernel
def mju_mulMatVec(res, mat, vec, nr, nc):
    """res[nr] = mat[nr x nc] @ vec[nc]."""
    for r in range(nr):
        s = 0.0
        for c in range(nc):
            s += mat[r * nc + c] * vec[c]
        res[r] = s


@kernel
def mju_mulMatTVec(res, mat, vec, nr, nc):
    """res[nc] = mat[nr x nc].T @ vec[nr]."""
    for c in range(nc):
        res[c] = 0.0
    for r in range(nr):
        v = vec[r]
        if v != 0.0:
            for c in range(nc):
                res[c] += mat[r * nc + c] * v


@kernel
def mju_mulVecMatVec(vec1, mat, vec2, n):
    """vec1 . (mat[n x n] @ vec2)."""
    s = 0.0
    for r in range(n):
        t = 0.0
        for c in range(n):
            t += mat[r * n + c] * vec2[c]
        s += vec1[r] * t
    return s


@kernel
def mju_transpose(res, mat, nr, nc):
    """res[nc x nr] = mat[nr x nc].T."""
    for r in range(nr):
        for c in range(nc):
            res[c * nr + r] = mat[r * nc + c]


@kernel
def mju_symmetrize(res, mat, n):
    """res = (mat + mat.T) / 2 for an n x n mat (res may be mat)."""
    for i in range(n):
        res[i * (n + 1)] = mat[i * (n + 1)]
        for j in range(i):
            v = 0.5 * (mat[i * n + j] + mat[j * n + i])
            res[i * n + j] = v
            res[j * n + i] = v


@kernel
def mju_eye(mat, n):
    """mat = identity (n x n)."""
    for i in range(n * n):
        mat[i] = 0.0
    for i in range(n):
        mat[i * (n + 1)] = 1.0


@kernel
def mju_mulMatMat(res, mat1, mat2, r1, c1, c2):
    """res[r1 x c2] = mat1[r1 x c1] @ mat2[c1 x c2]."""
    for i in range(r1 * c2):
        res[i] = 0.0
    for i in range(r1):
        for k in range(c1):
            a = mat1[i * c1 + k]
            if a != 0.0:
                for j in range(c2):
                    res[i * c2 + j] += a * mat2[k * c2 + j]


@kernel
def mju_mulMatMatT(res, mat1, mat2, r1, c1, r2):
    """res[r1 x r2] = mat1[r1 x c1] @ mat2[r2 x c1].T."""
    for i in range(r1):
        for j in range(r2):
            s = 0.0
            for k in range(c1):
                s += mat1[i * c1 + k] * mat2[j * c1 + k]
            res[i * r2 + j] = s


@kernel
def mju_mulMatTMat(res, mat1, mat2, r1, c1, c2):
    """res[c1 x c2] = mat1[r1 x c1].T @ mat2[r1 x c2]."""
    for i in range(c1 * c2):
        res[i] = 0.0
    for k in range(r1):
        for i in range(c1):
            a = mat1[k * c1 + i]
            if a != 0.0:
                for j in range(c2):
                    res[i * c2 + j] += a * mat2[k * c2 + j]


@kernel
def mju_sqrMatTD(res, mat, diag, nr, nc):
    """res[nc x nc] = mat.T @ diag(diag) @ mat for mat[nr x nc]; mat.T @ mat when diag is None."""
    for i in range(nc * nc):
        res[i] = 0.0
    for k in range(nr):
        w = 1.0 if diag is None else diag[k]
        if w == 0.0:
            continue
        for i in range(nc):
            a = mat[k * nc + i] * w
            if a != 0.0:
                for j in range(nc):
                    res[i * nc + j] += a * mat[k * nc + j]


# ---- sparse (CSR) and band-dense matrices ----------------------------------------------------
@kernel
def mju_dense2sparse(res, mat, nr, nc, rownnz, rowadr, colind, nnz):
    """CSR of the non-zeros of mat[nr x nc] into res/colind (capacity nnz), rownnz, rowadr;
    return 1 if nnz is too small (the CSR is then incomplete), 0 otherwise."""
    adr = 0
    for r in range(nr):
        rowadr[r] = adr
        cnt = 0
        for c in range(nc):
            v = mat[r * nc + c]
            if v != 0.0:
                if adr >= nnz:
                    return 1
                res[adr] = v
                colind[adr] = c
                adr += 1
                cnt += 1
        rownnz[r] = cnt
    return 0


@kernel
def mju_sparse2dense(res, mat, nr, nc, rownnz, rowadr, colind):
    """res[nr x nc] = the CSR matrix (mat, rownnz, rowadr, colind)."""
    for i in range(nr * nc):
        res[i] = 0.0
    for r in range(nr):
        for a in range(rowadr[r], rowadr[r] + rownnz[r]):
            res[r * nc + colind[a]] = mat[a]


@kernel
def mju_sym2dense(res, mat, n, rownnz, rowadr, colind):
    """res[n x n] = the symmetric matrix whose lower triangle is the CSR (mat, rownnz, rowadr,
    colind)."""
    for i in range(n * n):
        res[i] = 0.0
    for r in range(n):
        for a in range(rowadr[r], rowadr[r] + rownnz[r]):
            c = colind[a]
            res[r * n + c] = mat[a]
            res[c * n + r] = mat[a]


@kernel
def mju_bandDiag(i, ntotal, nband, ndense):
    """Address of diagonal element i in the band-dense layout: (ntotal - ndense) band rows of
    nband entries (left of and at the diagonal), then ndense full rows of ntotal."""
    nsparse = ntotal - ndense
    if i < nsparse:
        return i * nband + nband - 1
    return nsparse * nband + (i - nsparse) * ntotal + i


@kernel
def mju_dense2Band(res, mat, ntotal, nband, ndense):
    """Band-dense layout of the lower triangle of mat[ntotal x ntotal]."""
    nsparse = ntotal - ndense
    for i in range(nsparse):
        width = min(i, nband - 1)
        for k in range(width + 1):
            res[(i + 1) * nband - (width + 1) + k] = mat[i * ntotal + i - width + k]
    for i in range(nsparse, ntotal):
        for k in range(i + 1):
            res[nsparse * nband + (i - nsparse) * ntotal + k] = mat[i * ntotal + k]


@kernel
def mju_band2Dense(res, mat, ntotal, nband, ndense, flg_sym):
    """res[ntotal x ntotal] = the band-dense matrix mat (lower triangle; the upper one mirrored
    when flg_sym)."""
    nsparse = ntotal - ndense
    for i in range(ntotal * ntotal):
        res[i] = 0.0
    for i in range(nsparse):
        width = min(i, nband - 1)
        for k in range(width + 1):
            res[i * ntotal + i - width + k] = mat[(i + 1) * nband - (width + 1) + k]
    for i in range(nsparse, ntotal):
        for k in range(i + 1):
            res[i * ntotal + k] = mat[nsparse * nband + (i - nsparse) * ntotal + k]
    if flg_sym:
        for i in range(ntotal):
            for j in range(i + 1, ntotal):
                res[i * ntotal + j] = res[j * ntotal + i]


@kernel
def mju_bandMulMatVec(res, mat, vec, ntotal, nband, ndense, nvec, flg_sym):
    """res[:, j] = band-dense mat @ vec[:, j] for nvec vectors stored one after the other
    (the strict upper triangle mirrored when flg_sym)."""
    nsparse = ntotal - ndense
    for j in range(nvec):
        o = ntotal * j
        for i in range(nsparse):
            width = min(i + 1, nband)
            adr = i * nband + nband - width
            off = max(0, i - nband + 1)
            s = 0.0
            for k in range(width):
                s += mat[adr + k] * vec[o + off + k]
            res[o + i] = s
            if flg_sym:
                for k in range(width - 1):
                    res[o + off + k] += mat[adr + k] * vec[o + i]
        for i in range(nsparse, ntotal):
            adr = nsparse * nband + (i - nsparse) * ntotal
            s = 0.0
            for k in range(i + 1):
                s += mat[adr + k] * vec[o + k]
            res[o + i] = s
            if flg_sym:
                for k in range(i):
                    res[o + k] += mat[adr + k] * vec[o + i]


# ---- decompositions (seed 001 "Decompositions / Solvers") --------------------------------------
@kernel
def mju_cholFactor(mat, n, mindiag):
    """In-place Cholesky mat = L L' of an n x n SPD matrix (lower triangle of mat gets L; the
    strict upper triangle is left as it was). A pivot below mindiag is set to mindiag and its
    column below cleared; return the rank (n minus such pivots)."""
    rank = n
    for j in range(n):
        t = mat[j * (n + 1)]
        for k in range(j):
            t -= mat[j * n + k] * mat[j * n + k]
        deficient = t < mindiag
        if deficient:
            t = mindiag
            rank -= 1
        d = math.sqrt(t)
        mat[j * (n + 1)] = d
        if deficient:
            for i in range(j + 1, n):
                mat[i * n + j] = 0.0
        else:
            inv = 1.0 / d
            for i in range(j + 1, n):
                s = mat[i * n + j]
                for k in range(j):
                    s -= mat[i * n + k] * mat[j * n + k]
                mat[i * n + j] = s * inv
    return rank


@kernel
def mju_cholSolve(res, mat, vec, n):
    """Solve (L L') res = vec with L the lower triangle of mat (mju_cholFactor's result)."""
    for i in range(n):
        res[i] = vec[i]
    for i in range(n):
        s = res[i]
        for k in range(i):
            s -= mat[i * n + k] * res[k]
        res[i] = s / mat[i * (n + 1)]
    for i in range(n - 1, -1, -1):
        s = res[i]
        for j in range(i + 1, n):
            s -= mat[j * n + i] * res[j]
        res[i] = s / mat[i * (n + 1)]


@kernel
def mju_cholUpdate(mat, x, n, flg_plus):
    """Rank-one update of a Cholesky factor in place: L L' +/- x x' (x is overwritten);
    return the rank (pivots that fell below mjMINVAL are clamped and not counted)."""
    rank = n
    for k in range(n):
        if x[k] != 0.0:
            Lkk = mat[k * (n + 1)]
            t = Lkk * Lkk + (x[k] * x[k] if flg_plus else -x[k] * x[k])
            if t < mjMINVAL:
                t = mjMINVAL
                rank -= 1
            r = math.sqrt(t)
            c = r / Lkk
            cinv = 1.0 / c
            s = x[k] / Lkk
            mat[k * (n + 1)] = r
            for i in range(k + 1, n):
                if flg_plus:
                    mat[i * n + k] = (mat[i * n + k] + s * x[i]) * cinv
                else:
                    mat[i * n + k] = (mat[i * n + k] - s * x[i]) * cinv
            for i in range(k + 1, n):
                x[i] = c * x[i] - s * mat[i * n + k]
    return rank


@kernel
def mju_cholFactorBand(mat, ntotal, nband, ndense, diagadd, diagmul):
    """In-place Cholesky of a band-dense matrix (layout: mju_bandDiag), diagadd +
    diagmul*mat_ii added to each diagonal first; return the smallest diagonal of the factor,
    or 0 when one is below mjMINVAL (rank-deficient, factorization stopped there)."""
    nsparse = ntotal - ndense
    mindiag = -1.0
    for j in range(nsparse):
        width_jj = min(j, nband - 1)
        height = min(nsparse - j - 1, nband - 1)
        adr_jj = (j + 1) * nband - 1
        left = 0.0
        for k in range(width_jj):
            v = mat[adr_jj - width_jj + k]
            left += v * v
        Ljj = diagadd + diagmul * mat[adr_jj] + mat[adr_jj] - left
        if Ljj < mjMINVAL:
            return 0.0
        Ljj = math.sqrt(Ljj)
        if Ljj < mindiag or mindiag < 0:
            mindiag = Ljj
        scale = 1.0 / Ljj
        for i in range(j + 1, j + height + 1):
            width_ij = min(j, nband - 1 - i + j)
            adr_ij = (i + 1) * nband - 1 - i + j
            left = 0.0
            for k in range(width_ij):
                left += mat[adr_jj - width_ij + k] * mat[adr_ij - width_ij + k]
            mat[adr_ij] = scale * (mat[adr_ij] - left)
        for i in range(nsparse, ntotal):
            adr_ij = nsparse * nband + (i - nsparse) * ntotal + j
            left = 0.0
            for k in range(width_jj):
                left += mat[adr_jj - width_jj + k] * mat[adr_ij - width_jj + k]
            mat[adr_ij] = scale * (mat[adr_ij] - left)
        mat[adr_jj] = Ljj
    for j in range(nsparse, ntotal):
        adr_jj = nsparse * nband + (j - nsparse) * ntotal + j
        left = 0.0
        for k in range(j):
            v = mat[adr_jj - j + k]
            left += v * v
        Ljj = diagadd + diagmul * mat[adr_jj] + mat[adr_jj] - left
        if Ljj < mjMINVAL:
            return 0.0
        Ljj = math.sqrt(Ljj)
        if Ljj < mindiag or mindiag < 0:
            mindiag = Ljj
        scale = 1.0 / Ljj
        for i in range(j + 1, ntotal):
            adr_ij = adr_jj + ntotal * (i - j)
            left = 0.0
            for k in range(j):
                left += mat[adr_jj - j + k] * mat[adr_ij - j + k]
            mat[adr_ij] = scale * (mat[adr_ij] - left)
        mat[adr_jj] = Ljj
    return mindiag


@kernel
def mju_cholSolveBand(res, mat, vec, ntotal, nband, ndense):
    """Solve (L L') res = vec with L the band-dense factor of mju_cholFactorBand."""
    nsparse = ntotal - ndense
    for i in range(ntotal):
        res[i] = vec[i]
    for i in range(nsparse):
        width = min(i, nband - 1)
        s = res[i]
        for k in range(width):
            s -= mat[(i + 1) * nband - 1 - width + k] * res[i - width + k]
        res[i] = s / mat[(i + 1) * nband - 1]
    for i in range(nsparse, ntotal):
        adr = nsparse * nband + (i - nsparse) * ntotal
        s = res[i]
        for k in range(i):
            s -= mat[adr + k] * res[k]
        res[i] = s / mat[adr + i]
    for i in range(ntotal - 1, nsparse - 1, -1):
        s = res[i]
        for j in range(i + 1, ntotal):
            s -= mat[nsparse * nband + (j - nsparse) * ntotal + i] * res[j]
        res[i] = s / mat[nsparse * nband + (i - nsparse) * ntotal + i]
    for i in range(nsparse - 1, -1, -1):
        height = min(nsparse - 1 - i, nband - 1)
        s = res[i]
        for j in range(i + 1, i + height + 1):
            s -= mat[(j + 1) * nband - 1 - (j - i)] * res[j]
        for j in range(nsparse, ntotal):
            s -= mat[nsparse * nband + (j - nsparse) * ntotal + i] * res[j]
        res[i] = s / mat[(i + 1) * nband - 1]


@kernel
def mju_eig3(eigval, eigvec, quat, mat):
    """Eigen-decomposition of a symmetric 3x3 mat = eigvec diag(eigval) eigvec' by Jacobi
    rotations accumulated in the quaternion quat (eigvec = its matrix); eigenvalues in
    decreasing order. Return the number of iterations."""
    eps = mjMINVAL * 1000.0
    q = (1.0, 0.0, 0.0, 0.0)
    it = 0
    while it < 500:
        R = mm.quat2mat(q)
        D = mm.mat_mat(mm.mat_mat(mm.transpose9(R), mat), R)
        eigval[0], eigval[1], eigval[2] = D[0], D[4], D[8]
        if abs(D[1]) > abs(D[2]) and abs(D[1]) > abs(D[5]):
            rk, ck, rotk = 0, 1, 2
        elif abs(D[2]) > abs(D[5]):
            rk, ck, rotk = 0, 2, 1
        else:
            rk, ck, rotk = 1, 2, 0
        off = D[3 * rk + ck]
        if abs(off) < eps:
            break
        tau = (D[4 * ck] - D[4 * rk]) / (2.0 * off)
        if tau >= 0:
            t = 1.0 / (tau + math.sqrt(1.0 + tau * tau))
        else:
            t = -1.0 / (-tau + math.sqrt(1.0 + tau * tau))
        # half-angle of the rotation by atan(t): sqrt(0.5 - 0.5 cos) would cancel as the
        # angle shrinks and stall the iteration near 1e-6 (measured against mujoco 4.0.0)
        th = math.atan(t)
        s = math.sin(0.5 * abs(th))
        s = -s if tau >= 0 else s
        if rotk == 1:
            s = -s
        w = math.cos(0.5 * th)
        rot = (w, s if rotk == 0 else 0.0, s if rotk == 1 else 0.0, s if rotk == 2 else 0.0)
        q = mm.quat_normalize(mm.quat_mul(q, mm.quat_normalize(rot)))
        it += 1
    # sort in decreasing order (swaps 0-1, 1-2, 0-1), each a quarter turn of the frame
    for j in range(3):
        j1 = j % 2
        if eigval[j1] + eps < eigval[j1 + 1]:
            tv = eigval[j1]
            eigval[j1] = eigval[j1 + 1]
            eigval[j1 + 1] = tv
            h = 0.707106781186548
            ax = (j1 + 2) % 3
            rot = (h, h if ax == 0 else 0.0, h if ax == 1 else 0.0, h if ax == 2 else 0.0)
            q = mm.quat_normalize(mm.quat_mul(q, rot))
    mm.set4(quat, q)
    mm.set9(eigvec, mm.quat2mat(q))
    return it


# ---- quaternions and poses (seed 001 "Quaternions", "Poses") ---------------------------------
@kernel
def mju_rotVecQuat(res, vec, quat):
    """res = vec rotated by the unit quaternion quat."""
    mm.set3(res, mm.rot_vec_quat(vec, quat))


@kernel
def mju_negQuat(res, quat):
    """res = conjugate of quat (the opposite rotation)."""
    mm.set4(res, mm.quat_neg(quat))


@kernel
def mju_mulQuat(res, quat1, quat2):
    """res = quat1 * quat2 (res may be either input)."""
    mm.set4(res, mm.quat_mul(quat1, quat2))


@kernel
def mju_mulQuatAxis(res, quat, axis):
    """res = quat * (0, axis)."""
    mm.set4(res, mm.quat_mul(quat, (0.0, axis[0], axis[1], axis[2])))


@kernel
def mju_axisAngle2Quat(res, axis, angle):
    """res = rotation by angle (rad) about the unit axis."""
    if angle == 0.0:
        mm.set4(res, (1.0, 0.0, 0.0, 0.0))
    else:
        mm.set4(res, mm.axis_angle2quat(axis, angle))


@kernel
def mju_quat2Vel(res, quat, dt):
    """res = angular velocity (rad/s, local frame) that rotates by quat in time dt."""
    mm.set3(res, mm.quat2vel(quat, dt))


@kernel
def mju_subQuat(res, qa, qb):
    """res = rotation vector r with qb * quat(r) = qa."""
    mm.set3(res, mm.sub_quat(qa, qb))


@kernel
def mju_quat2Mat(res, quat):
    """res = rotation matrix (row-major) of the unit quaternion quat."""
    mm.set9(res, mm.quat2mat(quat))


@kernel
def mju_mat2Quat(quat, mat):
    """quat = unit quaternion of the rotation matrix mat."""
    mm.set4(quat, mm.mat2quat(mat))


@kernel
def mju_derivQuat(res, quat, vel):
    """res = d(quat)/dt for the angular velocity vel (rad/s): (0, vel) * quat / 2 (mujoco's
    formula, vel in the frame quat maps into)."""
    q = mm.quat_mul((0.0, vel[0], vel[1], vel[2]), quat)
    mm.set4(res, (0.5 * q[0], 0.5 * q[1], 0.5 * q[2], 0.5 * q[3]))


@kernel
def mju_quatIntegrate(quat, vel, scale):
    """quat = normalized(quat) * exp(vel*scale): integrate a local angular velocity in place."""
    mm.set4(quat, mm.quat_integrate(quat, vel, scale))


@kernel
def mju_quatZ2Vec(quat, vec):
    """quat = the shortest rotation taking the z axis to the direction of vec (identity for a
    tiny vec, a half turn about x for -z)."""
    vn, n = mm.normalize3((vec[0], vec[1], vec[2]))
    mm.set4(quat, mm.quat_z2vec(vn, n))


@kernel
def mju_mat2Rot(quat, mat):
    """Refine quat in place to the rotation closest to the arbitrary 3x3 mat (Müller et al.
    2016, "A robust method to extract the rotational part of deformations"); return the number
    of iterations (at most 500; done when the correction angle is below 1e-9)."""
    q = mm.get4(quat)
    it = 0
    while it < 500:
        R = mm.quat2mat(q)
        om = (0.0, 0.0, 0.0)
        den = 0.0
        for c in range(3):
            rc = (R[c], R[3 + c], R[6 + c])
            mc = (mat[c], mat[3 + c], mat[6 + c])
            om = mm.add3(om, mm.cross3(rc, mc))
            den += mm.dot3(rc, mc)
        om = mm.scl3(om, 1.0 / (abs(den) + mjMINVAL))
        axis, w = mm.normalize3(om)
        if w < 1e-9:
            break
        q = mm.quat_normalize(mm.quat_mul(mm.axis_angle2quat(axis, w), q))
        it += 1
    mm.set4(quat, q)
    return it


@kernel
def mju_euler2Quat(quat, euler, seq):
    """quat = rotation of three Euler angles (rad) about the axes seq (3 codes, 0/1/2 for
    x/y/z intrinsic, 3/4/5 for X/Y/Z extrinsic; the Python wrapper maps mujoco's string)."""
    q = (1.0, 0.0, 0.0, 0.0)
    for i in range(3):
        ax = seq[i] % 3
        h = 0.5 * euler[i]
        sa = math.sin(h)
        rot = (math.cos(h), sa if ax == 0 else 0.0, sa if ax == 1 else 0.0,
               sa if ax == 2 else 0.0)
        q = mm.quat_mul(q, rot) if seq[i] < 3 else mm.quat_mul(rot, q)
    mm.set4(quat, q)


@kernel
def mju_mulPose(posres, quatres, pos1, quat1, pos2, quat2):
    """(posres, quatres) = (pos1, quat1) * (pos2, quat2); quatres normalized."""
    mm.set4(quatres, mm.quat_normalize(mm.quat_mul(quat1, quat2)))
    mm.set3(posres, mm.add3(mm.rot_vec_quat(pos2, quat1), pos1))


@kernel
def mju_negPose(posres, quatres, pos, quat):
    """(posres, quatres) = the inverse of the pose (pos, quat)."""
    qn = mm.quat_neg(quat)
    mm.set4(quatres, qn)
    mm.set3(posres, mm.scl3(mm.rot_vec_quat(pos, qn), -1.0))


@kernel
def mju_trnVecPose(res, pos, quat, vec):
    """res = pos + vec rotated by quat."""
    mm.set3(res, mm.add3(mm.rot_vec_quat(vec, quat), pos))


@kernel
def mju_transformSpatial(res, vec, flg_force, newpos, oldpos, rotnew2old):
    """Move a 6-D (rotation, translation) motion or force vector from a frame at oldpos to one
    at newpos; then express it in the new frame's axes when rotnew2old (3x3) is not None."""
    dif = mm.sub3(newpos, oldpos)
    top = (vec[0], vec[1], vec[2])
    bot = (vec[3], vec[4], vec[5])
    if flg_force:
        top = mm.sub3(top, mm.cross3(dif, bot))
    else:
        bot = mm.sub3(bot, mm.cross3(dif, top))
    if rotnew2old is not None:
        top = mm.mat_t_vec(rotnew2old, top)
        bot = mm.mat_t_vec(rotnew2old, bot)
    mm.set3(res, top)
    res[3], res[4], res[5] = bot[0], bot[1], bot[2]


# ---- miscellaneous (seed 001 "Miscellaneous") --------------------------------------------------
@kernel
def mju_encodePyramid(pyramid, force, mu, dim):
    """Pyramid (2*(dim-1) edge forces) of a contact force (normal, tangential...) with
    friction mu[dim-1]: each pair sums to normal/(dim-1) and differs by tangent/mu."""
    a = force[0] / (dim - 1)
    for i in range(dim - 1):
        b = min(a, force[i + 1] / mu[i])
        pyramid[2 * i] = 0.5 * (a + b)
        pyramid[2 * i + 1] = 0.5 * (a - b)


@kernel
def mju_decodePyramid(force, pyramid, mu, dim):
    """Contact force (normal, tangential...) of the pyramid edge forces (inverse of
    mju_encodePyramid; dim 1 is frictionless)."""
    if dim == 1:
        force[0] = pyramid[0]
        return
    s = 0.0
    for i in range(2 * (dim - 1)):
        s += pyramid[i]
    force[0] = s
    for i in range(dim - 1):
        force[i + 1] = (pyramid[2 * i] - pyramid[2 * i + 1]) * mu[i]


@kernel
def mju_springDamper(pos0, vel0, Kp, Kv, dt):
    """Exact solution pos(dt) of pos'' = -Kp pos - Kv pos' from (pos0, vel0): over-, critically
    or under-damped by the sign of Kv^2 - 4 Kp (within mjMINVAL: critical)."""
    det = Kv * Kv - 4.0 * Kp
    if det > mjMINVAL:
        w = math.sqrt(det) / 2.0
        r1 = -Kv / 2.0 + w
        r2 = -Kv / 2.0 - w
        c1 = (pos0 * r2 - vel0) / (r2 - r1)
        c2 = (pos0 * r1 - vel0) / (r1 - r2)
        return c1 * math.exp(r1 * dt) + c2 * math.exp(r2 * dt)
    if det >= -mjMINVAL:
        c2 = vel0 + Kv * pos0 / 2.0
        return math.exp(-Kv * dt / 2.0) * (pos0 + c2 * dt)
    w = math.sqrt(abs(det)) / 2.0
    c2 = (vel0 + Kv * pos0 / 2.0) / w
    return math.exp(-Kv * dt / 2.0) * (pos0 * math.cos(w * dt) + c2 * math.sin(w * dt))


@kernel
def mju_min(a, b):
    return a if a <= b else b


@kernel
def mju_max(a, b):
    return a if a >= b else b


@kernel
def mju_clip(x, min, max):  # noqa: A002 (mujoco's argument names)
    """x clipped to [min, max]."""
    if x < min:
        return min
    if x > max:
        return max
    return x


@kernel
def mju_sign(x):
    """+1, -1 or 0."""
    if x < 0:
        return -1.0
    if x > 0:
        return 1.0
    return 0.0


@kernel
def mju_round(x):
    """Nearest integer, halves away from zero (C's round(), as mujoco 4.0.0 gives: -2.5 -> -3)."""
    r = math.floor(abs(x) + 0.5)
    return int(-r) if x < 0 else int(r)


@kernel
def mju_isBad(x):
    """1 if x is NaN or |x| > mjMAXVAL, else 0 (the check functions' test)."""
    return 1 if (x != x or x > mjMAXVAL or x < -mjMAXVAL) else 0


@kernel
def mju_sigmoid(x):
    """Quintic smoothstep 6x^5 - 15x^4 + 10x^3 on [0, 1] (0 below, 1 above)."""
    return _sigmoid(x)


@kernel
def mju_Halton(index, base):
    """Element index of the Halton (van der Corput) sequence of the given base."""
    n0 = index
    b = float(base)
    f = 1.0 / b
    hn = 0.0
    while n0 > 0:
        n1 = n0 // base
        hn += f * (n0 - n1 * base)
        f /= b
        n0 = n1
    return hn


@kernel
def mju_muscleGain(len, vel, lengthrange, acc0, prm):  # noqa: A002 (mujoco's argument name)
    """Active muscle force per activation (MuJoCo documentation, "Muscles")."""
    return muscle_gain(len, vel, lengthrange, acc0, prm)


@kernel
def mju_muscleBias(len, lengthrange, acc0, prm):  # noqa: A002
    """Passive muscle force."""
    return muscle_bias(len, lengthrange, acc0, prm)


@kernel
def mju_muscleDynamics(ctrl, act, prm):
    """Muscle activation rate d(act)/dt."""
    return muscle_dynamics(ctrl, act, prm)

