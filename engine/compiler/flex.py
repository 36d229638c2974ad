"""Compile flexes (seed 000 "deformable/flex"; seed 001 "mjModel", the flex_* and flexedge_*
fields): vertices and their bodies, the edges the elements share, the boundary ("shell"), element
layers, the rest-pose bounding box, and the per-edge Jacobian sparsity.

A flex is a set of vertices, each in the frame of a body, joined by elements: capsules (dim 1),
triangles (dim 2) or tetrahedra (dim 3). Its edges are the distinct vertex pairs of its elements,
numbered in order of first appearance; ``flex_elemedge`` maps each element's local edges to them.
The flex's shell is the set of element faces (vertices in 1D, edges in 2D, triangles in 3D) that
belong to one element only; in 3D ``flex_elemlayer`` is an element's distance (in element hops)
from the shell. Everything here follows MuJoCo 4.0.0's compiler (mjCFlex::Compile, CreateShell,
and the copy into mjModel), whose values the tests compare against.

Not built yet (NotImplementedError naming them): elasticity (``young`` > 0: flex_stiffness,
flex_bending), plasticity (``yield``), interpolated flexes (nodes: dof trilinear / quadratic).
The bounding-volume hierarchy is not built (the engine has none, nbvh = 0): flex_bvhnum is the
node count MuJoCo's tree has (2 n - 1 for n active elements), flex_bvhadr stays -1.
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtEq
from ._err import err
from .frames import compose, quat_rotate

from ..enums import mjMINVAL as MINVAL  # noqa: E402

# local edges of an element, per dim (MuJoCo's eledge table: the order fixes flex_elemedge)
ELEM_EDGES = (((0, 1),), ((1, 2), (2, 0), (0, 1)),
              ((0, 1), (1, 2), (2, 0), (2, 3), (0, 3), (1, 3)))
SELFCOLLIDE = {"none": 0, "narrow": 1, "bvh": 2, "sap": 3, "auto": 4}
ELASTIC2D = {"none": 0, "bend": 1, "stretch": 2, "both": 3}


def _shell(elem, dim, nelem):
    """(shell vertex list, elemlayer) as MuJoCo's CreateShell: an element face shared by no other
    element is on the shell (its vertices in the element's own order); in 3D an element's layer
    is its distance from the elements that have a shell face."""
    frags = []
    # faces of an element, in MuJoCo's fragment order (dim 2: edges 01, 20, 12; dim 3: faces
    # 012, 031, 023, 132)
    local = {1: ((0,), (1,)), 2: ((0, 1), (2, 0), (1, 2)),
             3: ((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2))}[dim]
    for e in range(nelem):
        el = elem[e * (dim + 1):(e + 1) * (dim + 1)]
        for f in local:
            verts = [el[k] for k in f]
            key = sorted(verts) if dim > 1 else verts
            frags.append(key + [e] + verts)
    frags.sort()
    n = len(frags)
    border = [False] * nelem
    borderfrag = [False] * n
    connect = []
    cnt = 1
    for i in range(1, n):
        if frags[i - 1][:dim] == frags[i][:dim]:
            connect.append((frags[i - 1][dim], frags[i][dim]))
            cnt += 1
        else:
            if cnt == 1:
                border[frags[i - 1][dim]] = True
                borderfrag[i - 1] = True
            cnt = 1
    if cnt == 1:
        border[frags[n - 1][dim]] = True
        borderfrag[n - 1] = True
    shell = [v for i in range(n) if borderfrag[i] for v in frags[i][dim + 1:]]
    if dim < 3:
        return shell, [0] * nelem
    layer = [0 if border[e] else nelem + 1 for e in range(nelem)]
    change = True
    while change:
        change = False
        for e1, e2 in connect:
            if layer[e1] > layer[e2] + 1:
                layer[e1] = layer[e2] + 1
                change = True
            elif layer[e2] > layer[e1] + 1:
                layer[e2] = layer[e1] + 1
                change = True
    return shell, layer


# ---- elasticity (MuJoCo's linear StVK metric on edge strains and the cubic-shell bending) ----
# Stencils: for each local edge, the two element faces (3D) or edges (2D) not adjacent to it,
# whose normals make the edge's strain basis (Weischedel's coordinate-free linear elements).
_FACE3 = ((2, 1, 0), (0, 1, 3), (1, 2, 3), (2, 0, 3))
_EDGE2FACE3 = ((2, 3), (1, 3), (2, 1), (1, 0), (0, 2), (0, 3))
_FACE2 = ((1, 2), (2, 0), (0, 1))


def _metric(basis, mu, la):
    """The upper triangle, row by row, of K[e1, e2] = mu tr(B1 B2) + la tr(B1) tr(B2)."""
    n = len(basis)
    tr = [b[0] + b[4] + b[8] for b in basis]
    out = []
    for e1 in range(n):
        for e2 in range(e1, n):
            b1, b2 = basis[e1], basis[e2]
            tee = 0.0
            for i in range(3):
                for j in range(3):
                    tee += b1[3 * i + j] * b2[3 * j + i]
            out.append(mu * tee + la * tr[e2] * tr[e1])
    return out


def _stiffness3(X, v, young, poisson):
    """24 numbers of one tetrahedron: its 6 x 6 edge metric's upper triangle (21), then 0."""
    x = [X[i] for i in v]
    volume = float(np.cross(x[1] - x[0], x[2] - x[0]) @ (x[3] - x[0])) / 6
    # Lame parameters times the rest volume; MuJoCo 4.0.0 weighs lambda by 1/2 (fitted on its
    # flex_stiffness: mu exactly E/(2(1+nu)) V, lambda E nu/((1+nu)(1-2nu)) V/2)
    mu = young / (2 * (1 + poisson)) * abs(volume)
    la = young * poisson / ((1 + poisson) * (1 - 2 * poisson)) * abs(volume) / 2
    basis = []
    for fl, fr in _EDGE2FACE3:
        L, R = _FACE3[fl], _FACE3[fr]
        nl = np.cross(x[L[1]] - x[L[0]], x[L[2]] - x[L[0]])
        nr = np.cross(x[R[1]] - x[R[0]], x[R[2]] - x[R[0]])
        basis.append([(nl[i] * nr[j] + nr[i] * nl[j]) / (36 * 2 * volume * volume)
                      for i in range(3) for j in range(3)])
    return _metric(basis, mu, la) + [0.0, 0.0, 0.0]


def _stiffness2(X, v, young, poisson, thickness):
    """21 numbers of one triangle: its 3 x 3 edge metric's upper triangle (6), then 0."""
    x = [X[i] for i in v]
    volume = float(np.linalg.norm(np.cross(x[1] - x[0], x[2] - x[0]))) / 2
    # plane stress, times the rest area and thickness: mu = E/(2(1+nu)) A t and, as MuJoCo
    # 4.0.0 (fitted on its flex_stiffness), lambda = E nu/(1-nu^2) A t / 2
    mu = young / (2 * (1 + poisson)) * abs(volume) * thickness
    la = young * poisson / (1 - poisson * poisson) * abs(volume) * thickness / 2
    basis = []
    for e in range(3):
        L, R = _FACE2[_FACE2[e][0]], _FACE2[_FACE2[e][1]]
        el = x[L[0]] - x[L[1]]
        er = x[R[1]] - x[R[0]]
        n = np.cross(er, el)
        nn = np.linalg.norm(n)
        if nn >= MINVAL:
            n = n / nn
        bl, br = np.cross(n, el), np.cross(er, n)
        basis.append([(bl[i] * br[j] + br[i] * bl[j]) / (8 * volume * volume)
                      for i in range(3) for j in range(3)])
    return _metric(basis, mu, la) + [0.0] * 15


def _cot(X, v0, v1, v2):
    e1, e2 = X[v1] - X[v0], X[v2] - X[v0]
    n = np.cross(e1, e2)
    return float(e1 @ e2) / np.sqrt(float(n @ n))


def _area(X, v):
    n = np.cross(X[v[1]] - X[v[0]], X[v[2]] - X[v[0]])
    return np.sqrt(float(n @ n)) / 2


def _bending(X, v, young, poisson, thickness):
    """17 numbers of one interior edge (v0, v1) with opposite vertices v2, v3: the 4 x 4
    cotangent-operator stiffness (Wardetzky et al., "Discrete quadratic curvature energies")
    scaled by the rest dihedral term of Garg et al.'s "Cubic shells", then the cubic coefficient."""
    out = [0.0] * 17
    if v[3] == -1:
        return out
    a01, a02 = _cot(X, v[0], v[1], v[2]), _cot(X, v[0], v[3], v[1])
    a03, a04 = _cot(X, v[1], v[2], v[0]), _cot(X, v[1], v[0], v[3])
    cc = (a03 + a04, a01 + a02, -(a01 + a03), -(a02 + a04))
    volume = _area(X, v) + _area(X, (v[1], v[0], v[3]))
    # the plate's flexural rigidity E t^3 / (12 (1 - nu^2)) over the two triangles' area (as
    # MuJoCo 4.0.0's flex_bending, measured)
    stiffness = young * thickness ** 3 / (12 * (1 - poisson * poisson) * volume)
    x0, x1, x2, x3 = X[v[0]], X[v[1]], X[v[2]], X[v[3]]
    e0, e1, e2, e3, e4 = x1 - x0, x2 - x0, x3 - x0, x2 - x1, x3 - x1
    t0 = -(a03 * e1 + a01 * e3)
    t1 = -(a04 * e2 + a02 * e4)
    sqr = float(e0 @ e0)
    cos_theta = -float(t0 @ t1) / sqr
    for i in range(4):
        for j in range(4):
            out[4 * i + j] += cc[i] * cc[j] * cos_theta * stiffness
    n = np.cross(e0, e1)
    out[16] = float(n @ e2) * (a01 - a03) * (a04 - a02) * stiffness / (sqr * np.sqrt(sqr))
    return out


def _elasticity(f, dim, elem, nelem, V, flaps, edges, el, rigid, vb, c):
    """(flex_stiffness, flex_bending) rows of one flex from its rest vertex positions V."""
    young, poisson = el["young"], el["poisson"]
    if young <= 0:
        return np.zeros(0), np.zeros(0)
    if poisson < 0 or poisson >= 0.5:
        raise err(f, "Poisson ratio must be in [0, 0.5)", "poisson")
    if not rigid:
        mocap = np.asarray(c.v["body_mocapid"])
        for b in vb:
            x = b
            while x > 0:
                if mocap[x] >= 0:
                    raise err(f, "flex elasticity does not support mocap attachments, body "
                              f"'{c.names['body'][x]}'")
                x = c.parent[x]
    e2d = ELASTIC2D[el["elastic2d"]]
    stiff = np.zeros((nelem, 24 if dim == 3 else 21))
    for t in range(nelem):
        v = elem[t * (dim + 1):(t + 1) * (dim + 1)]
        if dim == 2 and e2d >= 2 and el["thickness"] > 0:
            stiff[t] = _stiffness2(V, v, young, poisson, el["thickness"])
        elif dim == 3:
            stiff[t] = _stiffness3(V, v, young, poisson)
    bend = np.zeros(0)
    if dim == 2 and e2d in (1, 3):
        bend = np.array([_bending(V, (e[0], e[1], fl[0], fl[1]), young, poisson,
                                  el["thickness"])
                         for e, fl in zip(edges, flaps)]).ravel()
    return stiff.ravel(), bend


def _body_poses(c):
    """World position and orientation of every body at qpos0 (the compiler's xpos0/xquat0)."""
    nb = len(c.bodies)
    xpos, xquat = np.zeros((nb, 3)), np.tile([1.0, 0, 0, 0], (nb, 1))
    for i in range(1, nb):
        p = c.parent[i]
        xpos[i], xquat[i] = compose(xpos[p], xquat[p], c.body_pos[i], c.body_quat[i])
    return xpos, xquat


def _check(el, dim, elem, vertbody, nodebody, vert, edge, elastic):
    if dim < 1 or dim > 3:
        raise err(el, "dim must be 1, 2 or 3", "dim")
    if not elem:
        raise err(el, "elem is empty", "element")
    if len(elem) % (dim + 1):
        raise err(el, "elem size must be multiple of (dim+1)", "element")
    if not vertbody and not nodebody:
        raise err(el, "vertbody and nodebody are both empty", "body")
    if len(vert) % 3:
        raise err(el, "vert size must be a multiple of 3", "vertex")
    if edge["stiffness"] > 0 and dim > 1:
        raise err(el, "edge stiffness only available for dim=1, please use elasticity plugins")
    if elastic["elastic2d"] != "none":
        if elastic["thickness"] <= 0:
            raise err(el, "2d elasticity requires positive thickness")
        if elastic["poisson"] < 0 or elastic["poisson"] >= 0.5:
            raise err(el, "Poisson ratio must be in [0, 0.5)")
        if dim != 2:
            raise err(el, "2d elasticity requires 2d flex")


def _check_bodies(c, f, vb, held):
    """MuJoCo 4.0.0's checks of a non-rigid flex's vertex bodies (messages as its): a moving
    parent of vertex bodies must hold a vertex (of any flex: ``held``) itself; a body that moves
    one vertex by sliders only cannot have joint damping (the flex's damping replaces it)."""
    jnum = np.asarray(c.v["body_jntnum"])
    for b in vb:
        p = c.parent[b]
        if p > 0 and jnum[p] > 0 and p not in held:
            raise err(f, f"body '{c.names['body'][p]}' has joints but no flex vertices/nodes "
                      "are pinned to it")
    count = {}
    for b in vb:
        count[b] = count.get(b, 0) + 1
    for b in vb:
        body = c.bodies[b]
        if count[b] != 1 or not body.joints or body.geoms or body.bodies:
            continue
        if any(j.kind != "joint" or j.attrs.get("type") != "slide" for j in body.joints):
            continue
        for j in body.joints:
            sd = j.attrs.get("springdamper") or (0.0, 0.0)
            dmp = j.attrs.get("damping")
            dmp = dmp if isinstance(dmp, tuple) else (dmp or 0.0,)
            if (sd[0] > 0 and sd[1] > 0) or any(x != 0 for x in dmp):
                raise err(f, f"flex vertex/node body '{body.name}' cannot have joint damping; "
                          "use flex elasticity or edge damping instead")


def _check_integrator(c, f, elastic, contact):
    """Integrator requirements MuJoCo 4.0.0 reports when it compiles (its messages)."""
    integ = c.spec.option.get("integrator", "Euler")
    if contact["passive"] and integ != "discrete":
        raise err(f, "engine error: passive flex contact requires an integrator with the "
                  "effective metric: set integrator='discrete'")
    if elastic["young"] > 0 and integ in ("implicit", "implicitfast"):
        raise err(f, "engine error: flex elasticity is no longer integrated implicitly under "
                  "integrator='implicit' and 'implicitfast': set integrator='discrete', or "
                  "'Euler' with a small timestep")


def compile_flexes(c):
    """The flex phase: fills the flex_* / flexedge_* model fields and sizes from spec.flexes.
    Runs after the tree (body ids, weld ids, dof addresses) and the equalities."""
    flexes = c.spec.flexes
    c.names["flex"] = [f.name for f in flexes]
    body_id = {n: i for i, n in enumerate(c.names["body"]) if n}
    # materials are numbered later (compile_materials_hfields), in the file's order
    mat_id = {el.name: i for i, el in enumerate(c.spec.materials) if el.name}
    weld = np.asarray(c.v["body_weldid"])
    dofadr, dofnum = np.asarray(c.v["body_dofadr"]), np.asarray(c.v["body_dofnum"])
    xpos0, xquat0 = _body_poses(c) if flexes else (None, None)
    eq_flex = {el.attrs.get("flex") for el in c.spec.equalities if el.tag == "flex"}
    held = {body_id.get(n) for f in flexes for n in f.vertbody}
    rows = {k: [] for k in (
        "contype conaffinity condim priority solmix solref solimp friction margin gap "
        "selfcollide activelayers passive dim group interp cellnum nodeadr nodenum vertadr "
        "vertnum edgeadr edgenum elemadr elemnum elemdataadr stiffnessadr elemedgeadr "
        "bendingadr plasticadr plasticmode shellnum shelldataadr texcoordadr radius size "
        "damping yield edgestiffness edgedamping edgeequality rigid centered flatskin bvhadr "
        "bvhnum rgba").split()}
    cat = {k: [] for k in ("matid vertbodyid vertcell edge edgeflap elem elemtexcoord elemedge "
                           "elemlayer shell vert vert0 texcoord length0 erigid Jnnz Jcol stiffness "
                           "bending").split()}
    adr = dict(vert=0, edge=0, elem=0, elemdata=0, elemedge=0, shell=0, tex=0, stiff=0, bend=0)
    unused = 0
    for f in flexes:
        a, edge_prm, elastic, contact = f.attrs, f.edge, f.elasticity, f.contact
        dim, elem, vert = int(a["dim"]), [int(x) for x in a["element"]], list(f.vertex)
        _check(f, dim, elem, f.vertbody, f.nodebody, vert, edge_prm, elastic)
        _check_integrator(c, f, elastic, contact)
        if f.nodebody or a.get("dof") in ("trilinear", "quadratic"):
            raise NotImplementedError(f"{f.file}:{f.line}: interpolated flex (nodes, dof "
                                      "trilinear/quadratic)")
        if max(elastic["yield"]) > 0:
            raise NotImplementedError(f"{f.file}:{f.line}: flex plasticity (yield)")
        nelem = len(elem) // (dim + 1)
        if not vert:
            centered, nvert, rigid = True, len(f.vertbody), False
        else:
            nvert, centered = len(vert) // 3, False
            rigid = len(f.vertbody) == 1
            if not rigid and len(f.vertbody) != nvert:
                raise err(f, "vertbody size must be 1 or nvert", "body")
        if nvert < dim + 1:
            raise err(f, "not enough vertices")
        if any(e < 0 or e >= nvert for e in elem):
            raise err(f, "elem vertex id out of range", "element")
        tex = list(a["texcoord"])
        etex = list(a["elemtexcoord"])
        if tex and len(tex) != 2 * nvert and not etex:
            raise err(f, "two texture coordinates per vertex expected", "texcoord")
        if a["material"] and a["material"] not in mat_id:
            raise err(f, f"unknown material '{a['material']}' in flex", "material")
        matid = mat_id.get(a["material"], -1)
        vb = []
        for n in f.vertbody:
            if n not in body_id:
                raise err(f, f"unknown body '{n}' in flex", "body")
            vb.append(body_id[n])
        for e in range(nelem):
            s = sorted(elem[e * (dim + 1):(e + 1) * (dim + 1)])
            if any(s[k] == s[k + 1] for k in range(dim)):
                raise err(f, "repeated vertex in element", "element")
        if not rigid:
            rigid = all(b == vb[0] for b in vb)
        if not rigid:
            _check_bodies(c, f, vb, held)
        if not centered:
            centered = all(x == 0 for x in vert)
        # vertex positions at qpos0
        V = np.zeros((nvert, 3))
        for i in range(nvert):
            b = vb[0] if rigid else vb[i]
            V[i] = xpos0[b]
            if not centered:
                V[i] = V[i] + quat_rotate(xquat0[b], np.asarray(vert[3 * i:3 * i + 3], float))
        # tetrahedra: right-handed faces point outwards
        if dim == 3:
            for e in range(nelem):
                v = elem[4 * e:4 * e + 4]
                n = np.cross(V[v[1]] - V[v[0]], V[v[2]] - V[v[0]])
                if n @ (V[v[3]] - V[v[0]]) > 0:
                    elem[4 * e + 1], elem[4 * e + 2] = elem[4 * e + 2], elem[4 * e + 1]
        # edges, numbered in order of first appearance
        index, edges, elemedge = {}, [], []
        for e in range(nelem):
            v = elem[e * (dim + 1):(e + 1) * (dim + 1)]
            for i0, i1 in ELEM_EDGES[dim - 1]:
                pair = (min(v[i0], v[i1]), max(v[i0], v[i1]))
                k = index.setdefault(pair, len(edges))
                if k == len(edges):
                    edges.append(pair)
                elemedge.append(k)
        # the two vertices opposite each edge (dim 2 with bending only): MuJoCo's flap stencil
        flaps = [(-1, -1)] * len(edges)
        if dim == 2 and ELASTIC2D[elastic["elastic2d"]] in (1, 3):
            flaps = [[-1, -1] for _ in edges]
            seen = set()
            for e in range(nelem):
                v = elem[3 * e:3 * e + 3]
                for k, (i0, i1) in enumerate(ELEM_EDGES[1]):
                    j = elemedge[3 * e + k]
                    flaps[j][0 if j not in seen else 1] = v[(i1 + 1) % 3]
                    seen.add(j)
        shell, layer = _shell(elem, dim, nelem)
        stiff, bend = _elasticity(f, dim, elem, nelem, V, flaps, edges, elastic, rigid, vb, c)
        # rest bounding box of the active elements (MuJoCo's BVH root): size, vert0
        act = [e for e in range(nelem) if dim < 3 or layer[e] < contact["activelayers"]]
        radius = a["radius"]
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        for e in act:
            P = V[elem[e * (dim + 1):(e + 1) * (dim + 1)]]
            xmin, xmax = P.min(axis=0), P.max(axis=0)
            cen, half = 0.5 * (xmax + xmin), 0.5 * (xmax - xmin) + radius
            lo, hi = np.minimum(lo, cen - half), np.maximum(hi, cen + half)
        cen, half = 0.5 * (hi + lo), 0.5 * (hi - lo)
        size = half - radius
        vert0 = np.full((nvert, 3), 0.5)
        for k in range(3):
            if size[k] > MINVAL:
                vert0[:, k] = (V[:, k] - cen[k]) / (2 * size[k]) + 0.5
        # per-edge Jacobian sparsity: the dofs of both vertex bodies' chains, ascending
        bodies = [vb[0]] * nvert if rigid else vb
        chain_cache = {}

        def chain(b):
            if b not in chain_cache:
                out, x = [], b
                while x > 0:
                    out.extend(range(dofadr[x], dofadr[x] + dofnum[x]))
                    x = c.parent[x]
                chain_cache[b] = out
            return chain_cache[b]
        # rows only where mj_flex computes the Jacobian (a built-in force needs it); MuJoCo
        # still counts the other non-rigid flexes' entries in nJfe (measured)
        needj = (f.name in eq_flex or edge_prm["damping"] != 0 or edge_prm["stiffness"] != 0
                 or elastic["damping"] != 0)
        for v1, v2 in edges:
            cols = [] if rigid else sorted(set(chain(bodies[v1])) | set(chain(bodies[v2])))
            cat["Jnnz"].append(len(cols) if needj else 0)
            if needj:
                cat["Jcol"].extend(cols)
            else:
                unused += len(cols)
            cat["length0"].append(float(np.linalg.norm(V[v2] - V[v1])))
            cat["erigid"].append(1 if rigid else int(weld[bodies[v1]] == weld[bodies[v2]]))
        # -- the model rows
        r = rows
        for k in ("contype", "conaffinity", "condim", "priority", "solmix", "solref", "solimp",
                  "friction", "margin", "gap", "activelayers"):
            r[k].append(contact[k])
        r["selfcollide"].append(SELFCOLLIDE[contact["selfcollide"]])
        r["passive"].append(int(contact["passive"]))
        r["dim"].append(dim)
        r["group"].append(a["group"])
        r["interp"].append(0)
        r["cellnum"].append(tuple(a["cellcount"]))
        r["nodeadr"].append(0)
        r["nodenum"].append(0)
        r["vertadr"].append(adr["vert"])
        r["vertnum"].append(nvert)
        r["edgeadr"].append(adr["edge"])
        r["edgenum"].append(len(edges))
        r["elemadr"].append(adr["elem"])
        r["elemnum"].append(nelem)
        r["elemdataadr"].append(adr["elemdata"])
        r["elemedgeadr"].append(adr["elemedge"])
        r["stiffnessadr"].append(adr["stiff"] if len(stiff) else -1)
        r["bendingadr"].append(adr["bend"] if len(bend) else -1)
        cat["stiffness"].append(stiff)
        cat["bending"].append(bend)
        adr["stiff"] += len(stiff)
        adr["bend"] += len(bend)
        r["plasticadr"].append(-1)
        r["plasticmode"].append(0)
        nshell = len(shell) // dim
        r["shellnum"].append(nshell)
        r["shelldataadr"].append(adr["shell"] if nshell else -1)
        r["texcoordadr"].append(adr["tex"] if tex else -1)
        r["radius"].append(radius)
        r["size"].append(size)
        r["damping"].append(elastic["damping"])
        r["yield"].append(tuple(elastic["yield"]) + (0.0,) * (2 - len(elastic["yield"])))
        r["edgestiffness"].append(edge_prm["stiffness"])
        r["edgedamping"].append(edge_prm["damping"])
        r["edgeequality"].append(int(f.name in eq_flex) if f.name else 0)
        r["rigid"].append(int(rigid))
        r["centered"].append(int(centered))
        r["flatskin"].append(int(a["flatskin"]))
        r["bvhnum"].append(2 * len(act) - 1 if act else 0)
        r["bvhadr"].append(-1)
        # MuJoCo keeps rgba in float32
        r["rgba"].append(np.float32(a["rgba"]).astype(float))
        cat["matid"].extend([matid] * nelem)
        cat["vertbodyid"].extend(bodies)
        cat["vertcell"].extend([-1] * nvert)
        cat["edge"].extend(edges)
        cat["edgeflap"].extend(tuple(x) for x in flaps)
        cat["elem"].extend(elem)
        cat["elemtexcoord"].extend(etex if etex else elem)
        cat["elemedge"].extend(elemedge)
        cat["elemlayer"].extend(layer)
        cat["shell"].extend(shell)
        cat["vert"].append(np.zeros((nvert, 3)) if centered else
                           np.asarray(vert, float).reshape(-1, 3))
        cat["vert0"].append(vert0)
        cat["texcoord"].extend(tex)
        adr["vert"] += nvert
        adr["edge"] += len(edges)
        adr["elem"] += nelem
        adr["elemdata"] += (dim + 1) * nelem
        adr["elemedge"] += len(ELEM_EDGES[dim - 1]) * nelem
        adr["shell"] += len(shell)
        adr["tex"] += len(tex) // 2
    c.sz.update(nflex=len(flexes), nflexvert=adr["vert"], nflexedge=adr["edge"],
                nflexelem=adr["elem"], nflexelemdata=adr["elemdata"],
                nflexelemedge=adr["elemedge"], nflexshelldata=adr["shell"],
                nflextexcoord=adr["tex"], nflexnode=0, nflexstiffness=adr["stiff"],
                nflexbending=adr["bend"],
                nJfe=len(cat["Jcol"]) + unused)
    if not flexes:
        return
    v = {f"flex_{k}": np.asarray(x) for k, x in rows.items()}
    nnz = np.asarray(cat["Jnnz"], int)
    v.update(
        flex_matid=cat["matid"], flex_vertbodyid=cat["vertbodyid"],
        flex_vertcell=cat["vertcell"], flex_edge=np.asarray(cat["edge"]).reshape(-1, 2),
        flex_edgeflap=np.asarray(cat["edgeflap"]).reshape(-1, 2), flex_elem=cat["elem"],
        flex_elemtexcoord=cat["elemtexcoord"], flex_elemedge=cat["elemedge"],
        flex_elemlayer=cat["elemlayer"], flex_shell=cat["shell"],
        flex_vert=np.concatenate(cat["vert"]), flex_vert0=np.concatenate(cat["vert0"]),
        flex_texcoord=np.float32(cat["texcoord"]).astype(float),
        flexedge_length0=cat["length0"], flexedge_rigid=cat["erigid"],
        flexedge_J_rownnz=nnz, flexedge_J_rowadr=np.concatenate([[0], np.cumsum(nnz)[:-1]]),
        flexedge_J_colind=cat["Jcol"] + [0] * unused, flex_stiffness=np.concatenate(cat["stiffness"]),
        flex_bending=np.concatenate(cat["bending"]))
    c.v.update(v)


def elastic_trees(c):
    """Trees holding vertices of a non-rigid flex with edge springs (edge stiffness), or with
    nothing holding it together (no edge equality, damping or elasticity): MuJoCo 4.0.0 never
    lets them sleep on its own choice (measured: mjSLEEP_AUTO_NEVER; elasticity, edge damping
    or the edge equality leave them allowed)."""
    treeid = np.asarray(c.v["body_treeid"])
    rigid = c.v.get("flex_rigid", ())
    out = set()
    for i, f in enumerate(c.spec.flexes):
        eq = f.name and any(el.tag == "flex" and el.attrs.get("flex") == f.name
                            for el in c.spec.equalities)
        inert = not eq and f.edge["damping"] == 0 and f.elasticity["young"] <= 0 and \
            f.elasticity["damping"] == 0
        if rigid[i] or (f.edge["stiffness"] == 0 and not inert):
            continue
        va, vn = c.v["flex_vertadr"][i], c.v["flex_vertnum"][i]
        for b in c.v["flex_vertbodyid"][va:va + vn]:
            if treeid[b] >= 0:
                out.add(int(treeid[b]))
    return sorted(out)


def equality(c, el):
    """(eq_type, eq_objtype, obj1id) of an <equality><flex> element (MuJoCo 4.0.0 leaves its
    eq_objtype 0, measured); flexvert / flexstrain equalities are not built yet."""
    names = c.names.get("flex") or [f.name for f in c.spec.flexes]
    name = el.attrs.get("flex")
    if el.tag != "flex":
        raise NotImplementedError(f"{el.file}:{el.line}: equality <{el.tag}>")
    if not name or name not in names:
        raise err(el, f"unknown flex '{name}' in equality constraint", "flex")
    return int(mjtEq.mjEQ_FLEX), 0, names.index(name)


def set_const(m):
    """flexedge_invweight0 (MuJoCo's mj_setConst): 0 for a rigid edge; the mean inverse mass
    of its two bodies when both are simple (body_simple 2: translating, diagonal inertia);
    else J M^-1 J' with J the edge's Jacobian at qpos0 (0 where mj_flex computes no Jacobian).
    """
    if not m.nflex:
        return
    vb, simple, mass = m.flex_vertbodyid, m.body_simple, m.body_mass
    general = []
    for f in range(m.nflex):
        if m.flex_interp[f]:
            continue
        va, ea = m.flex_vertadr[f], m.flex_edgeadr[f]
        for e in range(ea, ea + m.flex_edgenum[f]):
            b1, b2 = vb[va + m.flex_edge[e, 0]], vb[va + m.flex_edge[e, 1]]
            if m.flexedge_rigid[e]:
                m.flexedge_invweight0[e] = 0.0
            elif simple[b1] == 2 and simple[b2] == 2:
                m.flexedge_invweight0[e] = (1 / mass[b1] + 1 / mass[b2]) / 2
            else:
                general.append(e)
    if not general or not m.nv:
        return
    from ..data import MjData
    from ..smooth import fwd_position_smooth
    from ..support import mj_solveM
    d = MjData(m)
    fwd_position_smooth(m._A, d._A)   # kinematics, flex (edge Jacobians), M factored
    row = np.zeros((1, m.nv))
    sol = np.zeros((1, m.nv))
    for e in general:
        row[:] = 0.0
        a, n = m.flexedge_J_rowadr[e], m.flexedge_J_rownnz[e]
        row[0, m.flexedge_J_colind[a:a + n]] = d.flexedge_J[a:a + n]
        mj_solveM(m, d, sol, row)
        m.flexedge_invweight0[e] = float(row[0] @ sol[0])

