"""Group a model's sensors into the ROS streams the node publishes, with the frame each one's
numbers are expressed in.

Pure: reads only model arrays, imports neither ROS nor the engine, so it is unit-testable with
plain arrays. Rules (issue 5):

* IMU (sensor_msgs/Imu): a `framequat`, `gyro` and `accelerometer` on one site. Sensors are grouped
  first by the name convention `<name>_quat` / `<name>_gyro` / `<name>_accel` (the group is called
  `<name>`), then what is left by the site they are attached to (the group is called after the site).
  A group needs a gyro or an accelerometer; a missing part is marked per REP 145 (covariance[0] = -1).
* Wrench (geometry_msgs/WrenchStamped): a `force` and a `torque` on one site, grouped the same way by
  `<name>_force` / `<name>_torque`, then by site. Both parts are required.
* Every other sensor is published on a topic of its own, stamped (`OtherSensor.kind`):
  framepos and subtreecom: geometry_msgs/PointStamped ('point'); framequat and ballquat:
  geometry_msgs/QuaternionStamped ('quaternion'); any other 3-vector:
  geometry_msgs/Vector3Stamped ('vector3'); rangefinder: sensor_msgs/Range ('range');
  everything else (touch, joint, tendon, actuator scalars, ...): control_msgs/DynamicJointState
  ('values'), the message ros2_control's joint_state_broadcaster uses for named values (a
  sensor's state interfaces included): one entry named after the sensor, interface names
  `<type>` (dim 1) or `<type>.<i>`.

Frames (`frame_of`; seed 000 sensor/frame*): frame sensors (framepos, framequat, frame?axis,
framelinvel, frameangvel) are in the world frame unless reftype/refname give a reference frame,
whose name is then the frame_id; framelinacc, frameangacc and the subtree sensors are always in
the world frame; the site sensors (touch, accelerometer, velocimeter, gyro, force, torque,
magnetometer, rangefinder) are in their site's frame; joint, tendon, actuator and other
non-spatial sensors have no frame ('').
A reference `body` (MuJoCo: the body's inertial frame) is named by the body's frame, which tf
publishes at the body origin: the two differ by the body's inertial offset.

Force/torque convention (seed 000 sensor/force, tested in test/ros/test_sensors.py against a
hanging mass): the interaction force and torque between the site's body (the child) and its
parent, in the site's frame; the site sits on the child and the force points from the child to
the parent: a mass m hanging below the sensor reads +m g along the site's up axis (the pull the
parent exerts on the child to hold it), torque about the site's origin.

Covariances come from the sensors' `noise` (a standard deviation): variance = noise**2 on the
diagonal, 0 where the noise is 0 (covariance unknown, REP 145). With `sensor_noise` the node adds
zero-mean Gaussian noise of that standard deviation to what it publishes (mj_ros/outputs.py).
"""
from __future__ import annotations

import dataclasses
from typing import Sequence


@dataclasses.dataclass(frozen=True)
class SensorKinds:
    """The integer values of the mjtSensor / mjtObj enums this module needs."""

    framequat: int
    gyro: int
    accelerometer: int
    force: int
    torque: int
    site: int
    types: dict = dataclasses.field(default_factory=dict)  # every mjtSensor: 'framepos' -> int

    @classmethod
    def from_module(cls, mj) -> "SensorKinds":
        s, o = mj.mjtSensor, mj.mjtObj
        types = {k[len("mjSENS_"):].lower(): int(v) for k, v in s.__members__.items()}
        return cls(framequat=int(s.mjSENS_FRAMEQUAT), gyro=int(s.mjSENS_GYRO),
                   accelerometer=int(s.mjSENS_ACCELEROMETER), force=int(s.mjSENS_FORCE),
                   torque=int(s.mjSENS_TORQUE), site=int(o.mjOBJ_SITE), types=types)

    def name(self, sensor_type: int) -> str:
        """'framepos' for mjSENS_FRAMEPOS; 'sensor' if unknown."""
        found = next((k for k, v in self.types.items() if v == sensor_type), None)
        if found is not None:
            return found
        named = {self.framequat: "framequat", self.gyro: "gyro",
                 self.accelerometer: "accelerometer", self.force: "force", self.torque: "torque"}
        return named.get(sensor_type, "sensor")


@dataclasses.dataclass(frozen=True)
class Sensor:
    """One MJCF sensor: where its values are in `sensordata` and what it is attached to."""

    name: str
    type: int
    adr: int
    dim: int
    noise: float
    objtype: int
    objname: str  # the name of the object it is attached to ('' if none or unnamed)
    refname: str = ""   # its reference frame object (frame sensors' reftype/refname)
    cutoff: float = 0.0  # sensor_cutoff (rangefinder: the maximum range, 0 = none)

    @property
    def variance(self) -> float:
        return float(self.noise) ** 2


@dataclasses.dataclass(frozen=True)
class ImuGroup:
    name: str
    frame: str
    quat: Sensor | None
    gyro: Sensor | None
    accel: Sensor | None


@dataclasses.dataclass(frozen=True)
class WrenchGroup:
    name: str
    frame: str
    force: Sensor
    torque: Sensor


@dataclasses.dataclass(frozen=True)
class OtherSensor:
    """A sensor published alone. kind: 'point', 'vector3', 'quaternion', 'range' or 'values';
    frame: the frame its numbers are in ('' for none, `world` for the world frame)."""

    name: str
    frame: str
    kind: str
    sensor: Sensor


@dataclasses.dataclass(frozen=True)
class SensorLayout:
    imus: tuple[ImuGroup, ...]
    wrenches: tuple[WrenchGroup, ...]
    others: tuple[OtherSensor, ...]


_IMU_SUFFIX = {"_quat": "quat", "_gyro": "gyro", "_accel": "accel"}
_WRENCH_SUFFIX = {"_force": "force", "_torque": "torque"}


def _role(sensor: Sensor, kinds: SensorKinds) -> str | None:
    if sensor.type == kinds.framequat and sensor.objtype == kinds.site:
        return "quat"
    return {kinds.gyro: "gyro", kinds.accelerometer: "accel", kinds.force: "force",
            kinds.torque: "torque"}.get(sensor.type)


def _group(sensors: list[Sensor], kinds: SensorKinds, suffixes: dict[str, str],
           roles: set[str]) -> tuple[dict[str, dict[str, Sensor]], dict[str, str]]:
    """Group sensors with a role in `roles`: by name convention, then by site.

    Returns ({group name: {role: sensor}}, {group name: frame}). A sensor used by a group is not
    offered to a later one; a group never takes two sensors of one role.
    """
    groups: dict[str, dict[str, Sensor]] = {}
    frames: dict[str, str] = {}
    used: set[str] = set()
    for s in sensors:  # 1. the <name>_<suffix> convention (all parts on one site)
        role = _role(s, kinds)
        if role not in roles:
            continue
        for suffix, want in suffixes.items():
            if role == want and s.name.endswith(suffix) and len(s.name) > len(suffix):
                base = s.name[: -len(suffix)]
                group = groups.setdefault(base, {})
                if role in group or (base in frames and frames[base] != s.objname):
                    break
                group[role] = s
                frames[base] = s.objname
                used.add(s.name)
                break
    for s in sensors:  # 2. what is left, by the site it sits on
        role = _role(s, kinds)
        if role not in roles or s.name in used or not s.objname:
            continue
        base = s.objname
        if frames.get(base, base) != base:  # a convention group of that name sits elsewhere
            continue
        group = groups.setdefault(base, {})
        if role in group:
            continue
        group[role] = s
        frames[base] = s.objname
        used.add(s.name)
    return groups, frames


def group_sensors(sensors: Sequence[Sensor], kinds: SensorKinds) -> SensorLayout:
    """Split `sensors` (in model order) into IMU groups, wrench groups and single sensors."""
    sensors = list(sensors)
    imu_groups, imu_frames = _group(sensors, kinds, _IMU_SUFFIX, {"quat", "gyro", "accel"})
    imus, claimed = [], set()
    for name, parts in imu_groups.items():
        if "gyro" in parts or "accel" in parts:
            imus.append(ImuGroup(name, imu_frames[name], parts.get("quat"), parts.get("gyro"),
                                 parts.get("accel")))
            claimed.update(s.name for s in parts.values())
    wrench_groups, wrench_frames = _group(sensors, kinds, _WRENCH_SUFFIX, {"force", "torque"})
    wrenches = []
    for name, parts in wrench_groups.items():
        if "force" in parts and "torque" in parts:
            wrenches.append(WrenchGroup(name, wrench_frames[name], parts["force"], parts["torque"]))
            claimed.update(s.name for s in parts.values())
    others = []
    for s in sensors:
        if s.name in claimed:
            continue
        others.append(OtherSensor(s.name, frame_of(s, kinds, WORLD), message_kind(s, kinds), s))
    return SensorLayout(tuple(imus), tuple(wrenches), tuple(others))


WORLD = "world"   # stands for the world frame in OtherSensor.frame (the node's world_frame)
_WORLD_OR_REF = {"framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis",
                 "framelinvel", "frameangvel"}
_WORLD_ONLY = {"framelinacc", "frameangacc", "subtreecom", "subtreelinvel", "subtreeangmom"}
_SITE_FRAME = {"touch", "accelerometer", "velocimeter", "gyro", "force", "torque",
               "magnetometer", "rangefinder"}


def frame_of(s: Sensor, kinds: SensorKinds, world: str = WORLD) -> str:
    """The frame sensor `s`'s numbers are expressed in (module docstring): `world`, a reference
    frame's name, its site's name, or '' (no spatial frame)."""
    name = kinds.name(s.type)
    if name in _WORLD_OR_REF:
        return s.refname or world
    if name in _WORLD_ONLY:
        return world
    if name in _SITE_FRAME:
        return s.objname
    return ""


def message_kind(s: Sensor, kinds: SensorKinds) -> str:
    name = kinds.name(s.type)
    if name in ("framepos", "subtreecom"):
        return "point"
    if name in ("framequat", "ballquat") and s.dim == 4:
        return "quaternion"
    if name == "rangefinder" and s.dim == 1:
        return "range"
    return "vector3" if s.dim == 3 else "values"


def interface_names(s: Sensor, kinds: SensorKinds) -> list[str]:
    """DynamicJointState interface names of a 'values' sensor: its type, `<type>.<i>` if dim > 1."""
    t = kinds.name(s.type)
    return [t] if s.dim == 1 else [f"{t}.{i}" for i in range(s.dim)]


def sensors_from_model(m, mj) -> list[Sensor]:
    """Read the sensor table of a compiled model (mjModel field names). Unnamed sensors get
    `sensor<i>`."""
    out = []
    for i in range(int(m.nsensor)):
        name = mj.mj_id2name(m, mj.mjtObj.mjOBJ_SENSOR, i) or f"sensor{i}"
        objtype, objid = int(m.sensor_objtype[i]), int(m.sensor_objid[i])
        reftype, refid = int(m.sensor_reftype[i]), int(m.sensor_refid[i])
        out.append(Sensor(name=name, type=int(m.sensor_type[i]), adr=int(m.sensor_adr[i]),
                          dim=int(m.sensor_dim[i]), noise=float(m.sensor_noise[i]),
                          objtype=objtype, objname=_object_name(m, mj, objtype, objid),
                          refname=_object_name(m, mj, reftype, refid),
                          cutoff=float(m.sensor_cutoff[i])))
    return out


def _object_name(m, mj, objtype: int, objid: int) -> str:
    """The name of an object as tf names its frame ('' if none or unnamed: a body's tf frame
    is `body<i>` then, mj_ros/frames.py)."""
    if objid < 0:
        return ""
    try:
        name = mj.mj_id2name(m, objtype, objid) or ""
    except Exception:  # an object type without names (e.g. none)
        return ""
    if not name and objtype in (int(mj.mjtObj.mjOBJ_BODY), int(mj.mjtObj.mjOBJ_XBODY)):
        return "world" if objid == 0 else f"body{objid}"
    return name


def layout_from_model(m, mj) -> SensorLayout:
    return group_sensors(sensors_from_model(m, mj), SensorKinds.from_module(mj))


def covariance(variances: Sequence[float]) -> list[float]:
    """Row-major 3x3 covariance with the given diagonal."""
    v = [float(x) for x in variances]
    return [v[0], 0.0, 0.0, 0.0, v[1], 0.0, 0.0, 0.0, v[2]]


def imu_covariances(group: ImuGroup) -> tuple[list[float], list[float], list[float]]:
    """(orientation, angular velocity, linear acceleration) covariances; [-1, 0...] marks a part
    the group does not have (REP 145)."""
    def one(s: Sensor | None) -> list[float]:
        if s is None:
            return [-1.0] + [0.0] * 8
        return covariance([s.variance] * 3)
    return one(group.quat), one(group.gyro), one(group.accel)
