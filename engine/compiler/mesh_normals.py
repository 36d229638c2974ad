"""Mesh vertex normals and texture coordinates: mjModel's mesh_normal, mesh_normaladr/num,
mesh_texcoord, mesh_texcoordadr/num, mesh_facenormal and mesh_facetexcoord, built as mujoco
4.0.0's compiler builds them (seed 000, asset/mesh: ``smoothnormal``, ``normal``, ``texcoord``;
seed 004, "saving models": mj_saveModel writes them).

The rules, read from MuJoCo's compiler (mjCMesh::MakeNormal, ApplyTransformations, Rotate and
Process in src/user/user_mesh.cc) and measured on mujoco 4.0.0's compiled models:

- a mesh without normals (STL, an OBJ without ``vn``, ``vertex`` without ``normal``, generated
  meshes, point clouds whose faces are their hull's) gets one normal per vertex, computed on the
  file's vertices (after welding, before refpos/refquat/scale): the sum over the faces at the
  vertex of the face's unit normal times its doubled area; unless ``smoothnormal`` is true,
  a face whose unit normal has a dot product below 0.8 with the vertex's normalized sum is then
  taken out of that vertex's sum (sharp edges stay sharp); the sums are normalized, a zero sum
  becoming +z. A face with |cross product| below 1e-7 weighs nothing (mjuu_normvec's mjEPS),
  so double-sided faces cancel to +z. Under a mirroring scale the faces are those given, their
  corners swapped only afterwards (measured on inline and STL meshes). Sums are single
  precision (the compiler's normals are ``float``), each term a double product rounded on
  addition. mesh_facenormal is then mesh_face;
- a file's normals (OBJ ``vn``, MSH) and the ``normal`` attribute are kept, with their own
  face indices (OBJ) or the face's vertex indices;
- all normals then follow the vertices into the mesh frame: refquat's rotation (transposed, as
  the vertices), division by ``scale`` (the inverse transpose of the scaling: measured, mujoco
  4.0.0 divides), normalization in single precision (``1/sqrtf`` of the squared length), and
  the rotation into the principal frame of inertia (mesh_quat), rounded to float;
- texture coordinates are kept as given (OBJ's v flipped to 1 - v by the loader, the ``texcoord``
  attribute as is); mesh_facetexcoord holds the OBJ's texture indices, else the face's vertex
  indices when the mesh has texture coordinates, else zeros (mjModel's array has a row per face
  either way); a mesh without texture coordinates has mesh_texcoordadr -1.

These arrays are kept beside the arena (`attach`, as engine/compiler/saved.py's): only
mj_saveModel reads them so far.
"""
from __future__ import annotations

import math

import numpy as np

from .._jit import kernel

# below this dot product of a face's normal with the vertex normal, the face is taken out of the
# vertex's sum (mjCMesh::MakeNormal's constant)
SHARP_DOT = 0.8
MJ_MINVAL = 1e-15
# mjuu_normvec leaves a vector whose squared length is below mjEPS alone and returns 0: a face
# with |cross| < 1e-7 adds nothing to its vertices' normals (measured on mujoco 4.0.0 over the
# Allegro hand's 11 meshes: every normal is exact for a cutoff between 9.999e-8 and 1.08e-7)
MJ_EPS = 1e-14


@kernel
def _normvec3(x, y, z):
    """mjuu_normvec on (x, y, z): (x, y, z) / |.| and the length; a vector with squared
    length below mjEPS is returned unchanged with length 0 (so a degenerate face weighs
    nothing and a vanishing vertex sum is not normalized)."""
    s = x * x + y * y + z * z
    if s < MJ_EPS:
        return x, y, z, 0.0
    n = math.sqrt(s)
    if n != 1.0:
        x, y, z = x / n, y / n, z / n
    return x, y, z, n


@kernel
def _face_normal(v, f, i, nrm):
    """Unit normal of face ``i`` into ``nrm`` (3,); returns the length of the cross product
    (twice the area), 0 for a degenerate face (`_normvec3`)."""
    a, b, c = f[i, 0], f[i, 1], f[i, 2]
    ux, uy, uz = v[b, 0] - v[a, 0], v[b, 1] - v[a, 1], v[b, 2] - v[a, 2]
    wx, wy, wz = v[c, 0] - v[a, 0], v[c, 1] - v[a, 1], v[c, 2] - v[a, 2]
    nx, ny, nz, n = _normvec3(uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx)
    nrm[0], nrm[1], nrm[2] = nx, ny, nz
    return n


@kernel
def vertex_normals(v, f, smooth, out, remove, nrm):
    """mjCMesh::MakeNormal: per-vertex normals of triangles ``f`` (m, 3) int64 over vertices
    ``v`` (n, 3) float64 (file frame) into ``out`` (n, 3) float32; ``remove`` (n, 3) float32
    and ``nrm`` (3,) float64 are scratch. ``smooth``: the mesh's ``smoothnormal``."""
    n = out.shape[0]
    for i in range(n):
        for k in range(3):
            out[i, k] = 0.0
            remove[i, k] = 0.0
    for i in range(f.shape[0]):
        area = _face_normal(v, f, i, nrm)
        for j in range(3):
            p = f[i, j]
            for k in range(3):
                out[p, k] = np.float32(np.float64(out[p, k]) + nrm[k] * area)
    if not smooth:
        for i in range(f.shape[0]):
            area = _face_normal(v, f, i, nrm)
            for j in range(3):
                p = f[i, j]
                x, y, z, ln = _normvec3(np.float64(out[p, 0]), np.float64(out[p, 1]),
                                        np.float64(out[p, 2]))
                if nrm[0] * x + nrm[1] * y + nrm[2] * z < SHARP_DOT:
                    for k in range(3):
                        remove[p, k] = np.float32(np.float64(remove[p, k]) + nrm[k] * area)
        for i in range(n):
            for k in range(3):
                out[i, k] = out[i, k] - remove[i, k]
    for i in range(n):
        x, y, z = out[i, 0], out[i, 1], out[i, 2]
        ln = np.float32(math.sqrt(np.float32(np.float32(x * x + y * y) + z * z)))
        if ln > MJ_MINVAL:
            for k in range(3):
                out[i, k] = out[i, k] / ln
        else:
            out[i, 0], out[i, 1], out[i, 2] = 0.0, 0.0, 1.0


@kernel
def to_mesh_frame(nrm, refmat, has_ref, scale, frame):
    """ApplyTransformations then Rotate on normals ``nrm`` (k, 3) float32 in place: ``refmat``
    (3, 3) the refquat's rotation (applied transposed when ``has_ref``), ``scale`` (3,) divides,
    single-precision normalization, then ``frame`` (3, 3), the principal frame's rotation,
    applied transposed (mesh_quat), each result rounded to float."""
    for i in range(nrm.shape[0]):
        x, y, z = np.float64(nrm[i, 0]), np.float64(nrm[i, 1]), np.float64(nrm[i, 2])
        if has_ref:
            a = np.float32(refmat[0, 0] * x + refmat[1, 0] * y + refmat[2, 0] * z)
            b = np.float32(refmat[0, 1] * x + refmat[1, 1] * y + refmat[2, 1] * z)
            c = np.float32(refmat[0, 2] * x + refmat[1, 2] * y + refmat[2, 2] * z)
        else:
            a, b, c = nrm[i, 0], nrm[i, 1], nrm[i, 2]
        a = np.float32(np.float64(a) / scale[0])
        b = np.float32(np.float64(b) / scale[1])
        c = np.float32(np.float64(c) / scale[2])
        ln = np.float32(np.float32(a * a + b * b) + c * c)
        if ln > MJ_MINVAL:
            s = np.float32(1.0) / np.float32(math.sqrt(ln))
            a, b, c = a * s, b * s, c * s
        else:
            a, b, c = np.float32(0.0), np.float32(0.0), np.float32(1.0)
        x, y, z = np.float64(a), np.float64(b), np.float64(c)
        nrm[i, 0] = np.float32(frame[0, 0] * x + frame[1, 0] * y + frame[2, 0] * z)
        nrm[i, 1] = np.float32(frame[0, 1] * x + frame[1, 1] * y + frame[2, 1] * z)
        nrm[i, 2] = np.float32(frame[0, 2] * x + frame[1, 2] * y + frame[2, 2] * z)


def build(v_file, face, normal, facenormal, texcoord, facetexcoord, smooth, refquat, scale,
          frame, obj=False, normal_face=None):
    """The normals and texture coordinates of one mesh, as `process_mesh` stores them.

    ``v_file`` (n, 3) the welded file vertices (float64 holding float32 values, file frame);
    ``face`` (m, 3) the triangles (corners already swapped for a mirroring scale);
    ``normal`` (k, 3) / ``texcoord`` (t, 2) the file's or the ``<mesh>``'s, or None;
    ``facenormal`` / ``facetexcoord`` (m, 3) their per-corner indices (OBJ), or None;
    ``smooth`` the mesh's ``smoothnormal``; ``refquat`` (4,) as given (not normalized);
    ``scale`` (3,); ``frame`` (3, 3) the rotation of mesh_quat (principal axes in the asset
    frame); ``obj``: the texture coordinates come from an OBJ file (v is flipped to 1 - v);
    ``normal_face``: the triangles the normals are computed on when not ``face`` (the faces as
    given, before a mirroring scale swaps their corners: mujoco swaps them after making the
    normals).

    Returns (normal (k, 3) float32 in the mesh frame, facenormal (m, 3) int32, texcoord (t, 2)
    float32 or None, facetexcoord (m, 3) int32 or None)."""
    from .mesh import _quat2mat
    f = np.ascontiguousarray(face, np.int64)
    if normal is None or len(normal) == 0:
        nrm = np.zeros((len(v_file), 3), np.float32)
        fm = f if normal_face is None else np.ascontiguousarray(normal_face, np.int64)
        vertex_normals(np.ascontiguousarray(v_file, np.float64), fm, bool(smooth), nrm,
                       np.zeros_like(nrm), np.zeros(3))
        fn = f
    else:
        # file normals are single precision in mujoco (tinyobjloader's and the spec's floats)
        nrm = np.array(np.asarray(normal, np.float64).reshape(-1, 3), np.float32)
        if facenormal is not None:
            fn = facenormal
        else:   # one normal per vertex, else index 0 (user normals without indices)
            fn = (len(nrm) // max(len(v_file), 1)) * f
    rq = np.asarray(refquat, np.float64).reshape(4)
    has_ref = bool(rq[0] != 1 or rq[1] != 0 or rq[2] != 0 or rq[3] != 0)
    refmat = _quat2mat(rq / np.linalg.norm(rq)) if has_ref else np.eye(3)
    to_mesh_frame(nrm, np.ascontiguousarray(refmat), has_ref,
                  np.ascontiguousarray(scale, np.float64), np.ascontiguousarray(frame))
    tc = ftc = None
    if texcoord is not None and len(texcoord):
        tc = np.array(np.asarray(texcoord, np.float64).reshape(-1, 2), np.float32)
        if obj:
            tc[:, 1] = np.float32(1) - tc[:, 1]
        ftc = f if facetexcoord is None else facetexcoord
        ftc = np.asarray(ftc, np.int32).reshape(-1, 3)
    return nrm, np.asarray(fn, np.int32).reshape(-1, 3), tc, ftc


# the fields `attach` puts on a compiled model (mj_saveModel writes them)
FIELDS = ("mesh_normaladr", "mesh_normalnum", "mesh_normal", "mesh_texcoordadr",
          "mesh_texcoordnum", "mesh_texcoord", "mesh_facenormal", "mesh_facetexcoord")


def attach(c, m):
    """Put the meshes' normals and texture coordinates (compiler ``c``'s MeshData, in mesh
    order) on the compiled model ``m`` beside the arena, with the sizes nmeshnormal and
    nmeshtexcoord: addresses are running sums, mesh_texcoordadr -1 for a mesh without texture
    coordinates, whose mesh_facetexcoord rows are zeros (mujoco 4.0.0's layout)."""
    mds = c.mesh_data
    nn = [0 if md.normal is None else len(md.normal) for md in mds]
    nt = [0 if md.texcoord is None else len(md.texcoord) for md in mds]
    d = m.__dict__
    d["mesh_normalnum"] = np.asarray(nn, np.int32)
    d["mesh_normaladr"] = (np.cumsum(nn) - nn).astype(np.int32)
    d["mesh_texcoordnum"] = np.asarray(nt, np.int32)
    d["mesh_texcoordadr"] = np.where(np.asarray(nt) > 0, np.cumsum(nt) - nt, -1).astype(np.int32)
    cat = lambda xs, shape, dt: (np.concatenate(xs).astype(dt) if xs else  # noqa: E731
                                 np.zeros(shape, dt))
    d["mesh_normal"] = cat([md.normal for md in mds if md.normal is not None], (0, 3),
                           np.float32)
    d["mesh_texcoord"] = cat([md.texcoord for md in mds if md.texcoord is not None], (0, 2),
                             np.float32)
    d["mesh_facenormal"] = cat([md.facenormal if md.facenormal is not None else md.face
                                for md in mds], (0, 3), np.int32)
    d["mesh_facetexcoord"] = cat([md.facetexcoord if md.facetexcoord is not None
                                  else np.zeros((len(md.face), 3), np.int32) for md in mds],
                                 (0, 3), np.int32)
    d["nmeshnormal"] = int(sum(nn))
    d["nmeshtexcoord"] = int(sum(nt))
