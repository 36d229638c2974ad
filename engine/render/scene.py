"""What the offscreen renderer draws of a model: the visible geoms, their colours and materials,
and the triangles of the geoms drawn as triangles (seed 001 "Visualization"; seed 000 "geom",
"material", "texture").

Which geoms: those whose group is shown by the option's ``geomgroup`` (MuJoCo's default
mjvOption shows groups 0, 1 and 2; Menagerie models put visual geoms in group 2 and collision
geoms in group 3) and whose colour is not fully transparent. A geom's colour is its rgba, or its
material's when it has a material and its rgba is the default (0.5, 0.5, 0.5, 1): MuJoCo's rule
(the geom's own rgba wins only when it was set). The ROS scene markers (mj_ros/scene.py) use the
same two functions.

How each geom is drawn (engine/render/raster.py): meshes, boxes and height fields as triangles
(exact: their surfaces are planar, so a pixel's depth is the ray's distance to the face);
spheres, capsules, ellipsoids, cylinders and planes analytically, per pixel, with the ray
routines of mj_ray (engine/ray.py), so their depth equals mj_ray's too.
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtGeom

DEFAULT_GROUPS = (0, 1, 2)
DEFAULT_RGBA = np.array([0.5, 0.5, 0.5, 1.0], np.float32)

# how a geom is drawn (raster.py): by its triangles, or by the analytic ray routines
KIND_TRIANGLES, KIND_PRIMITIVE = 0, 1
_PRIMITIVES = (int(mjtGeom.mjGEOM_PLANE), int(mjtGeom.mjGEOM_SPHERE),
               int(mjtGeom.mjGEOM_CAPSULE), int(mjtGeom.mjGEOM_ELLIPSOID),
               int(mjtGeom.mjGEOM_CYLINDER))
_BOX, _MESH, _HFIELD = int(mjtGeom.mjGEOM_BOX), int(mjtGeom.mjGEOM_MESH), int(mjtGeom.mjGEOM_HFIELD)

# a box's corners (signs of its half-sizes) and its 12 triangles, counter-clockwise from outside
_BOX_CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)],
                        float)
_BOX_FACES = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                       [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]],
                      np.int32)


def geom_rgba(m, g: int) -> np.ndarray:
    """The colour MuJoCo's renderer gives geom `g` (rgba 0-1)."""
    rgba = np.asarray(m.geom_rgba[g], np.float32)
    mat = int(m.geom_matid[g])
    if mat >= 0 and np.array_equal(rgba, DEFAULT_RGBA):
        return np.asarray(m.mat_rgba[mat], np.float32)
    return rgba


def visual_geoms(m, groups=DEFAULT_GROUPS) -> list[int]:
    """Ids of the geoms a viewer shows: in `groups`, not fully transparent."""
    keep = set(int(g) for g in groups)
    return [g for g in range(int(m.ngeom))
            if int(m.geom_group[g]) in keep and float(geom_rgba(m, g)[3]) > 0]


def _hfield_triangles(m, h):
    """Vertices (n, 3) and faces (k, 3) of height field `h`'s top surface in its geom's frame:
    centred, elevation scaled to [0, size z] (seed 000 "hfield")."""
    nr, nc = int(m.hfield_nrow[h]), int(m.hfield_ncol[h])
    sx, sy, sz = (float(v) for v in m.hfield_size[h][:3])
    adr = int(m.hfield_adr[h])
    z = np.asarray(m.hfield_data[adr:adr + nr * nc], float).reshape(nr, nc) * sz
    x, y = np.linspace(-sx, sx, nc), np.linspace(-sy, sy, nr)
    vert = np.stack(np.broadcast_arrays(x[None, :], y[:, None], z), -1).reshape(-1, 3)
    i = np.arange(nr * nc).reshape(nr, nc)
    a, b, c, d = i[:-1, :-1], i[:-1, 1:], i[1:, 1:], i[1:, :-1]
    face = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3),
                           np.stack([a, c, d], -1).reshape(-1, 3)])
    return vert, face.astype(np.int32)


class SceneGeometry:
    """The model's drawable geometry, built once per model and geom-group selection.

    Attributes (flat arrays the kernels read):
      geoms (n,) int32: drawn geom ids; kind (n,) int32: KIND_TRIANGLES or KIND_PRIMITIVE;
      shape (n,) int32: for triangles, the index of its triangle set (-1 otherwise);
      shape_vertadr, shape_vertnum, shape_faceadr, shape_facenum (s,) int32;
      shape_vert (V, 3) float64 in the geom's frame (m); shape_face (F, 3) int32, indices
      relative to the shape's first vertex; rgba (ngeom, 4) float64: every geom's colour.
    """

    def __init__(self, m, groups=DEFAULT_GROUPS):
        self.geoms = np.array(visual_geoms(m, groups), np.int32)
        types = np.asarray(m.geom_type)
        verts, faces, shape_of = [], [], {}
        self.kind = np.zeros(len(self.geoms), np.int32)
        self.shape = np.full(len(self.geoms), -1, np.int32)

        def add(key, make):
            if key not in shape_of:
                shape_of[key] = len(verts)
                v, f = make()
                verts.append(np.asarray(v, float).reshape(-1, 3))
                faces.append(np.asarray(f, np.int32).reshape(-1, 3))
            return shape_of[key]

        def mesh(k):
            va, nv = int(m.mesh_vertadr[k]), int(m.mesh_vertnum[k])
            fa, nf = int(m.mesh_faceadr[k]), int(m.mesh_facenum[k])
            return m.mesh_vert[va:va + nv], m.mesh_face[fa:fa + nf]

        keep = np.ones(len(self.geoms), bool)
        for i, g in enumerate(self.geoms):
            t = int(types[g])
            if t in _PRIMITIVES:
                self.kind[i] = KIND_PRIMITIVE
                continue
            self.kind[i] = KIND_TRIANGLES
            if t == _BOX:
                size = np.asarray(m.geom_size[g], float)
                self.shape[i] = add(("box", *size), lambda: (_BOX_CORNERS * size, _BOX_FACES))
            elif t == _MESH:
                k = int(m.geom_dataid[g])
                self.shape[i] = add(("mesh", k), lambda: mesh(k))
            elif t == _HFIELD:
                h = int(m.geom_dataid[g])
                self.shape[i] = add(("hfield", h), lambda: _hfield_triangles(m, h))
            else:   # SDF geoms (engine plugins) have no surface the renderer can draw
                keep[i] = False
        self.geoms, self.kind, self.shape = self.geoms[keep], self.kind[keep], self.shape[keep]
        nv = np.array([len(v) for v in verts], np.int32)
        nf = np.array([len(f) for f in faces], np.int32)
        self.shape_vertnum, self.shape_facenum = nv, nf
        self.shape_vertadr = (np.cumsum(nv) - nv).astype(np.int32)
        self.shape_faceadr = (np.cumsum(nf) - nf).astype(np.int32)
        self.shape_vert = (np.concatenate(verts) if verts else np.zeros((0, 3))).astype(float)
        self.shape_face = (np.concatenate(faces) if faces else
                           np.zeros((0, 3), np.int32)).astype(np.int32)
        self.max_vert = int(nv.max()) if len(nv) else 1
        self.rgba = np.array([geom_rgba(m, g) for g in range(int(m.ngeom))],
                             float).reshape(-1, 4)
