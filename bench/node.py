"""Node throughput and latency (not a test). Prints a table.

    python bench/node.py [--model PATH] [--seconds 10] [--roundtrips 1000]

1. Real-time factor at speed 0 on the default robot at 1 kHz with every stream published (clock,
   joint_states, IMU, wrench, touch sensors: rate 0 = every step), a subscriber receiving /clock
   and /joint_states in another process (raw bytes: the probe does not deserialize); with the
   default max_publish_rate (1000 per wall second), unlimited (/tf at its default 100 Hz),
   unlimited with /tf every step too, and the last with a subscriber on every topic (IMU,
   wrench, touch, /tf as well). RTF = sim seconds / wall seconds, from received stamps. Then
   every stream every step with no subscriber at all, read from /diagnostics: what the node
   sustains without a receiver on the same cores.
2. Command-to-state latency in lockstep (lockstep_steps 1): publish a JointState command, wait for
   the joint_states it produces; wall-clock round trip p50 / p90 / p99.
3. With --cameras: camera images (mj_ros/cameras.py) on a Menagerie arm (default: the KUKA iiwa
   14 scene, one 320x240 rgb8 + 32FC1 depth camera at camera_rate 30 added in a temporary
   wrapper model) at speed 1 (does physics keep real time?) and at speed 0 (how much physics
   throughput rendering takes), each against the same run without cameras: RTF from /clock
   stamps, frames per wall second received on image_raw and depth/image_raw (raw: the probe
   does not deserialize the images).
The simulator runs as `python -m mj_ros.sim_node` in a subprocess; ROS_AUTOMATIC_DISCOVERY_RANGE is
forced to LOCALHOST.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

import rclpy  # noqa: E402
from rclpy.experimental import EventsExecutor  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

# the benches' ROS domains lie between the default 0 and the test fixtures' 20..101 (IDs up to
# 101 are the safe ones), one per bench script, so benches and test runs can share the machine
DOMAIN = int(os.environ.get("MJ_ROS_BENCH_DOMAIN", "11"))


def start_sim(params: dict, log) -> subprocess.Popen:
    args = [sys.executable, "-m", "mj_ros.sim_node", "--ros-args"]
    for k, v in params.items():
        v = ("true" if v else "false") if isinstance(v, bool) else v
        args += ["-p", f"{k}:={v}"]
    env = dict(os.environ, ROS_DOMAIN_ID=str(DOMAIN), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    return subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT,
                            cwd=tempfile.gettempdir())


def stop_sim(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def stamp(s) -> float:
    return s.sec + s.nanosec * 1e-9


_STAMP = struct.Struct("<iI")


def raw_stamp(b: bytes) -> float:
    """The first stamp of a serialized message (CDR: 4-byte encapsulation header, then int32 sec,
    uint32 nanosec: rosgraph_msgs/Clock's clock and every std_msgs/Header's stamp). The probe
    subscribes raw so that receiving costs it no deserialization: the bench measures the
    simulator, and a Python receiver on the same two cores otherwise takes CPU from it."""
    sec, nsec = _STAMP.unpack_from(b, 4)
    return sec + nsec * 1e-9


class Probe:
    def __init__(self):
        self.ctx = rclpy.Context()
        rclpy.init(context=self.ctx, domain_id=DOMAIN)
        self.node = rclpy.create_node("bench_probe", context=self.ctx)
        self.ex = EventsExecutor(context=self.ctx)
        self.ex.add_node(self.node)

    def wait(self, pred, timeout, what):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return
            self.ex.spin_once(timeout_sec=0.01)
        raise SystemExit(f"bench: timed out waiting for {what}")

    def close(self):
        self.ex.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.ctx)


def published_topics(node, skip: set) -> list:
    """(name, message class) of every topic in the graph that a user would subscribe to: not
    those in ``skip``, not the simulator's command inputs (/mj_ros_sim/...) and not action
    internals (.../_action/...: an action client subscribes to those itself)."""
    out = []
    for name, types in node.get_topic_names_and_types():
        if name in skip or name.startswith("/mj_ros_sim/") or "/_action/" in name:
            continue
        pkg, kind, msg = types[0].split("/")
        if kind != "msg":
            continue
        out.append((name, getattr(__import__(f"{pkg}.msg", fromlist=[msg]), msg)))
    return out


def bench_rtf(model: str, seconds: float, log, limit: float, tf_rate: float = 100.0,
              subscribe_all: bool = False) -> dict:
    params = dict(speed=0.0, max_publish_rate=limit, clock_rate=0.0, joint_states_rate=0.0,
                  imu_rate=0.0, wrench_rate=0.0, sensor_rate=0.0, odometry_rate=0.0,
                  tf_rate=tf_rate, diagnostics_rate=1.0)
    if model:
        params["model"] = model
    proc = start_sim(params, log)
    probe = Probe()
    clocks, js = [], []
    probe.node.create_subscription(Clock, "/clock",
                                   lambda b: clocks.append((time.monotonic(), raw_stamp(b))),
                                   100, raw=True)
    probe.node.create_subscription(JointState, "/joint_states",
                                   lambda b: js.append(raw_stamp(b)), 100, raw=True)
    others = [0]
    try:
        probe.wait(lambda: len(clocks) > 100, 180, "/clock")
        if subscribe_all:  # a subscriber on every other topic the simulator publishes too
            known = {"/clock", "/joint_states", "/rosout", "/parameter_events"}
            for name, cls in published_topics(probe.node, known):
                probe.node.create_subscription(cls, name,
                                               lambda b: others.__setitem__(0, others[0] + 1),
                                               100, raw=True)
            probe.ex.spin_once(timeout_sec=2.0)
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            probe.ex.spin_once(timeout_sec=0.05)
        i0, n_js0, n_o0 = len(clocks) - 1, len(js), others[0]
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            probe.ex.spin_once(timeout_sec=0.05)
        (w0, s0), (w1, s1) = clocks[i0], clocks[-1]
        steps = round((s1 - s0) / 0.001)
        return {"rtf": (s1 - s0) / (w1 - w0), "steps_per_s": steps / (w1 - w0),
                "clock_received": (len(clocks) - i0) / max(1, steps),
                "js_received": (len(js) - n_js0) / max(1, steps),
                "others_per_s": (others[0] - n_o0) / (w1 - w0)}
    finally:
        probe.close()
        stop_sim(proc)


def bench_rtf_unobserved(model: str, seconds: float, log) -> dict:
    """RTF with every stream published every step and nobody subscribed to them: what the node
    itself sustains, without a receiving process on the same cores. Sim time and step count come
    from /diagnostics (1 Hz), the only topic received."""
    params = dict(speed=0.0, max_publish_rate=0.0, clock_rate=0.0, joint_states_rate=0.0,
                  imu_rate=0.0, wrench_rate=0.0, sensor_rate=0.0, odometry_rate=0.0,
                  tf_rate=100.0, diagnostics_rate=1.0)
    if model:
        params["model"] = model
    proc = start_sim(params, log)
    probe = Probe()
    seen = []

    def on_diag(msg):
        for status in msg.status:
            v = {kv.key: kv.value for kv in status.values}
            if "sim_time" in v and "steps" in v:
                seen.append((time.monotonic(), float(v["sim_time"]), int(v["steps"])))

    probe.node.create_subscription(DiagnosticArray, "/diagnostics", on_diag, 10)
    try:
        probe.wait(lambda: len(seen) >= 2, 180, "/diagnostics")
        first = seen[-1]
        probe.wait(lambda: seen[-1][0] - first[0] >= seconds, seconds + 30, "/diagnostics")
        (w0, t0, n0), (w1, t1, n1) = first, seen[-1]
        return {"rtf": (t1 - t0) / (w1 - w0), "steps_per_s": (n1 - n0) / (w1 - w0)}
    finally:
        probe.close()
        stop_sim(proc)


def bench_latency(model: str, roundtrips: int, log) -> dict:
    params = dict(lockstep=True, lockstep_steps=1, clock_rate=0.0, joint_states_rate=0.0,
                  imu_rate=0.0, wrench_rate=0.0, sensor_rate=0.0)
    if model:
        params["model"] = model
    proc = start_sim(params, log)
    probe = Probe()
    js = []
    probe.node.create_subscription(JointState, "/joint_states",
                                   lambda m: js.append(stamp(m.header.stamp)), 100)
    pub = probe.node.create_publisher(JointState, "/mj_ros_sim/joint_commands", 10)
    cmd = JointState(name=["shoulder_pan_joint"], position=[0.3])
    lat = []
    try:
        probe.wait(lambda: pub.get_subscription_count() > 0, 180, "command subscriber")
        probe.ex.spin_once(timeout_sec=1.0)
        for _ in range(roundtrips + 20):
            last = js[-1] if js else -1.0
            t0 = time.perf_counter()
            pub.publish(cmd)
            probe.wait(lambda: js and js[-1] > last, 10, "lockstep state")
            lat.append(time.perf_counter() - t0)
        lat = sorted(lat[20:])
        q = statistics.quantiles(lat, n=100)
        return {"p50_ms": q[49] * 1e3, "p90_ms": q[89] * 1e3, "p99_ms": q[98] * 1e3,
                "steps_per_s": len(lat) / sum(lat)}
    finally:
        probe.close()
        stop_sim(proc)


MENAGERIE_ARM = pathlib.Path(os.environ.get(
    "MJ_ROS_SHARED_MODELS", pathlib.Path(__file__).resolve().parents[2] / "shared" / "models")
) / "menagerie" / "kuka_iiwa_14" / "scene.xml"
# a camera looking at the arm from the front right, towards (0, 0, 0.6)
BENCH_CAMERA = ('<camera name="bench_cam" pos="1.8 -1.4 1.0" xyaxes="1.4 1.8 0 -0.72 0.56 5.2" '
                'fovy="55"/>')


def camera_model(scene: pathlib.Path, out_dir: str) -> str:
    """A temporary wrapper of a Menagerie scene with BENCH_CAMERA in its worldbody: the scene's
    text with its includes made absolute (and their meshdir), written to out_dir (the shared
    model files stay untouched)."""
    text = scene.read_text()

    def absolute(mo):
        f = scene.parent / mo.group(1)
        out = f'<include file="{f}"/>'
        meshdir = re.search(r'meshdir="([^"]+)"', f.read_text())
        if meshdir:
            out += f'<compiler meshdir="{(f.parent / meshdir.group(1)).resolve()}"/>'
        return out

    text = re.sub(r'<include file="([^"]+)"\s*/>', absolute, text)
    text = text.replace("<worldbody>", "<worldbody>\n" + BENCH_CAMERA, 1)
    path = os.path.join(out_dir, "bench_camera_scene.xml")
    with open(path, "w") as f:
        f.write(text)
    return path


def bench_cameras(model: str, seconds: float, log, speed: float, cameras: bool,
                  rate: float = 30.0) -> dict:
    params = dict(model=model, speed=speed, diagnostics_rate=1.0)
    if cameras:
        params.update(cameras="[bench_cam]", camera_rate=float(rate))
    proc = start_sim(params, log)
    probe = Probe()
    clocks, rgb, depth = [], [], []
    probe.node.create_subscription(Clock, "/clock",
                                   lambda b: clocks.append((time.monotonic(), raw_stamp(b))),
                                   100, raw=True)
    if cameras:
        from sensor_msgs.msg import Image
        for box, topic in ((rgb, "/bench_cam/image_raw"), (depth, "/bench_cam/depth/image_raw")):
            probe.node.create_subscription(
                Image, topic, lambda b, box=box: box.append((time.monotonic(), raw_stamp(b))),
                10, raw=True)
    try:
        probe.wait(lambda: len(clocks) > 100 and (rgb or not cameras), 300, "/clock and images")
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            probe.ex.spin_once(timeout_sec=0.05)
        i0, r0, d0 = len(clocks) - 1, len(rgb), len(depth)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            probe.ex.spin_once(timeout_sec=0.05)
        (w0, s0), (w1, s1) = clocks[i0], clocks[-1]
        out = {"rtf": (s1 - s0) / (w1 - w0)}
        if cameras:
            out["rgb_fps"] = (len(rgb) - r0) / (w1 - w0)
            out["depth_fps"] = (len(depth) - d0) / (w1 - w0)
        return out
    finally:
        probe.close()
        stop_sim(proc)


def main_cameras(a) -> int:
    scene = pathlib.Path(a.camera_scene)
    if not scene.is_file():
        raise SystemExit(f"bench: {scene} not found (--camera-scene)")
    with tempfile.TemporaryDirectory(prefix="mj_ros_bench_") as tmp, \
            tempfile.NamedTemporaryFile("w", prefix="mj_ros_bench_", suffix=".log",
                                        delete=False) as log:
        model = camera_model(scene, tmp)
        runs = [(speed, cams, bench_cameras(model, a.seconds, log, speed, cams, a.camera_rate))
                for speed in (1.0, 0.0) for cams in (False, True)]
    print(f"model: {scene} + one camera (bench_cam), 320x240 rgb8 + 32FC1 depth at "
          f"camera_rate {a.camera_rate:g}; log {log.name}")
    print("| speed | cameras | RTF | image_raw fps | depth/image_raw fps |")
    print("|---|---|---|---|---|")
    for speed, cams, r in runs:
        fps = (f"{r['rgb_fps']:.1f} | {r['depth_fps']:.1f}" if cams else "- | -")
        print(f"| {speed:g} | {'bench_cam' if cams else 'off'} | {r['rtf']:.2f}x | {fps} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="", help="model file (default: the default robot)")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--roundtrips", type=int, default=1000)
    ap.add_argument("--cameras", action="store_true",
                    help="only the camera benchmark (3. above)")
    ap.add_argument("--camera-rate", type=float, default=30.0,
                    help="camera_rate for --cameras (Hz of wall time; above 30 shows the headroom)")
    ap.add_argument("--camera-scene", default=str(MENAGERIE_ARM),
                    help="Menagerie scene.xml for --cameras (a camera is added)")
    a = ap.parse_args()
    if a.cameras:
        return main_cameras(a)
    import engine
    with tempfile.NamedTemporaryFile("w", prefix="mj_ros_bench_", suffix=".log",
                                     delete=False) as log:
        runs = [("every stream, max_publish_rate 1000 (default)",
                 bench_rtf(a.model, a.seconds, log, 1000.0)),
                ("every stream every step (max_publish_rate 0), /tf at 100 Hz",
                 bench_rtf(a.model, a.seconds, log, 0.0)),
                ("every stream every step, /tf too",
                 bench_rtf(a.model, a.seconds, log, 0.0, tf_rate=0.0)),
                ("every stream every step, /tf too, a subscriber on every topic",
                 bench_rtf(a.model, a.seconds, log, 0.0, tf_rate=0.0, subscribe_all=True))]
        alone = bench_rtf_unobserved(a.model, a.seconds, log)
        lat = bench_latency(a.model, a.roundtrips, log)
    print(f"engine: {engine.__name__} from {os.path.dirname(engine.__file__ or '?')}")
    print(f"model: {a.model or 'default robot (urdf/mj_arm.urdf)'}, timestep 1 ms; log {log.name}")
    print("| measure | value |")
    print("|---|---|")
    for label, r in runs:
        print(f"| RTF at speed 0, {label} | {r['rtf']:.2f}x |")
        print(f"| ... steps per second | {r['steps_per_s']:.0f} |")
        print(f"| ... /clock, /joint_states received per step | {r['clock_received']:.3f}, "
              f"{r['js_received']:.3f} |")
        if r["others_per_s"]:
            print(f"| ... other messages received per second | {r['others_per_s']:.0f} |")
    print(f"| RTF at speed 0, every stream every step, /tf at 100 Hz, no subscriber (the node "
          f"alone, from /diagnostics) | {alone['rtf']:.2f}x |")
    print(f"| ... steps per second | {alone['steps_per_s']:.0f} |")
    print(f"| lockstep command->state latency p50 | {lat['p50_ms']:.3f} ms |")
    print(f"| lockstep command->state latency p90 | {lat['p90_ms']:.3f} ms |")
    print(f"| lockstep command->state latency p99 | {lat['p99_ms']:.3f} ms |")
    print(f"| lockstep round trips per second | {lat['steps_per_s']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
