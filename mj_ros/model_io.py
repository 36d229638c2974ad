"""Where the simulated model comes from, and loading it with the engine.

Sources, first match wins: the `model` parameter (a path to an MJCF or URDF file), the
`robot_description` parameter (the XML text), the `robot_description` topic (transient local, as
robot_state_publisher offers it), else the default robot shipped in urdf/. `package://` URIs are
resolved by the engine's loader, which sees the file's path (or, for XML text, the current
directory) exactly as `engine.MjModel.from_xml_path/from_xml_string` define it.

A URDF's `<ros2_control>` blocks become actuators here (mj_ros/ros2_control.py), added to the
parsed XML tree before the engine's URDF reader fills the spec: the engine itself reads a URDF
exactly as MuJoCo does (no actuators of its own), the node adds what ros2_control declares.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import sys

DEFAULT_ROBOT = "mj_arm.urdf"


class ModelLoadError(RuntimeError):
    """The model could not be loaded; str(e) is the one message to show the user."""


@dataclasses.dataclass(frozen=True)
class ModelSource:
    kind: str   # 'file' or 'xml'
    value: str  # a path or the XML text
    origin: str  # for messages: 'model parameter', 'default robot', ...

    def describe(self) -> str:
        return f"{self.value} ({self.origin})" if self.kind == "file" else self.origin


def share_dir() -> pathlib.Path | None:
    """The package's share directory (installed) or the source tree (development)."""
    try:
        from ament_index_python.packages import get_package_share_directory
        return pathlib.Path(get_package_share_directory("mj_ros"))
    except Exception:  # not in a ROS installation, or not installed there
        pass
    src = pathlib.Path(__file__).resolve().parents[1]
    if (src / "urdf" / DEFAULT_ROBOT).is_file():
        return src
    installed = pathlib.Path(sys.prefix) / "share" / "mj_ros"
    return installed if installed.is_dir() else None


def default_model_path() -> pathlib.Path:
    share = share_dir()
    if share is None or not (share / "urdf" / DEFAULT_ROBOT).is_file():
        raise ModelLoadError(f"the default robot urdf/{DEFAULT_ROBOT} is not installed")
    return share / "urdf" / DEFAULT_ROBOT


def choose_source(model: str, robot_description: str) -> ModelSource | None:
    """The source from parameters; None means: try the robot_description topic or the default."""
    if model:
        path = pathlib.Path(os.path.expanduser(model))
        if not path.is_file():
            raise ModelLoadError(f"model file not found: {model}")
        return ModelSource("file", str(path.resolve()), "model parameter")
    if robot_description.strip():
        return ModelSource("xml", robot_description, "robot_description parameter")
    return None


@dataclasses.dataclass
class Loaded:
    """What `load` made: the model, the `<ros2_control>` joints it actuated (joint -> command
    interface), notes for the log (info) and warnings (what the user should change)."""

    model: object
    hardware: list = dataclasses.field(default_factory=list)   # ros2_control.HardwareJoint
    interfaces: dict = dataclasses.field(default_factory=dict)
    notes: list = dataclasses.field(default_factory=list)
    warnings: list = dataclasses.field(default_factory=list)


def _urdf_actuated_joints(root) -> set[str]:
    """Joints the URDF's own `<mujoco><actuator>` block drives (the user's actuators win)."""
    out = set()
    for block in (c for c in root.children if c.tag == "mujoco"):
        for section in (c for c in block.children if c.tag == "actuator"):
            for a in section.children:
                if a.attrib.get("joint"):
                    out.add(a.attrib["joint"])
    return out


def _compile_urdf_with_ros2_control(source: ModelSource, text: str, gains, claimed) -> Loaded:
    """Compile a URDF whose `<ros2_control>` blocks become actuators (mj_ros/ros2_control.py):
    the generated `<mujoco><actuator>` section is appended to the parsed XML tree before the
    engine's URDF reader fills the spec, so relative and package:// paths resolve from the
    file as for `from_xml_path`."""
    from engine.compiler import compile_spec
    from engine.xml.mjcf import load_xml
    from engine.xml.urdf import read_urdf
    from mj_ros import ros2_control as r2c

    hardware = r2c.parse(text)
    path = source.value if source.kind == "file" else None
    root = load_xml(path) if path else load_xml(text=text)
    own = _urdf_actuated_joints(root)
    interfaces = r2c.choose_interfaces(hardware, claimed or {})
    section = r2c.actuator_xml(hardware, interfaces, gains, skip=own)
    notes = []
    if section:
        root.children.append(load_xml(text=section))
    added = {j: i for j, i in interfaces.items() if j not in own}
    if added:
        notes.append("<ros2_control>: actuators " + ", ".join(
            f"{j} ({i})" for j, i in added.items()))
    if own & set(interfaces):
        notes.append("<ros2_control>: the URDF's own <mujoco><actuator> drives "
                     + ", ".join(sorted(own & set(interfaces))) + " (no actuator added)")
    model = compile_spec(read_urdf(root, file=path))
    return Loaded(model, hardware, added, notes, _damping_notes(model, added))


def _damping_notes(m, added: dict) -> list[str]:
    """A warning per generated actuator whose damping gain the model's Euler integrator (explicit
    in actuator damping, seed 001 'numerical integration') cannot follow stably: kv * timestep
    / M_ii > 1 (unstable above 2) with M_ii the joint's diagonal inertia at qpos0."""
    import engine as mj
    if int(m.opt.integrator) != int(mj.mjtIntegrator.mjINT_EULER) or not added:
        return []
    import numpy as np
    d = mj.MjData(m)
    mj.mj_forward(m, d)
    full = np.zeros((m.nv, m.nv))
    mj.mj_fullM(m, d, full)
    out = []
    for a in range(int(m.nu)):
        name = mj.mj_id2name(m, mj.mjtObj.mjOBJ_ACTUATOR, a) or ""
        joint = name.removeprefix("ros2_control/")
        if joint not in added:
            continue
        kv = -float(m.actuator_biasprm[a][2])
        dof = int(m.jnt_dofadr[int(m.actuator_trnid[a][0])])
        ratio = kv * float(m.opt.timestep) / max(float(full[dof, dof]), 1e-300)
        if ratio > 1.0:
            out.append(f"<ros2_control>: joint '{joint}': damping gain {kv:g} x timestep / "
                       f"inertia {full[dof, dof]:.3g} = {ratio:.2g} (> 2 is unstable with the "
                       f"Euler integrator): lower its kv / velocity_kv param or add "
                       f'<mujoco><option integrator="implicitfast"/></mujoco> to the URDF')
    return out


def load(source: ModelSource, mj, gains=None, claimed: dict | None = None) -> Loaded:
    """Compile the model with the engine module `mj`; one clear error on failure. A URDF with
    `<ros2_control>` blocks gets their actuators (`gains`: ros2_control.Gains, `claimed`: joint
    -> command interface the controllers claim); a URDF with neither those nor actuators gets
    one note saying how to add them."""
    from mj_ros import frames, ros2_control as r2c
    try:
        text = frames.urdf_text_of(source.kind, source.value)
        if text is not None and "<ros2_control" in text and r2c.parse(text):
            return _compile_urdf_with_ros2_control(source, text, gains or r2c.Gains(), claimed)
        if source.kind == "file":
            model = mj.MjModel.from_xml_path(source.value)
        else:
            model = mj.MjModel.from_xml_string(source.value)
        hint = [r2c.NO_ACTUATORS_HINT] if text is not None and int(model.nu) == 0 else []
        return Loaded(model, warnings=hint)
    except r2c.Ros2ControlError as e:
        raise ModelLoadError(f"cannot load {source.describe()}: {e}") from e
    except NotImplementedError as e:
        raise ModelLoadError(f"cannot load {source.describe()}: the engine does not support "
                             f"{e}") from e
    except Exception as e:  # the engine's loader reports file, line, element, attribute
        raise ModelLoadError(f"cannot load {source.describe()}: {e}") from e
