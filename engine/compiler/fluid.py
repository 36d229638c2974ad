"""Per-geom coefficients of the ellipsoid fluid model (``mjModel.geom_fluid``), compile-time numpy.

Layout of the 12 numbers stored for a geom with ``fluidshape="ellipsoid"``:

    [0]     1 (the geom interacts with the fluid)
    [1:6]   fluidcoef: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift
    [6:9]   virtual (added) mass of the equivalent ellipsoid, per unit fluid density
    [9:12]  virtual (added) moment of inertia of the equivalent ellipsoid, per unit fluid density

A geom with ``fluidshape="none"`` stores 12 zeros.

Model (MuJoCo documentation, "Fluid forces" / "Ellipsoid model" / "Added mass", after Tuckerman
1925).  For semi-axes ``r = (r_x, r_y, r_z)`` and ``V = 4/3 pi r_x r_y r_z``:

    kappa_i = int_0^inf r_x r_y r_z / sqrt((r_i^2 + l)^3 (r_j^2 + l) (r_k^2 + l)) dl
    m_i     = V kappa_i / (2 - kappa_i)
    I_i     = V/5 (r_j^2 - r_k^2)^2 (kappa_k - kappa_j)
                  / (2 (r_j^2 - r_k^2) + (r_j^2 + r_k^2) (kappa_j - kappa_k))

The equivalent ellipsoid of a geom: sphere (r, r, r); capsule (r, r, r + half-length); cylinder
(r, r, half-length); every other type (ellipsoid, box, mesh, ...) its three ``geom_size`` values
(for meshes these are the half-extents of the mesh's axis-aligned box, as the compiler stores them).

Numerics.  MuJoCo does not evaluate kappa exactly: it applies one 15-point Gauss-Kronrod rule on
x in [0, 1] after the change of variable l = s x^3 / (1 - x)^2, with the scale
s = (r_i^3 r_j r_k)^(2/5) that makes the integrand dimensionless, and with the Kronrod nodes
(mapped to [0, 1]) and weights rounded to 8 decimals.  That rule is accurate only to ~1e-6
relative (a sphere's exact kappa = 2/3 comes out ~6e-7 low), so an exact evaluation (e.g.
Carlson's R_D) would disagree with mjModel.geom_fluid at that level.  To reproduce the stored
numbers we evaluate the same rule here: the Gauss-Kronrod nodes and weights are computed below
from their definition (Gauss-Legendre 7-point nodes plus the zeros of the degree-8 Stieltjes
polynomial, weights from exactness up to degree 14), mapped to [0, 1] and rounded to 8 decimals.
The result agrees with MuJoCo to round-off (~1e-15 relative).

The clipping of the denominators is also MuJoCo's behaviour: the added mass divides by
max(eps, 2 - kappa_i) and the added inertia uses |numerator| / max(eps, |denominator|) with
eps = 1e-14, so an axisymmetric pair of semi-axes (r_j == r_k) gives exactly 0 for I_i.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import legendre as _leg

from ..enums import (mjGEOM_SPHERE as SPHERE, mjGEOM_CAPSULE as CAPSULE,  # noqa
                     mjGEOM_ELLIPSOID as ELLIPSOID, mjGEOM_CYLINDER as CYLINDER,
                     mjGEOM_BOX as BOX, mjGEOM_MESH as MESH)

FLUIDSHAPE_NONE, FLUIDSHAPE_ELLIPSOID = 0, 1   # mjtFluidShape
_EPS = 1e-14                                   # mjMINVAL-like clip used by the compiler (mjEPS)


def _gauss_kronrod15():
    """Nodes (on [-1, 1], ascending) and weights of the 15-point Kronrod extension of 7-point
    Gauss-Legendre, computed from the definition in the Legendre basis (well conditioned)."""
    n = 7
    gauss_x, _ = _leg.leggauss(n)
    # Stieltjes polynomial E_8 (even, monic in the P_8 direction): orthogonal to P_7 * x^k,
    # k = 0..7; by parity only odd k (equivalently P_1, P_3, P_5, P_7) give conditions.
    xq, wq = _leg.leggauss(24)                      # exact for degree <= 47
    P = [_leg.legval(xq, np.eye(n + 2)[k]) for k in range(n + 2)]
    odd = [1, 3, 5, 7]
    even = [0, 2, 4, 6]
    A = np.array([[np.sum(wq * P[k] * P[n] * P[j]) for k in even] for j in odd])
    b = np.array([-np.sum(wq * P[n + 1] * P[n] * P[j]) for j in odd])
    coef = np.zeros(n + 2)
    coef[even] = np.linalg.solve(A, b)
    coef[n + 1] = 1.0
    kron_x = np.real(_leg.legroots(coef))
    x = np.sort(np.concatenate([gauss_x, kron_x]))
    x = 0.5 * (x - x[::-1])                         # exact symmetry, centre node exactly 0
    # weights: integrate P_0..P_14 exactly (int P_0 = 2, others 0)
    V = np.array([_leg.legval(x, np.eye(15)[k]) for k in range(15)])
    rhs = np.zeros(15)
    rhs[0] = 2.0
    w = np.linalg.solve(V, rhs)
    w = 0.5 * (w + w[::-1])
    return x, w


def _kappa_rule():
    """Quadrature for int_0^inf g(l) dl = sum_k W_k * D_k * g(L_k) (before scaling)."""
    x, w = _gauss_kronrod15()
    # MuJoCo's rule uses the nodes mapped to [0, 1] and the weights, both rounded to 8 decimals
    # (the tabulated l(t) and dl/dt are then evaluated exactly at the rounded nodes).
    t = np.round(0.5 * (x + 1.0), 8)
    wt = np.round(0.5 * w, 8)
    L = t ** 3 / (1.0 - t) ** 2                     # l(t) = t^3 / (1 - t)^2
    D = t * t * (3.0 - t) / (1.0 - t) ** 3          # dl/dt
    return tuple(float(v) for v in L), tuple(float(v) for v in D), tuple(float(v) for v in wt)


_L, _D, _W = _kappa_rule()


def _kappa(a: float, b: float, c: float) -> float:
    """kappa for the semi-axis ``a`` of an ellipsoid with semi-axes (a, b, c), by MuJoCo's rule."""
    ia2 = 1.0 / (a * a)
    ib2 = 1.0 / (b * b)
    ic2 = 1.0 / (c * c)
    s = (a * a * a * b * c) ** 0.4
    acc = 0.0
    for lk, dk, wk in zip(_L, _D, _W):
        lam = s * lk
        qa = 1.0 + lam * ia2
        acc += s * dk / (qa * math.sqrt(qa * (1.0 + lam * ib2) * (1.0 + lam * ic2))) * wk
    return acc * ia2


def ellipsoid_semiaxes(geom_type: int, size) -> tuple[float, float, float]:
    """Semi-axes of the equivalent ellipsoid the fluid model uses for a geom."""
    s0, s1, s2 = (float(v) for v in size[:3])
    if geom_type == SPHERE:
        return s0, s0, s0
    if geom_type == CAPSULE:
        return s0, s0, s1 + s0
    if geom_type == CYLINDER:
        return s0, s0, s1
    return s0, s1, s2


def added_mass_inertia(rx: float, ry: float, rz: float):
    """(virtual mass (3,), virtual inertia (3,)) per unit fluid density of the ellipsoid."""
    with np.errstate(all="ignore"):
        rx, ry, rz = np.float64(rx), np.float64(ry), np.float64(rz)   # C-like inf/nan on zeros
        vol = 4.0 / 3.0 * math.pi * rx * ry * rz
        kx = _kappa(rx, ry, rz)
        ky = _kappa(ry, rz, rx)
        kz = _kappa(rz, rx, ry)

        def inertia_fac(rj, rk, kj, kk):
            dj, dk = rj * rj, rk * rk
            num = (dj - dk) ** 2 * abs(kk - kj)
            den = max(_EPS, abs(2.0 * (dj - dk) + (dj + dk) * (kj - kk)))
            return num / den

        mass = np.array([vol * k / max(_EPS, 2.0 - k) for k in (kx, ky, kz)], dtype=float)
        inertia = np.array([vol * inertia_fac(ry, rz, ky, kz) / 5.0,
                            vol * inertia_fac(rz, rx, kz, kx) / 5.0,
                            vol * inertia_fac(rx, ry, kx, ky) / 5.0], dtype=float)
    return mass, inertia


def geom_fluid_coefficients(geom_type: int, size, fluidcoef=(0.5, 0.25, 1.5, 1.0, 1.0),
                            fluidshape=FLUIDSHAPE_ELLIPSOID) -> np.ndarray:
    """The 12 ``mjModel.geom_fluid`` numbers of one geom.

    ``geom_type``: mjtGeom value; ``size``: the compiled ``geom_size`` (3,); ``fluidcoef``: the 5
    fluidcoef values; ``fluidshape``: "none"/"ellipsoid" or mjtFluidShape 0/1 (zeros for none).
    """
    out = np.zeros(12)
    if isinstance(fluidshape, str):
        fluidshape = {"none": FLUIDSHAPE_NONE, "ellipsoid": FLUIDSHAPE_ELLIPSOID}[fluidshape]
    if int(fluidshape) == FLUIDSHAPE_NONE:
        return out
    out[0] = 1.0
    out[1:6] = np.asarray(fluidcoef, dtype=float)[:5]
    mass, inertia = added_mass_inertia(*ellipsoid_semiaxes(int(geom_type), size))
    out[6:9] = mass
    out[9:12] = inertia
    return out
