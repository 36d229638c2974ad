"""<flexcomp>: the macro that generates a flex, the bodies and joints that move its points, and
optionally the flex edge equality (seed 000 "body/flexcomp"; modeling guide "deformable objects").

MuJoCo expands a flexcomp while it reads the file (the bodies it creates are children of the
flexcomp's parent body, added where the flexcomp stands among that body's children), so this runs
from the MJCF reader and leaves ordinary spec elements behind: child `Body`s with an explicit
inertial and slide joints, a flex `Element` in ``spec.flexes`` and, for <edge equality="true">,
an <equality><flex> element. The compiler (engine.compiler.flex) then sees a plain flex.

Point layouts, element orderings, the radial / disc / box projections, pinning and the names of
the generated bodies follow MuJoCo 4.0.0 (its field values are the test's reference), because
models address the generated bodies by name (``<connect body1="flag_0">``) and flex vertices by
index (``<pin id=...>``).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import XMLError
from ..spec import Body, Element
from ..xml import schema as S

from ..enums import mjMINVAL as MINVAL  # noqa: E402
EPS = 1e-14      # mjEPS


def _err(node, msg, attr=None):
    return XMLError(msg, node.file, node.line, node.tag, attr)


def _attrs(node, table, parse_attrs):
    explicit = parse_attrs(node, table)
    out = {k: v[2] for k, v in table.items()}
    for k, v in explicit.items():
        d = out.get(k)
        # a short vector fills the front of the default (friction, solref, solimp)
        out[k] = v + d[len(v):] if isinstance(d, tuple) and len(v) < len(d) else v
    return out, set(explicit)


def sub_elements(reader, node, tables, parse_attrs, check_children):
    """The <edge>/<elasticity>/<contact> children of a flex or flexcomp, each a dict of values
    (schema defaults where absent) plus the set of attributes given, ``{tag: (values, given)}``;
    <pin> children are gathered into one dict of lists."""
    out = {tag: (dict((k, v[2]) for k, v in t.items()), set()) for tag, t in tables.items()
           if tag != "pin"}
    pins = {"id": [], "range": [], "grid": [], "gridrange": []}
    for c in node.children:
        check_children(c, set())
        if c.tag == "pin":
            vals = parse_attrs(c, S.FLEXCOMP_PIN)
            for k, v in vals.items():
                pins[k].extend(v)
            continue
        if c.tag == "plugin":
            raise NotImplementedError(f"{c.file or '<string>'}:{c.line}: a flex or flexcomp "
                                      "backed by an engine plugin (<flexcomp><plugin>)")
        vals, given = _attrs(c, tables[c.tag], parse_attrs)
        out[c.tag] = (vals, given)
    return out, pins


# ---- point and element generators (MuJoCo's mjCFlexcomp::MakeGrid / MakeBox / MakeSquare) -------
def _grid(kind, dim, count, spacing, needtex):
    """Points, elements and texture coordinates of a grid (or circle: dim 1 only)."""
    pts, elems, tex = [], [], []
    cx, cy, cz = count
    if dim == 1:
        for ix in range(cx):
            if kind == "circle":
                if ix >= cx - 1:
                    continue
                theta = 2 * math.pi / (cx - 1)
                radius = spacing[0] / math.sin(theta / 2) / 2
                pts.append((radius * math.cos(theta * ix), radius * math.sin(theta * ix), 0.0))
                elems += [ix, 0 if ix == cx - 2 else ix + 1]
            else:
                pts.append((spacing[0] * (ix - 0.5 * (cx - 1)), 0.0, 0.0))
                if ix < cx - 1:
                    elems += [ix, ix + 1]
    elif dim == 2:
        for ix in range(cx):
            for iy in range(cy):
                q2t = [[0, 1, 2], [0, 2, 3]]
                p = (spacing[0] * (ix - 0.5 * (cx - 1)), spacing[1] * (iy - 0.5 * (cy - 1)))
                pts.append((p[0], p[1], 0.0))
                if needtex:
                    tex += [ix / max(cx - 1, 1), iy / max(cy - 1, 1)]
                # a disc flips the diagonal in two quadrants so that the radial projection
                # keeps the triangles well shaped
                if kind == "disc" and ((p[0] < -EPS and p[1] > -EPS) or
                                       (p[0] > -EPS and p[1] < -EPS)):
                    q2t[0][2] = 3
                    q2t[1][0] = 1
                if ix < cx - 1 and iy < cy - 1:
                    # MuJoCo indexes the quad's corners with count[2] as stride (a 2D grid has
                    # count[2] = 1 in every model that loads)
                    v = [cz * cy * ix + cz * iy, cz * cy * (ix + 1) + cz * iy,
                         cz * cy * (ix + 1) + cz * (iy + 1), cz * cy * ix + cz * (iy + 1)]
                    for s in range(2):
                        elems += [v[k] for k in q2t[s]]
    else:
        cube2tets = ((0, 3, 1, 7), (0, 1, 4, 7), (1, 3, 2, 7), (1, 2, 6, 7), (1, 5, 4, 7),
                     (1, 6, 5, 7))
        for ix in range(cx):
            for iy in range(cy):
                for iz in range(cz):
                    pts.append((spacing[0] * (ix - 0.5 * (cx - 1)),
                                spacing[1] * (iy - 0.5 * (cy - 1)),
                                spacing[2] * (iz - 0.5 * (cz - 1))))
                    if needtex:
                        tex += [float(np.float32(ix / max(cx - 1, 1))),
                                float(np.float32(iy / max(cy - 1, 1)))]
                    if ix < cx - 1 and iy < cy - 1 and iz < cz - 1:
                        def vid(a, b, c):
                            return cz * cy * (ix + a) + cz * (iy + b) + iz + c
                        v = [vid(0, 0, 0), vid(1, 0, 0), vid(1, 1, 0), vid(0, 1, 0),
                             vid(0, 0, 1), vid(1, 0, 1), vid(1, 1, 1), vid(0, 1, 1)]
                        for t in cube2tets:
                            elems += [v[k] for k in t]
    return pts, elems, tex


def _normalize(v, n):
    norm = math.sqrt(sum(v[i] * v[i] for i in range(n)))
    if norm < MINVAL:
        return
    for i in range(n):
        v[i] /= norm


def _box_project(kind, count, spacing, ix, iy, iz):
    pos = [2.0 * ix / (count[0] - 1) - 1, 2.0 * iy / (count[1] - 1) - 1,
           2.0 * iz / (count[2] - 1) - 1]
    size = [0.5 * spacing[k] * (count[k] - 1) for k in range(3)]
    if kind == "box":
        return [pos[k] * size[k] for k in range(3)]
    if kind == "cylinder":
        l0 = max(abs(pos[0]), abs(pos[1]))
        _normalize(pos, 2)
        return [pos[0] * size[0] * l0, pos[1] * size[1] * l0, pos[2] * size[2]]
    _normalize(pos, 3)   # ellipsoid
    return [pos[k] * size[k] for k in range(3)]


def _box(kind, dim, count, spacing, needtex):
    """The surface points of a box (cylinder, ellipsoid) and its triangles (dim 2) or the
    tetrahedra joining them to a centre point (dim 3). MuJoCo 4.0.0 leaves a dim-2 box open at
    its top (z = max) face (measured: 25 vertices for count 3 3 3, not 26)."""
    cx, cy, cz = count
    opened = dim == 2
    pts, elems, tex = [], [], []
    if dim == 3:
        pts.append((0.0, 0.0, 0.0))
    if needtex:
        tex += [0.0, 0.0]
    idx = {}

    def add(ix, iy, iz, t0, t1):
        idx[(ix, iy, iz)] = len(pts) - (1 if dim == 3 else 0)
        pts.append(tuple(_box_project(kind, count, spacing, ix, iy, iz)))
        if needtex:
            tex.extend([float(np.float32(t0)), float(np.float32(t1))])

    for iz in range(0, cz, cz - 1):
        for ix in range(cx):
            for iy in range(cy):
                if opened and iz != 0:
                    continue
                add(ix, iy, iz, ix / max(cx - 1, 1), iy / max(cy - 1, 1))
    for iy in range(0, cy, cy - 1):
        for ix in range(cx):
            for iz in range(cz):
                if iz > 0 and (opened or iz < cz - 1):
                    add(ix, iy, iz, ix / max(cx - 1, 1), iz / max(cz - 1, 1))
    for ix in range(0, cx, cx - 1):
        for iy in range(cy):
            for iz in range(cz):
                if iz > 0 and (opened or iz < cz - 1) and 0 < iy < cy - 1:
                    add(ix, iy, iz, iy / max(cy - 1, 1), iz / max(cz - 1, 1))

    def box_id(ix, iy, iz):
        # MuJoCo's BoxID: the point's index among the surface points, centre point first
        if iz == 0:
            return ix * cy + iy + 1
        if iz == cz - 1:
            return cx * cy + ix * cy + iy + 1
        if iy == 0:
            return 2 * cx * cy + ix * (cz - 2) + iz - 1 + 1
        if iy == cy - 1:
            return 2 * cx * cy + cx * (cz - 2) + ix * (cz - 2) + iz - 1 + 1
        if ix == 0:
            return 2 * cx * cy + 2 * cx * (cz - 2) + (iy - 1) * (cz - 2) + iz - 1 + 1
        return (2 * cx * cy + 2 * cx * (cz - 2) + (cy - 2) * (cz - 2) + (iy - 1) * (cz - 2)
                + iz - 1 + 1)

    def m(ix, iy, iz):
        return idx[(ix, iy, iz)]

    for iz in range(0, cz, cz - 1):
        for ix in range(cx - 1):
            for iy in range(cy - 1):
                if opened and iz != 0:
                    continue
                if dim == 3:
                    elems += [0, box_id(ix, iy, iz), box_id(ix + 1, iy, iz),
                              box_id(ix + 1, iy + 1, iz),
                              0, box_id(ix, iy, iz), box_id(ix, iy + 1, iz),
                              box_id(ix + 1, iy + 1, iz)]
                else:
                    s1, s2 = (1, 0) if iz == 0 else (0, 1)
                    elems += [m(ix, iy, iz), m(ix + 1, iy + s1, iz), m(ix + 1, iy + s2, iz),
                              m(ix, iy, iz), m(ix + s2, iy + 1, iz), m(ix + s1, iy + 1, iz)]
    for iy in range(0, cy, cy - 1):
        for ix in range(cx - 1):
            for iz in range(cz - 1):
                if dim == 3:
                    elems += [0, box_id(ix, iy, iz), box_id(ix + 1, iy, iz),
                              box_id(ix + 1, iy, iz + 1),
                              0, box_id(ix, iy, iz), box_id(ix, iy, iz + 1),
                              box_id(ix + 1, iy, iz + 1)]
                else:
                    x0, dx = (ix, 1) if iy == 0 else (ix + 1, -1)
                    elems += [m(x0, iy, iz), m(x0 + dx, iy, iz), m(x0 + dx, iy, iz + 1),
                              m(x0, iy, iz), m(x0 + dx, iy, iz + 1), m(x0, iy, iz + 1)]
    for ix in range(0, cx, cx - 1):
        for iy in range(cy - 1):
            for iz in range(cz - 1):
                if dim == 3:
                    elems += [0, box_id(ix, iy, iz), box_id(ix, iy + 1, iz),
                              box_id(ix, iy + 1, iz + 1),
                              0, box_id(ix, iy, iz), box_id(ix, iy, iz + 1),
                              box_id(ix, iy + 1, iz + 1)]
                else:
                    y0, dy = (iy, 1) if ix != 0 else (iy + 1, -1)
                    elems += [m(ix, y0, iz), m(ix, y0 + dy, iz), m(ix, y0 + dy, iz + 1),
                              m(ix, y0, iz), m(ix, y0 + dy, iz + 1), m(ix, y0, iz + 1)]
    return pts, elems, tex


# ---- the expansion ------------------------------------------------------------------------------
def expand(reader, node, body, active, frame, parse_attrs, check_children):
    """Expand the <flexcomp> ``node`` inside ``body`` (class ``active`` in effect): append the
    generated bodies to ``body``, the flex to ``spec.flexes`` and its equality, if any, to the
    reader's equalities that follow the file's own."""
    from .frames import Orienter
    spec = reader.spec
    check_children(node, {"edge", "elasticity", "contact", "pin", "plugin"})
    a, given = _attrs(node, S.FLEXCOMP, parse_attrs)
    if sum(k in given for k in S.ORIENT) > 1:
        raise _err(node, "multiple orientation specifiers", "quat")
    if frame is not None:
        raise NotImplementedError(f"{node.file or '<string>'}:{node.line}: <flexcomp> inside "
                                  "a <frame> or <replicate>")
    subs, pins = sub_elements(reader, node, {"edge": S.FLEXCOMP_EDGE,
                                             "elasticity": S.FLEX_ELASTICITY,
                                             "contact": S.FLEX_CONTACT, "pin": None},
                              parse_attrs, check_children)
    name = a["name"]
    if not name:
        raise _err(node, "flexcomp requires attribute 'name'", "name")
    kind, dof = a["type"], a["dof"]
    dim = a["dim"]
    count, spacing, scale = list(a["count"]), list(a["spacing"]), a["scale"]
    direct = kind in ("direct", "mesh", "gmsh")
    if kind in ("mesh", "gmsh"):
        raise NotImplementedError(f"{node.file or '<string>'}:{node.line}: <flexcomp "
                                  f"type=\"{kind}\"> (points and elements from a file)")
    if dof in ("trilinear", "quadratic"):
        raise NotImplementedError(f"{node.file or '<string>'}:{node.line}: <flexcomp "
                                  f"dof=\"{dof}\"> (interpolated flex)")
    if dof == "2d":
        raise NotImplementedError(f"{node.file or '<string>'}:{node.line}: <flexcomp "
                                  "dof=\"2d\">")
    if not body.name and body.parent is not None:
        raise _err(node, "Parent body must have name")
    if dim < 1 or dim > 3:
        raise _err(node, "Invalid dim, must be between 1 and 3", "dim")
    for i in range(3):
        if count[i] < 1 or (dof == "radial" and count[i] < 2 and dim == 3):
            raise _err(node, "Count too small", "count")
    contact = subs["contact"][0]
    minspace = 2 * a["radius"] + contact["margin"]
    if not direct and min(spacing) < minspace:
        raise _err(node, "Spacing must be larger than geometry size", "spacing")
    if min(scale) < MINVAL:
        raise _err(node, "Scale must be larger than mjMINVAL", "scale")
    if a["mass"] < MINVAL or a["inertiabox"] < MINVAL:
        raise _err(node, "Mass and inertiabox must be larger than mjMINVAL", "mass")
    c = spec.compiler
    quat = Orienter(c.get("angle", "degree") == "degree", c.get("eulerseq", "xyz")).quat(
        a, (node.file, node.line, node.tag, None))
    pos = np.asarray(a["pos"], float)

    needtex = not a["texcoord"] and bool(a["material"])
    texcoord = list(a["texcoord"])
    if kind in ("grid", "circle"):
        pts, elems, tex = _grid(kind, dim, count, spacing, needtex)
    elif kind in ("box", "cylinder", "ellipsoid"):
        pts, elems, tex = _box(kind, dim, count, spacing, needtex)
    elif kind in ("square", "disc"):
        dim = 2
        pts, elems, tex = _grid(kind, 2, count, spacing, needtex)
        if kind == "disc":
            size = (0.5 * spacing[0] * (count[0] - 1), 0.5 * spacing[1] * (count[1] - 1))
            for i, p in enumerate(pts):
                p = list(p)
                l0 = max(abs(p[0]), abs(p[1]))
                _normalize(p, 2)
                pts[i] = (p[0] * size[0] * l0, p[1] * size[1] * l0, p[2])
    else:   # direct
        pts = [tuple(a["point"][3 * i:3 * i + 3]) for i in range(len(a["point"]) // 3)]
        if len(a["point"]) % 3:
            raise _err(node, "Point size must be a multiple of 3", "point")
        elems, tex = list(a["element"]), []
    if needtex:
        texcoord = tex
    if kind in ("grid", "circle", "square", "disc") and not elems:
        raise _err(node, "No elements were created in grid")
    if kind in ("box", "cylinder") or (kind == "grid" and dim == 3):
        a["flatskin"] = True
    if len(pins["range"]) % 2:
        raise _err(node, "Pin range number must be multiple of 2")
    if len(pins["grid"]) % dim:
        raise _err(node, "Pin grid number must be multiple of dim")
    if len(pins["gridrange"]) % (2 * dim):
        raise _err(node, "Pin grid range number of must be multiple of 2*dim")
    if kind != "grid" and (pins["grid"] or pins["gridrange"]):
        raise _err(node, "Pin grid(range) can only be used with grid or interpolated")
    if dim == 1 and (pins["grid"] or pins["gridrange"]):
        raise _err(node, "Pin grid(range) cannot be used with dim=1")
    if not pts or not elems:
        raise _err(node, "Point and element required")
    if len(elems) % (dim + 1):
        raise _err(node, "Element size must be a multiple of dim+1", "element")
    npnt = len(pts)
    for i, e in enumerate(elems):
        if e < 0 or e >= npnt:
            raise _err(node, f"element {i} has point id {e}, number of points is {npnt}")
    from .frames import quat_rotate
    P = np.array(pts, float).reshape(-1, 3)
    if direct:
        P = P * np.asarray(scale, float)
    P = np.array([pos + quat_rotate(quat, p) for p in P]).reshape(-1, 3)

    # pinned points stay in the parent body; the others get a body with sliders each
    rigid = a["rigid"]
    pinned = [rigid] * npnt
    centered = False
    if not rigid:
        def grid_id(*ijk):
            return (ijk[0] * count[1] + ijk[1] if len(ijk) == 2 else
                    ijk[0] * count[1] * count[2] + ijk[1] * count[2] + ijk[2])
        for i in pins["id"]:
            if i < 0 or i >= npnt:
                raise _err(node, "pinid out of range")
            pinned[i] = True
        r = pins["range"]
        for i in range(0, len(r), 2):
            if min(r[i], r[i + 1]) < 0 or max(r[i], r[i + 1]) >= npnt:
                raise _err(node, "pinrange out of range")
            for k in range(r[i], r[i + 1] + 1):
                pinned[k] = True
        g = pins["grid"]
        for i in range(0, len(g), dim):
            if any(g[i + k] < 0 or g[i + k] >= count[k] for k in range(dim)):
                raise _err(node, "pingrid out of range")
            pinned[grid_id(*g[i:i + dim])] = True
        g = pins["gridrange"]
        for i in range(0, len(g), 2 * dim):
            if any(g[i + k] < 0 or g[i + k] >= count[k % dim] for k in range(2 * dim)):
                raise _err(node, "pingridrange out of range")
            lo, hi = g[i:i + dim], g[i + dim:i + 2 * dim]
            for ijk in np.ndindex(*[hi[k] - lo[k] + 1 for k in range(dim)]):
                pinned[grid_id(*[lo[k] + ijk[k] for k in range(dim)])] = True
        if dof == "radial":
            pinned[0] = True
        if all(pinned):
            rigid = True
        elif not any(pinned):
            centered = True

    # direct points no element uses are dropped (MuJoCo's reindexing)
    if direct:
        used = sorted(set(elems))
        if len(used) < npnt:
            remap = {old: new for new, old in enumerate(used)}
            elems = [remap[e] for e in elems]
            P = P[used]
            if texcoord:
                texcoord = [t for i in used for t in texcoord[2 * i:2 * i + 2]]
            pinned = [pinned[i] for i in used]
            npnt = len(used)

    flex = Element("flex", "flexcomp", file=node.file, line=node.line)
    flex.attrs = {k: v[2] for k, v in S.FLEX.items()}
    flex.attrs.update(name=name, dim=dim, radius=a["radius"], group=a["group"],
                      material=a["material"], rgba=a["rgba"], flatskin=a["flatskin"],
                      element=tuple(elems), texcoord=tuple(texcoord))
    edge_vals, edge_given = subs["edge"]
    flex.edge = {"stiffness": edge_vals["stiffness"], "damping": edge_vals["damping"]}
    flex.elasticity = subs["elasticity"][0]
    flex.contact = contact
    flex.vertbody, flex.nodebody, flex.node = [], [], ()
    flex.vertex = P.ravel().tolist()
    spec.flexes.append(flex)

    if rigid:
        flex.vertbody = [body.name]
    else:
        mass = a["mass"] / npnt
        inertia = mass * (2.0 * a["inertiabox"] ** 2) / 3.0
        joint_proto = {k: v[2] for k, v in S.JOINT.items()}
        joint_given = set()
        if active is not None:
            joint_proto.update({k: v for k, v in active.values.get("joint", {}).items()
                                if k in S.JOINT})
            joint_given = set(active.given.get("joint", set())) & set(S.JOINT)
        for i in range(npnt):
            if pinned[i]:
                flex.vertbody.append(body.name)
                continue
            battrs = {k: v[2] for k, v in S.BODY.items()}
            battrs.update(name=f"{name}_{i}", pos=tuple(P[i]))
            child = Body(attrs=battrs, given={"name", "pos"}, file=node.file, line=node.line)
            child.frame = None
            iner = Element("inertial", attrs={**{k: v[2] for k, v in S.INERTIAL.items()},
                                              "pos": (0.0, 0.0, 0.0), "mass": mass,
                                              "diaginertia": (inertia,) * 3},
                           given={"pos", "mass", "diaginertia"}, file=node.file,
                           line=node.line)
            child.inertial = iner
            axes = ([tuple(P[i] / max(np.linalg.norm(P[i]), MINVAL))] if dof == "radial"
                    else [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)])
            for ax in axes:
                j = Element("joint", attrs=dict(joint_proto), given=set(joint_given),
                            file=node.file, line=node.line)
                j.set("type", "slide")
                j.set("pos", (0.0, 0.0, 0.0))
                j.set("axis", ax)
                child.add(j)
            body.add(child)
            flex.vertbody.append(child.name)
            if not centered:
                P[i] = 0.0
        flex.vertex = [] if centered else P.ravel().tolist()

    if edge_vals["equality"]:
        main = spec.defaults["main"]
        eattrs = {k: v[2] for k, v in S.EQUALITY["flex"].items()}
        eattrs.update({k: v for k, v in main.values.get("equality", {}).items() if k in eattrs})
        for k in ("solref", "solimp"):
            if k in edge_given:
                eattrs[k] = edge_vals[k]
        eattrs["flex"] = name
        # MuJoCo appends a flexcomp's equality after the file's own equalities (measured)
        reader._flexcomp_equalities.append(Element("equality", "flex", attrs=eattrs,
                                                   given={"flex"}, file=node.file,
                                                   line=node.line))
    return flex
