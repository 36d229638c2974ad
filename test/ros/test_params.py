"""Parameters as ROS users expect (issue 20.4, 25.5): integer literals for doubles, every
parameter with a typed value, start-up-only ones read_only, unknown ones reported, every value
checked with one line at start-up and at run time; `--help` of every entry point."""
from __future__ import annotations

import subprocess
import sys

import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import DescribeParameters, GetParameters, SetParameters
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock

from conftest import REPO, START_TIMEOUT, needs_stepping, ros_env
from mj_ros import params as P

NODE = "/mj_ros_sim"
TYPES = {"bool": ParameterType.PARAMETER_BOOL, "integer": ParameterType.PARAMETER_INTEGER,
         "double": ParameterType.PARAMETER_DOUBLE, "string": ParameterType.PARAMETER_STRING,
         "string_array": ParameterType.PARAMETER_STRING_ARRAY,
         "double_array": ParameterType.PARAMETER_DOUBLE_ARRAY,
         "integer_array": ParameterType.PARAMETER_INTEGER_ARRAY}


# -- the table (no ROS) ---------------------------------------------------------------------------
def test_integer_literals_become_doubles_and_other_mismatches_are_one_line():
    assert P.check("speed", 2) == 2.0 and isinstance(P.check("speed", 2), float)
    assert P.check("clock_rate", 100) == 100.0
    assert P.check("initial_joint_positions", [1, 2.5]) == [1.0, 2.5]
    assert P.check("lockstep_steps", 3) == 3
    for name, value in (("speed", "fast"), ("paused", 1), ("lockstep_steps", 2.0),
                        ("step_count", True), ("disable", [1])):
        with pytest.raises(P.ParameterError, match=f"parameter {name}: expected"):
            P.check(name, value)


@pytest.mark.parametrize("name,value", [
    ("speed", -1.0), ("speed", float("inf")), ("command_timeout_action", "explode"),
    ("step_count", 0), ("lockstep_steps", 0), ("max_publish_rate", -1.0), ("timestep", -0.001),
    ("command_timeout", -1.0), ("robot_description_timeout", 0.0), ("clock_rate", float("nan")),
    ("initial_joint_positions", [0.0, float("nan")])])
def test_bad_values_are_refused(name, value):
    with pytest.raises(P.ParameterError) as e:
        P.check(name, value)
    assert str(e.value).startswith(f"parameter {name}: must be") and "\n" not in str(e.value)


def test_every_parameter_has_a_type_and_runtime_ones_exist():
    assert set(P.RUNTIME) <= set(P.PARAMETERS)
    for name, (default, _) in P.PARAMETERS.items():
        assert P.check(name, default) == default  # every default passes its own check
        assert P.type_name(name) in TYPES


# -- the node -------------------------------------------------------------------------------------
def _run(args, timeout=START_TIMEOUT, domain=0):
    env = ros_env(domain)
    return subprocess.run([sys.executable, "-m", "mj_ros.sim_node", *args], cwd=str(REPO),
                          env=env, capture_output=True, text=True, timeout=timeout)


@needs_stepping
@pytest.mark.ros
@pytest.mark.parametrize("override,name", [
    ("speed:=-1.0", "speed"), ("command_timeout_action:=explode", "command_timeout_action"),
    ("step_count:=0", "step_count"), ("lockstep_steps:=0", "lockstep_steps"),
    ("max_publish_rate:=-5.0", "max_publish_rate"), ("timestep:=-0.001", "timestep"),
    ("speed:=fast", "speed")])
def test_bad_parameter_ends_start_up_with_one_line(override, name, domain_id):
    r = _run(["--ros-args", "-p", override], domain=domain_id)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.strip()
             and not ln.startswith("engine: ")]  # a cold machine's compile progress
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"mj_ros sim: parameter {name}: ")


def _get(probe, names):
    req = GetParameters.Request(names=names)
    return probe.call(GetParameters, NODE + "/get_parameters", req, START_TIMEOUT).values


def _set(probe, **values):
    req = SetParameters.Request()
    req.parameters = [Parameter(k, value=v).to_parameter_msg() for k, v in values.items()]
    return probe.call(SetParameters, NODE + "/set_parameters", req).results


@needs_stepping
@pytest.mark.ros
def test_parameters_typed_read_only_checked_and_unknown_reported(sim, probe):
    s = sim(speed=2, clock_rate=100, sped=3, max_publish_rate=500)
    probe.subscribe(Clock, "/clock")
    probe.wait_matched("/clock", s, START_TIMEOUT)
    names = list(P.PARAMETERS)
    values = _get(probe, names)
    assert len(values) == len(names)  # the typed empty arrays too
    for name, v in zip(names, values):
        assert v.type == TYPES[P.type_name(name)], name
    got = dict(zip(names, values))
    assert got["speed"].double_value == 2.0 and got["clock_rate"].double_value == 100.0
    assert list(got["initial_joint_names"].string_array_value) == []
    assert list(got["disable"].string_array_value) == []
    desc = probe.call(DescribeParameters, NODE + "/describe_parameters",
                      DescribeParameters.Request(names=names)).descriptors
    read_only = {d.name for d in desc if d.read_only}
    assert read_only == set(names) - set(P.RUNTIME)
    assert all(d.description for d in desc)
    out = s.output()
    assert "unknown parameters ignored" in out and "sped" in out

    # run time: an integer for a double is accepted, bad values refused with the start-up text
    (ok,) = _set(probe, speed=3)
    assert ok.successful, ok.reason
    assert _get(probe, ["speed"])[0].double_value == 3.0
    for name, value, text in (("speed", -1.0, "parameter speed: must be"),
                              ("lockstep_steps", 0, "parameter lockstep_steps: must be"),
                              ("command_timeout_action", "explode", "must be one of hold, zero"),
                              ("step_count", 0, "parameter step_count: must be"),
                              ("max_publish_rate", 10.0, "read-only")):
        (r,) = _set(probe, **{name: value})
        assert not r.successful and text in r.reason, (name, r.reason)
    assert _get(probe, ["max_publish_rate"])[0].double_value == 500.0
    assert s.alive() and "Traceback" not in s.output()


# -- --help -----------------------------------------------------------------------------------------
def test_sim_help_prints_usage_and_does_not_start():
    for cmd in ([str(REPO / "scripts" / "sim"), "--help"],
                [sys.executable, "-m", "mj_ros.sim_node", "-h"]):
        r = subprocess.run(cmd, cwd=str(REPO), env=ros_env(0), capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("usage: ")
        for name in P.PARAMETERS:
            assert f" {name} (" in r.stdout or f"*{name} (" in r.stdout, name
        assert "compiling" not in r.stderr and "[INFO]" not in r.stdout + r.stderr


def test_sim_refuses_stray_arguments_with_one_line():
    r = subprocess.run([sys.executable, "-m", "mj_ros.sim_node", "speed:=2"], cwd=str(REPO),
                       env=ros_env(0), capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--ros-args" in r.stderr


def test_replay_help():
    # the module, from this tree (the console script of an installed venv may be another tree's)
    r = subprocess.run([sys.executable, "-m", "mj_ros.replay", "--help"], cwd=str(REPO),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("usage: mj-ros-replay")
    assert "--map" in r.stdout and "--quiet" in r.stdout
