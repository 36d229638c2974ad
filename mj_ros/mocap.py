"""Mocap bodies driven by stamped poses: the YAML map, sample validation and timing.

Pure (no ROS, no engine import): the node feeds it from topics, the offline replay from a bag; both
call `MocapDriver.apply(t, ...)` before each step with the sim time the step starts at.

The map (config/mocap_example.yaml)::

    mode: interpolate        # or hold: between two stamped samples, slerp/lerp or keep the older
    timeout: 0.5             # sim seconds; a body whose newest sample is older is "stale": it
                             # holds its last pose and a warning says so. 0 = never stale.
    stamps: header           # or arrival: apply at the message's header stamp (the default), or at
                             # the sim time it arrives (live teleoperation without a shared clock)
    bodies:
      target:                # a mocap body of the model
        topic: /vicon/target/pose
        type: geometry_msgs/msg/PoseStamped     # or geometry_msgs/msg/TransformStamped
        frame: world         # the frame poses are expressed in: the world or a frame of the sim
        offset: {xyz: [0, 0, 0.05], rpy: [0, 0, 0]}   # body = source pose * offset (or quat_wxyz)
      hand_target:
        tf: operator/hand    # a child frame on /tf (parent must be `frame`)
        frame: world

Bad samples (NaN/Inf, a zero quaternion, a timestamp older than the newest one) are dropped with a
reason; a non-unit quaternion is normalised and applied, with a note.
"""
from __future__ import annotations

import bisect
import dataclasses
import math
import pathlib

import numpy as np

from mj_ros import frames as fr

POSE = "geometry_msgs/msg/PoseStamped"
TRANSFORM = "geometry_msgs/msg/TransformStamped"
TF = "tf2_msgs/msg/TFMessage"
TYPE_ALIASES = {"pose": POSE, "posestamped": POSE, "geometry_msgs/posestamped": POSE,
                "transform": TRANSFORM, "transformstamped": TRANSFORM,
                "geometry_msgs/transformstamped": TRANSFORM}
UNIT_TOL = 1e-6   # |norm - 1| above this: the quaternion is normalised and a note is made
KEEP = 4096       # samples kept behind the newest applied one (bounded memory live)


class MocapConfigError(ValueError):
    """The mocap map is invalid; str(e) is the one message to show."""


@dataclasses.dataclass
class Source:
    body: str
    body_id: int
    mocap_id: int
    kind: str            # POSE, TRANSFORM or TF
    topic: str
    child_frame: str     # TF only: the child_frame_id to pick
    frame: str           # the frame samples are expressed in (a sim frame name, unprefixed)
    offset_pos: np.ndarray
    offset_quat: np.ndarray


@dataclasses.dataclass
class MocapConfig:
    sources: list[Source]
    mode: str = "interpolate"
    timeout: float = 0.5
    stamps: str = "header"

    def topics(self) -> dict[str, str]:
        """topic -> message type of every topic the map reads."""
        return {s.topic: s.kind for s in self.sources}


def _vector(value, n: int, what: str) -> np.ndarray:
    try:
        v = np.array([float(x) for x in value], float)
    except (TypeError, ValueError):
        raise MocapConfigError(f"{what}: expected {n} numbers, got {value!r}") from None
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise MocapConfigError(f"{what}: expected {n} finite numbers, got {value!r}")
    return v


def _offset(spec, where: str) -> tuple[np.ndarray, np.ndarray]:
    if spec is None:
        return np.zeros(3), fr.IDENTITY_Q.copy()
    if not isinstance(spec, dict):
        raise MocapConfigError(f"{where}.offset: expected a mapping with xyz and rpy or quat_wxyz")
    unknown = set(spec) - {"xyz", "rpy", "quat_wxyz"}
    if unknown:
        raise MocapConfigError(f"{where}.offset: unknown keys {sorted(unknown)} "
                               "(xyz, rpy, quat_wxyz)")
    if "rpy" in spec and "quat_wxyz" in spec:
        raise MocapConfigError(f"{where}.offset: give rpy or quat_wxyz, not both")
    pos = _vector(spec.get("xyz", [0, 0, 0]), 3, f"{where}.offset.xyz")
    if "quat_wxyz" in spec:
        q = _vector(spec["quat_wxyz"], 4, f"{where}.offset.quat_wxyz")
        n = float(np.linalg.norm(q))
        if n < 1e-9:
            raise MocapConfigError(f"{where}.offset.quat_wxyz is zero")
        q = q / n
    else:
        q = fr.rpy_to_quat(*_vector(spec.get("rpy", [0, 0, 0]), 3, f"{where}.offset.rpy"))
    return pos, q


def parse_config(data, mocap_bodies: dict[str, tuple[int, int]], table: fr.FrameTable,
                 body_parentid, origin: str = "mocap map") -> MocapConfig:
    """Validate a loaded YAML map against the model.

    mocap_bodies: body name -> (body id, mocap id) of the model's mocap bodies; table: the sim's
    frames (a source frame must be one of them; a tf child frame must not be, or the node would
    read its own output); body_parentid: to reject a source frame that moves with its own body.
    """
    world = table.world
    if not isinstance(data, dict):
        raise MocapConfigError(f"{origin}: expected a mapping with 'bodies', got {type(data).__name__}")
    unknown = set(data) - {"mode", "timeout", "stamps", "bodies"}
    if unknown:
        raise MocapConfigError(f"{origin}: unknown keys {sorted(unknown)} "
                               "(mode, timeout, stamps, bodies)")
    mode = str(data.get("mode", "interpolate"))
    if mode not in ("interpolate", "hold"):
        raise MocapConfigError(f"{origin}: mode must be 'interpolate' or 'hold', got '{mode}'")
    stamps = str(data.get("stamps", "header"))
    if stamps not in ("header", "arrival"):
        raise MocapConfigError(f"{origin}: stamps must be 'header' or 'arrival', got '{stamps}'")
    try:
        timeout = float(data.get("timeout", 0.5))
    except (TypeError, ValueError):
        raise MocapConfigError(f"{origin}: timeout must be a number of seconds") from None
    if not timeout >= 0:
        raise MocapConfigError(f"{origin}: timeout must be >= 0")
    bodies = data.get("bodies")
    if not isinstance(bodies, dict) or not bodies:
        raise MocapConfigError(f"{origin}: 'bodies' must map mocap body names to sources")
    known = set(table.anchors)
    sources = []
    for body, spec in bodies.items():
        where = f"{origin}: bodies.{body}"
        if body not in mocap_bodies:
            have = ", ".join(sorted(mocap_bodies)) or "none"
            raise MocapConfigError(f"{where}: not a mocap body of the model (mocap bodies: {have})")
        if not isinstance(spec, dict):
            raise MocapConfigError(f"{where}: expected a mapping with topic or tf")
        unknown = set(spec) - {"topic", "type", "tf", "tf_topic", "frame", "offset"}
        if unknown:
            raise MocapConfigError(f"{where}: unknown keys {sorted(unknown)} "
                                   "(topic, type, tf, tf_topic, frame, offset)")
        if ("topic" in spec) == ("tf" in spec):
            raise MocapConfigError(f"{where}: give exactly one of 'topic' (PoseStamped or "
                                   "TransformStamped) and 'tf' (a child frame on /tf)")
        frame = str(spec.get("frame", world)).lstrip("/")
        if frame != world and frame not in known:
            raise MocapConfigError(
                f"{where}: source frame '{frame}' is neither the world ('{world}') nor a frame "
                "of the simulation (a body, site, camera or URDF link name)")
        if frame != world and _descends(table.anchors[frame][0], mocap_bodies[body][0],
                                        body_parentid):
            raise MocapConfigError(f"{where}: source frame '{frame}' moves with the body itself")
        pos, quat = _offset(spec.get("offset"), where)
        bid, mid = mocap_bodies[body]
        if "tf" in spec:
            child = str(spec["tf"]).lstrip("/")
            if not child:
                raise MocapConfigError(f"{where}: tf child frame is empty")
            if child in known:
                raise MocapConfigError(f"{where}: tf child frame '{child}' is published by the "
                                       "simulation itself")
            topic = str(spec.get("tf_topic", "/tf"))
            kind = TF
        else:
            topic = str(spec["topic"])
            raw = str(spec.get("type", POSE))
            kind = TYPE_ALIASES.get(raw.lower().replace("/msg/", "/"), raw)
            if kind not in (POSE, TRANSFORM):
                raise MocapConfigError(f"{where}: type '{raw}' is not {POSE} or {TRANSFORM}")
            child = ""
        if not topic.startswith("/"):
            topic = "/" + topic
        sources.append(Source(body, bid, mid, kind, topic, child, frame, pos, quat))
    kinds: dict[str, str] = {}
    for s in sources:
        if kinds.setdefault(s.topic, s.kind) != s.kind:
            raise MocapConfigError(f"{origin}: topic {s.topic} is used with two message types")
    return MocapConfig(sources, mode, timeout, stamps)


def _descends(b: int, ancestor: int, parentid) -> bool:
    while b > 0:
        if b == ancestor:
            return True
        b = int(parentid[b])
    return False


def load_config(path, mocap_bodies, table, body_parentid) -> MocapConfig:
    import yaml
    p = pathlib.Path(path)
    if not p.is_file():
        raise MocapConfigError(f"mocap map not found: {path}")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as e:
        raise MocapConfigError(f"mocap map {path} is not valid YAML: {e}") from None
    return parse_config(data, mocap_bodies, table, body_parentid, origin=str(path))


# -- samples -----------------------------------------------------------------------------------------
class Track:
    """Stamped poses of one source, in increasing time."""

    def __init__(self):
        self.t: list[float] = []
        self.p: list[tuple[float, float, float]] = []
        self.q: list[tuple[float, float, float, float]] = []
        self.accepted = 0
        self.dropped = 0
        self.normalized = 0

    def add(self, t: float, pos, quat) -> str | None:
        """Store a sample; returns why it was dropped or changed (None: stored as is)."""
        vals = [float(v) for v in pos] + [float(v) for v in quat]
        if not all(math.isfinite(v) for v in vals) or not math.isfinite(t):
            self.dropped += 1
            return "NaN or Inf in the pose or stamp: dropped"
        x, y, z, qw, qx, qy, qz = vals
        n = math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
        if n < 1e-9:
            self.dropped += 1
            return "zero quaternion: dropped"
        note = None
        if abs(n - 1.0) > UNIT_TOL:
            self.normalized += 1
            note = f"non-unit quaternion (norm {n:.6g}): normalised and applied"
        qw, qx, qy, qz = qw / n, qx / n, qy / n, qz / n
        if self.t and t < self.t[-1]:
            self.dropped += 1
            return (f"timestamp {t:.9f} is older than the previous sample's {self.t[-1]:.9f} "
                    "(out of order): dropped")
        if self.t and t == self.t[-1]:  # a repeated stamp: the newer sample wins
            self.p[-1], self.q[-1] = (x, y, z), (qw, qx, qy, qz)
        else:
            self.t.append(t)
            self.p.append((x, y, z))
            self.q.append((qw, qx, qy, qz))
        self.accepted += 1
        return note

    def trim(self, before: int) -> None:
        if before > KEEP:
            cut = before - KEEP
            del self.t[:cut], self.p[:cut], self.q[:cut]

    def at(self, t: float, interpolate: bool, max_gap: float):
        """(pos, quat, age) at time t: the last sample at or before t, interpolated towards the
        next one when `interpolate` and the two are at most `max_gap` apart (0 = any gap).
        None before the first sample."""
        # a sample stamped within rounding of t (stamps are integer nanoseconds, sim time a sum of
        # float timesteps) counts as reached
        i = bisect.bisect_right(self.t, t + 1e-9 + abs(t) * 1e-15) - 1
        if i < 0:
            return None
        t0, p0, q0 = self.t[i], self.p[i], self.q[i]
        out = (p0, q0, t - t0)
        if interpolate and i + 1 < len(self.t):
            t1 = self.t[i + 1]
            if max_gap <= 0 or t1 - t0 <= max_gap:
                s = min(1.0, max(0.0, (t - t0) / (t1 - t0)))
                out = _lerp(p0, self.p[i + 1], s), slerp(q0, self.q[i + 1], s), 0.0
        self.trim(i)
        return out


def _compose(p1, q1, p2, q2):
    """(p1, q1) * (p2, q2) on tuples: per step, plain floats beat numpy's per-call cost."""
    w, x, y, z = q1
    vx, vy, vz = p2
    # v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    r = (vx + w * tx + y * tz - z * ty, vy + w * ty + z * tx - x * tz,
         vz + w * tz + x * ty - y * tx)
    bw, bx, by, bz = q2
    q = (w * bw - x * bx - y * by - z * bz, w * bx + x * bw + y * bz - z * by,
         w * by - x * bz + y * bw + z * bx, w * bz + x * by - y * bx + z * bw)
    return (p1[0] + r[0], p1[1] + r[1], p1[2] + r[2]), q


def _lerp(a, b, s):
    return (a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2]))


def slerp(q0, q1, s: float):
    """Spherical interpolation of unit quaternions (w first) along the shorter arc:
    q0 * (q0^-1 q1)^s, with the half angle from atan2 (accurate for small angles too)."""
    aw, ax, ay, az = q0
    bw, bx, by, bz = q1
    # r = conj(q0) * q1
    rw = aw * bw + ax * bx + ay * by + az * bz
    rx = aw * bx - ax * bw - ay * bz + az * by
    ry = aw * by + ax * bz - ay * bw - az * bx
    rz = aw * bz - ax * by + ay * bx - az * bw
    if rw < 0.0:  # the shorter arc
        rw, rx, ry, rz = -rw, -rx, -ry, -rz
    vn = math.sqrt(rx * rx + ry * ry + rz * rz)
    if vn < 1e-300:
        return tuple(q0)
    half = math.atan2(vn, rw) * s
    k = math.sin(half) / vn
    cw, cx, cy, cz = math.cos(half), rx * k, ry * k, rz * k
    q = (aw * cw - ax * cx - ay * cy - az * cz, aw * cx + ax * cw + ay * cz - az * cy,
         aw * cy - ax * cz + ay * cw + az * cx, aw * cz + ax * cy - ay * cx + az * cw)
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


class MocapDriver:
    """Holds one Track per mocap source and writes mocap_pos/mocap_quat."""

    def __init__(self, config: MocapConfig, table: fr.FrameTable, warn=None):
        self.config = config
        self.table = table
        self.tracks = [Track() for _ in config.sources]
        self.by_topic: dict[str, list[int]] = {}
        for i, s in enumerate(config.sources):
            self.by_topic.setdefault(s.topic, []).append(i)
        self._warn = warn or (lambda key, text: None)
        self.stale = [False] * len(config.sources)
        self.stale_events = 0
        self.applied_steps = 0
        self._static_frame = [s.frame == table.world or s.frame not in table.anchors
                              for s in config.sources]
        identity = [(np.all(s.offset_pos == 0) and np.all(s.offset_quat == fr.IDENTITY_Q))
                    for s in config.sources]
        self._offset = [None if same else (tuple(map(float, s.offset_pos)),
                                           tuple(map(float, s.offset_quat)))
                        for s, same in zip(config.sources, identity)]

    # feeding ------------------------------------------------------------------------------------
    def add(self, index: int, t: float, frame_id: str, pos, quat) -> bool:
        """Add one sample for source `index` (already picked from its message); True if kept."""
        s = self.config.sources[index]
        frame = (frame_id or "").lstrip("/")
        if frame and frame != s.frame:
            self.tracks[index].dropped += 1
            self._warn(f"frame:{s.body}", f"mocap {s.body}: a sample in frame '{frame}' on "
                                          f"{s.topic}, expected '{s.frame}': dropped")
            return False
        note = self.tracks[index].add(t, pos, quat)
        if note:
            self._warn(f"sample:{s.body}:{note[:12]}", f"mocap {s.body} ({s.topic}): {note}")
        return note is None or "applied" in note

    def add_tf(self, transforms, stamp_of, frame_prefix: str = "") -> int:
        """Pick the configured child frames out of a list of TransformStamped-like objects."""
        n = 0
        for tr in transforms:
            child = tr.child_frame_id.lstrip("/")
            if frame_prefix and child.startswith(frame_prefix):
                child = child[len(frame_prefix):]
            for i, s in enumerate(self.config.sources):
                if s.kind == TF and s.child_frame == child:
                    v, r = tr.transform.translation, tr.transform.rotation
                    n += self.add(i, stamp_of(tr), _unprefix(tr.header.frame_id, frame_prefix),
                                  (v.x, v.y, v.z), (r.w, r.x, r.y, r.z))
        return n

    # applying -----------------------------------------------------------------------------------
    def apply(self, t: float, mocap_pos: np.ndarray, mocap_quat: np.ndarray, xpos=None,
              xquat=None) -> None:
        """Set every driven mocap body for sim time t (xpos/xquat: the current body poses, needed
        when a source frame is a sim frame)."""
        cfg = self.config
        interpolate = cfg.mode == "interpolate"
        for i, s in enumerate(cfg.sources):
            got = self.tracks[i].at(t, interpolate, cfg.timeout)
            if got is None:
                continue
            p, q, age = got
            stale = cfg.timeout > 0 and age > cfg.timeout
            if stale and not self.stale[i]:
                self.stale_events += 1
                self._warn(f"stale:{s.body}", f"mocap {s.body}: no sample on {s.topic} for "
                                              f"{age:.3f} s of sim time (timeout {cfg.timeout:g} s):"
                                              " holding the last pose")
            self.stale[i] = stale
            if self._offset[i] is not None:
                p, q = _compose(p, q, *self._offset[i])
            if not self._static_frame[i]:
                fp, fq = self.table.world_pose(s.frame, xpos, xquat)
                p, q = _compose(tuple(fp), tuple(fq), p, q)
            mocap_pos[s.mocap_id] = p
            mocap_quat[s.mocap_id] = q
        self.applied_steps += 1

    def counts(self) -> dict[str, dict[str, int]]:
        return {s.body: {"accepted": tr.accepted, "dropped": tr.dropped,
                         "normalized": tr.normalized}
                for s, tr in zip(self.config.sources, self.tracks)}


def _unprefix(frame: str, prefix: str) -> str:
    frame = (frame or "").lstrip("/")
    if prefix and frame.startswith(prefix):
        return frame[len(prefix):]
    return frame


def mocap_bodies(m, body_names) -> dict[str, tuple[int, int]]:
    """name -> (body id, mocap id) of the model's mocap bodies."""
    out = {}
    for b in range(int(m.nbody)):
        mid = int(m.body_mocapid[b])
        if mid >= 0:
            out[body_names[b] if body_names[b] else f"body{b}"] = (b, mid)
    return out


class WeldTracker:
    """How far bodies welded to mocap bodies are from where their weld wants them.

    MuJoCo's weld (eq_data = anchor[3], relpose pos[3] quat[4], torquescale): the point `anchor`
    of body2 should be at body1's pose * relpose pos, and body2's orientation should be body1's *
    relpose quat. A zero relpose quaternion means "the relative pose at qpos0" (computed here from
    the poses at reset, as MuJoCo's compiler does).
    """

    def __init__(self, m, weld_type: int, body_objtype: int, body_names, xpos0, xquat0):
        self.welds = []  # (name, body1, body2, anchor, relpos, relquat)
        self.notes: list[str] = []
        for e in range(int(m.neq)):
            if int(m.eq_type[e]) != weld_type:
                continue
            b1, b2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            if int(m.eq_objtype[e]) != body_objtype:
                self.notes.append(f"weld {e} joins sites: its tracking error is not measured")
                continue
            if (int(m.body_mocapid[b1]) >= 0) == (int(m.body_mocapid[b2]) >= 0):
                continue
            data = np.asarray(m.eq_data[e], float)
            anchor, relpos, relquat = data[0:3], data[3:6], data[6:10]
            if not np.any(relquat):
                a = fr.qrot(xquat0[b2], anchor) + xpos0[b2]
                relpos, relquat = fr.relative(xpos0[b1], xquat0[b1], a, xquat0[b2])
            relquat = relquat / np.linalg.norm(relquat)
            name = f"{body_names[b2] or b2} to {body_names[b1] or b1}"
            self.welds.append((name, b1, b2, anchor.copy(), np.array(relpos), np.array(relquat)))
        self.max_pos = [0.0] * len(self.welds)
        self.max_angle = [0.0] * len(self.welds)
        self._sum_sq = [0.0] * len(self.welds)
        self.samples = 0

    def measure(self, xpos, xquat) -> None:
        for k, (_, b1, b2, anchor, relpos, relquat) in enumerate(self.welds):
            want_p, want_q = fr.compose(xpos[b1], xquat[b1], relpos, relquat)
            have_p = fr.qrot(xquat[b2], anchor) + xpos[b2]
            dp = float(np.linalg.norm(want_p - have_p))
            da = float(fr.quat_angle(want_q, xquat[b2]))
            self.max_pos[k] = max(self.max_pos[k], dp)
            self.max_angle[k] = max(self.max_angle[k], da)
            self._sum_sq[k] += dp * dp
        self.samples += 1

    def summary(self) -> list[dict]:
        """Per weld: errors over the measured samples (None when nothing was measured)."""
        n = self.samples
        return [{"weld": w[0], "samples": n,
                 "max_position_error_m": self.max_pos[k] if n else None,
                 "rms_position_error_m": math.sqrt(self._sum_sq[k] / n) if n else None,
                 "max_angle_error_rad": self.max_angle[k] if n else None}
                for k, w in enumerate(self.welds)]
