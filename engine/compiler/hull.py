"""Convex hull data of a mesh asset: qhull's hull, mjModel.mesh_graph / mesh_extrema (hull
adjacency for the convex collider) and mesh_poly* (hull polygons), as MuJoCo 4's compiler builds
them.

Vertices are in the mesh's length unit; normals are unit vectors. Everything here is vectorised
over the hull's triangles with numpy: a hull of a smooth mesh has tens of thousands of triangles,
each its own polygon, and the compile time of the Menagerie robots used to be spent here.
"""
from __future__ import annotations

import math

import numpy as np

from . import mesh_kernels

MJ_MINVAL = 1e-15   # mjMINVAL: a hull triangle of smaller doubled area has no normal


class HullError(ValueError):
    """qhull could not build the hull (coplanar or too few distinct points)."""


def _qhull(vert: np.ndarray, maxhullvert: int):
    """scipy's qhull with MuJoCo's options: triangulated output ("Qt"), stopped after
    ``maxhullvert`` vertices ("TA", -1 = no limit)."""
    from scipy.spatial import ConvexHull, QhullError

    opts = "Qt" + (f" TA{maxhullvert - 4}" if maxhullvert is not None and maxhullvert > -1
                   else "")
    if not np.isfinite(vert).all():
        # qhull takes no inf or NaN (a mesh scaled by one): no hull, as for a flat point set
        raise HullError
    try:
        return ConvexHull(vert, qhull_options=opts)
    except QhullError:
        raise HullError from None


def convex_hull(vert: np.ndarray, maxhullvert: int = -1):
    """Convex hull of a point set (n,3): ``(hull_vert, hull_face)``, the sorted indices into
    ``vert`` of the hull's vertices and its (k,3) int32 outward-oriented triangles (indices into
    ``vert``). Raises `HullError` for a flat point set."""
    vert = np.asarray(vert, dtype=np.float64)
    hull = _qhull(vert, maxhullvert)
    tri = hull.simplices.astype(np.int32)
    p = vert[tri]
    nrm = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    flip = np.einsum("ij,ij->i", nrm, hull.equations[:, :3]) < 0
    tri[flip] = tri[flip][:, ::-1]
    return np.unique(tri), tri


def hull_faces(vert: np.ndarray, maxhullvert: int = -1):
    """The convex hull's triangles as MuJoCo's compiler lists them in mesh_graph: qhull's
    triangulated facets ("Qt") in qhull's order. Returns ``(raw, tri)``: ``raw`` each facet's
    vertices in qhull's own order, ``tri`` the same with the first two swapped where that makes
    it counter-clockwise around the outward normal; None for a degenerate hull."""
    try:
        hull = _qhull(vert, maxhullvert)
    except HullError:
        return None
    raw = hull.simplices.astype(np.int64)
    tri = raw.copy()
    p = vert[tri]
    cr = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    inward = np.einsum("ij,ij->i", cr, hull.equations[:, :3]) < 0
    tri[inward] = tri[inward][:, [1, 0, 2]]
    return raw, tri


def hull_graph(raw: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """mjModel.mesh_graph of one mesh, from its hull (`hull_faces`): ``[numvert, numface,
    vert_edgeadr (numvert), vert_globalid (numvert), edge_localid (numvert + 3 numface),
    face_globalid (3 numface)]`` (int32).

    Each hull vertex lists its neighbours (local ids) once, -1 terminated: the facets around
    the vertex in facet order, each facet's vertices in qhull's order. The faces are ``tri``,
    MuJoCo's. What qhull's Python interface (scipy) does not expose, and so differs from
    MuJoCo's graph: the local numbering of the hull vertices (MuJoCo: qhull's internal vertex
    list; here ascending with the mesh vertex id) and the order within a neighbour list
    (MuJoCo: qhull's vertex-neighbour sets, kept in update order while it merges facets). The
    sets are the same, so hill climbing over the graph (engine/collision/nccd.py) finds the
    same support vertex except between exactly tied vertices."""
    gid = np.unique(raw)
    nv, nf = len(gid), len(raw)
    local = np.full(int(gid[-1]) + 1, -1, np.int64)
    local[gid] = np.arange(nv)
    r = local[raw]
    # (vertex, facet, position of the neighbour in the facet) for each of the 6 ordered pairs
    own = np.broadcast_to(r[:, :, None], (nf, 3, 3))       # own[f, i, j] = r[f, i]
    nbr = np.broadcast_to(r[:, None, :], (nf, 3, 3))       # nbr[f, i, j] = r[f, j]
    fid = np.broadcast_to(np.arange(nf)[:, None, None], (nf, 3, 3))
    pos = np.broadcast_to(np.arange(3)[None, None, :], (nf, 3, 3))
    keep = own != nbr
    own, nbr, fid, pos = own[keep], nbr[keep], fid[keep], pos[keep]
    order = np.lexsort((pos, fid, own))
    own, nbr = own[order], nbr[order]
    _, first = np.unique(own * nv + nbr, return_index=True)   # first visit of each edge
    first.sort()
    own, nbr = own[first], nbr[first]
    deg = np.bincount(own, minlength=nv)
    edges = np.full(nv + len(nbr), -1, np.int64)
    edgeadr = np.concatenate([[0], np.cumsum(deg + 1)[:-1]])
    slot = edgeadr[own] + (np.arange(len(own)) - np.concatenate([[0], np.cumsum(deg)[:-1]])[own])
    edges[slot] = nbr
    return np.concatenate([[nv, nf], edgeadr, gid, edges, tri.reshape(-1)]).astype(np.int32)


def hull_extrema(vert: np.ndarray, graph: np.ndarray) -> np.ndarray:
    """mjModel.mesh_extrema of one mesh: for the 27 directions ``(i-1, j-1, k-1)``,
    i, j, k in 0..2 (index 9i + 3j + k), the local id of the first hull vertex farthest along
    it (the seed of nccd's hill climbing). ``vert``: the mesh's compiled vertices; vertices and
    dot products in single precision, as MuJoCo's compiler ranks them."""
    nv = int(graph[0])
    hv = vert[graph[2 + nv:2 + 2 * nv]].astype(np.float32)
    d = np.stack(np.meshgrid(*[np.arange(3) - 1] * 3, indexing="ij"), -1).reshape(27, 3)
    return np.argmax(hv @ d.T.astype(np.float32), axis=0).astype(np.int32)


# ---- hull polygons --------------------------------------------------------------------------------

# Hull triangles whose normals round to the same (azimuth, polar) angle pair, in steps of this
# many radians, form one polygon (MuJoCo's compiler constant).
POLY_ANGLE_STEP = 0.01
# a quotient angle / POLY_ANGLE_STEP this close to a rounding tie (x.5) is rounded from the C
# library's atan2 / acos (math), whose last bit numpy's vectorised ones may not share
_TIE_WINDOW = 1e-7


def _round_half_away(x):
    """Round half away from zero, elementwise (+0.0 for a zero result, never -0.0)."""
    return np.where(x >= 0, np.floor(x + 0.5), -np.floor(-x + 0.5)) + 0.0


def _angle_keys(vert: np.ndarray, tri: np.ndarray):
    """The polygon key of each triangle: its unit normal's azimuth and polar angles divided by
    POLY_ANGLE_STEP and rounded half away from zero; a normal within 1e-7 of +-z has azimuth 0.
    Returns ``(keys (t,2) float64, valid (t,) bool)``; a triangle of (nearly) zero area is not
    valid (it belongs to no polygon)."""
    p = vert[tri]
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    ln = np.sqrt(np.einsum("ij,ij->i", n, n))
    valid = ln >= MJ_MINVAL
    lv = np.where(valid, ln, 1.0)
    nx, ny, nz = (n[:, k] / lv + 0.0 for k in range(3))   # + 0.0: no -0.0 into atan2
    pole = np.abs(nz) > 1.0 - 1e-7
    az = np.arctan2(ny, nx) / POLY_ANGLE_STEP
    pol = np.arccos(np.clip(nz, -1.0, 1.0)) / POLY_ANGLE_STEP
    # near a rounding tie, numpy's and the C library's last bits may round differently
    for q, fn in ((az, lambda i: math.atan2(ny[i], nx[i])), (pol, lambda i: math.acos(nz[i]))):
        frac = np.abs(q) - np.floor(np.abs(q))
        for i in np.flatnonzero(valid & ~pole & (np.abs(frac - 0.5) < _TIE_WINDOW)):
            q[i] = fn(i) / POLY_ANGLE_STEP
    keys = np.empty((len(tri), 2))
    keys[:, 0] = np.where(pole, 0.0, _round_half_away(az))
    keys[:, 1] = np.where(pole, np.where(nz < 0, _round_half_away(math.pi / POLY_ANGLE_STEP),
                                         0.0), _round_half_away(pol))
    return keys, valid


def _key_hashes(keys: np.ndarray) -> np.ndarray:
    """The hash of each (azimuth, polar) key pair as MuJoCo's build computes it (uint64): the
    standard library's hash of a double (0 for +-0, else the 64 bits of the IEEE value), the
    second folded into the first golden-ratio style."""
    bits = np.ascontiguousarray(keys, dtype=np.float64).view(np.uint64).copy()
    bits[keys == 0.0] = 0
    h0, h1 = bits[:, 0], bits[:, 1]
    with np.errstate(over="ignore"):
        return h0 ^ (h1 + np.uint64(0x9E3779B9) + (h0 << np.uint64(6)) + (h0 >> np.uint64(2)))


def _next_prime(n: int) -> int:
    if n <= 2:
        return 2
    while True:
        if n % 2 and all(n % k for k in range(3, int(math.isqrt(n)) + 1, 2)):
            return n
        n += 1


def _table_order(hashes: np.ndarray) -> np.ndarray:
    """The iteration order of the keys inserted, in order, into the hash map MuJoCo's compiler
    keeps its polygons in: an unordered map (libc++) with chained buckets, bucket count 2, 5,
    11, 23, ... (2n+1, next prime) grown at load factor 1. Its element list keeps each bucket's
    nodes together (a "run"); a key whose bucket is empty starts a new run at the front of the
    list, otherwise it goes to the front of its bucket's run; a rehash walks the list, keeps a
    node in place while its bucket is the current run's or new, and moves it to the front of its
    bucket's run otherwise. Polygon ids in mjModel follow this order, so it is reproduced
    exactly, one vectorised step per insertion epoch (between rehashes) and per rehash.

    ``hashes``: (n,) uint64 per key, in insertion order. Returns the key ids (insertion indices)
    in list order."""
    n = len(hashes)
    order = np.zeros(0, np.int64)
    bc, size = 0, 0
    while size < n:
        # the rehash before inserting key `size` (load factor 1; libc++'s growth rule)
        pow2 = bc > 2 and not (bc & (bc - 1))
        nb = max(2 * bc + (0 if pow2 else 1), size + 1)
        nb = 2 if nb == 1 else (_next_prime(nb) if nb & (nb - 1) else nb)
        if nb > bc:
            bc = nb
            order = _rehash(order, (hashes[order] % np.uint64(bc)).astype(np.int64))
        # the keys inserted before the next rehash
        end = min(n, bc)
        new = np.arange(size, end)
        order = _insert_epoch(order, (hashes[order] % np.uint64(bc)).astype(np.int64), new,
                              (hashes[new] % np.uint64(bc)).astype(np.int64))
        size = end
    return order


def _rehash(order: np.ndarray, bucket: np.ndarray) -> np.ndarray:
    """The list after a rehash: ``order`` the list, ``bucket`` each node's new bucket. Runs come
    in the order their buckets first appear; within a run, the nodes that were moved (met after
    the bucket's first stretch ended) come first, last met first, then the first stretch."""
    if len(order) == 0:
        return order
    pos = np.arange(len(order))
    _, first = np.unique(bucket, return_index=True)
    first.sort()
    # the stretch a node lies in: the last first-appearance at or before it
    seg = np.searchsorted(first, pos, side="right") - 1
    kept = bucket == bucket[first[seg]]
    # each node's run: the rank of its bucket's first appearance
    firstpos = np.full(int(bucket.max()) + 1, -1, np.int64)
    firstpos[bucket[first]] = np.arange(len(first))
    runrank = firstpos[bucket]
    within = np.where(kept, pos, -pos)
    return order[np.lexsort((within, kept, runrank))]


def _insert_epoch(order, bucket, new, newbucket):
    """The list after inserting nodes ``new`` (buckets ``newbucket``), in order, into the list
    ``order`` (buckets ``bucket``) without a rehash."""
    nold = len(order)
    nbkt = int(max(bucket.max() if nold else 0, newbucket.max() if len(new) else 0)) + 1
    # an old bucket's run keeps its place (ranked by its first position); a bucket first filled
    # now starts a run at the front, the later-started first (negative ranks)
    runof = np.full(nbkt, -1, np.int64)
    if nold:
        u, fi = np.unique(bucket, return_index=True)
        runof[u] = fi
    newrun = runof[newbucket]
    fresh = newrun < 0
    if fresh.any():
        fb = newbucket[fresh]
        u, fi = np.unique(fb, return_index=True)
        started = np.empty(len(u), np.int64)
        started[np.argsort(fi)] = np.arange(len(u))
        runof[u] = -1 - started
        newrun[fresh] = runof[fb]
    allrun = np.concatenate([runof[bucket], newrun])
    # within a run: the new nodes, last inserted first, then the old ones in their order
    isold = np.concatenate([np.ones(nold, bool), np.zeros(len(new), bool)])
    within = np.concatenate([np.arange(nold), -np.arange(len(new))])
    return np.concatenate([order, new])[np.lexsort((within, isold, allrun))]


class _Islands:
    """Boundary edges of coplanar hull triangles, grouped in islands until faces join them;
    `_Polygon` and `_PolygonList` keep the edges (``_take``, ``_put``, ``_renumber``)."""

    nisland: int

    def add(self, a: int, b: int, c: int) -> None:
        """Add triangle (a, b, c): its edges shared (reversed) with the boundary leave it, the
        others join it; islands it connects become one (the higher id is removed and the ids
        above it shift down)."""
        island, new = -1, []
        for u, w in ((a, b), (b, c), (c, a)):
            other = self._take((w, u))
            if other is None:
                new.append((u, w))
            elif island == -1:
                island = other
            elif other != island:
                lo, hi = min(island, other), max(island, other)
                self._renumber(lo, hi)
                self.nisland -= 1
                island = lo
        if island == -1:
            island = self.nisland
            self.nisland += 1
        for e in new:
            self._put(e, island)


class _Polygon(_Islands):
    """The boundary in an insertion-ordered dict, directed edge -> island: the order is the
    order of the boundary list MuJoCo's compiler keeps (a removed edge leaves it, a new edge is
    appended). A directed edge can be in it once: `hull_polygons` takes groups whose triangles
    repeat a directed edge (not a consistently oriented surface) to `_PolygonList`."""

    def __init__(self, a: int, b: int, c: int):
        self.edges = {(a, b): 0, (b, c): 0, (c, a): 0}
        self.nisland = 1

    def _take(self, e):
        return self.edges.pop(e, None)

    def _put(self, e, island):
        self.edges[e] = island

    def _renumber(self, lo, hi):
        E = self.edges
        for e, k in E.items():
            if k >= hi:
                E[e] = lo if k == hi else k - 1

    def paths(self) -> list:
        """Each island's boundary loop, following edges head to tail from the island's first
        edge; the successor of a vertex is the first later edge of the island leaving it (the
        search skips edge 0); an unclosed trace is dropped."""
        return _trace(list(self.edges), list(self.edges.values()), self.nisland)


class _PolygonList(_Islands):
    """`_Polygon` on a plain edge list, for groups that repeat a directed edge: ``index``
    finds the first of equal edges, as the compiler's boundary list does."""

    def __init__(self, a: int, b: int, c: int):
        self.edges = [(a, b), (b, c), (c, a)]
        self.islands = [0, 0, 0]
        self.nisland = 1

    def _take(self, e):
        try:
            i = self.edges.index(e)
        except ValueError:
            return None
        other = self.islands[i]
        del self.edges[i], self.islands[i]
        return other

    def _put(self, e, island):
        self.edges.append(e)
        self.islands.append(island)

    def _renumber(self, lo, hi):
        self.islands = [lo if k == hi else (k - 1 if k > hi else k) for k in self.islands]

    def paths(self) -> list:
        return _trace(self.edges, self.islands, self.nisland)


def _trace(E: list, I: list, nisland: int) -> list:
    """The closed boundary loops of islands 0..nisland-1 of the edge list E (islands I)."""
    first, succ = {}, {}
    for k, (e, i) in enumerate(zip(E, I)):
        first.setdefault(i, k)
        if k:
            succ.setdefault((i, e[0]), k)
    out = []
    for i in range(nisland):
        j = first.get(i)
        if j is None:
            continue
        path = [E[j][0], E[j][1]]
        nxt = path[-1]
        for _ in range(len(E)):
            k = succ.get((i, nxt))
            if k is None:
                break
            nxt = E[k][1]
            if nxt == path[0]:
                out.append(path)
                break
            path.append(nxt)
    return out


def _pair_loops(t1: np.ndarray, t2: np.ndarray):
    """The boundary loops of polygons of two triangles each, ``t1`` (m,3) added first and
    ``t2`` (m,3): what `_Polygon` traces, in closed form. Apart: the two triangles, in order.
    Sharing one edge (reversed), the quad, starting where the trace starts, at the first edge
    of ``t1`` that remains: with ``t1`` = (a, b, c), ``d`` the vertex of ``t2`` off the shared
    edge, and the shared edge ``t1``'s edge j: [b, c, a, d], [a, b, d, c], [a, b, c, d] for
    j = 0, 1, 2. Returns (ok (m,) bool: the closed form applies (no pair shares more than one
    edge), vertex ids, loop sizes, loops per pair, vertex ids per pair), the last four for
    the pairs where ok, one pair after the other."""
    m = len(t1)
    # match[:, i2, j]: t2's edge i2 (t2[i2] -> t2[i2+1]) is t1's edge j reversed
    match = np.zeros((m, 3, 3), bool)
    for i2 in range(3):
        for j in range(3):
            match[:, i2, j] = ((t1[:, j] == t2[:, (i2 + 1) % 3])
                               & (t1[:, (j + 1) % 3] == t2[:, i2]))
    nshared = match.sum(axis=(1, 2))
    ok = nshared <= 1
    quad = ok & (nshared == 1)
    ids = np.zeros((m, 6), np.int64)
    ids[:, :3], ids[:, 3:] = t1, t2
    flat = np.argmax(match.reshape(m, 9), axis=1)
    i2, j = flat // 3, flat % 3
    a, b, c = t1[:, 0], t1[:, 1], t1[:, 2]
    d = t2[np.arange(m), (i2 + 2) % 3]
    q = np.stack([np.where(j == 0, b, a), np.where(j == 0, c, b),
                  np.where(j == 0, a, np.where(j == 1, d, c)),
                  np.where(j == 0, d, np.where(j == 1, c, d))], axis=1)
    ids[quad, :4] = q[quad]
    per = np.where(quad, 4, 6)[ok]
    loops = np.where(quad, 1, 2)[ok]
    keep = np.arange(6)[None, :] < per[:, None]
    verts = ids[ok][keep]
    nums = np.repeat(np.where(quad[ok], 4, 3), loops)
    return ok, verts, nums, loops, per


def hull_polygons(vert_file: np.ndarray, vert: np.ndarray, tri, mirrored: bool = False):
    """Polygons of a mesh's convex hull: mjModel ``mesh_poly*`` (plane-mesh and multi-contact
    collisions use them), built as MuJoCo 4's compiler builds them.

    The hull triangles ``tri`` (`hull_faces` of the file's vertices ``vert_file``, before
    refpos, refquat and scale, as the compiler takes them; None: no hull) are grouped by the
    rounded angles of their normals (`_angle_keys`); each group's boundary loops
    (`_Polygon.paths`; a group of one triangle is that triangle) are its polygons, listed in
    the compiler's hash-map order (`_table_order`). Each polygon's normal is its area vector's
    direction in the compiled mesh frame (``vert``); under a mirroring scale (``mirrored``)
    every loop is reversed (same first vertex), so it stays counter-clockwise.

    Returns ``(normal (p,3) float64, vert (sum of num,) int32 vertex ids of the polygons one
    after the other, num (p,) int32 vertex count of each)``.
    """
    none = (np.zeros((0, 3)), np.zeros(0, np.int32), np.zeros(0, np.int32))
    if tri is None:
        return none
    vf = np.asarray(vert_file, dtype=np.float64)
    tri = np.asarray(tri, np.int64)
    keys, valid = _angle_keys(vf, tri)
    tv = np.flatnonzero(valid)
    if len(tv) == 0:
        return none
    tris = tri[tv]
    # keys are whole numbers of angle steps (|k| < 400): one exact code per pair
    code = (keys[tv, 0] + 4096.0) * 8192.0 + keys[tv, 1]
    _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    node = rank[inv.reshape(-1)]              # each triangle's key id, in insertion order
    nkey = len(first)
    order = _table_order(_key_hashes(keys[tv[np.sort(first)]]))
    count = np.bincount(node, minlength=nkey)
    # a key of one triangle has that triangle as its loop; two triangles (most of the rest:
    # quads split by qhull) have theirs in closed form; the others trace their boundary
    kverts = np.full(nkey, 3, np.int64)            # vertex ids each key's loops hold
    kloops = np.ones(nkey, np.int64)               # loops each key has
    mkeys, mverts, mnums = [], [], []               # per multi-triangle key, in mkeys order
    multi = np.flatnonzero(count[node] > 1)
    if len(multi):
        mk = node[multi]
        grp = np.argsort(mk, kind="stable")
        mt = tris[multi][grp]
        mk = mk[grp]
        starts = np.flatnonzero(np.r_[True, mk[1:] != mk[:-1]])
        ends = np.r_[starts[1:], len(mk)]
        # groups whose triangles repeat a directed edge
        nv = int(mt.max()) + 1
        de = (np.tile(mk, 3) * nv + mt[:, [0, 1, 2]].T.reshape(-1)) * nv \
            + mt[:, [1, 2, 0]].T.reshape(-1)
        de.sort()
        repeated = np.zeros(nkey, bool)
        repeated[de[1:][de[1:] == de[:-1]] // (nv * nv)] = True
        two = (ends - starts == 2) & ~repeated[mk[starts]]
        done2 = _pair_loops(mt[starts[two]], mt[starts[two] + 1])
        rest = ~two
        rest[np.flatnonzero(two)[~done2[0]]] = True          # pairs without a closed form
        k2 = mk[starts[two][done2[0]]]
        mkeys.append(k2)
        mverts.append(done2[1])
        mnums.append(done2[2])
        kloops[k2] = done2[3]
        kverts[k2] = done2[4]
        rowsall = mt.tolist()
        gk, gv, gn = [], [], []
        for s, e, k in zip(starts[rest].tolist(), ends[rest].tolist(),
                           mk[starts[rest]].tolist()):
            rows = rowsall[s:e]
            p = (_PolygonList if repeated[k] else _Polygon)(*rows[0])
            for a, b, c in rows[1:]:
                p.add(a, b, c)
            loops = [x for x in p.paths() if len(x) >= 3]
            gk.append(k)
            gn.extend(len(x) for x in loops)
            for x in loops:
                gv.extend(x)
            kloops[k] = len(loops)
            kverts[k] = sum(len(x) for x in loops)
        mkeys.append(np.asarray(gk, np.int64))
        mverts.append(np.asarray(gv, np.int64))
        mnums.append(np.asarray(gn, np.int64))
        mkeys, mverts, mnums = (np.concatenate(x) for x in (mkeys, mverts, mnums))
    # the loops in table order: scatter each key's block of vertex ids and of loop sizes
    vadr = np.zeros(nkey, np.int64)
    vadr[order] = np.cumsum(kverts[order]) - kverts[order]
    ladr = np.zeros(nkey, np.int64)
    ladr[order] = np.cumsum(kloops[order]) - kloops[order]
    flat = np.empty(int(kverts.sum()), np.int64)
    num = np.empty(int(kloops.sum()), np.int64)
    single = np.flatnonzero(count[node] == 1)
    sk = node[single]
    flat[vadr[sk, None] + np.arange(3)] = tris[single]
    num[ladr[sk]] = 3
    if len(mkeys):
        kv, kl = kverts[mkeys], kloops[mkeys]
        flat[np.repeat(vadr[mkeys] - (np.cumsum(kv) - kv), kv) + np.arange(kv.sum())] = mverts
        num[np.repeat(ladr[mkeys] - (np.cumsum(kl) - kl), kl) + np.arange(kl.sum())] = mnums
    if mirrored:  # the mirroring scale turned the loops clockwise: reverse them, same start
        adr = np.concatenate([[0], np.cumsum(num)[:-1]]).astype(np.int64)
        for k in np.unique(num).tolist():
            sel = np.flatnonzero(num == k)
            idx = adr[sel, None] + np.arange(k)
            flat[idx] = flat[idx][:, [0] + list(range(k - 1, 0, -1))]
    normals = np.empty((len(num), 3))
    mesh_kernels.polygon_normals(np.ascontiguousarray(vert, np.float64),
                                 np.ascontiguousarray(flat, np.int64),
                                 np.ascontiguousarray(num, np.int64), normals)
    return normals, flat.astype(np.int32), num.astype(np.int32)


def polygon_map(nvert: int, polyvert: np.ndarray, polynum: np.ndarray):
    """Per vertex, the (ascending) ids of the polygons containing it, from the polygons' vertex
    ids (``polyvert``, ``polynum`` each, as `hull_polygons` returns them): (mapadr, mapnum,
    map), int32."""
    verts = np.asarray(polyvert, np.int64)
    pid = np.repeat(np.arange(len(polynum)), np.asarray(polynum, np.int64))
    srt = np.argsort(verts, kind="stable")          # by vertex, polygon ids ascending
    num = np.bincount(verts, minlength=nvert).astype(np.int32)
    adr = (np.cumsum(num) - num).astype(np.int32)
    return adr, num, pid[srt].astype(np.int32)
