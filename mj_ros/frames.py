"""The tf frames of a model: which are static, which move, and their poses.

Pure (numpy and a numba loop; no ROS, no engine import), so the node and the offline replay share it.

Rules:

* one frame per body, named after the body (`body<i>` if unnamed); the world body is `world_frame`;
* a body with joints or a mocap body moves: /tf, relative to its parent's frame, computed from the
  engine's `xpos`/`xquat`;
* every other body is fixed in its parent's frame (welded to the world, or a jointless child of a
  moving body, as robot_state_publisher does for fixed joints): /tf_static from `body_pos/quat`;
* sites and cameras: /tf_static relative to their body (`site_pos/quat`, `cam_pos/quat`); each
  camera also gets `<camera>_optical` (z forward, y down: the ROS optical convention; MuJoCo
  cameras look along -z with y up);
* URDF links the compiler fused away (fusestatic) keep their frames: /tf_static relative to the
  nearest surviving ancestor, composed from the fixed joints' origins, and a moving body whose URDF
  parent was fused is published relative to that fused link (so the tf tree is the URDF's tree).

Quaternions are w-first (MuJoCo), converted to ROS's x, y, z, w only when a message is filled.
"""
from __future__ import annotations

import dataclasses
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
from numba import njit

IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])
OPTICAL_Q = np.array([0.0, 1.0, 0.0, 0.0])  # 180 deg about x: MuJoCo camera -> optical frame


# -- quaternion algebra over arrays (..., 4), w first ------------------------------------------------
# Hamilton product as one contraction: (a * b)_i = sum_jk _QMUL[i, j, k] a_j b_k
_QMUL = np.zeros((4, 4, 4))
for _i, _j, _k, _s in ((0, 0, 0, 1), (0, 1, 1, -1), (0, 2, 2, -1), (0, 3, 3, -1),
                       (1, 0, 1, 1), (1, 1, 0, 1), (1, 2, 3, 1), (1, 3, 2, -1),
                       (2, 0, 2, 1), (2, 1, 3, -1), (2, 2, 0, 1), (2, 3, 1, 1),
                       (3, 0, 3, 1), (3, 1, 2, 1), (3, 2, 1, -1), (3, 3, 0, 1)):
    _QMUL[_i, _j, _k] = _s


def _rotation_tensor() -> np.ndarray:
    """(9, 16) with R(q).ravel() = _QROT @ (q outer q).ravel(): the rotation matrix of a unit
    quaternion is a quadratic form in it (polarization: B(p, q) = (R(p + q) - R(p - q)) / 4)."""
    def mat(q):
        w, x, y, z = q
        return np.array([[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]])
    e = np.eye(4)
    t = np.zeros((9, 4, 4))
    for a in range(4):
        for b in range(4):
            t[:, a, b] = ((mat(e[a] + e[b]) - mat(e[a] - e[b])) / 4).ravel()
    return t.reshape(9, 16)


_QROT = _rotation_tensor()


def qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.ndim == 1 and b.ndim == 1:
        return _QMUL.dot(b).dot(a)
    a, b = np.broadcast_arrays(a, b)
    return np.einsum("ijk,...j,...k->...i", _QMUL, a, b)


def qconj(q: np.ndarray) -> np.ndarray:
    q = np.array(q, float)
    q[..., 1:] *= -1.0
    return q


def qrot(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v (..., 3) by unit quaternions q (..., 4)."""
    q = np.asarray(q, float)
    v = np.asarray(v, float)
    qq = (q[..., :, None] * q[..., None, :]).reshape(q.shape[:-1] + (16,))
    m = (qq @ _QROT.T).reshape(q.shape[:-1] + (3, 3))
    return np.einsum("...ij,...j->...i", m, v)


def compose(p1, q1, p2, q2):
    """Pose (p1, q1) * (p2, q2)."""
    return np.asarray(p1, float) + qrot(q1, p2), qmul(q1, q2)


def relative(p_parent, q_parent, p_child, q_child):
    """Pose of the child in the parent's frame: inv(parent) * child."""
    qi = qconj(q_parent)
    return qrot(qi, np.asarray(p_child, float) - p_parent), qmul(qi, q_child)


def rpy_to_quat(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """URDF rpy (fixed axes X, then Y, then Z) -> quaternion."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    qx, qy, qz = (np.array([cr, sr, 0, 0]), np.array([cp, 0, sp, 0]), np.array([cy, 0, 0, sy]))
    return qmul(qz, qmul(qy, qx))


def quat_angle(q1, q2) -> np.ndarray:
    """Rotation angle between unit quaternions (radians, in [0, pi])."""
    a, b = np.asarray(q1, float), np.asarray(q2, float)
    sign = np.where(np.sum(a * b, axis=-1) < 0, -1.0, 1.0)[..., None]
    # 2 atan2(|a - b|, |a + b|): accurate for small angles, where arccos(dot) is not
    return 2.0 * np.arctan2(np.linalg.norm(a - sign * b, axis=-1),
                            np.linalg.norm(a + sign * b, axis=-1))


@njit(cache=True, nogil=True)
def _moving_poses(xpos, xquat, parent, child, off_pos, off_quat, pose):
    """pose[k] = (position, quaternion w,x,y,z) of inv(P) * C for P = (xpos, xquat)[parent[k]] *
    (off_pos, off_quat)[k] and C = (xpos, xquat)[child[k]]: the child's pose in its parent
    frame's coordinates."""
    for k in range(parent.shape[0]):
        b, c = parent[k], child[k]
        w, x, y, z = xquat[b, 0], xquat[b, 1], xquat[b, 2], xquat[b, 3]
        # parent frame = body pose composed with the offset (identity unless a link was fused)
        ox, oy, oz = off_pos[k, 0], off_pos[k, 1], off_pos[k, 2]
        px = xpos[b, 0] + (1 - 2 * (y * y + z * z)) * ox + 2 * (x * y - w * z) * oy \
            + 2 * (x * z + w * y) * oz
        py = xpos[b, 1] + 2 * (x * y + w * z) * ox + (1 - 2 * (x * x + z * z)) * oy \
            + 2 * (y * z - w * x) * oz
        pz = xpos[b, 2] + 2 * (x * z - w * y) * ox + 2 * (y * z + w * x) * oy \
            + (1 - 2 * (x * x + y * y)) * oz
        a0, a1, a2, a3 = off_quat[k, 0], off_quat[k, 1], off_quat[k, 2], off_quat[k, 3]
        qw = w * a0 - x * a1 - y * a2 - z * a3
        qx = w * a1 + x * a0 + y * a3 - z * a2
        qy = w * a2 - x * a3 + y * a0 + z * a1
        qz = w * a3 + x * a2 - y * a1 + z * a0
        # relative: rotate (child - parent) by the conjugate, quat = conj(parent) * child
        dx, dy, dz = xpos[c, 0] - px, xpos[c, 1] - py, xpos[c, 2] - pz
        w, x, y, z = qw, -qx, -qy, -qz
        pose[k, 0] = (1 - 2 * (y * y + z * z)) * dx + 2 * (x * y - w * z) * dy \
            + 2 * (x * z + w * y) * dz
        pose[k, 1] = 2 * (x * y + w * z) * dx + (1 - 2 * (x * x + z * z)) * dy \
            + 2 * (y * z - w * x) * dz
        pose[k, 2] = 2 * (x * z - w * y) * dx + 2 * (y * z + w * x) * dy \
            + (1 - 2 * (x * x + y * y)) * dz
        c0, c1, c2, c3 = xquat[c, 0], xquat[c, 1], xquat[c, 2], xquat[c, 3]
        pose[k, 3] = w * c0 - x * c1 - y * c2 - z * c3
        pose[k, 4] = w * c1 + x * c0 + y * c3 - z * c2
        pose[k, 5] = w * c2 - x * c3 + y * c0 + z * c1
        pose[k, 6] = w * c3 + x * c2 - y * c1 + z * c0


@njit(cache=True, nogil=True)
def moving_poses_into(xpos, xquat, parent, child, off_pos, off_quat, pose, f64, idx):
    """`_moving_poses` into `pose`, then f64[idx[k, j]] = pose[k, j]: the /tf message's slots
    in a serialized batch (cdr.RawBatch)."""
    _moving_poses(xpos, xquat, parent, child, off_pos, off_quat, pose)
    for k in range(idx.shape[0]):
        for j in range(7):
            f64[idx[k, j]] = pose[k, j]


# -- the frame table ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Transform:
    parent: str
    child: str
    pos: np.ndarray
    quat: np.ndarray


@dataclasses.dataclass
class FrameTable:
    world: str
    static: list[Transform]
    # moving bodies: child frame, parent frame, body id, parent's anchor body and offset from it
    moving_child: list[str]
    moving_parent: list[str]
    moving_body: np.ndarray
    parent_body: np.ndarray
    parent_off_pos: np.ndarray
    parent_off_quat: np.ndarray
    # every frame: name -> (body id it is fixed to, pose in that body's frame)
    anchors: dict[str, tuple[int, np.ndarray, np.ndarray]]
    notes: list[str]

    def names(self) -> list[str]:
        return list(self.anchors)

    def kernel_args(self) -> tuple:
        """(parent body, child body, parent offset position, offset quaternion) as the pose
        kernels take them."""
        n = len(self.moving_body)
        return (np.ascontiguousarray(self.parent_body, np.int64),
                np.ascontiguousarray(self.moving_body, np.int64),
                np.ascontiguousarray(self.parent_off_pos, float).reshape(n, 3),
                np.ascontiguousarray(self.parent_off_quat, float).reshape(n, 4))

    def moving_poses(self, xpos: np.ndarray, xquat: np.ndarray):
        """(pos, quat) of every moving frame in its parent's frame, from the engine's poses:
        inv(parent body pose * parent offset) * body pose (`relative` of `compose`, fused into
        one compiled loop)."""
        pose = np.empty((len(self.moving_body), 7))
        _moving_poses(np.ascontiguousarray(xpos, float), np.ascontiguousarray(xquat, float),
                      *self.kernel_args(), pose)
        return pose[:, :3], pose[:, 3:]

    def world_pose(self, name: str, xpos: np.ndarray, xquat: np.ndarray):
        """Pose of frame `name` in the world."""
        body, p, q = self.anchors[name]
        return compose(xpos[body], xquat[body], p, q)


def _name(names, i: int, prefix: str) -> str:
    n = names[i] if i < len(names) else None
    return n if n else f"{prefix}{i}"


def build(m, body_names, site_names=(), cam_names=(), world_frame: str = "world",
          fixed_camera_mode: int = 0, urdf_text: str | None = None) -> FrameTable:
    """The frame table of compiled model `m` (mjModel fields); names indexed by id."""
    nbody = int(m.nbody)
    names = [world_frame] + [_name(body_names, i, "body") for i in range(1, nbody)]
    anchors: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}
    notes: list[str] = []
    static: list[Transform] = []

    def add(name: str, body: int, p, q) -> bool:
        if name in anchors:
            notes.append(f"frame '{name}' appears twice (a site or camera named like another "
                         f"frame): only the first is published")
            return False
        anchors[name] = (body, np.asarray(p, float), np.asarray(q, float))
        return True

    for b in range(nbody):
        add(names[b], b, np.zeros(3), IDENTITY_Q)
    jntnum, mocapid, parent = m.body_jntnum, m.body_mocapid, m.body_parentid
    moving = [b for b in range(1, nbody) if int(jntnum[b]) > 0 or int(mocapid[b]) >= 0]
    moving_set = set(moving)
    for b in range(1, nbody):
        if b not in moving_set:
            static.append(Transform(names[int(parent[b])], names[b],
                                    np.array(m.body_pos[b], float), np.array(m.body_quat[b], float)))
    for s in range(int(m.nsite)):
        name = _name(site_names, s, "site")
        b = int(m.site_bodyid[s])
        if add(name, b, m.site_pos[s], m.site_quat[s]):
            static.append(Transform(names[b], name, np.array(m.site_pos[s], float),
                                    np.array(m.site_quat[s], float)))
    for c in range(int(m.ncam)):
        name = _name(cam_names, c, "camera")
        b = int(m.cam_bodyid[c])
        if int(m.cam_mode[c]) != fixed_camera_mode:
            notes.append(f"camera '{name}' tracks a target: tf shows its model pose in body "
                         f"'{names[b]}', not the tracking pose")
        if add(name, b, m.cam_pos[c], m.cam_quat[c]):
            static.append(Transform(names[b], name, np.array(m.cam_pos[c], float),
                                    np.array(m.cam_quat[c], float)))
            p, q = compose(m.cam_pos[c], m.cam_quat[c], np.zeros(3), OPTICAL_Q)
            if add(name + "_optical", b, p, q):
                static.append(Transform(name, name + "_optical", np.zeros(3), OPTICAL_Q))

    tf_parent = {b: (names[int(parent[b])], int(parent[b]), np.zeros(3), IDENTITY_Q)
                 for b in moving}
    if urdf_text:
        _fused_links(urdf_text, names, anchors, static, tf_parent, notes)

    n = len(moving)
    return FrameTable(
        world=world_frame, static=static,
        moving_child=[names[b] for b in moving],
        moving_parent=[tf_parent[b][0] for b in moving],
        moving_body=np.array(moving, dtype=int),
        parent_body=np.array([tf_parent[b][1] for b in moving], dtype=int),
        parent_off_pos=np.array([tf_parent[b][2] for b in moving], float).reshape(n, 3),
        parent_off_quat=np.array([tf_parent[b][3] for b in moving], float).reshape(n, 4),
        anchors=anchors, notes=notes)


def _origin(joint) -> tuple[np.ndarray, np.ndarray]:
    o = joint.find("origin")
    if o is None:
        return np.zeros(3), IDENTITY_Q
    xyz = [float(v) for v in (o.get("xyz") or "0 0 0").split()]
    rpy = [float(v) for v in (o.get("rpy") or "0 0 0").split()]
    return np.array(xyz, float), rpy_to_quat(*rpy)


def _fused_links(urdf_text, names, anchors, static, tf_parent, notes) -> None:
    """Frames for URDF links without a body (fused by the compiler), and URDF parents for moving
    bodies whose parent link was fused."""
    try:
        root = ET.fromstring(urdf_text.encode() if isinstance(urdf_text, str) else urdf_text)
    except ET.ParseError as e:  # the engine parsed it; this reader is only for frame names
        notes.append(f"URDF link frames not added: {e}")
        return
    if root.tag != "robot":
        return
    links = [ln.get("name") for ln in root.findall("link") if ln.get("name")]
    parent_of: dict[str, tuple[str, np.ndarray, np.ndarray]] = {}
    for j in root.findall("joint"):
        p, c = j.find("parent"), j.find("child")
        if p is None or c is None:
            continue
        pos, quat = _origin(j)
        parent_of[c.get("link")] = (p.get("link"), pos, quat)
    body_of = {n: b for b, n in enumerate(names)}
    body_of.setdefault("world", 0)
    resolved: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}

    def resolve(link: str, depth: int = 0):
        """(anchor body, pose in its frame) of a link: a body, or fused into an ancestor."""
        if link in body_of:
            return body_of[link], np.zeros(3), IDENTITY_Q
        if link in resolved:
            return resolved[link]
        if link not in parent_of or depth > len(links):  # a fused root link: the world's frame
            out = (0, np.zeros(3), IDENTITY_Q)
        else:
            plink, pos, quat = parent_of[link]
            b, p0, q0 = resolve(plink, depth + 1)
            p1, q1 = compose(p0, q0, pos, quat)
            out = (b, p1, q1)
        resolved[link] = out
        return out

    for link in links:
        if link in body_of or link in anchors:
            continue
        b, p, q = resolve(link)
        parent_link = parent_of.get(link, (None,))[0]
        if parent_link is None:
            parent_name, rel_p, rel_q = names[0], p, q
        else:
            pb, pp, pq = resolve(parent_link)
            parent_name = parent_link if parent_link not in body_of else names[body_of[parent_link]]
            rel_p, rel_q = relative(pp, pq, p, q)
        anchors[link] = (b, p, q)
        static.append(Transform(parent_name, link, rel_p, rel_q))
    for b, (pname, pb, _, _) in list(tf_parent.items()):
        link = names[b]
        if link not in parent_of:
            continue
        plink = parent_of[link][0]
        if plink in body_of or plink not in anchors:
            continue
        ab, ap, aq = anchors[plink]
        if ab == pb:  # the fused parent link rides on the body's model parent
            tf_parent[b] = (plink, pb, ap, aq)


def urdf_text_of(kind: str, value: str) -> str | None:
    """The URDF text of a model source ('file' path or 'xml' text), None if it is not a URDF."""
    text = value
    if kind == "file":
        try:
            with open(value, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return None
    # the root element decides, after the prolog's comments (which may mention <mujoco>)
    head = _COMMENT.sub("", text[:65536])
    root = _FIRST_TAG.search(head)
    return text if root is not None and root.group(1) == "robot" else None


_COMMENT = re.compile(r"<!--.*?-->", re.S)
_FIRST_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)")


def from_model(m, mj, world_frame: str = "world", urdf_text: str | None = None) -> FrameTable:
    """`build` with the names read from an engine (or mujoco-compatible) model."""
    o = mj.mjtObj

    def names(kind, n):
        return [mj.mj_id2name(m, kind, i) for i in range(int(n))]
    return build(m, names(o.mjOBJ_BODY, m.nbody), names(o.mjOBJ_SITE, m.nsite),
                 names(o.mjOBJ_CAMERA, m.ncam), world_frame,
                 int(mj.mjtCamLight.mjCAMLIGHT_FIXED), urdf_text)
