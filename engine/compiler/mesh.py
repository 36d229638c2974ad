"""Mesh assets: file loading and the compiler's mesh processing.

This module does for a ``<mesh>`` asset what MuJoCo's model compiler does
(seed ``000_*.txt``, section *asset/mesh*, "the full list of processing steps
the compiler applies to each mesh"; section *body/geom*, attributes ``mesh``,
``fitscale``, ``shellinertia``; section *compiler*, attribute ``fitaabb``):

1. read the file (binary/ASCII STL, OBJ, MuJoCo's legacy binary MSH, and
   Collada ``.dae`` as ROS/URDF users expect it), removing duplicate vertices
   for STL only;
2. translate, rotate and scale the vertices by the ``refpos``, ``refquat``
   and ``scale`` attributes (in that order; vertices are single precision
   before this step, as in MuJoCo, and double precision from here on);
3. build the convex hull when it is needed;
4. compute volume (or area), centre of mass and inertia by the method the
   ``inertia`` attribute selects (``legacy``, ``convex``, ``exact``, ``shell``);
5. move the vertices into the mesh's principal inertial frame and keep the
   applied offset (``mjModel.mesh_pos`` / ``mjModel.mesh_quat``).

Units and frames
----------------
* Lengths are in the file's units multiplied by ``scale`` (MuJoCo does not
  interpret units; for Collada the ``<unit meter=...>`` factor is applied, see
  :func:`load_mesh_file`).
* The *asset frame* is the file's frame after ``refpos``/``refquat``/``scale``:
  ``v_asset = scale * (R(refquat)^T (v_file - refpos))``.  ``mesh_pos`` and
  ``mesh_quat`` are the position and orientation of the *mesh frame* (origin at
  the centre of mass, axes along the principal axes of inertia, sorted by
  decreasing principal moment) expressed in the asset frame, so that
  ``v_asset = mesh_pos + R(mesh_quat) v_mesh``.  A geom referencing the mesh
  composes its own pos/quat with them.
* Quaternions are ``(w, x, y, z)``; rotation matrices act on column vectors.
* ``MeshData.volume`` is the measure mass is proportional to: volume [L^3]
  for solid inertia, surface area [L^2] for ``inertia="shell"`` (the density
  is then a surface density, seed body/geom ``density``).
* ``MeshData.inertia`` holds the principal moments per unit density
  [L^5] (solid) or [L^4] (shell): a geom of density ``rho`` has mass
  ``rho * volume`` and diagonal inertia ``rho * inertia`` in the mesh frame.

No ROS and no ``mujoco`` import here: the official package is only the test
oracle (test/engine/test_mesh.py).
"""

from __future__ import annotations

import math
import os
import re
import struct
from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np

from .hull import (POLY_ANGLE_STEP, HullError, convex_hull as _convex_hull,  # noqa: F401
                   hull_extrema, hull_faces, hull_graph, hull_polygons, polygon_map)

__all__ = [
    "MeshError",
    "LoadedMesh",
    "MeshData",
    "load_mesh_file",
    "process_mesh",
    "mesh_fit_size",
    "mesh_geom_bounds",
    "convex_hull",
    "eig3",
    "MJ_MINVAL",
    "INERTIA_TYPES",
]

MJ_MINVAL = 1e-15          # mjMINVAL: smallest volume / area / mass accepted
INERTIA_TYPES = ("legacy", "convex", "exact", "shell")

# Jacobi eigen-solver: stop when the largest off-diagonal element is below
# this fraction of the largest diagonal element, and treat eigenvalues closer
# than that as equal when sorting (calibrated against the official compiler:
# it reproduces mesh_quat to ~1e-13 on all menagerie meshes and on nearly
# isotropic ones - spheres, a rounded cube - where the axis order is a tie).
_EIG_REL_TOL = 1e-7
_EIG_MAX_ITER = 500

_STL_MAX_FACES = 200000   # the official STL reader's limit

_CONTENT_TYPES = {
    "model/stl": "stl",
    "model/obj": "obj",
    "model/vnd.mujoco.msh": "msh",
    "model/vnd.collada+xml": "dae",
    "model/collada": "dae",
}


class MeshError(ValueError):
    """A mesh file or mesh asset that cannot be loaded or compiled."""


# --------------------------------------------------------------------------
# small quaternion helpers (w, x, y, z)
# --------------------------------------------------------------------------

def _quat2mat(q) -> np.ndarray:
    w, x, y, z = q
    return np.array([
        [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z],
    ])


def _mulquat(a, b) -> np.ndarray:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def eig3(A, sort: bool = True, rel_tol: float = _EIG_REL_TOL) -> Tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of a symmetric 3x3 matrix, MuJoCo style.

    Returns ``(eigval, quat)``: eigenvalues in decreasing order and the unit
    quaternion whose rotation matrix ``R`` has the eigenvectors as columns
    (``R.T @ A @ R`` is diagonal).  The rotation is built by cyclic Jacobi
    steps, each a rotation about one coordinate axis accumulated into the
    quaternion, followed by 90-degree rotations that sort the eigenvalues.
    This particular construction matters: it fixes the signs and order of
    the principal axes exactly as the official compiler does, so that
    mesh_quat / mesh_vert agree (not just up to axis flips).
    """
    A = np.asarray(A, dtype=float).reshape(3, 3)
    q = np.array([1.0, 0.0, 0.0, 0.0])
    scale = float(np.max(np.abs(np.diag(A))))
    tol = rel_tol * scale
    ev = np.diag(A).copy()
    for _ in range(_EIG_MAX_ITER):
        R = _quat2mat(q)
        D = R.T @ A @ R
        ev = np.diag(D).copy()
        a01, a02, a12 = abs(D[0, 1]), abs(D[0, 2]), abs(D[1, 2])
        if a01 > a02 and a01 > a12:
            r, c, axis = 0, 1, 2
        elif a02 > a12:
            r, c, axis = 0, 2, 1
        else:
            r, c, axis = 1, 2, 0
        off = D[r, c]
        if not abs(off) >= tol or off == 0.0:
            break
        # 2x2 symmetric Schur step: tangent t, cosine cs, sine sn
        tau = (D[c, c] - D[r, r]) / (2.0 * off)
        if tau >= 0:
            t = 1.0 / (tau + math.sqrt(1.0 + tau * tau))
        else:
            t = -1.0 / (-tau + math.sqrt(1.0 + tau * tau))
        cs = 1.0 / math.sqrt(1.0 + t * t)
        sn = t * cs
        # the plane rotation as a rotation about `axis` (angle sign depends on
        # the cyclic order of the plane); half-angle without cancellation
        w = math.sqrt(0.5 * (1.0 + cs))
        dq = np.zeros(4)
        dq[0] = w
        dq[axis + 1] = (sn if axis == 1 else -sn) / (2.0 * w)
        q = _mulquat(q, dq)
        q /= np.linalg.norm(q)
    if not sort:
        # bodies keep the Jacobi order (MuJoCo sorts only mesh principal axes)
        return ev, q
    # sort in decreasing order with axis-swapping quarter turns; eigenvalues
    # equal to within the tolerance are left in place
    h = math.sqrt(0.5)
    for j in (0, 1, 0):
        if ev[j] + tol < ev[j + 1]:
            ev[j], ev[j + 1] = ev[j + 1], ev[j]
            dq = np.zeros(4)
            dq[0] = h
            dq[(j + 2) % 3 + 1] = h
            q = _mulquat(q, dq)
            q /= np.linalg.norm(q)
    return ev, q


# --------------------------------------------------------------------------
# file loading
# --------------------------------------------------------------------------

class LoadedMesh(tuple):
    """``(vert, face, normal, texcoord)`` as returned by :func:`load_mesh_file`.

    A 4-tuple (so ``v, f, n, t = load_mesh_file(p)`` works) with extra
    attributes:

    * ``facenormal``, ``facetexcoord``: (m,3) int32 indices into ``normal`` /
      ``texcoord`` per face corner (OBJ keeps separate index streams), or None;
    * ``path``, ``kind`` (``'stl'``, ``'obj'``, ``'msh'``, ``'dae'``);
    * ``nfile``: vertex count in the file before STL de-duplication.
    """

    def __new__(cls, vert, face, normal=None, texcoord=None, *, facenormal=None,
                facetexcoord=None, path="", kind="", nfile=None):
        self = super().__new__(cls, (vert, face, normal, texcoord))
        self.facenormal = facenormal
        self.facetexcoord = facetexcoord
        self.path = path
        self.kind = kind
        self.nfile = len(vert) if nfile is None else nfile
        return self

    vert = property(lambda self: self[0])
    face = property(lambda self: self[1])
    normal = property(lambda self: self[2])
    texcoord = property(lambda self: self[3])


def _kind_of(path: str, content_type: Optional[str]) -> str:
    if content_type:
        ct = content_type.strip().lower()
        if ct in _CONTENT_TYPES:
            return _CONTENT_TYPES[ct]
        raise MeshError(f"mesh file '{path}': unsupported content_type '{content_type}' "
                        f"(supported: {', '.join(sorted(_CONTENT_TYPES))})")
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext in ("stl", "obj", "msh", "dae"):
        return ext
    raise MeshError(f"mesh file '{path}': unknown mesh file type '.{ext}' "
                    "(expected .stl, .obj, .msh or .dae, or a content_type)")


def load_mesh_file(path, content_type: Optional[str] = None, *,
                   all_groups: bool = False) -> LoadedMesh:
    """Read a mesh file.

    Returns a :class:`LoadedMesh` 4-tuple ``(vert, face, normal, texcoord)``:
    ``vert`` (n,3) float64 in file units (values are those of the file's
    single-precision numbers for STL/OBJ/MSH, exactly as MuJoCo reads them),
    ``face`` (m,3) int32 counter-clockwise triangles (0-based), ``normal``
    (k,3) float64 or None, ``texcoord`` (k,2) float64 or None (as stored in
    the file, no v-flip).

    Formats (seed asset/mesh: type from ``content_type`` if given, else from
    the file extension):

    * **STL** binary (``84 + 50*ntri`` bytes, whatever the header says;
      1 to 200000 triangles as in MuJoCo) or ASCII (``solid ... vertex``; an
      extension - MuJoCo reads binary STL only).  Duplicate vertices (bitwise
      equal single-precision triples) are removed and faces re-indexed, keeping
      vertices in order of first appearance - processing step 1 of the seed;
      facet normals are ignored (MuJoCo recomputes them).
    * **OBJ**: ``v``/``vn``/``vt``/``f`` records (negative indices allowed);
      all ``v`` records are kept, used or not, as MuJoCo does; quads are split
      along the shorter diagonal (as MuJoCo); larger polygons by ear clipping
      against the normal of their first corner: a fan from the first corner
      for convex polygons (as MuJoCo), for concave ones a valid triangulation
      that may differ from MuJoCo's; lines, points and materials are ignored.
      Like MuJoCo, only the faces of the *first* object/group are used (up to
      the first ``o``/``g`` record after a face; ``usemtl`` does not split),
      while all vertices are kept; ``all_groups=True`` takes every face.
    * **MSH** (MuJoCo's legacy binary format, layout in the seed):
      int32 nvertex, nnormal, ntexcoord, nface, then float32 data and int32
      face indices; ``nface == 0`` gives a point cloud (faces from the hull).
    * **DAE** (Collada 1.4/1.5, via pycollada): every ``<instance_geometry>``
      of the scene with its node transforms applied, triangles from
      ``triangles``/``polylist``/``polygons``, all geometries concatenated,
      then multiplied by ``<asset><unit meter=...>``.  ``<up_axis>`` is ignored,
      as RViz, Gazebo and the URDF tool chain ignore it.  Vertices that no
      triangle uses are dropped; shared positions within one geometry are
      not duplicated.  MuJoCo itself cannot read Collada.

    Raises :class:`MeshError` naming the file for a missing, unreadable or
    corrupt file.
    """
    path = os.fspath(path)
    kind = _kind_of(path, content_type)
    return load_mesh_bytes(read_mesh_file(path), path, kind, all_groups=all_groups)


def mesh_kind(path: str, content_type: Optional[str] = None) -> str:
    """The format of a mesh file, ``'stl'``, ``'obj'``, ``'msh'`` or ``'dae'``: from
    ``content_type`` if given, else from the extension of ``path``. Raises :class:`MeshError`
    for an unknown one."""
    return _kind_of(os.fspath(path), content_type)


def read_mesh_file(path) -> bytes:
    """The bytes of a mesh file; :class:`MeshError` naming it if it cannot be read."""
    from ..plugin.resource import read_file
    try:
        return read_file(path)
    except OSError as exc:
        raise MeshError(f"Error opening mesh file '{os.fspath(path)}': "
                        f"{exc.strerror or exc}") from None


def load_mesh_bytes(data: bytes, path: str, kind: str, *, all_groups: bool = False) -> LoadedMesh:
    """Parse the bytes ``data`` of a mesh file of format ``kind`` (`mesh_kind`); ``path`` names
    it in messages. What `load_mesh_file` returns."""
    try:
        if kind == "stl":
            return _load_stl(data, path)
        if kind == "obj":
            return _load_obj(data, path, all_groups)
        if kind == "msh":
            return _load_msh(data, path)
        import io
        return _load_dae(path, io.BytesIO(data))
    except MeshError:
        raise
    except Exception as exc:  # corrupt content: one clear error
        raise MeshError(f"mesh file '{path}': cannot parse {kind.upper()} data ({exc})") from None


def _dedup_f32(v32: np.ndarray):
    """Unique rows of a float32 (n,3) array, in order of first appearance.

    Returns (unique_rows, inverse).  Rows are compared by their bit patterns
    (0.0 and -0.0 are distinct).  One stable lexsort over two integer keys.
    """
    v32 = np.ascontiguousarray(v32, dtype=np.float32)
    n = len(v32)
    bits = v32.view(np.uint32)
    kxy = (bits[:, 0].astype(np.uint64) << np.uint64(32)) | bits[:, 1]
    kz = bits[:, 2]
    order = np.lexsort((kz, kxy))                      # stable: ties keep file order
    sxy, sz = kxy[order], kz[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (sxy[1:] != sxy[:-1]) | (sz[1:] != sz[:-1])
    group = np.cumsum(new) - 1                         # group id in sorted order
    first = order[new]                                 # first appearance of each group
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    inverse = np.empty(n, dtype=np.int32)
    inverse[order] = rank[group]
    return v32[np.sort(first)], inverse


def _load_stl(data: bytes, path: str) -> LoadedMesh:
    n = len(data)
    ntri = struct.unpack_from("<I", data, 80)[0] if n >= 84 else -1
    if n >= 84 and n == 84 + 50 * ntri:
        if not 1 <= ntri <= _STL_MAX_FACES:
            raise MeshError(f"mesh file '{path}': number of faces should be between 1 and "
                            f"{_STL_MAX_FACES} in STL file (got {ntri})")
        rec = np.frombuffer(data, dtype=np.dtype([("n", "<f4", (3,)), ("v", "<f4", (3, 3)),
                                                  ("attr", "<u2")]),
                            count=ntri, offset=84)
        corners = rec["v"].reshape(-1, 3)
    elif data.lstrip()[:5].lower() == b"solid":
        text = data.decode("ascii", errors="replace")
        nums = re.findall(r"^\s*vertex\s+(\S+)\s+(\S+)\s+(\S+)", text, flags=re.M | re.I)
        if not nums or len(nums) % 3:
            raise MeshError(f"mesh file '{path}': invalid ASCII STL (vertex count "
                            f"{len(nums)} is not a positive multiple of 3)")
        corners = np.array(nums, dtype=np.float64).astype(np.float32)
        ntri = len(corners) // 3
    else:
        raise MeshError(f"mesh file '{path}': invalid STL file (size {n} bytes does not "
                        f"match 84 + 50*{ntri} triangles and it is not ASCII STL)")
    if ntri < 1:
        raise MeshError(f"mesh file '{path}': STL file has no triangles")
    if not np.all(np.isfinite(corners)):
        raise MeshError(f"mesh file '{path}': STL file contains non-finite coordinates")
    if np.abs(corners).max() > 2.0 ** 30:
        # mujoco 4.0.0's STL decoder bound (measured: 2^30 loads, 1.01 * 2^30 does not)
        raise MeshError(f"mesh file '{path}': vertex in STL file exceeds maximum bounds "
                        "(|coordinate| > 2^30)")
    uniq, inv = _dedup_f32(corners)
    return LoadedMesh(uniq.astype(np.float64), inv.reshape(-1, 3), None, None,
                      path=path, kind="stl", nfile=len(corners))


def _triangulate(counts: np.ndarray, streams, vert32: np.ndarray):
    """Split polygons into triangles, vectorised for triangles and quads.

    ``counts`` (p,) corners per polygon; ``streams`` a list of flat corner
    index arrays (vertex first, then optional texcoord / normal streams, or
    None) of length ``counts.sum()``.  Triangles keep the file order.  Quads
    are split along the shorter diagonal (ties: the 1-3 diagonal), larger
    polygons by :func:`_ear_clip`.  Returns one (t,3) array per stream.
    """
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    ntri = counts - 2
    tstart = np.concatenate([[0], np.cumsum(ntri)[:-1]])
    local = np.zeros((int(ntri.sum()), 3), dtype=np.int64)   # corner offsets
    owner = np.repeat(np.arange(len(counts)), ntri)           # polygon of each triangle
    # triangles
    k3 = np.flatnonzero(counts == 3)
    local[tstart[k3]] = [0, 1, 2]
    # quads: compare the squared diagonals in single precision
    k4 = np.flatnonzero(counts == 4)
    if len(k4):
        vi = streams[0]
        c = start[k4][:, None] + np.arange(4)
        q = vert32[vi[c]]
        d02 = np.sum((q[:, 0] - q[:, 2]) ** 2, axis=1, dtype=np.float32)
        d13 = np.sum((q[:, 1] - q[:, 3]) ** 2, axis=1, dtype=np.float32)
        split13 = ~(d02 < d13)              # ties (rectangles) use the 1-3 diagonal
        local[tstart[k4]] = np.where(split13[:, None], [0, 1, 3], [0, 1, 2])
        local[tstart[k4] + 1] = np.where(split13[:, None], [1, 2, 3], [0, 2, 3])
    # general polygons
    for k in np.flatnonzero(counts > 4):
        idx = streams[0][start[k]:start[k] + counts[k]]
        tris = _ear_clip(np.asarray(vert32, dtype=np.float64)[idx])
        local[tstart[k]:tstart[k] + len(tris)] = tris
    corner = start[owner][:, None] + local
    return [None if st is None else st[corner].astype(np.int32) for st in streams]


def _ear_clip(P: np.ndarray):
    """Triangulate one polygon given its corner positions (m,3).

    Ears are taken in order; convexity is judged against the normal of the
    polygon's first corner triangle; when no ear is found the rest is a fan.
    Returns local index triples.
    """
    m = len(P)
    ref = np.cross(P[1] - P[0], P[2] - P[0])
    remaining = list(range(m))
    tris = []
    i = 0
    misses = 0
    while len(remaining) > 3:
        n = len(remaining)
        a, b, c = remaining[i % n], remaining[(i + 1) % n], remaining[(i + 2) % n]
        nrm = np.cross(P[b] - P[a], P[c] - P[a])
        ok = float(nrm @ ref) > 0
        if ok:
            for o in remaining:
                if o in (a, b, c):
                    continue
                # inside test with the triangle's own normal
                e = [np.cross(P[b] - P[a], P[o] - P[a]), np.cross(P[c] - P[b], P[o] - P[b]),
                     np.cross(P[a] - P[c], P[o] - P[c])]
                if all(float(x @ nrm) >= 0 for x in e):
                    ok = False
                    break
        if ok:
            tris.append((a, b, c))
            remaining.remove(b)
            misses = 0
            i = i % max(len(remaining), 1)
        else:
            i += 1
            misses += 1
            if misses >= n:
                break
    r0 = remaining[0]
    for k in range(1, len(remaining) - 1):
        tris.append((r0, remaining[k], remaining[k + 1]))
    return tris


_OBJ_CORNER = re.compile(rb"(-?\d+)(?:/(-?\d*)(?:/(-?\d*))?)?")


def _parse_numbers(text: bytes, dtype):
    """All whitespace-separated numbers of ``text`` (C parser), or None if a
    token is not a number."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.fromstring(text, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


def _floats(text: bytes, nrows: int, rows, ncol: int, path: str, what: str) -> np.ndarray:
    """Parse OBJ number records into a (n, ncol) float64 array of their single-precision values
    (MuJoCo reads OBJ numbers as floats); extra numbers on a record (w, colours) are ignored.
    ``text``: the ``nrows`` records (byte strings without their tag) joined by spaces;
    ``rows()``: the records as a list, for the record-by-record path taken when the numbers do
    not come in rows of ``ncol``."""
    arr = _parse_numbers(text, np.float64)
    if arr is not None and arr.size == ncol * nrows:
        arr = arr.reshape(-1, ncol)
    else:
        # a short record (a file cut in the middle of a line) reads its missing numbers as 0,
        # as mujoco's OBJ reader (tinyobjloader) does: mujoco 4.0.0 loads such a file
        toks = [(r.split() + [b"0"] * ncol)[:ncol] for r in rows()]
        try:
            arr = np.array(toks, dtype="S").astype(np.float64)
        except ValueError:
            raise MeshError(f"mesh file '{path}': OBJ {what} record with a value that is not "
                            "a number") from None
    return arr.astype(np.float32).astype(np.float64)


def _obj_corners(text: bytes, first: bytes, counts: np.ndarray) -> np.ndarray:
    """(ncorner, 3) int64 (v, vt, vn) indices of all face corners, 0 = absent, from the face
    records (without their tag) joined by spaces; ``first``: the first corner's token.

    Fast path when every corner has the same form (``v``, ``v/t``, ``v//n``
    or ``v/t/n``), checked by counting separators; otherwise a regex.
    """
    n = int(counts.sum())
    slashes, doubles = text.count(b"/"), text.count(b"//")
    form = (first.count(b"/"), b"//" in first)
    out = np.zeros((n, 3), dtype=np.int64)
    ints = None
    if form == (0, False) and slashes == 0:
        ints = _parse_numbers(text, np.int64)
        cols = [0]
    elif form == (1, False) and slashes == n and doubles == 0:
        ints = _parse_numbers(text.replace(b"/", b" "), np.int64)
        cols = [0, 1]
    elif form == (2, True) and slashes == 2 * n and doubles == n:
        ints = _parse_numbers(text.replace(b"//", b" "), np.int64)
        cols = [0, 2]
    elif form == (2, False) and slashes == 2 * n and doubles == 0:
        ints = _parse_numbers(text.replace(b"/", b" "), np.int64)
        cols = [0, 1, 2]
    if ints is not None and ints.size == n * len(cols):
        out[:, cols] = ints.reshape(n, len(cols))
        return out
    corners = _OBJ_CORNER.findall(text)
    if len(corners) != n:
        raise MeshError("malformed OBJ face record")
    raw = np.array(corners, dtype="S").reshape(-1, 3)
    raw[raw == b""] = b"0"
    return raw.astype(np.int64)


_WS = np.zeros(256, bool)
_WS[[32, 9, 10, 13, 11, 12]] = True          # bytes.split()'s whitespace
_LSTRIP = np.zeros(256, bool)
_LSTRIP[[32, 9, 11, 12]] = True               # bytes.lstrip()'s, less the line breaks


class _ObjLines:
    """The lines of an OBJ file (what ``bytes.splitlines`` gives, each ``lstrip``-ped when
    any line starts with a blank) as byte ranges of one buffer, so that records are classified,
    cut and joined with numpy instead of line by line in Python."""

    def __init__(self, data: bytes):
        blank_start = data[:1] in (b" ", b"\t") or b"\n " in data or b"\n\t" in data
        if b"\r" in data:   # splitlines breaks at \r\n, \r and \n
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self.buf = buf = np.frombuffer(data + b"\n", np.uint8)
        ends = np.flatnonzero(buf == 10)
        if not data or data.endswith(b"\n"):
            ends = ends[:-1]                  # no empty last line
        starts = np.concatenate([[0], ends[:-1] + 1])[:len(ends)].astype(np.int64)
        if blank_start:
            # each line's first byte that lstrip keeps (the line break stops the search)
            keep = np.flatnonzero(~_LSTRIP[buf])
            starts = keep[np.searchsorted(keep, starts)]
        self.starts, self.ends = starts, ends
        self.n = len(ends)

    def heads(self) -> np.ndarray:
        """(n, 3) uint8: each line's first three bytes, padded with spaces."""
        h = np.full((self.n, 3), 32, np.uint8)
        for j in range(3):
            pos = self.starts + j
            ok = pos < self.ends
            h[ok, j] = self.buf[pos[ok]]
        return h

    def _ranges(self, idx, k):
        s = np.minimum(self.starts[idx] + k, self.ends[idx])
        return s, self.ends[idx] - s

    def text(self, idx, k: int) -> bytes:
        """Lines ``idx`` from byte ``k`` on, joined by spaces (``b" ".join``)."""
        if len(idx) == 0:
            return b""
        s, ln = self._ranges(idx, k)
        ln1 = ln + 1                          # with the line break, made the separator
        first = np.cumsum(ln1) - ln1
        pick = np.repeat(s - first, ln1) + np.arange(int(ln1.sum()))
        out = self.buf[pick[:-1]]
        out[out == 10] = 32
        return out.tobytes()

    def rows(self, idx, k: int) -> list:
        """Lines ``idx`` from byte ``k`` on, as a list of bytes."""
        s, ln = self._ranges(idx, k)
        b = self.buf
        return [b[a:a + n].tobytes() for a, n in zip(s.tolist(), ln.tolist())]

    def ntokens(self, idx, k: int, text: bytes) -> np.ndarray:
        """Whitespace-separated tokens (``len(line.split())``) of lines ``idx`` from byte
        ``k`` on; ``text``: `text` of the same lines."""
        _, ln = self._ranges(idx, k)
        t = np.frombuffer(text, np.uint8)
        ws = _WS[t]
        start = ~ws
        start[1:] &= ws[:-1]
        cs = np.concatenate([[0], np.cumsum(start)])
        first = np.cumsum(ln + 1) - (ln + 1)
        return cs[first + ln] - cs[first]


def _load_obj(data: bytes, path: str, all_groups: bool = False) -> LoadedMesh:
    # join backslash line continuations
    data = data.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")
    lines = _ObjLines(data)
    # classify records by their first three bytes
    h = lines.heads()
    sep1 = (h[:, 1] == 32) | (h[:, 1] == 9)
    sep2 = (h[:, 2] == 32) | (h[:, 2] == 9)
    is_v = (h[:, 0] == ord("v")) & sep1
    is_vt = (h[:, 0] == ord("v")) & (h[:, 1] == ord("t")) & sep2
    is_vn = (h[:, 0] == ord("v")) & (h[:, 1] == ord("n")) & sep2
    is_f = (h[:, 0] == ord("f")) & sep1
    if not all_groups and is_f.any():
        # MuJoCo keeps the faces of the first object/group only: the faces up
        # to the first 'o'/'g' record that follows a face ('usemtl' does not
        # split); all vertices are kept
        is_og = ((h[:, 0] == ord("o")) | (h[:, 0] == ord("g"))) & (sep1 | (h[:, 1] == 32))
        first_face = int(np.argmax(is_f))
        later = np.flatnonzero(is_og[first_face:])
        if len(later):
            cut = first_face + int(later[0])
            is_f = is_f.copy()
            is_f[cut:] = False
    iv, it, inn, iff = (np.flatnonzero(m) for m in (is_v, is_vt, is_vn, is_f))
    # (#v, #vt, #vn) defined before each face record, for negative indices
    fcount = np.stack([np.cumsum(is_v)[is_f], np.cumsum(is_vt)[is_f],
                       np.cumsum(is_vn)[is_f]], axis=1)
    if not len(iv):
        raise MeshError(f"mesh file '{path}': OBJ file has no vertices")
    vert = _floats(lines.text(iv, 2), len(iv), lambda: lines.rows(iv, 2), 3, path, "vertex")
    normal = (_floats(lines.text(inn, 3), len(inn), lambda: lines.rows(inn, 3), 3, path,
                      "normal") if len(inn) else None)
    texcoord = None
    if len(it):
        ttext = lines.text(it, 3)
        if (lines.ntokens(it, 3, ttext) < 2).any():
            # 1-component texcoords get v = 0
            trows = [r if len(r.split()) >= 2 else r + b" 0" for r in lines.rows(it, 3)]
            texcoord = _floats(b" ".join(trows), len(trows), lambda: trows, 2, path,
                               "texcoord")
        else:
            texcoord = _floats(ttext, len(it), lambda: lines.rows(it, 3), 2, path, "texcoord")
    if not len(iff):
        return LoadedMesh(vert, np.zeros((0, 3), np.int32), normal, texcoord, path=path,
                          kind="obj")

    ftext = lines.text(iff, 2)
    counts = lines.ntokens(iff, 2, ftext).astype(np.int64)
    if counts.min() < 3:
        k = int(np.argmin(counts))
        raise MeshError(f"mesh file '{path}': OBJ face {k + 1} has fewer than 3 corners")
    try:
        raw = _obj_corners(ftext, ftext.split(None, 1)[0], counts)
    except MeshError as exc:
        raise MeshError(f"mesh file '{path}': {exc}") from None
    before = np.repeat(fcount.astype(np.int64), counts, axis=0)

    def resolve(col: int, what: str, optional: bool):
        i = raw[:, col]
        n = before[:, col]
        if optional and np.all(i == 0):
            return None
        j = np.where(i > 0, i - 1, n + i)
        bad = (i == 0) | (j < 0) | (j >= n)
        if np.any(bad):
            if optional and np.all(i[bad] == 0):
                return None          # some corners without this attribute
            k = int(np.flatnonzero(bad)[0])
            raise MeshError(f"mesh file '{path}': OBJ face refers to {what} {int(i[k])}, but "
                            f"only {int(n[k])} are defined before it")
        return j

    streams = [resolve(0, "vertex", False), resolve(1, "texcoord", True),
               resolve(2, "normal", True)]
    vert32 = vert.astype(np.float32)
    face, ft, fn = _triangulate(counts, streams, vert32)
    return LoadedMesh(vert, face, normal, texcoord, facenormal=fn, facetexcoord=ft,
                      path=path, kind="obj")


def _load_msh(data: bytes, path: str) -> LoadedMesh:
    if len(data) < 16:
        raise MeshError(f"mesh file '{path}': MSH file too short ({len(data)} bytes)")
    nv, nn, nt, nf = struct.unpack_from("<4i", data, 0)
    if nv < 4 or nn < 0 or nt < 0 or nf < 0 or nn not in (0, nv) or nt not in (0, nv):
        raise MeshError(f"mesh file '{path}': invalid MSH header (nvertex={nv}, nnormal={nn}, "
                        f"ntexcoord={nt}, nface={nf}); need nvertex >= 4 and "
                        "nnormal, ntexcoord equal to 0 or nvertex")
    size = 16 + 12 * (nv + nn + nf) + 8 * nt
    if len(data) != size:
        raise MeshError(f"mesh file '{path}': MSH file size {len(data)} bytes, expected {size}")
    off = 16
    vert = np.frombuffer(data, "<f4", 3 * nv, off).reshape(-1, 3).astype(np.float64)
    off += 12 * nv
    normal = None
    if nn:
        normal = np.frombuffer(data, "<f4", 3 * nn, off).reshape(-1, 3).astype(np.float64)
    off += 12 * nn
    tex = np.frombuffer(data, "<f4", 2 * nt, off).reshape(-1, 2).astype(np.float64) if nt else None
    off += 8 * nt
    face = np.frombuffer(data, "<i4", 3 * nf, off).reshape(-1, 3).astype(np.int32)
    return LoadedMesh(vert, face, normal, tex, path=path, kind="msh")


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _dae_numbers(el, n: int, path: str) -> np.ndarray:
    vals = np.array((el.text or "").split(), dtype=np.float64)
    if vals.size != n:
        raise MeshError(f"mesh file '{path}': Collada <{_local(el.tag)}> needs {n} numbers, "
                        f"got {vals.size}")
    return vals


def _dae_node_matrix(node, path: str) -> np.ndarray:
    """Product, in document order, of a <node>'s transform elements (float64)."""
    M = np.eye(4)
    for el in node:
        tag = _local(el.tag)
        T = None
        if tag == "translate":
            T = np.eye(4)
            T[:3, 3] = _dae_numbers(el, 3, path)
        elif tag == "scale":
            T = np.diag(np.append(_dae_numbers(el, 3, path), 1.0))
        elif tag == "rotate":
            x, y, z, deg = _dae_numbers(el, 4, path)
            axis = np.array([x, y, z])
            nrm = np.linalg.norm(axis)
            T = np.eye(4)
            if nrm > 0:
                half = 0.5 * math.radians(deg)
                T[:3, :3] = _quat2mat(np.concatenate([[math.cos(half)],
                                                      math.sin(half) * axis / nrm]))
        elif tag == "matrix":
            T = _dae_numbers(el, 16, path).reshape(4, 4)
        elif tag == "lookat":
            eye, target, up = _dae_numbers(el, 9, path).reshape(3, 3)
            zax = eye - target
            zax /= np.linalg.norm(zax)
            xax = np.cross(up, zax)
            xax /= np.linalg.norm(xax)
            T = np.eye(4)
            T[:3, :3] = np.column_stack([xax, np.cross(zax, xax), zax])
            T[:3, 3] = eye
        elif tag == "skew":
            raise MeshError(f"mesh file '{path}': Collada <skew> transforms are not supported")
        if T is not None:
            M = M @ T
    return M


def _load_dae(path: str, source=None) -> LoadedMesh:
    """Collada file ``path`` (or the file object ``source``, named ``path``)."""
    try:
        import collada  # pycollada: geometry sources and primitives
        from collada import triangleset, polylist, polygons
    except ImportError:  # pragma: no cover - depends on the environment
        raise MeshError(f"mesh file '{path}': reading Collada needs the 'pycollada' "
                        "package") from None
    try:
        doc = collada.Collada(path if source is None else source,
                              ignore=[collada.common.DaeUnsupportedError,
                                      collada.common.DaeBrokenRefError])
    except Exception as exc:
        raise MeshError(f"mesh file '{path}': invalid Collada file ({exc})") from None
    unit = 1.0
    if doc.assetInfo is not None and doc.assetInfo.unitmeter:
        unit = float(doc.assetInfo.unitmeter)

    # The scene graph is walked on the XML itself (pycollada drops nodes whose
    # materials do not resolve; transforms are composed here in float64).
    root = doc.xmlnode.getroot()
    by_id = {}
    for el in root.iter():
        i = el.get("id") if hasattr(el, "get") else None
        if i:
            by_id[i] = el
    geoms = {g.id: g for g in doc.geometries}
    instances = []          # (geometry, 4x4 world matrix)

    def ref(url):
        return by_id.get((url or "").lstrip("#"))

    def walk(node, M, depth):
        if depth > 64:
            raise MeshError(f"mesh file '{path}': Collada node hierarchy too deep (cycle?)")
        M = M @ _dae_node_matrix(node, path)
        for el in node:
            tag = _local(el.tag)
            if tag == "node":
                walk(el, M, depth + 1)
            elif tag == "instance_node":
                target = ref(el.get("url"))
                if target is not None:
                    walk(target, M, depth + 1)
            elif tag == "instance_geometry":
                g = geoms.get((el.get("url") or "").lstrip("#"))
                if g is not None:
                    instances.append((g, M))
            elif tag == "instance_controller":          # skin: bind-pose geometry
                ctrl = ref(el.get("url"))
                if ctrl is not None:
                    for sk in ctrl.iter():
                        if _local(sk.tag) in ("skin", "morph"):
                            g = geoms.get((sk.get("source") or "").lstrip("#"))
                            if g is not None:
                                instances.append((g, M))
                            break

    scene_el = next((el for el in root if _local(el.tag) == "scene"), None)
    vs = None
    if scene_el is not None:
        ivs = next((el for el in scene_el if _local(el.tag) == "instance_visual_scene"), None)
        vs = ref(ivs.get("url")) if ivs is not None else None
    if vs is not None:
        for node in vs:
            if _local(node.tag) == "node":
                walk(node, np.eye(4), 0)
    else:                      # no scene: the geometry library, untransformed
        instances = [(g, np.eye(4)) for g in doc.geometries]

    verts, faces = [], []
    base = 0
    for geom, M in instances:
        # one vertex block per position source; all primitives using it index it
        blocks = {}
        for prim in geom.primitives:
            if isinstance(prim, (polylist.Polylist, polygons.Polygons)):
                prim = prim.triangleset()
            if not isinstance(prim, triangleset.TriangleSet) or prim.vertex is None:
                continue                                   # lines, points
            idx = np.asarray(prim.vertex_index, dtype=np.int64).reshape(-1, 3)
            if len(idx) == 0:
                continue
            blk = blocks.setdefault(id(prim.vertex), [prim.vertex, []])
            blk[1].append(idx)
        for vsrc, idx_list in blocks.values():
            vsrc = np.asarray(vsrc, dtype=np.float64).reshape(-1, 3)
            idx = np.concatenate(idx_list)
            if idx.min() < 0 or idx.max() >= len(vsrc):
                raise MeshError(f"mesh file '{path}': Collada triangle index out of range")
            used, inv = np.unique(idx, return_inverse=True)
            v = vsrc[used] @ M[:3, :3].T + M[:3, 3]
            f = inv.reshape(-1, 3)
            if np.linalg.det(M[:3, :3]) < 0:                # mirrored instance
                f = f[:, [0, 2, 1]]
            verts.append(v)
            faces.append(f + base)
            base += len(used)
    if not verts:
        raise MeshError(f"mesh file '{path}': Collada file contains no triangles")
    vert = np.concatenate(verts) * unit
    face = np.concatenate(faces).astype(np.int32)
    return LoadedMesh(vert, face, None, None, path=path, kind="dae")


# --------------------------------------------------------------------------
# convex hull (engine/compiler/hull.py)
# --------------------------------------------------------------------------

def convex_hull(vert: np.ndarray, maxhullvert: int = -1, name: str = "mesh"):
    """Convex hull of a point set with qhull (scipy), as MuJoCo's compiler: ``(hull_vert,
    hull_face)``, sorted indices into ``vert`` of the hull's vertices and (k,3) int32
    outward-oriented triangles. ``maxhullvert > 0`` stops qhull after that many vertices (seed
    asset/mesh ``maxhullvert``). Raises :class:`MeshError` for a flat (coplanar) point set."""
    if maxhullvert is not None and maxhullvert != -1 and maxhullvert < 4:
        raise MeshError(f"mesh '{name}': maxhullvert must be larger than 3")
    try:
        return _convex_hull(vert, maxhullvert)
    except HullError:
        raise MeshError(f"mesh '{name}' has coplanar vertices, cannot compute convex hull. "
                        "Consider using a primitive geom type (plane or thin box) "
                        "instead") from None


# --------------------------------------------------------------------------
# mass properties
# --------------------------------------------------------------------------

def _mass_properties(v: np.ndarray, f: np.ndarray, inertia: str, name: str):
    """Volume (or area), centre of mass and inertia tensor (about the CoM, per
    unit density) of triangles ``f`` (m,3) of vertices ``v`` (n,3), asset frame.

    Solid: the seed's pyramid decomposition - every face joined to an apex;
    pass 1 with the apex at the area-weighted centroid of the faces gives the
    centre of mass; pass 2, with the apex at that centre, gives the volume and
    the inertia.  ``legacy`` adds |pyramid volumes| (so non-convex meshes
    count some volume twice, as documented); ``exact``/``convex`` add signed
    volumes (exact for closed, consistently oriented meshes).
    Shell: area-weighted triangles (uniform surface density).
    The sums are engine/compiler/mesh_kernels.py `mass_properties`.
    Returns (measure, com (3,), inertia tensor (3,3), total face area).
    """
    from . import mesh_kernels as mk
    mode = {"shell": mk.MODE_SHELL, "legacy": mk.MODE_LEGACY}.get(inertia, mk.MODE_SIGNED)
    out = np.empty(15)
    mk.mass_properties(np.ascontiguousarray(v, np.float64), np.ascontiguousarray(f, np.int64),
                       mode, out)
    total_area, total, measure = float(out[0]), float(out[1]), float(out[2])
    if inertia == "shell":
        if not total_area >= MJ_MINVAL:
            raise MeshError(f"mesh surface area is too small: {name}")
    else:
        if inertia == "exact" and total < 0 and -total >= MJ_MINVAL:
            raise MeshError(f"mesh volume is negative (misoriented triangles): {name}")
        if not total >= MJ_MINVAL:
            raise MeshError(f"mesh volume is too small: {name} . Try setting inertia to shell")
        if not measure >= MJ_MINVAL:
            raise MeshError(f"mesh volume is too small: {name} . Try setting inertia to shell")
    C = out[6:15].reshape(3, 3)
    I = np.trace(C) * np.eye(3) - C
    return measure, out[3:6].copy(), I, total_area


def _check_orientation(vert: np.ndarray, face: np.ndarray, name: str) -> None:
    """Every directed edge may appear in at most one face (``exact`` inertia).

    Faces smaller than sqrt(mjMINVAL) in the file's units are left out of the
    test, as in the official compiler (measured: a duplicated face of area
    3.2e-8 is reported, one of 3.1e-8 is not).  The error names the
    lexicographically first repeated directed edge with 1-based vertex
    numbers, like the official compiler's message.
    """
    p = vert[face]
    cr = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    area = 0.5 * np.sqrt(np.einsum("ij,ij->i", cr, cr))
    face = face[area >= math.sqrt(MJ_MINVAL)]
    if len(face) == 0:
        return
    e = np.concatenate([face[:, [0, 1]], face[:, [1, 2]], face[:, [2, 0]]]).astype(np.int64)
    n = int(e.max()) + 1
    key = np.sort(e[:, 0] * n + e[:, 1])
    dup = key[1:][key[1:] == key[:-1]]
    if len(dup):
        k = int(dup.min())
        raise MeshError(f"faces of mesh '{name}' have inconsistent orientation. Please check "
                        f"the faces containing the vertices {k // n + 1} and {k % n + 1}.")


# --------------------------------------------------------------------------
# processing
# --------------------------------------------------------------------------

@dataclass
class MeshData:
    """A compiled mesh asset (what mjModel.mesh_* and the geom compiler need).

    All arrays are float64/int32 numpy arrays; frames and units as in the
    module docstring.
    """
    name: str
    vert: np.ndarray            # (n,3) vertices in the mesh frame (mesh_vert)
    face: np.ndarray            # (m,3) int32 triangles (mesh_face)
    pos: np.ndarray             # (3,) mesh_pos: CoM in the asset frame
    quat: np.ndarray            # (4,) mesh_quat: principal axes in the asset frame
    scale: np.ndarray           # (3,) mesh_scale
    inertia_type: str           # 'legacy' | 'convex' | 'exact' | 'shell'
    volume: float               # volume (solid) or surface area (shell): mass = density*volume
    inertia: np.ndarray         # (3,) principal moments per unit density, decreasing
    surface_area: float         # total area of the faces
    hull_vert: Optional[np.ndarray] = None   # (k,) int32 indices of hull vertices
    hull_face: Optional[np.ndarray] = None   # (h,3) int32 outward hull triangles
    poly_normal: Optional[np.ndarray] = None  # (p,3) hull polygon outward normals
    poly_vert: Optional[np.ndarray] = None    # int32 vertex ids of the polygons, one after another
    poly_vertnum: Optional[np.ndarray] = None  # (p,) int32 vertex count of each polygon
    poly_mapadr: Optional[np.ndarray] = None  # (n,) int32 per vertex: first entry in poly_map
    poly_mapnum: Optional[np.ndarray] = None  # (n,) int32 per vertex: polygons containing it
    poly_map: Optional[np.ndarray] = None     # int32 polygon ids per vertex (polygon_map)
    graph: Optional[np.ndarray] = None        # int32 mesh_graph of the hull (hull_graph)
    extrema: Optional[np.ndarray] = None      # (27,) int32 mesh_extrema (hull_extrema)
    normal: Optional[np.ndarray] = None      # file normals rotated into the mesh frame
    texcoord: Optional[np.ndarray] = None
    facenormal: Optional[np.ndarray] = None
    facetexcoord: Optional[np.ndarray] = None
    aabb: np.ndarray = field(default_factory=lambda: np.zeros(6))  # center(3), half-size(3)
    rbound: float = 0.0         # distance of the farthest AABB corner from the origin

    @property
    def shell(self) -> bool:
        """Mass on the surface (``inertia="shell"``): ``volume`` is an area."""
        return self.inertia_type == "shell"

    @property
    def vert_f32(self) -> np.ndarray:
        """Vertices as stored in mjModel.mesh_vert (single precision)."""
        return self.vert.astype(np.float32)

    @property
    def boxsz(self) -> np.ndarray:
        """Half-sizes of the box with the same mass and principal inertia."""
        return _inertia_box(self.volume, self.inertia)

    def geom_mass_inertia(self, density: float = 1000.0):
        """(mass, diagonal inertia) of a mesh geom of this density, in the mesh frame."""
        return density * self.volume, density * self.inertia


def _as_vec(x, n, what):
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise MeshError(f"mesh {what} must have {n} numbers, got {a.size}")
    return a


def process_mesh(vert, face=None, scale=(1.0, 1.0, 1.0), refpos=(0.0, 0.0, 0.0),
                 refquat=(1.0, 0.0, 0.0, 0.0), inertia: str = "legacy",
                 maxhullvert: int = -1, need_hull: bool = True, name: str = "mesh",
                 normal=None, texcoord=None, facenormal=None, facetexcoord=None,
                 single_precision: bool = True, keep_frame: bool = False,
                 smoothnormal: bool = False, obj_texcoord: bool = False) -> MeshData:
    """Compile a mesh asset as MuJoCo does (seed asset/mesh, steps 3-6).

    Parameters
    ----------
    vert, face : vertices (n,3) in file units and triangles (m,3) (0-based);
        ``face`` None or empty means a point cloud whose faces are those of
        its convex hull.
    scale, refpos, refquat : the ``<mesh>`` attributes; the asset-frame
        vertices are ``scale * (R(refquat)^T (vert - refpos))`` (refquat is
        normalised; negative scales mirror the mesh).
    inertia : ``<mesh inertia=...>``: ``legacy`` (default; mesh faces,
        absolute pyramid volumes), ``convex`` (convex hull), ``exact``
        (signed volumes; requires consistent orientation), ``shell``
        (surface mass).
    maxhullvert : ``<mesh maxhullvert>`` (-1 = no limit, else > 3).
    need_hull : whether the hull is wanted (a collision geom uses the mesh,
        or the compiler attribute ``convexhull``); it is always built for
        ``inertia="convex"`` and for point clouds.  Building it on a flat
        mesh raises the official compiler's "coplanar vertices" error.
    name : used in error messages.
    normal, texcoord, facenormal, facetexcoord : the file's (or ``<mesh>``'s) normals and
        texture coordinates with their per-corner indices, or None; normals are computed when
        absent (engine/compiler/mesh_normals.py, ``smoothnormal`` the attribute), all are moved
        to the mesh frame (computed on the faces as given: under a mirroring scale mujoco
        4.0.0 swaps their corners after making the normals, measured on inline and STL
        meshes); ``obj_texcoord``: they come from an OBJ file (v flipped).
    keep_frame : leave the vertices in their own frame (mesh pos 0, quat identity; the
        principal moments still in ``inertia``), as MuJoCo does for a mesh made by an SDF
        plugin (measured on mujoco 4.0.0's model/plugin/sdf models).
    single_precision : round the input vertices to float32 first.  MuJoCo
        keeps user and file vertices in single precision (STL/OBJ/MSH data,
        and the XML ``vertex`` attribute too), then processes them in double;
        rounding here makes XML-given vertices match mjModel bit for bit.

    Returns a :class:`MeshData`.  Raises :class:`MeshError` with the official
    compiler's wording for: fewer than 4 vertices, face indices out of range,
    coplanar vertices (hull), inconsistent orientation and negative volume
    (``exact``), volume (or area for ``shell``) below mjMINVAL.
    """
    if inertia not in INERTIA_TYPES:
        raise MeshError(f"mesh '{name}': invalid inertia type '{inertia}' "
                        f"(expected one of {', '.join(INERTIA_TYPES)})")
    if maxhullvert is None:
        maxhullvert = -1
    if maxhullvert != -1 and maxhullvert < 4:
        raise MeshError(f"mesh '{name}': maxhullvert must be larger than 3")
    v = np.asarray(vert, dtype=np.float64).reshape(-1, 3)
    if single_precision:
        v = v.astype(np.float32).astype(np.float64)
    if len(v) < 4:
        raise MeshError(f"mesh '{name}': at least 4 vertices required")
    if not np.all(np.isfinite(v)):
        raise MeshError(f"mesh '{name}': vertex coordinates must be finite")
    f = None if face is None else np.asarray(face, dtype=np.int64).reshape(-1, 3)
    if f is not None and len(f):
        bad = np.flatnonzero((f < 0).any(axis=1) | (f >= len(v)).any(axis=1))
        if len(bad):
            k = int(bad[0])
            col = int(np.flatnonzero((f[k] < 0) | (f[k] >= len(v)))[0])
            raise MeshError(f"mesh '{name}': in face {k}, vertex index {int(f[k, col])} "
                            "does not exist")
    scale = _as_vec(scale, 3, "scale")
    refpos = _as_vec(refpos, 3, "refpos")
    rq = _as_vec(refquat, 4, "refquat")
    nq = np.linalg.norm(rq)
    if nq < MJ_MINVAL:
        raise MeshError(f"mesh '{name}': refquat must be a non-zero quaternion")
    rq = rq / nq

    # step 3: reference frame and scale
    v_file = v
    Rref = _quat2mat(rq)
    v = ((v - refpos) @ Rref) * scale

    if inertia == "exact" and f is not None and len(f):
        # on the file's faces and vertices, before scaling/mirroring
        _check_orientation(v_file, f, name)

    # a mirroring scale (odd number of negative factors) turns the faces
    # inside out: swap two corners to keep them counter-clockwise
    mirrored = bool(np.prod(np.sign(scale)) < 0)
    f_user = f
    if mirrored and f is not None:
        f = f[:, [0, 2, 1]]
        if facenormal is not None:
            facenormal = np.asarray(facenormal).reshape(-1, 3)[:, [0, 2, 1]]
        if facetexcoord is not None:
            facetexcoord = np.asarray(facetexcoord).reshape(-1, 3)[:, [0, 2, 1]]

    # step 4: convex hull. MuJoCo's hull data (graph, polygons) is the hull of the file's
    # vertices; the hull of the transformed vertices is qhull's second run only where its own
    # triangles matter (a point cloud's faces, "convex" inertia) or where the first run failed
    # (a flat mesh: this one raises the compiler's error)
    pointcloud = f is None or len(f) == 0
    hull_vert = hull_face = ht = None
    if need_hull or pointcloud or inertia == "convex":
        ht = hull_faces(np.asarray(v_file, dtype=np.float64), maxhullvert)
        if ht is None or pointcloud or inertia == "convex":
            hull_vert, hull_face = convex_hull(v, maxhullvert, name)
        else:   # the same hull, outward in the compiled frame: a mirroring scale turns it
            hull_face = (ht[1][:, [0, 2, 1]] if mirrored else ht[1]).astype(np.int32)
            hull_vert = np.unique(hull_face)
    if pointcloud:
        # mujoco copies the faces of its hull graph (mjCMesh::CopyGraph): qhull's triangles of
        # the file's vertices, in qhull's facet order and corner order (measured: mesh_face of
        # mujoco 4.0.0 equals the graph's faces); the second run's where there is no graph
        f = (ht[1] if ht is not None and not mirrored else hull_face).astype(np.int64)

    # steps 5-6: mass properties and principal frame
    src = hull_face if inertia == "convex" else f
    measure, com, I, src_area = _mass_properties(v, src, inertia, name)
    evals, quat = eig3(I)
    if keep_frame:
        com, quat = np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
    R = _quat2mat(quat)
    vloc = (v - com) @ R
    surface = src_area if src is f else _mass_properties(v, f, "shell", name)[3]

    lo, hi = vloc.min(axis=0), vloc.max(axis=0)
    aabb = np.concatenate([(lo + hi) / 2, (hi - lo) / 2])
    # geom_rbound of a mesh geom: the AABB corner farthest from the origin
    rbound = float(np.linalg.norm(np.abs(aabb[:3]) + aabb[3:]))
    pnrm, pverts, pnum = np.zeros((0, 3)), np.zeros(0, np.int32), np.zeros(0, np.int32)
    graph = extrema = None
    if hull_vert is not None:
        pnrm, pverts, pnum = hull_polygons(v_file, vloc, None if ht is None else ht[1], mirrored)
        if ht is not None:
            graph = hull_graph(*ht)
            extrema = hull_extrema(vloc, graph)
    padr, pmnum, pmap = polygon_map(len(vloc), pverts, pnum)
    from . import mesh_normals
    nrm, facenormal, texcoord, facetexcoord = mesh_normals.build(
        v_file, f, normal, facenormal, texcoord, facetexcoord, smoothnormal, refquat, scale, R,
        obj=obj_texcoord, normal_face=None if pointcloud else f_user)
    return MeshData(
        name=name, vert=vloc, face=f.astype(np.int32), pos=com, quat=quat, scale=scale,
        inertia_type=inertia, volume=float(measure), inertia=np.asarray(evals, dtype=float),
        surface_area=surface,
        hull_vert=None if hull_vert is None else hull_vert.astype(np.int32),
        hull_face=hull_face, normal=nrm, poly_normal=pnrm, poly_vert=pverts,
        poly_vertnum=pnum, poly_mapadr=padr, poly_mapnum=pmnum, poly_map=pmap, graph=graph,
        extrema=extrema,
        texcoord=texcoord, facenormal=facenormal, facetexcoord=facetexcoord,
        aabb=aabb, rbound=rbound,
    )


# --------------------------------------------------------------------------
# the compile cache (engine/compiler/cache.py)
# --------------------------------------------------------------------------

# MeshData fields stored in a cache entry: arrays (None is stored as absent) and scalars
_CACHED_ARRAYS = ("vert", "face", "pos", "quat", "scale", "inertia", "hull_vert", "hull_face",
                  "poly_normal", "poly_vert", "poly_vertnum", "poly_mapadr", "poly_mapnum",
                  "poly_map", "graph", "extrema", "normal", "texcoord", "facenormal",
                  "facetexcoord", "aabb")
_CACHED_SCALARS = ("inertia_type", "volume", "surface_area", "rbound")
_scipy_version = None


def _qhull_version() -> bytes:
    """scipy's version file (its qhull makes the hulls): part of the key, read once."""
    global _scipy_version
    if _scipy_version is None:
        import importlib.util
        try:
            spec = importlib.util.find_spec("scipy")
            with open(os.path.join(os.path.dirname(spec.origin), "version.py"), "rb") as f:
                _scipy_version = f.read()
        except (OSError, AttributeError, TypeError, ValueError, ImportError):
            _scipy_version = b"?"
    return _scipy_version


def mesh_cache_key(source, *, kind: str, scale, refpos, refquat, inertia: str,
                   maxhullvert: int, need_hull: bool = True, all_groups: bool = False,
                   smoothnormal: bool = False, extra=()):
    """The compile-cache key of a mesh asset: ``source`` is the mesh file's bytes (``kind`` its
    format, `mesh_kind`) or, for a mesh given inline, the pair (vertex, face) as the
    `process_mesh` arguments (``kind`` "inline"); the rest are the `process_mesh` parameters.
    The source code of this module, engine/compiler/hull.py and engine/compiler/cache.py, and
    the numpy and scipy versions are part of it."""
    from . import cache, hull
    k = cache.Key("mesh")
    from . import mesh_normals
    k.add("code", cache.code_digest(cache, hull, mesh_normals, _this_module()))
    k.add("versions", np.__version__.encode() + b"|" + _qhull_version())
    k.add("kind", kind)
    if kind == "inline":
        vert, face = source
        k.add("vertex", np.asarray(vert, np.float64))
        k.add("face", None if face is None else np.asarray(face, np.int64))
    else:
        k.add("bytes", source)
    k.add("scale", np.asarray(scale, np.float64))
    k.add("refpos", np.asarray(refpos, np.float64))
    k.add("refquat", np.asarray(refquat, np.float64))
    k.add("inertia", str(inertia))
    k.add("maxhullvert", -1 if maxhullvert is None else int(maxhullvert))
    k.add("need_hull", b"1" if need_hull else b"0")
    k.add("all_groups", b"1" if all_groups else b"0")
    k.add("smoothnormal", b"1" if smoothnormal else b"0")
    for name, a in extra:      # the <mesh>'s own normal / texcoord arrays
        k.add(name, None if a is None else np.asarray(a, np.float64))
    return k


def _this_module():
    import sys
    return sys.modules[__name__]


def load_cached_mesh(key, name: str = "mesh") -> Optional[MeshData]:
    """The MeshData stored under ``key`` (named ``name``, as `process_mesh`'s), or None
    (absent, disabled, or an unusable entry: the caller computes it)."""
    from . import cache
    got = cache.load(key)
    if got is None:
        return None
    arrays, meta = got
    try:
        kw = {f: arrays.get(f) for f in _CACHED_ARRAYS}
        kw.update({f: meta[f] for f in _CACHED_SCALARS})
        return MeshData(name=name, **kw)
    except (KeyError, TypeError):
        return None


def store_cached_mesh(key, md: MeshData) -> None:
    """Store ``md`` under ``key`` (failures are ignored: the cache is only an optimisation)."""
    from . import cache
    arrays = {f: getattr(md, f) for f in _CACHED_ARRAYS if getattr(md, f) is not None}
    cache.store(key, arrays, {f: getattr(md, f) for f in _CACHED_SCALARS})


# --------------------------------------------------------------------------
# geom helpers
# --------------------------------------------------------------------------

def _inertia_box(mass: float, inertia: np.ndarray) -> np.ndarray:
    """Half-sizes of a uniform box with this mass and principal inertia.

    A box of half-sizes (a,b,c) has I_x = m (b^2+c^2)/3, etc., so
    a = sqrt(3 (I_y + I_z - I_x) / (2 m)).
    """
    I = np.asarray(inertia, dtype=float)
    if mass <= 0:
        return np.zeros(3)
    d = np.array([I[1] + I[2] - I[0], I[0] + I[2] - I[1], I[0] + I[1] - I[2]])
    return np.sqrt(np.maximum(0.0, 3.0 * d / (2.0 * mass)))


_GEOM_NAMES = {2: "sphere", 3: "capsule", 4: "ellipsoid", 5: "cylinder", 6: "box"}  # mjtGeom


def mesh_fit_size(meshdata: MeshData, geom_type, fitaabb: bool = False,
                  fitscale: float = 1.0):
    """Size of a primitive geom fitted to a mesh (geom ``type=... mesh=...``).

    ``geom_type`` is a name (``"sphere"``, ...) or an mjtGeom value.
    Seed body/geom ``mesh``/``fitscale`` and compiler ``fitaabb``: the
    primitive is fitted either to the mesh's equivalent-inertia box
    (``fitaabb=False``) or to its axis-aligned bounding box in the mesh frame
    (``fitaabb=True``); the result is multiplied by ``fitscale``.

    Returns ``(size, pos, quat)``: ``size`` (3,) as mjModel.geom_size, and the
    offset of the fitted primitive's frame relative to the *mesh frame*
    (``pos`` is the AABB centre for ``fitaabb``, zero otherwise; ``quat`` is
    identity).  The geom compiler composes geom pos/quat, then
    ``mesh_pos/mesh_quat``, then this offset.
    """
    gt = _GEOM_NAMES.get(geom_type, geom_type) if not isinstance(geom_type, str) \
        else geom_type.lower()
    if fitaabb:
        half = meshdata.aabb[3:]
        center = meshdata.aabb[:3].copy()
        if gt == "sphere":
            size = [float(np.max(half)), 0, 0]
        elif gt in ("capsule", "cylinder"):
            r = float(max(half[0], half[1]))
            size = [r, float(half[2]) - (r if gt == "capsule" else 0.0), 0]
            size[1] = max(size[1], 0.0) if gt == "capsule" else size[1]
        elif gt in ("ellipsoid", "box"):
            size = list(map(float, half))
        else:
            raise MeshError(f"cannot fit geom type '{geom_type}' to a mesh")
    else:
        center = np.zeros(3)
        b = meshdata.boxsz
        if gt == "sphere":
            size = [float(b.mean()), 0, 0]
        elif gt == "capsule":
            r = float(0.5 * (b[0] + b[1]))
            size = [r, float(max(0.0, b[2] - r / 2)), 0]
        elif gt == "cylinder":
            size = [float(0.5 * (b[0] + b[1])), float(b[2]), 0]
        elif gt in ("ellipsoid", "box"):
            size = list(map(float, b))
        else:
            raise MeshError(f"cannot fit geom type '{geom_type}' to a mesh")
    size = np.asarray(size, dtype=float) * float(fitscale)
    return size, center, np.array([1.0, 0.0, 0.0, 0.0])


def mesh_geom_bounds(meshdata: MeshData):
    """Bounding data of a mesh geom in its (mesh) frame.

    Returns ``(rbound, aabb)``: geom_rbound (distance from the origin of the
    farthest corner of the AABB, as MuJoCo computes it - not the farthest
    vertex) and geom_aabb (centre(3), half-size(3)).
    """
    return meshdata.rbound, meshdata.aabb.copy()
