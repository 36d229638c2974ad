"""The node's preserialized state messages hold exactly the engine's numbers.

An in-process SimNode (own rclpy Context, nothing spun) steps the default robot with every stream
due; each message's bytes are deserialized by rclpy and compared with MjData and the frame table:
the compiled fill (outputs.StateOutputs.fill, frames.moving_poses_into) must write every slot.
"""
from __future__ import annotations

import numpy as np
import pytest
import rclpy
from rclpy.parameter import Parameter

from conftest import needs_stepping

pytestmark = [pytest.mark.ros, needs_stepping]


@pytest.fixture
def node(domain_id):
    from mj_ros.sim_node import SimNode
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=domain_id)
    over = [Parameter("speed", value=0.0), Parameter("max_publish_rate", value=0.0)]
    over += [Parameter(f"{k}_rate", value=0.0)
             for k in ("clock", "joint_states", "imu", "wrench", "sensor", "tf")]
    n = SimNode(context=ctx, parameter_overrides=over)
    yield n
    n.destroy_node()
    rclpy.try_shutdown(context=ctx)


def test_every_message_holds_the_engine_state(node):
    m, d, out = node.model, node.data, node.out
    rng = np.random.default_rng(5)
    node._ctrl_cmd[:] = rng.uniform(-1, 1, m.nu)  # moving, so no slot can pass by being 0
    node._qfrc_cmd[:] = rng.uniform(-0.1, 0.1, m.nv)
    for _ in range(57):
        node.step()
    b = out.batch
    sec, nsec = b.check(out._e_clock).clock.sec, b.check(out._e_clock).clock.nanosec
    assert sec * 10**9 + nsec == round(node.simclock.last * 1e9) > 0

    js = b.check(out._e_js)
    joints = list(node.cmap.joints.values())
    assert list(js.name) == [j.name for j in joints]
    q = [d.qpos[j.qposadr] for j in joints]
    v = [d.qvel[j.dofadr] for j in joints]
    e = [d.qfrc_actuator[j.dofadr] + d.qfrc_applied[j.dofadr] for j in joints]
    np.testing.assert_array_equal(js.position, q)
    np.testing.assert_array_equal(js.velocity, v)
    np.testing.assert_array_equal(js.effort, e)
    assert np.abs(js.velocity).max() > 0 and np.abs(js.effort).max() > 0
    assert (js.header.stamp.sec, js.header.stamp.nanosec) == (sec, nsec)

    (e_imu, _), = out.imu.entries
    imu, g = b.check(e_imu), node.layout.imus[0]
    s = d.sensordata
    o, w, a = imu.orientation, imu.angular_velocity, imu.linear_acceleration
    np.testing.assert_array_equal([o.w, o.x, o.y, o.z], s[g.quat.adr:g.quat.adr + 4])
    np.testing.assert_array_equal([w.x, w.y, w.z], s[g.gyro.adr:g.gyro.adr + 3])
    np.testing.assert_array_equal([a.x, a.y, a.z], s[g.accel.adr:g.accel.adr + 3])
    (e_ft, _), = out.wrench.entries
    ft, g = b.check(e_ft), node.layout.wrenches[0]
    f, t = ft.wrench.force, ft.wrench.torque
    np.testing.assert_array_equal([f.x, f.y, f.z], s[g.force.adr:g.force.adr + 3])
    np.testing.assert_array_equal([t.x, t.y, t.z], s[g.torque.adr:g.torque.adr + 3])
    for (entry, src), other in zip(out.other.entries, node.layout.others):
        msg = b.check(entry)   # the default robot's: touch sensors, DynamicJointState
        np.testing.assert_array_equal(msg.interface_values[0].values, s[src])
        assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (sec, nsec)
        assert len(src) == other.sensor.dim

    tf = b.check(out._e_tf)
    node._mj_kinematics(m, d)
    pos, quat = node.frames.moving_poses(d.xpos, d.xquat)
    assert len(tf.transforms) == len(pos) > 0
    for tr, p, qq in zip(tf.transforms, pos, quat):
        x, r = tr.transform.translation, tr.transform.rotation
        np.testing.assert_array_equal([x.x, x.y, x.z, r.w, r.x, r.y, r.z], [*p, *qq])
        assert (tr.header.stamp.sec, tr.header.stamp.nanosec) == (sec, nsec)
