"""What a ROS viewer draws of a model: one marker per visual geom, and mesh files for them.

Pure (numpy; no ROS), so the node, the offline replay and tests share it.

Which geoms and their colours: as the engine's renderer draws them (engine/render/scene.py, one
home for MuJoCo's rule): the groups MuJoCo's viewer shows by default (0, 1 and 2), not fully
transparent, coloured by the geom's rgba or its material's.

Shapes (seed 000 "geom"; sizes are MuJoCo's half-lengths and radii, marker scales full lengths):
sphere and ellipsoid -> SPHERE (2 x radii), box -> CUBE (2 x half-sizes), cylinder -> CYLINDER
(z axis, both), plane -> a CUBE 1 mm thick (an infinite plane, size 0, is drawn 2 x the model's
extent wide); capsule, mesh and height field -> MESH_RESOURCE: a binary STL file in the geom's
frame, written once into a cache directory (keyed by content) and named by a file:// URI, which
RViz and Foxglove load. A marker's pose is its geom's: geom_xpos, and the orientation of
geom_xmat (the body's xquat times geom_quat), in the world frame.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib
import struct
import tempfile

import numpy as np

from engine.render.scene import DEFAULT_GROUPS, geom_rgba, visual_geoms
from mj_ros import frames as fr

# mjtGeom codes (MuJoCo's enum; the node's model is an engine model, whose mjtGeom matches)
PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)
# visualization_msgs/Marker type codes
M_CUBE, M_SPHERE, M_CYLINDER, M_MESH = 1, 2, 3, 10
PLANE_THICKNESS = 0.001     # m
CAPSULE_SEGMENTS = 24       # around the axis; half as many rings per hemisphere


@dataclasses.dataclass(frozen=True)
class GeomMarker:
    """How one visual geom is drawn: geom id, Marker type, scale (3, m), rgba (4, 0-1), the
    mesh file's URI for MESH_RESOURCE ("" otherwise), and the mesh file's path."""
    geom: int
    type: int
    scale: tuple
    rgba: tuple
    mesh_resource: str = ""
    mesh_path: str = ""


def mesh_cache_dir() -> pathlib.Path:
    """Where mesh files for viewers are written: $MJ_ROS_MARKER_CACHE, else
    ~/.cache/mj_ros/markers ($XDG_CACHE_HOME respected)."""
    env = os.environ.get("MJ_ROS_MARKER_CACHE", "").strip()
    if env:
        return pathlib.Path(os.path.expanduser(env))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "mj_ros" / "markers"


def stl_bytes(tri: np.ndarray) -> bytes:
    """A binary STL of triangles (k, 3, 3) (metres), counter-clockwise seen from outside; the
    facet normals are left zero (viewers compute them from the vertex order)."""
    tri = np.asarray(tri, np.float32).reshape(-1, 9)
    rec = np.zeros(len(tri), dtype=[("n", "<f4", 3), ("v", "<f4", 9), ("a", "<u2")])
    rec["v"] = tri
    return b"mj_ros mesh".ljust(80, b"\0") + struct.pack("<I", len(tri)) + rec.tobytes()


def write_mesh(tri: np.ndarray, directory: pathlib.Path | None = None) -> pathlib.Path:
    """Write triangles (k, 3, 3) as an STL named by its content's hash (an existing file is
    reused), atomically; returns its path."""
    data = stl_bytes(tri)
    directory = mesh_cache_dir() if directory is None else pathlib.Path(directory)
    path = directory / (hashlib.sha256(data).hexdigest()[:32] + ".stl")
    if not path.is_file():
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".stl")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


def capsule_triangles(radius: float, half: float, n: int = CAPSULE_SEGMENTS) -> np.ndarray:
    """A capsule along z (cylinder of half-length `half` capped by hemispheres), (k, 3, 3)."""
    rings = max(2, n // 4)
    # latitude rings from the top pole to the bottom one; the cylinder joins the equators
    lat = np.concatenate([np.linspace(np.pi / 2, 0, rings + 1), np.linspace(0, -np.pi / 2,
                                                                            rings + 1)])
    zoff = np.concatenate([np.full(rings + 1, half), np.full(rings + 1, -half)])
    lon = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.stack([np.cos(lat)[:, None] * np.cos(lon), np.cos(lat)[:, None] * np.sin(lon),
                     np.broadcast_to((np.sin(lat) * 1.0)[:, None], (len(lat), n))], -1) * radius
    ring[..., 2] += zoff[:, None]
    a, b = ring[:-1], ring[1:]                       # ring i above ring i + 1
    a1, b1 = np.roll(a, -1, axis=1), np.roll(b, -1, axis=1)
    tri = np.concatenate([np.stack([a, b, b1], 2), np.stack([a, b1, a1], 2)], 1)
    return tri.reshape(-1, 3, 3)


def mesh_triangles(m, mesh: int) -> np.ndarray:
    """The triangles of mesh `mesh` in its mesh frame (the frame of geoms using it)."""
    va, nv = int(m.mesh_vertadr[mesh]), int(m.mesh_vertnum[mesh])
    fa, nf = int(m.mesh_faceadr[mesh]), int(m.mesh_facenum[mesh])
    vert = np.asarray(m.mesh_vert[va:va + nv], float)
    return vert[np.asarray(m.mesh_face[fa:fa + nf], np.int64)]


def hfield_triangles(m, h: int) -> np.ndarray:
    """The top surface of height field `h` in its geom's frame: centred, elevation data scaled
    to [0, size z] (seed 000 "hfield")."""
    nr, nc = int(m.hfield_nrow[h]), int(m.hfield_ncol[h])
    sx, sy, sz = (float(v) for v in m.hfield_size[h][:3])
    adr = int(m.hfield_adr[h])
    z = np.asarray(m.hfield_data[adr:adr + nr * nc], float).reshape(nr, nc) * sz
    x = np.linspace(-sx, sx, nc)
    y = np.linspace(-sy, sy, nr)
    p = np.stack(np.broadcast_arrays(x[None, :], y[:, None], z), -1)
    a, b, c, d = p[:-1, :-1], p[:-1, 1:], p[1:, 1:], p[1:, :-1]
    return np.concatenate([np.stack([a, b, c], 2).reshape(-1, 3, 3),
                           np.stack([a, c, d], 2).reshape(-1, 3, 3)])


def geom_markers(m, groups=DEFAULT_GROUPS, directory=None) -> list[GeomMarker]:
    """How each visual geom of `m` is drawn (module docstring); mesh files written as needed."""
    out, files = [], {}

    def mesh_file(key, make):
        if key not in files:
            files[key] = write_mesh(make(), directory)
        return files[key]

    extent = float(m.stat.extent) if hasattr(m, "stat") else 1.0
    for g in visual_geoms(m, groups):
        t, size = int(m.geom_type[g]), [float(s) for s in m.geom_size[g]]
        rgba = tuple(float(c) for c in geom_rgba(m, g))
        path = None
        if t in (SPHERE, ELLIPSOID):
            kind = M_SPHERE
            scale = (2 * size[0],) * 3 if t == SPHERE else tuple(2 * s for s in size)
        elif t == BOX:
            kind, scale = M_CUBE, tuple(2 * s for s in size)
        elif t == CYLINDER:
            kind, scale = M_CYLINDER, (2 * size[0], 2 * size[0], 2 * size[1])
        elif t == PLANE:
            w = [2 * s if s > 0 else 2 * extent for s in size[:2]]
            kind, scale = M_CUBE, (w[0], w[1], PLANE_THICKNESS)
        elif t == CAPSULE:
            kind, scale = M_MESH, (1.0, 1.0, 1.0)
            path = mesh_file(("capsule", size[0], size[1]),
                             lambda: capsule_triangles(size[0], size[1]))
        elif t == MESH:
            mesh = int(m.geom_dataid[g])
            kind, scale = M_MESH, (1.0, 1.0, 1.0)
            path = mesh_file(("mesh", mesh), lambda: mesh_triangles(m, mesh))
        elif t == HFIELD:
            h = int(m.geom_dataid[g])
            kind, scale = M_MESH, (1.0, 1.0, 1.0)
            path = mesh_file(("hfield", h), lambda: hfield_triangles(m, h))
        else:       # SDF geoms (engine plugins) have no shape a marker can show
            continue
        out.append(GeomMarker(g, kind, scale, rgba,
                              path.resolve().as_uri() if path is not None else "",
                              str(path) if path is not None else ""))
    return out


def geom_poses(m, d, geoms: np.ndarray):
    """World position (k, 3) and w-first quaternion (k, 4) of geoms `geoms`: geom_xpos and the
    orientation of geom_xmat, as the body's xquat times geom_quat (exact for a geom's fixed
    offset in its body). The kinematics of `d` must be current."""
    body = np.asarray(m.geom_bodyid, np.int64)[geoms]
    quat = fr.qmul(np.asarray(d.xquat)[body], np.asarray(m.geom_quat)[geoms])
    quat /= np.linalg.norm(quat, axis=-1, keepdims=True)
    return np.asarray(d.geom_xpos)[geoms], quat


def body_frame_names(m, body_names, world_frame: str) -> list[str]:
    """The tf frame of each body, as mj_ros/frames.py names them."""
    return [world_frame] + [fr._name(body_names, i, "body") for i in range(1, int(m.nbody))]
