"""mj-ros-replay: drive mocap bodies from a rosbag2, offline and as fast as possible.

    mj-ros-replay BAG --model M --map MAP.yaml [--out OUT] [--rate HZ] [--disable contact ...]

Reads the map's topics from BAG (sqlite3 or mcap), steps the engine from the bag's first time to its
last, sets the mocap bodies before every step at the sim time the step starts (hold or interpolate,
see mj_ros/mocap.py), and writes /joint_states, /tf, /tf_static and the sensor streams stamped in
the bag's time to OUT (mcap by default), plus a summary: duration, messages applied and dropped,
tracking error of bodies welded to mocap bodies. No ROS process is needed; the result depends only
on the inputs (deterministic).

Exit codes: 0 done, 2 bad input (model, map, bag), 3 the engine cannot simulate the model yet.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from mj_ros import bag as bags
from mj_ros import commands as cmds
from mj_ros import engine_api, model_io, sensors
from mj_ros import frames as fr
from mj_ros import mocap as mc
from mj_ros.topics import topic_name

DEFAULT_RATE = 100.0


class Progress:
    """Progress of a replay on stderr: bag time done of the total, wall time elapsed and an
    estimate of the time left. Silent for replays done within `after` s of wall time; then a
    line redrawn in place on a terminal, else one line every `every` s (logs, CI)."""

    def __init__(self, total_s: float, stream=None, after: float = 2.0, every: float = 5.0):
        self.total = float(total_s)
        self.stream = sys.stderr if stream is None else stream
        self.tty = self.stream.isatty()
        self.t0 = time.perf_counter()
        self.after, self.every = after, (0.5 if self.tty else every)
        self.next = self.t0 + after
        self.drawn = False

    def update(self, done_s: float) -> None:
        """Called often (every few hundred steps): draws only when a line is due."""
        now = time.perf_counter()
        if now < self.next:
            return
        self.next = now + self.every
        self.draw(done_s, now)

    def draw(self, done_s: float, now: float | None = None, end: bool = False) -> None:
        now = time.perf_counter() if now is None else now
        elapsed = now - self.t0
        frac = min(1.0, done_s / self.total) if self.total > 0 else 1.0
        left = "" if end or frac <= 0 else f", about {_mmss(elapsed * (1 - frac) / frac)} left"
        line = (f"mj-ros-replay: {done_s:.1f} of {self.total:.1f} s of bag time "
                f"({100 * frac:.0f}%), {_mmss(elapsed)} elapsed{left}")
        self.stream.write(("\r" + line + ("\n" if end else "")) if self.tty else line + "\n")
        self.stream.flush()
        self.drawn = True

    def finish(self, done_s: float) -> None:
        if self.drawn:  # only replays that showed progress say they ended
            self.draw(done_s, end=True)


def _mmss(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class ReplayError(RuntimeError):
    """Bad input; str(e) is the one message to show."""

    code = 2


class Replay:
    """One replay run (construct, then `run()`); the CLI is a thin wrapper."""

    def __init__(self, bag_path, model, map_path, out=None, rate=DEFAULT_RATE, storage="mcap",
                 disable=(), timestep=0.0, world_frame="world", frame_prefix="", log=None,
                 mj=None, progress=False):
        if mj is None:
            import engine as mj
        self.mj = mj
        self.log = log or (lambda text: sys.stderr.write(text + "\n"))
        if hasattr(model, "nbody"):  # an already compiled model (Python use, benchmarks)
            source, m = model_io.ModelSource("xml", "", "compiled model"), model
        else:
            source = model_io.choose_source(model, "") if model else model_io.ModelSource(
                "file", str(model_io.default_model_path()), "default robot")
            m = model_io.load(source, mj).model
        self.model = m
        if timestep > 0:
            m.opt.timestep = timestep
        try:
            m.opt.disableflags = int(m.opt.disableflags) | engine_api.disable_mask(mj, disable)
        except ValueError as e:
            raise ReplayError(str(e)) from None
        self.data = d = mj.MjData(m)
        self.dt = float(m.opt.timestep)
        self.prefix = frame_prefix
        self.table = fr.from_model(m, mj, world_frame, fr.urdf_text_of(source.kind, source.value))
        for note in self.table.notes:
            self.log(f"mj-ros-replay: note: {note}")
        body_names = [mj.mj_id2name(m, mj.mjtObj.mjOBJ_BODY, i) for i in range(m.nbody)]
        try:
            self.config = mc.load_config(map_path, mc.mocap_bodies(m, body_names), self.table,
                                         m.body_parentid)
        except mc.MocapConfigError as e:
            raise ReplayError(str(e)) from None
        self._warned: dict[str, int] = {}
        self.driver = mc.MocapDriver(self.config, self.table, self._note)
        self.bag_path, self.out_path, self.storage = bag_path, out, storage
        self.rate = float(rate)
        self.show_progress = progress

        # initial state as the node starts: the 'home' keyframe if any, position actuators holding
        k = mj.mj_name2id(m, mj.mjtObj.mjOBJ_KEY, "home") if m.nkey else -1
        if k >= 0:
            mj.mj_resetDataKeyframe(m, d, k)
        else:
            mj.mj_resetData(m, d)
        self.step = mj.mj_step
        self.kinematics = mj.mj_kinematics
        self.kinematics(m, d)
        self.cmap = cmds.CommandMap.from_model(m, mj)
        hold = self.cmap.hold_targets(d.qpos)
        d.ctrl[hold.ctrl_idx] = hold.ctrl_val
        self.welds = mc.WeldTracker(m, int(mj.mjtEq.mjEQ_WELD), int(mj.mjtObj.mjOBJ_BODY),
                                    body_names, np.array(d.xpos), np.array(d.xquat))
        for note in self.welds.notes:
            self.log(f"mj-ros-replay: note: {note}")
        self.layout = sensors.layout_from_model(m, mj)
        self._kinds = sensors.SensorKinds.from_module(mj)
        joints = list(self.cmap.joints.values())
        self._js_names = [j.name for j in joints]
        self._js_q = np.array([j.qposadr for j in joints], dtype=int)
        self._js_v = np.array([j.dofadr for j in joints], dtype=int)

    def _note(self, key: str, text: str) -> None:
        n = self._warned.get(key, 0)
        self._warned[key] = n + 1
        if n < 3:
            self.log("mj-ros-replay: " + text + (" (further ones are counted in the summary)"
                                                 if n == 2 else ""))

    # -- the run --------------------------------------------------------------------------------
    def run(self) -> dict:
        wall0 = time.perf_counter()
        try:
            report = bags.read_samples(self.bag_path, self.config, self.prefix)
        except bags.BagError as e:
            raise ReplayError(str(e)) from None
        for note in report.notes:
            self.log(f"mj-ros-replay: {note}")
        first = report.first_sample_ns()
        if first is None:
            raise ReplayError(f"no usable mocap sample in {self.bag_path}: "
                              + ("; ".join(report.notes) or "the map's topics are empty"))
        t0_ns = min(report.start_ns, first)
        end_ns = max(report.end_ns, max(s[0] for s in report.samples))
        # samples in stamp order per source; the bag's order decides what is "out of order"
        kept = 0
        for t_ns, i, frame, pos, quat in report.samples:
            kept += self.driver.add(i, (t_ns - t0_ns) * 1e-9, frame, pos, quat)
        nsteps = int(np.floor((end_ns - t0_ns) * 1e-9 / self.dt + 1e-9))
        every = 1 if self.rate <= 0 else max(1, int(round(1.0 / (self.rate * self.dt))))
        out = self._open_out()
        m, d = self.model, self.data
        read_s = time.perf_counter() - wall0
        error = None
        step = 0
        sim0 = time.perf_counter()
        progress = Progress(nsteps * self.dt) if self.show_progress else None
        try:
            self.driver.apply(0.0, d.mocap_pos, d.mocap_quat, d.xpos, d.xquat)
            self.kinematics(m, d)
            self._output(out, t0_ns, 0, static=True)
            for step in range(1, nsteps + 1):
                self.step(m, d)
                t = step * self.dt
                self.driver.apply(t, d.mocap_pos, d.mocap_quat, d.xpos, d.xquat)
                if step % every == 0 or step == nsteps:
                    self.kinematics(m, d)  # poses of the state at t (mj_step leaves t - dt's)
                    self.welds.measure(d.xpos, d.xquat)
                    self._output(out, t0_ns, t)
                if progress is not None and step % 256 == 0:
                    progress.update(t)
            if progress is not None:
                progress.finish(nsteps * self.dt)
        except NotImplementedError as e:
            error = (f"the engine cannot simulate this model yet (the step from sim time "
                     f"{max(0, step - 1) * self.dt:.6f} s): {e}")
        finally:
            if out is not None:
                out.close()
        sim_s = time.perf_counter() - sim0
        summary = {
            "bag": str(self.bag_path), "output": str(self.out_path) if out is not None else None,
            "duration_s": nsteps * self.dt, "steps": step if error else nsteps,
            "timestep_s": self.dt, "wall_time_s": time.perf_counter() - wall0,
            "read_time_s": read_s, "sim_time_s_per_wall_s": (step * self.dt / sim_s) if sim_s else 0,
            "messages_read": report.messages, "samples_read": len(report.samples),
            "samples_applied": kept,
            "samples_dropped": sum(t.dropped for t in self.driver.tracks),
            "per_body": self.driver.counts(), "stale_events": self.driver.stale_events,
            "notes": report.notes, "weld_tracking": self.welds.summary(),
            "output_messages": out.count if out is not None else 0, "error": error,
        }
        return summary

    def _open_out(self):
        if not self.out_path:
            return None
        try:
            out = bags.OutBag(self.out_path, self.storage)
        except bags.BagError as e:
            raise ReplayError(str(e)) from None
        T = out.types
        self._T = T
        self._c_tf = out.topic("/tf", "tf2_msgs/msg/TFMessage")
        self._c_static = out.topic("/tf_static", "tf2_msgs/msg/TFMessage", latched=True)
        self._c_js = out.topic("/joint_states", "sensor_msgs/msg/JointState")
        self._c_imu = [(out.topic("/" + _topic(g.name), "sensor_msgs/msg/Imu"), g)
                       for g in self.layout.imus]
        self._c_wrench = [(out.topic("/" + _topic(g.name), "geometry_msgs/msg/WrenchStamped"), g)
                          for g in self.layout.wrenches]
        kinds = {"point": "geometry_msgs/msg/PointStamped",
                 "vector3": "geometry_msgs/msg/Vector3Stamped",
                 "quaternion": "geometry_msgs/msg/QuaternionStamped",
                 "range": "sensor_msgs/msg/Range",
                 "values": "control_msgs/msg/DynamicJointState"}
        if any(o.kind == "values" for o in self.layout.others):
            _register_control_msgs(out.store)
        self._c_other = [(out.topic("/" + _topic(o.name), kinds[o.kind]), o)
                         for o in self.layout.others]
        return out

    def _output(self, out, t0_ns: int, t: float, static: bool = False) -> None:
        if out is None:
            return
        T, d, p = self._T, self.data, self.prefix
        ns = t0_ns + int(round(t * 1e9))
        stamp = T["builtin_interfaces/msg/Time"](sec=ns // 1_000_000_000,
                                                 nanosec=ns % 1_000_000_000)
        Header = T["std_msgs/msg/Header"]

        def tfs(parents, children, pos, quat):
            return [T["geometry_msgs/msg/TransformStamped"](
                header=Header(stamp=stamp, frame_id=p + pa), child_frame_id=p + ch,
                transform=T["geometry_msgs/msg/Transform"](
                    translation=_vec(T, v), rotation=_quat(T, q)))
                for pa, ch, v, q in zip(parents, children, pos, quat)]
        TF = T["tf2_msgs/msg/TFMessage"]
        if static:
            st = self.table.static
            msg = TF(transforms=tfs([s.parent for s in st], [s.child for s in st],
                                    [s.pos for s in st], [s.quat for s in st]))
            out.write(self._c_static, ns, msg)
        tb = self.table
        if len(tb.moving_child):
            pos, quat = tb.moving_poses(d.xpos, d.xquat)
            out.write(self._c_tf, ns, TF(transforms=tfs(tb.moving_parent, tb.moving_child,
                                                        pos, quat)))
        if self._js_names:
            qfrc = d.qfrc_actuator[self._js_v] + d.qfrc_applied[self._js_v]
            out.write(self._c_js, ns, T["sensor_msgs/msg/JointState"](
                header=Header(stamp=stamp, frame_id=""), name=self._js_names,
                position=np.array(d.qpos[self._js_q], float),
                velocity=np.array(d.qvel[self._js_v], float), effort=np.array(qfrc, float)))
        s = d.sensordata
        for conn, g in self._c_imu:
            oc, gc, ac = sensors.imu_covariances(g)
            q = s[g.quat.adr:g.quat.adr + 4] if g.quat is not None else (1.0, 0.0, 0.0, 0.0)
            gy = s[g.gyro.adr:g.gyro.adr + 3] if g.gyro is not None else (0.0, 0.0, 0.0)
            ac_ = s[g.accel.adr:g.accel.adr + 3] if g.accel is not None else (0.0, 0.0, 0.0)
            out.write(conn, ns, T["sensor_msgs/msg/Imu"](
                header=Header(stamp=stamp, frame_id=p + g.frame), orientation=_quat(T, q),
                orientation_covariance=np.array(oc), angular_velocity=_vec(T, gy),
                angular_velocity_covariance=np.array(gc), linear_acceleration=_vec(T, ac_),
                linear_acceleration_covariance=np.array(ac)))
        for conn, g in self._c_wrench:
            out.write(conn, ns, T["geometry_msgs/msg/WrenchStamped"](
                header=Header(stamp=stamp, frame_id=p + g.frame),
                wrench=T["geometry_msgs/msg/Wrench"](
                    force=_vec(T, s[g.force.adr:g.force.adr + 3]),
                    torque=_vec(T, s[g.torque.adr:g.torque.adr + 3]))))
        for conn, o in self._c_other:   # the node's messages (mj_ros/outputs.py), no noise
            a, n = o.sensor.adr, o.sensor.dim
            frame = self.table.world if o.frame == sensors.WORLD else o.frame
            header = Header(stamp=stamp, frame_id=p + frame if frame else "")
            if o.kind == "point":
                msg = T["geometry_msgs/msg/PointStamped"](header=header, point=T[
                    "geometry_msgs/msg/Point"](x=float(s[a]), y=float(s[a + 1]), z=float(s[a + 2])))
            elif o.kind == "vector3":
                msg = T["geometry_msgs/msg/Vector3Stamped"](header=header, vector=_vec(T, s[a:a + 3]))
            elif o.kind == "quaternion":
                msg = T["geometry_msgs/msg/QuaternionStamped"](header=header,
                                                               quaternion=_quat(T, s[a:a + 4]))
            elif o.kind == "range":
                cutoff = o.sensor.cutoff
                msg = T["sensor_msgs/msg/Range"](
                    header=header, radiation_type=1, field_of_view=0.0, min_range=0.0,
                    max_range=float(cutoff) if cutoff > 0 else float("inf"),
                    range=float(s[a]) if s[a] >= 0 else float("inf"),
                    variance=float(o.sensor.variance))
            else:
                msg = T["control_msgs/msg/DynamicJointState"](
                    header=header, joint_names=[o.name],
                    interface_values=[T["control_msgs/msg/InterfaceValue"](
                        interface_names=sensors.interface_names(o.sensor, self._kinds),
                        values=np.array(s[a:a + n], float))])
            out.write(conn, ns, msg)


def _register_control_msgs(store) -> None:
    """control_msgs' DynamicJointState in the output bag's typestore (rosbags' Kilted store has
    no control_msgs; the field lists are those of scripts/interfaces/control_msgs)."""
    from rosbags.typesys import get_types_from_msg
    types = {}
    for name, text in (("control_msgs/msg/InterfaceValue",
                        "string[] interface_names\nfloat64[] values\n"),
                       ("control_msgs/msg/DynamicJointState",
                        "std_msgs/Header header\nstring[] joint_names\n"
                        "control_msgs/InterfaceValue[] interface_values\n")):
        types.update(get_types_from_msg(text, name))
    store.register(types)


def _vec(T, v):
    return T["geometry_msgs/msg/Vector3"](x=float(v[0]), y=float(v[1]), z=float(v[2]))


def _quat(T, q):  # w-first in, ROS x, y, z, w out
    return T["geometry_msgs/msg/Quaternion"](x=float(q[1]), y=float(q[2]), z=float(q[3]),
                                             w=float(q[0]))


def _topic(name: str) -> str:
    return topic_name(name)  # the node's rule, so replay and live topics agree


def format_summary(s: dict) -> str:
    lines = [f"replayed {s['duration_s']:.3f} s of {s['bag']} in {s['wall_time_s']:.2f} s "
             f"({s['steps']} steps of {s['timestep_s'] * 1e3:g} ms; "
             f"{s['sim_time_s_per_wall_s']:.1f}x real time while stepping)"]
    lines.append(f"mocap samples: {s['samples_read']} read, {s['samples_applied']} applied, "
                 f"{s['samples_dropped']} dropped; stale events: {s['stale_events']}")
    for body, c in s["per_body"].items():
        lines.append(f"  {body}: {c['accepted']} accepted, {c['dropped']} dropped, "
                     f"{c['normalized']} normalised")
    for w in s["weld_tracking"]:
        if not w["samples"]:
            lines.append(f"weld {w['weld']}: tracking error not measured (no step completed)")
            continue
        lines.append(f"weld {w['weld']}: max position error {w['max_position_error_m']:.6f} m "
                     f"(rms {w['rms_position_error_m']:.6f}), max angle error "
                     f"{w['max_angle_error_rad']:.6f} rad")
    if s["output"]:
        lines.append(f"wrote {s['output_messages']} messages to {s['output']}")
    if s["error"]:
        lines.append("stopped: " + s["error"])
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="mj-ros-replay",
        description="Drive mocap bodies from a rosbag2 (sqlite3 or mcap) offline, as fast as "
                    "possible, and write the simulated streams to an output bag.")
    ap.add_argument("bag", help="input rosbag2 directory or .mcap/.db3 file")
    ap.add_argument("--model", default="", help="MJCF or URDF file (default: the default robot)")
    ap.add_argument("--map", required=True, help="mocap map YAML (see config/mocap_example.yaml)")
    ap.add_argument("--out", default="", help="output bag directory (not written if omitted)")
    ap.add_argument("--storage", default="mcap", choices=("mcap", "sqlite3"))
    ap.add_argument("--rate", type=float, default=DEFAULT_RATE,
                    help="Hz of sim time of the output streams; 0 = every step (default 100)")
    ap.add_argument("--disable", default="",
                    help="comma-separated MJCF <flag> names to disable, e.g. contact,equality")
    ap.add_argument("--timestep", type=float, default=0.0, help="override the model's timestep")
    ap.add_argument("--world-frame", default="world")
    ap.add_argument("--frame-prefix", default="")
    ap.add_argument("--summary", default="", help="also write the summary as JSON here")
    ap.add_argument("--quiet", action="store_true",
                    help="no progress line (shown on stderr for replays longer than 2 s)")
    a = ap.parse_args(argv)
    disable = [f for f in a.disable.split(",") if f.strip()]
    try:
        replay = Replay(a.bag, a.model, a.map, a.out or None, a.rate, a.storage, disable,
                        a.timestep, a.world_frame, a.frame_prefix, progress=not a.quiet)
        summary = replay.run()
    except (ReplayError, model_io.ModelLoadError) as e:
        sys.stderr.write(f"mj-ros-replay: {e}\n")
        return 2
    except NotImplementedError as e:
        sys.stderr.write(f"mj-ros-replay: the engine cannot simulate this model yet: {e}\n")
        return 3
    print(format_summary(summary))
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump(summary, f, indent=2)
    return 3 if summary["error"] else 0


if __name__ == "__main__":
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    sys.exit(main())
