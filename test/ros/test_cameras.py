"""Camera image topics (mj_ros/cameras.py) over loopback.

A paused node publishes its cameras' frames of the initial state: the rgb image must equal
engine.Renderer's for that state (the same kernels: bitwise), the depth at sampled pixels must
equal mujoco's mj_ray distance along the ray that CameraInfo's K gives for the pixel (so K,
the optical frame convention and the depth agree; relative 2e-7: float32 depth), with +inf
where the ray meets nothing within the far plane (REP 118). Running, frames keep coming with
increasing sim stamps.
"""
from __future__ import annotations

import math
import pathlib

import mujoco
import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray
from sensor_msgs.msg import CameraInfo, Image
from std_srvs.srv import SetBool

import engine
from conftest import START_TIMEOUT
from mj_ros import cameras

REPO = pathlib.Path(__file__).resolve().parents[2]
MODEL = REPO / "test" / "models" / "render_scene.xml"


def test_camera_info_from_fovy_and_sensor():
    m = engine.MjModel.from_xml_path(str(MODEL))
    from engine.render.camera import intrinsics
    front = engine.mj_name2id(m, engine.mjtObj.mjOBJ_CAMERA, "front")
    info = cameras.camera_info(320, 240, intrinsics(m, front, 320, 240), "front_optical")
    f = 120 / math.tan(math.radians(50) / 2)
    assert info.k == pytest.approx([f, 0, 159.5, 0, f, 119.5, 0, 0, 1])
    assert info.p == pytest.approx([f, 0, 159.5, 0, 0, f, 119.5, 0, 0, 0, 1, 0])
    assert (info.width, info.height, info.header.frame_id) == (320, 240, "front_optical")
    sensor = engine.mj_name2id(m, engine.mjtObj.mjOBJ_CAMERA, "sensor")
    k = cameras.camera_info(160, 120, intrinsics(m, sensor, 160, 120), "s").k
    # focal 4 mm on a 6 x 4.5 mm sensor; principal point offset (0.3, -0.2) mm
    assert k[0] == pytest.approx(0.004 / 0.006 * 160)
    assert k[4] == pytest.approx(0.004 / 0.0045 * 120)
    assert k[2] == pytest.approx(160 * (0.5 - 0.05) - 0.5)
    assert k[5] == pytest.approx(120 * (0.5 + 0.2 / 4.5) - 0.5)


def test_select_cameras():
    names = ["front", "", "side"]
    assert cameras.select([], names) == []
    assert cameras.select(["all"], names) == [0, 1, 2]
    assert cameras.select(["side", "front"], names) == [2, 0]
    with pytest.raises(cameras.CameraConfigError, match="unknown camera 'back'"):
        cameras.select(["back"], names)


def test_camera_parameters_checked():
    from mj_ros import params
    assert params.check("cameras", ["all"]) == ["all"]
    assert params.check("camera_rate", 15) == 15.0          # an integer for a double
    for name, value, why in (("camera_rate", 0.0, "a rate in Hz > 0"),
                             ("camera_width", 0, "an integer from 1 to 8192"),
                             ("cameras", ["all", "front"], "['all'] alone"),
                             ("cameras", ["front", "front"], "distinct camera names")):
        with pytest.raises(params.ParameterError, match=why.replace("[", r"\[")):
            params.check(name, value)
    assert "camera_rate (double, default 30.0)" in params.help_text("sim")


def _decode(msg: Image) -> np.ndarray:
    if msg.encoding == "rgb8":
        return np.frombuffer(bytes(msg.data), np.uint8).reshape(msg.height, msg.width, 3)
    assert msg.encoding == "32FC1" and not msg.is_bigendian
    return np.frombuffer(bytes(msg.data), np.float32).reshape(msg.height, msg.width)


def _depth_against_mj_ray(depth, info: CameraInfo, cam: str, seg):
    """Depth at sampled pixels equals mj_ray along the pixel's ray from K (optical frame:
    z forward, y down, x right; MuJoCo's camera: -z forward, y up). Pixels showing a site
    (``seg``: the renderer's segmentation) are skipped: mj_ray does not see sites."""
    mm = mujoco.MjModel.from_xml_path(str(MODEL))
    md = mujoco.MjData(mm)
    mujoco.mj_forward(mm, md)
    c = mm.camera(cam).id
    pos, mat = md.cam_xpos[c].copy(), md.cam_xmat[c].reshape(3, 3)
    fx, cx, fy, cy = info.k[0], info.k[2], info.k[4], info.k[5]
    far = mm.vis.map.zfar * mm.stat.extent
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(300):
        v, u = int(rng.integers(0, info.height)), int(rng.integers(0, info.width))
        if seg[v, u, 1] == int(mujoco.mjtObj.mjOBJ_SITE):
            continue
        optical = np.array([(u - cx) / fx, (v - cy) / fy, 1.0])
        vec = mat @ (optical * np.array([1.0, -1.0, -1.0]))
        x = mujoco.mj_ray(mm, md, pos, vec, np.array([1, 1, 1, 0, 0, 0], np.uint8), 1, -1,
                          np.zeros(1, np.int32))
        if x < 0 or x > far:
            assert depth[v, u] == math.inf, (v, u)
        else:
            assert depth[v, u] == pytest.approx(x, rel=2e-7, abs=1e-7), (v, u)
            hits += 1
    assert hits > 50


def test_node_publishes_camera_images(sim, probe):
    s = sim(model=str(MODEL), paused=True, cameras="[front, sensor]", camera_rate=20.0)
    topics = {(cam, kind): f"/{cam}/{kind}" for cam in ("front", "sensor")
              for kind in ("image_raw", "depth/image_raw", "camera_info")}
    boxes = {key: probe.subscribe(CameraInfo if key[1] == "camera_info" else Image, t, 50)
             for key, t in topics.items()}
    probe.wait(lambda: all(boxes.values()), START_TIMEOUT, "camera topics", s)
    m = engine.MjModel.from_xml_path(str(MODEL))
    d = engine.MjData(m)
    engine.mj_forward(m, d)
    for cam, (w, h) in (("front", (320, 240)), ("sensor", (160, 120))):
        rgb_msg = boxes[cam, "image_raw"][-1][1]
        depth_msg = boxes[cam, "depth/image_raw"][-1][1]
        info = boxes[cam, "camera_info"][-1][1]
        for msg, enc, step in ((rgb_msg, "rgb8", 3 * w), (depth_msg, "32FC1", 4 * w)):
            assert (msg.width, msg.height, msg.encoding, msg.step) == (w, h, enc, step)
            assert msg.header.frame_id == cam + "_optical"
        assert (info.width, info.height, info.header.frame_id) == (w, h, cam + "_optical")
        assert rgb_msg.header.stamp == depth_msg.header.stamp == info.header.stamp
        # the paused state is the initial one: the image is engine.Renderer's for it
        with engine.Renderer(m, h, w) as r:
            r.update_scene(d, cam)
            want_rgb, want_depth = r.render_rgbd()
            r.enable_segmentation_rendering()
            seg = r.render()
        np.testing.assert_array_equal(_decode(rgb_msg), want_rgb)
        depth = _decode(depth_msg)
        hit = want_depth < m.vis.map.zfar * m.stat.extent
        np.testing.assert_array_equal(depth[hit], want_depth[hit])
        assert np.all(np.isposinf(depth[~hit]))
        _depth_against_mj_ray(depth, info, cam, seg)
    # running: frames keep coming, stamped with advancing sim time
    diags = probe.subscribe(DiagnosticArray, "/diagnostics", 10)
    n0 = len(boxes["front", "image_raw"])
    probe.call(SetBool, "/mj_ros_sim/pause", SetBool.Request(data=False))
    probe.spin_for(2.0)
    got = boxes["front", "image_raw"][n0:]
    assert len(got) >= 10, f"{len(got)} frames in 2 s at camera_rate 20"
    stamps = [m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for _, m in got]
    # (the first may still be paused frames of time 0)
    moving = [t for t in stamps if t > 0]
    assert len(moving) >= 5 and stamps[-1] > 0.5, stamps
    assert all(b > a for a, b in zip(moving, moving[1:])), stamps
    # /diagnostics counts the frames (both cameras)
    probe.wait(lambda: diags, 10.0, "/diagnostics", s)
    values = {kv.key: kv.value for st in diags[-1][1].status for kv in st.values}
    assert int(values["camera_frames"]) >= 2 * 10 and "camera_frames_dropped" in values


def test_unknown_camera_is_a_clear_start_error(sim, probe):
    s = sim(model=str(MODEL), cameras="[back]")
    probe.wait(lambda: not s.alive(), START_TIMEOUT, "the node to exit", s)
    assert s.stop() == 1
    assert "cameras: unknown camera 'back'" in s.output()
