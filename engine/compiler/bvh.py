"""Bounding-volume hierarchies of the compiled model: mjModel's bvh_depth, bvh_child, bvh_nodeid,
bvh_aabb, body_bvhadr/num and mesh_bvhadr/num, built as mujoco 4.0.0's compiler builds them
(seed 000, "compiler": the static BVHs of the bodies' geoms and of the meshes' faces).

The construction, read from MuJoCo's compiler (mjCBoundingVolumeHierarchy::MakeBVH in
src/user/user_objects.cc; mjCBody::ComputeBVH; mjCMesh::Process and MakeCenter in
src/user/user_mesh.cc):

- a tree has one leaf per element: the colliding geoms of a body (contype or conaffinity
  non-zero), in the body's geom order, or the faces of a mesh;
- a node's box is the axis-aligned box, in the tree's frame, of its elements' boxes: a geom's
  box (geom_aabb, geom frame) has its 8 corners moved to the body's inertial frame
  (body_ipos, body_iquat); a face's box is that of its 3 vertices in the mesh frame. A box
  flatter than mjEPS on an axis is widened by mjEPS on both sides. Stored as center and
  half-sizes (bvh_aabb, [L]);
- nodes are numbered in preorder (node, its first child's subtree, its second's) within the
  tree; bvh_child holds tree-local indices, -1 for none; bvh_depth the level (root 0);
  bvh_nodeid of a leaf the geom id (bodies) or the face id within the mesh, -1 elsewhere;
- an inner node's elements are split in two at their median (the first n/2 of them, the rest)
  along the box's longest axis (an axis must be longer than the previous by mjEPS to win);
  elements compare by their position on that axis (a geom's origin, a face's circumcenter, in
  the tree frame), positions within mjEPS of each other by the element's order in the tree.
  The split is std::nth_element's (libstdc++, which mujoco's Linux wheels are built with),
  reproduced step for step: the comparison is not transitive, so the halves depend on it;
- the model's trees: every body's (body order; bodies without geoms have none: adr -1), then
  every mesh's (mesh order). All are static (nbvhstatic = nbvh).
"""
from __future__ import annotations

import numpy as np

from .._jit import inline, kernel

MJ_EPS = 1e-14      # mjEPS of the compiler (src/user/user_util.h)


@inline
def _lt(ka, ia, kb, ib):
    """MuJoCo's element order: by position ``k`` on the split axis unless within mjEPS, then by
    the element's index ``i`` in the tree (its pointer, in MuJoCo)."""
    d = ka - kb
    if abs(d) > MJ_EPS:
        return d < 0.0
    return ia < ib


@inline
def _swap(key, order, i, j):
    t = key[i]
    key[i] = key[j]
    key[j] = t
    u = order[i]
    order[i] = order[j]
    order[j] = u


@inline
def _sift_down(key, order, first, hole, length, kv, iv):
    """libstdc++'s __adjust_heap on [first, first + length) (a max-heap under `_lt`), placing
    the value (kv, iv) from ``hole``."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _lt(key[first + child], order[first + child], key[first + child - 1],
               order[first + child - 1]):
            child -= 1
        key[first + hole] = key[first + child]
        order[first + hole] = order[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        key[first + hole] = key[first + child - 1]
        order[first + hole] = order[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _lt(key[first + parent], order[first + parent], kv, iv):
        key[first + hole] = key[first + parent]
        order[first + hole] = order[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    key[first + hole] = kv
    order[first + hole] = iv


@kernel
def _heap_select(key, order, first, middle, last):
    """libstdc++'s __heap_select: the (middle - first) smallest into [first, middle)."""
    length = middle - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _sift_down(key, order, first, parent, length, key[first + parent],
                       order[first + parent])
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):
        if _lt(key[i], order[i], key[first], order[first]):
            kv, iv = key[i], order[i]
            key[i] = key[first]
            order[i] = order[first]
            _sift_down(key, order, first, 0, length, kv, iv)


@kernel
def _nth_element(key, order, first, nth, last):
    """std::nth_element on the pairs (key, order) in [first, last) under `_lt`, step for step
    as libstdc++ does it (introselect: median-of-three pivot moved to the front, Hoare
    partition, insertion sort below four elements, heap select past 2 log2(n) rounds). The
    exact arrangement matters: the next level splits these halves as they lie, and positions
    within mjEPS make the comparison intransitive, so another selection could pick other
    halves. The keys travel with the indices: contiguous, not gathered (10x faster on meshes
    of 10^5 faces)."""
    n = last - first
    depth = 0
    while (1 << (depth + 1)) <= n:
        depth += 1
    depth *= 2
    while last - first > 3:
        if depth == 0:
            _heap_select(key, order, first, nth + 1, last)
            _swap(key, order, first, nth)
            return
        depth -= 1
        # __move_median_to_first(first, first + 1, mid, last - 1)
        mid = first + (last - first) // 2
        a, b, c = first + 1, mid, last - 1
        if _lt(key[a], order[a], key[b], order[b]):
            if _lt(key[b], order[b], key[c], order[c]):
                _swap(key, order, first, b)
            elif _lt(key[a], order[a], key[c], order[c]):
                _swap(key, order, first, c)
            else:
                _swap(key, order, first, a)
        elif _lt(key[a], order[a], key[c], order[c]):
            _swap(key, order, first, a)
        elif _lt(key[b], order[b], key[c], order[c]):
            _swap(key, order, first, c)
        else:
            _swap(key, order, first, b)
        # __unguarded_partition(first + 1, last, pivot = first)
        lo, hi = first + 1, last
        kp, ip = key[first], order[first]
        while True:
            while _lt(key[lo], order[lo], kp, ip):
                lo += 1
            hi -= 1
            while _lt(kp, ip, key[hi], order[hi]):
                hi -= 1
            if not lo < hi:
                break
            _swap(key, order, lo, hi)
            lo += 1
        if lo <= nth:
            first = lo
        else:
            last = lo
    # __insertion_sort(first, last)
    for i in range(first + 1, last):
        kv, iv = key[i], order[i]
        if _lt(kv, iv, key[first], order[first]):
            for j in range(i, first, -1):
                key[j] = key[j - 1]
                order[j] = order[j - 1]
            key[first] = kv
            order[first] = iv
        else:
            j = i
            while _lt(kv, iv, key[j - 1], order[j - 1]):
                key[j] = key[j - 1]
                order[j] = order[j - 1]
                j -= 1
            key[j] = kv
            order[j] = iv


@kernel
def build_tree(aamm, lpos, ids, order, key, stack, aabb_out, child_out, depth_out, nodeid_out):
    """One BVH over n elements (module docstring); returns its number of nodes (<= 2n - 1).

    Model: aamm (n, 6) elements' boxes as min(3), max(3) in the tree frame [L]; lpos (n, 3)
    their positions in the tree frame [L]; ids (n,) int32 the leaf ids (bvh_nodeid).
    Scratch: order (n,) int64, key (n,) float64; stack (n + 1, 5) int64.
    Out: aabb_out (2n-1, 6) center, half-size [L]; child_out (2n-1, 2), depth_out,
    nodeid_out (2n-1,) int32."""
    n = aamm.shape[0]
    if n == 0:
        return 0
    for i in range(n):
        order[i] = i
    nbvh = 0
    top = 0
    # stack rows: begin, end, level, parent node (-1: root), which child of the parent
    stack[0, 0] = 0
    stack[0, 1] = n
    stack[0, 2] = 0
    stack[0, 3] = -1
    stack[0, 4] = 0
    top = 1
    while top > 0:
        top -= 1
        b = stack[top, 0]
        e = stack[top, 1]
        lev = stack[top, 2]
        parent = stack[top, 3]
        side = stack[top, 4]
        lo0 = lo1 = lo2 = 1.7976931348623157e308
        hi0 = hi1 = hi2 = -1.7976931348623157e308
        for k in range(b, e):
            j = order[k]
            lo0 = min(lo0, aamm[j, 0])
            lo1 = min(lo1, aamm[j, 1])
            lo2 = min(lo2, aamm[j, 2])
            hi0 = max(hi0, aamm[j, 3])
            hi1 = max(hi1, aamm[j, 4])
            hi2 = max(hi2, aamm[j, 5])
        if abs(lo0 - hi0) < MJ_EPS:
            lo0 -= MJ_EPS
            hi0 += MJ_EPS
        if abs(lo1 - hi1) < MJ_EPS:
            lo1 -= MJ_EPS
            hi1 += MJ_EPS
        if abs(lo2 - hi2) < MJ_EPS:
            lo2 -= MJ_EPS
            hi2 += MJ_EPS
        idx = nbvh
        nbvh += 1
        aabb_out[idx, 0] = (hi0 + lo0) / 2
        aabb_out[idx, 1] = (hi1 + lo1) / 2
        aabb_out[idx, 2] = (hi2 + lo2) / 2
        aabb_out[idx, 3] = (hi0 - lo0) / 2
        aabb_out[idx, 4] = (hi1 - lo1) / 2
        aabb_out[idx, 5] = (hi2 - lo2) / 2
        child_out[idx, 0] = -1
        child_out[idx, 1] = -1
        depth_out[idx] = lev
        nodeid_out[idx] = -1
        if parent >= 0:
            child_out[parent, side] = idx
        if e - b == 1:
            nodeid_out[idx] = ids[order[b]]
            continue
        e0, e1, e2 = hi0 - lo0, hi1 - lo1, hi2 - lo2
        axis = 0
        longest = e0
        if e1 >= longest + MJ_EPS:
            axis = 1
            longest = e1
        if e2 >= longest + MJ_EPS:
            axis = 2
        m = b + (e - b) // 2
        for k in range(b, e):
            key[k] = lpos[order[k], axis]
        _nth_element(key, order, b, m, e)
        # the second half below the first on the stack: the first half's subtree is numbered
        # before it (preorder, as MuJoCo's recursion)
        stack[top, 0] = m
        stack[top, 1] = e
        stack[top, 2] = lev + 1
        stack[top, 3] = idx
        stack[top, 4] = 1
        top += 1
        stack[top, 0] = b
        stack[top, 1] = m
        stack[top, 2] = lev + 1
        stack[top, 3] = idx
        stack[top, 4] = 0
        top += 1
    return nbvh


def _tree(aamm, lpos, ids):
    """(aabb, child, depth, nodeid) of one tree (see `build_tree`)."""
    n = len(ids)
    size = max(2 * n - 1, 0)
    aabb = np.zeros((size, 6))
    child = np.zeros((size, 2), np.int32)
    depth = np.zeros(size, np.int32)
    nodeid = np.zeros(size, np.int32)
    if n:
        cnt = build_tree(np.ascontiguousarray(aamm, np.float64),
                         np.ascontiguousarray(lpos, np.float64),
                         np.ascontiguousarray(ids, np.int32), np.zeros(n, np.int64),
                         np.zeros(n), np.zeros((n + 1, 5), np.int64),
                         aabb, child, depth, nodeid)
        assert cnt == size, "a median split of n elements has 2n - 1 nodes"
    return aabb, child, depth, nodeid


def _quat2mat(q):
    """Rotation matrices (k, 3, 3) of unit quaternions q (k, 4), w first (mjuu_quat2mat)."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z], -1),
    ], -2)


_CORNERS = np.array([[(v >> 0) & 1, (v >> 1) & 1, (v >> 2) & 1] for v in range(8)], bool)


def body_tree(geom_aabb, geom_pos, geom_quat, ipos, iquat, geom_ids):
    """The BVH of one body over its colliding geoms ``geom_ids`` (body-frame geom poses, the
    body's inertial frame ipos, iquat): (aabb, child, depth, nodeid)."""
    k = len(geom_ids)
    if k == 0:
        return _tree(np.zeros((0, 6)), np.zeros((0, 3)), np.zeros(0, np.int32))
    box = geom_aabb[geom_ids]
    lo, hi = box[:, :3] - box[:, 3:], box[:, :3] + box[:, 3:]
    corners = np.where(_CORNERS[None], hi[:, None, :], lo[:, None, :])       # (k, 8, 3)
    R = _quat2mat(geom_quat[geom_ids])                                         # (k, 3, 3)
    Rinv = _quat2mat(np.array([[iquat[0], -iquat[1], -iquat[2], -iquat[3]]]))[0]
    inbody = np.einsum("kij,kcj->kci", R, corners) + (geom_pos[geom_ids] - ipos)[:, None, :]
    local = np.einsum("ij,kcj->kci", Rinv, inbody)
    aamm = np.concatenate([local.min(axis=1), local.max(axis=1)], axis=1)
    lpos = (geom_pos[geom_ids] - ipos) @ Rinv.T
    return _tree(aamm, lpos, np.asarray(geom_ids, np.int32))


def face_circumcenters(vert, face):
    """Circumcenters (m, 3) of the triangles (mjCMesh::MakeCenter), mesh frame [L]."""
    p0, p1, p2 = vert[face[:, 0]], vert[face[:, 1]], vert[face[:, 2]]
    a, b = p0 - p2, p1 - p2
    nrm = np.cross(a, b)
    na = np.einsum("ij,ij->i", a, a)[:, None]
    nb = np.einsum("ij,ij->i", b, b)[:, None]
    area2 = np.einsum("ij,ij->i", nrm, nrm)[:, None]     # |nrm|^2, as sqrt(.)^2 in MuJoCo
    area = np.sqrt(area2)
    res = np.cross(na * b - nb * a, nrm)
    with np.errstate(divide="ignore", invalid="ignore"):
        return res / (2 * area * area) + p2


def mesh_tree(vert, face):
    """The BVH of one mesh over its faces (mesh-frame vertices ``vert`` in double precision, as
    the compiler holds them before mesh_vert is rounded to float32)."""
    vert = np.asarray(vert, np.float64)
    face = np.asarray(face, np.int64).reshape(-1, 3)
    p = vert[face]                                            # (m, 3, 3)
    mn, mx = p.min(axis=1), p.max(axis=1)
    # MuJoCo stores each face's box as center and half-size and rebuilds min/max from them
    c, h = 0.5 * (mn + mx), 0.5 * (mx - mn)
    aamm = np.concatenate([c - h, c + h], axis=1)
    return _tree(aamm, face_circumcenters(vert, face), np.arange(len(face), dtype=np.int32))


def model_bvh(v, nbody, body_geoms, mesh_trees):
    """mjModel's BVH fields from the compiled field values ``v`` (geom_aabb, geom_pos,
    geom_quat, body_ipos, body_iquat), each body's colliding geom ids ``body_geoms`` and the
    meshes' trees (`mesh_tree`): a dict of bvh_* / body_bvh* /
    mesh_bvh* arrays and the sizes nbvh, nbvhstatic, nbvhdynamic."""
    gaabb = np.asarray(v["geom_aabb"], np.float64).reshape(-1, 6)
    gpos = np.asarray(v["geom_pos"], np.float64).reshape(-1, 3)
    gquat = np.asarray(v["geom_quat"], np.float64).reshape(-1, 4)
    ipos = np.asarray(v["body_ipos"], np.float64).reshape(-1, 3)
    iquat = np.asarray(v["body_iquat"], np.float64).reshape(-1, 4)
    trees, body_adr, body_num, mesh_adr, mesh_num = [], [], [], [], []
    total = 0
    for b in range(nbody):
        t = body_tree(gaabb, gpos, gquat, ipos[b], iquat[b], body_geoms[b])
        body_adr.append(total if len(t[3]) else -1)
        body_num.append(len(t[3]))
        total += len(t[3])
        trees.append(t)
    for t in mesh_trees:
        mesh_adr.append(total if len(t[3]) else -1)
        mesh_num.append(len(t[3]))
        total += len(t[3])
        trees.append(t)
    cat = (lambda i, shape, dt: np.concatenate([t[i] for t in trees]).astype(dt)
           if trees else np.zeros(shape, dt))
    return {
        "bvh_aabb": cat(0, (0, 6), np.float64), "bvh_child": cat(1, (0, 2), np.int32),
        "bvh_depth": cat(2, (0,), np.int32), "bvh_nodeid": cat(3, (0,), np.int32),
        "body_bvhadr": np.asarray(body_adr, np.int32), "body_bvhnum": np.asarray(body_num, np.int32),
        "mesh_bvhadr": np.asarray(mesh_adr, np.int32), "mesh_bvhnum": np.asarray(mesh_num, np.int32),
        "nbvh": total, "nbvhstatic": total, "nbvhdynamic": 0,
    }


# the fields `build_into` puts on a model (MjModel.__getattr__ builds them on first use)
FIELDS = ("bvh_aabb", "bvh_child", "bvh_depth", "bvh_nodeid", "body_bvhadr", "body_bvhnum",
          "mesh_bvhadr", "mesh_bvhnum")


def _colliding(m, b):
    adr, num = int(m.body_geomadr[b]), int(m.body_geomnum[b])
    if num <= 0:
        return []
    g = np.arange(adr, adr + num)
    return g[(np.asarray(m.geom_contype)[g] != 0) | (np.asarray(m.geom_conaffinity)[g] != 0)]


def attach(c, m):
    """Record on the compiled model ``m`` what its BVHs are built from (compiler ``c``: the
    meshes' double-precision vertices and faces) and their sizes (a median split of k elements
    has 2k - 1 nodes). The trees themselves are built on first use (`build_into`): they cost
    more than the rest of a warm compile of a Menagerie scene (measured: unitree_h1, 5.7e5
    nodes) and only saving reads them so far."""
    d = m.__dict__
    d["_bvh_source"] = [(md.vert, md.face) for md in c.mesh_data]
    n = sum(max(2 * len(_colliding(m, b)) - 1, 0) for b in range(int(m.nbody)))
    n += sum(max(2 * len(md.face) - 1, 0) for md in c.mesh_data)
    d["nbvh"] = d["nbvhstatic"] = n
    d["nbvhdynamic"] = 0


def build_into(m):
    """Build ``m``'s BVH fields (FIELDS) from what `attach` recorded; no-op once built."""
    d = m.__dict__
    src = d.get("_bvh_source")
    if src is None:
        return
    body_geoms = [_colliding(m, b) for b in range(int(m.nbody))]
    v = {k: getattr(m, k) for k in ("geom_aabb", "geom_pos", "geom_quat", "body_ipos",
                                    "body_iquat")}
    out = model_bvh(v, int(m.nbody), body_geoms, [mesh_tree(vt, f) for vt, f in src])
    if out["nbvh"] != d["nbvh"]:
        raise AssertionError(f"BVH: built {out['nbvh']} nodes, the sizes say {d['nbvh']}")
    d.update(out)
    del d["_bvh_source"]
