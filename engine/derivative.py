"""Analytic derivatives (MuJoCo's mjd_* family): the velocity derivative of the fluid forces.

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
``add_jtbj`` (Q += Jl' B Jl over a body's dof chain), ``local_jacobian`` (Jl), and the stage
``fluid_vel_derivative(M, D, Q, symmetric)``.
"""
from __future__ import annotations

import math

from ._access import f1, f2, fs, i1
from ._jit import kernel
from ._layout import DF, MF
from .passive import body_uses_ellipsoid, fluid_velocity_local, geom_semiaxes

_JNT_FREE = 0
_MINVAL = 1e-15
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
# joint space: Q += Jl' B Jl
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
def add_jtbj(dof_parentid, last, Jl, B, Q):
    """Q[i, k] += Jl[:, i]' B Jl[:, k] for the dofs i, k on the chain ending at dof ``last``."""
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
            Q[i, k] += (Jl[0, i] * t0 + Jl[1, i] * t1 + Jl[2, i] * t2 + Jl[3, i] * t3
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
    # Data in:
    xipos, ximat, geom_xpos, geom_xmat, cvel, cdof, subtree_com,
    # arguments:
    symmetric,
    # scratch:
    lvel, B, work, Jl,
    # Data out:
    Q,
):
    """Q += d(qfrc_fluid)/d(qvel) (dense nv x nv), body by body as `engine.passive.fluid`
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
                add_jtbj(dof_parentid, last, Jl, B, Q)
        else:
            mat = ximat[b]
            last = local_jacobian(body_parentid, body_dofnum, body_dofadr, dof_parentid,
                                  cdof, com, xipos[b], mat, b, Jl)
            if last < 0:
                continue
            fluid_velocity_local(cvel[b], com, xipos[b], mat, wind, lvel)
            inertia_box_fluid_deriv(body_mass[b], body_inertia[b], lvel, density, viscosity, B)
            add_jtbj(dof_parentid, last, Jl, B, Q)


@kernel
def fluid_vel_derivative(M, D, Q, symmetric):
    """Stage: Q += d(qfrc_fluid)/d(qvel) when the medium has density or viscosity."""
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
        f2(D, DF.xipos), f2(D, DF.ximat), f2(D, DF.geom_xpos), f2(D, DF.geom_xmat),
        f2(D, DF.cvel), f2(D, DF.cdof), f2(D, DF.subtree_com),
        symmetric,
        f2(D, DF.fluid_B)[6], f2(D, DF.fluid_B)[0:6], W, f2(D, DF.fluid_J), Q)
