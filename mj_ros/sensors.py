"""Group a model's sensors into the ROS streams the node publishes.

Pure: reads only model arrays, imports neither ROS nor the engine, so it is unit-testable with
plain arrays. Rules (issue 5):

* IMU (sensor_msgs/Imu): a `framequat`, `gyro` and `accelerometer` on one site. Sensors are grouped
  first by the name convention `<name>_quat` / `<name>_gyro` / `<name>_accel` (the group is called
  `<name>`), then what is left by the site they are attached to (the group is called after the site).
  A group needs a gyro or an accelerometer; a missing part is marked per REP 145 (covariance[0] = -1).
* Wrench (geometry_msgs/WrenchStamped): a `force` and a `torque` on one site, grouped the same way by
  `<name>_force` / `<name>_torque`, then by site. Both parts are required.
* Every other sensor (touch, joint, frame, ... and left-over parts) is published on a topic of its
  own: dim 3 as geometry_msgs/Vector3Stamped, framequat as geometry_msgs/QuaternionStamped,
  anything else as std_msgs/Float64MultiArray (whose data is the sensor's `dim` values).

Covariances come from the sensors' `noise` (a standard deviation): variance = noise**2 on the
diagonal, 0 where the noise is 0 (covariance unknown, REP 145).
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

    @classmethod
    def from_module(cls, mj) -> "SensorKinds":
        s, o = mj.mjtSensor, mj.mjtObj
        return cls(framequat=int(s.mjSENS_FRAMEQUAT), gyro=int(s.mjSENS_GYRO),
                   accelerometer=int(s.mjSENS_ACCELEROMETER), force=int(s.mjSENS_FORCE),
                   torque=int(s.mjSENS_TORQUE), site=int(o.mjOBJ_SITE))


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
    """A sensor published alone. kind is 'vector3', 'quaternion' or 'array'."""

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
        if s.type == kinds.framequat and s.dim == 4:
            kind = "quaternion"
        elif s.dim == 3:
            kind = "vector3"
        else:
            kind = "array"
        others.append(OtherSensor(s.name, s.objname, kind, s))
    return SensorLayout(tuple(imus), tuple(wrenches), tuple(others))


def sensors_from_model(m, mj) -> list[Sensor]:
    """Read the sensor table of a compiled model (mjModel field names). Unnamed sensors get
    `sensor<i>`."""
    out = []
    for i in range(int(m.nsensor)):
        name = mj.mj_id2name(m, mj.mjtObj.mjOBJ_SENSOR, i) or f"sensor{i}"
        objtype, objid = int(m.sensor_objtype[i]), int(m.sensor_objid[i])
        objname = ""
        if objid >= 0:
            try:
                objname = mj.mj_id2name(m, objtype, objid) or ""
            except Exception:  # an object type without names (e.g. none)
                objname = ""
        out.append(Sensor(name=name, type=int(m.sensor_type[i]), adr=int(m.sensor_adr[i]),
                          dim=int(m.sensor_dim[i]), noise=float(m.sensor_noise[i]),
                          objtype=objtype, objname=objname))
    return out


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
