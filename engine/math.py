"""Quaternion, rotation and spatial-algebra kernels (seed 001, "coordinate frames and transformations").

Conventions (seed 001): quaternions are w-first unit 4-vectors; rotation matrices are row-major 3x3
flattened to 9 numbers; 6-D spatial vectors are (rotation, translation), motion vectors expressed at
the centre of mass of their kinematic tree's root subtree (``cdof``, ``cvel``, ``cacc``); the
10-vector ``cinert`` is (Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m*cx, m*cy, m*cz, m): the inertia about that
origin, the first mass moment and the mass.

Every kernel returns a tuple of floats (3, 4, 6, 9 or 10 long) instead of filling an array: numba
keeps tuples in registers, so the pipeline stages that chain these calls allocate nothing. Inputs
may be arrays (row views of model/data fields) or such tuples. ``set3``/``set4``/... write a tuple
into an array row.
"""
from __future__ import annotations

import math


from .enums import mjMINVAL  # noqa: E402
_PI = math.pi

from ._jit import kernel


# ---- storing ------------------------------------------------------------------------------------
@kernel
def vcopy(dst, src):
    """dst[:n] = src for 1-D arrays, n = len(src). A loop because slice assignment between two
    arrays needs numba's runtime (an overlap check that may allocate), which kernels compile without."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel
def gather(dst, src, index, n):
    """dst[k] = src[index[k]] for k < n (mju_gather: e.g. an island-ordered copy)."""
    for k in range(n):
        dst[k] = src[index[k]]


@kernel
def set3(dst, v):
    """dst[0:3] = v."""
    dst[0] = v[0]
    dst[1] = v[1]
    dst[2] = v[2]


@kernel
def set4(dst, v):
    """dst[0:4] = v."""
    dst[0] = v[0]
    dst[1] = v[1]
    dst[2] = v[2]
    dst[3] = v[3]


@kernel
def set6(dst, v):
    """dst[0:6] = v."""
    for k in range(6):
        dst[k] = v[k]


@kernel
def set9(dst, v):
    """dst[0:9] = v."""
    for k in range(9):
        dst[k] = v[k]


@kernel
def set10(dst, v):
    """dst[0:10] = v."""
    for k in range(10):
        dst[k] = v[k]


@kernel
def get3(a):
    """a[0:3] as a tuple."""
    return (a[0], a[1], a[2])


@kernel
def get4(a):
    """a[0:4] as a tuple."""
    return (a[0], a[1], a[2], a[3])


@kernel
def get6(a):
    """a[0:6] as a tuple."""
    return (a[0], a[1], a[2], a[3], a[4], a[5])


@kernel
def get9(a):
    """a[0:9] as a tuple."""
    return (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])


# ---- 3-vectors ----------------------------------------------------------------------------------
@kernel
def add3(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel
def sub3(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel
def scl3(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@kernel
def add_scl3(a, b, s):
    """a + s*b."""
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@kernel
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def cross3(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel
def norm3(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@kernel
def normalize3(a):
    """(unit vector, norm); a vector shorter than mjMINVAL becomes (1, 0, 0), as in MuJoCo."""
    n = norm3(a)
    if n < mjMINVAL:
        return (1.0, 0.0, 0.0), n
    s = 1.0 / n
    return (a[0] * s, a[1] * s, a[2] * s), n


# ---- 3x3 matrices (row-major 9-tuples) ----------------------------------------------------------
@kernel
def mat_vec(m, v):
    """m @ v."""
    return (m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
            m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2])


@kernel
def mat_t_vec(m, v):
    """m.T @ v."""
    return (m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
            m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
            m[2] * v[0] + m[5] * v[1] + m[8] * v[2])


@kernel
def mat_mat(a, b):
    """a @ b."""
    return (a[0] * b[0] + a[1] * b[3] + a[2] * b[6],
            a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
            a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
            a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
            a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
            a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
            a[6] * b[0] + a[7] * b[3] + a[8] * b[6],
            a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
            a[6] * b[2] + a[7] * b[5] + a[8] * b[8])


@kernel
def transpose9(a):
    return (a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8])


# ---- quaternions --------------------------------------------------------------------------------
@kernel
def quat_normalize(q):
    """Unit quaternion as mju_normalize4: one shorter than mjMINVAL becomes the identity, one whose
    norm is within mjMINVAL of 1 is returned unchanged, any other is scaled by 1/norm. The squares
    are summed in pairs, (w*w + x*x) + (y*y + z*z), the order of mujoco 4.0.0's build: same bits."""
    n = math.sqrt((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]))
    if n < mjMINVAL:
        return (1.0, 0.0, 0.0, 0.0)
    if abs(n - 1.0) > mjMINVAL:
        s = 1.0 / n
        return (q[0] * s, q[1] * s, q[2] * s, q[3] * s)
    return (q[0], q[1], q[2], q[3])


@kernel
def quat_mul(a, b):
    """Hamilton product a*b (apply b in a's frame). Each component's four products are summed in
    pairs, (t0 + t1) + (t2 + t3), as mju_mulQuat in mujoco 4.0.0's build: the same bits."""
    return ((a[0] * b[0] - a[1] * b[1]) - (a[2] * b[2] + a[3] * b[3]),
            (a[0] * b[1] + a[1] * b[0]) + (a[2] * b[3] - a[3] * b[2]),
            (a[0] * b[2] - a[1] * b[3]) + (a[2] * b[0] + a[3] * b[1]),
            (a[0] * b[3] + a[1] * b[2]) + (a[3] * b[0] - a[2] * b[1]))


@kernel
def quat_neg(q):
    """Conjugate (the inverse rotation of a unit quaternion)."""
    return (q[0], -q[1], -q[2], -q[3])


@kernel
def quat2mat(q):
    """Rotation matrix (row-major 9-tuple) of a unit quaternion, as mju_quat2Mat in mujoco 4.0.0's
    build (the same bits): diagonal terms (ww - yy) + (xx - zz), (ww + yy) - (xx + zz),
    (ww - yy) - (xx - zz); off-diagonal 2 (xy - wz) ..."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    ww, xx, yy, zz = w * w, x * x, y * y, z * z
    a, b = ww - yy, xx - zz
    return (a + b, 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), (ww + yy) - (xx + zz), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), a - b)


@kernel
def mat2quat(m):
    """Unit quaternion (w >= 0 branch first) of a rotation matrix."""
    tr = m[0] + m[4] + m[8]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2.0
        q = (0.25 * s, (m[7] - m[5]) / s, (m[2] - m[6]) / s, (m[3] - m[1]) / s)
    elif m[0] > m[4] and m[0] > m[8]:
        s = math.sqrt(1.0 + m[0] - m[4] - m[8]) * 2.0
        q = ((m[7] - m[5]) / s, 0.25 * s, (m[1] + m[3]) / s, (m[2] + m[6]) / s)
    elif m[4] > m[8]:
        s = math.sqrt(1.0 + m[4] - m[0] - m[8]) * 2.0
        q = ((m[2] - m[6]) / s, (m[1] + m[3]) / s, 0.25 * s, (m[5] + m[7]) / s)
    else:
        s = math.sqrt(1.0 + m[8] - m[0] - m[4]) * 2.0
        q = ((m[3] - m[1]) / s, (m[2] + m[6]) / s, (m[5] + m[7]) / s, 0.25 * s)
    return quat_normalize(q)


@kernel
def rot_vec_quat(v, q):
    """Rotate v by unit quaternion q as mju_rotVecQuat (the same bits): t = w v + q_xyz x v,
    v + 2 q_xyz x t. (mujoco's shortcuts for v = 0 and q = identity give these values too.)"""
    w, x, y, z = q[0], q[1], q[2], q[3]
    t0 = (w * v[0] + y * v[2]) - z * v[1]
    t1 = (w * v[1] + z * v[0]) - x * v[2]
    t2 = (w * v[2] + x * v[1]) - y * v[0]
    return (v[0] + 2 * (y * t2 - z * t1),
            v[1] + 2 * (z * t0 - x * t2),
            v[2] + 2 * (x * t1 - y * t0))


@kernel
def axis_angle2quat(axis, angle):
    """Quaternion of a rotation by ``angle`` (rad) about the unit ``axis``."""
    s = math.sin(0.5 * angle)
    return (math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s)


@kernel
def quat_z2vec(vn, n):
    """The shortest rotation taking the z axis to the unit vector vn (of a vector whose norm
    was n): identity when n < mjMINVAL, a half turn about x for -z (MuJoCo's mju_quatZ2Vec)."""
    if n < mjMINVAL:
        return (1.0, 0.0, 0.0, 0.0)
    axis, a = normalize3(cross3((0.0, 0.0, 1.0), vn))
    if abs(a) < mjMINVAL:
        if vn[2] < 0:
            return (0.0, 1.0, 0.0, 0.0)
        return (1.0, 0.0, 0.0, 0.0)
    return axis_angle2quat(axis, math.atan2(a, vn[2]))


@kernel
def quat2vel(q, dt):
    """Angular velocity (rotation vector / dt) that turns the identity into q in time dt."""
    axis, sin_a_2 = normalize3((q[1], q[2], q[3]))
    speed = 2.0 * math.atan2(sin_a_2, q[0])
    # the shorter way round: q and -q are the same rotation
    if speed > _PI:
        speed -= 2.0 * _PI
    return scl3(axis, speed / dt)


@kernel
def sub_quat(qa, qb):
    """Rotation vector r with qa = qb * exp(r) (r in qb's frame)."""
    return quat2vel(quat_mul(quat_neg(qb), qa), 1.0)


@kernel
def quat_integrate(q, vel, scale):
    """normalised(q) * exp(vel*scale): integrate a local-frame angular velocity ``vel``, as
    mju_quatIntegrate (q normalised before the product, the product not: the same bits)."""
    axis, n = normalize3(vel)
    return quat_mul(quat_normalize(q), axis_angle2quat(axis, scale * n))


# ---- spatial algebra (rotation, translation) -------------------------------------------------
@kernel
def cross_motion(v, u):
    """v x u for motion vectors (the derivative of u moving with velocity v)."""
    return (v[1] * u[2] - v[2] * u[1],
            v[2] * u[0] - v[0] * u[2],
            v[0] * u[1] - v[1] * u[0],
            v[1] * u[5] - v[2] * u[4] + v[4] * u[2] - v[5] * u[1],
            v[2] * u[3] - v[0] * u[5] + v[5] * u[0] - v[3] * u[2],
            v[0] * u[4] - v[1] * u[3] + v[3] * u[1] - v[4] * u[0])


@kernel
def cross_force(v, f):
    """v x* f for a motion v and a force f (torque, force)."""
    return (v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4],
            v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5],
            v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3],
            v[1] * f[5] - v[2] * f[4],
            v[2] * f[3] - v[0] * f[5],
            v[0] * f[4] - v[1] * f[3])


@kernel
def mul_inert_vec(i, v):
    """Spatial inertia (10-vector) times motion vector: the spatial momentum/force."""
    return (i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5],
            i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5],
            i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4],
            i[8] * v[1] - i[7] * v[2] + i[9] * v[3],
            i[6] * v[2] - i[8] * v[0] + i[9] * v[4],
            i[7] * v[0] - i[6] * v[1] + i[9] * v[5])


@kernel
def dot6(a, b):
    return (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]
            + a[5] * b[5])


@kernel
def add6(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


@kernel
def add_scl6(a, b, s):
    """a + s*b."""
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2], a[3] + s * b[3],
            a[4] + s * b[4], a[5] + s * b[5])


@kernel
def dof_com(axis, offset):
    """Motion vector of a unit rotation about ``axis`` through ``offset`` (from the com origin)."""
    c = cross3(offset, axis)
    return (axis[0], axis[1], axis[2], c[0], c[1], c[2])


@kernel
def inert_com(inertia, mat, dif, mass):
    """cinert of a body: principal ``inertia`` in frame ``mat`` (9), centre at ``dif`` from the
    com origin, ``mass``: rotated inertia plus the parallel-axis term, first moment, mass.
    Operation order of mju_inertCom (R (diag(I) R'), then the parallel-axis terms): the same bits."""
    r = mat
    i0, i1, i2 = inertia[0], inertia[1], inertia[2]
    # t = diag(I) R', row by row
    t0, t1, t2 = r[0] * i0, r[3] * i0, r[6] * i0
    t3, t4, t5 = r[1] * i1, r[4] * i1, r[7] * i1
    t6, t7, t8 = r[2] * i2, r[5] * i2, r[8] * i2
    dx, dy, dz = dif[0], dif[1], dif[2]
    return (r[0] * t0 + r[1] * t3 + r[2] * t6 + mass * (dy * dy + dz * dz),
            r[3] * t1 + r[4] * t4 + r[5] * t7 + mass * (dx * dx + dz * dz),
            r[6] * t2 + r[7] * t5 + r[8] * t8 + mass * (dx * dx + dy * dy),
            r[0] * t1 + r[1] * t4 + r[2] * t7 - mass * dx * dy,
            r[0] * t2 + r[1] * t5 + r[2] * t8 - mass * dx * dz,
            r[3] * t2 + r[4] * t5 + r[5] * t8 - mass * dy * dz,
            mass * dx, mass * dy, mass * dz, mass)


@kernel
def transform_motion(vec, newpos, oldpos):
    """Motion vector expressed at ``oldpos`` re-expressed at ``newpos`` (same orientation)."""
    d = sub3(newpos, oldpos)
    c = cross3(d, (vec[0], vec[1], vec[2]))
    return (vec[0], vec[1], vec[2], vec[3] - c[0], vec[4] - c[1], vec[5] - c[2])


@kernel
def transform_force(vec, newpos, oldpos):
    """Force vector (torque, force) at ``oldpos`` re-expressed at ``newpos``."""
    d = sub3(newpos, oldpos)
    c = cross3(d, (vec[3], vec[4], vec[5]))
    return (vec[0] - c[0], vec[1] - c[1], vec[2] - c[2], vec[3], vec[4], vec[5])


@kernel
def rot_t6(mat, v):
    """Both halves of a spatial vector rotated by mat.T (world to local)."""
    a = mat_t_vec(mat, (v[0], v[1], v[2]))
    b = mat_t_vec(mat, (v[3], v[4], v[5]))
    return (a[0], a[1], a[2], b[0], b[1], b[2])
