"""engine.mju_* (bindings-style wrappers over engine.mju's kernels) against mujoco's mju_* on the
same random inputs: every output array and return value.

Tolerances: rtol=atol=1e-12 for the closed-form functions (same formulas in double precision,
summation order may differ); iterative ones (mju_mat2Rot, mju_eig3, mju_boxQP) converge to
the same point within 1e-9; integer returns (ranks, iteration counts, flags) exactly.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from oracle import mujoco

import engine
from engine import mju_api

TOL = dict(rtol=1e-12, atol=1e-12)


def _unit(v):
    return v / np.linalg.norm(v)


def _args(rng, spec, n):
    """Random arguments for a signature-table entry (see engine.mju_api._TABLE)."""
    out = []
    for item in spec.split():
        name, kind = item.split(":")
        if kind == "f":
            out.append(float(rng.uniform(-2, 2)) if name not in ("dt", "scale")
                       else float(rng.uniform(0.1, 1)))
        elif kind == "d":
            out.append(int(rng.integers(1, 7)))
        else:
            size = n if kind[1:] == "n" else int(kind[1:])
            v = rng.standard_normal(size)
            if size == 4 and name.startswith("q") or name in ("quatres",):
                v = _unit(v)
            if size == 9 and name in ("mat", "rotnew2old") and kind[0] == "i":
                q = _unit(rng.standard_normal(4))
                m = np.zeros(9)
                mujoco.mju_quat2Mat(m, q)
                v = m if name == "rotnew2old" else m + 0.1 * rng.standard_normal(9)
            if name == "axis":
                v = _unit(v)
            out.append(v)
    return out


SKIP_RANDOM = {
    # fixed inputs below (random ones are outside their domain or need structure)
    "mju_muscleGain", "mju_muscleBias", "mju_muscleDynamics", "mju_bandDiag", "mju_eig3",
    "mju_Halton",
}


@pytest.mark.parametrize("name", sorted(set(mju_api._TABLE) - SKIP_RANDOM))
@pytest.mark.parametrize("seed", range(3))
def test_table_functions(name, seed):
    spec = mju_api._TABLE[name]
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    mine = _args(rng, spec, n)
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in mine]
    if name == "mju_mat2Rot":       # an initial guess near the answer
        mine[0][:] = theirs[0][:] = (1.0, 0.0, 0.0, 0.0)
    r1 = getattr(engine, name)(*mine)
    r2 = getattr(mujoco, name)(*theirs)
    tol = dict(rtol=1e-9, atol=1e-9) if name == "mju_mat2Rot" else TOL
    if isinstance(r2, float):
        np.testing.assert_allclose(r1, r2, **TOL, err_msg=f"mismatch: {name} return")
    elif name != "mju_mat2Rot":
        assert r1 == r2, f"mismatch: {name} return"
    for a, b, item in zip(mine, theirs, spec.split()):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, **tol, err_msg=f"mismatch: {name} {item}")


@pytest.mark.parametrize("name", ["mju_mulMatVec", "mju_mulMatTVec", "mju_mulVecMatVec",
                                  "mju_transpose", "mju_symmetrize", "mju_mulMatMat",
                                  "mju_mulMatMatT", "mju_mulMatTMat", "mju_sqrMatTD", "mju_eye"])
@pytest.mark.parametrize("seed", range(3))
def test_matrix_functions(name, seed):
    rng = np.random.default_rng(seed)
    r, c, k = (int(x) for x in rng.integers(1, 6, 3))
    A = rng.standard_normal((r, c))
    sq = rng.standard_normal((r, r))
    cases = {
        "mju_mulMatVec": lambda: ([np.zeros(r), A, rng.standard_normal(c)], [0]),
        "mju_mulMatTVec": lambda: ([np.zeros(c), A, rng.standard_normal(r)], [0]),
        "mju_mulVecMatVec": lambda: ([rng.standard_normal(r), sq, rng.standard_normal(r)], []),
        "mju_transpose": lambda: ([np.zeros((c, r)), A], [0]),
        "mju_symmetrize": lambda: ([np.zeros((r, r)), sq], [0]),
        "mju_mulMatMat": lambda: ([np.zeros((r, k)), A, rng.standard_normal((c, k))], [0]),
        "mju_mulMatMatT": lambda: ([np.zeros((r, k)), A, rng.standard_normal((k, c))], [0]),
        "mju_mulMatTMat": lambda: ([np.zeros((c, k)), A, rng.standard_normal((r, k))], [0]),
        "mju_sqrMatTD": lambda: ([np.zeros((c, c)), A, rng.standard_normal(r)], [0]),
        "mju_eye": lambda: ([np.full((r, r), 7.0)], [0]),
    }
    args, outs = cases[name]()
    theirs = [a.copy() for a in args]
    r1 = getattr(engine, name)(*args)
    r2 = getattr(mujoco, name)(*theirs)
    if r2 is not None:
        np.testing.assert_allclose(r1, r2, **TOL)
    for i in outs:
        np.testing.assert_allclose(args[i], theirs[i], **TOL, err_msg=f"mismatch: {name}")
    if name == "mju_sqrMatTD":     # diag None: mat' mat
        a, b = np.zeros((c, c)), np.zeros((c, c))
        engine.mju_sqrMatTD(a, A, None)
        mujoco.mju_sqrMatTD(b, A, None)
        np.testing.assert_allclose(a, b, **TOL)


def _spd(rng, n):
    A = rng.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


@pytest.mark.parametrize("seed", range(4))
def test_cholesky(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    H = _spd(rng, n)
    if seed == 3:                      # rank-deficient: a zero row/column
        H[0, :] = H[:, 0] = 0.0
    L1, L2 = H.copy(), H.copy()
    assert engine.mju_cholFactor(L1, 1e-10) == mujoco.mju_cholFactor(L2, 1e-10)
    np.testing.assert_allclose(L1, L2, **TOL)
    v = rng.standard_normal(n)
    x1, x2 = np.zeros(n), np.zeros(n)
    engine.mju_cholSolve(x1, L1, v)
    mujoco.mju_cholSolve(x2, L2, v)
    np.testing.assert_allclose(x1, x2, rtol=1e-10, atol=1e-10)
    for plus in (1, 0):
        xa = 0.3 * rng.standard_normal(n)
        xb = xa.copy()
        assert engine.mju_cholUpdate(L1, xa, plus) == mujoco.mju_cholUpdate(L2, xb, plus)
        np.testing.assert_allclose(L1, L2, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(xa, xb, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("ntotal,nband,ndense", [(6, 3, 0), (6, 2, 2), (5, 1, 5), (7, 4, 1)])
def test_band(ntotal, nband, ndense):
    rng = np.random.default_rng(ntotal + nband + ndense)
    nsparse = ntotal - ndense
    H = _spd(rng, ntotal)
    for i in range(nsparse):        # band structure among the sparse rows
        for j in range(nsparse):
            if abs(i - j) >= nband:
                H[i, j] = 0.0
    size = nsparse * nband + ndense * ntotal
    b1, b2 = np.zeros(size), np.zeros(size)
    engine.mju_dense2Band(b1, H, ntotal, nband, ndense)
    mujoco.mju_dense2Band(b2, H, ntotal, nband, ndense)
    np.testing.assert_array_equal(b1, b2)
    assert engine.mju_bandDiag(ntotal - 1, ntotal, nband, ndense) == \
        mujoco.mju_bandDiag(ntotal - 1, ntotal, nband, ndense)
    for sym in (False, True):
        d1, d2 = np.zeros((ntotal, ntotal)), np.zeros((ntotal, ntotal))
        engine.mju_band2Dense(d1, b1, ntotal, nband, ndense, sym)
        mujoco.mju_band2Dense(d2, b2, ntotal, nband, ndense, sym)
        np.testing.assert_array_equal(d1, d2)
        v = rng.standard_normal(ntotal)    # (mujoco's binding takes one vector: nvec 1)
        r1, r2 = np.zeros(ntotal), np.zeros(ntotal)
        engine.mju_bandMulMatVec(r1, b1, v, ntotal, nband, ndense, 1, sym)
        mujoco.mju_bandMulMatVec(r2, b2.reshape(1, -1), v, ntotal, nband, ndense, 1, sym)
        np.testing.assert_allclose(r1, r2, **TOL)
    m1 = engine.mju_cholFactorBand(b1, ntotal, nband, ndense, 0.1, 0.01)
    m2 = mujoco.mju_cholFactorBand(b2, ntotal, nband, ndense, 0.1, 0.01)
    np.testing.assert_allclose(m1, m2, **TOL)
    np.testing.assert_allclose(b1, b2, **TOL)
    v = rng.standard_normal(ntotal)
    x1, x2 = np.zeros(ntotal), np.zeros(ntotal)
    engine.mju_cholSolveBand(x1, b1, v, ntotal, nband, ndense)
    mujoco.mju_cholSolveBand(x2, b2, v, ntotal, nband, ndense)
    np.testing.assert_allclose(x1, x2, rtol=1e-10, atol=1e-10)


def test_sparse():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 5)) * (rng.random((4, 5)) < 0.5)
    for cap in (20, 3):        # enough room; too little (returns 1, partial CSR)
        outs = [[np.zeros(cap), np.zeros(4, np.int32), np.zeros(4, np.int32),
                 np.zeros(cap, np.int32)] for _ in range(2)]
        f1 = engine.mju_dense2sparse(outs[0][0], A, *outs[0][1:])
        f2 = mujoco.mju_dense2sparse(outs[1][0], A, *outs[1][1:])
        assert f1 == f2
        if f1 == 0:
            for a, b in zip(*outs):
                np.testing.assert_array_equal(a, b)
    val, rownnz, rowadr, colind = outs[0] if f1 == 0 else (None,) * 4
    val, rownnz, rowadr, colind = [np.zeros(20), np.zeros(4, np.int32), np.zeros(4, np.int32),
                                   np.zeros(20, np.int32)]
    engine.mju_dense2sparse(val, A, rownnz, rowadr, colind)
    d1, d2 = np.zeros((4, 5)), np.zeros((4, 5))
    engine.mju_sparse2dense(d1, val, rownnz, rowadr, colind)
    mujoco.mju_sparse2dense(d2, val, rownnz, rowadr, colind)
    np.testing.assert_array_equal(d1, d2)
    np.testing.assert_array_equal(d1, A)
    L = np.tril(rng.standard_normal((4, 4)))
    val, rownnz, rowadr, colind = [np.zeros(16), np.zeros(4, np.int32), np.zeros(4, np.int32),
                                   np.zeros(16, np.int32)]
    mujoco.mju_dense2sparse(val, L, rownnz, rowadr, colind)
    s1, s2 = np.zeros((4, 4)), np.zeros((4, 4))
    engine.mju_sym2dense(s1, val, rownnz, rowadr, colind)
    mujoco.mju_sym2dense(s2, val, rownnz, rowadr, colind)
    np.testing.assert_array_equal(s1, s2)


@pytest.mark.parametrize("seed", range(6))
def test_box_qp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    H = _spd(rng, n)
    g = 3 * rng.standard_normal(n)
    lower = -rng.random(n) if seed % 3 else None
    upper = rng.random(n) if seed % 3 != 1 else None
    if seed == 5:
        lower = upper = None
    res = [np.zeros(n), np.zeros(n)]
    R = [np.zeros(n * (n + 7)), np.zeros(n * (n + 7))]
    idx = [np.zeros(n, np.int32), np.zeros(n, np.int32)]
    k1 = engine.mju_boxQP(res[0], R[0], idx[0], H, g, lower, upper)
    k2 = mujoco.mju_boxQP(res[1], R[1], idx[1], H, g, lower, upper)
    assert k1 == k2
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(idx[0][:k1], idx[1][:k2])
    low = np.tril(np.ones((k1, k1), bool))
    np.testing.assert_allclose(R[0][:k1 * k1].reshape(k1, k1)[low],
                               R[1][:k1 * k1].reshape(k1, k1)[low], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_eig3(seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((3, 3))
    M = (A + A.T).ravel()
    out = [[np.zeros(3), np.zeros(9), np.zeros(4)] for _ in range(2)]
    # The decomposition agrees to 1e-9; the Jacobi sweep count within one (the last sweep
    # depends on rounding of the off-diagonal element against the 1e-12 threshold).
    i1 = engine.mju_eig3(*out[0], M)
    i2 = mujoco.mju_eig3(*out[1], M)
    assert abs(i1 - i2) <= 1
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    ev, vec = out[0][0], out[0][1].reshape(3, 3)
    np.testing.assert_allclose(vec @ np.diag(ev) @ vec.T, M.reshape(3, 3), atol=1e-12)


def test_pyramid_euler_misc():
    rng = np.random.default_rng(3)
    # mujoco 4.0.0's binding passes dim = len(mu) to the C function, one less than the contact
    # dimension its size checks imply (force = len(mu)+1): its own result for force (f0, f1, f2)
    # and mu (m0, m1) uses one pair. The engine follows the C function's meaning (dim =
    # len(mu)+1); the oracle gets it by padding each array by one element, which the binding's
    # dim then covers exactly.
    for dim in (2, 3, 4):
        mu = rng.random(dim - 1) + 0.2
        f = np.r_[2.0, rng.standard_normal(dim - 1) * 0.3]
        mu_pad, f_pad = np.r_[mu, 1.0], np.r_[f, 0.0]
        p1, p2 = np.zeros(2 * (dim - 1)), np.zeros(2 * dim)
        engine.mju_encodePyramid(p1, f, mu)
        mujoco.mju_encodePyramid(p2, f_pad, mu_pad)
        np.testing.assert_allclose(p1, p2[:-2], **TOL)
        f1, f2 = np.zeros(dim), np.zeros(dim + 1)
        engine.mju_decodePyramid(f1, p1, mu)
        mujoco.mju_decodePyramid(f2, np.r_[p1, 0.0, 0.0], mu_pad)
        np.testing.assert_allclose(f1, f2[:-1], **TOL)
    for seq in ("xyz", "XYZ", "zyx", "xYz", "ZxY"):
        e = rng.standard_normal(3)
        q1, q2 = np.zeros(4), np.zeros(4)
        engine.mju_euler2Quat(q1, e, seq)
        mujoco.mju_euler2Quat(q2, e, seq)
        np.testing.assert_allclose(q1, q2, **TOL)
    with pytest.raises(ValueError, match="seq"):
        engine.mju_euler2Quat(np.zeros(4), np.zeros(3), "xyw")
    for x in (-2.5, -0.5, 0.4999, 0.5, 1.5, 2.5, 7.2):
        assert engine.mju_round(x) == mujoco.mju_round(x)
    for x in (np.nan, 1e11, -1e11, 1e9, 0.0):
        assert engine.mju_isBad(x) == mujoco.mju_isBad(x)
    for args in ((0.3, 0.1, 4.0, 4.0, 0.7), (1.0, 0.0, 10.0, 1.0, 0.3), (1.0, 2.0, 1.0, 5.0, 2)):
        np.testing.assert_allclose(engine.mju_springDamper(*args), mujoco.mju_springDamper(*args),
                                   **TOL)
    for i, b in ((0, 2), (5, 3), (123, 7)):
        assert engine.mju_Halton(i, b) == pytest.approx(mujoco.mju_Halton(i, b), rel=1e-15)
    for nb in (0, 1, 1023, 1024, 3 << 20, (1 << 30) + 1, 5 << 40):
        assert engine.mju_writeNumBytes(nb) == mujoco.mju_writeNumBytes(nb)
    lr = np.array([0.8, 1.2])
    prm = np.array([0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2])
    for length in (0.85, 1.0, 1.15):
        for vel in (-0.5, 0.0, 0.3):
            np.testing.assert_allclose(engine.mju_muscleGain(length, vel, lr, 2.0, prm),
                                       mujoco.mju_muscleGain(length, vel, lr, 2.0, prm), **TOL)
        np.testing.assert_allclose(engine.mju_muscleBias(length, lr, 2.0, prm),
                                   mujoco.mju_muscleBias(length, lr, 2.0, prm), **TOL)
    for ctrl, act in ((0.3, 0.1), (0.1, 0.6), (1.5, -0.2)):
        for p in ((0.01, 0.04, 0.0), (0.01, 0.04, 0.3)):
            np.testing.assert_allclose(engine.mju_muscleDynamics(ctrl, act, np.array(p)),
                                       mujoco.mju_muscleDynamics(ctrl, act, np.array(p)), **TOL)
    a32 = rng.standard_normal(5).astype(np.float32)
    r1, r2 = np.zeros(5), np.zeros(5)
    engine.mju_f2n(r1, a32)
    mujoco.mju_f2n(r2, a32)
    np.testing.assert_array_equal(r1, r2)
    s1, s2 = np.zeros(5, np.float32), np.zeros(5, np.float32)
    engine.mju_n2f(s1, r1 * 1.1)
    mujoco.mju_n2f(s2, r1 * 1.1)
    np.testing.assert_array_equal(s1, s2)
    li = rng.integers(-9, 9, 11).astype(np.int32)
    lf = rng.standard_normal(11)
    a, b = li.copy(), lf.copy()
    engine.mju_insertionSortInt(a)
    engine.mju_insertionSort(b)
    mujoco.mju_insertionSortInt(li)
    mujoco.mju_insertionSort(lf)
    np.testing.assert_array_equal(a, li)
    np.testing.assert_array_equal(b, lf)


def test_print(capfd):
    A = np.arange(6.0).reshape(2, 3) / 7
    mujoco.mju_printMat(A)
    theirs = capfd.readouterr().out
    engine.mju_printMat(A)
    assert capfd.readouterr().out == theirs
    val, nnz, adr, col = (np.array([1.5, -2.0, 3.25]), np.array([2, 1], np.int32),
                          np.array([0, 2], np.int32), np.array([0, 2, 1], np.int32))
    mujoco.mju_printMatSparse(val, nnz, adr, col)
    theirs = capfd.readouterr().out
    engine.mju_printMatSparse(val, nnz, adr, col)
    assert capfd.readouterr().out == theirs


def test_standard_normal_statistics():
    """Random numbers: only the distribution can agree (mean 0, variance 1 within 5 sigma of
    the sample estimate for 20000 draws)."""
    x = np.array([engine.mju_standardNormal(None) for _ in range(20000)])
    assert abs(x.mean()) < 5 / np.sqrt(len(x))
    assert abs(x.var() - 1.0) < 5 * np.sqrt(2.0 / len(x))


@pytest.mark.parametrize("name", sorted(n for n in dir(mujoco) if n.startswith("mju_")))
def test_signature_names(name):
    """Every mju_* the engine has takes the arguments under mujoco's names (keyword calls)."""
    if not hasattr(engine, name):
        pytest.skip(f"{name} not provided")
    doc = getattr(mujoco, name).__doc__.split("\n")[0]
    theirs = [p.split(":")[0].strip() for p in
              doc[doc.index("(") + 1:doc.rindex(") ->")].split(", ") if ":" in p]
    try:
        mine = list(inspect.signature(getattr(engine, name)).parameters)
    except (TypeError, ValueError):
        pytest.skip(f"{name}: no Python signature")
    assert mine[:len(theirs)] == theirs[:len(mine)], name


@pytest.mark.parametrize("call", [
    lambda f: f.mju_mulQuat(np.zeros(3), np.zeros(4), np.zeros(4)),
    lambda f: f.mju_mulQuat(np.zeros(4, np.float32), np.zeros(4), np.zeros(4)),
    lambda f: f.mju_mulQuat(np.zeros(8)[::2], np.zeros(4), np.zeros(4)),
    lambda f: f.mju_add(np.zeros(3), np.zeros(4), np.zeros(3)),
    lambda f: f.mju_mulMatVec(np.zeros(3), np.zeros((3, 2)), np.zeros(3)),
    lambda f: f.mju_boxQP(np.zeros(3), np.zeros(9), None, np.eye(3), np.ones(3), None, None),
])
def test_bad_arguments_raise_typeerror(call):
    """Wrong sizes, dtypes or strides: TypeError in both (never a write out of bounds)."""
    with pytest.raises(TypeError):
        call(mujoco)
    with pytest.raises(TypeError):
        call(engine)
