"""Compare mjModel mesh_poly* fields of two models (ours vs mujoco) as sets, per mesh.

Used by test/engine/test_mesh_poly.py and for the report: each polygon is keyed by its vertex
set; a polygon matches when the other model has one with the same vertex set, a normal within
``ntol`` and the same cyclic vertex order."""
import numpy as np


def polygons(m, i):
    out = {}
    for k in range(m.mesh_polyadr[i], m.mesh_polyadr[i] + m.mesh_polynum[i]):
        a = m.mesh_polyvertadr[k]
        p = [int(x) for x in m.mesh_polyvert[a:a + m.mesh_polyvertnum[k]]]
        out[frozenset(p)] = (np.asarray(m.mesh_polynormal[k], float), p)
    return out


def _cyc_equal(p, q):
    if len(p) != len(q):
        return False
    if not p:
        return True
    j = q.index(p[0]) if p[0] in q else -1
    return j >= 0 and all(p[t] == q[(j + t) % len(q)] for t in range(len(p)))


def compare_mesh(mine, ref, i, ntol=1e-9):
    """(nmatch, nref, nmine, nmap_ok, nvert) for mesh i."""
    P, R = polygons(mine, i), polygons(ref, i)
    nmatch = 0
    for key, (n, p) in R.items():
        if key in P:
            n2, p2 = P[key]
            if np.abs(n - n2).max() < ntol and _cyc_equal(p, p2):
                nmatch += 1
    # per-vertex map as sets of polygon keys
    def vmap(m, polys):
        a = m.mesh_vertadr[i]
        keys = {}
        for k in range(m.mesh_polyadr[i], m.mesh_polyadr[i] + m.mesh_polynum[i]):
            s = m.mesh_polyvertadr[k]
            keys[k - m.mesh_polyadr[i]] = frozenset(
                int(x) for x in m.mesh_polyvert[s:s + m.mesh_polyvertnum[k]])
        out = []
        for v in range(m.mesh_vertnum[i]):
            ad, nm = m.mesh_polymapadr[a + v], m.mesh_polymapnum[a + v]
            out.append(frozenset(keys[int(x)] for x in m.mesh_polymap[ad:ad + nm]))
        return out
    vm, vr = vmap(mine, P), vmap(ref, R)
    nmap = sum(x == y for x, y in zip(vm, vr))
    return nmatch, len(R), len(P), nmap, int(ref.mesh_vertnum[i])


def compare_models(mine, ref):
    tot = np.zeros(5, int)
    rows = []
    for i in range(ref.nmesh):
        r = compare_mesh(mine, ref, i)
        rows.append(r)
        tot += r
    return tot, rows
