"""The corpus of real models for compiler conformance, and the field comparison used by the test
and by the benchmark. Paths are resolved at run time; absent folders make their models skip."""
from __future__ import annotations

import glob
import os
import site
from pathlib import Path

import numpy as np

from engine._layout import MODEL_FIELDS
from oracle import MODELS, TEST_MODELS

SITE = Path(next(p for p in site.getsitepackages() if p.endswith("site-packages")))
GYM = SITE / "gymnasium" / "envs" / "mujoco" / "assets"
DMC = SITE / "dm_control" / "suite"
ERD = SITE / "cmeel.prefix" / "share" / "example-robot-data" / "robots"


def corpus():
    """(id, path) of every model the compiler conformance suite runs."""
    out = []
    men = MODELS / "menagerie"
    for rel in ["kuka_iiwa_14/iiwa14.xml", "kuka_iiwa_14/scene.xml", "robotiq_2f85/2f85.xml",
                "shadow_hand/right_hand.xml", "shadow_hand/scene_left.xml",
                "wonik_allegro/right_hand.xml", "agility_cassie/cassie.xml",
                "agility_cassie/scene.xml", "trossen_wx250s/wx250s.xml",
                "ufactory_xarm7/xarm7.xml", "ufactory_xarm7/hand.xml", "skydio_x2/x2.xml",
                "google_barkour_vb/barkour_vb.xml", "unitree_h1/h1.xml", "unitree_h1/scene.xml"]:
        out.append(("menagerie/" + rel, men / rel))
    mj = MODELS / "mujoco" / "model"
    for rel in ["humanoid/humanoid.xml", "humanoid/22_humanoids.xml", "slider_crank/slider_crank.xml",
                "tendon_arm/arm26.xml", "car/car.xml", "balloons/balloons.xml",
                "adhesion/active_adhesion.xml", "replicate/leaves.xml", "replicate/bunnies.xml",
                "mug/mug.xml", "cube/cube_3x3x3.xml"]:
        out.append(("mujoco/" + rel, mj / rel))
    for f in ["ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup",
              "inverted_double_pendulum", "inverted_pendulum", "pusher", "reacher", "swimmer",
              "walker2d"]:
        out.append(("gymnasium/" + f, GYM / f"{f}.xml"))
    for f in ["acrobot", "cartpole", "cheetah", "finger", "fish", "hopper", "humanoid",
              "manipulator", "pendulum", "point_mass", "reacher", "swimmer", "walker",
              "ball_in_cup", "quadruped"]:
        out.append(("dm_control/" + f, DMC / f"{f}.xml"))
    for p in sorted(glob.glob(str(TEST_MODELS / "*.xml"))):
        out.append(("own/" + os.path.basename(p), Path(p)))
    return out


# Fields compared (name -> (rtol, atol)); quaternions are compared up to sign.
FIELDS = {
    # sizes
    **{k: (0, 0) for k in ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ncam",
                           "nlight", "nmesh", "ntendon", "nwrap", "neq", "nsensor", "nsensordata",
                           "nkey", "nmocap", "npair", "nexclude", "nM", "nC", "nD", "ntree")},
    # tree indices
    **{k: (0, 0) for k in ("body_parentid", "body_rootid", "body_weldid", "body_mocapid",
                           "body_jntnum", "body_jntadr", "body_dofnum", "body_dofadr",
                           "body_geomnum", "body_geomadr", "body_treeid", "dof_parentid",
                           "dof_bodyid", "dof_jntid", "dof_Madr", "dof_treeid", "jnt_type",
                           "jnt_qposadr", "jnt_dofadr", "jnt_bodyid", "geom_bodyid",
                           "site_bodyid", "M_rownnz", "M_rowadr", "M_colind", "mapM2M",
                           "D_rownnz", "D_rowadr", "D_colind", "D_diag", "tree_bodyadr",
                           "tree_bodynum", "tree_dofadr", "tree_dofnum",
                           # sleeping islands: the compiler's policy choice, tendon trees
                           "tree_sleep_policy")},
    # bodies
    "body_pos": (1e-9, 1e-9), "body_quat": (1e-9, 1e-9), "body_mass": (1e-6, 1e-9),
    "body_subtreemass": (1e-6, 1e-9), "body_ipos": (1e-6, 1e-7),
    "body_inertia": (1e-5, 1e-9), "body_gravcomp": (0, 1e-12),
    # joints and dofs
    "jnt_pos": (1e-9, 1e-9), "jnt_axis": (1e-9, 1e-9), "jnt_limited": (0, 0),
    "dof_length": (1e-5, 1e-9),  # from mesh geoms' rbound and body ipos (float32 vertices)
    "jnt_range": (1e-9, 1e-9), "jnt_stiffness": (1e-9, 0), "jnt_margin": (0, 0),
    "jnt_solref": (0, 1e-12), "jnt_solimp": (0, 1e-12), "jnt_actfrclimited": (0, 0),
    "jnt_actfrcrange": (0, 1e-12), "qpos0": (1e-9, 1e-9), "qpos_spring": (1e-9, 1e-9),
    "dof_armature": (1e-9, 0), "dof_damping": (1e-9, 0), "dof_frictionloss": (1e-9, 0),
    "dof_solref": (0, 1e-12), "dof_solimp": (0, 1e-12), "dof_dampingpoly": (0, 1e-12),
    "jnt_stiffnesspoly": (0, 1e-12), "tendon_stiffnesspoly": (0, 1e-12),
    "tendon_dampingpoly": (0, 1e-12), "actuator_damping": (0, 1e-12),
    "actuator_dampingpoly": (0, 1e-12), "actuator_armature": (0, 1e-12),
    # geoms
    "geom_type": (0, 0), "geom_contype": (0, 0), "geom_conaffinity": (0, 0),
    "geom_condim": (0, 0), "geom_group": (0, 0), "geom_priority": (0, 0),
    "geom_dataid": (0, 0), "geom_size": (1e-6, 1e-9), "geom_pos": (1e-6, 1e-8),
    "geom_quat": (1e-6, 1e-7), "geom_friction": (0, 1e-12), "geom_solmix": (0, 1e-12),
    "geom_solref": (0, 1e-12), "geom_solimp": (0, 1e-12), "geom_margin": (0, 1e-12),
    "geom_gap": (0, 1e-12), "geom_rbound": (1e-6, 1e-8), "geom_fluid": (1e-6, 1e-9),
    "geom_aabb": (1e-6, 1e-8),
    # height fields (hfield_data is float32 in mujoco: compared to single precision)
    **{k: (0, 0) for k in ("nhfield", "nhfielddata", "hfield_nrow", "hfield_ncol", "hfield_adr")},
    "hfield_size": (0, 0), "hfield_data": (1e-6, 1e-7),
    # textures and materials (tex_data is compared in test_compiler.py: gradients and random
    # marks are not byte-exact)
    **{k: (0, 0) for k in ("ntex", "ntexdata", "nmat", "tex_type", "tex_colorspace",
                           "tex_height", "tex_width", "tex_nchannel", "tex_adr", "mat_texid")},
    # cameras (float32 in mujoco; intrinsics from *pixel values to 1 ulp: its rounding order
    # is not reproduced on every model)
    "cam_projection": (0, 0), "cam_resolution": (0, 0), "cam_fovy": (1e-7, 0),
    "cam_intrinsic": (1e-7, 0), "cam_sensorsize": (0, 0),
    "light_softness": (1e-7, 0),  # float32 in mujoco
    "site_pos": (1e-9, 1e-9), "site_quat": (1e-9, 1e-9), "site_size": (1e-9, 1e-9),
    "site_type": (0, 0),
    # tendons, equalities
    "tendon_adr": (0, 0), "tendon_num": (0, 0), "tendon_treenum": (0, 0),
    "tendon_treeid": (0, 0), "wrap_type": (0, 0), "wrap_objid": (0, 0),
    "wrap_prm": (0, 1e-12), "tendon_limited": (0, 0), "tendon_range": (0, 1e-12),
    "tendon_stiffness": (0, 1e-12), "tendon_damping": (0, 1e-12),
    "tendon_frictionloss": (0, 1e-12), "tendon_lengthspring": (1e-9, 1e-9),
    "eq_type": (0, 0), "eq_obj1id": (0, 0), "eq_obj2id": (0, 0), "eq_objtype": (0, 0),
    "eq_active0": (0, 0), "eq_data": (1e-9, 1e-9), "eq_solref": (0, 1e-12), "eq_solimp": (0, 1e-12),
    # actuators
    "actuator_trntype": (0, 0), "actuator_trnid": (0, 0), "actuator_dyntype": (0, 0),
    "actuator_gaintype": (0, 0), "actuator_biastype": (0, 0), "actuator_dynprm": (1e-9, 1e-12),
    "actuator_gainprm": (1e-9, 1e-12), "actuator_biasprm": (1e-6, 1e-9),
    "actuator_ctrllimited": (0, 0), "actuator_forcelimited": (0, 0),
    "actuator_actlimited": (0, 0), "actuator_ctrlrange": (0, 1e-12),
    "actuator_forcerange": (0, 1e-12), "actuator_actrange": (0, 1e-12),
    "actuator_gear": (0, 1e-12), "actuator_cranklength": (0, 1e-12),
    "actuator_actadr": (0, 0), "actuator_ctrladr": (0, 0), "actuator_ctrlnum": (0, 0),
    "actuator_historyadr": (0, 0), "sensor_historyadr": (0, 0), "actuator_actnum": (0, 0), "actuator_group": (0, 0),
    # sensors
    "sensor_type": (0, 0), "sensor_datatype": (0, 0), "sensor_needstage": (0, 0),
    "sensor_objtype": (0, 0), "sensor_objid": (0, 0), "sensor_reftype": (0, 0),
    "sensor_refid": (0, 0), "sensor_dim": (0, 0), "sensor_adr": (0, 0),
    "sensor_cutoff": (0, 1e-12), "sensor_noise": (0, 1e-12),
    # hull polygons (plane-mesh and mesh multi-contacts); normals to 1e-5: a sliver triangle's
    # normal amplifies 1e-16 vertex differences (measured 4e-7 on xarm7, 4e-6 on z1 and g1)
    "mesh_polynum": (0, 0), "mesh_polyadr": (0, 0), "mesh_polyvertadr": (0, 0),
    "mesh_polyvertnum": (0, 0), "mesh_polyvert": (0, 0), "mesh_polymapadr": (0, 0),
    "mesh_polymapnum": (0, 0), "mesh_polymap": (0, 0), "mesh_polynormal": (0, 1e-5),
    # keyframes, pairs
    "key_qpos": (1e-9, 1e-9), "key_qvel": (0, 1e-12), "key_ctrl": (0, 1e-12),
    "pair_geom1": (0, 0), "pair_geom2": (0, 0), "pair_signature": (0, 0),
    "exclude_signature": (0, 0),
    # constants at qpos0 (mj_setConst)
    "dof_M0": (1e-6, 1e-10), "tendon_length0": (1e-6, 1e-10), "actuator_length0": (1e-6, 1e-10),
    "dof_invweight0": (1e-5, 1e-10), "body_invweight0": (1e-5, 1e-10),
    "tendon_invweight0": (1e-5, 1e-10), "actuator_acc0": (1e-5, 1e-10),
    **{f: (1e-9, 1e-9) for f in ("cam_pos0", "cam_poscom0", "cam_mat0", "light_pos0",
                                 "light_poscom0", "light_dir0")},
    # frames that coincide (within mujoco's 1e-6) take the shortcut in kinematics
    "body_margin": (0, 1e-12), "body_sameframe": (0, 0), "geom_sameframe": (0, 0), "site_sameframe": (0, 0),
    # options (defaults and <option>) and statistics (computed at qpos0, or <statistic>);
    # meansize / extent from the geoms' rbound (float32 mesh vertices: 1e-5 as dof_length)
    **{f: (1e-12, 0) for f, _, _, _ in MODEL_FIELDS if f.startswith("opt_")},
    "stat_meaninertia": (1e-6, 1e-10), "stat_meanmass": (1e-9, 0), "stat_meansize": (1e-5, 1e-9),
    "stat_extent": (1e-5, 1e-9), "stat_center": (1e-5, 1e-9),
}
QUATS = {"body_quat", "geom_quat", "site_quat"}


def inertia_tensors(m):
    """Body inertia tensors in the body frame (R diag R^T): independent of the principal-axes
    convention, which is ambiguous for repeated moments."""
    out = []
    for q, d in zip(np.asarray(m.body_iquat), np.asarray(m.body_inertia)):
        w, x, y, z = q
        R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        out.append(R @ np.diag(d) @ R.T)
    return np.array(out)


def _oracle_field(mjm, f):
    """mujoco's value of our field name f (opt_* and stat_* live in mjm.opt / mjm.stat)."""
    for prefix, sub in (("opt_", "opt"), ("stat_", "stat")):
        if f.startswith(prefix):
            return getattr(getattr(mjm, sub), f[len(prefix):], None)
    return getattr(mjm, f, None)


def mismatches(ours, theirs):
    """List of (field, message) where our compiled model differs from mujoco's."""
    bad = []
    for f, (rtol, atol) in FIELDS.items():
        src = _oracle_field(theirs, f)
        if src is None:
            continue
        y = np.asarray(src, float)
        x = np.asarray(getattr(ours, f), float)
        if f.startswith(("opt_", "stat_")):  # our singleton rows, mujoco's scalars / 3-vectors
            x = x.reshape(y.shape)
        if x.shape != y.shape:
            bad.append((f, f"shape {x.shape} vs {y.shape}"))
            continue
        if f in QUATS and x.size:
            flip = np.sum(x * y, axis=-1) < 0
            x = np.where(flip[:, None], -x, x)
        if not np.allclose(x, y, rtol=rtol, atol=atol):
            idx = np.argwhere(~np.isclose(x, y, rtol=rtol, atol=atol))
            i = tuple(idx[0])
            bad.append((f, f"first at {i}: ours {x[i]!r} mujoco {y[i]!r} ({len(idx)} differ)"))
    xi, yi = inertia_tensors(ours), inertia_tensors(theirs)
    if xi.shape == yi.shape and not np.allclose(xi, yi, rtol=1e-5, atol=1e-9):
        i = int(np.argwhere(~np.isclose(xi, yi, rtol=1e-5, atol=1e-9))[0][0])
        bad.append(("body inertia tensor", f"body {i}: ours {xi[i].ravel()} mujoco {yi[i].ravel()}"))
    for kind in ("body", "joint", "geom", "site", "actuator", "sensor", "tendon"):
        n = {"body": "nbody", "joint": "njnt", "geom": "ngeom", "site": "nsite", "actuator": "nu",
             "sensor": "nsensor", "tendon": "ntendon"}[kind]
        if getattr(ours, n) != getattr(theirs, n):
            continue
        for i in range(getattr(theirs, n)):
            a = getattr(ours, kind)(i).name
            b = getattr(theirs, kind)(i).name
            if (a or "") != (b or ""):
                bad.append((f"{kind} names", f"{i}: ours {a!r} mujoco {b!r}"))
                break
    return bad
