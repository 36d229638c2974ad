"""Fixtures for the node tests: a ROS domain per test run and xdist worker, the simulator in a
subprocess with hard kill timeouts, and a probe node (own rclpy Context) that waits with deadlines.

ROS is required here (CI installs it through scripts/setup): a missing rclpy is an error, not a
skip. Tests that need the engine to step are skipped while `engine` has no `mj_step`.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # before rclpy is imported

import engine  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
needs_stepping = pytest.mark.skipif(
    not hasattr(engine, "mj_step"), reason="the engine does not step yet (no engine.mj_step)")

# Developing against the official-mujoco shim (which cannot read the URDF <mujoco> extension nor
# package:// URIs), these point the tests at equivalent models; unset, the real files are used.
ARM_MODEL = os.environ.get("MJ_ROS_TEST_ARM_MODEL", "")  # "" = the node's default robot
ERD_ROBOTS = pathlib.Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" \
    / "site-packages" / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
UR5_MODEL = os.environ.get("MJ_ROS_TEST_UR5_MODEL",
                           str(ERD_ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"))


@pytest.fixture(scope="session")
def domain_id(worker_id) -> int:
    """One ROS domain per test run and xdist worker, all <= 101."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))
    base = 2 * (int(hashlib.sha1(run.encode()).hexdigest(), 16) % 40)  # even, 0..78
    index = 0 if worker_id == "master" else int(worker_id.lstrip("gw") or 0)
    return 20 + (base + index) % 82  # 20..101


def ros_env(domain: int) -> dict:
    env = dict(os.environ)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env["ROS_DOMAIN_ID"] = str(domain)
    env.pop("RMW_IMPLEMENTATION", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class SimProcess:
    """`python -m mj_ros.sim_node` with parameters; stop() never hangs (SIGINT, then SIGKILL)."""

    def __init__(self, domain: int, tmp: pathlib.Path, params: dict, name: str = "mj_ros_sim"):
        args = [sys.executable, "-m", "mj_ros.sim_node", "--ros-args", "-r", f"__node:={name}"]
        for k, v in params.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            args += ["-p", f"{k}:={v}"]
        self.log = tmp / f"{name}.log"
        self._log = open(self.log, "w")
        # cwd: not the repository root, so the engine on sys.path is the installed one
        env = ros_env(domain)
        env["MJ_ROS_MARKER_CACHE"] = str(tmp / "markers")   # the viewers' mesh files
        self.proc = subprocess.Popen(args, cwd=str(tmp), env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log.read_text()

    def stop(self, timeout: float = 15.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode


@pytest.fixture
def sim(domain_id, tmp_path):
    started = []

    def start(**params) -> SimProcess:
        if ARM_MODEL and "model" not in params:
            params["model"] = ARM_MODEL
        p = SimProcess(domain_id, tmp_path, params)
        started.append(p)
        return p

    yield start
    for p in started:
        p.stop()


class Probe:
    """A test-side node in its own Context: subscribe, publish, call services, wait."""

    def __init__(self, domain: int):
        import rclpy
        from rclpy.experimental import EventsExecutor
        self.rclpy = rclpy
        self.ctx = rclpy.Context()
        rclpy.init(context=self.ctx, domain_id=domain)
        self.node = rclpy.create_node("probe", context=self.ctx)
        self.executor = EventsExecutor(context=self.ctx)
        self.executor.add_node(self.node)
        self.got: dict[str, list] = {}
        self.subs: dict[str, object] = {}

    def subscribe(self, msg_type, topic: str, depth: int = 1000):
        self.got[topic] = []
        box = self.got[topic]
        self.subs[topic] = self.node.create_subscription(
            msg_type, topic, lambda m: box.append((time.monotonic(), m)), depth)
        return box

    def wait_matched(self, topic: str, sim: SimProcess, timeout: float = 60.0) -> None:
        """Wait until the subscription to `topic` sees a publisher, then a little longer for the
        publisher to see it too (discovery is not symmetric in time)."""
        sub = self.subs[topic]
        self.wait(lambda: sub.get_publisher_count() > 0, timeout, f"a publisher of {topic}", sim)
        self.spin_for(0.5)

    def spin_for(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=min(0.05, max(0.0, end - time.monotonic())))

    def wait(self, predicate, timeout: float, what: str, sim: SimProcess | None = None):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = predicate()
            if value:
                return value
            if sim is not None and not sim.alive():
                raise AssertionError(f"simulator exited while waiting for {what}:\n{sim.output()}")
            self.executor.spin_once(timeout_sec=0.05)
        detail = f"\n--- simulator output ---\n{sim.output()}" if sim is not None else ""
        raise AssertionError(f"timed out after {timeout} s waiting for {what}{detail}")

    def call(self, srv_type, name: str, request, timeout: float = 30.0):
        client = self.node.create_client(srv_type, name)
        self.wait(client.service_is_ready, timeout, f"service {name}")
        future = client.call_async(request)
        self.wait(future.done, timeout, f"reply of {name}")
        self.node.destroy_client(client)
        return future.result()

    def set_params(self, node: str, **values) -> None:
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter
        req = SetParameters.Request()
        req.parameters = [Parameter(k, value=v).to_parameter_msg() for k, v in values.items()]
        res = self.call(SetParameters, f"{node}/set_parameters", req)
        assert all(r.successful for r in res.results), res

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.ctx)


@pytest.fixture
def probe(domain_id):
    p = Probe(domain_id)
    yield p
    p.close()


# the engine needs its first-run compile: the first message may take a while on a loaded machine
START_TIMEOUT = float(os.environ.get("MJ_ROS_TEST_START_TIMEOUT", "120"))
