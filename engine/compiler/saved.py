"""mjModel arrays the engine's pipeline does not read, built by the compiler for mujoco's binary
format (engine/mjb.py, mj_saveModel; seed 004 "saving models"), as mujoco 4.0.0 builds them
(measured against its compiled models; field meanings from include/mujoco/mjmodel.h of 4.0.0):

- B_rownnz, B_rowadr, B_colind (nB): the body-dof sparsity, one row per body listing, in
  increasing order, the dofs of its ancestors and of its subtree (itself included); the world's
  row holds every dof;
- jnt_actuatorid, tendon_actuatorid: the actuator contributing damping / armature to a joint or
  tendon (an actuator on it with non-zero actuator damping, dampingpoly or armature; -1: none);
- jnt_plasticadr, tendon_plasticadr: -1 (this engine has no plastic state: nplastic = 0);
- geom_castshadow 1: this engine's MJCF reader takes no castshadow attribute on geoms, so every
  model it compiles has mujoco's default;
- actuator_outadr, actuator_outnum: one force output per actuator (nout = nu);
- paths (npaths), mesh_pathadr, hfield_pathadr, tex_pathadr: the resolved file name of each
  mesh, height field and texture read from a file, NUL-terminated, in that order (-1: none;
  a model without files has the single empty string); tex_contenttypeadr -1;
- light_texid (the light's texture, -1: none), light_bulbradius, light_intensity, light_range
  (float32, from <light>); cam_output (mjtCamOutBit flags of <camera output>, rgb by default);
  site_dataid -1 (no mesh sites here); mesh_octadr -1 and mesh_octnum 0 (no octrees: noct 0);
- tendon_type (mjtTendon: fixed when its path starts with a joint) and the tendon Jacobian's
  sparsity ten_J_rownnz, ten_J_rowadr, ten_J_colind (nJten): the dofs a tendon's length can
  depend on, increasing: its joints' dofs (fixed), the dofs of the bodies of its sites and
  geoms and of their ancestors (spatial);
- actuator_ctrlspec (mjtCtrlInput flags, "input signature"): set by the actuator's element
  (measured): position 1 (mjINPUT_POS), velocity and intvelocity 2 (mjINPUT_VEL), cylinder 32
  (mjINPUT_PRESSURE), 0 (the type default) for general, motor, damper, muscle and adhesion;
  an element not in this table leaves the field unbuilt (mj_saveModel names it).

They are kept beside the arena (as the plugin fields), read by mj_saveModel only.
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtCamOutBit, mjtTrn

# actuator element -> actuator_ctrlspec (mjtCtrlInput of mujoco 4.0.0's mjtype.h)
_CTRLSPEC = {"position": 1, "velocity": 2, "intvelocity": 2, "cylinder": 32, "general": 0,
             "motor": 0, "damper": 0, "muscle": 0, "adhesion": 0}

# <camera output> keywords (seed 000, camera)
_CAMOUT = {"rgb": mjtCamOutBit.mjCAMOUT_RGB, "depth": mjtCamOutBit.mjCAMOUT_DEPTH,
           "distance": mjtCamOutBit.mjCAMOUT_DIST, "normal": mjtCamOutBit.mjCAMOUT_NORMAL,
           "segmentation": mjtCamOutBit.mjCAMOUT_SEG}


def body_dof_sparsity(parent, dofadr, dofnum, nv):
    """(B_rownnz, B_rowadr, B_colind) of a tree given body_parentid, body_dofadr, body_dofnum."""
    nbody = len(parent)
    ancestors = [[] for _ in range(nbody)]     # dofs of the proper ancestors
    for b in range(1, nbody):
        p = int(parent[b])
        ancestors[b] = ancestors[p] + (list(range(dofadr[p], dofadr[p] + dofnum[p]))
                                       if p else [])
    subtree = [list(range(dofadr[b], dofadr[b] + dofnum[b])) if dofnum[b] > 0 else []
               for b in range(nbody)]
    for b in range(nbody - 1, 0, -1):          # children come after their parents
        subtree[int(parent[b])] += subtree[b]
    rows = [list(range(nv))] + [sorted(ancestors[b] + subtree[b]) for b in range(1, nbody)]
    nnz = np.array([len(r) for r in rows], np.int32)
    adr = (np.cumsum(nnz) - nnz).astype(np.int32)
    col = np.array([c for r in rows for c in r], np.int32)
    return nnz, adr, col


def _actuator_of(m, trntype, count):
    """Per joint (trntype mjTRN_JOINT) or tendon (mjTRN_TENDON): the last actuator on it that
    adds damping or armature, else -1."""
    out = np.full(count, -1, np.int32)
    if m.nu == 0:
        return out
    damp = np.asarray(m.actuator_damping).reshape(m.nu, -1)
    poly = np.asarray(m.actuator_dampingpoly).reshape(m.nu, -1)
    arm = np.asarray(m.actuator_armature).reshape(m.nu, -1)
    for a in range(m.nu):
        if int(m.actuator_trntype[a]) != trntype:
            continue
        if damp[a].any() or poly[a].any() or arm[a].any():
            out[int(m.actuator_trnid[a, 0])] = a
    return out


def _paths(c, m):
    """paths and the *_pathadr arrays of the module docstring."""
    files = getattr(c, "asset_paths", {})
    blob, out = bytearray(), {}
    for field, group in (("mesh_pathadr", c.spec.meshes), ("hfield_pathadr", c.spec.hfields),
                         ("tex_pathadr", c.spec.textures)):
        adr = []
        for el in group:
            where = files.get(id(el))
            adr.append(len(blob) if where else -1)
            if where:
                blob += str(where).encode() + b"\0"
        out[field] = np.asarray(adr, np.int32)
    out["paths"] = bytes(blob) or b"\0"
    out["npaths"] = len(out["paths"])
    out["tex_contenttypeadr"] = np.full(m.ntex, -1, np.int32)
    return out


def _lights_cameras(c, m):
    out = {}
    tex = getattr(c, "tex_id", {})
    lights = [el.attrs for el in c.lights]
    out["light_texid"] = np.asarray([tex.get(a.get("texture"), -1) for a in lights], np.int32)
    for field, attr in (("light_bulbradius", "bulbradius"), ("light_intensity", "intensity"),
                        ("light_range", "range")):
        out[field] = np.asarray([a[attr] for a in lights], np.float32)
    outs = []
    for el in c.cams:
        words = (el.attrs.get("output") or "rgb").split()
        outs.append(sum(int(_CAMOUT.get(w, 0)) for w in dict.fromkeys(words)))
    out["cam_output"] = np.asarray(outs, np.int32)
    out["site_dataid"] = np.full(m.nsite, -1, np.int32)
    out["mesh_octadr"] = np.full(m.nmesh, -1, np.int32)
    out["mesh_octnum"] = np.zeros(m.nmesh, np.int32)
    return out


def _tendons(m):
    from ..enums import mjtTendon, mjtWrap
    nt = int(m.ntendon)
    types, rows = [], []
    wtype, wobj = np.asarray(m.wrap_type), np.asarray(m.wrap_objid)
    for t in range(nt):
        adr, num = int(m.tendon_adr[t]), int(m.tendon_num[t])
        fixed = num > 0 and int(wtype[adr]) == int(mjtWrap.mjWRAP_JOINT)
        types.append(int(mjtTendon.mjTENDON_FIXED if fixed else mjtTendon.mjTENDON_SPATIAL))
        dofs = set()
        for w in range(adr, adr + num):
            k, obj = int(wtype[w]), int(wobj[w])
            if k == int(mjtWrap.mjWRAP_JOINT):
                j = obj
                n = {0: 6, 1: 3}.get(int(m.jnt_type[j]), 1)
                dofs.update(range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + n))
                continue
            if k == int(mjtWrap.mjWRAP_SITE):
                b = int(m.site_bodyid[obj])
            elif k in (int(mjtWrap.mjWRAP_SPHERE), int(mjtWrap.mjWRAP_CYLINDER)):
                b = int(m.geom_bodyid[obj])
            else:
                continue                      # pulleys: no object
            while b > 0:
                dofs.update(range(int(m.body_dofadr[b]),
                                  int(m.body_dofadr[b]) + int(m.body_dofnum[b])))
                b = int(m.body_parentid[b])
        rows.append(sorted(dofs))
    nnz = np.array([len(r) for r in rows], np.int32)
    return {"tendon_type": np.asarray(types, np.int32), "ten_J_rownnz": nnz,
            "ten_J_rowadr": (np.cumsum(nnz) - nnz).astype(np.int32),
            "ten_J_colind": np.array([c for r in rows for c in r], np.int32),
            "nJten": int(nnz.sum())}


def attach(c, m):
    """Put the arrays of the module docstring on the compiled model ``m``."""
    d = m.__dict__
    d.update(_paths(c, m))
    d.update(_lights_cameras(c, m))
    d.update(_tendons(m))
    tags = [el.tag for el in c.spec.actuators]
    if len(tags) == m.nu and all(t in _CTRLSPEC for t in tags):
        d["actuator_ctrlspec"] = np.asarray([_CTRLSPEC[t] for t in tags], np.int32)
    nnz, adr, col = body_dof_sparsity(np.asarray(m.body_parentid), np.asarray(m.body_dofadr),
                                      np.asarray(m.body_dofnum), int(m.nv))
    d.update(B_rownnz=nnz, B_rowadr=adr, B_colind=col, nB=len(col))
    d["jnt_actuatorid"] = _actuator_of(m, int(mjtTrn.mjTRN_JOINT), m.njnt)
    d["tendon_actuatorid"] = _actuator_of(m, int(mjtTrn.mjTRN_TENDON), m.ntendon)
    d["jnt_plasticadr"] = np.full(m.njnt, -1, np.int32)
    d["tendon_plasticadr"] = np.full(m.ntendon, -1, np.int32)
    d["geom_castshadow"] = np.ones(m.ngeom, np.uint8)
    d["actuator_outnum"] = np.ones(m.nu, np.int32)
    d["actuator_outadr"] = np.arange(m.nu, dtype=np.int32)
    # actuator_history / sensor_history: the delay lines' (nsample, interp), set by
    # engine.history.attach_model before this runs
