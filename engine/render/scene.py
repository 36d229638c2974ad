"""What the offscreen renderer draws of a model: the visible geoms, their colours and materials,
and the triangles of the geoms drawn as triangles (seed 001 "Visualization"; seed 000 "geom",
"material", "texture").

Which geoms: those whose group is shown by the option's ``geomgroup`` (MuJoCo's default
mjvOption shows groups 0, 1 and 2; Menagerie models put visual geoms in group 2 and collision
geoms in group 3) and whose colour is not fully transparent. A geom's colour is its rgba, or its
material's when it has a material and its rgba is the default (0.5, 0.5, 0.5, 1): MuJoCo's rule
(the geom's own rgba wins only when it was set). The ROS scene markers (mj_ros/scene.py) use the
same two functions. Sites of the shown site groups (0-2 by default) are drawn too, as MuJoCo's
renderer draws them, with the same colour rule.

How each geom is drawn (engine/render/raster.py): meshes, boxes and height fields as triangles
(exact: their surfaces are planar, so a pixel's depth is the ray's distance to the face);
spheres, capsules, ellipsoids, cylinders and planes analytically, per pixel, with the ray
routines of mj_ray (engine/ray.py), so their depth equals mj_ray's too.
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtGeom, mjtObj

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
    return _rgba(m.geom_rgba[g], int(m.geom_matid[g]), m.mat_rgba)


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


def _rgba(rgba, matid, mat_rgba) -> np.ndarray:
    """MuJoCo's colour rule for a geom or site: its rgba, or its material's when it has one and
    its own rgba is the default."""
    rgba = np.asarray(rgba, np.float32)
    if matid >= 0 and np.array_equal(rgba, DEFAULT_RGBA):
        return np.asarray(mat_rgba[matid], np.float32)
    return rgba


def visual_sites(m, groups=DEFAULT_GROUPS) -> list[int]:
    """Ids of the sites MuJoCo's renderer shows: in `groups` (mjvOption.sitegroup, 0-2 by
    default), not fully transparent."""
    keep = set(int(g) for g in groups)
    return [s for s in range(int(m.nsite))
            if int(m.site_group[s]) in keep
            and float(_rgba(m.site_rgba[s], int(m.site_matid[s]), m.mat_rgba)[3]) > 0]


def _rbound(t, size) -> float:
    """Radius of a primitive's bounding sphere about its centre (geom_rbound for sites)."""
    r, h = float(size[0]), float(size[1])
    if t == int(mjtGeom.mjGEOM_SPHERE):
        return r
    if t == int(mjtGeom.mjGEOM_CAPSULE):
        return r + h
    if t == int(mjtGeom.mjGEOM_CYLINDER):
        return float(np.hypot(r, h))
    return float(np.linalg.norm(size))      # ellipsoid, box


# smoothnormal="false" (seed 000 "mesh"): faces at a large angle to a vertex's average normal
# are left out of it; here a corner keeps its face's own normal when the two differ by more
# than about 37 degrees (cosine below 0.8), so box edges and the creases of CAD meshes stay sharp
CREASE_COS = 0.8


def corner_normals(vert, face) -> np.ndarray:
    """Unit normals (F, 3, 3) at the three corners of each face: the average of the face
    normals at the corner's vertex, or the face's own normal across a crease (CREASE_COS).
    Faces wind counter-clockwise seen from outside."""
    vert, face = np.asarray(vert, float), np.asarray(face, np.int64)
    if len(face) == 0:
        return np.zeros((0, 3, 3))
    p = vert[face]                                          # (F, 3 corners, 3)
    fn = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    fu = fn / np.maximum(np.linalg.norm(fn, axis=1, keepdims=True), 1e-300)
    # each face's normal weighted by its angle at the vertex: independent of how a flat side
    # is split into triangles (area weights would let a box side cut in two outweigh the others)
    vn = np.zeros_like(vert)
    for k in range(3):
        e1, e2 = p[:, (k + 1) % 3] - p[:, k], p[:, (k + 2) % 3] - p[:, k]
        cos = np.einsum("fj,fj->f", e1, e2) / np.maximum(
            np.linalg.norm(e1, axis=1) * np.linalg.norm(e2, axis=1), 1e-300)
        np.add.at(vn, face[:, k], fu * np.arccos(np.clip(cos, -1.0, 1.0))[:, None])
    vn /= np.maximum(np.linalg.norm(vn, axis=1, keepdims=True), 1e-300)
    corner = vn[face]
    crease = np.einsum("fkj,fj->fk", corner, fu) < CREASE_COS
    corner[crease] = np.broadcast_to(fu[:, None, :], corner.shape)[crease]
    return corner


class SceneGeometry:
    """What one geom-group and site-group selection draws, built once per model and selection:
    the visible geoms, then the visible sites (MuJoCo draws sites too), as "items".

    Attributes (flat arrays the kernels read, one row per item):
      objtype, objid (n,) int32: mjOBJ_GEOM or mjOBJ_SITE and the object's id;
      type (n,) int32 (mjtGeom), size (n, 3), rgba (n, 4), matid (n,) int32, rbound (n,);
      kind (n,) int32: KIND_TRIANGLES or KIND_PRIMITIVE; shape (n,) int32: for triangles, the
      index of its triangle set (-1 otherwise);
      shape_vertadr, shape_vertnum, shape_faceadr, shape_facenum (s,) int32;
      shape_vert (V, 3) float64 in the object's frame (m); shape_face (F, 3) int32, indices
      relative to the shape's first vertex; corner_normal (F, 3, 3): each face's corner normals
      for smooth shading (corner_normals).
    `gather(d, xpos, xmat)` fills the items' world poses from a state.
    """

    def __init__(self, m, groups=DEFAULT_GROUPS, site_groups=DEFAULT_GROUPS):
        self.geoms = np.array(visual_geoms(m, groups), np.int32)
        self.sites = np.array(visual_sites(m, site_groups), np.int32)
        ng, ns = len(self.geoms), len(self.sites)
        n = ng + ns
        self.objtype = np.array([int(mjtObj.mjOBJ_GEOM)] * ng + [int(mjtObj.mjOBJ_SITE)] * ns,
                                np.int32)
        self.objid = np.concatenate([self.geoms, self.sites]).astype(np.int32)
        self.type = np.concatenate([np.asarray(m.geom_type)[self.geoms],
                                    np.asarray(m.site_type)[self.sites]]).astype(np.int32)
        self.size = np.concatenate([np.asarray(m.geom_size, float).reshape(-1, 3)[self.geoms],
                                    np.asarray(m.site_size, float).reshape(-1, 3)[self.sites]])
        self.matid = np.concatenate([np.asarray(m.geom_matid)[self.geoms],
                                     np.asarray(m.site_matid)[self.sites]]).astype(np.int32)
        self.rgba = np.array([geom_rgba(m, g) for g in self.geoms]
                             + [_rgba(m.site_rgba[s], int(m.site_matid[s]), m.mat_rgba)
                                for s in self.sites], float).reshape(n, 4)
        self.rbound = np.concatenate([
            np.asarray(m.geom_rbound, float)[self.geoms],
            [_rbound(int(m.site_type[s]), m.site_size[s]) for s in self.sites]]).astype(float)
        verts, faces, shape_of = [], [], {}
        self.kind = np.zeros(n, np.int32)
        self.shape = np.full(n, -1, np.int32)

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

        keep = np.ones(n, bool)
        for i in range(n):
            t = int(self.type[i])
            if t in _PRIMITIVES:
                self.kind[i] = KIND_PRIMITIVE
                continue
            self.kind[i] = KIND_TRIANGLES
            dataid = int(m.geom_dataid[self.objid[i]]) if i < ng else -1
            if t == _BOX:
                size = self.size[i].copy()
                self.shape[i] = add(("box", *size), lambda: (_BOX_CORNERS * size, _BOX_FACES))
            elif t == _MESH and dataid >= 0:
                self.shape[i] = add(("mesh", dataid), lambda: mesh(dataid))
            elif t == _HFIELD and dataid >= 0:
                self.shape[i] = add(("hfield", dataid), lambda: _hfield_triangles(m, dataid))
            else:   # SDF geoms (engine plugins) have no surface the renderer can draw
                keep[i] = False
        if not keep.all():
            for name in ("objtype", "objid", "type", "size", "matid", "rgba", "rbound", "kind",
                         "shape"):
                setattr(self, name, getattr(self, name)[keep])
            self.geoms = self.objid[self.objtype == int(mjtObj.mjOBJ_GEOM)]
        self._ng = len(self.geoms)
        nv = np.array([len(v) for v in verts], np.int32)
        nf = np.array([len(f) for f in faces], np.int32)
        self.shape_vertnum, self.shape_facenum = nv, nf
        self.shape_vertadr = (np.cumsum(nv) - nv).astype(np.int32)
        self.shape_faceadr = (np.cumsum(nf) - nf).astype(np.int32)
        self.shape_vert = (np.concatenate(verts) if verts else np.zeros((0, 3))).astype(float)
        self.shape_face = (np.concatenate(faces) if faces else
                           np.zeros((0, 3), np.int32)).astype(np.int32)
        self.max_vert = int(nv.max()) if len(nv) else 1
        self.corner_normal = (np.concatenate([corner_normals(v, f) for v, f in zip(verts, faces)])
                              if verts else np.zeros((0, 3, 3)))

    def __len__(self) -> int:
        return len(self.objid)

    def gather(self, d, xpos, xmat) -> None:
        """xpos (n, 3) and xmat (n, 9) := the items' world poses in state ``d``."""
        ng = self._ng
        np.take(d.geom_xpos, self.geoms, axis=0, out=xpos[:ng])
        np.take(d.geom_xmat, self.geoms, axis=0, out=xmat[:ng])
        if len(self.sites):
            np.take(d.site_xpos, self.sites, axis=0, out=xpos[ng:])
            np.take(d.site_xmat, self.sites, axis=0, out=xmat[ng:])
