"""Where the renderer looks from: a camera's pose and its pixel intrinsics (seed 001
"Visualization" cameras; seed 000 "camera": fovy, resolution, focal, principal, sensorsize).

A MuJoCo camera looks along its frame's -z axis with +y up and +x to the right; ``cam_xmat``
(row-major) has those axes as columns, in the world frame.

Intrinsics are in pixels for an image of width x height: focal lengths fx, fy and the principal
point (px, py) measured from the image's top-left corner (x right, y down), so the pixel
(row r, column c) sees the camera-frame direction ((c + 0.5 - px) / fx, -(r + 0.5 - py) / fy, -1).
With ``fovy`` (degrees, vertical) pixels are square and the principal point is the image centre.
A camera given by its sensor (``sensorsize`` > 0, with ``focal`` and ``principal`` in length
units, stored in ``cam_intrinsic`` as fx, fy, cx, cy) has fx = focal_x / sensor_x * width,
fy = focal_y / sensor_y * height, and the principal point at width * (1/2 - principal_x /
sensor_x), height * (1/2 - principal_y / sensor_y) from the top-left corner (the signs as
MuJoCo's renderer places the image: test/engine/test_render.py compares segmentations).
"""
from __future__ import annotations

import math

import numpy as np

from ..enums import mjtCamera, mjtProjection


def intrinsics(m, camid: int, width: int, height: int, ortho: bool = False):
    """(fx, fy, px, py) in pixels of model camera ``camid`` (-1: the free camera, whose
    vertical field of view is ``m.vis.global_.fovy``) for a width x height image. With an
    orthographic projection ``fovy`` is the view's height in metres and fx = fy are pixels per
    metre."""
    if ortho:
        fovy = float(m.cam_fovy[camid]) if camid >= 0 else float(m.vis.global_.fovy)
        f = height / fovy
        return f, f, 0.5 * width, 0.5 * height
    if camid >= 0 and float(m.cam_sensorsize[camid][1]) > 0.0:
        fxl, fyl, cxl, cyl = (float(v) for v in m.cam_intrinsic[camid])
        sx, sy = (float(v) for v in m.cam_sensorsize[camid])
        return (fxl / sx * width, fyl / sy * height,
                width * (0.5 - cxl / sx), height * (0.5 - cyl / sy))
    fovy = float(m.cam_fovy[camid]) if camid >= 0 else float(m.vis.global_.fovy)
    f = 0.5 * height / math.tan(math.radians(fovy) / 2.0)
    return f, f, 0.5 * width, 0.5 * height


def free_camera_pose(lookat, distance, azimuth, elevation):
    """Position (3,) and row-major orientation (9,) of a free camera orbiting ``lookat`` at
    ``distance`` (m), ``azimuth`` about +z and ``elevation`` (degrees, negative looks down),
    as mjvCamera's free and tracking cameras."""
    az, el = math.radians(float(azimuth)), math.radians(float(elevation))
    fwd = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    up = np.array([-math.sin(el) * math.cos(az), -math.sin(el) * math.sin(az), math.cos(el)])
    right = np.cross(fwd, up)
    pos = np.asarray(lookat, float) - float(distance) * fwd
    return pos, np.stack([right, up, -fwd], axis=1).reshape(9)


def camera_pose(m, d, cam):
    """(position (3,), orientation (9,), camera id or -1, orthographic) of an MjvCamera
    ``cam`` for the state ``d`` (its camera poses current): a fixed camera is the model
    camera's cam_xpos/cam_xmat and projection; free and tracking cameras orbit their look-at
    point (a tracking camera's is the tracked body's subtree centre of mass) with the
    MjvCamera's projection."""
    t = int(cam.type)
    if t == int(mjtCamera.mjCAMERA_FIXED):
        k = int(cam.fixedcamid)
        if not 0 <= k < int(m.ncam):
            raise ValueError(f"The camera id {k} is out of range [-1, {int(m.ncam)}).")
        return (np.array(d.cam_xpos[k], float), np.array(d.cam_xmat[k], float).reshape(9), k,
                int(m.cam_projection[k]) == int(mjtProjection.mjPROJ_ORTHOGRAPHIC))
    if t == int(mjtCamera.mjCAMERA_FREE):
        lookat = cam.lookat
    elif t == int(mjtCamera.mjCAMERA_TRACKING):
        lookat = d.subtree_com[int(cam.trackbodyid)]
    else:
        raise NotImplementedError("engine.Renderer: user cameras (mjCAMERA_USER) are not "
                                  "rendered yet")
    pos, mat = free_camera_pose(lookat, cam.distance, cam.azimuth, cam.elevation)
    return pos, mat, -1, bool(cam.orthographic)
