"""Compile-time frame math: orientation specifiers, frame composition, fromto (seed 000,
"frame orientations"; seed 004, "frames"). Plain numpy: this runs once per model, not per step."""
from __future__ import annotations

import math

import numpy as np

from ..errors import CompileError

IDENT = np.array([1.0, 0.0, 0.0, 0.0])


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_conj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def quat_rotate(q, v):
    """Rotate vector v by unit quaternion q (its matrix times v, each row summed left to right
    as MuJoCo's compiler does: numpy's matmul may round otherwise)."""
    R = quat2mat(q)
    v0, v1, v2 = (float(x) for x in v)
    return np.array([R[i, 0] * v0 + R[i, 1] * v1 + R[i, 2] * v2 for i in range(3)])


def quat2mat(q):
    """Rotation matrix of unit quaternion q, with the diagonal as sums of squares
    (w^2 + x^2 - y^2 - z^2, ...) as MuJoCo's compiler forms it: the rounding of composed frames
    then matches (a body at 1.282 on z under a frame turned 144 degrees about z compiles to
    1.2819999999999998 there; with 1 - 2 (x^2 + y^2) it stayed 1.282 and the feet of an
    attached humanoid sat one ulp above the floor, out of contact)."""
    w, x, y, z = q
    ww, xx, yy, zz = w * w, x * x, y * y, z * z
    return np.array([
        [ww + xx - yy - zz, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), ww - xx + yy - zz, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), ww - xx - yy + zz]])


def mat2quat(R):
    """Unit quaternion (w >= 0 not enforced) of rotation matrix R, numerically robust."""
    R = np.asarray(R, float)
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2]) * 2
        q = [(R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif R[1, 1] > R[2, 2]:
        s = math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2]) * 2
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s]
    else:
        s = math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1]) * 2
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    return q / np.linalg.norm(q)


def normalize_quat(q, where=None):
    q = np.asarray(q, float)
    n = np.linalg.norm(q)
    if n < 1e-10:
        raise CompileError("quaternion has zero norm", *(where or (None, None, None)))
    # mujoco scales only a quaternion whose norm is off 1: a NaN one stays as written, an
    # infinite one becomes 0 and NaN (measured: "nan 0 0 1", "1 -inf 0 0")
    return q / n if abs(n - 1) > 1e-15 else q


def axisangle2quat(axis, angle):
    axis = np.asarray(axis, float)
    n = np.linalg.norm(axis)
    if n < 1e-10:
        raise CompileError("axisangle axis has zero norm")
    axis = axis / n
    if not math.isfinite(angle):
        # mujoco compiles an infinite or NaN angle into a NaN rotation (measured)
        return np.full(4, np.nan)
    return np.array([math.cos(angle / 2), *(math.sin(angle / 2) * axis)])


def euler2quat(euler, seq):
    """Euler angles (radians) in sequence ``seq`` (3 of xyzXYZ: lowercase = intrinsic axes, which
    rotate with the frame; uppercase = extrinsic, fixed axes)."""
    q = IDENT.copy()
    for a, c in zip(euler, seq):
        axis = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}[c.lower()]
        r = axisangle2quat(axis, a)
        q = quat_mul(q, r) if c.islower() else quat_mul(r, q)
    return q


def zaxis2quat(z):
    """The minimal rotation taking (0,0,1) to z."""
    z = np.asarray(z, float)
    n = np.linalg.norm(z)
    if _too_small(z):
        raise CompileError("zaxis too small")
    z = z / n
    axis = np.cross([0.0, 0.0, 1.0], z)
    s = np.linalg.norm(axis)
    if s < 1e-10:
        return IDENT.copy() if z[2] > 0 else np.array([0.0, 1.0, 0.0, 0.0])
    ang = math.atan2(s, z[2])
    return axisangle2quat(axis / s, ang)


def _too_small(v) -> bool:
    """mujoco 4.0.0's test of an orientation vector (zaxis, xyaxes' x and the part of y
    orthogonal to x): its squared norm below mjEPS = 1e-14 (measured: a norm of 1e-7 is refused,
    anything above accepted)."""
    return float(np.dot(v, v)) < 1e-14


def xyaxes2quat(xy):
    x = np.asarray(xy[:3], float)
    y = np.asarray(xy[3:], float)
    if _too_small(x):
        raise CompileError("xyaxes: xaxis too small")
    x = x / np.linalg.norm(x)
    y = y - x * np.dot(x, y)
    if _too_small(y):
        raise CompileError("xyaxes: yaxis too small (parallel to xaxis)")
    ny = np.linalg.norm(y)
    y = y / ny
    z = np.cross(x, y)
    if _too_small(z):   # y's orthogonal part was rounding noise along x (huge, parallel axes)
        raise CompileError("xyaxes: cross(xaxis, yaxis) too small")
    return mat2quat(np.column_stack([x, y, z]))


class Orienter:
    """Turns an element's orientation attributes into a unit quaternion per the compiler settings."""

    def __init__(self, degree: bool, eulerseq: str):
        self.scale = math.pi / 180.0 if degree else 1.0
        self.degree = degree
        if len(eulerseq) != 3 or any(c not in "xyzXYZ" for c in eulerseq):
            raise CompileError(f"eulerseq must be 3 characters from xyzXYZ, got '{eulerseq}'",
                               None, None, "compiler", "eulerseq")
        self.seq = eulerseq

    def rad(self, a):
        """Angle ``a`` in radians: degrees as a / 180 * pi, MuJoCo's compiler's rounding (a times
        pi / 180 differs by an ulp in 35 of 48 Euler triples and 13 of 48 axis-angles, measured)."""
        return a / 180.0 * math.pi if self.degree else a

    def quat(self, attrs, where=None, default=None):
        """The element's orientation; ``default`` (or identity) when none is given."""
        try:
            if attrs.get("quat") is not None:
                return normalize_quat(attrs["quat"], where)
            if attrs.get("axisangle") is not None:
                aa = attrs["axisangle"]
                return axisangle2quat(aa[:3], self.rad(aa[3]))
            if attrs.get("euler") is not None:
                return euler2quat([self.rad(a) for a in attrs["euler"]], self.seq)
            if attrs.get("xyaxes") is not None:
                return xyaxes2quat(attrs["xyaxes"])
            if attrs.get("zaxis") is not None:
                return zaxis2quat(attrs["zaxis"])
        except CompileError as e:
            if where:
                raise CompileError(e.message, *where) from None
            raise
        return (np.array(default, float) if default is not None else IDENT.copy())


def compose(p1, q1, p2, q2):
    """Pose (p1, q1) composed with local pose (p2, q2): the result in p1's parent frame."""
    return p1 + quat_rotate(q1, p2), quat_mul(q1, q2)


def frame_pose(frame, orienter):
    """Accumulated pose of a <frame>/<replicate> chain (outermost first), relative to the body."""
    if frame is None:
        return np.zeros(3), IDENT.copy()
    pp, pq = frame_pose(frame.frame, orienter)
    if frame.tag == "replicate":
        # mujoco 4.0.0 (measured on multi-axis steps): copy k turns by the Euler angles times
        # k (not the step's rotation applied k times: they differ unless the step turns about
        # one axis) and sits at the offset rotated by each earlier copy's turn, summed
        offset, euler = frame.attrs["replicate"]
        k = frame.attrs["index"]

        def turn(n):
            return (euler2quat([orienter.rad(a * n) for a in euler], orienter.seq)
                    if euler is not None else IDENT.copy())
        p = np.zeros(3)
        for j in range(k):
            p = p + quat_rotate(turn(j), np.asarray(offset, float))
        q = turn(k)
    else:
        p = np.asarray(frame.attrs.get("pos", (0.0, 0.0, 0.0)), float)
        q = orienter.quat(frame.attrs, frame.where())
    return compose(pp, pq, p, q)


def fromto_pose(fromto):
    """pos, quat and half-length of a capsule/cylinder/box/ellipsoid given by fromto.

    As MuJoCo does, the frame's z axis points from the 'to' point back to the 'from' point."""
    a = np.asarray(fromto[:3], float)
    b = np.asarray(fromto[3:], float)
    d = a - b
    L = np.linalg.norm(d)
    if L < 1e-10:
        raise CompileError("fromto points coincide")
    return (a + b) / 2, zaxis2quat(d / L), L / 2
