"""Small public names of mujoco 4.0.0's bindings outside the pipeline (seed 001 "API reference":
data structures, virtual file system, logging, asset cache, support): the std::vector classes the
spec bindings export, MjPreContact, MjLogConfig / MjLogMessage, MjVfs, MjStruct, the asset cache
functions mj_getCache ... mj_clearCache, mj_maxContact, mj_resetDataDebug, mju_raySkin and
mju_getXMLDependencies.
"""
from __future__ import annotations

import os
import typing

import numpy as np

from . import mjspec as _mjspec
from .enums import mjtDisableBit, mjtGeom
from .structs import struct_class
from .timer import MjTimerStat  # noqa: F401  (d.timer's records)


# ---- std::vector bindings (MjByteVec ... MjStringVec) -----------------------------------------
class _Vec:
    """A fixed-length vector of one element type: ``Vec(value, count)`` holds ``count`` copies
    of ``value``; indices 0 .. count-1 read and write (negative or larger ones raise
    IndexError("Index out of range."), as mujoco's); iteration and len() as a list's."""

    __slots__ = ("_items",)
    _CAST = staticmethod(lambda v: v)

    def __init__(self, value, count):
        count = int(count)
        if count < 0:
            raise ValueError(f"{type(self).__name__}: count must be >= 0")
        self._items = [self._CAST(value)] * count

    def _check(self, i):
        i = int(i)
        if not 0 <= i < len(self._items):
            raise IndexError("Index out of range.")
        return i

    def __len__(self):
        return len(self._items)

    def __getitem__(self, i):
        return self._items[self._check(i)]

    def __setitem__(self, i, value):
        self._items[self._check(i)] = self._CAST(value)

    def __iter__(self):
        return iter(list(self._items))


def _vec(name, cast, what):
    return type(name, (_Vec,), {"__slots__": (), "_CAST": staticmethod(cast),
                                "__doc__": f"A vector of {what} (mujoco's {name}): "
                                           f"``{name}(value, count)``."})


def _byte(v):
    if isinstance(v, (bytes, bytearray)):
        if len(v) != 1:
            raise TypeError("MjByteVec: a byte is one bytes character or an int 0-255")
        return bytes(v)
    return bytes([int(v)])


def _char(v):
    v = str(v)
    if len(v) != 1:
        raise TypeError("MjCharVec: a char is a one-character string")
    return v


MjByteVec = _vec("MjByteVec", _byte, "bytes")
MjCharVec = _vec("MjCharVec", _char, "characters")
MjDoubleVec = _vec("MjDoubleVec", float, "doubles")
MjFloatVec = _vec("MjFloatVec", lambda v: float(np.float32(v)), "floats (float32)")
MjIntVec = _vec("MjIntVec", lambda v: int(np.int32(v)), "ints (int32)")
MjStringVec = _vec("MjStringVec", str, "strings")


# ---- MjPreContact -----------------------------------------------------------------------------
MjPreContact = struct_class("MjPreContact", [
    ("dist", np.float64, (), 0.0, "distance between the surfaces (negative: penetration; m)"),
    ("pos", np.float64, (3,), 0.0, "contact position, world frame (m)"),
    ("normal", np.float64, (3,), 0.0, "contact normal, world frame (unit)"),
    ("tangent", np.float64, (3,), 0.0, "first tangent direction, world frame (unit)"),
], "A contact before it is added to d.contact (MuJoCo's mjPreContact: what a collision "
   "function returns).")


# ---- logging ----------------------------------------------------------------------------------
class MjLogConfig:
    """Where MuJoCo's log goes (mjLogConfig): ``logfile`` (path), ``logto_file``,
    ``logto_console`` (bools), ``topics`` (bit mask of mjtLogTopic). ``MjLogConfig()`` is empty
    (no file, nothing on); ``MjLogConfig.get()`` is a copy of the configuration in force (a
    fresh process: MUJOCO_LOG.TXT, file and console on, no topics); ``cfg.set()`` puts ``cfg``
    in force (mju_writeLog writes to its file when logto_file)."""

    __slots__ = ("logfile", "logto_console", "logto_file", "topics")

    def __init__(self):
        self.logfile, self.logto_console, self.logto_file, self.topics = "", False, False, 0

    @staticmethod
    def get():
        out = MjLogConfig()
        for k in MjLogConfig.__slots__:
            setattr(out, k, getattr(_LOG, k))
        return out

    def set(self):
        for k in MjLogConfig.__slots__:
            setattr(_LOG, k, getattr(self, k))


_LOG = MjLogConfig()
_LOG.logfile, _LOG.logto_console, _LOG.logto_file = "MUJOCO_LOG.TXT", True, True


def log_config():
    """The MjLogConfig in force (engine.mju_api.mju_writeLog reads it)."""
    return _LOG


class MjLogMessage:
    """One log record (mjLogMessage): ``level`` (mjtLogLevel), ``topic`` (mjtLogTopic),
    ``timestamp`` (s), ``subject``, ``body``, and where it was written (``file``, ``line``,
    ``func``; None when not known)."""

    __slots__ = ("body", "file", "func", "level", "line", "subject", "timestamp", "topic")

    def __init__(self):
        self.body = self.file = self.func = None
        self.level = self.line = self.topic = 0
        self.subject = ""
        self.timestamp = False   # mujoco 4.0.0's default instance reads timestamp as False


# ---- virtual file system ----------------------------------------------------------------------
class MjVfs:
    """A virtual file system (mjVFS): in-memory files a model load reads before the disk.
    mujoco 4.0.0's Python class offers only ``close()`` (programs pass in-memory files as the
    ``assets`` dict of MjModel.from_xml_string / MjSpec, as they do to the engine); this one
    holds such a dict, ``close()`` empties it."""

    __slots__ = ("_files",)

    def __init__(self):
        self._files = {}

    def close(self):
        self._files.clear()


# ---- MjStruct ---------------------------------------------------------------------------------
# mujoco's MjStruct is the typing Union of its spec element classes; this one is the union of
# those the engine's MjSpec builds (engine/mjspec: MjsSkin, MjsFlex, MjsPair ... are not yet).
MjStruct = typing.Union[tuple(getattr(_mjspec, n) for n in (
    "MjsBody", "MjsFrame", "MjsGeom", "MjsJoint", "MjsLight", "MjsMaterial", "MjsSite",
    "MjsMesh", "MjsSkin", "MjsTexture", "MjsText", "MjsTuple", "MjsCamera", "MjsFlex",
    "MjsHField", "MjsKey", "MjsNumeric", "MjsPair", "MjsExclude", "MjsEquality", "MjsTendon",
    "MjsSensor", "MjsActuator", "MjsPlugin") if hasattr(_mjspec, n))]


# ---- the asset cache (mj_getCache ...) ----------------------------------------------------------
class _AssetCache:
    """The handle mj_getCache returns: the engine's compile cache of processed meshes and
    textures (engine/compiler/cache.py), kept on disk by content rather than in memory as
    mujoco's is, so it also serves later processes. Its capacity is the cache's size limit
    (least recently used entries beyond it go); capacity 0 disables it."""

    __slots__ = ()


_CACHE = _AssetCache()


def _cache_module():
    from .compiler import cache
    return cache


def _check_cache(cache, fn):
    if not isinstance(cache, _AssetCache):
        raise TypeError(f"{fn}: expected the cache returned by mj_getCache()")


def mj_getCache():
    """The asset cache used by the compiler (a handle for the mj_*Cache* functions)."""
    return _CACHE


def mj_getCacheCapacity(cache):
    """The cache's capacity in bytes (0: disabled)."""
    _check_cache(cache, "mj_getCacheCapacity")
    c = _cache_module()
    return 0 if c.cache_dir() is None else int(c.MAX_BYTES)


def mj_setCacheCapacity(cache, size):
    """Set the capacity in bytes (0 disables the cache, which then neither reads nor stores);
    entries beyond a smaller capacity are removed now. Returns the new capacity."""
    _check_cache(cache, "mj_setCacheCapacity")
    size = int(size)
    if size < 0:
        raise ValueError("mj_setCacheCapacity: size must be >= 0")
    c = _cache_module()
    if size == 0:
        os.environ["MJ_ROS_MESH_CACHE"] = "off"     # read by the compiler at every compile
        return 0
    if os.environ.get("MJ_ROS_MESH_CACHE", "").strip().lower() in c._OFF:
        del os.environ["MJ_ROS_MESH_CACHE"]
    c.MAX_BYTES = size
    root = c.cache_dir()
    if root is not None and os.path.isdir(root):
        c.flush()
        c.prune(root, size)
    return size


def _cache_root(cache, fn):
    """(cache module, its directory with pending writes flushed, or None when it is disabled
    or absent)."""
    _check_cache(cache, fn)
    c = _cache_module()
    root = c.cache_dir()
    if root is None or not os.path.isdir(root):
        return c, None
    c.flush()
    return c, root


def mj_getCacheSize(cache):
    """Bytes the cache's entries take now."""
    c, root = _cache_root(cache, "mj_getCacheSize")
    total = 0
    for f in (c._entry_files(root) if root else ()):
        try:
            total += f.stat(follow_symlinks=False).st_size
        except OSError:
            pass
    return total


def mj_clearCache(cache):
    """Remove every entry of the cache."""
    c, root = _cache_root(cache, "mj_clearCache")
    if root:
        c.prune(root, 0)


# ---- assets of a compiled model ---------------------------------------------------------------
def mj_loadTexture(m, id):  # noqa: A002 (mujoco's argument name)
    """Texture ``id``'s pixels as compilation stores them in tex_data: (pixels uint8 array
    (height, width, nchannel), colorspace mjtColorSpace). The engine's compiler always
    decodes a texture into the model (file, builtin or inline), so this is that copy."""
    id = int(id)  # noqa: A001
    if not 0 <= id < int(m.ntex):
        raise ValueError(f"texture id {id} out of range")
    h, w, c = (int(m.tex_height[id]), int(m.tex_width[id]), int(m.tex_nchannel[id]))
    a = int(m.tex_adr[id])
    px = np.array(m.tex_data[a:a + h * w * c], np.uint8).reshape(h, w, c)
    return px, int(m.tex_colorspace[id])


def mj_embedAssets(m):
    """A copy of ``m`` with every by-reference asset loaded into it. The engine's compiler
    never leaves an asset by reference (meshes, textures and height fields are stored in the
    model when it compiles), so this is a deep copy of ``m``."""
    import copy
    return copy.deepcopy(m)


# ---- mj_projectConstraint ---------------------------------------------------------------------
def _efc_AR(d):
    """d.efc_AR: the last mj_projectConstraint's nefc x nefc inverse constraint inertia,
    flattened (empty for a primal solver, as mujoco's nA = 0 there)."""
    return d.__dict__.get("_efc_AR", np.zeros(0))


def mj_projectConstraint(m, d):
    """Compute d.efc_AR = J inv(M) J' + diag(R) (nefc x nefc, row-major, flattened): the
    inverse constraint inertia the dual solvers (PGS) work with; nothing for the primal
    solvers (CG, Newton), whose mujoco data holds no efc_AR (nA = 0). Needs the constraint
    rows and the factorised inertia (after mj_forward)."""
    from .api_support import _efc_dense, mj_isDual
    from .support import mj_solveM
    if not mj_isDual(m):
        d.__dict__["_efc_AR"] = np.zeros(0)
        return
    J = np.array(_efc_dense(m, d), float)
    nefc = J.shape[0]
    X = np.zeros_like(J)
    if nefc and m.nv:
        mj_solveM(m, d, X, J)
    AR = J @ X.T + np.diag(np.asarray(d.efc_R, float)[:nefc])
    d.__dict__["_efc_AR"] = AR.reshape(-1)


def _install_efc_AR():
    from .data import MjData
    from . import timer
    if not hasattr(MjData, "efc_AR"):
        MjData.efc_AR = property(_efc_AR, doc=_efc_AR.__doc__)
    if not hasattr(MjData, "timer"):
        timer.install(MjData)


_install_efc_AR()


# ---- plugin libraries loaded at import ---------------------------------------------------------
PLUGINS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugins")


def load_plugin_dir(directory):
    """Load every plugin library (``*.py`` not starting with ``_``) of ``directory`` with
    mj_loadPluginLibrary, in name order; returns the loaded modules (mujoco's handles)."""
    from .plugin import mj_loadPluginLibrary
    if not os.path.isdir(directory):
        return []
    return [mj_loadPluginLibrary(os.path.join(directory, f))
            for f in sorted(os.listdir(directory)) if f.endswith(".py") and not f.startswith("_")]


PLUGIN_HANDLES = load_plugin_dir(PLUGINS_DIR)


# ---- mj_maxContact ------------------------------------------------------------------------------
_G = mjtGeom
_CONVEX = (_G.mjGEOM_CAPSULE, _G.mjGEOM_CYLINDER, _G.mjGEOM_BOX, _G.mjGEOM_MESH)


def _pair_max(t1, t2, native):
    """The most contacts the collider of geom types t1 <= t2 returns (engine/collision: the
    primitive colliders' counts; a height field's prisms up to mjMAXCONPAIR = 50; the general
    convex collider's multi-contact polygon up to 4 with nativeccd, 5 through MPR)."""
    P, H, S, C, E, Y, B, M = (_G.mjGEOM_PLANE, _G.mjGEOM_HFIELD, _G.mjGEOM_SPHERE,
                              _G.mjGEOM_CAPSULE, _G.mjGEOM_ELLIPSOID, _G.mjGEOM_CYLINDER,
                              _G.mjGEOM_BOX, _G.mjGEOM_MESH)
    if t1 in (P, H) and t2 in (P, H):
        return 0                                   # no plane/height-field pairs
    if H in (t1, t2):
        return 50
    if S in (t1, t2) or E in (t1, t2):
        return 1                                   # one deepest point
    if t1 == P:
        return {C: 2, Y: 4, B: 4, M: 4}[t2]        # capsule ends; cylinder rim; box/mesh face
    if (t1, t2) == (C, C):
        return 2                                   # the two segments' ends
    if (t1, t2) == (B, B):
        return 8                                   # box-box face clipping
    if (t1, t2) == (C, B):
        return 4                                   # capsule-box: segment against the faces
    return 4 if native else 5                      # general convex pairs


def _sdf_max(m, t1):
    """The bound of a pair with an sdf geom (the other of type t1), as mujoco 4.0.0 gives it
    (measured): none against a height field (no routine), a plane's routine on the sdf mesh 4,
    mjc_MeshSDF mjMAXCONPAIR (50), mjc_SDF one per start point, opt.sdf_initpoints, up to 50."""
    if t1 == _G.mjGEOM_HFIELD:
        return 0
    if t1 == _G.mjGEOM_PLANE:
        return 4
    if t1 == _G.mjGEOM_MESH:
        return 50
    return min(int(m.opt.sdf_initpoints), 50)


def mj_maxContact(m, g1, g2, has_margin):
    """The most contacts geoms ``g1`` and ``g2`` can produce (the contact buffer a pair
    needs). ``has_margin`` (-1: from the model's margins, else whether a margin is positive) is
    accepted as mujoco's; mujoco 4.0.0 gives the same bound with or without a margin."""
    n = int(m.ngeom)
    for g, what in ((g1, "g1"), (g2, "g2")):
        if not 0 <= int(g) < n:
            raise ValueError(f"mj_maxContact: {what} {int(g)} out of range [0, {n})")
    t1, t2 = sorted((int(m.geom_type[int(g1)]), int(m.geom_type[int(g2)])))
    if t2 == int(_G.mjGEOM_SDF):
        return _sdf_max(m, _G(t1))
    native = not (int(m.opt.disableflags) & int(mjtDisableBit.mjDSBL_NATIVECCD))
    if (t1, t2) in ((int(_G.mjGEOM_CAPSULE), int(_G.mjGEOM_CYLINDER)),
                    (int(_G.mjGEOM_CAPSULE), int(_G.mjGEOM_MESH))):
        return 2 if native else 5                  # capsule against a convex: segment ends
    return _pair_max(_G(t1), _G(t2), native)


# ---- mj_resetDataDebug --------------------------------------------------------------------------
# what mujoco's reset writes over the debug fill (the rest of mjData keeps the fill):
# the state, controls and applied forces, mocap poses, solver and warning statistics, energy,
# and the sleep bookkeeping of the trees, bodies and dofs
_RESET_WRITES = ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "qfrc_applied",
                 "xfrc_applied", "mocap_pos", "mocap_quat", "eq_active", "userdata",
                 "plugin_state", "energy", "solver_niter", "solver_nnz", "solver_fwdinv",
                 "tree_asleep", "tree_awake", "tree_island", "body_awake", "body_awake_ind",
                 "parent_awake_ind", "dof_awake_ind", "dof_island", "history", "map_dof2idof",
                 "map_idof2dof", "map_itree2tree", "qacc")
# the actuator moments' sparsity structure: mujoco recomputes it in mj_transmission, the engine
# builds it with MjData and its kernels index with it, so it keeps its values
ENGINE_STRUCTURE = ("moment_rownnz", "moment_rowadr", "moment_colind")


def mj_resetDataDebug(m, d, debug_value):
    """mj_resetData, with every array of ``d`` that the reset does not write filled with the
    byte ``debug_value`` (so that reading a result before it is computed shows)."""
    from .io import mj_resetData
    from .data import MjData
    mj_resetData(m, d)
    keep = set(_RESET_WRITES) | set(ENGINE_STRUCTURE)
    byte = int(debug_value) & 0xFF
    for name in dir(MjData):
        if name.startswith(("_", "efm_")) or name in keep:
            continue
        try:
            v = getattr(d, name)
        except Exception:   # noqa: BLE001 (a property that needs a computed stage)
            continue
        if isinstance(v, np.ndarray) and v.size and v.flags.writeable and v.dtype.kind in "fiub":
            v.view(np.uint8)[...] = byte
    # the awake index lists are written up to their counts only
    for name, count in (("parent_awake_ind", "nparent_awake"), ("body_awake_ind", "nbody_awake"),
                        ("dof_awake_ind", "nv_awake")):
        n = getattr(d, count, None)
        if n is not None:
            getattr(d, name)[int(n):].view(np.uint8)[...] = byte


# ---- mju_raySkin --------------------------------------------------------------------------------
def mju_raySkin(nface, nvert, face, vert, pnt, vec, vertid=None):
    """Distance along ``vec`` from ``pnt`` to the nearest face of a skin (``face``: nface x 3
    vertex indices, ``vert``: nvert x 3 float32 positions), or -1; ``vertid[0]`` := the hit
    face's vertex nearest the hit point (-1 without a hit). Faces count from both sides."""
    nface, nvert = int(nface), int(nvert)
    f = np.asarray(face, np.int64).reshape(-1)[:3 * nface].reshape(nface, 3)
    v = np.asarray(vert, np.float32).reshape(-1)[:3 * nvert].reshape(nvert, 3).astype(float)
    p = np.asarray(pnt, float).reshape(3)
    r = np.asarray(vec, float).reshape(3)
    if vertid is not None:
        vertid.reshape(-1)[0] = -1
    if nface == 0 or nvert == 0:
        return -1.0
    # the vertices' bounding box first: a ray that misses it misses the skin (slab test)
    lo, hi = v.min(axis=0), v.max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t0, t1 = (lo - p) / r, (hi - p) / r
    tmin = np.where(r != 0, np.minimum(t0, t1), np.where((p >= lo) & (p <= hi), -np.inf, np.inf))
    tmax = np.where(r != 0, np.maximum(t0, t1), np.where((p >= lo) & (p <= hi), np.inf, -np.inf))
    if tmin.max() > tmax.min() or tmax.min() < 0:
        return -1.0
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    e1, e2 = b - a, c - a
    q = np.cross(r, e2)
    det = np.einsum("ij,ij->i", e1, q)
    ok = np.abs(det) >= 1e-15
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    t = p - a
    u = np.einsum("ij,ij->i", t, q) * inv
    s = np.cross(t, e1)
    w = (s @ r) * inv
    x = np.einsum("ij,ij->i", e2, s) * inv
    hit = ok & (u >= 0) & (u <= 1) & (w >= 0) & (u + w <= 1) & (x >= 0)
    if not hit.any():
        return -1.0
    k = int(np.flatnonzero(hit)[np.argmin(x[hit])])
    if vertid is not None:
        point = p + x[k] * r
        dist = np.linalg.norm(v[f[k]] - point, axis=1)
        vertid.reshape(-1)[0] = int(f[k][int(np.argmin(dist))])
    return float(x[k])


# ---- mju_getXMLDependencies ---------------------------------------------------------------------
_ASSET_FILES = {"mesh": ("file",), "skin": ("file",), "hfield": ("file",),
                "texture": ("file", "fileright", "fileleft", "fileup", "filedown", "filefront",
                            "fileback")}


def mju_getXMLDependencies(filename):
    """The files a model file depends on, as absolute paths: itself, the files it includes
    (recursively), and the asset files (meshes, skins, height fields, textures, a cube
    texture's six faces) named in them, resolved against the compiler's assetdir / meshdir /
    texturedir as the compiler resolves them; each once."""
    import xml.etree.ElementTree as ET
    main = os.path.abspath(os.fspath(filename))
    base = os.path.dirname(main)
    out, elements = [main], []

    def walk(path):
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            raise ValueError(f"mju_getXMLDependencies: cannot read '{path}': {e}") from None
        for el in root.iter():
            if el.tag == "include" and el.get("file"):
                inc = os.path.join(base, el.get("file"))
                if inc not in out:
                    out.append(os.path.abspath(inc))
                    walk(inc)
            else:
                elements.append(el)

    walk(main)
    dirs = {"meshdir": "", "texturedir": ""}
    for el in elements:
        if el.tag == "compiler":
            if el.get("assetdir") is not None:
                dirs["meshdir"] = dirs["texturedir"] = el.get("assetdir")
            for k in ("meshdir", "texturedir"):
                if el.get(k) is not None:
                    dirs[k] = el.get(k)
    for el in elements:
        for attr in _ASSET_FILES.get(el.tag, ()):
            name = el.get(attr)
            if not name:
                continue
            sub = dirs["texturedir"] if el.tag == "texture" else dirs["meshdir"]
            path = os.path.abspath(os.path.join(base, sub, name))
            if path not in out:
                out.append(path)
    return out


__all__ = ["MjTimerStat", "MjByteVec", "MjCharVec", "MjDoubleVec", "MjFloatVec", "MjIntVec",
           "MjStringVec", "MjPreContact", "MjLogConfig", "MjLogMessage", "MjVfs", "MjStruct",
           "mj_getCache", "mj_getCacheCapacity", "mj_setCacheCapacity", "mj_getCacheSize",
           "mj_clearCache", "PLUGINS_DIR", "PLUGIN_HANDLES", "mj_loadTexture", "mj_embedAssets",
           "mj_projectConstraint", "mj_maxContact", "mj_resetDataDebug", "mju_raySkin",
           "mju_getXMLDependencies"]
