"""What ROS viewers see: scene_markers (one marker per visual geom, world poses) and
robot_description (the URDF given, or one generated from an MJCF model).

Unit tests of mj_ros/scene.py and description.py against mujoco's own fields, then the node over
loopback: its markers' poses against mujoco's geom_xpos / geom_xmat at the same state.
"""
from __future__ import annotations

import pathlib
import struct
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest

import engine
from mj_ros import description, scene
from mj_ros import frames as fr

REPO = pathlib.Path(__file__).resolve().parents[2]
MODEL = REPO / "test" / "models" / "scene_markers.xml"
# geoms a viewer shows in the model: groups 0-2 and not transparent (collision_box is group 3,
# ghost has alpha 0)
VISUAL = ["floor", "infinite", "terrain", "box", "capsule", "cylinder", "sphere", "ellipsoid",
          "tet"]


def _read_stl(path) -> np.ndarray:
    data = pathlib.Path(path).read_bytes()
    (n,) = struct.unpack_from("<I", data, 80)
    assert len(data) == 84 + 50 * n
    rec = np.frombuffer(data, dtype=[("n", "<f4", 3), ("v", "<f4", 9), ("a", "<u2")], count=n,
                        offset=84)
    return rec["v"].reshape(n, 3, 3).astype(float)


def _canonical(tri: np.ndarray) -> np.ndarray:
    """Triangles (k, 3, 3) each rotated to start at its lexicographically least corner (the
    orientation kept), then sorted: equal for the same oriented triangles in any order."""
    out = []
    for t in np.round(np.asarray(tri, float), 6):
        i = min(range(3), key=lambda j: tuple(t[j]))
        out.append(np.roll(t, -i, axis=0).ravel())
    return np.array(sorted(map(tuple, out)))


@pytest.fixture(scope="module")
def models():
    return engine.MjModel.from_xml_path(str(MODEL)), mujoco.MjModel.from_xml_path(str(MODEL))


def test_markers_one_per_visual_geom_with_mujoco_shapes_and_colours(models, tmp_path):
    m, ref = models
    marks = scene.geom_markers(m, directory=tmp_path)
    names = [mujoco.mj_id2name(ref, mujoco.mjtObj.mjOBJ_GEOM, mk.geom) for mk in marks]
    assert names == VISUAL
    by = dict(zip(names, marks))
    assert by["box"].type == scene.M_CUBE and by["box"].scale == pytest.approx((0.2, 0.4, 0.1))
    assert by["sphere"].type == scene.M_SPHERE and by["sphere"].scale == pytest.approx((.08,) * 3)
    assert by["ellipsoid"].scale == pytest.approx((0.04, 0.06, 0.1))
    assert by["cylinder"].type == scene.M_CYLINDER
    assert by["cylinder"].scale == pytest.approx((0.08, 0.08, 0.1))
    assert by["floor"].scale == pytest.approx((4, 4, scene.PLANE_THICKNESS))
    assert by["infinite"].scale[0] == pytest.approx(2 * ref.stat.extent)
    # colours: the geom's rgba, the material's when the geom keeps the default
    assert by["capsule"].rgba == pytest.approx(tuple(ref.mat_rgba[0]))
    assert by["tet"].rgba == pytest.approx((0.2, 0.8, 0.2, 0.5))
    assert by["sphere"].rgba == pytest.approx((0.5, 0.5, 0.5, 1))


def test_mesh_files_hold_the_compiled_triangles(models, tmp_path):
    m, ref = models
    by = {mujoco.mj_id2name(ref, mujoco.mjtObj.mjOBJ_GEOM, mk.geom): mk
          for mk in scene.geom_markers(m, directory=tmp_path)}
    for name in ("capsule", "tet", "terrain"):
        mk = by[name]
        assert mk.type == scene.M_MESH and mk.mesh_resource.startswith("file:///")
        assert pathlib.Path(mk.mesh_path).is_file()
    # the mesh in the geom's frame: mujoco's mesh_vert (mesh frame) through its faces (the
    # same oriented triangles; a point cloud's hull triangles may be listed in another order)
    tri = _read_stl(by["tet"].mesh_path)
    want = ref.mesh_vert[ref.mesh_face[:ref.mesh_facenum[0]]]
    np.testing.assert_allclose(_canonical(tri), _canonical(want), atol=1e-6)
    # the capsule's surface: every vertex at distance radius from its axis segment
    r, h = ref.geom_size[by["capsule"].geom][:2]
    v = _read_stl(by["capsule"].mesh_path).reshape(-1, 3)
    z = np.clip(v[:, 2], -h, h)
    dist = np.linalg.norm(v - np.stack([0 * z, 0 * z, z], 1), axis=1)
    np.testing.assert_allclose(dist, r, atol=1e-6)
    # the height field spans its size, elevation scaled to [0, size z]
    v = _read_stl(by["terrain"].mesh_path).reshape(-1, 3)
    sx, sy, sz = ref.hfield_size[0][:3]
    assert v[:, 0].min() == pytest.approx(-sx) and v[:, 0].max() == pytest.approx(sx)
    assert v[:, 1].min() == pytest.approx(-sy) and v[:, 1].max() == pytest.approx(sy)
    assert v[:, 2].min() == pytest.approx(0) and v[:, 2].max() == pytest.approx(sz)
    # content-addressed: a second call reuses the same files
    again = scene.geom_markers(m, directory=tmp_path)
    assert [k.mesh_path for k in again] == [k.mesh_path for k in by.values()]


def test_geom_poses_equal_mujoco_geom_xpos_and_xmat(models):
    m, ref = models
    d, rd = engine.MjData(m), mujoco.MjData(ref)
    for k in (d, rd):
        k.qpos[:] = ref.key_qpos[0]
        k.qpos[7] = 0.3
    engine.mj_kinematics(m, d)
    mujoco.mj_kinematics(ref, rd)
    geoms = np.arange(ref.ngeom)
    pos, quat = scene.geom_poses(m, d, geoms)
    np.testing.assert_allclose(pos, rd.geom_xpos, atol=1e-12)
    for g in geoms:
        want = np.zeros(4)
        mujoco.mju_mat2Quat(want, rd.geom_xmat[g])
        assert min(np.abs(quat[g] - want).max(), np.abs(quat[g] + want).max()) < 1e-12


def test_generated_urdf_links_joints_and_visuals(models, tmp_path):
    m, ref = models
    frames = list(fr.from_model(m, engine).anchors)[:m.nbody]
    joints = [engine.mj_id2name(m, engine.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
    marks = scene.geom_markers(m, directory=tmp_path)
    root = ET.fromstring(description.urdf_from_model(m, frames, joints, marks, "scene",
                                                     directory=tmp_path))
    assert root.tag == "robot" and root.get("name") == "scene"
    assert [k.get("name") for k in root.iter("link")] == ["world", "base", "arm", "tip"]
    kinds = {j.get("name"): j.get("type") for j in root.iter("joint")}
    assert kinds == {"base_joint": "floating", "hinge": "revolute", "slide": "prismatic"}
    hinge = next(j for j in root.iter("joint") if j.get("name") == "hinge")
    lim = hinge.find("limit")
    np.testing.assert_allclose([float(lim.get("lower")), float(lim.get("upper"))],
                               ref.jnt_range[1], atol=1e-9)
    # each joint's origin is the body's pose in its parent (rpy -> quaternion as mujoco's)
    for j in root.iter("joint"):
        b = mujoco.mj_name2id(ref, mujoco.mjtObj.mjOBJ_BODY, j.find("child").get("link"))
        o = j.find("origin")
        np.testing.assert_allclose([float(x) for x in o.get("xyz").split()], ref.body_pos[b],
                                   atol=1e-8)
        r, p, y = (float(x) for x in o.get("rpy").split())
        q = fr.rpy_to_quat(r, p, y)
        assert min(np.abs(q - ref.body_quat[b]).max(), np.abs(q + ref.body_quat[b]).max()) < 1e-7
    visuals = sum(len(link.findall("visual")) for link in root.iter("link"))
    assert visuals == len(VISUAL)
    for mesh in root.iter("mesh"):
        assert pathlib.Path(mesh.get("filename")[len("file://"):]).is_file()


# -- the node ------------------------------------------------------------------------------------

@pytest.mark.ros
def test_node_publishes_markers_and_description(sim, probe):
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String
    from visualization_msgs.msg import Marker, MarkerArray

    from conftest import START_TIMEOUT

    s = sim(model=str(MODEL), paused=True, initial_keyframe="home")
    # both topics are transient local: a paused node publishes its markers once, at the reset,
    # perhaps before this subscriber is discovered
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    markers: list = []
    probe.node.create_subscription(MarkerArray, "/scene_markers",
                                   lambda m: markers.append((0.0, m)), latched)
    desc: list = []
    probe.node.create_subscription(String, "/robot_description", lambda m: desc.append(m.data),
                                   latched)
    probe.wait(lambda: markers and desc, START_TIMEOUT, "scene_markers and robot_description", s)
    ref = mujoco.MjModel.from_xml_path(str(MODEL))
    rd = mujoco.MjData(ref)
    mujoco.mj_resetDataKeyframe(ref, rd, 0)
    mujoco.mj_kinematics(ref, rd)
    msg = markers[-1][1]
    ids = [k.id for k in msg.markers]
    assert ids == [mujoco.mj_name2id(ref, mujoco.mjtObj.mjOBJ_GEOM, n) for n in VISUAL]
    for k in msg.markers:
        assert k.header.frame_id == "world" and k.ns == "geoms" and k.action == Marker.ADD
        p, q = k.pose.position, k.pose.orientation
        np.testing.assert_allclose([p.x, p.y, p.z], rd.geom_xpos[k.id], atol=1e-9)
        want = np.zeros(4)
        mujoco.mju_mat2Quat(want, rd.geom_xmat[k.id])
        got = np.array([q.w, q.x, q.y, q.z])
        assert min(np.abs(got - want).max(), np.abs(got + want).max()) < 1e-9
        if k.type == Marker.MESH_RESOURCE:
            assert pathlib.Path(k.mesh_resource[len("file://"):]).is_file()
    root = ET.fromstring(desc[-1])
    assert [k.get("name") for k in root.iter("link")] == ["world", "base", "arm", "tip"]
    assert s.alive()


@pytest.mark.ros
def test_node_publishes_a_given_urdf_unchanged(sim, probe):
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    from conftest import ARM_MODEL, START_TIMEOUT

    s = sim(paused=True)
    desc: list = []
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    probe.node.create_subscription(String, "/robot_description", lambda m: desc.append(m.data),
                                   latched)
    probe.wait(lambda: desc, START_TIMEOUT, "robot_description", s)
    path = pathlib.Path(ARM_MODEL) if ARM_MODEL else REPO / "urdf" / "mj_arm.urdf"
    assert desc[-1] == path.read_text()


def test_urdf_detection_reads_the_root_element():
    """A URDF whose leading comment mentions <mujoco> is a URDF; an MJCF is not."""
    urdf = ('<?xml version="1.0"?>\n<!-- uses a <mujoco> block -->\n'
            '<robot name="r"><link name="a"/></robot>')
    assert fr.urdf_text_of("xml", urdf) == urdf
    assert fr.urdf_text_of("xml", '<!-- a <robot> -->\n<mujoco model="m"/>') is None
    assert fr.urdf_text_of("xml", MODEL.read_text()) is None
