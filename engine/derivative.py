"""Analytic derivatives (MuJoCo's mjd_* family) for the implicit integrators, in qDeriv's sparse
D layout: the fluid forces' velocity derivative, the bias (Coriolis/centrifugal) forces'
velocity derivative (mjd_rne_vel), rank-one actuator/tendon terms, and the sparse LU of
M - h*qDeriv that mj_implicit factors (mju_factorLUSparse / mju_solveLUSparse).

The D layout (D_rownnz, D_rowadr, D_colind, D_diag; seed 001 "Numerical integration"): row i
holds dof i's ancestors, itself and its descendants, columns increasing. qDeriv keeps only these
entries (a coupling between dofs on different branches -- a tendon spanning two subtrees -- is
dropped, as MuJoCo does), so no nv x nv matrix is ever formed.

Seed 001 "Numerical integration" (the implicit and implicitfast integrators solve with
M - h*D, D = d(qfrc_smooth)/d(qvel)) and seed 000 <option density viscosity wind>,
<geom fluidshape fluidcoef> (MuJoCo's documentation, "Fluid forces": the inertia-box and the
ellipsoid models, which `engine.passive.fluid` computes).

Every fluid force is a function of one local 6-D velocity lvel = [angular; linear] (the body's
inertia frame for the inertia-box model, the geom's frame for the ellipsoid model; the wind is
subtracted from the linear part) and is applied at that frame's origin. With Jl = R' J the
6 x nv Jacobian of that frame in its own axes (lvel = Jl qvel - R' wind) and B = d(lfrc)/d(lvel)
the 6 x 6 local derivative, the joint-space derivative is Jl' B Jl (mjd_passive_vel's fluid
part). As measured on MuJoCo 4.0.0 (see test/engine/test_fluid_derivative.py), the implicitfast
integrator uses the symmetric part (B + B')/2 of each body's/geom's B -- except on a kinematic
tree whose only joint is a free joint (a floating body, possibly with welded children): there
implicitfast keeps B as it is and, like implicit, also takes the Coriolis/gyroscopic derivative
into its solve (`engine.forward.implicit`); ``single_free_tree`` tells those trees apart.

Kernels (no allocation; workspace rows ``fluid_B`` 6x6 and ``fluid_J`` 6 x nv of the scratch
table):
``inertia_box_fluid_deriv`` and ``ellipsoid_fluid_deriv`` (B of one body / geom),
``add_jtbj`` (qDeriv += Jl' B Jl over a body's dof chain), ``local_jacobian`` (Jl), and the
stage ``fluid_vel_derivative(M, D, qd, symmetric)``; ``d_find`` / ``add_outer_sparse`` (the
D-layout lookup and rank-one update), ``rne_vel_derivative`` (mjd_rne_vel), ``lu_factor_sparse``
/ ``lu_solve_sparse``.
"""
from __future__ import annotations

import math

from . import math as mm
from ._access import f1, f2, fs, i1
from .enums import mjtJoint
from ._jit import kernel
from ._layout import DF, MF
from .passive import body_uses_ellipsoid, fluid_velocity_local, geom_semiaxes

_JNT_FREE = int(mjtJoint.mjJNT_FREE)
_JNT_BALL = int(mjtJoint.mjJNT_BALL)
from .enums import mjMINVAL as _MINVAL  # noqa: E402
_PI = math.pi


# ---------------------------------------------------------------------------------------------
# local 6 x 6 derivatives d(lfrc)/d(lvel); lfrc, lvel = [angular(3); linear(3)]
# ---------------------------------------------------------------------------------------------

@kernel
def inertia_box_fluid_deriv(mass, inertia, lvel, density, viscosity, B):
    """B = d(lfrc)/d(lvel) of the inertia-box model (diagonal: Stokes drag plus the derivative
    -rho*A*|v| of each quadratic drag term -rho/2*A*|v|*v)."""
    bx = math.sqrt(max(_MINVAL, inertia[1] + inertia[2] - inertia[0]) / mass * 6.0)
    by = math.sqrt(max(_MINVAL, inertia[0] + inertia[2] - inertia[1]) / mass * 6.0)
    bz = math.sqrt(max(_MINVAL, inertia[0] + inertia[1] - inertia[2]) / mass * 6.0)
    for i in range(6):
        for j in range(6):
            B[i, j] = 0.0
    if viscosity > 0.0:
        diam = (bx + by + bz) / 3.0
        cr = -_PI * diam * diam * diam * viscosity
        cl = -3.0 * _PI * diam * viscosity
        for i in range(3):
            B[i, i] = cr
            B[3 + i, 3 + i] = cl
    if density > 0.0:
        B[3, 3] -= density * by * bz * abs(lvel[3])
        B[4, 4] -= density * bx * bz * abs(lvel[4])
        B[5, 5] -= density * bx * by * abs(lvel[5])
        B[0, 0] -= 2.0 * density * bx * (by ** 4 + bz ** 4) / 64.0 * abs(lvel[0])
        B[1, 1] -= 2.0 * density * by * (bx ** 4 + bz ** 4) / 64.0 * abs(lvel[1])
        B[2, 2] -= 2.0 * density * bz * (bx ** 4 + by ** 4) / 64.0 * abs(lvel[2])


@kernel
def _add_cross(B, r, c, x, s):
    """B[r:r+3, c:c+3] += s * [x]x (the matrix of y -> x cross y)."""
    B[r, c + 1] -= s * x[2]
    B[r, c + 2] += s * x[1]
    B[r + 1, c] += s * x[2]
    B[r + 1, c + 2] -= s * x[0]
    B[r + 2, c] -= s * x[1]
    B[r + 2, c + 1] += s * x[0]


@kernel
def _add_cross_diag(B, r, c, x, dg, s):
    """B[r:r+3, c:c+3] += s * [x]x diag(dg)."""
    B[r, c + 1] -= s * x[2] * dg[1]
    B[r, c + 2] += s * x[1] * dg[2]
    B[r + 1, c] += s * x[2] * dg[0]
    B[r + 1, c + 2] -= s * x[0] * dg[2]
    B[r + 2, c] -= s * x[1] * dg[0]
    B[r + 2, c + 1] += s * x[0] * dg[1]


@kernel
def ellipsoid_fluid_deriv(lvel, density, viscosity, s, prm, B, work):
    """B = d(lfrc)/d(lvel) of the ellipsoid model for one geom (semi-axes s, geom_fluid row
    prm), the exact derivative of each term of `engine.passive._ellipsoid_force`: added mass,
    Magnus lift, Kutta lift, linear (viscous + quadratic) drag and angular drag; all scaled by
    the interaction coefficient prm[0]. ``work``: 4 x 3 scratch."""
    blunt, slender, angdrag, kutta, magnus = prm[1], prm[2], prm[3], prm[4], prm[5]
    w = lvel[0:3]
    v = lvel[3:6]
    for i in range(6):
        for j in range(6):
            B[i, j] = 0.0
    # --- added mass: F += p x w, T += p x v + L x w, p = rho*vm*v, L = rho*vi*w
    p = work[0]
    L = work[1]
    dm = work[2]
    di = work[3]
    for i in range(3):
        dm[i] = density * prm[6 + i]
        di[i] = density * prm[9 + i]
        p[i] = dm[i] * v[i]
        L[i] = di[i] * w[i]
    # d(p x w)/dw = [p]x ; d(p x w)/dv = -[w]x diag(dm)
    _add_cross(B, 3, 0, p, 1.0)
    _add_cross_diag(B, 3, 3, w, dm, -1.0)
    # d(p x v)/dv = [p]x - [v]x diag(dm)
    _add_cross(B, 0, 3, p, 1.0)
    _add_cross_diag(B, 0, 3, v, dm, -1.0)
    # d(L x w)/dw = [L]x - [w]x diag(di)
    _add_cross(B, 0, 0, L, 1.0)
    _add_cross_diag(B, 0, 0, w, di, -1.0)

    # --- Magnus lift: F += km * (w x v)
    vol = 4.0 / 3.0 * _PI * s[0] * s[1] * s[2]
    km = magnus * density * vol
    _add_cross(B, 3, 3, w, km)       # d/dv = km [w]x
    _add_cross(B, 3, 0, v, -km)      # d/dw = -km [v]x

    # --- shared projections: a = (s1 s2, s2 s0, s0 s1), A2 = a^2, n = A2 v
    a0 = s[1] * s[2]
    a1 = s[2] * s[0]
    a2 = s[0] * s[1]
    A0, A1, A2 = a0 * a0, a1 * a1, a2 * a2
    v0, v1, v2 = v[0], v[1], v[2]
    n0, n1, n2 = A0 * v0, A1 * v1, A2 * v2
    num = n0 * v0 + n1 * v1 + n2 * v2          # v' A2 v
    den = n0 * n0 + n1 * n1 + n2 * n2          # |A2 v|^2
    vv = v0 * v0 + v1 * v1 + v2 * v2
    speed = math.sqrt(vv)
    Aproj = _PI * math.sqrt(den / max(_MINVAL, num))
    # grad(Aproj) = Aproj * (A2 n / den - n / num)
    # guards as in the force (thin plates: den is ~s^8 and far below MINVAL while valid)
    ga0 = ga1 = ga2 = 0.0
    if num > _MINVAL and den > _MINVAL * _MINVAL:
        ga0 = Aproj * (A0 * n0 / den - n0 / num)
        ga1 = Aproj * (A1 * n1 / den - n1 / num)
        ga2 = Aproj * (A2 * n2 / den - n2 / num)

    # --- Kutta lift: F += kc * (n x v) x v = kc * g, g = v num - n vv,
    # kc = kutta*rho*cos(alpha)*Aproj = kutta*rho*pi*sqrt(num/den)/speed
    if kutta != 0.0 and speed > _MINVAL and num > _MINVAL and den > _MINVAL * _MINVAL:
        cosa = num / speed / den
        kc = kutta * density * cosa * Aproj
        g0 = v0 * num - n0 * vv
        g1 = v1 * num - n1 * vv
        g2 = v2 * num - n2 * vv
        # grad(ln kc) = n/num - A2 n/den - v/vv
        e0 = n0 / num - A0 * n0 / den - v0 / vv
        e1 = n1 / num - A1 * n1 / den - v1 / vv
        e2 = n2 / num - A2 * n2 / den - v2 / vv
        # dg/dv = num I + 2 v n' - vv A2 - 2 n v'
        for i in range(3):
            vi = v[i]
            ni = n0 if i == 0 else (n1 if i == 1 else n2)
            gi = g0 if i == 0 else (g1 if i == 1 else g2)
            Ai = A0 if i == 0 else (A1 if i == 1 else A2)
            for j in range(3):
                vj = v[j]
                nj = n0 if j == 0 else (n1 if j == 1 else n2)
                ej = e0 if j == 0 else (e1 if j == 1 else e2)
                dg = 2.0 * vi * nj - 2.0 * ni * vj
                if i == j:
                    dg += num - vv * Ai
                B[3 + i, 3 + j] += kc * (dg + gi * ej)

    # --- linear drag: F -= drag_lin * v,
    # drag_lin = visc*3*pi*D + rho*speed*(Aproj*(blunt - slender) + slender*Amax)
    dmax = max(s[0], max(s[1], s[2]))
    dmin = min(s[0], min(s[1], s[2]))
    dmid = s[0] + s[1] + s[2] - dmax - dmin
    Amax = _PI * dmax * dmid
    Dd = 2.0 / 3.0 * (s[0] + s[1] + s[2])
    area = Aproj * (blunt - slender) + slender * Amax
    drag_lin = viscosity * 3.0 * _PI * Dd + density * speed * area
    # grad(drag_lin) = rho * (area * v / speed + speed * (blunt - slender) * grad(Aproj))
    if speed > _MINVAL:
        q0 = density * (area * v0 / speed + speed * (blunt - slender) * ga0)
        q1 = density * (area * v1 / speed + speed * (blunt - slender) * ga1)
        q2 = density * (area * v2 / speed + speed * (blunt - slender) * ga2)
    else:
        q0 = q1 = q2 = 0.0
    for i in range(3):
        B[3 + i, 3 + i] -= drag_lin
        B[3 + i, 3] -= v[i] * q0
        B[3 + i, 4] -= v[i] * q1
        B[3 + i, 5] -= v[i] * q2

    # --- angular drag: T -= drag_ang * w, drag_ang = visc*pi*D^3 + rho*|c .* w|,
    # c_k = angdrag*I_k + slender*(Imax - I_k)
    Imax = 8.0 / 15.0 * _PI * dmid * dmax ** 4
    mom = work[0]   # p is no longer needed
    cc = work[1]
    for k in range(3):
        d0 = s[k]
        d1 = s[(k + 1) % 3]
        d2 = s[(k + 2) % 3]
        Ik = 8.0 / 15.0 * _PI * d0 * max(d1, d2) ** 4
        cc[k] = angdrag * Ik + slender * (Imax - Ik)
        mom[k] = w[k] * cc[k]
    mnorm = math.sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2])
    drag_ang = viscosity * _PI * Dd * Dd * Dd + density * mnorm
    for i in range(3):
        B[i, i] -= drag_ang
        if mnorm > _MINVAL:
            for j in range(3):
                B[i, j] -= w[i] * density * mom[j] * cc[j] / mnorm

    coef = prm[0]
    for i in range(6):
        for j in range(6):
            B[i, j] *= coef


# ---------------------------------------------------------------------------------------------
# joint space: qDeriv += Jl' B Jl
# ---------------------------------------------------------------------------------------------

@kernel
def local_jacobian(body_parentid, body_dofnum, body_dofadr, dof_parentid, cdof, com, point,
                   mat, body, Jl):
    """Jl[:, j] = [R' cdof_ang; R' (cdof_lin + cdof_ang x (point - com))] for the dofs j on
    ``body``'s chain (the 6-D velocity of a frame at ``point`` with axes R = mat, in those
    axes, per unit qvel[j]; com: the subtree com of the root the cdof refer to). Returns the
    chain's last dof (-1 when the body does not move); other columns are not written."""
    b = body
    while b > 0 and body_dofnum[b] == 0:
        b = body_parentid[b]
    if b <= 0:
        return -1
    last = body_dofadr[b] + body_dofnum[b] - 1
    rx = point[0] - com[0]
    ry = point[1] - com[1]
    rz = point[2] - com[2]
    j = last
    while j >= 0:
        cd = cdof[j]
        wx, wy, wz = cd[0], cd[1], cd[2]
        vx = cd[3] + wy * rz - wz * ry
        vy = cd[4] + wz * rx - wx * rz
        vz = cd[5] + wx * ry - wy * rx
        for i in range(3):
            Jl[i, j] = mat[i] * wx + mat[3 + i] * wy + mat[6 + i] * wz
            Jl[3 + i, j] = mat[i] * vx + mat[3 + i] * vy + mat[6 + i] * vz
        j = dof_parentid[j]
    return last


@kernel
def add_jtbj(dof_parentid, last, Jl, B, D_rownnz, D_rowadr, D_colind, qd):
    """qDeriv[i, k] += Jl[:, i]' B Jl[:, k] for the dofs i, k on the chain ending at dof
    ``last`` (qd in the D layout: one dof is the other's ancestor, so (i, k) is in it)."""
    k = last
    while k >= 0:
        t0 = t1 = t2 = t3 = t4 = t5 = 0.0
        for c in range(6):
            x = Jl[c, k]
            if x != 0.0:
                t0 += B[0, c] * x
                t1 += B[1, c] * x
                t2 += B[2, c] * x
                t3 += B[3, c] * x
                t4 += B[4, c] * x
                t5 += B[5, c] * x
        i = last
        while i >= 0:
            qd[d_find(D_rownnz, D_rowadr, D_colind, i, k)] += (
                Jl[0, i] * t0 + Jl[1, i] * t1 + Jl[2, i] * t2 + Jl[3, i] * t3
                + Jl[4, i] * t4 + Jl[5, i] * t5)
            i = dof_parentid[i]
        k = dof_parentid[k]


@kernel
def single_free_tree(tree_dofadr, tree_dofnum, dof_jntid, jnt_type, tree):
    """Whether kinematic tree ``tree`` moves by one free joint and nothing else."""
    if tree < 0 or tree_dofnum[tree] != 6:
        return False
    return jnt_type[dof_jntid[tree_dofadr[tree]]] == _JNT_FREE


@kernel
def _symmetrize(B):
    for i in range(6):
        for j in range(i + 1, 6):
            x = 0.5 * (B[i, j] + B[j, i])
            B[i, j] = x
            B[j, i] = x


@kernel
def fluid_deriv_kernel(
    # Model:
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid, body_mass,
    body_inertia, body_geomadr, body_geomnum, geom_type, geom_size, geom_fluid,
    density, viscosity, wind, body_treeid, tree_dofadr, tree_dofnum, dof_jntid, jnt_type,
    D_rownnz, D_rowadr, D_colind,
    # Data in:
    xipos, ximat, geom_xpos, geom_xmat, cvel, cdof, subtree_com,
    # arguments:
    symmetric,
    # scratch:
    lvel, B, work, Jl,
    # Data out:
    qd,
):
    """qDeriv += d(qfrc_fluid)/d(qvel) (qd in the D layout), body by body as `engine.passive.fluid`
    chooses the model; with ``symmetric`` (implicitfast) each local B is replaced by
    (B + B')/2, except on single-free-joint trees."""
    for b in range(1, body_mass.shape[0]):
        if body_mass[b] < _MINVAL:
            continue
        ga = body_geomadr[b]
        gn = body_geomnum[b]
        use_ellipsoid = body_uses_ellipsoid(geom_fluid, ga, gn)
        com = subtree_com[body_rootid[b]]
        s = work[4]
        if use_ellipsoid:
            for g in range(ga, ga + gn):
                if geom_fluid[g, 0] == 0.0:
                    continue
                mat = geom_xmat[g]
                last = local_jacobian(body_parentid, body_dofnum, body_dofadr, dof_parentid,
                                      cdof, com, geom_xpos[g], mat, b, Jl)
                if last < 0:
                    continue
                fluid_velocity_local(cvel[b], com, geom_xpos[g], mat, wind, lvel)
                geom_semiaxes(geom_type[g], geom_size[g], s)
                ellipsoid_fluid_deriv(lvel, density, viscosity, s, geom_fluid[g], B, work)
                if symmetric and not single_free_tree(tree_dofadr, tree_dofnum, dof_jntid,
                                                      jnt_type, body_treeid[b]):
                    _symmetrize(B)
                add_jtbj(dof_parentid, last, Jl, B, D_rownnz, D_rowadr, D_colind, qd)
        else:
            mat = ximat[b]
            last = local_jacobian(body_parentid, body_dofnum, body_dofadr, dof_parentid,
                                  cdof, com, xipos[b], mat, b, Jl)
            if last < 0:
                continue
            fluid_velocity_local(cvel[b], com, xipos[b], mat, wind, lvel)
            inertia_box_fluid_deriv(body_mass[b], body_inertia[b], lvel, density, viscosity, B)
            add_jtbj(dof_parentid, last, Jl, B, D_rownnz, D_rowadr, D_colind, qd)


@kernel
def fluid_vel_derivative(M, D, qd, symmetric):
    """Stage: qd += d(qfrc_fluid)/d(qvel) (D layout) when the medium has density or
    viscosity."""
    density = fs(M, MF.opt_density)
    viscosity = fs(M, MF.opt_viscosity)
    if not (density > 0.0 or viscosity > 0.0):
        return
    W = f2(D, DF.fluid_work)
    fluid_deriv_kernel(
        i1(M, MF.body_parentid), i1(M, MF.body_rootid), i1(M, MF.body_dofnum),
        i1(M, MF.body_dofadr), i1(M, MF.dof_parentid), f1(M, MF.body_mass),
        f2(M, MF.body_inertia), i1(M, MF.body_geomadr), i1(M, MF.body_geomnum),
        i1(M, MF.geom_type), f2(M, MF.geom_size), f2(M, MF.geom_fluid), density, viscosity,
        f1(M, MF.opt_wind), i1(M, MF.body_treeid), i1(M, MF.tree_dofadr), i1(M, MF.tree_dofnum),
        i1(M, MF.dof_jntid), i1(M, MF.jnt_type),
        i1(M, MF.D_rownnz), i1(M, MF.D_rowadr), i1(M, MF.D_colind),
        f2(D, DF.xipos), f2(D, DF.ximat), f2(D, DF.geom_xpos), f2(D, DF.geom_xmat),
        f2(D, DF.cvel), f2(D, DF.cdof), f2(D, DF.subtree_com),
        symmetric,
        f2(D, DF.fluid_B)[6], f2(D, DF.fluid_B)[0:6], W, f2(D, DF.fluid_J), qd)


# ---------------------------------------------------------------------------------------------
# the D layout: lookup and rank-one updates
# ---------------------------------------------------------------------------------------------

@kernel
def d_find(D_rownnz, D_rowadr, D_colind, i, j):
    """Position of (i, j) in the D layout (binary search in row i), -1 when not in it."""
    lo = D_rowadr[i]
    hi = lo + D_rownnz[i]
    while lo < hi:
        mid = (lo + hi) >> 1
        c = D_colind[mid]
        if c < j:
            lo = mid + 1
        elif c > j:
            hi = mid
        else:
            return mid
    return -1


@kernel
def add_outer_sparse(D_rownnz, D_rowadr, D_colind, u, s, ind, qd):
    """qDeriv += s * u u' on the D layout's entries (u: a dense nv row, e.g. an actuator's
    moment or a tendon's Jacobian; ``ind``: nv int scratch). Products outside the layout are
    dropped, as MuJoCo does: only pairs of dofs on one chain are kept."""
    n = 0
    for i in range(u.shape[0]):
        if u[i] != 0.0:
            ind[n] = i
            n += 1
    for a in range(n):
        i = ind[a]
        ui = u[i] * s
        # both lists increase: merge row i's columns with the nonzeros of u
        p = D_rowadr[i]
        end = p + D_rownnz[i]
        for b in range(n):
            j = ind[b]
            while p < end and D_colind[p] < j:
                p += 1
            if p == end:
                break
            if D_colind[p] == j:
                qd[p] += ui * u[j]


# ---------------------------------------------------------------------------------------------
# mjd_rne_vel: the velocity derivative of the bias forces
# ---------------------------------------------------------------------------------------------

@kernel
def rne_vel_derivative_kernel(
    # Model:
    body_parentid, body_jntnum, body_jntadr, body_dofnum, body_dofadr, jnt_type, jnt_dofadr,
    dof_bodyid, dof_parentid, dof_treeid, dof_jntid, tree_bodyadr, tree_bodynum, tree_dofadr,
    tree_dofnum, D_rownnz, D_rowadr, D_colind,
    # Data in:
    qvel, cinert, cvel, cdof, cdof_dot,
    # arguments:
    free_trees_only,
    # scratch (rows: bodies, dofs, bodies, bodies):
    dvel, ddofdot, dacc, dfrc,
    # Data out:
    qd,
):
    """qd -= d(qfrc_bias)/d(qvel) in the D layout (mjd_rne_vel): column by column, the
    tangent of `engine.smooth.com_vel_kernel` and `engine.smooth.rne_kernel` (velocity part;
    gravity does not depend on qvel) along qvel[k], exact (no differencing).

    qvel[k] moves only the bodies in the subtree of dof k's body (cvel, cdof_dot, cacc, cfrc
    tangents vanish elsewhere); the ancestors see that subtree's total force. Bodies come in
    depth-first order, so a subtree is a contiguous range of body ids: the work of a column is
    its subtree plus its chain, O(nnz of the D layout) in all. With ``free_trees_only``, only
    the trees moved by a single free joint (implicitfast's gyroscopic term, see
    `engine.forward.implicit`)."""
    nv = qvel.shape[0]
    for k in range(nv):
        t = dof_treeid[k]
        if free_trees_only and not single_free_tree(tree_dofadr, tree_dofnum, dof_jntid,
                                                    jnt_type, t):
            continue
        bk = dof_bodyid[k]
        bend = tree_bodyadr[t] + tree_bodynum[t]
        e = bk + 1
        while e < bend and body_parentid[e] >= bk:
            e += 1
        for b in range(bk, e):
            if b == bk:
                dv = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
                da = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            else:
                dv = mm.get6(dvel[body_parentid[b]])
                da = mm.get6(dacc[body_parentid[b]])
            # cvel and cdof_dot along qvel[k], in com_vel_kernel's order
            for j in range(body_jntadr[b], body_jntadr[b] + body_jntnum[b]):
                adr = jnt_dofadr[j]
                typ = jnt_type[j]
                if typ == _JNT_FREE:
                    for m in range(3):
                        mm.set6(ddofdot[adr + m], (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
                    if adr <= k < adr + 3:
                        dv = mm.add6(dv, cdof[k])
                    adr += 3
                if typ == _JNT_FREE or typ == _JNT_BALL:
                    for m in range(3):
                        mm.set6(ddofdot[adr + m], mm.cross_motion(dv, cdof[adr + m]))
                    if adr <= k < adr + 3:
                        dv = mm.add6(dv, cdof[k])
                else:
                    mm.set6(ddofdot[adr], mm.cross_motion(dv, cdof[adr]))
                    if adr == k:
                        dv = mm.add6(dv, cdof[k])
            mm.set6(dvel[b], dv)
            # cacc = cacc(parent) + sum cdof_dot qvel
            for j in range(body_dofadr[b], body_dofadr[b] + body_dofnum[b]):
                da = mm.add_scl6(da, ddofdot[j], qvel[j])
                if j == k:
                    da = mm.add6(da, cdof_dot[k])
            mm.set6(dacc[b], da)
            # cfrc = I cacc + cvel x* (I cvel)
            ci = cinert[b]
            v = cvel[b]
            f = mm.add6(mm.mul_inert_vec(ci, da),
                        mm.add6(mm.cross_force(dv, mm.mul_inert_vec(ci, v)),
                                mm.cross_force(v, mm.mul_inert_vec(ci, dv))))
            mm.set6(dfrc[b], f)
        for b in range(e - 1, bk, -1):
            p = body_parentid[b]
            mm.set6(dfrc[p], mm.add6(dfrc[p], dfrc[b]))
        # column k: the subtree's dofs, then the chain above dof k's body
        for b in range(bk, e):
            for i in range(body_dofadr[b], body_dofadr[b] + body_dofnum[b]):
                qd[d_find(D_rownnz, D_rowadr, D_colind, i, k)] -= mm.dot6(cdof[i], dfrc[b])
        i = dof_parentid[body_dofadr[bk]]
        while i >= 0:
            qd[d_find(D_rownnz, D_rowadr, D_colind, i, k)] -= mm.dot6(cdof[i], dfrc[bk])
            i = dof_parentid[i]


@kernel
def rne_vel_derivative(M, D, free_trees_only, qd):
    """Stage: qd -= d(qfrc_bias)/d(qvel) (D layout), from the current cvel/cdof_dot/cinert;
    scratch rows fw_cvel, fw_cdofdot, fw_cacc, fw_cfrc."""
    rne_vel_derivative_kernel(
        i1(M, MF.body_parentid), i1(M, MF.body_jntnum), i1(M, MF.body_jntadr),
        i1(M, MF.body_dofnum), i1(M, MF.body_dofadr), i1(M, MF.jnt_type), i1(M, MF.jnt_dofadr),
        i1(M, MF.dof_bodyid), i1(M, MF.dof_parentid), i1(M, MF.dof_treeid),
        i1(M, MF.dof_jntid), i1(M, MF.tree_bodyadr), i1(M, MF.tree_bodynum),
        i1(M, MF.tree_dofadr), i1(M, MF.tree_dofnum),
        i1(M, MF.D_rownnz), i1(M, MF.D_rowadr), i1(M, MF.D_colind),
        f1(D, DF.qvel), f2(D, DF.cinert), f2(D, DF.cvel), f2(D, DF.cdof), f2(D, DF.cdof_dot),
        free_trees_only,
        f2(D, DF.fw_cvel), f2(D, DF.fw_cdofdot), f2(D, DF.fw_cacc), f2(D, DF.fw_cfrc), qd)


# ---------------------------------------------------------------------------------------------
# sparse LU of M - h*qDeriv in the D layout (mju_factorLUSparse / mju_solveLUSparse)
# ---------------------------------------------------------------------------------------------

@kernel
def lu_factor_sparse(D_rownnz, D_rowadr, D_colind, D_diag, dof_parentid, lo, hi, remaining,
                     LU):
    """In-place LU = (U + I) L of the rows lo..hi-1 (whole kinematic trees) of a matrix in the
    D layout, eliminating from the last dof up, without pivoting and without fill-in (the
    pattern is a tree's): the strictly upper part is U, the lower part with the diagonal L.

    As mju_factorLUSparse: at dof i, every row j above with (j, i) nonzero -- for this pattern
    exactly i's ancestors -- gets (j, i) /= (i, i), then (j, k) -= (i, k) (j, i) for k < i. The
    ancestors are walked along dof_parentid instead of testing every row j < i; row i's
    columns k < i are its ancestors, and the first D_diag[j] + 1 of them are row j's first
    entries, in the same order. A pivot below mjMINVAL is replaced by mjMINVAL (``remaining``:
    int scratch, the count of not-yet-eliminated entries of each row)."""
    for i in range(lo, hi):
        remaining[i] = D_rownnz[i]
    for i in range(hi - 1, lo - 1, -1):
        ai = D_rowadr[i]
        ii = ai + D_diag[i]
        remaining[i] -= 1
        if abs(LU[ii]) < _MINVAL:
            LU[ii] = _MINVAL
        j = dof_parentid[i]
        while j >= lo:
            aj = D_rowadr[j]
            ji = aj + remaining[j] - 1
            remaining[j] -= 1
            LU[ji] = LU[ji] / LU[ii]
            lji = LU[ji]
            # k <= j: the first D_diag[j] + 1 entries of both rows
            nj = D_diag[j] + 1
            for p in range(nj):
                LU[aj + p] -= LU[ai + p] * lji
            # j < k < i: i's ancestors below j, searched in row j between (j, j) and (j, i)
            q = aj + nj
            for p in range(ai + nj, ii):
                c = D_colind[p]
                while D_colind[q] < c:
                    q += 1
                LU[q] -= LU[p] * lji
            j = dof_parentid[j]


@kernel
def lu_solve_sparse(D_rownnz, D_rowadr, D_colind, D_diag, LU, lo, hi, vec, res):
    """res = A^-1 vec on the rows lo..hi-1 for A = (U + I) L factored by lu_factor_sparse
    (res may alias vec): (U + I) y = vec from the last row up, then L res = y from the first."""
    for i in range(hi - 1, lo - 1, -1):
        x = vec[i]
        a = D_rowadr[i]
        for p in range(a + D_diag[i] + 1, a + D_rownnz[i]):
            x -= LU[p] * res[D_colind[p]]
        res[i] = x
    for i in range(lo, hi):
        x = res[i]
        a = D_rowadr[i]
        for p in range(a, a + D_diag[i]):
            x -= LU[p] * res[D_colind[p]]
        res[i] = x / LU[a + D_diag[i]]
