"""mj_saveLastXML of a model edited after compiling: the values mujoco copies back from the
model into the file (seed 004, "saving models"; mujoco's mjCModel::CopyBack), measured on
mujoco 4.0.0 by editing one field of a compiled model, saving and compiling the file again.

mujoco 4.0.0 keeps edits of the real-valued fields it copies back (KEPT: the options, the
bodies' pose and inertia, joint and dof parameters, geom, site, camera, light, material, pair,
equality, tendon, actuator, sensor, numeric and keyframe values) and drops edits of every other
field (types, ids, contype/conaffinity, derived quantities): the file has the source's value.

This engine copies back the KEPT fields that map one to one onto an element's attribute with
no unit or frame conversion (BUILT); an edit of a KEPT field outside BUILT (a pose, a size, a
joint range, qpos0, the inertia, an actuator shortcut's gains...) raises NotImplementedError
naming it: those need the compiler's frames, angle units and shortcut mappings undone. Edits
of fields mujoco drops are dropped. As mujoco, a dof value edited on some but not all dofs of
a ball or free joint is refused (FatalError, as mujoco's): the joint's one attribute cannot
give them; edited on all of them, a <freejoint> is written as <joint type="free"> (mujoco
writes the value on its <freejoint>, which its own reader then rejects).
"""
from __future__ import annotations

import numpy as np

from ..enums import mjtJoint

_ONE_DOF = (int(mjtJoint.mjJNT_SLIDE), int(mjtJoint.mjJNT_HINGE))

# model field -> (spec list, attribute) copied back as is (element i of the list is row i)
BUILT = {
    "geom_friction": ("geoms", "friction"), "geom_solref": ("geoms", "solref"),
    "geom_solimp": ("geoms", "solimp"), "geom_rgba": ("geoms", "rgba"),
    "geom_solmix": ("geoms", "solmix"), "geom_margin": ("geoms", "margin"),
    "geom_gap": ("geoms", "gap"),
    "site_rgba": ("sites", "rgba"),
    "jnt_stiffness": ("joints", "stiffness"), "jnt_solref": ("joints", "solreflimit"),
    "jnt_solimp": ("joints", "solimplimit"), "jnt_margin": ("joints", "margin"),
    "dof_damping": ("dofs", "damping"), "dof_armature": ("dofs", "armature"),
    "dof_frictionloss": ("dofs", "frictionloss"), "dof_solref": ("dofs", "solreffriction"),
    "dof_solimp": ("dofs", "solimpfriction"),
    "cam_fovy": ("cams", "fovy"), "cam_ipd": ("cams", "ipd"),
    "light_attenuation": ("lights", "attenuation"), "light_cutoff": ("lights", "cutoff"),
    "light_exponent": ("lights", "exponent"), "light_ambient": ("lights", "ambient"),
    "light_diffuse": ("lights", "diffuse"), "light_specular": ("lights", "specular"),
    "mat_texrepeat": ("materials", "texrepeat"), "mat_emission": ("materials", "emission"),
    "mat_specular": ("materials", "specular"), "mat_shininess": ("materials", "shininess"),
    "mat_reflectance": ("materials", "reflectance"), "mat_rgba": ("materials", "rgba"),
    "pair_solref": ("pairs", "solref"), "pair_solimp": ("pairs", "solimp"),
    "pair_margin": ("pairs", "margin"), "pair_gap": ("pairs", "gap"),
    "pair_friction": ("pairs", "friction"),
    "eq_solref": ("equalities", "solref"), "eq_solimp": ("equalities", "solimp"),
    "tendon_range": ("tendons", "range"), "tendon_solref_lim": ("tendons", "solreflimit"),
    "tendon_solimp_lim": ("tendons", "solimplimit"),
    "tendon_solref_fri": ("tendons", "solreffriction"),
    "tendon_solimp_fri": ("tendons", "solimpfriction"), "tendon_rgba": ("tendons", "rgba"),
    "tendon_width": ("tendons", "width"), "tendon_margin": ("tendons", "margin"),
    "tendon_stiffness": ("tendons", "stiffness"), "tendon_damping": ("tendons", "damping"),
    "tendon_frictionloss": ("tendons", "frictionloss"),
    "actuator_ctrlrange": ("actuators", "ctrlrange"),
    "actuator_forcerange": ("actuators", "forcerange"),
    "actuator_actrange": ("actuators", "actrange"), "actuator_gear": ("actuators", "gear"),
    "actuator_cranklength": ("actuators", "cranklength"),
    "sensor_cutoff": ("sensors", "cutoff"), "sensor_noise": ("sensors", "noise"),
}

# the other fields mujoco 4.0.0 copies back (edits of them are kept in its file)
KEPT_UNBUILT = (
    "qpos0", "qpos_spring", "body_pos", "body_quat", "body_ipos", "body_iquat", "body_mass",
    "body_inertia", "body_user", "jnt_pos", "jnt_axis", "jnt_range", "jnt_user", "geom_size",
    "geom_pos", "geom_quat", "geom_user", "site_size", "site_pos", "site_quat", "site_user",
    "cam_pos", "cam_quat", "cam_user", "light_pos", "light_dir", "eq_data", "tendon_user",
    "actuator_dynprm", "actuator_gainprm", "actuator_biasprm", "actuator_lengthrange",
    "actuator_user", "sensor_user", "numeric_data", "tuple_objprm", "key_time", "key_qpos",
    "key_qvel", "key_act", "key_mpos", "key_mquat", "key_ctrl")


def _lists(spec):
    """The spec's elements in the compiled model's order, by BUILT's list names."""
    bodies = spec.bodies()
    joints = [j for b in bodies for j in b.joints]
    return {"geoms": [g for b in bodies for g in b.geoms],
            "sites": [s for b in bodies for s in b.sites], "joints": joints,
            "cams": [c for b in bodies for c in b.cameras],
            "lights": [x for b in bodies for x in b.lights],
            "materials": spec.materials, "pairs": spec.pairs, "equalities": spec.equalities,
            "tendons": spec.tendons, "actuators": spec.actuators, "sensors": spec.sensors}


def _edited(fresh, m, name):
    """Rows of field ``name`` that differ between the source's model and ``m``."""
    a, b = np.asarray(getattr(fresh, name)), np.asarray(getattr(m, name))
    if a.shape != b.shape:
        return np.arange(len(b))
    diff = ~np.isclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    return np.flatnonzero(diff.reshape(len(b), -1).any(axis=1)) if b.size else []


def copy_back(spec, fresh, m):
    """Write into ``spec`` (the last loaded source, parsed anew) the edits of ``m`` relative to
    ``fresh`` (``spec`` compiled) that mujoco keeps, as the attributes of their elements.
    NotImplementedError names a kept field this engine does not copy back."""
    opt = [k for k in ("timestep", "gravity", "wind", "magnetic", "density", "viscosity",
                       "impratio", "tolerance", "o_margin")
           if hasattr(m.opt, k) and not np.allclose(getattr(fresh.opt, k), getattr(m.opt, k),
                                                    rtol=1e-9, atol=1e-12)]
    if opt:
        raise NotImplementedError(f"mj_saveLastXML of a model edited after compiling: copying "
                                  f"option {opt[0]} back into the XML is not supported yet")
    for name in KEPT_UNBUILT:
        if len(_edited(fresh, m, name)):
            raise NotImplementedError(
                f"mj_saveLastXML of a model edited after compiling: copying {name} back into "
                "the XML is not supported yet")
    lists = _lists(spec)
    jnt_type = np.asarray(m.jnt_type)
    for name, (kind, attr) in BUILT.items():
        rows = _edited(fresh, m, name)
        if not len(rows):
            continue
        vals = np.asarray(getattr(m, name))
        for i in rows:
            i = int(i)
            if kind == "dofs":          # the joint's attribute gives all its dofs
                j = int(m.dof_jntid[i])
                adr = int(m.jnt_dofadr[j])
                n = 1 if int(jnt_type[j]) in _ONE_DOF else (
                    6 if int(jnt_type[j]) == int(mjtJoint.mjJNT_FREE) else 3)
                if not all(np.array_equal(vals[adr], vals[k]) for k in range(adr, adr + n)):
                    # mujoco 4.0.0 refuses the file (its FatalError and message)
                    from ..errors import FatalError
                    raise FatalError(
                        f"mj_saveLastXML: the {attr} of a joint was changed in the model: its "
                        "degrees of freedom have different values, and the spec gives them one")
                el = lists["joints"][j]
                if el.kind == "freejoint":  # <freejoint> takes no dof attributes
                    el.kind = el.tag = "joint"
                    el.set("type", "free")
            else:
                els = lists[kind]
                if len(els) != len(vals):
                    raise NotImplementedError(
                        f"mj_saveLastXML: copying {name} back when the model's elements are "
                        "not the source's one for one (fusestatic, discardvisual) is not "
                        "supported yet")
                el = els[i]
            v = vals[i]
            el.set(attr, float(v) if np.ndim(v) == 0 else np.asarray(v, float).copy())
