"""The topic convention of topic_based_ros2_control, for users who run their own controller_manager.

topic_based_ros2_control (PickNikRobotics; also ros-controls' joint_state_topic_hardware_interface)
is a ros2_control hardware plugin that talks to a robot or simulator over two topics, both
sensor_msgs/JointState, named by its `<hardware><param>`s:

  joint_commands_topic (default /robot_joint_command): the plugin's `write()` publishes, for every
    joint of its `<ros2_control>` block in block order, the commands of the interfaces that joint
    lists: a joint's position command goes to `position`, velocity to `velocity`, effort to
    `effort`. An array holds one entry per joint that lists that interface, in name order, so a
    block whose joints all list the same interfaces gives arrays as long as `name`.
  joint_states_topic (default /robot_joint_states): the plugin's `read()` takes position (and
    velocity, effort where filled) by joint name.

The node serves both (parameters hardware_commands_topic, hardware_states_topic; empty turns one
off). States: the node's joint_states message itself, published on the second topic as well (same
bytes, same rate). Commands: each joint takes the value of the interface its actuator serves (the
claimed `<ros2_control>` interface, mj_ros/ros2_control.py; for a model without the block: its
position actuator, else velocity, else effort), through the node's command path (limits,
clamping, lockstep); values of the joint's other interfaces and NaN values (a command interface
nobody has written yet) are ignored. A message naming an unknown joint is dropped as a whole, as
every bad command is.
"""
from __future__ import annotations

import math

import numpy as np
from sensor_msgs.msg import JointState

from mj_ros import commands as cmds

FIELDS = ("position", "velocity", "effort")


def active_interfaces(cmap: cmds.CommandMap, claimed: dict[str, str]) -> dict[str, str]:
    """joint -> the command interface it obeys: `claimed` (ros2_control joints), else by the
    joint's actuators (position, velocity, else effort: a motor or a generalized force)."""
    out = {}
    for name in cmap.joint_names:
        acts = cmap.joints[name].actuators
        out[name] = claimed.get(name) or (
            "position" if cmds.POSITION in acts else
            "velocity" if cmds.VELOCITY in acts else "effort")
    return out


def unpack(names, arrays: dict[str, list], listed: dict[str, tuple[str, ...]]) -> dict:
    """{field: {joint: value}} of a commands message: an array as long as `names` is aligned
    with it; a shorter one holds the values of the joints that list that interface (`listed`:
    joint -> its command interfaces), in name order, as the plugin packs them. Raises
    CommandError for an array that fits neither."""
    out = {}
    for field in FIELDS:
        values = list(arrays.get(field) or [])
        if not values:
            continue
        if len(values) == len(names):
            owners = list(names)
        else:
            owners = [n for n in names if field in listed.get(n, ())]
            if len(owners) != len(values):
                raise cmds.CommandError(
                    f"{field} has {len(values)} entries for {len(names)} joints "
                    f"({len(owners)} of which list a {field} command interface)")
        out[field] = dict(zip(owners, (float(v) for v in values)))
    return out


def merge(parts: list[cmds.Command]) -> cmds.Command:
    """One Command of several (disjoint joints)."""
    cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)  # noqa: E731
    return cmds.Command(cat([p.ctrl_idx for p in parts], int), cat([p.ctrl_val for p in parts], float),
                        cat([p.dof_idx for p in parts], int), cat([p.dof_val for p in parts], float),
                        sum(p.clamped for p in parts),
                        next((p.note for p in parts if p.note), ""))


class TopicHardware:
    """The two topics of topic_based_ros2_control on node `node` for the simulation `sim`
    (the node: cmap, count_event, drop, submit_command). `hardware`: the URDF's
    `<ros2_control>` joints (mj_ros/ros2_control.py), `claimed`: joint -> interface served."""

    def __init__(self, node, sim, commands_topic: str, states_topic: str, hardware, claimed,
                 depth: int = 10):
        self.sim = sim
        self.interfaces = active_interfaces(sim.cmap, claimed)
        self.listed = {j.name: tuple(c.name for c in j.commands) for j in hardware}
        self.commands_topic = commands_topic
        self.states_pub = None
        if commands_topic:
            node.create_subscription(JointState, commands_topic, self._on_commands, depth)
        if states_topic:
            self.states_pub = node.create_publisher(JointState, states_topic, depth)

    def command(self, msg: JointState) -> cmds.Command | None:
        """The Command of one commands message (None: nothing to apply); raises CommandError."""
        names = list(msg.name)
        unknown = [n for n in names if n not in self.interfaces]
        if unknown:
            raise cmds.CommandError(f"unknown joint '{unknown[0]}'")
        fields = unpack(names, {f: getattr(msg, f) for f in FIELDS}, self.listed)
        parts = []
        for field in FIELDS:
            chosen = [(n, v) for n, v in fields.get(field, {}).items()
                      if self.interfaces[n] == field and not math.isnan(v)]
            if chosen:
                js, vs = zip(*chosen)
                parts.append(self.sim.cmap.joint_state(
                    js, **{f: (vs if f == field else []) for f in FIELDS}))
        return merge(parts) if parts else None

    def _on_commands(self, msg: JointState) -> None:
        self.sim.count_event()
        try:
            command = self.command(msg)
        except cmds.CommandError as e:
            return self.sim.drop(self.commands_topic, e)
        if command is not None:
            self.sim.submit_command(self.commands_topic, command)
