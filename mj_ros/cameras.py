"""Camera images: every selected MJCF <camera> as sensor_msgs/Image (rgb8 and 32FC1 depth) with
sensor_msgs/CameraInfo, rendered by the engine's offscreen renderer (engine.Renderer).

Topics per camera (``<camera>`` is the camera's name made topic-safe, prefixed by topic_prefix):
``<camera>/image_raw`` (rgb8), ``<camera>/depth/image_raw`` (32FC1: metres along the optical
axis, REP 118; +inf where nothing is within the far clipping plane) and
``<camera>/camera_info``. All stamped with the sim time of the rendered state; frame_id is the
camera's optical frame ``<frame_prefix><camera>_optical`` (z forward, x right, y down: REP 103),
which /tf_static publishes under the camera's frame (mj_ros/frames.py). Row 0 of an image is its
top; the optical frame's x and y follow the image's columns and rows.

CameraInfo (image_pipeline's pinhole model, plumb_bob with zero distortion): K = [fx 0 cx; 0 fy
cy; 0 0 1] and P = [K | 0] in pixels, with (cx, cy) in the OpenCV convention where integer pixel
coordinates are pixel centres: cx = px - 1/2 for the renderer's principal point px measured from
the image's corner. fx = fy = (height / 2) / tan(fovy / 2) for a camera given by fovy; a camera
given by its sensor (focal, principal, sensorsize) gets its own fx, fy and principal point
(engine/render/camera.py). No pinhole model fits an orthographic camera: its K holds its
pixels per metre as fx = fy and its principal point.

Size: the camera's ``resolution`` attribute when the MJCF gives one (> 1 x 1), otherwise
camera_width x camera_height.

Threading: images are rendered on a worker thread. The step loop calls `tick` between steps
(at every executor poll, also while paused or waiting in lockstep): when a frame is due by wall
time (camera_rate) and the worker is idle, the state is taken (kinematics and camera poses
brought up to date, each camera's scene copied: microseconds) and the worker is woken; the
renderer's kernels release the GIL, so physics and publishing go on meanwhile. A due frame
waits for a busy worker (it is taken at the first tick the worker is idle) up to one period,
then it is dropped (counted): the step loop never waits for the renderer.
"""
from __future__ import annotations

import dataclasses
import math
import threading
import time

import numpy as np
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import CameraInfo, Image

from engine.render.camera import intrinsics
from mj_ros import cdr, model_io
from mj_ros import frames as fr
from mj_ros.topics import topic_name

# reliable keep-last 1: a late frame is replaced by the next, and default (reliable)
# subscriptions such as RViz's and rclpy's match
IMAGE_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                       reliability=ReliabilityPolicy.RELIABLE)
ALL = "all"


class CameraConfigError(model_io.ModelLoadError):
    """A camera selection the node refuses (unknown camera, image larger than the model's
    offscreen buffer); str(e) is the one line to show."""


def select(names, cam_names: list[str]) -> list[int]:
    """Camera ids of the ``cameras`` parameter: [] none, ["all"] every camera, else by name."""
    names = list(names)
    if names == [ALL]:
        return list(range(len(cam_names)))
    ids = []
    for n in names:
        if n not in cam_names:
            known = ", ".join(c for c in cam_names if c) or "none"
            raise CameraConfigError(f"cameras: unknown camera '{n}' (the model's cameras: "
                                    f"{known}; or ['all'])")
        ids.append(cam_names.index(n))
    return ids


def camera_info(width: int, height: int, intrinsics, frame_id: str) -> CameraInfo:
    """CameraInfo of a width x height image from the renderer's pixel intrinsics
    (fx, fy, px, py: principal point from the image's corner): module docstring."""
    fx, fy, px, py = (float(v) for v in intrinsics)
    cx, cy = px - 0.5, py - 0.5
    msg = CameraInfo()
    msg.header.frame_id = frame_id
    msg.width, msg.height = int(width), int(height)
    msg.distortion_model = "plumb_bob"
    msg.d = [0.0] * 5
    msg.k = [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


class _RawImage:
    """One Image topic's message, serialized once: each frame overwrites the stamp and the
    pixel bytes (the last field, so the CDR buffer's tail) and publishes the bytes."""

    def __init__(self, pub, frame_id, width, height, encoding, itemsize, channels):
        msg = Image()
        msg.header.frame_id = frame_id
        msg.height, msg.width = int(height), int(width)
        msg.encoding = encoding
        msg.is_bigendian = 0
        msg.step = int(width) * itemsize * channels
        n = msg.step * int(height)
        msg.data = bytes(n)
        raw, _, (stamp,) = cdr.locate(msg, [], [msg.header.stamp])
        self.buf = bytearray(raw)
        self.stamp = np.frombuffer(self.buf, np.uint32, 2, stamp)
        self.pixels = np.frombuffer(self.buf, np.uint8, n, len(raw) - n)
        self._send = cdr._raw_publisher(pub)

    def publish(self, sec: int, nsec: int) -> None:
        self.stamp[:] = (sec, nsec)
        self._send(bytes(self.buf))


@dataclasses.dataclass
class _Camera:
    camid: int
    name: str
    renderer: object
    rgb: np.ndarray         # (h, w, 3) uint8, a view of the rgb message's pixel bytes
    depth: np.ndarray       # (h, w) float32, a view of the depth message's pixel bytes
    image: _RawImage
    depth_image: _RawImage
    info: CameraInfo
    info_pub: object


class CameraStreams:
    """The camera topics of one model (module docstring). ``tick`` from the step loop,
    ``close`` at shutdown."""

    def __init__(self, node, model, mj, names, rate: float, width: int, height: int,
                 frame_prefix: str = "", topic_prefix: str = ""):
        self._mj, self.model = mj, model
        self._log = node.get_logger()
        cam_names = [mj.mj_id2name(model, mj.mjtObj.mjOBJ_CAMERA, i) or ""
                     for i in range(int(model.ncam))]
        self.period = 1.0 / float(rate)
        self.cameras: list[_Camera] = []
        for c in select(names, cam_names):
            name = fr._name(cam_names, c, "camera")   # as its tf frame is named
            res = [int(v) for v in model.cam_resolution[c]]
            w, h = (res[0], res[1]) if res[0] > 1 and res[1] > 1 else (int(width), int(height))
            try:
                renderer = mj.Renderer(model, h, w)
            except ValueError as e:     # larger than <visual><global offwidth offheight>
                raise CameraConfigError(f"camera '{name}': {w}x{h}: "
                                        + " ".join(str(e).split())) from None
            frame = frame_prefix + name + "_optical"
            base = topic_prefix + topic_name(name)
            image = _RawImage(node.create_publisher(Image, base + "/image_raw", IMAGE_QOS),
                              frame, w, h, "rgb8", 1, 3)
            depth = _RawImage(node.create_publisher(Image, base + "/depth/image_raw",
                                                    IMAGE_QOS), frame, w, h, "32FC1", 4, 1)
            ortho = int(model.cam_projection[c]) == int(mj.mjtProjection.mjPROJ_ORTHOGRAPHIC)
            info = camera_info(w, h, intrinsics(model, c, w, h, ortho), frame)
            self.cameras.append(_Camera(
                c, name, renderer, image.pixels.reshape(h, w, 3),
                depth.pixels.view(np.float32).reshape(h, w), image, depth, info,
                node.create_publisher(CameraInfo, base + "/camera_info", IMAGE_QOS)))
        self.rendered = 0       # frames (all cameras) published
        self.dropped = 0        # frames due while the worker was busy
        self.render_time = 0.0  # s of wall time spent rendering and publishing (worker)
        self._next = 0.0
        self._stamp = (0, 0)
        self._busy = False
        self._stop = False
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._error: BaseException | None = None
        self._far = float(model.vis.map.zfar) * float(model.stat.extent)
        self._thread = None
        if self.cameras:
            # compile (or load) the renderer's kernels now, before the first step: compiling
            # holds the GIL, on the worker it would stall the physics (an empty scene has the
            # same argument types as a full one)
            self.cameras[0].renderer.render_rgbd(self.cameras[0].rgb, self.cameras[0].depth)
            self._thread = threading.Thread(target=self._work, name="mj_ros cameras",
                                            daemon=True)
            self._thread.start()

    def __bool__(self) -> bool:
        return bool(self.cameras)

    def tick(self, d, sec: int, nsec: int, now: float | None = None, force: bool = False) -> bool:
        """Take a frame of state ``d`` stamped (sec, nsec) if one is due by wall time (or
        ``force``) and the worker is idle; True if taken. Call between steps only."""
        if self._error is not None:     # reported, and the next frame tried: never fatal
            err, self._error = self._error, None
            self._log.error(f"camera rendering failed: {type(err).__name__}: {err}")
        now = time.monotonic() if now is None else now
        if not force and now < self._next:
            return False
        if self._busy:
            # the due frame waits for the worker, up to one period; then it is dropped
            if self._next and now >= self._next + self.period:
                self.dropped += len(self.cameras)
                self._next += self.period
            return False
        m, mj = self.model, self._mj
        mj.mj_kinematics(m, d)      # mj_step leaves the poses of the state it started from
        mj.mj_camlight(m, d)
        for cam in self.cameras:
            cam.renderer.update_scene(d, cam.camid)
        self._stamp = (int(sec), int(nsec))
        # the next frame one period after this one was due (the rate holds while rendering
        # takes less than a period); after a stall, no burst of catching-up frames
        self._next = self._next + self.period if self._next else now + self.period
        self._next = max(self._next, now)
        self._busy = True
        self._idle.clear()
        self._wake.set()
        return True

    def stats(self) -> list[tuple[str, object]]:
        """/diagnostics values: frames published and dropped (all cameras), mean render ms."""
        mean = 1e3 * self.render_time / max(1, self.rendered // max(1, len(self.cameras)))
        return [("camera_frames", self.rendered), ("camera_frames_dropped", self.dropped),
                ("camera_render_ms", f"{mean:.1f}")]

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait for the frame in flight to be published (tests, benchmarks)."""
        return self._idle.wait(timeout)

    def _work(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stop:
                return
            t0 = time.perf_counter()
            try:
                sec, nsec = self._stamp
                for cam in self.cameras:
                    cam.renderer.render_rgbd(cam.rgb, cam.depth)
                    # REP 118: +inf where nothing is in range (the renderer leaves far there)
                    cam.depth[cam.depth >= np.float32(self._far)] = math.inf
                    cam.image.publish(sec, nsec)
                    cam.depth_image.publish(sec, nsec)
                    cam.info.header.stamp.sec, cam.info.header.stamp.nanosec = sec, nsec
                    cam.info_pub.publish(cam.info)
                    self.rendered += 1
            except Exception as e:  # noqa: BLE001 - logged by the step loop's next tick
                self._error = e
            self.render_time += time.perf_counter() - t0
            self._busy = False
            self._idle.set()

    def close(self) -> None:
        """Stop the worker (after the frame in flight)."""
        self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        for cam in self.cameras:
            cam.renderer.close()


def from_params(node, model, mj, p) -> CameraStreams | None:
    """The node's camera streams from its parameters (``p``: name -> value), None when off."""
    if not list(p("cameras")):
        return None
    return CameraStreams(node, model, mj, p("cameras"), p("camera_rate"), p("camera_width"),
                         p("camera_height"), p("frame_prefix"), p("topic_prefix"))
