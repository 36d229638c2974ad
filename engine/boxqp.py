"""Box-constrained quadratic program, mju_boxQP (seed 001, "Utility functions / Solvers"):

    minimize 0.5 x'Hx + x'g   subject to   lower <= x <= upper

by projected Newton (Bertsekas 1982), as MuJoCo's: at each iteration the dimensions clamped at a
bound with the gradient pushing outward are fixed, the Newton step is taken in the others (a
Cholesky factor of H restricted to them, refactored only when that set changes), and a projected
Armijo backtracking line search accepts it. Only H's lower triangle is read.

R (size n*(n+7)) holds the factor (nfree*nfree) and the scratch vectors, so the kernel
allocates nothing; index (n) gets the free dimensions. Returns nfree, or -1 when H restricted to
the free set is not positive definite or no descent direction was found.
"""
from __future__ import annotations

from ._jit import kernel
from .enums import mjMINVAL
from .mju import mju_cholFactor, mju_cholSolve

_MAXITER = 100        # main iterations
_MINGRAD = 1e-16      # squared norm of the free gradient at which x is optimal
_BACKTRACK = 0.5      # step factor of the line search
_MINSTEP = 1e-22      # smallest step of the line search
_ARMIJO = 0.1         # fraction of the expected linear decrease a step must achieve

# outcome codes (why the iteration stopped)
_NOT_SPD, _NO_DESCENT, _MAX_ITER, _MAX_LS, _TOL_GRAD, _UNBOUNDED, _ALL_CLAMPED = range(-1, 6)


@kernel
def _sym_quad(x, H, n):
    """x' H x from H's lower triangle."""
    s = 0.0
    for i in range(n):
        s += x[i] * H[n * i + i] * x[i]
        t = 0.0
        for j in range(i):
            t += H[n * i + j] * x[j]
        s += 2.0 * x[i] * t
    return s


@kernel
def _sym_mul(res, H, x, n):
    """res = H x from H's lower triangle."""
    for i in range(n):
        res[i] = 0.0
    for i in range(n):
        t = H[n * i + i] * x[i]
        for j in range(i):
            t += H[n * i + j] * x[j]
            res[j] += H[n * i + j] * x[i]
        res[i] += t


@kernel
def _value(x, H, g, n):
    s = 0.0
    for i in range(n):
        s += x[i] * g[i]
    return 0.5 * _sym_quad(x, H, n) + s


@kernel
def box_qp(res, R, index, H, g, n, lower, upper):
    """mju_boxQP with its C arguments (lower/upper/index may be None); see the module
    docstring."""
    status = _NO_DESCENT
    nfree = n
    grad = R[n * n:n * n + n]
    search = R[n * n + n:n * n + 2 * n]
    cand = R[n * n + 2 * n:n * n + 3 * n]
    temp = R[n * n + 3 * n:n * n + 4 * n]
    clamped = R[n * n + 4 * n:n * n + 5 * n]       # 0/1 flags stored as floats
    oldclamped = R[n * n + 5 * n:n * n + 6 * n]
    idxs = R[n * n + 6 * n:n * n + 7 * n]          # the free set when index is None

    if lower is None and upper is None:
        # no bounds: the Newton point
        for i in range(n * n):
            R[i] = H[i]
        if mju_cholFactor(R, n, mjMINVAL) == n:
            mju_cholSolve(res, R, g, n)
            for i in range(n):
                res[i] = -res[i]
            status = _UNBOUNDED
        else:
            status = _NOT_SPD
        for i in range(n):
            idxs[i] = i
    else:
        for i in range(n):
            if lower is not None and res[i] < lower[i]:
                res[i] = lower[i]
            if upper is not None and res[i] > upper[i]:
                res[i] = upper[i]

    it = 0
    while it < _MAXITER:
        if status != _NO_DESCENT:
            break
        value = _value(res, H, g, n)
        oldvalue = value
        _sym_mul(grad, H, res, n)
        for i in range(n):
            grad[i] += g[i]

        # dimensions held at a bound by the gradient
        nfree = 0
        for i in range(n):
            c = (lower is not None and res[i] == lower[i] and grad[i] > 0) or \
                (upper is not None and res[i] == upper[i] and grad[i] < 0)
            clamped[i] = 1.0 if c else 0.0
            if not c:
                idxs[nfree] = i
                nfree += 1
        if nfree == 0:
            status = _ALL_CLAMPED
            break
        factorize = True
        if it:
            factorize = False
            for i in range(n):
                if clamped[i] != oldclamped[i]:
                    factorize = True
                    break
        for i in range(n):
            oldclamped[i] = clamped[i]

        # search = g + H[:, clamped] x_clamped, compressed to the free set
        for i in range(n):
            temp[i] = res[i] if clamped[i] else 0.0
        _sym_mul(search, H, temp, n)
        for i in range(n):
            search[i] += g[i]
        for i in range(nfree):
            search[i] = search[int(idxs[i])]
        if factorize:
            for i in range(nfree):
                for j in range(i + 1):
                    R[i * nfree + j] = H[int(idxs[i]) * n + int(idxs[j])]
            if mju_cholFactor(R, nfree, mjMINVAL) != nfree:
                status = _NOT_SPD
                break
        mju_cholSolve(temp, R, search, nfree)
        for i in range(n):
            search[i] = 0.0
        for i in range(nfree):
            k = int(idxs[i])
            search[k] = -temp[i] - res[k]

        norm2 = 0.0
        for i in range(nfree):
            gi = grad[int(idxs[i])]
            norm2 += gi * gi
        if norm2 < _MINGRAD:
            status = _UNBOUNDED if nfree == n else _TOL_GRAD
            break
        sdotg = 0.0
        for i in range(n):
            sdotg += search[i] * grad[i]
        if sdotg >= 0:
            break      # not a descent direction (should not occur)

        # projected Armijo line search
        step = 1.0
        while True:
            for i in range(n):
                c = res[i] + step * search[i]
                if lower is not None and c < lower[i]:
                    c = lower[i]
                elif upper is not None and c > upper[i]:
                    c = upper[i]
                cand[i] = c
            value = _value(cand, H, g, n)
            step *= _BACKTRACK
            if step < _MINSTEP:
                status = _MAX_LS
                break
            if (value - oldvalue) / (step * sdotg) >= _ARMIJO:
                break
        for i in range(n):
            res[i] = cand[i]
        it += 1

    if it == _MAXITER:
        status = _MAX_ITER
    if index is not None:
        for i in range(nfree):
            index[i] = int(idxs[i])
    return -1 if (status == _NO_DESCENT or status == _NOT_SPD) else nfree
