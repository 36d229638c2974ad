"""Geom volumes and inertias, body inertia from geoms, principal axes (seed 000 "geom" mass/density/
shellinertia, "inertial"; seed 004 "inertia"). Compile-time numpy."""
from __future__ import annotations

import math

import numpy as np

from ..errors import CompileError
from .frames import quat2mat

from ..enums import (mjGEOM_SPHERE as SPHERE, mjGEOM_CAPSULE as CAPSULE,  # noqa
                     mjGEOM_ELLIPSOID as ELLIPSOID, mjGEOM_CYLINDER as CYLINDER,
                     mjGEOM_BOX as BOX, mjGEOM_MESH as MESH)


def primitive_volume_inertia(gtype, size, shell=False):
    """Volume (or surface area when ``shell``) and principal inertia per unit density of a primitive
    geom in its own frame. Sizes are MuJoCo's: radius / half-lengths."""
    r = size[0]
    if gtype == SPHERE:
        if shell:
            a = 4 * math.pi * r * r
            return a, np.full(3, 2.0 / 3.0 * a * r * r)
        v = 4.0 / 3.0 * math.pi * r ** 3
        return v, np.full(3, 0.4 * v * r * r)
    if gtype == CAPSULE:
        h = 2 * size[1]
        if shell:
            a_cyl = 2 * math.pi * r * h
            a_sph = 4 * math.pi * r * r
            # thin cylinder shell + two hemispherical shells (com of a hemisphere shell at r/2)
            ixx_cyl = a_cyl * (r * r / 2 + h * h / 12)
            izz_cyl = a_cyl * r * r
            ixx_sph = a_sph * (2.0 / 3.0 * r * r + h * h / 4 + h * r / 2)
            izz_sph = a_sph * 2.0 / 3.0 * r * r
            return a_cyl + a_sph, np.array([ixx_cyl + ixx_sph, ixx_cyl + ixx_sph,
                                            izz_cyl + izz_sph])
        v_cyl = math.pi * r * r * h
        v_sph = 4.0 / 3.0 * math.pi * r ** 3
        ixx = v_cyl * (3 * r * r + h * h) / 12 + v_sph * (0.4 * r * r + 0.25 * h * h + 0.375 * h * r)
        izz = v_cyl * r * r / 2 + v_sph * 0.4 * r * r
        return v_cyl + v_sph, np.array([ixx, ixx, izz])
    if gtype == CYLINDER:
        h = 2 * size[1]
        if shell:
            a_side = 2 * math.pi * r * h
            a_cap = math.pi * r * r
            ixx = a_side * (r * r / 2 + h * h / 12) + 2 * a_cap * (r * r / 4 + h * h / 4)
            izz = a_side * r * r + 2 * a_cap * r * r / 2
            return a_side + 2 * a_cap, np.array([ixx, ixx, izz])
        v = math.pi * r * r * h
        ixx = v * (3 * r * r + h * h) / 12
        return v, np.array([ixx, ixx, v * r * r / 2])
    if gtype == ELLIPSOID:
        a, b, c = size
        if shell:
            return _ellipsoid_shell(a, b, c)
        v = 4.0 / 3.0 * math.pi * a * b * c
        return v, np.array([v * (b * b + c * c) / 5, v * (a * a + c * c) / 5,
                            v * (a * a + b * b) / 5])
    if gtype == BOX:
        a, b, c = size
        if shell:
            ab, ac, bc = 4 * a * b, 4 * a * c, 4 * b * c
            area = 2 * (ab + ac + bc)
            # three pairs of plates; each plate's own inertia plus its offset from the center
            ix = (2 * bc * (b * b + c * c) / 3 + 2 * ab * (b * b / 3 + c * c)
                  + 2 * ac * (c * c / 3 + b * b))
            iy = (2 * ac * (a * a + c * c) / 3 + 2 * ab * (a * a / 3 + c * c)
                  + 2 * bc * (c * c / 3 + a * a))
            iz = (2 * ab * (a * a + b * b) / 3 + 2 * ac * (a * a / 3 + b * b)
                  + 2 * bc * (b * b / 3 + a * a))
            return area, np.array([ix, iy, iz])
        v = 8 * a * b * c
        return v, np.array([v * (b * b + c * c) / 3, v * (a * a + c * c) / 3,
                            v * (a * a + b * b) / 3])
    raise CompileError(f"geom type {gtype} has no volume")


def _ellipsoid_shell(a, b, c):
    """Surface area and principal inertia per unit area of a thin ellipsoidal shell, as MuJoCo
    4.0.0 computes them (measured with the official bindings): the area is Knud Thomsen's
    approximation 4 pi ((a^p b^p + b^p c^p + c^p a^p) / 3)^(1/p), p = 1.6075; the mass
    (area x density) is spread over the layer between the solid ellipsoids of semi-axes
    (a, b, c) and (a+e, b+e, c+e), e = 1e-6, whose inertia is the difference of theirs."""
    p = 1.6075
    area = 4 * math.pi * (((a * b) ** p + (b * c) ** p + (c * a) ** p) / 3) ** (1 / p)
    e = 1e-6
    v_in = 4 * math.pi * a * b * c / 3
    ae, be, ce = a + e, b + e, c + e
    v_out = 4 * math.pi * ae * be * ce / 3
    rho = area / (v_out - v_in)  # the layer's volume density for unit surface density
    m_in, m_out = v_in * rho, v_out * rho
    inert = np.array([m_out * (be * be + ce * ce) - m_in * (b * b + c * c),
                      m_out * (ae * ae + ce * ce) - m_in * (a * a + c * c),
                      m_out * (ae * ae + be * be) - m_in * (a * a + b * b)]) / 5
    return area, inert


def combine(masses, positions, rotations, inertias):
    """Mass, center of mass and 3x3 inertia tensor about it of parts with given mass, frame
    position, rotation matrix and principal inertia (all in one common frame)."""
    M = float(np.sum(masses))
    if M <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = np.einsum("i,ij->j", masses, positions) / M
    I = np.zeros((3, 3))
    for m, p, R, d in zip(masses, positions, rotations, inertias):
        r = p - com
        I += R @ np.diag(d) @ R.T + m * (np.dot(r, r) * np.eye(3) - np.outer(r, r))
    return M, com, I


def principal(I, where=None):
    """Principal moments and the quaternion of the principal axes of a symmetric 3x3 tensor.

    Eigenvalues in decreasing order, axes forming a right-handed frame (MuJoCo's convention).
    """
    I = (I + I.T) / 2
    from .mesh import eig3
    # bodies converge the Jacobi iteration fully (meshes stop earlier, at 1e-7 of the largest)
    return eig3(I, rel_tol=1e-12)


def full_to_principal(full):
    """fullinertia (Ixx Iyy Izz Ixy Ixz Iyz) -> principal moments and their frame quaternion."""
    xx, yy, zz, xy, xz, yz = full
    I = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    return principal(I)


def full_inertia_error(full, balance):
    """mujoco 4.0.0's checks of a full inertia tensor (MJCF fullinertia, URDF <inertia>), as a
    message, or None when it passes: its principal moments must be positive (below mjMINVAL
    counts as not) and, unless the compiler balances inertia, satisfy A + B >= C."""
    from ..enums import mjMINVAL
    if not np.isfinite(full).all():
        return None   # mujoco's comparisons pass an inf or NaN tensor (measured, URDF ixx -inf)
    d, _ = full_to_principal(full)
    if min(d) < mjMINVAL:
        return "inertia must have positive eigenvalues (fullinertia)"
    if not balance and not triangle_ok(d):
        return "inertia must satisfy A + B >= C; use 'balanceinertia' to fix"
    return None


def triangle_ok(d):
    """Principal moments (a, b, c) satisfy the triangle inequality (A + B >= C for every order),
    with a relative tolerance of 1e-10."""
    a, b, c = d

    def lo(x):   # x less its tolerance; an infinite moment stays infinite (and fails)
        return x - 1e-10 * max(1, x) if math.isfinite(x) else x
    return not (a + b < lo(c) or a + c < lo(b) or b + c < lo(a))


def rotate_tensor(q, diag):
    R = quat2mat(q)
    return R @ np.diag(diag) @ R.T
