"""Collisions of sdf geoms (seed 002 "sdf"; MuJoCo's mjc_SDF): a geom of type sdf against a
primitive (sphere, capsule, ellipsoid, cylinder, box) or another sdf geom, by gradient descent on
the intersection of the two distance functions from sample points.

The method, as MuJoCo computes it (lengths in model units):
- frames: each sdf geom's distance lives in its mesh's original frame (the geom frame with the
  mesh's mesh_pos / mesh_quat undone); a primitive's in its geom frame;
- start points: the intersection of the two geoms' geom_aabb boxes, taken in geom1's frame
  (geom2's box corners mapped into it); ``opt.sdf_initpoints`` points of the Halton sequence
  (bases 2, 3, 5) over that box, expressed in geom2's sdf frame; no overlap of the boxes, no
  contacts;
- descent: ``opt.sdf_iterations`` gradient steps with a backtracking line search on the
  collision objective A + B + |max(A, B)| (A: geom2's distance at x, B: geom1's at x mapped to
  its frame), then one step on the intersection max(A, B), whose value is the contact distance
  (a non-finite or huge gradient abandons the point; a step that does not decrease stops the
  descent at the point before it);
- contacts: an end point with distance <= 0 not within 1e-15 of an earlier one; its normal is
  XX at most 50 (the staging rows).
Primitive distances and gradients are the closed forms MuJoCo uses (an ellipsoid's is the
first-order estimate k0 (k0 - 1) / k1, not the true distance); sdf geoms call their plugin's
kernel (engine.plugin.sdf). Not built here (status NEED_SDF): sdf geoms whose distance is not a
first-party plugin's (mesh sdfs, user plugins) and mesh-sdf pairs (MuJoCo's mjc_MeshSDF).
Measured against mujoco 4.0.0 (test/engine/test_plugin_sdf.py): contacts equal to 1e-15 (analytic
gradients) and 1e-8 (finite differences); box-sdf descents are chaotic in mujoco itself
(its contacts move under a 1e-12 change of qpos) and are not compared point by point.
"""
from __future__ import annotations

import math

from .._access import f1, f2, i1, is_, u1
from .._jit import kernel
from .._layout import DF, MF
from ..mju import mju_Halton
from ..plugin import sdf as psdf
from . import narrowphase as npx

PLANE, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH, SDF = (
    npx.PLANE, npx.SPHERE, npx.CAPSULE, npx.ELLIPSOID, npx.CYLINDER, npx.BOX, npx.MESH, npx.SDF)
from ..enums import mjMINVAL  # noqa: E402
from ..enums import mjMAXVAL  # noqa: E402
_STEP = 0.2         # gradient step (MuJoCo's alpha)


# ---- small 3-vector / 3x3 helpers on tuples (no allocation) ----------------------------------
@kernel
def _mv(R, v):
    """R v for a row-major 3x3 R (9-tuple)."""
    return (R[0] * v[0] + R[1] * v[1] + R[2] * v[2], R[3] * v[0] + R[4] * v[1] + R[5] * v[2],
            R[6] * v[0] + R[7] * v[1] + R[8] * v[2])


@kernel
def _mtv(R, v):
    """R^T v."""
    return (R[0] * v[0] + R[3] * v[1] + R[6] * v[2], R[1] * v[0] + R[4] * v[1] + R[7] * v[2],
            R[2] * v[0] + R[5] * v[1] + R[8] * v[2])


@kernel
def _mtm(A, B):
    """A^T B."""
    return (A[0] * B[0] + A[3] * B[3] + A[6] * B[6], A[0] * B[1] + A[3] * B[4] + A[6] * B[7],
            A[0] * B[2] + A[3] * B[5] + A[6] * B[8],
            A[1] * B[0] + A[4] * B[3] + A[7] * B[6], A[1] * B[1] + A[4] * B[4] + A[7] * B[7],
            A[1] * B[2] + A[4] * B[5] + A[7] * B[8],
            A[2] * B[0] + A[5] * B[3] + A[8] * B[6], A[2] * B[1] + A[5] * B[4] + A[8] * B[7],
            A[2] * B[2] + A[5] * B[5] + A[8] * B[8])


@kernel
def _mmt(A, B):
    """A B^T."""
    return (A[0] * B[0] + A[1] * B[1] + A[2] * B[2], A[0] * B[3] + A[1] * B[4] + A[2] * B[5],
            A[0] * B[6] + A[1] * B[7] + A[2] * B[8],
            A[3] * B[0] + A[4] * B[1] + A[5] * B[2], A[3] * B[3] + A[4] * B[4] + A[5] * B[5],
            A[3] * B[6] + A[4] * B[7] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[1] + A[8] * B[2], A[6] * B[3] + A[7] * B[4] + A[8] * B[5],
            A[6] * B[6] + A[7] * B[7] + A[8] * B[8])


@kernel
def _quat2mat(q):
    w, x, y, z = q[0], q[1], q[2], q[3]
    return (w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z)


@kernel
def _normalize(v):
    """v / |v|, or (1, 0, 0) for a vector shorter than mjMINVAL (mju_normalize3)."""
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if n < mjMINVAL:
        return (1.0, 0.0, 0.0)
    return (v[0] / n, v[1] / n, v[2] / n)


@kernel
def _norm3(a, b, c):
    return math.sqrt(a * a + b * b + c * c)


# ---- distance functions ------------------------------------------------------------------------
@kernel
def _prim_distance(t, s, x, y, z):
    """Distance of a primitive of type t and size s at local point (x, y, z)."""
    if t == PLANE:
        return z
    if t == SPHERE:
        return _norm3(x, y, z) - s[0]
    if t == BOX:
        a0, a1, a2 = abs(x) - s[0], abs(y) - s[1], abs(z) - s[2]
        return (_norm3(max(a0, 0.0), max(a1, 0.0), max(a2, 0.0))
                + min(max(a0, max(a1, a2)), 0.0))
    if t == CAPSULE:
        return _norm3(x, y, z - min(max(z, -s[1]), s[1])) - s[0]
    if t == ELLIPSOID:
        a0, a1, a2 = x / s[0], y / s[1], z / s[2]
        k0 = _norm3(a0, a1, a2)
        k1 = _norm3(a0 / s[0], a1 / s[1], a2 / s[2])
        return k0 * (k0 - 1.0) / k1
    # cylinder
    a0 = math.sqrt(x * x + y * y) - s[0]
    a1 = abs(z) - s[1]
    b0, b1 = max(a0, 0.0), max(a1, 0.0)
    return min(max(a0, a1), 0.0) + math.sqrt(b0 * b0 + b1 * b1)


@kernel
def _prim_gradient(t, s, x, y, z):
    """Gradient of `_prim_distance` (MuJoCo's closed forms, including its choices at ties)."""
    if t == PLANE:
        return (0.0, 0.0, 1.0)
    if t == SPHERE:
        c = _norm3(x, y, z)
        return (x * (1.0 / c), y * (1.0 / c), z * (1.0 / c))
    if t == BOX:
        a0, a1, a2 = abs(x) - s[0], abs(y) - s[1], abs(z) - s[2]
        k = 0 if a0 > a1 else 1
        ak = a0 if k == 0 else a1
        l_ = 2 if a2 > ak else k
        al = a2 if l_ == 2 else (a0 if l_ == 0 else a1)
        if al < 0:
            g0 = x / abs(x) if l_ == 0 else 0.0
            g1 = y / abs(y) if l_ == 1 else 0.0
            g2 = z / abs(z) if l_ == 2 else 0.0
            return (g0, g1, g2)
        b0, b1, b2 = max(a0, 0.0), max(a1, 0.0), max(a2, 0.0)
        c = _norm3(b0, b1, b2)
        r0 = b0 / c * x / abs(x) if a0 > 0 else 0.0
        r1 = b1 / c * y / abs(y) if a1 > 0 else 0.0
        r2 = b2 / c * z / abs(z) if a2 > 0 else 0.0
        return (r0, r1, r2)
    if t == CAPSULE:
        a2 = z - min(max(z, -s[1]), s[1])
        c = _norm3(x, y, a2)
        return (x / c, y / c, a2 / c)
    if t == ELLIPSOID:
        a0, a1, a2 = x / s[0], y / s[1], z / s[2]
        b0, b1, b2 = a0 / s[0], a1 / s[1], a2 / s[2]
        k0 = _norm3(a0, a1, a2)
        k1 = _norm3(b0, b1, b2)
        ik0, ik1 = 1.0 / k0, 1.0 / k1
        df0 = (2.0 * k0 - 1.0) * ik1
        df1 = k0 * (k0 - 1.0) * ik1 * ik1
        return _normalize((b0 * ik0 * df0 - b0 * ik1 / (s[0] * s[0]) * df1,
                           b1 * ik0 * df0 - b1 * ik1 / (s[1] * s[1]) * df1,
                           b2 * ik0 * df0 - b2 * ik1 / (s[2] * s[2]) * df1))
    # cylinder
    c = math.sqrt(x * x + y * y)
    e = abs(z)
    a0, a1 = c - s[0], e - s[1]
    cg, eg = max(c, 1.0 / mjMAXVAL), max(e, 1.0 / mjMAXVAL)
    ga0, ga1, ga2 = x / cg, y / cg, z / eg
    j = 0 if a0 > a1 else 1
    aj = a0 if j == 0 else a1
    if aj < 0:
        if j == 0:
            return (ga0, ga1, 0.0)
        return (0.0, 0.0, ga2)
    b0, b1 = max(a0, 0.0), max(a1, 0.0)
    bn = max(math.sqrt(b0 * b0 + b1 * b1), 1.0 / mjMAXVAL)
    return (ga0 * b0 / bn, ga1 * b0 / bn, ga2 * b1 / bn)


@kernel
def _dist(t, kind, a, s, p):
    """Distance of one side (geom type t; an sdf's plugin kind and attributes a)."""
    if t == SDF:
        return psdf.sdf_distance(kind, a, p[0], p[1], p[2])
    return _prim_distance(t, s, p[0], p[1], p[2])


@kernel
def _grad(t, kind, a, s, p, g):
    """Gradient of one side at p, as a tuple (g: a 3-row of scratch for the plugin kernel)."""
    if t == SDF:
        psdf.sdf_gradient(kind, a, p[0], p[1], p[2], g)
        return (g[0], g[1], g[2])
    return _prim_gradient(t, s, p[0], p[1], p[2])


# ---- plugin attributes ---------------------------------------------------------------------------
@kernel
def _parse_number(buf, i):
    """(value, ok) of the decimal number starting at buf[i] (up to its NUL); ok is False for an
    empty string. The digits are gathered as an integer and scaled by one exact power of ten,
    so values of up to 15 significant digits and exponents within 1e+-22 round as strtod."""
    n = buf.shape[0]
    while i < n and buf[i] == 32:
        i += 1
    if i >= n or buf[i] == 0:
        return 0.0, False
    sign = 1.0
    if buf[i] == 45 or buf[i] == 43:    # '-' '+'
        if buf[i] == 45:
            sign = -1.0
        i += 1
    mant = 0.0
    scale = 0                           # power of ten of the last digit
    while i < n and 48 <= buf[i] <= 57:
        mant = mant * 10.0 + (buf[i] - 48)
        i += 1
    if i < n and buf[i] == 46:          # '.'
        i += 1
        while i < n and 48 <= buf[i] <= 57:
            mant = mant * 10.0 + (buf[i] - 48)
            scale -= 1
            i += 1
    if i < n and (buf[i] == 101 or buf[i] == 69):   # exponent
        i += 1
        esign = 1
        if i < n and (buf[i] == 45 or buf[i] == 43):
            if buf[i] == 45:
                esign = -1
            i += 1
        ex = 0
        while i < n and 48 <= buf[i] <= 57:
            ex = ex * 10 + (buf[i] - 48)
            i += 1
        scale += esign * ex
    if scale < 0:
        return sign * (mant / 10.0 ** (-scale)), True
    return sign * (mant * 10.0 ** scale), True


@kernel
def sdf_params(M, instance, out):
    """The plugin kind of SDF instance ``instance`` (-1: not a first-party SDF plugin) and its
    numeric attributes into ``out`` (config strings of plugin_attr, defaults where empty).
    Decimal parsing here can differ from strtod in the last bit; the compiler's mesh uses
    Python's float()."""
    slot = i1(M, MF.plugin)[instance]
    kind = slot - psdf.SLOT0
    if kind < 0 or kind >= psdf.NKIND:
        return -1
    buf = u1(M, MF.plugin_attr)
    adr = i1(M, MF.plugin_attradr)[instance]
    dflt = psdf.DEFAULTS_PADDED[kind]
    for k in range(psdf.NATTR):
        out[k] = dflt[k]
    for k in range(psdf.NATTRS[kind]):
        v, ok = _parse_number(buf, adr)
        if ok:
            out[k] = v
        while buf[adr] != 0:
            adr += 1
        adr += 1
    return kind


# ---- the objectives of the descent (MuJoCo's mjtSDFType) -------------------------------------
INTERSECTION, MIDSURFACE, COLLISION = 1, 2, 3
_C_WOLFE = 0.1      # sufficient decrease factor of the line search
_RHO = 0.5          # step reduction of the line search
_AMIN = 1e-4        # smallest step scale


@kernel
def _objective(typ, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x):
    """The descent's function at x (geom2's sdf frame): A = geom2's distance at x, B = geom1's
    at y = rot21 x + off21; INTERSECTION max(A, B), COLLISION A + B + |max(A, B)|."""
    A = _dist(SDF, k2, a2, s2, x)
    B = _dist(t1, k1, a1, s1, _affine(rot21, off21, x))
    if typ == INTERSECTION:
        return max(A, B)
    return A + B + abs(max(A, B))


@kernel
def _objective_grad(typ, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x, gs):
    """Gradient of `_objective` (MIDSURFACE: the normalized difference of the normalized
    gradients, geom2's minus geom1's)."""
    y = _affine(rot21, off21, x)
    if typ == INTERSECTION:
        if _dist(SDF, k2, a2, s2, x) > _dist(t1, k1, a1, s1, y):
            return _grad(SDF, k2, a2, s2, x, gs)
        return _mtv(rot21, _grad(t1, k1, a1, s1, y, gs))
    g1 = _grad(SDF, k2, a2, s2, x, gs)
    g2 = _mtv(rot21, _grad(t1, k1, a1, s1, y, gs))
    if typ == MIDSURFACE:
        n1 = _normalize(g1)
        n2 = _normalize(g2)
        return _normalize((n1[0] - n2[0], n1[1] - n2[1], n1[2] - n2[2]))
    A = _dist(SDF, k2, a2, s2, x)
    B = _dist(t1, k1, a1, s1, y)
    sg = 1.0 if max(A, B) > 0 else -1.0
    if A > B:
        return (g1[0] + g2[0] + sg * g1[0], g1[1] + g2[1] + sg * g1[1],
                g1[2] + g2[2] + sg * g1[2])
    return (g1[0] + g2[0] + sg * g2[0], g1[1] + g2[1] + sg * g2[1], g1[2] + g2[2] + sg * g2[2])


@kernel
def _descend(typ, niter, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x, gs):
    """(end point, distance) of ``niter`` gradient steps from x with a backtracking line
    search (step 2 |g| halved until the Armijo decrease 0.1 alpha |g|^2 or alpha <= 1e-4);
    stops at the first step that does not decrease, keeping the point before it; distance
    mjMAXVAL on a non-finite or huge gradient (MuJoCo's stepGradient)."""
    dist = mjMAXVAL
    for step in range(niter):
        g = _objective_grad(typ, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x, gs)
        if (not (abs(g[0]) <= mjMAXVAL) or not (abs(g[1]) <= mjMAXVAL)
                or not (abs(g[2]) <= mjMAXVAL)):
            return x, mjMAXVAL
        x0 = x
        dist0 = _objective(typ, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x0)
        alpha = 2.0
        wolfe = -_C_WOLFE * alpha * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2])
        while True:
            alpha *= _RHO
            wolfe *= _RHO
            x = (x0[0] - alpha * g[0], x0[1] - alpha * g[1], x0[2] - alpha * g[2])
            dist = _objective(typ, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x)
            if not (alpha > _AMIN and dist - dist0 > wolfe):
                break
        if dist0 < dist:
            # no decrease: stop at the last point that was not worse (measured on mujoco
            # 4.0.0: its contacts sit there, not one failed line-search step away)
            return x0, dist0
    return x, dist


# ---- the collision ---------------------------------------------------------------------------------
@kernel
def _sdf_frame(M, D, g):
    """(position, row-major rotation) of the frame geom g's distance lives in: the geom frame,
    with the mesh's mesh_pos / mesh_quat undone for a mesh or sdf geom."""
    t = i1(M, MF.geom_type)[g]
    xp = f2(D, DF.geom_xpos)[g]
    xm = f2(D, DF.geom_xmat)[g]
    R = (xm[0], xm[1], xm[2], xm[3], xm[4], xm[5], xm[6], xm[7], xm[8])
    P = (xp[0], xp[1], xp[2])
    if t == MESH or t == SDF:
        mid = i1(M, MF.geom_dataid)[g]
        mp = f2(M, MF.mesh_pos)[mid]
        mq = f2(M, MF.mesh_quat)[mid]
        Rm = _quat2mat((mq[0], mq[1], mq[2], mq[3]))
        Rs = _mmt(R, Rm)
        o = _mv(Rs, (mp[0], mp[1], mp[2]))
        return (P[0] - o[0], P[1] - o[1], P[2] - o[2]), Rs
    return P, R


@kernel
def _map(p1, R1, p2, R2):
    """Frame 1 expressed in frame 2: (R2^T (p1 - p2), R2^T R1)."""
    return _mtv(R2, (p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2])), _mtm(R2, R1)


@kernel
def _affine(R, o, v):
    w = _mv(R, v)
    return (w[0] + o[0], w[1] + o[1], w[2] + o[2])


@kernel
def sdf_collide(M, D, g1, g2, tdist, tpos, tframe):
    """Contacts of geom g1 (a primitive or an sdf geom) and sdf geom g2 into the staging rows
    (module docstring); returns how many, or NEED_SDF when a side's distance is not built."""
    gtype = i1(M, MF.geom_type)
    gplug = i1(M, MF.geom_plugin)
    size = f2(M, MF.geom_size)
    aabbs = f2(M, MF.geom_aabb)
    work = f2(D, DF.ccd_work)       # rows 0, 1: attributes; 2: gradient scratch; 3..: points
    t1 = gtype[g1]
    if gplug[g2] < 0 or (t1 == SDF and gplug[g1] < 0):
        return npx.NEED_SDF
    a2 = work[0]
    a1 = work[1]
    gs = work[2]
    k2 = sdf_params(M, gplug[g2], a2)
    k1 = 0
    if t1 == SDF:
        k1 = sdf_params(M, gplug[g1], a1)
    if k2 < 0 or k1 < 0:
        return npx.NEED_SDF
    s1 = size[g1]
    s2 = size[g2]
    xp = f2(D, DF.geom_xpos)
    xm = f2(D, DF.geom_xmat)
    pos1 = (xp[g1, 0], xp[g1, 1], xp[g1, 2])
    pos2 = (xp[g2, 0], xp[g2, 1], xp[g2, 2])
    mat1 = (xm[g1, 0], xm[g1, 1], xm[g1, 2], xm[g1, 3], xm[g1, 4], xm[g1, 5], xm[g1, 6],
            xm[g1, 7], xm[g1, 8])
    mat2 = (xm[g2, 0], xm[g2, 1], xm[g2, 2], xm[g2, 3], xm[g2, 4], xm[g2, 5], xm[g2, 6],
            xm[g2, 7], xm[g2, 8])
    sp1, sR1 = _sdf_frame(M, D, g1)
    sp2, sR2 = _sdf_frame(M, D, g2)
    off1, rot1 = _map(pos2, mat2, pos1, mat1)       # geom2 frame in geom1 frame
    off2, rot2 = _map(pos1, mat1, sp1, sR1)         # geom1 frame in sdf1 frame
    off21, rot21 = _map(sp2, sR2, sp1, sR1)         # sdf2 frame in sdf1 frame
    off12, rot12 = _map(sp1, sR1, sp2, sR2)         # sdf1 frame in sdf2 frame
    # intersection of the geoms' boxes, in geom1's frame
    b1 = aabbs[g1]
    b2 = aabbs[g2]
    lo0 = lo1 = lo2 = mjMAXVAL
    hi0 = hi1 = hi2 = -mjMAXVAL
    lo0b = lo1b = lo2b = mjMAXVAL
    hi0b = hi1b = hi2b = -mjMAXVAL
    for i in range(8):
        v0 = b1[0] + b1[3] if i & 1 else b1[0] - b1[3]
        v1 = b1[1] + b1[4] if i & 2 else b1[1] - b1[4]
        v2 = b1[2] + b1[5] if i & 4 else b1[2] - b1[5]
        lo0, lo1, lo2 = min(lo0, v0), min(lo1, v1), min(lo2, v2)
        hi0, hi1, hi2 = max(hi0, v0), max(hi1, v1), max(hi2, v2)
        u0 = b2[0] + b2[3] if i & 1 else b2[0] - b2[3]
        u1_ = b2[1] + b2[4] if i & 2 else b2[1] - b2[4]
        u2 = b2[2] + b2[5] if i & 4 else b2[2] - b2[5]
        w = _affine(rot1, off1, (u0, u1_, u2))
        lo0b, lo1b, lo2b = min(lo0b, w[0]), min(lo1b, w[1]), min(lo2b, w[2])
        hi0b, hi1b, hi2b = max(hi0b, w[0]), max(hi1b, w[1]), max(hi2b, w[2])
    lo0, lo1, lo2 = max(lo0, lo0b), max(lo1, lo1b), max(lo2, lo2b)
    hi0, hi1, hi2 = min(hi0, hi0b), min(hi1, hi1b), min(hi2, hi2b)
    if hi0 < lo0 or hi1 < lo1 or hi2 < lo2:
        return 0
    npts = is_(M, MF.opt_sdf_initpoints)
    niter = is_(M, MF.opt_sdf_iterations)
    cap = min(tdist.shape[0], work.shape[0] - 3)
    cnt = 0
    for j in range(npts):
        x = (lo0 + (hi0 - lo0) * mju_Halton(j, 2), lo1 + (hi1 - lo1) * mju_Halton(j, 3),
             lo2 + (hi2 - lo2) * mju_Halton(j, 5))
        x = _affine(rot12, off12, _affine(rot2, off2, x))
        # descent on the collision objective, then one step on the intersection (which
        # drops spurious contacts of inexact distances); the distance is the intersection's
        x, dist = _descend(COLLISION, niter, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x, gs)
        x, dist = _descend(INTERSECTION, 1, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x, gs)
        if not dist <= 0.0:
            continue
        known = False
        for i in range(cnt):
            r = work[3 + i]
            if _norm3(x[0] - r[0], x[1] - r[1], x[2] - r[2]) < mjMINVAL:
                known = True
                break
        if known or cnt >= cap:
            continue
        r = work[3 + cnt]
        r[0], r[1], r[2] = x[0], x[1], x[2]
        # normal: minus the midsurface gradient (from geom1 to geom2)
        n = _objective_grad(MIDSURFACE, t1, k1, a1, s1, k2, a2, s2, rot21, off21, x, gs)
        nw = _mv(sR2, (-n[0], -n[1], -n[2]))
        pw = _affine(sR2, sp2, x)
        tdist[cnt] = dist
        for k in range(3):
            tframe[cnt, k] = nw[k]
            # the point moved by dist/2 along the normal (dist <= 0: back toward geom1;
            # measured on mujoco 4.0.0: its contact lies at x + n dist / 2)
            tpos[cnt, k] = pw[k] + nw[k] * dist / 2.0
        cnt += 1
    return cnt
