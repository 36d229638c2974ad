"""A URDF of an MJCF model, for ROS tools that draw a robot from `robot_description` (RViz's
RobotModel, Foxglove's URDF layer).

Pure (no ROS, no engine import). One link per body, named after the body's tf frame
(mj_ros/frames.py), so the tf the node publishes moves it; the world body is the root link. Each
body's visual geoms (mj_ros/scene.py: the groups a viewer shows) are its link's `<visual>`
elements with their colour; shapes URDF lacks (capsule, ellipsoid, mesh, height field) are
binary STL files named by file:// URIs, written by scene.py.

Joints: a body with one hinge is `revolute` (`continuous` if unlimited), one slide `prismatic`;
a body without joints is `fixed`; a free joint, a ball joint, several joints in one body and a
mocap body are `floating` (URDF has no ball joint and one joint per link; tf carries the actual
pose). Origins are the bodies' reference poses in their parents (body_pos, body_quat). Limits
are the joint ranges; effort and velocity limits are 0 (MJCF states them on actuators, not
joints). No inertial or collision elements: the URDF describes what to draw, not the dynamics,
which the simulator owns.
"""
from __future__ import annotations

import math
from xml.sax.saxutils import quoteattr

from mj_ros import scene as sc

FREE, BALL, SLIDE, HINGE = 0, 1, 2, 3     # mjtJoint


def quat_to_rpy(q) -> tuple[float, float, float]:
    """URDF's fixed-axis roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)) of a w-first unit
    quaternion."""
    w, x, y, z = (float(c) for c in q)
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw


def _origin(pos, quat) -> str:
    xyz = " ".join(f"{float(v):.9g}" for v in pos)
    rpy = " ".join(f"{v:.9g}" for v in quat_to_rpy(quat))
    return f'<origin xyz="{xyz}" rpy="{rpy}"/>'


def _geometry(m, mk: sc.GeomMarker, unit_sphere: str) -> str:
    g, t = mk.geom, int(m.geom_type[mk.geom])
    size = [float(s) for s in m.geom_size[g]]
    if t == sc.SPHERE:
        return f'<sphere radius="{size[0]:.9g}"/>'
    if t == sc.BOX or t == sc.PLANE:
        return '<box size="{:.9g} {:.9g} {:.9g}"/>'.format(*mk.scale)
    if t == sc.CYLINDER:
        return f'<cylinder radius="{size[0]:.9g}" length="{2 * size[1]:.9g}"/>'
    if t == sc.ELLIPSOID:
        return f'<mesh filename="{unit_sphere}" scale="{size[0]:.9g} {size[1]:.9g} {size[2]:.9g}"/>'
    return f'<mesh filename="{mk.mesh_resource}"/>'


def urdf_from_model(m, frame_names, joint_names, markers, model_name="mj_ros",
                    directory=None) -> str:
    """The URDF text of compiled model `m`: `frame_names` the tf frame of each body (index 0
    the world), `joint_names` each joint's name (None if unnamed), `markers` the visual geoms
    (scene.geom_markers of the same model)."""
    unit_sphere = ""
    if any(int(m.geom_type[mk.geom]) == sc.ELLIPSOID for mk in markers):
        unit_sphere = sc.write_mesh(sc.capsule_triangles(1.0, 0.0), directory).resolve().as_uri()
    visuals: dict[int, list[str]] = {}
    for mk in markers:
        g = mk.geom
        rgba = " ".join(f"{c:.6g}" for c in mk.rgba)
        visuals.setdefault(int(m.geom_bodyid[g]), []).append(
            f'    <visual>\n      {_origin(m.geom_pos[g], m.geom_quat[g])}\n'
            f'      <geometry>{_geometry(m, mk, unit_sphere)}</geometry>\n'
            f'      <material name="geom{g}"><color rgba="{rgba}"/></material>\n    </visual>')
    lines = [f"<robot name={quoteattr(model_name or 'mj_ros')}>"]
    for b in range(int(m.nbody)):
        body = visuals.get(b)
        name = quoteattr(frame_names[b])
        lines.append(f"  <link name={name}>\n" + "\n".join(body) + "\n  </link>" if body
                     else f"  <link name={name}/>")
    for b in range(1, int(m.nbody)):
        lines.append(_joint(m, b, frame_names, joint_names))
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


def _joint(m, b: int, frame_names, joint_names) -> str:
    parent, child = frame_names[int(m.body_parentid[b])], frame_names[b]
    num, adr = int(m.body_jntnum[b]), int(m.body_jntadr[b])
    jtype = int(m.jnt_type[adr]) if num == 1 else None
    name = (joint_names[adr] if num == 1 and joint_names[adr] else f"{child}_joint")
    extra = ""
    if num == 0 and int(m.body_mocapid[b]) < 0:
        kind = "fixed"
    elif jtype in (HINGE, SLIDE):
        axis = " ".join(f"{float(v):.9g}" for v in m.jnt_axis[adr])
        limited = bool(m.jnt_limited[adr])
        kind = ("revolute" if limited else "continuous") if jtype == HINGE else "prismatic"
        lo, hi = (float(v) for v in m.jnt_range[adr]) if limited or jtype == SLIDE else (0, 0)
        extra = f'\n    <axis xyz="{axis}"/>'
        if kind != "continuous":
            extra += f'\n    <limit lower="{lo:.9g}" upper="{hi:.9g}" effort="0" velocity="0"/>'
    else:
        kind = "floating"
    return (f"  <joint name={quoteattr(name)} type=\"{kind}\">\n"
            f"    <parent link={quoteattr(parent)}/>\n    <child link={quoteattr(child)}/>\n"
            f"    {_origin(m.body_pos[b], m.body_quat[b])}{extra}\n  </joint>")
