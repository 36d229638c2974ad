"""The vectorised hull-polygon and OBJ-reading code (engine/compiler/hull.py, mesh.py) against
plain node-by-node and line-by-line references: the compiled mesh_poly* order and the meshes read
must not depend on which of the two ways computed them. (Conformance with mujoco itself:
test_mesh_poly.py, test_compiler.py, test_mesh.py.)"""
import numpy as np
import pytest

from engine.compiler import hull as H
from engine.compiler import mesh as M


def _reference_order(hashes):
    """libc++ unordered_map's element list after inserting ``hashes`` in order, node by node:
    a singly linked list whose buckets point at the node before their run (-2: the head)."""
    nxt, head, buckets = [], -1, []

    def link_after(before, node):
        nonlocal head
        if before == -2:
            nxt[node], head = head, node
        else:
            nxt[node], nxt[before] = nxt[before], node

    def rehash(n):
        nonlocal buckets
        n = 2 if n == 1 else (H._next_prime(n) if n & (n - 1) else n)
        if n <= len(buckets):
            return
        new = [-1] * n
        pp, cp = -2, head
        if cp != -1:
            phash = hashes[cp] % n
            new[phash] = pp
            pp, cp = cp, nxt[cp]
            while cp != -1:
                chash = hashes[cp] % n
                if chash == phash:
                    pp = cp
                elif new[chash] == -1:
                    new[chash], pp, phash = pp, cp, chash
                else:                           # to the front of its bucket's run
                    nxt[pp] = nxt[cp]
                    link_after(new[chash], cp)
                cp = nxt[pp]
        buckets = new

    for node, h in enumerate(hashes):
        bc = len(buckets)
        if node + 1 > bc:
            pow2 = bc > 2 and not (bc & (bc - 1))
            rehash(max(2 * bc + (0 if pow2 else 1), node + 1))
            bc = len(buckets)
        nxt.append(-1)
        b = h % bc
        if buckets[b] == -1:
            link_after(-2, node)
            buckets[b] = -2
            if nxt[node] != -1:
                buckets[hashes[nxt[node]] % bc] = node
        else:
            link_after(buckets[b], node)
    out, x = [], head
    while x != -1:
        out.append(x)
        x = nxt[x]
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, 11, 12, 47, 48, 200, 1000, 5000])
@pytest.mark.parametrize("spread", ["wide", "narrow"])
def test_table_order_matches_node_by_node(n, spread):
    rng = np.random.default_rng(n)
    # narrow: few distinct buckets, long runs, many moves on rehash
    hi = 2**63 if spread == "wide" else 64
    hashes = rng.integers(0, hi, n, dtype=np.uint64)
    if spread == "wide" and n:
        hashes[::3] = rng.integers(0, 2**64 - 1, len(hashes[::3]), dtype=np.uint64)
    got = H._table_order(hashes).tolist()
    assert got == _reference_order([int(h) for h in hashes])


def _trace(rows):
    p = H._PolygonList(*rows[0])
    for r in rows[1:]:
        p.add(*r)
    return [x for x in p.paths() if len(x) >= 3]


def test_pair_loops_match_the_trace():
    rng = np.random.default_rng(0)
    t1, t2 = [], []
    for _ in range(3000):
        a, b, c, d = rng.choice(20, 4, replace=False).tolist()
        tri = [a, b, c]
        k = int(rng.integers(0, 3))
        first = [tri[k:] + tri[:k]]
        # the second triangle: sharing one of the first's edges reversed, or none
        e = int(rng.integers(0, 4))
        if e < 3:
            u, w = tri[e], tri[(e + 1) % 3]
            second = [w, u, d]
        else:
            second = rng.choice(20, 3, replace=False).tolist()
        r = int(rng.integers(0, 3))
        t1.append(first[0])
        t2.append(second[r:] + second[:r])
    t1, t2 = np.array(t1), np.array(t2)
    ok, verts, nums, loops, per = H._pair_loops(t1, t2)
    vi = li = 0
    for i in np.flatnonzero(ok):
        want = _trace([t1[i].tolist(), t2[i].tolist()])
        k = int(np.flatnonzero(ok).tolist().index(i))
        got_n = nums[li:li + loops[k]].tolist()
        got = []
        for n in got_n:
            got.append(verts[vi:vi + n].tolist())
            vi += n
        li += loops[k]
        assert got == want, (t1[i], t2[i])
    # the only pairs left to the trace share more than one edge
    for i in np.flatnonzero(~ok):
        e1 = {(t1[i][j], t1[i][(j + 1) % 3]) for j in range(3)}
        e2 = {(t2[i][(j + 1) % 3], t2[i][j]) for j in range(3)}
        assert len(e1 & e2) > 1


def test_dict_polygon_matches_list_polygon():
    """_Polygon (edges in an ordered dict) traces what _PolygonList (a plain list) does, on
    fans and strips of triangles added in scrambled order."""
    rng = np.random.default_rng(1)
    for trial in range(300):
        m = int(rng.integers(3, 12))
        ring = rng.permutation(100)[:m].tolist()
        centre = 100 + trial
        fan = [[centre, ring[i], ring[(i + 1) % m]] for i in range(m)]
        keep = sorted(rng.choice(m, int(rng.integers(2, m + 1)), replace=False).tolist())
        rows = [fan[i] for i in rng.permutation(keep).tolist()]
        p = H._Polygon(*rows[0])
        for r in rows[1:]:
            p.add(*r)
        assert [x for x in p.paths() if len(x) >= 3] == _trace(rows)


def _reference_lines(data):
    lines = data.splitlines()
    if data[:1] in (b" ", b"\t") or b"\n " in data or b"\n\t" in data:
        lines = [ln.lstrip() for ln in lines]
    return lines


@pytest.mark.parametrize("data", [
    b"", b"\n", b"v 1 2 3", b"v 1 2 3\n", b"\n\nv 1 2 3\n\n", b"v 1\r\nvt 2\rvn 3\n",
    b"  v 1 2 3\n\tf 1 2 3\n\x0b\x0cv 4 5 6 \nv", b"a\r\n\r\n b\r", b"\r", b"\r\n",
    b"f 1/2/3  4/5/6\t7/8/9\n  \n", b"v 1 2 3\n   ",
])
def test_obj_lines_match_splitlines(data):
    ref = _reference_lines(data)
    lines = M._ObjLines(data)
    idx = np.arange(lines.n)
    assert lines.rows(idx, 0) == ref
    for k in (0, 1, 2, 3):
        assert lines.text(idx, k) == b" ".join(r[k:] for r in ref)
        assert lines.rows(idx, k) == [r[k:] for r in ref]
        if lines.n:
            toks = lines.ntokens(idx, k, lines.text(idx, k)).tolist()
            assert toks == [len(r[k:].split()) for r in ref]
    heads = [bytes(h) for h in lines.heads()]
    assert heads == [r[:3].ljust(3) for r in ref]
