"""simulation_interfaces' spawn, delete and set-state services over rclpy on loopback (issue 22,
point 4): a box spawned above the default robot's workspace falls onto a table spawned there,
comes to rest, is moved and deleted; bad requests get error results; /clock never goes back."""
from __future__ import annotations

import pytest
import rclpy  # noqa: F401  (required: CI installs ROS 2 through scripts/setup)
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from simulation_interfaces.msg import Result
from simulation_interfaces.srv import DeleteEntity, SetEntityState, SpawnEntity
from tf2_msgs.msg import TFMessage
from std_srvs.srv import Trigger
from visualization_msgs.msg import MarkerArray

from conftest import START_TIMEOUT, needs_stepping

pytestmark = [pytest.mark.ros, needs_stepping]

NODE = "/mj_ros_sim"
TABLE = """<mujoco><worldbody>
  <body name="top" mocap="true"><geom type="box" size="0.15 0.15 0.02"/></body>
</worldbody></mujoco>"""   # a mocap body: static, moved only by set_entity_state
BOX = """<mujoco><worldbody>
  <body name="b"><geom type="box" size="0.03 0.03 0.03" mass="0.2"/></body>
</worldbody></mujoco>"""   # no joint: the spawned box gets a free joint
CRATE = """<robot name="crate"><link name="crate_link">
  <inertial><mass value="0.3"/>
    <inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><box size="0.05 0.05 0.05"/></geometry></collision>
</link></robot>"""         # URDF: its one link comes in free as well
TABLE_TOP = 0.10 + 0.02    # m: the table's centre height plus its half thickness
BOX_HALF = 0.03


def stamp(s) -> float:
    return s.sec + s.nanosec * 1e-9


def spawn_request(name, xml="", uri="", pos=(0.0, 0.0, 0.0), frame="", allow_renaming=False):
    req = SpawnEntity.Request(name=name, allow_renaming=allow_renaming)
    req.entity_resource.resource_string = xml
    req.entity_resource.uri = uri
    req.initial_pose.header.frame_id = frame
    p = req.initial_pose.pose.position
    p.x, p.y, p.z = pos
    return req


def heights(tf_box, frame: str) -> list[tuple[float, float]]:
    """(stamp, z) of `frame` in every /tf message received, in order."""
    out = []
    for _, msg in tf_box:
        for tr in msg.transforms:
            if tr.child_frame_id == frame:
                out.append((stamp(tr.header.stamp), tr.transform.translation.z))
    return out


def test_spawn_fall_rest_move_delete(sim, probe, tmp_path):
    s = sim(speed=1.0, tf_rate=50.0)
    clock = probe.subscribe(Clock, "/clock", depth=100000)
    tf = probe.subscribe(TFMessage, "/tf", depth=100000)
    probe.wait_matched("/clock", s, START_TIMEOUT)
    js = probe.subscribe(JointState, "/joint_states", depth=100000)
    markers = probe.subscribe(MarkerArray, "/scene_markers")
    probe.wait_matched("/tf", s)
    probe.wait(lambda: markers and js, 30, "scene_markers and joint_states", s)
    n_markers = len(markers[-1][1].markers)
    js_names = list(js[-1][1].name)

    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("table", TABLE, pos=(0.45, 0.0, 0.10)), START_TIMEOUT)
    assert r.result.result == Result.OK, r.result.error_message
    assert r.entity_name == "table"
    # the box comes from a file URI, above the table
    path = tmp_path / "box.xml"
    path.write_text(BOX)
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("box", uri=f"file://{path}", pos=(0.45, 0.0, 0.40)))
    assert r.result.result == Result.OK, r.result.error_message
    assert r.entity_name == "box"
    t_spawn = stamp(clock[-1][1].clock)

    # it falls, then rests on the table: wait for 2 s of sim time after the spawn
    probe.wait(lambda: stamp(clock[-1][1].clock) > t_spawn + 2.0, 120, "2 s of sim time", s)
    probe.spin_for(0.2)
    z = heights(tf, "box")
    assert z, "the box is not on /tf"
    assert z[0][1] > 0.35                              # where it was spawned
    rest = TABLE_TOP + BOX_HALF
    settled = [h for t, h in z if t > z[-1][0] - 0.5]  # the last 0.5 s of sim time
    assert all(abs(h - rest) < 0.005 for h in settled), (rest, settled[:5], settled[-5:])
    assert max(settled) - min(settled) < 1e-3           # at rest, not bouncing
    falling = [h for t, h in z if t < z[0][0] + 0.2]     # free fall: 0.2 s covers 0.2 m
    assert all(b < a for a, b in zip(falling[1:], falling[2:])), falling  # strictly down
    # the robot's own frames and joints are still published; the table and box are drawn
    assert any(tr.child_frame_id == "shoulder_link" for tr in tf[-1][1].transforms)
    assert list(js[-1][1].name) == js_names
    assert stamp(js[-1][1].header.stamp) > t_spawn + 1.5
    assert len(markers[-1][1].markers) == n_markers + 2

    # a URDF model: it falls onto the table too (checked after the requests below)
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("crate", CRATE, pos=(0.38, -0.08, 0.35)))
    assert r.result.result == Result.OK, r.result.error_message
    t_crate = stamp(clock[-1][1].clock)

    # a name clash, a model that does not parse, nothing at all, a bad pose: error results
    r = probe.call(SpawnEntity, NODE + "/spawn_entity", spawn_request("box", BOX))
    assert r.result.result == SpawnEntity.Response.NAME_NOT_UNIQUE
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("shoulder_link", BOX))  # a body of the robot
    assert r.result.result == SpawnEntity.Response.NAME_NOT_UNIQUE
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("box", BOX, pos=(0.3, 0.2, 0.5), allow_renaming=True))
    assert r.result.result == Result.OK and r.entity_name == "box_1", r
    r = probe.call(SpawnEntity, NODE + "/spawn_entity", spawn_request("bad", "<mujoco><world"))
    assert r.result.result == SpawnEntity.Response.RESOURCE_PARSE_ERROR
    assert r.result.error_message
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("bad", '<mujoco><worldbody><body name="x"><geom type="box"/>'
                                        '</body></worldbody></mujoco>'))   # box without a size
    assert r.result.result != Result.OK and r.result.error_message
    r = probe.call(SpawnEntity, NODE + "/spawn_entity", spawn_request("empty"))
    assert r.result.result == SpawnEntity.Response.NO_RESOURCE
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("nowhere", uri="/no/such/file.xml"))
    assert r.result.result == SpawnEntity.Response.MISSING_ASSETS
    req = spawn_request("tilted", BOX)
    req.initial_pose.pose.orientation.w = 0.0
    r = probe.call(SpawnEntity, NODE + "/spawn_entity", req)
    assert r.result.result == SpawnEntity.Response.INVALID_POSE
    r = probe.call(SpawnEntity, NODE + "/spawn_entity",
                   spawn_request("bad name!", BOX))
    assert r.result.result == SpawnEntity.Response.NAME_INVALID

    probe.wait(lambda: stamp(clock[-1][1].clock) > t_crate + 1.5, 120, "the crate's fall", s)
    probe.spin_for(0.2)
    z = heights(tf, "crate")
    assert z[0][1] > 0.3 and z[-1][1] == pytest.approx(TABLE_TOP + 0.025, abs=0.005), z[-1]

    # set_entity_state: lift the box 0.2 m above the table (in the table's frame)
    req = SetEntityState.Request(entity="box")
    req.state.header.frame_id = "table"
    req.state.pose.position.z = 0.2
    r = probe.call(SetEntityState, NODE + "/set_entity_state", req)
    assert r.result.result == Result.OK, r.result.error_message
    t_set = stamp(clock[-1][1].clock)
    probe.wait(lambda: any(t > t_set and h > TABLE_TOP + 0.1 for t, h in heights(tf, "box")),
               60, "the box lifted", s)
    r = probe.call(SetEntityState, NODE + "/set_entity_state",
                   SetEntityState.Request(entity="nobody"))
    assert r.result.result == Result.NOT_FOUND
    req = SetEntityState.Request(entity="shoulder_link")   # a hinge-jointed link
    r = probe.call(SetEntityState, NODE + "/set_entity_state", req)
    assert r.result.result == Result.OPERATION_FAILED

    # delete: the box leaves /tf; the robot's body cannot be deleted; unknown names are not found
    assert probe.call(DeleteEntity, NODE + "/delete_entity",
                      DeleteEntity.Request(entity="nobody")).result.result == Result.NOT_FOUND
    assert probe.call(DeleteEntity, NODE + "/delete_entity",
                      DeleteEntity.Request(entity="base_link")).result.result \
        == Result.OPERATION_FAILED
    r = probe.call(DeleteEntity, NODE + "/delete_entity", DeleteEntity.Request(entity="box"))
    assert r.result.result == Result.OK, r.result.error_message
    t_del = stamp(clock[-1][1].clock)
    n = len(tf)
    probe.wait(lambda: any(stamp(m.transforms[0].header.stamp) > t_del + 0.1
                           for _, m in tf[n:] if m.transforms), 60, "/tf after the delete", s)
    after = [m for _, m in tf[n:] if m.transforms   # the probe's clock may lag a little
             and stamp(m.transforms[0].header.stamp) > t_del + 0.05]
    assert after and all(tr.child_frame_id != "box" for m in after for tr in m.transforms)
    assert any(tr.child_frame_id == "box_1" for tr in after[-1].transforms)
    assert probe.call(DeleteEntity, NODE + "/delete_entity",
                      DeleteEntity.Request(entity="box")).result.result == Result.NOT_FOUND

    # reset: box_1 (spawned beside the table, falling ever since) goes back to where it was
    # spawned (the keyframe holds its initial pose)
    probe.wait(lambda: heights(tf, "box_1")[-1][1] < 0.0, 60, "box_1 below the floor level", s)
    t_before = stamp(clock[-1][1].clock)
    assert probe.call(Trigger, NODE + "/reset", Trigger.Request()).success
    z = probe.wait(lambda: [h for t, h in heights(tf, "box_1") if t > t_before and h > 0.0], 60,
                   "box_1 after the reset", s)
    assert max(z) == pytest.approx(0.5, abs=1e-6)

    times = [stamp(m.clock) for _, m in clock]
    assert all(b >= a for a, b in zip(times, times[1:])), "clock went back"
    assert times[-1] > t_del
    assert s.alive()
    assert s.stop() == 0
    assert "Traceback" not in s.output()
