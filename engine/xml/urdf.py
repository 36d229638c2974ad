"""URDF reader: a ``<robot>`` Node tree -> `engine.spec.Spec` (seed 004 "URDF extensions", seed 000
"compiler").

The Spec is built exactly as if the URDF had been written as MJCF, through the MJCF reader's own
element factory (schema defaults <- default class "main" <- what the URDF says), so a
``<mujoco><default>`` block applies to URDF-made joints and geoms too. What MuJoCo's URDF importer
does, and so what this reader does:

* one body per ``<link>``, bodies numbered depth-first from each root link in link order, children
  in joint order; a link named ``world`` is the world body itself; the root links hang from the
  world without a joint (MuJoCo's loader imports the robot as static: fusestatic then welds a
  jointless root to the world);
* joint ``<origin>`` -> child body pos/quat (``rpy`` = fixed-axis X, Y, Z rotations); revolute and
  continuous -> hinge, prismatic -> slide, floating -> free, spherical -> ball, planar -> two
  slides along the x and y axes of the frame whose z is ``<axis>`` plus a hinge about ``<axis>``
  (named ``NAME_TX``, ``NAME_TY``, ``NAME_RZ``), fixed -> no joint; ``<axis>`` defaults to 1 0 0;
* ``<limit lower upper>`` -> range (limited when both are given and lower < upper), ``effort`` ->
  actuatorfrcrange ±|effort|; ``<dynamics damping friction>`` -> damping, frictionloss;
* ``<mimic joint multiplier offset>`` -> ``<equality><joint joint1=THIS joint2=joint
  polycoef="offset multiplier 0 0 0"/>`` (ignored with a warning when either joint is not a hinge
  or slide, as MuJoCo does);
* ``<inertial>``: origin, mass, full inertia (diagonalised here, the frame composed with the
  origin's rotation; an all-zero inertia stays zero);
* ``<collision>`` -> geom (contype = conaffinity = 1); ``<visual>`` -> geom with contype =
  conaffinity = 0, group 1, density 0, not even created when compiler discardvisual is true (the
  URDF default); colour: a visual's ``<material><color>`` or a named top-level material's colour,
  kept for the link's later geoms (collisions use the last visual's colour);
* box / cylinder / sphere / capsule / mesh (``scale``); mesh assets named after the file's base name
  without extension, one asset per (file, scale), repeats numbered ``NAME1``, ``NAME2``...

Extensions of mj_ros (MuJoCo reads only compiler/option/size in ``<mujoco>``): the block may also
hold the MJCF sections default, asset, contact, equality, tendon, actuator, sensor, keyframe,
custom, visual, statistic, and ``<body name="LINK">`` whose site/camera/light/geom/frame children
are added to the body made from link LINK. Mesh file names may be ``package://pkg/rel`` (resolved
through `resolve_package`), ``file://`` URIs, absolute, or relative to the URDF file (plus compiler
meshdir). Any problem is one `XMLError` naming file, line, element and attribute.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from ..errors import XMLError
from ..plugin.resource import find_provider, join, join_dir, resource_dir, resource_exists
from ..spec import Body, DefaultClass
from . import schema as S
from .mjcf import MJCFReader, Node

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical")
EXTENSION_SECTIONS = ("compiler", "option", "size", "default", "asset", "contact", "equality",
                      "tendon", "actuator", "sensor", "keyframe", "custom", "visual", "statistic",
                      "body")
EXTENSION_BODY_CHILDREN = {"site", "camera", "light", "geom", "frame"}


# ---- package:// resolution -----------------------------------------------------------------------
def package_dirs(pkg, package_map=None, urdf_file=None):
    """Candidate directories of ROS package ``pkg``, in the order they are tried:

    1. the explicit ``package_map`` {"pkg": "/dir"};
    2. ``$AMENT_PREFIX_PATH`` (ROS 2): ``<prefix>/share/<pkg>`` for each prefix;
    3. ``$ROS_PACKAGE_PATH`` (ROS 1): ``<dir>/<pkg>``, or ``<dir>`` itself when its base name is
       ``pkg``;
    4. walking up from the URDF file's directory: an ancestor named ``pkg``, or an ancestor holding
       ``<pkg>`` or ``share/<pkg>`` (how example-robot-data and source checkouts are laid out).
    """
    out = []
    if package_map and pkg in package_map:
        out.append(os.fspath(package_map[pkg]))
    for prefix in filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)):
        out.append(os.path.join(prefix, "share", pkg))
    for d in filter(None, os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep)):
        d = d.rstrip("/") or "/"
        if os.path.basename(d) == pkg:
            out.append(d)
        out.append(os.path.join(d, pkg))
    if urdf_file:
        d = os.path.dirname(os.path.abspath(urdf_file))
        while True:
            if os.path.basename(d) == pkg:
                out.append(d)
            out.append(os.path.join(d, pkg))
            out.append(os.path.join(d, "share", pkg))
            up = os.path.dirname(d)
            if up == d:
                break
            d = up
    return [d for d in out if os.path.isdir(d)]


def resolve_package(uri, package_map=None, urdf_file=None):
    """``package://pkg/rel`` -> (absolute path or None, list of directories tried)."""
    rest = uri[len("package://"):].lstrip("/")   # some files write package:///pkg/...
    pkg, _, rel = rest.partition("/")
    tried = package_dirs(pkg, package_map, urdf_file)
    for d in tried:
        p = os.path.join(d, rel)
        if os.path.isfile(p):
            return os.path.abspath(p), tried
    return None, tried


# ---- small parsing helpers -------------------------------------------------------------------------
def _err(node, msg, attr=None):
    return XMLError(msg, node.file, node.line, node.tag, attr)


def _floats(node, attr, n, default=None, required=False):
    raw = node.attrib.get(attr)
    if raw is None:
        if required:
            raise _err(node, f"<{node.tag}> requires attribute '{attr}'", attr)
        return default
    words = raw.split()
    if not words:
        # mujoco 4.0.0's URDF reader reads an empty value as zeros (measured: origin xyz/rpy,
        # limit lower/effort, dynamics damping/friction); a required one is missing (inertia)
        if required:
            raise _err(node, f"required attribute missing: '{attr}'", attr)
        return 0.0 if n == 1 else (0.0,) * n
    vals = []
    for w in words:
        try:
            v = float(w)
        except ValueError:
            raise _err(node, f"expected a number, got '{w}'", attr) from None
        vals.append(v)
    if len(vals) != n:
        raise _err(node, f"expected {n} value{'s' if n > 1 else ''}, got {len(vals)}", attr)
    return vals[0] if n == 1 else tuple(vals)


def _child(node, tag, required=False):
    for c in node.children:
        if c.tag == tag:
            return c
    if required:
        raise _err(node, f"<{node.tag}> requires a <{tag}> element")
    return None


def _name(node, required=True):
    n = node.attrib.get("name")
    if required and not n:
        raise _err(node, f"<{node.tag}> requires attribute 'name'", "name")
    return n


def _origin(node):
    """pos and quat of a URDF ``<origin xyz rpy>`` child of ``node`` (identity when absent)."""
    from ..compiler.frames import euler2quat
    o = _child(node, "origin")
    if o is None:
        return (0.0, 0.0, 0.0), None
    pos = _floats(o, "xyz", 3, (0.0, 0.0, 0.0))
    rpy = _floats(o, "rpy", 3)
    quat = None
    if rpy is not None:
        # URDF rpy: roll about fixed X, then pitch about fixed Y, then yaw about fixed Z.
        quat = tuple(float(x) for x in euler2quat(rpy, "XYZ"))
    return pos, quat


# Children that may appear once (mujoco 4.0.0's URDF reader: "repeated element", measured;
# a <visual>'s children are not checked: visuals are discarded by default)
_ONCE = {"joint": ("parent", "child", "origin", "axis", "limit", "dynamics", "mimic"),
         "link": ("inertial",), "inertial": ("origin", "mass", "inertia"),
         "collision": ("origin", "geometry"),
         "geometry": ("box", "cylinder", "sphere", "capsule", "mesh")}


def _check_repeats(node):
    """XMLError at the first child of `node` or below that repeats a tag of _ONCE."""
    once = _ONCE.get(node.tag, ())
    seen = set()
    for c in node.children:
        if c.tag in once:
            if c.tag in seen:
                raise _err(c, f"repeated element: '{c.tag}'")
            seen.add(c.tag)
        if c.tag in _ONCE:
            _check_repeats(c)


class URDFReader:
    """Fills a Spec from a URDF Node tree, using an `MJCFReader` for everything MJCF."""

    def __init__(self, root: Node, file=None, package_map=None, assets=None):
        self.root = root
        self.file = file
        self.dir = resource_dir(file) if file else os.getcwd()
        self.package_map = dict(package_map or {})
        self.assets = assets or {}
        self.mj = MJCFReader(root, file=file)
        self.mj._origin = {}
        self.spec = self.mj.spec
        self.spec.source = "urdf"
        self.geom_names = set()     # URDF geom names already used (repeats stay unnamed)
        self.mesh_assets = {}       # mesh base name -> [(asset name, path, scale)]

    # -- entry ---------------------------------------------------------------------------------------
    def read(self):
        root, sp = self.root, self.spec
        if root.tag != "robot":
            raise _err(root, f"the top element of a URDF file must be <robot>, got <{root.tag}>")
        sp.modelname = root.attrib.get("name") or "MuJoCo Model"
        sp.worldbody = Body(attrs={"name": "world"}, file=root.file, line=root.line)
        sp.defaults["main"] = DefaultClass("main", None)
        self.main = sp.defaults["main"]

        blocks = [c for c in root.children if c.tag == "mujoco"]
        for b in blocks:
            for c in b.children:
                if c.tag not in EXTENSION_SECTIONS:
                    raise _err(c, f"unrecognized element <{c.tag}> inside <mujoco> (allowed: "
                                  f"{', '.join(EXTENSION_SECTIONS)})")
        # compiler/option/size and defaults first: URDF elements are made through them
        for b in blocks:
            for c in b.children:
                if c.tag in ("compiler", "option", "size", "visual", "statistic"):
                    getattr(self.mj, c.tag)(c)
                elif c.tag == "default":
                    self.mj.default(c, self.main, top=True)
        comp = sp.compiler
        # seed 000 compiler/angle: always radian for URDF, whatever the file says
        comp["angle"] = "radian"
        # Mesh paths are resolved here (package://, file://, relative to the URDF), so the
        # compiler must not strip them again; an explicit strippath="true" is honoured here.
        self.strippath = bool(comp.get("strippath", False))
        comp["strippath"] = False
        self.meshdir = comp.get("meshdir") or comp.get("assetdir") or ""
        self.discardvisual = bool(comp.get("discardvisual", True))

        self.materials = self._materials(root)
        self._tree()
        for b in blocks:
            for c in b.children:
                if c.tag == "asset":
                    self.mj.asset(c)
        for b in blocks:
            for c in b.children:
                if c.tag == "body":
                    self._extension_body(c)
        for b in blocks:
            for c in b.children:
                if c.tag in ("contact", "equality", "tendon", "actuator", "sensor", "keyframe",
                             "custom"):
                    getattr(self.mj, c.tag)(c)
        return sp

    # -- materials (rgba only, as MuJoCo's importer) -------------------------------------------------
    def _materials(self, root):
        """Named materials with a <color>, anywhere in the file; the first definition wins."""
        out = {}

        def walk(n):
            if n.tag == "material" and n.attrib.get("name") and n.attrib["name"] not in out:
                col = _child(n, "color")
                if col is not None:
                    out[n.attrib["name"]] = _floats(col, "rgba", 4, required=True)
            for c in n.children:
                if c.tag != "mujoco":
                    walk(c)
        walk(root)
        return out

    # -- the kinematic tree --------------------------------------------------------------------------
    def _tree(self):
        root = self.root
        for c in root.children:
            if c.tag in ("link", "joint"):
                _check_repeats(c)
        links = [c for c in root.children if c.tag == "link"]
        joints = [c for c in root.children if c.tag == "joint"]
        self.links = {}
        for ln in links:
            n = _name(ln)
            if n in self.links:
                raise _err(ln, f"repeated link name '{n}'", "name")
            self.links[n] = ln
        parent, children = {}, {n: [] for n in self.links}
        jnames = set()
        for jn in joints:
            n = _name(jn)
            if n in jnames:
                raise _err(jn, f"repeated joint name '{n}'", "name")
            jnames.add(n)
            p = _child(jn, "parent", required=True)
            c = _child(jn, "child", required=True)
            pl, cl = p.attrib.get("link"), c.attrib.get("link")
            if not pl:
                raise _err(p, "<parent> requires attribute 'link'", "link")
            if not cl:
                raise _err(c, "<child> requires attribute 'link'", "link")
            if pl not in self.links:
                raise _err(p, f"joint '{n}': unknown parent link '{pl}'", "link")
            if cl not in self.links:
                raise _err(c, f"joint '{n}': unknown child link '{cl}'", "link")
            if cl in parent:
                raise _err(jn, f"link '{cl}' has more than one parent joint", None)
            parent[cl] = (pl, jn)
            children[pl].append((cl, jn))

        self.bodies = {}   # link name -> Body (the world body for a link named "world")
        world = self.spec.worldbody

        def add(name, pbody):
            ln = self.links[name]
            if name == "world":
                body = world
            else:
                body = self.mj.make(Node("body", {}, ln.file, ln.line), "body", S.BODY, None,
                                    element_type=Body)
                body.set("name", name)
                pbody.add(body)
            self.bodies[name] = body
            for cname, _ in children[name]:
                add(cname, body)

        for n in self.links:
            if n not in parent:
                add(n, world)
        for n, ln in self.links.items():
            if n not in self.bodies:
                raise _err(ln, f"link '{n}' is part of a kinematic loop (URDF must be a tree)")
        for n, ln in self.links.items():
            self._link(ln, self.bodies[n], is_world=(n == "world"))
        self.joint_type = {}
        self.mimics = []
        for jn in joints:
            self._joint(jn)
        for jn, mimic in self.mimics:
            self._mimic(jn, mimic)

    # -- links ---------------------------------------------------------------------------------------
    def _link(self, ln, body, is_world):
        inert = _child(ln, "inertial")
        if inert is not None and not is_world:
            body.inertial = self._inertial(inert)
        rgba = None
        for c in ln.children:
            if c.tag == "visual":
                mat = _child(c, "material")
                if mat is not None:
                    col = _child(mat, "color")
                    if col is not None:
                        rgba = _floats(col, "rgba", 4, required=True)
                    else:
                        mname = mat.attrib.get("name")
                        if not mname:
                            raise _err(mat, "<material> requires attribute 'name' or a <color>",
                                       "name")
                        rgba = self.materials.get(mname, rgba)
                if not self.discardvisual:
                    self._geom(c, body, collision=False, rgba=rgba)
            elif c.tag == "collision":
                self._geom(c, body, collision=True, rgba=rgba)

    def _inertial(self, node):
        from ..compiler.frames import quat_mul
        from ..compiler.inertia import full_inertia_error, full_to_principal
        pos, quat = _origin(node)
        mass = _floats(_child(node, "mass", required=True), "value", 1, required=True)
        inn = _child(node, "inertia", required=True)
        full = [_floats(inn, k, 1, required=True) for k in ("ixx", "iyy", "izz", "ixy", "ixz",
                                                                "iyz")]
        q = np.asarray(quat if quat is not None else (1.0, 0.0, 0.0, 0.0), float)
        if any(v != 0 for v in full):
            # checked for every link, also the root link that becomes part of the world and is
            # not compiled (mujoco checks it)
            msg = full_inertia_error(full, bool(self.spec.compiler.get("balanceinertia")))
            if msg:
                raise _err(inn, msg)
            # URDF gives the full tensor in the origin's frame: principal axes composed with it
            d, qq = full_to_principal(full)
            q = quat_mul(q, qq)
        else:
            d = np.zeros(3)   # MuJoCo's importer leaves an all-zero inertia at zero
        el = self.mj.make(Node("inertial", {}, node.file, node.line), "inertial", S.INERTIAL,
                          None)
        # mujoco turns the tensor by the origin's rotation: a NaN rpy makes it NaN, and the
        # body fails its mass and inertia check (measured; the compiler reads this mark)
        el.nan_turn = bool(np.isnan(q).any())
        el.set("pos", tuple(pos))
        el.set("quat", tuple(float(x) for x in q))
        el.set("mass", mass)
        el.set("diaginertia", tuple(float(x) for x in d))
        return el

    def _geom(self, node, body, collision, rgba):
        geo = _child(node, "geometry", required=True)
        g = self.mj.make(Node("geom", {}, node.file, node.line), "geom", S.GEOM, self.main)
        if collision:
            g.set("contype", 1)
            g.set("conaffinity", 1)
        else:
            g.set("contype", 0)
            g.set("conaffinity", 0)
            g.set("group", 1)
            g.set("density", 0.0)
        shape = next((c for c in geo.children), None)
        if shape is None:
            raise _err(geo, "<geometry> needs one of <box>, <cylinder>, <sphere>, <capsule>, "
                            "<mesh>")
        if shape.tag == "box":
            size = _floats(shape, "size", 3, required=True)
            g.set("type", "box")
            g.set("size", tuple(s / 2 for s in size))
        elif shape.tag in ("cylinder", "capsule"):
            r = _floats(shape, "radius", 1, required=True)
            length = _floats(shape, "length", 1, required=True)
            g.set("type", shape.tag)
            g.set("size", (r, length / 2, 0.0))
        elif shape.tag == "sphere":
            g.set("type", "sphere")
            g.set("size", (_floats(shape, "radius", 1, required=True), 0.0, 0.0))
        elif shape.tag == "mesh":
            g.set("type", "mesh")
            g.set("mesh", self._mesh(shape))
        else:
            raise _err(shape, f"unknown geometry <{shape.tag}> (expected box, cylinder, sphere, "
                              "capsule or mesh)")
        pos, quat = _origin(node)
        g.set("pos", tuple(pos))
        if quat is not None:
            g.set("quat", quat)
        if rgba is not None:
            g.set("rgba", tuple(rgba))
        name = node.attrib.get("name")
        if name:
            if name in self.geom_names:
                warnings.warn(f"{node.file}:{node.line}: geom with duplicate name '{name}' in "
                              "URDF: the geom is left unnamed (as MuJoCo does)")
            else:
                self.geom_names.add(name)
                g.set("name", name)
        body.add(g)
        return g

    # -- meshes ----------------------------------------------------------------------------------------
    def _resolve(self, node, fname):
        """The file a URDF mesh ``filename`` names (see the module docstring); XMLError if none."""
        if self.strippath:
            fname = os.path.basename(fname)
        if fname in self.assets:
            return fname
        if fname.startswith("package://"):
            path, tried = resolve_package(fname, self.package_map, self.file)
            if path is None:
                pkg = fname[len("package://"):].lstrip("/").partition("/")[0]
                where = (f"package '{pkg}' found at {', '.join(tried)}" if tried else
                         f"package '{pkg}' not found (give package_map={{'{pkg}': DIR}}, or set "
                         "AMENT_PREFIX_PATH or ROS_PACKAGE_PATH)")
                raise _err(node, f"mesh file '{fname}' not found: {where}", "filename")
            return path
        if fname.startswith("file://"):
            fname = fname[len("file://"):]
        elif find_provider(fname) is not None:    # a resource provider's name (seed 002)
            if not resource_exists(fname):
                raise _err(node, f"mesh file '{fname}' not found by resource provider "
                           f"'{find_provider(fname).prefix}'", "filename")
            return fname
        if "://" in fname:
            raise _err(node, f"unsupported URI scheme in '{fname}' (package:// and file:// are "
                             "supported)", "filename")
        path = join(join_dir(self.dir, self.meshdir), fname)
        if find_provider(path) is not None:       # the URDF itself came from a provider
            if not resource_exists(path):
                raise _err(node, f"mesh file '{fname}' not found (looked for {path})",
                           "filename")
            return path
        if not os.path.isfile(path):
            raise _err(node, f"mesh file '{fname}' not found (looked for {path})", "filename")
        return os.path.abspath(path)

    def _mesh(self, node):
        raw = node.attrib.get("filename")
        if not raw:
            raise _err(node, "<mesh> requires attribute 'filename'", "filename")
        scale = _floats(node, "scale", 3, (1.0, 1.0, 1.0))
        path = self._resolve(node, raw)
        base = os.path.basename(raw)
        base = base[:base.rfind(".")] if "." in base else base
        versions = self.mesh_assets.setdefault(base, [])
        for name, p, s in versions:
            if s == scale and p == path:
                return name
        # MuJoCo names repeats NAME1, NAME2... by how many versions exist. (It would also reuse
        # the first file for a different file with the same base name and scale; we keep both.)
        name = base if not versions else f"{base}{len(versions)}"
        m = self.mj.make(Node("mesh", {}, node.file, node.line), "mesh", S.MESH, self.main)
        m.set("name", name)
        m.set("file", path)
        m.set("scale", tuple(scale))
        versions.append((name, path, scale))
        self.spec.meshes.append(m)
        return name

    # -- joints ----------------------------------------------------------------------------------------
    def _new_joint(self, jn, body, name, jtype, axis):
        j = self.mj.make(Node("joint", {}, jn.file, jn.line), "joint", S.JOINT, self.main)
        j.set("name", name)
        j.set("type", jtype)
        j.set("pos", (0.0, 0.0, 0.0))
        if axis is not None:
            j.set("axis", tuple(axis))
        body.add(j)
        return j

    def _joint(self, jn):
        from ..compiler.frames import quat2mat, zaxis2quat
        name = jn.attrib["name"]
        jtype = jn.attrib.get("type")
        if jtype is None:
            raise _err(jn, "<joint> requires attribute 'type'", "type")
        if jtype not in JOINT_TYPES:
            raise _err(jn, f"invalid joint type '{jtype}' (expected one of "
                           f"{', '.join(JOINT_TYPES)})", "type")
        child = _child(jn, "child").attrib["link"]
        body = self.bodies[child]
        if body is self.spec.worldbody:
            raise _err(jn, "the link 'world' cannot be the child of a joint")
        pos, quat = _origin(jn)
        body.set("pos", tuple(pos))
        if quat is not None:
            body.set("quat", quat)
        ax = _child(jn, "axis")
        axis = _floats(ax, "xyz", 3, required=True) if ax is not None else (1.0, 0.0, 0.0)
        self.joint_type[name] = jtype
        made = []
        if jtype in ("revolute", "continuous"):
            made = [self._new_joint(jn, body, name, "hinge", axis)]
        elif jtype == "prismatic":
            made = [self._new_joint(jn, body, name, "slide", axis)]
        elif jtype == "floating":
            made = [self._new_joint(jn, body, name, "free", None)]
        elif jtype == "spherical":
            made = [self._new_joint(jn, body, name, "ball", axis)]
        elif jtype == "planar":
            if np.linalg.norm(axis) < 1e-10:
                raise _err(ax, "planar joint axis has zero length", "xyz")
            R = quat2mat(zaxis2quat(axis))
            made = [self._new_joint(jn, body, name + "_TX", "slide", tuple(R[:, 0])),
                    self._new_joint(jn, body, name + "_TY", "slide", tuple(R[:, 1])),
                    self._new_joint(jn, body, name + "_RZ", "hinge", axis)]
        else:   # fixed
            return
        dyn = _child(jn, "dynamics")
        if dyn is not None:
            damping = _floats(dyn, "damping", 1)
            friction = _floats(dyn, "friction", 1)
            for j in made:
                if damping is not None:
                    old = j.attrs["damping"]
                    j.set("damping", (damping,) + tuple(old[1:]) if isinstance(old, tuple)
                          else damping)
                if friction is not None:
                    j.set("frictionloss", friction)
        lim = _child(jn, "limit")
        if lim is not None:
            j = made[0]
            lo, hi = _floats(lim, "lower", 1), _floats(lim, "upper", 1)
            rng = list(j.attrs["range"])
            if lo is not None:
                rng[0] = lo
            if hi is not None:
                rng[1] = hi
            if lo is not None or hi is not None:
                j.set("range", tuple(rng))
                if lo is None or hi is None or rng[0] >= rng[1]:
                    if rng[0] == rng[1] and lo is not None and hi is not None:
                        warnings.warn(f"{jn.file}:{jn.line}: joint '{name}' has equal lower and "
                                      "upper limits: limit ignored (as MuJoCo does)")
                    j.set("limited", "false")
            effort = abs(_floats(lim, "effort", 1, 0.0))
            if effort > 0:
                j.set("actuatorfrcrange", (-effort, effort))
        mimic = _child(jn, "mimic")
        if mimic is not None:
            self.mimics.append((jn, mimic))

    def _mimic(self, jn, mimic):
        """URDF <mimic>: q_this = offset + multiplier * q_other, a joint equality."""
        name = jn.attrib["name"]
        other = mimic.attrib.get("joint")
        if not other:
            raise _err(mimic, "<mimic> requires attribute 'joint'", "joint")
        mult = _floats(mimic, "multiplier", 1, 1.0)
        offset = _floats(mimic, "offset", 1, 0.0)
        ok = ("revolute", "continuous", "prismatic")
        if self.joint_type.get(name) not in ok or self.joint_type.get(other) not in ok:
            warnings.warn(f"{mimic.file}:{mimic.line}: <mimic> on joint '{name}' ignored: mimic "
                          "needs two revolute, continuous or prismatic joints (as MuJoCo does)")
            return
        eq = self.mj.make(Node("joint", {}, mimic.file, mimic.line), "equality",
                          S.EQUALITY["joint"], None)
        for k in self.main.given.get("equality", ()):
            eq.set(k, self.main.values["equality"][k])
        eq.set("joint1", name)
        eq.set("joint2", other)
        eq.set("polycoef", (offset, mult, 0.0, 0.0, 0.0))
        self.spec.equalities.append(eq)

    # -- extension: <mujoco><body name="LINK"> ---------------------------------------------------------
    def _extension_body(self, node):
        for attr in node.attrib:
            if attr not in ("name", "childclass"):
                raise _err(node, f"unrecognized attribute '{attr}' (a <body> in the URDF "
                                 "<mujoco> block only names a link)", attr)
        name = node.attrib.get("name")
        if not name:
            raise _err(node, "<body> in <mujoco> requires attribute 'name' (a link name)", "name")
        body = self.bodies.get(name)
        if body is None:
            raise _err(node, f"unknown link '{name}'", "name")
        for c in node.children:
            if c.tag not in EXTENSION_BODY_CHILDREN:
                raise _err(c, f"<{c.tag}> cannot be added to a URDF link (allowed: "
                              f"{', '.join(sorted(EXTENSION_BODY_CHILDREN))})")
        cls = self.main
        if "childclass" in node.attrib:
            cls = self.mj._named_class(node, node.attrib["childclass"], "childclass")
        self.mj.body_children(node, body, cls, None, world=body is self.spec.worldbody)


def read_urdf(root, file=None, package_map=None, assets=None):
    """Read a URDF Node tree (from `engine.xml.mjcf.load_xml`) into a Spec with source "urdf"."""
    return URDFReader(root, file=file, package_map=package_map, assets=assets).read()


def parse_urdf(path=None, text=None, package_map=None, assets=None):
    """Read a URDF file (or string) into a Spec."""
    from .mjcf import load_xml
    return read_urdf(load_xml(path, text, assets), file=path, package_map=package_map,
                     assets=assets)
