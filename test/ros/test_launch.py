"""launch/sim.launch.py and config/sim.yaml agree with the node's parameters.

`launch` and `launch_ros` are not on PyPI, so the launch file is read with `ast`; where `launch` is
importable (a ROS 2 installation) the launch description is also built for real.
"""
from __future__ import annotations

import ast
import pathlib

import pytest
import yaml

from mj_ros.params import ARRAY_TYPES, IMPLICIT, PARAMETERS

REPO = pathlib.Path(__file__).resolve().parents[2]
LAUNCH = REPO / "launch" / "sim.launch.py"
LAUNCH_ONLY = {"params_file", "namespace"}  # arguments that are not node parameters


def _calls(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) == name]


def launch_arguments() -> set[str]:
    tree = ast.parse(LAUNCH.read_text())
    return {c.args[0].value for c in _calls(tree, "DeclareLaunchArgument")}


def node_parameter_keys() -> set[str]:
    tree = ast.parse(LAUNCH.read_text())
    (node,) = _calls(tree, "Node")
    params = next(k.value for k in node.keywords if k.arg == "parameters")
    dicts = [e for e in params.elts if isinstance(e, ast.Dict)]
    return {k.value for d in dicts for k in d.keys}


def test_launch_arguments_match_node_parameters():
    args = launch_arguments()
    assert args == {"model", "params_file", "use_sim_time", "paused", "speed", "namespace",
                    "headless"}
    declared = set(PARAMETERS) | set(IMPLICIT)
    assert args - LAUNCH_ONLY <= declared, args - LAUNCH_ONLY - declared
    assert node_parameter_keys() == args - LAUNCH_ONLY


def test_config_documents_every_parameter_with_its_default():
    text = (REPO / "config" / "sim.yaml").read_text()
    values = yaml.safe_load(text)["/**"]["ros__parameters"]
    assert set(values) == set(PARAMETERS) - set(ARRAY_TYPES)
    for name, value in values.items():
        assert value == PARAMETERS[name][0], name
    for name in ARRAY_TYPES:  # an empty list has no ROS type in YAML: documented in a comment
        assert f"# {name}: []" in text


def test_launch_file_for_real():
    pytest.importorskip("launch", reason="launch is not on PyPI; available in a ROS 2 install")
    pytest.importorskip("launch_ros")
    import importlib.util

    spec = importlib.util.spec_from_file_location("sim_launch", LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from launch import LaunchDescription
    from launch.actions import DeclareLaunchArgument
    ld = module.generate_launch_description()
    assert isinstance(ld, LaunchDescription)
    names = {e.name for e in ld.entities if isinstance(e, DeclareLaunchArgument)}
    assert names == launch_arguments()
