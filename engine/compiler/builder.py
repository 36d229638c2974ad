"""Spec -> MjModel: the compiler (seed 000 "compiler"; seed 004 modeling guide).

Runs in named phases, in a fixed order, so it is easy to see where each mjModel field is born:
settings, assets (meshes), bodies and their elements (frames, orientations, fromto, sizes),
inertia, tree indices, joints/dofs, sparse mass-matrix layout, non-tree elements (tendons,
equalities, actuators, sensors, pairs, keyframes, custom), options, and finally the constants that
need the model's own kinematics at qpos0 (`engine.compiler.setconst`).
"""
from __future__ import annotations

import math

import numpy as np

from .. import enums
from ..enums import mjtObj, mjtSleepPolicy
from ..errors import CompileError
from .. import history
from ..model import MjModel
from ..names import make_names_map
from ..visual import apply_xml
from ..xml import schema as S
from .frames import IDENT, Orienter, compose, frame_pose, fromto_pose, quat2mat, quat_mul
from . import flex as flex_mod
from . import skin as skin_mod
from . import inertia as inertia_mod
from ._err import err
from . import bvh, mesh_normals, plugins, saved
from ..plugin.registry import SDF as SDF_CAP
from .assets import AssetPhases
from .keyframes import KeyframePhases
from .tendons import TendonPhases
from .fluid import geom_fluid_coefficients

GEOM_TYPE = {n: i for i, n in enumerate(S.GEOM_TYPES)}
SITE_TYPE = {"sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6}
JNT_TYPE = {"free": 0, "ball": 1, "slide": 2, "hinge": 3}
NQ = {0: 7, 1: 4, 2: 1, 3: 1}
NV = {0: 6, 1: 3, 2: 1, 3: 1}
CAM_MODE = {n: i for i, n in enumerate(S.CAM_MODES)}
# frames closer than this (each position / quaternion component) are the same frame for
# body/geom/site_sameframe: mujoco 4.0.0's tolerance (a geom 3e-7 off its body's inertial frame
# is placed at the inertial frame, as in robotiq's 2f85)
FRAME_EPS = 1e-6


def _where(el):
    return (el.file, el.line, el.tag)


def _is_ident(q):
    """q is the identity rotation (either sign) within FRAME_EPS."""
    return abs(abs(q[0]) - 1) < FRAME_EPS and abs(q[1]) < FRAME_EPS and abs(q[2]) < FRAME_EPS \
        and abs(q[3]) < FRAME_EPS


def _same(a, b):
    """a equals b within FRAME_EPS per component, strictly (mujoco: a geom at 1e-6 is moved)."""
    return bool(np.all(np.abs(np.subtract(a, b)) < FRAME_EPS))


from ..enums import mjJNT_BALL as _JNT_BALL, mjJNT_SLIDE as _JNT_SLIDE, mjJNT_HINGE as _JNT_HINGE  # noqa


def _decoupled_joint(jtype, pos, axis, after_rotation):
    """Whether a joint keeps its body "simple" (a diagonal block of the inertia matrix): it
    sits at the body frame's origin, a hinge or slide turns about / moves along a coordinate
    axis of the body, and no rotational joint precedes it in the body (measured on mujoco
    4.0.0: a slide after a hinge, or a slide along (1, 1, 0), makes the body not simple)."""
    if after_rotation or np.any(np.asarray(pos) != 0):
        return False
    if jtype in (_JNT_SLIDE, _JNT_HINGE):
        return int(np.sum(np.abs(axis) > 1e-14)) == 1
    return True


def sameframe(pos, quat, ipos, iquat):
    """mjtSameFrame of an element's local frame vs its body: BODY(1), BODYROT(3), INERTIA(2),
    INERTIAROT(4) or NONE(0), checked in that order."""
    if _same(pos, 0) and _is_ident(quat):
        return 1
    if _is_ident(quat):
        return 3
    if _same(pos, ipos) and (_same(quat, iquat) or _same(quat, -np.asarray(iquat))):
        return 2
    if _same(quat, iquat) or _same(quat, -np.asarray(iquat)):
        return 4
    return 0


class Compiler(AssetPhases, TendonPhases, KeyframePhases):
    def __init__(self, spec, asset_files=None):
        self.spec = spec
        self.assets = asset_files or {}
        c = {k: v[2] for k, v in S.COMPILER.items()}
        if spec.source == "urdf":
            # seed 004, URDF extensions: URDF's own compiler defaults.
            c.update(angle="radian", discardvisual=True, fusestatic=True)
        c.update(spec.compiler)
        if c["coordinate"] == "global":
            raise CompileError("global coordinates are no longer supported; convert the model "
                               "to local coordinates", spec.file, None, "compiler", "coordinate")
        self.c = c
        self.orient = Orienter(c["angle"] == "degree", c["eulerseq"])
        self.deg = math.pi / 180 if c["angle"] == "degree" else 1.0
        self.v = {}      # model field values
        self.names = {}  # kind -> list of names

    # ==== entry =====================================================================================
    def build(self) -> MjModel:
        self.collect_tree()
        # plugin instances first: a mesh can be made by an SDF plugin (seed 002)
        plugins.resolve_instances(self)
        self.sz["nplugin"] = len(self.plugin_slot)
        self.names["plugin"] = self.plugin_names
        plugins.arena_fields(self)
        self.compile_meshes()
        self.compile_hfields()
        self.compile_bodies()
        self.compile_joints()
        self.compile_geoms()
        self._compile_mesh_polygons()
        self.compile_sites_cameras_lights()
        self.compile_inertia()
        self.compile_tree_indices()
        self.compile_mass_sparsity()
        self.compile_tendons()
        flex_mod.compile_flexes(self)
        skin_mod.compile_skins(self)
        self.compile_equalities()
        self.compile_actuators()
        self.compile_sleep_policy()
        self.compile_sensors()
        self.history = history.compile_history(self, self.spec.actuators, self.spec.sensors)
        self.compile_pairs_excludes()
        self.compile_custom()
        self.compile_options()
        self.compile_materials_hfields()
        self.compile_keyframes()
        m = MjModel(self.sz, self.v, self.names, modelname=self.spec.modelname)
        m.__dict__["narena"] = self.memory
        history.attach_model(m, *self.history)
        plugins.attach(self, m)
        bvh.attach(self, m)
        saved.attach(self, m)
        mesh_normals.attach(self, m)
        m.__dict__["names_map"] = make_names_map(m)
        m.__dict__["nnames_map"] = len(m.names_map)
        apply_xml(m.vis, self.spec.visual)
        from .setconst import set_const
        set_const(m, self)
        flex_mod.set_const(m)
        return m

    # ==== phase: the tree ===========================================================================
    def collect_tree(self):
        sp = self.spec
        self.bodies = sp.bodies()
        if self.c["discardvisual"]:
            self._discard_visual()
        if self.c["fusestatic"]:
            self._fuse_static()
        self.bodies = sp.bodies()
        self.body_id = {id(b): i for i, b in enumerate(self.bodies)}
        self.parent = [0] + [self.body_id[id(b.parent)] for b in self.bodies[1:]]
        self.geoms = [g for b in self.bodies for g in b.geoms]
        self.joints = [j for b in self.bodies for j in b.joints]
        self.sites = [s for b in self.bodies for s in b.sites]
        self.cams = [c for b in self.bodies for c in b.cameras]
        self.lights = [x for b in self.bodies for x in b.lights]
        self.sz = {"nbody": len(self.bodies), "ngeom": len(self.geoms), "njnt": len(self.joints),
                   "nsite": len(self.sites), "ncam": len(self.cams), "nlight": len(self.lights)}
        self._check_names()

    def _referenced_names(self):
        sp = self.spec
        out = set()
        for group in (sp.sensors, sp.actuators, sp.equalities, sp.pairs, sp.excludes):
            for el in group:
                out.update(v for v in el.attrs.values() if isinstance(v, str))
        for t in sp.tendons:
            for p in t.path:
                out.update(v for v in p.attrs.values() if isinstance(v, str))
        return out

    def _discard_visual(self):
        """compiler discardvisual: drop geoms that can never collide (contype = conaffinity = 0)
        and are referenced by nothing, and then meshes no geom uses."""
        refs = self._referenced_names()
        for b in self.bodies:
            b.geoms = [g for g in b.geoms if g.attrs["contype"] or g.attrs["conaffinity"]
                       or (g.name and g.name in refs)]
        used = {g.attrs["mesh"] for b in self.bodies for g in b.geoms if g.attrs.get("mesh")}
        self.spec.meshes = [m for m in self.spec.meshes if self._mesh_name(m) in used]

    def _fuse_static(self):
        """compiler fusestatic: merge bodies without joints into their parents, moving their
        elements there. As the reference says, this is done only when the model has no element
        that could refer to a body or its contents by name (pairs, excludes, tendons, actuators,
        sensors, tuples, skins, flexes), nor cameras or lights."""
        sp = self.spec
        if (sp.pairs or sp.excludes or sp.tendons or sp.actuators or sp.sensors or sp.tuples
                or sp.skins or sp.flexes or any(b.cameras or b.lights for b in sp.bodies())):
            return
        # in tree order, as MuJoCo: a fused body's elements follow its new parent's, and its
        # static children, moved up with it, are fused right after it (depth first)
        for b in sp.bodies()[1:]:
            if b.joints or b.attrs.get("mocap"):
                continue
            parent = b.parent
            bp, bq = self.local_pose(b)
            # b's own inertia joins the parent's
            parent.__dict__.setdefault("_fused_bodies", []).append((bp, bq, b))
            for g in b.geoms:
                g.__dict__.setdefault("_origin_body", b)
            # b's elements and child bodies move to the parent, with b's pose composed in
            for kind in ("geoms", "sites", "cameras", "lights"):
                for el in getattr(b, kind):
                    el._fused = (bp, bq, getattr(el, "_fused", None))
                    el.parent = parent
                    getattr(parent, kind).append(el)
            for c in b.bodies:
                c._fused = (bp, bq, getattr(c, "_fused", None))
                c.parent = parent
            idx = parent.bodies.index(b)
            parent.bodies[idx:idx + 1] = b.bodies

    def _check_names(self):
        sp = self.spec
        # every named kind, as mujoco 4.0.0's compiler checks them ("repeated name 'x' in ...")
        for kind, els in (("body", self.bodies), ("geom", self.geoms), ("joint", self.joints),
                          ("site", self.sites), ("camera", self.cams), ("light", self.lights),
                          ("material", sp.materials), ("tendon", sp.tendons),
                          ("equality", sp.equalities), ("actuator", sp.actuators),
                          ("sensor", sp.sensors), ("pair", sp.pairs), ("exclude", sp.excludes),
                          ("key", sp.keys), ("numeric", sp.numerics), ("text", sp.texts),
                          ("tuple", sp.tuples)):
            seen = {}
            for el in els:
                n = el.name
                if n:
                    if n in seen:
                        raise err(el, f"repeated name '{n}' in {kind}", "name")
                    seen[n] = el

    # ==== helpers ===================================================================================
    def local_pose(self, el, default_quat=None):
        """Pose of a tree element in its body frame: enclosing frames composed with its own."""
        pos = np.asarray(el.attrs.get("pos") if el.attrs.get("pos") is not None else (0, 0, 0),
                         float)
        quat = self.orient.quat(el.attrs, _where(el), default_quat)
        fp, fq = frame_pose(el.frame, self.orient)
        p, q = compose(fp, fq, pos, quat)
        fused = getattr(el, "_fused", None)
        while fused is not None:
            bp, bq, fused = fused
            p, q = compose(bp, bq, p, q)
        return p, q

    # ==== phase: bodies =============================================================================
    def compile_bodies(self):
        nb = len(self.bodies)
        pos = np.zeros((nb, 3))
        quat = np.tile(IDENT, (nb, 1))
        mocap = np.full(nb, -1)
        gravcomp = np.zeros(nb)
        nmocap = 0
        user = []
        for i, b in enumerate(self.bodies[1:], 1):
            p, q = self.local_pose(b)
            pos[i], quat[i] = p, q
            if b.attrs.get("mocap"):
                if self.parent[i] != 0:
                    raise err(b, "mocap body must be a child of the world body", "mocap")
                if b.joints:
                    raise err(b, "mocap body cannot have joints", "mocap")
                mocap[i] = nmocap
                nmocap += 1
            gravcomp[i] = b.attrs.get("gravcomp", 0.0)
            user.append(b.attrs.get("user", ()))
        self.body_pos, self.body_quat = pos, quat
        self.v.update(body_pos=pos, body_quat=quat, body_mocapid=mocap, body_gravcomp=gravcomp,
                      body_parentid=self.parent)
        self.sz["nmocap"] = nmocap
        self.sz["ngravcomp"] = int(np.count_nonzero(gravcomp))
        self.names["body"] = [b.name if b.name else ("world" if i == 0 else None)
                              for i, b in enumerate(self.bodies)]
        self._user("body", [()] + user)

    def _cam_intrinsic(self, el):
        """cam_intrinsic (focal x, y; principal x, y; length units), cam_sensorsize and cam_fovy
        [deg] of a <camera> (XML reference camera/sensorsize, focal, principal; the *pixel
        variants are converted with the resolution and win over the length ones). Without a
        sensorsize fovy is given and the focal lengths default to <visual><map znear> (principal
        point 0; measured: MuJoCo 4.0.0 fills them so); with
        one, fovy follows from the vertical size and focal length (values in float32, as MuJoCo
        4.0.0 keeps them: measured)."""
        a = el.attrs
        ss = np.asarray(a["sensorsize"], np.float32)
        given = [k for k in ("focal", "focalpixel", "principal", "principalpixel")
                 if k in el.given]
        if not (ss[0] > 0 and ss[1] > 0):
            if given:
                raise err(el, "focal/principal require sensorsize", given[0])
            znear = self.spec.visual.get("map", {}).get("znear", 0.01)
            return tuple(np.float32([znear, znear, 0, 0])), (0.0, 0.0), a["fovy"]
        if "fovy" in el.given:
            raise err(el, "at most one of 'fovy', 'sensorsize' can be specified", "fovy")
        # the pixel variants converted in double from the XML values, then stored in float32
        res = np.maximum(np.asarray(a["resolution"], float), 1)
        ss64 = np.asarray(a["sensorsize"], float)
        focal = np.asarray(a["focal"], float)
        if np.any(focal_px := np.asarray(a["focalpixel"], float)):
            focal = focal_px * ss64 / res
        principal = np.asarray(a["principal"], float)
        if np.any(principal_px := np.asarray(a["principalpixel"], float)):
            principal = principal_px * ss64 / res
        focal, principal = focal.astype(np.float32), principal.astype(np.float32)
        # the half angle in double from the float32 sizes, stored as float32, then fovy in
        # double (measured on mujoco 4.0.0: cam_fovy bit-exact)
        with np.errstate(divide="ignore"):
            half = np.float32(np.arctan(np.float64(ss[1]) / (2 * np.float64(focal[1]))))
        fovy = float(2 * np.float64(half) * 180 / math.pi)
        return (*focal, *principal), tuple(ss), fovy

    @staticmethod
    def _columns(prefix, els, attrs):
        """{prefix + attr: [el.attrs[attr] for el in els]} for each space-separated attr: the
        fields that are a plain copy of one attribute per element."""
        return {prefix + a: [el.attrs[a] for el in els] for a in attrs.split()}

    def _user(self, kind, rows, sizekey=None):
        """user data: width from <size nuser_*> (or the longest given), zero padded."""
        key = sizekey or f"nuser_{kind}"
        n = self.spec.size.get(key, -1)
        longest = max((len(r) for r in rows), default=0)
        if n == -1:
            n = longest
        elif longest > n:
            raise CompileError(f"user data longer than {key}={n}", self.spec.file, None, "size",
                               key)
        arr = np.zeros((len(rows), n))
        for i, r in enumerate(rows):
            arr[i, :len(r)] = r
        self.sz[key] = n
        field = {"body": "body_user", "jnt": "jnt_user", "geom": "geom_user", "site": "site_user",
                 "cam": "cam_user", "tendon": "tendon_user", "actuator": "actuator_user",
                 "sensor": "sensor_user"}[kind]
        self.v[field] = arr

    # ==== phase: joints =============================================================================
    def compile_joints(self):
        nj = len(self.joints)
        v = self.v
        jtype = np.zeros(nj, int)
        jbody = np.zeros(nj, int)
        jpos = np.zeros((nj, 3))
        jaxis = np.zeros((nj, 3))
        qposadr = np.zeros(nj, int)
        dofadr = np.zeros(nj, int)
        limited = np.zeros(nj, int)
        actfrclimited = np.zeros(nj, int)
        rng = np.zeros((nj, 2))
        actfrcrange = np.zeros((nj, 2))
        qpos0, qpos_spring = [], []
        dof = {k: [] for k in ("bodyid", "jntid", "armature", "damping", "dampingpoly",
                                 "frictionloss", "solref", "solimp")}
        nq = nv = 0
        names, user = [], []
        for j, el in enumerate(self.joints):
            a = el.attrs
            b = el.parent
            bid = self.body_id[id(b)]
            t = 0 if el.kind == "freejoint" else JNT_TYPE[a["type"]]
            if t == 0:
                if self.parent[bid] != 0:
                    raise err(el, "free joint can only be used on top level")
                if len(b.joints) > 1:
                    raise err(el, "free joint must be the only joint of its body")
                a = {**{k: x[2] for k, x in S.JOINT.items()}, **a}
            if t == 1 and any(JNT_TYPE.get(o.attrs.get("type"), 0) in (1, 3)
                              for o in b.joints if o is not el and o.kind != "freejoint"):
                raise err(el, "a ball joint cannot be combined with other rotational joints")
            jtype[j], jbody[j] = t, bid
            if t in (2, 3):
                p, q = self.local_pose(el)
                ax = np.asarray(a["axis"], float)
                n = np.linalg.norm(ax)
                if n < 1e-14:
                    raise err(el, "joint axis cannot be zero", "axis")
                # mujoco scales only an axis whose norm is off 1 (a NaN one stays as written) and
                # turns it only by a frame that is not the identity (measured: axis "0 nan 1")
                ax = ax / n if abs(n - 1) > 1e-15 else ax
                jaxis[j] = ax if np.array_equal(q, (1, 0, 0, 0)) else quat2mat(q) @ ax
                jpos[j] = p
            else:
                jaxis[j] = (0, 0, 1)
                if t == 1:
                    jpos[j], _ = self.local_pose(el)
            qposadr[j], dofadr[j] = nq, nv
            scale = self.deg if t in (1, 3) else 1.0
            lim = a["limited"]
            if lim == "auto":
                if not self.c["autolimits"] and "range" in el.given:
                    raise err(el, "limited must be set when autolimits is false and range is "
                              "given", "limited")
                # limited when the range is given and increasing (mujoco 4.0.0: a range with
                # range[0] >= range[1] and limited="auto" compiles unlimited, measured)
                r = a["range"]
                lim = "true" if "range" in el.given and r[0] < r[1] else "false"
            # a free joint is never limited: MuJoCo 4.0.0 ignores limited="true" on it, given
            # or from a default class (measured), and keeps its range as written
            limited[j] = lim == "true" and t != 0
            # as MuJoCo does, an unlimited joint's range is kept as written (not converted)
            r = np.asarray(a["range"], float) * (scale if limited[j] else 1.0)
            if limited[j]:
                if t == 1 and r[0] != 0:
                    raise err(el, "ball joint range[0] must be 0 (only range[1] is used)", "range")
                # mujoco's test is range[0] >= range[1]: a NaN bound passes (measured)
                if r[0] >= r[1] and t != 1:
                    raise err(el, "range[0] should be smaller than range[1] in joint", "range")
            rng[j] = r
            fl = a["actuatorfrclimited"]
            fr = a["actuatorfrcrange"]
            if fl == "auto":
                fl = "true" if "actuatorfrcrange" in el.given and fr[0] < fr[1] else "false"
            actfrclimited[j] = fl == "true" and t in (2, 3)  # only hinge and slide joints
            actfrcrange[j] = fr
            if fl == "true" and fr[0] >= fr[1]:
                raise err(el, "actfrcrange[0] should be smaller than actfrcrange[1] in joint",
                          "actuatorfrcrange")
            if t == 0:
                bp, bq = self.body_pos[bid], self.body_quat[bid]
                qpos0 += list(bp) + list(bq)
                qpos_spring += list(bp) + list(bq)
            elif t == 1:
                qpos0 += [1.0, 0, 0, 0]
                qpos_spring += [1.0, 0, 0, 0]
            else:
                qpos0.append(a["ref"] * scale)
                qpos_spring.append(a["springref"] * scale)
            for _ in range(NV[t]):
                dof["bodyid"].append(bid)
                dof["jntid"].append(j)
                dof["armature"].append(a["armature"])
                dof["damping"].append(a["damping"][0])
                dof["dampingpoly"].append(a["damping"][1:3])
                dof["frictionloss"].append(a["frictionloss"])
                dof["solref"].append(a["solreffriction"])
                dof["solimp"].append(a["solimpfriction"])
            nq += NQ[t]
            nv += NV[t]
            names.append(el.name)
            user.append(a.get("user", ()))
            el._springdamper = a.get("springdamper", (0.0, 0.0))
        self.sz.update(nq=nq, nv=nv)
        v.update(jnt_type=jtype, jnt_bodyid=jbody, jnt_pos=jpos, jnt_axis=jaxis,
                 jnt_qposadr=qposadr, jnt_dofadr=dofadr, jnt_limited=limited,
                 jnt_actfrclimited=actfrclimited, jnt_range=rng, jnt_actfrcrange=actfrcrange,
                 jnt_group=[el.attrs.get("group", 0) for el in self.joints],
                 jnt_solref=[el.attrs.get("solreflimit", S.SOLREF_DEFAULT)
                             for el in self.joints],
                 jnt_solimp=[el.attrs.get("solimplimit", S.SOLIMP_DEFAULT) for el in self.joints],
                 jnt_stiffness=[el.attrs.get("stiffness", (0.0,))[0] for el in self.joints],
                 jnt_stiffnesspoly=[el.attrs.get("stiffness", (0.0, 0.0, 0.0))[1:3]
                                    for el in self.joints],
                 dof_dampingpoly=np.reshape(dof["dampingpoly"], (-1, 2)),
                 jnt_margin=[el.attrs.get("margin", 0.0) for el in self.joints],
                 jnt_actgravcomp=[el.attrs.get("actuatorgravcomp", False) for el in self.joints],
                 qpos0=qpos0, qpos_spring=qpos_spring,
                 dof_bodyid=dof["bodyid"], dof_jntid=dof["jntid"],
                 dof_armature=dof["armature"], dof_damping=dof["damping"],
                 dof_frictionloss=dof["frictionloss"],
                 dof_solref=dof["solref"], dof_solimp=dof["solimp"])
        self.names["joint"] = names
        self._user("jnt", user)
        self.jtype, self.jbody = jtype, jbody

    # ==== phase: geoms ==============================================================================
    def compile_geoms(self):
        ng = len(self.geoms)
        self.geom_mass = np.zeros(ng)
        self.geom_inertia = np.zeros((ng, 3))
        self.geom_pos = np.zeros((ng, 3))
        self.geom_quat = np.tile(IDENT, (ng, 1))
        self.geom_size = np.zeros((ng, 3))
        gtype = np.zeros(ng, int)
        dataid = np.full(ng, -1)
        rbound = np.zeros(ng)
        aabb = np.zeros((ng, 6))
        fluid = np.zeros((ng, 12))
        gplug = np.full(ng, -1)
        names, user = [], []
        for i, el in enumerate(self.geoms):
            a = el.attrs
            t = GEOM_TYPE[a["type"]]
            if t == GEOM_TYPE["sdf"]:
                # seed 002: an sdf geom is its mesh (made by its plugin, or a file's) for mass,
                # size and bounds; its plugin instance gives the distance the collisions use
                if not a.get("mesh"):
                    raise err(el, "sdf geom needs a 'mesh' attribute", "mesh")
                gplug[i] = plugins.instance_of(self, el, SDF_CAP)
            size = np.array(a["size"], float)
            p, q = self.local_pose(el)
            if a.get("fromto") is not None:
                if t not in (3, 5, 4, 6):
                    raise err(el, "fromto requires a capsule, cylinder, ellipsoid or box",
                              "fromto")
                fp, fq = frame_pose(el.frame, self.orient)
                c, zq, half = fromto_pose(a["fromto"])
                p, q = compose(fp, fq, c, zq)
                fused = getattr(el, "_fused", None)
                while fused is not None:
                    bp, bq, fused = fused
                    p, q = compose(bp, bq, p, q)
                size = np.resize(size, 3)
                if t in (3, 5):
                    size[1] = half
                else:
                    # a box / ellipsoid along fromto is square across it: MuJoCo 4.0.0 takes
                    # size[0] for both transverse half-sizes, whatever else size gives (measured)
                    size[1:] = size[0], half
            mesh = None
            if a.get("mesh"):
                if a["mesh"] not in self.mesh_id:
                    raise err(el, f"unknown mesh '{a['mesh']}'", "mesh")
                mid = self.mesh_id[a["mesh"]]
                mesh = self.mesh_data[mid]
                if t in (7, 8):
                    dataid[i] = mid
                    # half-extents of the box centred at the mesh frame's origin (the center of
                    # mass) that contains every vertex
                    size = np.abs(np.asarray(mesh.vert, float)).max(axis=0)
                    # the mesh's vertices live in its principal frame: move the geom to it
                    p, q = compose(p, q, np.asarray(mesh.pos, float), np.asarray(mesh.quat, float))
                else:
                    from .mesh import mesh_fit_size
                    fs, fp_, fq_ = mesh_fit_size(mesh, a["type"], self.c["fitaabb"],
                                                 a["fitscale"])
                    size = np.asarray(fs, float)
                    p, q = compose(p, q, np.asarray(mesh.pos, float), np.asarray(mesh.quat, float))
                    p, q = compose(p, q, np.asarray(fp_, float), np.asarray(fq_, float))
            elif t == 7:
                raise err(el, "mesh geom needs a 'mesh' attribute", "mesh")
            if t == 1:
                # seed 000 geom type hfield: the asset sets the size; the geom's own is ignored
                hname = a.get("hfield")
                if not hname:
                    raise err(el, "hfield geom needs an 'hfield' attribute", "hfield")
                if hname not in self.hfield_id:
                    raise err(el, f"unknown hfield '{hname}'", "hfield")
                dataid[i] = self.hfield_id[hname]
                hs = self.hfield_size[dataid[i]]
                # x, y radii and the half-height of the box MuJoCo's mass properties use
                size = np.array([hs[0], hs[1], 0.25 * hs[2] + 0.5 * hs[3]])
            self._check_geom_size(el, t, size)
            gtype[i] = t
            self.geom_pos[i], self.geom_quat[i], self.geom_size[i] = p, q, size
            rbound[i], aabb[i] = self._bound(t, size, mesh)
            if t == 1:
                hs = self.hfield_size[dataid[i]]
                # the elevation spans [0, size_z] above the geom frame and the base [-size_base, 0]
                rbound[i] = math.sqrt(hs[0] ** 2 + hs[1] ** 2 + max(hs[2], hs[3]) ** 2)
                aabb[i] = (0, 0, 0.5 * (hs[2] - hs[3]), hs[0], hs[1], 0.5 * (hs[2] + hs[3]))
            # mass and inertia (seed 000 geom: mass, density, shellinertia)
            if t != 0:
                if t in (7, 8):
                    vol, inert = mesh.volume, np.asarray(mesh.inertia, float)
                    if a.get("shellinertia"):
                        # MuJoCo 4.0.0 rejects it (measured), whatever the mesh's inertia mode
                        raise err(el, "for mesh geoms, inertia should be specified in the mesh "
                                  "asset", "shellinertia")
                else:
                    # an hfield's mass properties are those of the box of its geom_size
                    vol, inert = inertia_mod.primitive_volume_inertia(6 if t == 1 else t, size,
                                                                      a.get("shellinertia"))
                if a.get("mass") is not None and np.isnan(a["mass"]):
                    # NaN is mujoco's "undefined" (mjuu_defined): the density applies (measured)
                    a = {k: v for k, v in a.items() if k != "mass"}
                if a.get("mass") is not None:
                    if vol <= 0:
                        raise err(el, "geom volume must be positive to set its mass", "mass")
                    density = a["mass"] / vol
                else:
                    density = a["density"]
                if density < 0 or (a.get("mass") is not None and a["mass"] < 0):
                    raise err(el, "mass, inertia or density are negative in geom",
                              "mass" if a.get("mass") is not None else "density")
                self.geom_mass[i] = density * vol
                self.geom_inertia[i] = density * inert
                if t == 3 and not math.isfinite(self.geom_mass[i]):
                    # mujoco shares a capsule's mass between its cylinder and hemispheres as
                    # sphere part = mass * fraction, cylinder part = mass - sphere part: inf - inf
                    # for an infinite mass (or size, density), so its inertia is NaN and a moving
                    # body refused (measured on mujoco 4.0.0; boxes, cylinders, spheres and
                    # ellipsoids keep an infinite inertia and compile)
                    self.geom_inertia[i] = np.nan
            if a["fluidshape"] == "ellipsoid":
                fluid[i] = geom_fluid_coefficients(t, size, a["fluidcoef"], "ellipsoid")
            names.append(el.name)
            user.append(a.get("user", ()))
        g = self.geoms
        self.v.update(
            geom_type=gtype, geom_dataid=dataid, geom_size=self.geom_size, geom_pos=self.geom_pos,
            geom_quat=self.geom_quat, geom_rbound=rbound, geom_aabb=aabb, geom_fluid=fluid,
            geom_bodyid=[self.body_id[id(el.parent)] for el in g],
            geom_plugin=gplug,
            **self._columns("geom_", g, "contype conaffinity condim group priority solmix solref "
                                        "solimp friction margin gap rgba surfacevel adhesion"),
        )
        for el in g:
            if el.attrs["condim"] not in (1, 3, 4, 6):
                raise err(el, "condim must be 1, 3, 4 or 6", "condim")
        self.names["geom"] = names
        self._user("geom", user)
        self.gtype = gtype

    def _check_geom_size(self, el, t, size):
        need = {0: 3, 2: 1, 3: 2, 4: 3, 5: 2, 6: 3}.get(t, 0)
        if t == 0:
            # plane sizes 0 and 1 may be zero (infinite when rendered); the grid spacing may not
            # (mujoco 4.0.0 rejects a plane of size "1 1", measured by bench/fuzz_models.py)
            if np.isnan(size[:3]).any() and el.kind == "geom":
                raise err(el, "nan size in geom", "size")
            if len(size) > 2 and size[2] <= 0:
                raise err(el, "plane size(3) must be positive", "size")
            return
        for k in range(need):
            # before the sign test, as mujoco; a site's NaN size passes (measured)
            if np.isnan(size[k]) and el.kind == "geom":
                raise err(el, "nan size in geom", "size")
            if size[k] <= 0:
                raise err(el, f"size {k} must be positive in geom", "size")

    @staticmethod
    def _bound(t, size, mesh):
        """geom_rbound (bounding sphere radius) and geom_aabb (center, half-sizes), local frame."""
        if t == 0:
            # a plane bounds a half-space: its box is "infinite" whatever its (visual) size
            return 0.0, np.array([0, 0, -5e9, 1e10, 1e10, 5e9])
        if t == 2:
            r = size[0]
            return r, np.array([0, 0, 0, r, r, r])
        if t == 3:
            return size[0] + size[1], np.array([0, 0, 0, size[0], size[0], size[0] + size[1]])
        if t == 5:
            return math.hypot(size[0], size[1]), np.array([0, 0, 0, size[0], size[0], size[1]])
        if t == 4:
            return max(size), np.array([0, 0, 0, *size])
        if t == 6:
            return float(np.linalg.norm(size)), np.array([0, 0, 0, *size])
        if t in (7, 8):
            return float(mesh.rbound), np.asarray(mesh.aabb, float)
        return 0.0, np.zeros(6)

    # ==== phase: sites, cameras, lights =============================================================
    def compile_sites_cameras_lights(self):
        v = self.v
        ns = len(self.sites)
        spos, squat, ssize = np.zeros((ns, 3)), np.tile(IDENT, (ns, 1)), np.zeros((ns, 3))
        stype = np.zeros(ns, int)
        for i, el in enumerate(self.sites):
            a = el.attrs
            t = SITE_TYPE[a["type"]]
            size = np.array(a["size"], float)
            p, q = self.local_pose(el)
            if a.get("fromto") is not None:
                fp, fq = frame_pose(el.frame, self.orient)
                c, zq, half = fromto_pose(a["fromto"])
                p, q = compose(fp, fq, c, zq)
                if t in (3, 5):
                    size[1] = half
                elif t in (4, 6):
                    size[1:] = size[0], half  # square across fromto, as geoms (above)
            if t:   # mujoco checks a site's sizes as a geom's (its message says "in geom")
                self._check_geom_size(el, t, size)
            spos[i], squat[i], ssize[i], stype[i] = p, q, size, t
        v.update(site_type=stype, site_pos=spos, site_quat=squat, site_size=ssize,
                 site_bodyid=[self.body_id[id(el.parent)] for el in self.sites],
                 site_group=[el.attrs["group"] for el in self.sites],
                 site_rgba=[el.attrs["rgba"] for el in self.sites])
        self.site_pos, self.site_quat = spos, squat
        self.names["site"] = [el.name for el in self.sites]
        self._user("site", [el.attrs.get("user", ()) for el in self.sites])
        # cameras
        nc = len(self.cams)
        cpos, cquat = np.zeros((nc, 3)), np.tile(IDENT, (nc, 1))
        target = np.full(nc, -1)
        for i, el in enumerate(self.cams):
            cpos[i], cquat[i] = self.local_pose(el)
            target[i] = self._target(el)
        intrinsic, sensorsize, fovy = np.zeros((nc, 4)), np.zeros((nc, 2)), np.zeros(nc)
        for i, el in enumerate(self.cams):
            intrinsic[i], sensorsize[i], fovy[i] = self._cam_intrinsic(el)
        v.update(cam_pos=cpos, cam_quat=cquat, cam_targetbodyid=target,
                 cam_mode=[CAM_MODE[el.attrs["mode"]] for el in self.cams],
                 cam_bodyid=[self.body_id[id(el.parent)] for el in self.cams],
                 cam_projection=[S.CAMERA["projection"][0].index(el.attrs["projection"])
                                 for el in self.cams],
                 cam_intrinsic=intrinsic, cam_sensorsize=sensorsize, cam_fovy=fovy,
                 **self._columns("cam_", self.cams, "ipd resolution"))
        self.names["camera"] = [el.name for el in self.cams]
        self._user("cam", [el.attrs.get("user", ()) for el in self.cams])
        # lights
        nl = len(self.lights)
        lpos, ldir = np.zeros((nl, 3)), np.zeros((nl, 3))
        ltarget = np.full(nl, -1)
        for i, el in enumerate(self.lights):
            p, q = self.local_pose(el)
            lpos[i] = p
            d = np.asarray(el.attrs["dir"], float)
            d = d / max(np.linalg.norm(d), 1e-15)
            ldir[i] = quat2mat(frame_pose(el.frame, self.orient)[1]) @ d
            ltarget[i] = self._target(el)
        ltype = []
        for el in self.lights:
            t = el.attrs["type"]
            if el.attrs.get("directional"):
                t = "directional"
            ltype.append({"spot": 0, "directional": 1, "point": 2, "image": 3}[t])
        v.update(light_pos=lpos, light_dir=ldir, light_targetbodyid=ltarget, light_type=ltype,
                 light_mode=[CAM_MODE[el.attrs["mode"]] for el in self.lights],
                 light_bodyid=[self.body_id[id(el.parent)] for el in self.lights],
                 **self._columns("light_", self.lights, "castshadow active attenuation cutoff "
                                                        "exponent softness ambient diffuse specular"))
        self.names["light"] = [el.name for el in self.lights]

    def _target(self, el):
        t = el.attrs.get("target")
        if el.attrs["mode"] in ("targetbody", "targetbodycom"):
            if not t:
                raise err(el, f"mode {el.attrs['mode']} needs a target body", "target")
            b = next((i for i, b in enumerate(self.bodies) if b.name == t), None)
            if b is None:
                raise err(el, f"unknown target body '{t}'", "target")
            return b
        return -1

    # ==== phase: inertia ============================================================================
    def compile_inertia(self):
        """body_mass/ipos/iquat/inertia from <inertial> or from geoms (compiler inertiafromgeom,
        inertiagrouprange), then boundmass/boundinertia/balanceinertia/settotalmass."""
        nb = len(self.bodies)
        mass, ipos, iquat, inert = np.zeros(nb), np.zeros((nb, 3)), np.tile(IDENT, (nb, 1)), \
            np.zeros((nb, 3))
        for i, b in enumerate(self.bodies[1:], 1):
            parts = [self._own_inertia(b, np.zeros(3), IDENT)]
            for p, q, c in b.__dict__.get("_fused_bodies", ()):
                parts.append(self._own_inertia(c, p, q))
            parts = [x for x in parts if x is not None]
            heavy = [x for x in parts if x[0] > enums.mjMINVAL]
            if len(heavy) > 1:
                M, com, I = inertia_mod.combine(
                    np.array([x[0] for x in heavy]), np.array([x[1] for x in heavy]),
                    [quat2mat(x[2]) for x in heavy], np.array([x[3] for x in heavy]))
                mass[i], ipos[i] = M, com
                inert[i], iquat[i] = inertia_mod.principal(I)
            elif parts:
                x = heavy[0] if heavy else parts[0]
                mass[i], ipos[i], iquat[i], inert[i] = x
        # bounds and balance (seed 000 compiler)
        bm, bi = self.c["boundmass"], self.c["boundinertia"]
        for i in range(1, nb):
            if bm > 0:
                mass[i] = max(mass[i], bm)
            if bi > 0:
                inert[i] = np.maximum(inert[i], bi)
            if self.c["balanceinertia"]:
                a_, b_, c_ = inert[i]
                if a_ + b_ < c_ or a_ + c_ < b_ or b_ + c_ < a_:
                    inert[i] = (a_ + b_ + c_) / 3
        tm = self.c["settotalmass"]
        if tm > 0:
            total = mass[1:].sum()
            if total > 0:
                s = tm / total
                mass *= s
                inert *= s
        for i, b in enumerate(self.bodies[1:], 1):
            if mass[i] < enums.mjMINVAL and not inert[i].any() and b.inertial is None:
                # a massless body: MuJoCo puts its inertial frame at the body frame's local pose
                ipos[i], iquat[i] = self.body_pos[i], self.body_quat[i]
        self.mass, self.ipos, self.iquat, self.inert = mass, ipos, iquat, inert
        for i, b in enumerate(self.bodies[1:], 1):
            # a NaN mass or inertia fails too (a NaN density, <inertial mass>, diaginertia, a NaN
            # pos or fromto among several geoms), as does a URDF inertial turned by a NaN
            # rotation; an infinite mass passes (measured). (mujoco's eigen solver lets some
            # NaN off-diagonals of a full tensor through, which the engine refuses.)
            bad = (np.isnan(mass[i]) or np.isnan(inert[i]).any()
                   or getattr(b.inertial, "nan_turn", False))
            if b.joints and (mass[i] < enums.mjMINVAL or inert[i].min() < enums.mjMINVAL or bad):
                if not self._has_mass_below(b):
                    raise err(b, "mass and inertia of moving bodies must be larger than mjMINVAL")
        self.v.update(body_mass=mass, body_ipos=ipos, body_iquat=iquat, body_inertia=inert)

    def _own_inertia(self, b, pos, quat):
        """(mass, ipos, iquat, principal inertia) of spec body ``b`` from its <inertial> or its own
        geoms (compiler inertiafromgeom / inertiagrouprange), in the frame of the body that holds
        it: (pos, quat) is b's pose there (identity unless b was fused away). None if it has
        neither."""
        ifg = self.c["inertiafromgeom"]
        if b.inertial is not None and ifg != "true":
            el = b.inertial
            a = el.attrs
            p, q = self.local_pose(el)
            if a.get("fullinertia") is not None:
                if any(a.get(k) is not None for k in S.ORIENT) or a.get("diaginertia"):
                    raise err(el, "fullinertia cannot be combined with an orientation or "
                              "diaginertia", "fullinertia")
                msg = inertia_mod.full_inertia_error(a["fullinertia"], True)
                if msg:     # (the A + B >= C check follows, with balanceinertia)
                    raise err(el, msg, "fullinertia")
                d, qq = inertia_mod.full_to_principal(a["fullinertia"])
                q = quat_mul(q, qq)
            elif a.get("diaginertia") is not None:
                d = np.asarray(a["diaginertia"], float)
            else:
                raise err(el, "<inertial> needs diaginertia or fullinertia", "diaginertia")
            self._check_inertia(el, a["mass"], d)
            p, q = compose(pos, quat, p, q)
            return a["mass"], p, q, d
        if ifg == "false":
            return None
        glo, ghi = self.c["inertiagrouprange"]
        if not hasattr(self, "_geoms_of"):
            # geom indices per original (pre-fusion) body, built once
            self._geoms_of = {}
            for k, g in enumerate(self.geoms):
                self._geoms_of.setdefault(id(g.__dict__.get("_origin_body", g.parent)), []).append(k)
        idx = [k for k in self._geoms_of.get(id(b), ())
               if glo <= self.geoms[k].attrs["group"] <= ghi and self.gtype[k] != 0]
        if not idx:
            return None
        # geom poses are already in the holder's frame (fusion composed the fused body's pose)
        gpos, gquat = self.geom_pos[idx], self.geom_quat[idx]
        ms = self.geom_mass[idx]
        heavy = [j for j, k in enumerate(idx) if self.geom_mass[k] > enums.mjMINVAL]
        if len(heavy) == 1:
            # one geom carries all the mass: its own frame is principal (unsorted)
            j = heavy[0]
            return ms[j], gpos[j], gquat[j], self.geom_inertia[idx[j]]
        # massless geoms add nothing (exactly 0, so leaving them out changes no bit) and are
        # left out: one with a NaN pose does not make the body NaN, as in mujoco (measured)
        keep = [j for j in range(len(idx)) if ms[j] != 0] or list(range(len(idx)))
        M, com, I = inertia_mod.combine(ms[keep], gpos[keep], [quat2mat(gquat[j]) for j in keep],
                                        self.geom_inertia[[idx[j] for j in keep]])
        if M <= 0:
            return 0.0, com, IDENT.copy(), np.zeros(3)
        d, q = inertia_mod.principal(I)
        return M, com, q, d

    def _has_mass_below(self, b):
        """A moving body may be massless if a descendant welded to it (no joint between them)
        carries mass; mass beyond a joint does not count (mujoco 4.0.0, measured)."""
        for c in b.bodies:
            if c.joints:
                continue
            i = self.body_id[id(c)]
            if self.mass[i] > enums.mjMINVAL or self._has_mass_below(c):
                return True
        return False

    def _check_inertia(self, el, m, d):
        if m < 0:
            raise err(el, "mass must be nonnegative", "mass")
        if np.any(np.asarray(d) < 0):
            raise err(el, "inertia must be nonnegative", "diaginertia")
        if not inertia_mod.triangle_ok(d):
            if not self.c["balanceinertia"]:
                raise err(el, "invalid inertia: the principal moments must satisfy the triangle "
                          "inequality (A + B >= C)", "diaginertia")

    # ==== phase: tree indices =======================================================================
    def compile_tree_indices(self):
        nb = len(self.bodies)
        par = self.parent
        jntnum, jntadr = np.zeros(nb, int), np.full(nb, -1)
        dofnum, dofadr = np.zeros(nb, int), np.full(nb, -1)
        geomnum, geomadr = np.zeros(nb, int), np.full(nb, -1)
        for j, b in enumerate(self.jbody):
            if jntadr[b] < 0:
                jntadr[b] = j
            jntnum[b] += 1
        dof_body = np.asarray(self.v["dof_bodyid"], int)
        for k, b in enumerate(dof_body):
            if dofadr[b] < 0:
                dofadr[b] = k
            dofnum[b] += 1
        for g, el in enumerate(self.geoms):
            b = self.body_id[id(el.parent)]
            if geomadr[b] < 0:
                geomadr[b] = g
            geomnum[b] += 1
        rootid = np.zeros(nb, int)
        weldid = np.zeros(nb, int)
        for i in range(1, nb):
            rootid[i] = i if par[i] == 0 else rootid[par[i]]
            weldid[i] = i if (jntnum[i] > 0 or self.v['body_mocapid'][i] >= 0) else weldid[par[i]]
        # dof_parentid: previous dof of the same body, else the last dof of the nearest ancestor
        nv = len(dof_body)
        dof_parent = np.full(nv, -1)
        last = np.full(nb, -1)     # last dof at or above each body
        for i in range(1, nb):
            last[i] = last[par[i]]
            for k in range(dofadr[i], dofadr[i] + dofnum[i]) if dofnum[i] else ():
                dof_parent[k] = last[i]
                last[i] = k
        # trees: a body with dofs whose parent is static starts a kinematic tree; bodies below
        # it belong to that tree; static bodies above any dof have no tree (-1).
        treeid = np.full(nb, -1)
        trees = []
        for i in range(1, nb):
            if treeid[par[i]] >= 0:
                treeid[i] = treeid[par[i]]
            elif dofnum[i] > 0:
                treeid[i] = len(trees)
                trees.append(i)
        dof_treeid = treeid[dof_body] if nv else np.zeros(0, int)
        tree_bodyadr, tree_bodynum, tree_dofadr, tree_dofnum = [], [], [], []
        for t, r in enumerate(trees):
            members = [i for i in range(nb) if treeid[i] == t]
            tree_bodyadr.append(members[0])
            tree_bodynum.append(len(members))
            dofs = np.flatnonzero(dof_treeid == t)
            tree_dofadr.append(int(dofs[0]))
            tree_dofnum.append(len(dofs))
        # sameframe and simple bodies
        bsame = np.zeros(nb, int)
        bsimple = np.zeros(nb, int)
        bsame[0], bsimple[0] = 1, 1
        for i in range(1, nb):
            if _same(self.ipos[i], 0) and _is_ident(self.iquat[i]):
                bsame[i] = 1
            elif _is_ident(self.iquat[i]):
                bsame[i] = 3
        has_child = np.zeros(nb, bool)
        for i in range(1, nb):
            has_child[par[i]] = True
        jt = self.jtype
        for i in range(1, nb):
            # simple: a leaf whose inertial frame is its body frame, hanging from a static parent
            if bsame[i] != 1 or has_child[i] or weldid[par[i]] != 0:
                continue
            jids = range(jntadr[i], jntadr[i] + jntnum[i]) if jntnum[i] else []
            if not all(_decoupled_joint(jt[j], self.v["jnt_pos"][j], self.v["jnt_axis"][j],
                                        any(jt[k] in (_JNT_BALL, _JNT_HINGE)
                                            for k in range(jntadr[i], j)))
                       for j in jids):
                continue
            types = [jt[j] for j in jids]
            bsimple[i] = 2 if types and all(t == 2 for t in types) else 1
        # a tendon with armature adds J^T armature J to qM, coupling the dofs of the bodies it
        # passes through (its sites', joints' and wrapping geoms' bodies): MuJoCo 4.0.0 marks
        # those bodies not simple (the world body too; measured), so qM keeps their couplings
        for el in self.spec.tendons:
            if el.attrs.get("armature", 0.0) > 0:
                for p in el.path:
                    if p.tag in ("site", "joint", "geom"):
                        k = self._id(p.tag, p.attrs[p.tag], p, p.tag)
                        bsimple[{"site": lambda: self.v["site_bodyid"][k],
                                 "joint": lambda: self.v["jnt_bodyid"][k],
                                 "geom": lambda: self.v["geom_bodyid"][k]}[p.tag]()] = 0
        simplenum = np.zeros(nv, int)
        run = 0
        for k in range(nv - 1, -1, -1):
            run = run + 1 if bsimple[dof_body[k]] else 0
            simplenum[k] = run
        gsame = np.array([sameframe(self.geom_pos[g], self.geom_quat[g],
                                    self.ipos[self.body_id[id(el.parent)]],
                                    self.iquat[self.body_id[id(el.parent)]])
                          for g, el in enumerate(self.geoms)], int)
        ssame = np.array([sameframe(self.site_pos[s], self.site_quat[s],
                                    self.ipos[self.body_id[id(el.parent)]],
                                    self.iquat[self.body_id[id(el.parent)]])
                          for s, el in enumerate(self.sites)], int)
        # subtree mass
        sub = self.mass.copy()
        for i in range(nb - 1, 0, -1):
            sub[par[i]] += sub[i]
        # contact summaries per body
        bcontype, bconaff, bmargin = np.zeros(nb, int), np.zeros(nb, int), np.zeros(nb)
        for g, el in enumerate(self.geoms):
            b = self.body_id[id(el.parent)]
            bcontype[b] |= el.attrs["contype"]
            bconaff[b] |= el.attrs["conaffinity"]
            # margin + gap: the distance within which the body's geoms make contacts at all
            bmargin[b] = max(bmargin[b], el.attrs["margin"] + el.attrs["gap"])
        self.v.update(body_rootid=rootid, body_weldid=weldid, body_jntnum=jntnum,
                      body_jntadr=jntadr, body_dofnum=dofnum, body_dofadr=dofadr,
                      body_geomnum=geomnum, body_geomadr=geomadr, body_treeid=treeid,
                      body_sameframe=bsame, body_simple=bsimple, body_subtreemass=sub,
                      body_contype=bcontype, body_conaffinity=bconaff, body_margin=bmargin,
                      dof_parentid=dof_parent, dof_treeid=dof_treeid, dof_simplenum=simplenum,
                      geom_sameframe=gsame, site_sameframe=ssame,
                      tree_bodyadr=tree_bodyadr, tree_bodynum=tree_bodynum,
                      tree_dofadr=tree_dofadr, tree_dofnum=tree_dofnum)
        self.sz["ntree"] = len(trees)
        self.dof_parent, self.simplenum = dof_parent, simplenum

    # ==== phase: sleep policy =====================================================================
    def compile_sleep_policy(self):
        """tree_sleep_policy (seed 001 "Sleeping islands"; seed 000 body/@sleep).

        The user's body/@sleep (never, allowed, init) applies to the root body of a movable
        tree; on any other body it is an error. A tree left at auto gets the compiler's choice,
        as MuJoCo 4.0.0 makes it: never (mjSLEEP_AUTO_NEVER) when an actuator acts on it
        (joint, site, slider-crank or body transmission, or a tendon through it), when a tendon
        with stiffness or damping couples it to another tree or any tendon spans more than two
        trees; else allowed (mjSLEEP_AUTO_ALLOWED). A user-allowed (or init) tree on such a
        tendon is an error."""
        v = self.v
        treeid = np.asarray(v["body_treeid"])
        par = self.parent
        codes = {"never": int(mjtSleepPolicy.mjSLEEP_NEVER),
                 "allowed": int(mjtSleepPolicy.mjSLEEP_ALLOWED),
                 "init": int(mjtSleepPolicy.mjSLEEP_INIT)}
        auto = int(mjtSleepPolicy.mjSLEEP_AUTO)
        auto_never = int(mjtSleepPolicy.mjSLEEP_AUTO_NEVER)
        policy = np.full(self.sz["ntree"], auto, int)
        for b, el in enumerate(self.bodies[1:], 1):
            want = el.attrs.get("sleep", "auto")
            if want == "auto":
                continue
            if treeid[b] < 0 or treeid[par[b]] >= 0:
                raise err(el, "sleep policy only allowed for movable root bodies", "sleep")
            policy[treeid[b]] = codes[want]
        ten_trees = getattr(self, "tendon_trees", [])
        jbody, sbody = v["jnt_bodyid"], v["site_bodyid"]
        for a in range(self.sz.get("nu", 0)):
            tt, tid = int(v["actuator_trntype"][a]), int(v["actuator_trnid"][a][0])
            if tt == 3:        # tendon: every tree it passes through
                trees = ten_trees[tid]
            elif tt in (0, 1):
                trees = [int(treeid[jbody[tid]])]
            elif tt in (2, 4):
                trees = [int(treeid[sbody[tid]])]
            elif tt == 5:
                trees = [int(treeid[tid])]
            else:
                trees = []
            for t in trees:
                if t >= 0 and policy[t] == auto:
                    policy[t] = auto_never
        for i, trees in enumerate(ten_trees):
            n = len(trees)
            stiff = v["tendon_stiffness"][i] != 0 or v["tendon_damping"][i] != 0
            if n < 2 or (n == 2 and not stiff):
                continue
            for t in trees:
                if policy[t] == auto:
                    policy[t] = auto_never
                elif policy[t] in (codes["allowed"], codes["init"]):
                    why = ("which spans more than 2 trees" if n > 2
                           else "with non-zero stiffness or damping")
                    raise CompileError(f"tree {t} connected to tendon {i} {why}, sleeping not "
                                       "allowed", self.spec.file, None, "tendon", None)
        for t in flex_mod.elastic_trees(self):     # trees an elastic flex couples
            if policy[t] == auto:
                policy[t] = auto_never
        policy[policy == auto] = int(mjtSleepPolicy.mjSLEEP_AUTO_ALLOWED)
        v["tree_sleep_policy"] = policy

    # ==== phase: mass matrix sparsity ================================================================
    def compile_mass_sparsity(self):
        """qM's ancestor-chain layout (dof_Madr), the CSR lower triangle M_* (rows of "simple"
        dofs hold only their diagonal), the full symmetric pattern D_* and the maps between them."""
        nv = self.sz["nv"]
        par = self.dof_parent
        chains = []
        for i in range(nv):
            c, j = [], i
            while j >= 0:
                c.append(j)
                j = par[j]
            chains.append(c)        # i, parent, grandparent, ...
        madr = np.zeros(nv, int)
        n = 0
        for i in range(nv):
            madr[i] = n
            n += len(chains[i])
        nM = n
        rownnz, rowadr, colind, m2m = [], [], [], []
        for i in range(nv):
            cols = [i] if self.simplenum[i] else sorted(chains[i])
            rowadr.append(len(colind))
            rownnz.append(len(cols))
            colind += cols
            if len(cols) == 1:
                m2m.append(madr[i] + chains[i].index(cols[0]))
            else:   # the whole chain: a position map, not a search per column (1000-deep chains)
                at = {c: k for k, c in enumerate(chains[i])}
                m2m += [madr[i] + at[c] for c in cols]
        nC = len(colind)
        # D: ancestors, self and descendants of each dof
        desc = [[] for _ in range(nv)]
        for i in range(nv):
            for a in chains[i][1:]:
                desc[a].append(i)
        drownnz, drowadr, dcolind, ddiag = [], [], [], []
        for i in range(nv):
            cols = sorted(set(chains[i]) | set(desc[i]))
            drowadr.append(len(dcolind))
            drownnz.append(len(cols))
            ddiag.append(cols.index(i))
            dcolind += cols
        nD = len(dcolind)
        csr = {}
        for i in range(nv):
            for k in range(rowadr[i], rowadr[i] + rownnz[i]):
                csr[(i, colind[k])] = k
        m2d = []
        for i in range(nv):
            for k in range(drowadr[i], drowadr[i] + drownnz[i]):
                j = dcolind[k]
                m2d.append(csr.get((i, j), csr.get((j, i), -1)))
        dpos = {}
        for i in range(nv):
            for k in range(drowadr[i], drowadr[i] + drownnz[i]):
                dpos[(i, dcolind[k])] = k
        d2m = [dpos[(i, colind[k])] for i in range(nv)
               for k in range(rowadr[i], rowadr[i] + rownnz[i])]
        self.sz.update(nM=nM, nC=nC, nD=nD)
        self.v.update(dof_Madr=madr, M_rownnz=rownnz, M_rowadr=rowadr, M_colind=colind,
                      mapM2M=m2m, D_rownnz=drownnz, D_rowadr=drowadr, D_colind=dcolind,
                      D_diag=ddiag, mapM2D=m2d, mapD2M=d2m)

    # ==== name lookups ================================================================================
    def _id(self, kind, name, el, attr):
        table = {"body": self.names["body"], "joint": self.names["joint"],
                 "geom": self.names["geom"], "site": self.names["site"],
                 "camera": self.names["camera"], "tendon": self.names.get("tendon", []),
                 "actuator": self.names.get("actuator", []), "mesh": self.names["mesh"]}[kind]
        try:
            return table.index(name)
        except ValueError:
            raise err(el, f"unknown {kind} '{name}'", attr) from None

    # ==== phase: equality constraints ===============================================================
    def compile_equalities(self):
        eqs = self.spec.equalities
        n = len(eqs)
        etype, o1, o2, otype = np.zeros(n, int), np.full(n, -1), np.full(n, -1), np.zeros(n, int)
        data = np.zeros((n, 12))
        for i, el in enumerate(eqs):
            a = el.attrs
            t = el.tag
            if t == "connect":
                etype[i] = 0
                if a.get("site1"):
                    otype[i] = int(mjtObj.mjOBJ_SITE)
                    o1[i] = self._id("site", a["site1"], el, "site1")
                    o2[i] = self._id("site", a["site2"], el, "site2") if a.get("site2") else -1
                    if not a.get("site2"):
                        raise err(el, "connect with site1 needs site2", "site2")
                else:
                    otype[i] = int(mjtObj.mjOBJ_BODY)
                    if not a.get("body1"):
                        raise err(el, "connect needs body1 (or site1/site2)", "body1")
                    if a.get("anchor") is None:
                        raise err(el, "connect with bodies needs 'anchor'", "anchor")
                    o1[i] = self._id("body", a["body1"], el, "body1")
                    o2[i] = self._id("body", a["body2"], el, "body2") if a.get("body2") else 0
                    data[i, :3] = a["anchor"]
                    data[i, 10] = 1.0  # data[3:6], the anchor in body2's frame: setconst
            elif t == "weld":
                etype[i] = 1
                if a.get("site1"):
                    otype[i] = int(mjtObj.mjOBJ_SITE)
                    o1[i] = self._id("site", a["site1"], el, "site1")
                    if not a.get("site2"):
                        raise err(el, "weld with site1 needs site2", "site2")
                    o2[i] = self._id("site", a["site2"], el, "site2")
                else:
                    otype[i] = int(mjtObj.mjOBJ_BODY)
                    if not a.get("body1"):
                        raise err(el, "weld needs body1 (or site1/site2)", "body1")
                    o1[i] = self._id("body", a["body1"], el, "body1")
                    o2[i] = self._id("body", a["body2"], el, "body2") if a.get("body2") else 0
                if otype[i] == int(mjtObj.mjOBJ_SITE):
                    data[i, :7] = S.EQUALITY["weld"]["relpose"][2]  # as mujoco stores it
                else:
                    data[i, :3] = a["anchor"]
                    data[i, 3:10] = a["relpose"]
                    # no relpose given, or a zero quaternion: the relative pose at qpos0 (filled
                    # by setconst); else the quaternion normalized (both as MuJoCo 4.0.0, measured)
                    qn = float(np.linalg.norm(data[i, 6:10]))
                    if "relpose" in el.given and qn > 1e-15:  # mjMINVAL
                        data[i, 6:10] /= qn
                        data[i, 11] = 0.0
                    else:
                        data[i, 11] = 1.0
                data[i, 10] = a["torquescale"]
            elif t in ("joint", "tendon"):
                etype[i] = 2 if t == "joint" else 3
                otype[i] = 0  # mujoco leaves eq_objtype unset for joint/tendon equalities
                k1, k2 = (t + "1", t + "2")
                if not a.get(k1):
                    raise err(el, f"equality {t} needs {k1}", k1)
                o1[i] = self._id(t, a[k1], el, k1)
                o2[i] = self._id(t, a[k2], el, k2) if a.get(k2) else -1
                data[i, :5] = a["polycoef"]
                data[i, 10] = 1.0  # as mujoco stores joint/tendon equalities
            elif t in ("flex", "flexvert", "flexstrain"):
                etype[i], otype[i], o1[i] = flex_mod.equality(self, el)
                data[i, :5] = (0.0, 1.0, 0.0, 0.0, 0.0)  # as mujoco stores it (measured)
                data[i, 10] = 1.0
            else:
                raise NotImplementedError(f"{el.file}:{el.line}: equality <{t}> is not supported "
                                          "yet")
            if o1[i] == o2[i]:
                # the same object twice, e.g. body1="world" with body2 left to its default:
                # MuJoCo 4.0.0 rejects it with this message (measured)
                kind = t if t in ("joint", "tendon") else (
                    "site" if otype[i] == int(mjtObj.mjOBJ_SITE) else "body")
                raise err(el, f"element '{self.names[kind][o1[i]]}' is repeated in equality "
                          f"constraint {i}")
        self.sz["neq"] = n
        self.v.update(eq_type=etype, eq_obj1id=o1, eq_obj2id=o2, eq_objtype=otype, eq_data=data,
                      eq_active0=[el.attrs["active"] for el in eqs],
                      **self._columns("eq_", eqs, "solref solimp"))
        self.names["equality"] = [el.name for el in eqs]

    # ==== phase: actuators ==========================================================================
    def compile_actuators(self):
        from .actuators import compile_actuators
        compile_actuators(self)

    # ==== phase: sensors ============================================================================
    def compile_sensors(self):
        from .sensors import compile_sensors
        compile_sensors(self)

    # ==== phase: contact pairs and excludes ==========================================================
    def compile_pairs_excludes(self):
        pairs = self.spec.pairs
        v = self.v
        g1 = [self._id("geom", el.attrs["geom1"], el, "geom1") for el in pairs]
        g2 = [self._id("geom", el.attrs["geom2"], el, "geom2") for el in pairs]
        gb = np.asarray(v["geom_bodyid"], int)
        # as mujoco 4: each pair names the geom of the lower body first, and pairs are kept
        # sorted by body signature (stable: file order among equal signatures)
        for k in range(len(pairs)):
            if (gb[g1[k]], g1[k]) > (gb[g2[k]], g2[k]):
                g1[k], g2[k] = g2[k], g1[k]
        sig = [(int(gb[a]) << 16) + int(gb[b]) for a, b in zip(g1, g2)]
        order = sorted(range(len(pairs)), key=lambda k: sig[k])
        pairs = self.spec.pairs = [pairs[k] for k in order]
        g1, g2, sig = [g1[k] for k in order], [g2[k] for k in order], [sig[k] for k in order]
        self.sz["npair"] = len(pairs)
        v.update(pair_geom1=g1, pair_geom2=g2, pair_signature=sig,
                 pair_dim=[el.attrs["condim"] for el in pairs],
                 **self._columns("pair_", pairs, "solref solreffriction solimp margin gap "
                                                 "friction adhesion"))
        self.names["pair"] = [el.name for el in pairs]
        ex = self.spec.excludes
        b1 = [self._id("body", el.attrs["body1"], el, "body1") for el in ex]
        b2 = [self._id("body", el.attrs["body2"], el, "body2") for el in ex]
        self.sz["nexclude"] = len(ex)
        # as MuJoCo, keep excludes sorted by signature (collision filtering bisects them)
        order = sorted(range(len(ex)), key=lambda k: ((min(b1[k], b2[k]) << 16)
                                                      + max(b1[k], b2[k])))
        v["exclude_signature"] = [(min(b1[k], b2[k]) << 16) + max(b1[k], b2[k]) for k in order]
        self.spec.excludes = [ex[k] for k in order]
        self.names["exclude"] = [el.name for el in ex]

    # ==== phase: custom =============================================================================
    def compile_custom(self):
        sp, v = self.spec, self.v
        adr, size, data = [], [], []
        for el in sp.numerics:
            d = list(el.attrs.get("data") or ())
            n = el.attrs.get("size")
            if n is None:
                n = len(d)
            if len(d) > n:
                raise err(el, "numeric data longer than size", "data")
            adr.append(len(data))
            size.append(n)
            data += d + [0.0] * (n - len(d))
        self.sz.update(nnumeric=len(adr), nnumericdata=len(data))
        v.update(numeric_adr=adr, numeric_size=size, numeric_data=data)
        self.names["numeric"] = [el.name for el in sp.numerics]
        tadr, tsize, ttype, tid, tprm = [], [], [], [], []
        for el in sp.tuples:
            tadr.append(len(ttype))
            tsize.append(len(el.elements))
            for e in el.elements:
                kind = e.attrs["objtype"]
                ttype.append(int(getattr(mjtObj, "mjOBJ_" + kind.upper())))
                tid.append(self._id(kind if kind != "jnt" else "joint", e.attrs["objname"], e,
                                    "objname"))
                tprm.append(e.attrs["prm"])
        self.sz.update(ntuple=len(tadr), ntupledata=len(ttype))
        v.update(tuple_adr=tadr, tuple_size=tsize, tuple_objtype=ttype, tuple_objid=tid,
                 tuple_objprm=tprm)
        self.names["tuple"] = [el.name for el in sp.tuples]
        self.sz.update(ntext=len(sp.texts),
                       ntextdata=sum(len(el.attrs.get("data") or "") + 1 for el in sp.texts))
        self.names["text"] = [el.name for el in sp.texts]

    # ==== phase: options ============================================================================
    def compile_options(self):
        o = {k: x[2] for k, x in S.OPTION.items()}
        o.update(self.spec.option)
        v = self.v
        for k in ("timestep", "impratio", "tolerance", "ls_tolerance", "noslip_tolerance",
                  "ccd_tolerance", "sleep_tolerance", "density", "viscosity", "o_margin",
                  "iterations", "ls_iterations", "noslip_iterations", "ccd_iterations",
                  "sdf_initpoints", "sdf_iterations"):
            v["opt_" + k] = o[k]
        for k in ("gravity", "wind", "magnetic", "o_solref", "o_solimp", "o_friction"):
            v["opt_" + k] = o[k]
        # mujoco 4.0.0 compiles any timestep, 0, negative, inf or NaN (measured); the step then
        # warns or goes nowhere as mujoco's does
        v["opt_integrator"] = {"Euler": 0, "RK4": 1, "implicit": 2, "implicitfast": 3}[
            o["integrator"]]
        v["opt_cone"] = {"pyramidal": 0, "elliptic": 1}[o["cone"]]
        v["opt_jacobian"] = {"dense": 0, "sparse": 1, "auto": 2}[o["jacobian"]]
        v["opt_solver"] = {"PGS": 0, "CG": 1, "Newton": 2}[o["solver"]]
        dis = en = 0
        flags = dict(self.spec.flags)
        if "passive" in flags:
            # legacy flag: spring and damper together
            val = flags.pop("passive")
            flags.setdefault("spring", val)
            flags.setdefault("damper", val)
        for i, name in enumerate(S.DISABLE_FLAGS):
            if flags.get(name, "enable") == "disable":
                dis |= 1 << i
        for i, name in enumerate(S.ENABLE_FLAGS):
            if flags.get(name, "disable") == "enable":
                en |= 1 << i
        v["opt_disableflags"], v["opt_enableflags"] = dis, en
        groups = o.get("actuatorgroupdisable") or ()
        da = 0
        for g in groups:
            if not 0 <= g <= 30:
                raise CompileError("actuatorgroupdisable entries must be in [0, 30]",
                                   self.spec.file, None, "option", "actuatorgroupdisable")
            da |= 1 << g
        v["opt_disableactuator"] = da
        size = self.spec.size
        self.sz["nuserdata"] = size.get("nuserdata", 0)
        self.sz["nkey"] = max(size.get("nkey", 0), len(self.spec.keys))
        self.sz["nconmax"] = size.get("nconmax", -1)
        self.sz["njmax"] = size.get("njmax", -1)
        self.memory = _memory_bytes(size.get("memory", "-1"), self.spec.file)

_MEMORY_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50,
                 "E": 1 << 60}


def _memory_bytes(text, file):
    """<size memory>: bytes for the dynamic arrays (contacts, constraint rows); -1 = guess."""
    t = str(text).strip().upper()
    unit = t[-1] if t and t[-1] in _MEMORY_UNITS and t[-1] != "" else ""
    num = t[:-1] if unit else t
    try:
        value = int(num)
    except ValueError:
        raise CompileError(f"invalid memory size '{text}': expected an integer with an optional "
                           "K/M/G/T/P/E suffix", file, None, "size", "memory") from None
    if value == -1:
        return -1
    if value < 0:
        raise CompileError(f"memory size must be -1 or positive, got '{text}'", file, None,
                           "size", "memory")
    return value * _MEMORY_UNITS[unit]
