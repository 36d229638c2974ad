"""URDF `<ros2_control>` blocks made into MuJoCo actuators.

A URDF written for ros2_control (gz_ros2_control, mujoco_ros2_control, mock hardware, a real
driver) lists, per `<joint>` of a `<ros2_control type="system">` block, its command interfaces
(`position`, `velocity`, `effort`, each with optional `<param name="min">` / `max`) and its state
interfaces. MuJoCo's URDF reader ignores these blocks (a plain URDF compiles with no actuators),
and so does the engine's: `engine.MjModel.from_xml_path(urdf)` stays what `mujoco` makes of the
file. The node adds the actuators itself when it loads the model (mj_ros/model_io.py): this
module reads the blocks and writes the MJCF `<actuator>` section that the engine's URDF reader
accepts inside `<mujoco>` (its extension, engine/xml/urdf.py), before the model compiles.

Design: one actuator per joint, of the kind of the interface that is *claimed*: by the
controllers file's controllers (mj_ros/controllers.py `claimed_interfaces`), else the joint's
`position` interface if it has one (what the default joint_trajectory_controller drives), else
`velocity`, else `effort` (MuJoCo's shortcuts, so mj_ros/commands.py tells them apart by their
gains exactly as for an MJCF model):

  position  `<position kp kv>`: force = kp (ctrl - q) - kv qdot
  velocity  `<velocity kv>`:    force = kv (ctrl - qdot)
  effort    `<motor>`:          force = ctrl (gear 1)

Controllers are chosen at start-up, so the claim is fixed for a run; compiled actuators cost
nothing per step in Python, and a joint never carries two actuators that fight each other (a
position servo holding while a velocity command pushes). A joint whose interfaces are claimed by
two controllers is refused at start (ros2_control refuses that claim too).

Gains (N m/rad, N m s/rad for hinges; N/m, N s/m for slides) come from, first match wins:
  a `<param name="kp">` / `kv` (position) or `velocity_kv` (velocity) of the joint in the
  `<ros2_control>` block, else the node parameters of those names with the prefix
  `ros2_control_` (`ros2_control_kp`, `ros2_control_kv`, `ros2_control_velocity_kv`).
Limits: a command interface's `min`/`max` params become the actuator's ctrlrange; the URDF
`<limit effort>` is the joint's actuatorfrcrange (MuJoCo's URDF reader sets it: the force of any
actuator on the joint is clamped by the engine), `<limit velocity>` holds commands
(mj_ros/limits.py: position targets ramp at it, velocity commands are clamped to it).

Pure: no ROS, no engine import.
"""
from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

INTERFACES = ("position", "velocity", "effort")
PREFERENCE = ("position", "velocity", "effort")   # the default claim, first present wins
ACTUATOR_PREFIX = "ros2_control/"                  # actuator names: ros2_control/<joint>


class Ros2ControlError(ValueError):
    """A `<ros2_control>` block the node cannot turn into actuators; str(e) names joint and tag."""


@dataclasses.dataclass(frozen=True)
class CommandInterface:
    name: str                   # position, velocity or effort (others are kept, not simulated)
    min: float | None = None    # <param name="min">: the command's lower bound
    max: float | None = None


@dataclasses.dataclass(frozen=True)
class HardwareJoint:
    """One `<joint>` of a `<ros2_control>` block."""

    name: str
    system: str                              # the block's name
    plugin: str                              # its <hardware><plugin>
    commands: tuple[CommandInterface, ...]
    states: tuple[str, ...]
    params: dict                             # the joint's own <param name>value</param>

    def command(self, name: str) -> CommandInterface | None:
        return next((c for c in self.commands if c.name == name), None)

    def default_interface(self) -> str | None:
        have = {c.name for c in self.commands}
        return next((i for i in PREFERENCE if i in have), None)


def _float(text, where: str) -> float:
    try:
        v = float(str(text).strip())
    except ValueError:
        raise Ros2ControlError(f"{where}: '{text}' is not a number") from None
    if not math.isfinite(v):
        raise Ros2ControlError(f"{where}: '{text}' is not finite")
    return v


def _params(el) -> dict:
    return {p.get("name"): (p.text or "").strip() for p in el.findall("param") if p.get("name")}


def parse(urdf_text: str | None) -> list[HardwareJoint]:
    """The joints of every `<ros2_control>` block of a URDF text (document order); [] for no
    text, a non-URDF or a URDF without blocks."""
    if not urdf_text:
        return []
    try:
        root = ET.fromstring(urdf_text)
    except ET.ParseError:   # the engine reports malformed XML when it loads the model
        return []
    if root.tag != "robot":
        return []
    out, seen = [], {}
    for block in root.iter("ros2_control"):
        system = block.get("name", "")
        hw = block.find("hardware")
        plugin = (hw.findtext("plugin") or "").strip() if hw is not None else ""
        for j in block.findall("joint"):
            name = j.get("name")
            if not name:
                raise Ros2ControlError(f"<ros2_control name={system!r}>: a <joint> without name")
            if name in seen:
                raise Ros2ControlError(f"joint '{name}' is in <ros2_control> blocks "
                                       f"'{seen[name]}' and '{system}'")
            seen[name] = system
            commands = []
            for c in j.findall("command_interface"):
                prm = _params(c)
                where = f"<ros2_control> joint '{name}' command_interface '{c.get('name')}'"
                lo = _float(prm["min"], where + " min") if "min" in prm else None
                hi = _float(prm["max"], where + " max") if "max" in prm else None
                if lo is not None and hi is not None and not lo < hi:
                    raise Ros2ControlError(f"{where}: min {lo:g} is not below max {hi:g}")
                commands.append(CommandInterface(c.get("name", ""), lo, hi))
            states = tuple(s.get("name", "") for s in j.findall("state_interface"))
            out.append(HardwareJoint(name, system, plugin, tuple(commands), states, _params(j)))
    return out


@dataclasses.dataclass(frozen=True)
class Gains:
    """The node parameters' defaults (a joint's own <param name="kp"/"kv"> wins)."""

    kp: float = 1000.0
    kv: float = 50.0
    velocity_kv: float = 100.0


def _gain(joint: HardwareJoint, key: str, default: float) -> float:
    if key not in joint.params:
        return default
    v = _float(joint.params[key], f"<ros2_control> joint '{joint.name}' param {key}")
    if v < 0:
        raise Ros2ControlError(f"<ros2_control> joint '{joint.name}' param {key}: {v:g} < 0")
    return v


def choose_interfaces(joints: list[HardwareJoint], claimed: dict[str, str]) -> dict[str, str]:
    """joint name -> the command interface its actuator serves: the claimed one (it must be
    among the joint's command interfaces), else the default (position, velocity, effort)."""
    out = {}
    for j in joints:
        want = claimed.get(j.name)
        if want is not None:
            if j.command(want) is None:
                raise Ros2ControlError(
                    f"joint '{j.name}': a controller claims its '{want}' command interface, "
                    f"which its <ros2_control> block does not list "
                    f"({', '.join(c.name for c in j.commands) or 'none'})")
            out[j.name] = want
        else:
            default = j.default_interface()
            if default is not None:
                out[j.name] = default
    return out


def actuator_xml(joints: list[HardwareJoint], interfaces: dict[str, str], gains: Gains,
                 skip: set[str] = frozenset()) -> str:
    """The MJCF `<actuator>` section (inside `<mujoco>`) for `joints`: one actuator per joint
    with an entry in `interfaces`, except the joints in `skip` (those the URDF actuates itself)."""
    lines = []
    for j in joints:
        kind = interfaces.get(j.name)
        if kind is None or j.name in skip:
            continue
        c = j.command(kind)
        attrs = f"name={quoteattr(ACTUATOR_PREFIX + j.name)} joint={quoteattr(j.name)}"
        if c.min is not None or c.max is not None:
            lo = c.min if c.min is not None else -1e10   # one-sided: MuJoCo needs both ends
            hi = c.max if c.max is not None else 1e10
            attrs += f' ctrlrange="{lo!r} {hi!r}" ctrllimited="true"'
        if kind == "position":
            kp, kv = _gain(j, "kp", gains.kp), _gain(j, "kv", gains.kv)
            lines.append(f'    <position {attrs} kp="{kp!r}" kv="{kv!r}"/>')
        elif kind == "velocity":
            lines.append(f'    <velocity {attrs} kv="{_gain(j, "velocity_kv", gains.velocity_kv)!r}"/>')
        else:
            lines.append(f"    <motor {attrs}/>")
    if not lines:
        return ""
    return "<mujoco>\n  <actuator>\n" + "\n".join(lines) + "\n  </actuator>\n</mujoco>\n"


NO_ACTUATORS_HINT = (
    "the URDF has no actuators and no <ros2_control> block: its joints take efforts only "
    "(~/joint_commands effort, as generalized forces). To command positions or velocities, add "
    "a ros2_control block per robot (README, 'URDF robots: <ros2_control>'), e.g.\n"
    '  <ros2_control name="sim" type="system">\n'
    "    <hardware><plugin>mj_ros/SimSystem</plugin></hardware>\n"
    '    <joint name="JOINT"><command_interface name="position"/>'
    '<state_interface name="position"/><state_interface name="velocity"/></joint>\n'
    "  </ros2_control>")
