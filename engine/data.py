"""MjData: the simulation workspace: state, controls and every computed quantity (seed 001, "mjData").

Fields are numpy views into the data's arena (see `engine._layout`), named as mjData's; assigning
to a field copies into it, so ``d.qpos = q`` and ``d.qpos[:] = q`` are the same.
"""
from __future__ import annotations

import numpy as np

from ._layout import DATA_FIELDS, Arena
from .enums import mjtWarning
from .model import NAMED_KINDS, _Fields, _Named

# Data fields per named object kind: kind -> (prefix-or-field list, how rows are found).
_BODY_FIELDS = ("xpos", "xquat", "xmat", "xipos", "ximat", "xiquat", "subtree_com", "cinert",
                "crb", "cvel", "subtree_linvel", "subtree_angmom", "cacc", "cfrc_int",
                "cfrc_ext", "xfrc_applied")


class MjWarningStat:
    """One entry of ``d.warning``: the last info value and how many times it happened."""

    __slots__ = ("lastinfo", "number")

    def __init__(self):
        self.lastinfo = 0
        self.number = 0

    def __repr__(self):
        return f"<MjWarningStat lastinfo={self.lastinfo} number={self.number}>"


class MjData(_Fields):
    """The simulation state and workspace for one model. ``MjData(m)`` is reset to qpos0."""

    def __init__(self, model):
        sizes = {k: getattr(model, k) for k in model._arena_sizes()}
        arena = Arena(DATA_FIELDS, sizes)
        d = self.__dict__
        d["model"] = model
        d["_arena"] = arena
        d["_A"] = arena.buffers()
        for name, view in arena.views.items():
            d[name] = view
        d["warning"] = [MjWarningStat() for _ in mjtWarning]
        d["solver_niter"] = np.zeros(1, np.int32)
        from .io import mj_resetData  # as in MuJoCo, the reset lives with the I/O functions
        mj_resetData(model, self)

    @property
    def time(self):
        return float(self.__dict__["_arena"].views["time"][0])

    @time.setter
    def time(self, value):
        self.__dict__["_arena"].views["time"][0] = value

    # ---- named access: d.joint('elbow').qpos ----------------------------------------------------
    def _named(self, kind, key):
        m = self.model
        kind, i, name = m._lookup(kind, key)
        return _Named(kind, i, name, self._row_fields(kind, i))

    def _row_fields(self, kind, i):
        m, v = self.model, self.__dict__["_arena"].views
        if kind == "body":
            return {f: v[f][i] for f in _BODY_FIELDS}
        if kind == "joint":
            qa, da = int(m.jnt_qposadr[i]), int(m.jnt_dofadr[i])
            nq, nd = {0: (7, 6), 1: (4, 3)}.get(int(m.jnt_type[i]), (1, 1))
            out = {f: v[f][qa:qa + nq] for f in ("qpos",)}
            out.update({f: v[f][da:da + nd] for f in
                        ("qvel", "qacc", "qacc_warmstart", "qfrc_applied", "qfrc_bias",
                         "qfrc_passive", "qfrc_actuator", "qfrc_smooth", "qacc_smooth",
                         "qfrc_constraint", "qfrc_inverse", "qfrc_spring", "qfrc_damper",
                         "qfrc_gravcomp", "qfrc_fluid", "cdof", "cdof_dot", "qLDiagInv")})
            out.update({"xanchor": v["xanchor"][i], "xaxis": v["xaxis"][i]})
            return out
        if kind in ("geom", "site", "camera", "light"):
            prefix = {"geom": "geom_", "site": "site_", "camera": "cam_", "light": "light_"}[kind]
            return {f[len(prefix):]: v[f][i] for f in v if f.startswith(prefix)}
        if kind == "actuator":
            out = {f: v[f][i:i + 1] for f in ("ctrl", "actuator_length", "actuator_velocity",
                                                "actuator_force")}
            out["length"], out["velocity"], out["force"] = (
                out.pop("actuator_length"), out.pop("actuator_velocity"), out.pop("actuator_force"))
            out["moment"] = v["actuator_moment"][i]
            adr, num = int(m.actuator_actadr[i]), int(m.actuator_actnum[i])
            if adr >= 0:
                out["act"] = v["act"][adr:adr + num]
                out["act_dot"] = v["act_dot"][adr:adr + num]
            return out
        if kind == "sensor":
            adr, dim = int(m.sensor_adr[i]), int(m.sensor_dim[i])
            return {"data": v["sensordata"][adr:adr + dim]}
        if kind == "tendon":
            return {"length": v["ten_length"][i:i + 1], "velocity": v["ten_velocity"][i:i + 1],
                    "J": v["ten_J"][i], "wrapadr": v["ten_wrapadr"][i:i + 1],
                    "wrapnum": v["ten_wrapnum"][i:i + 1]}
        raise NotImplementedError(f"named data access for '{kind}'")

    def body(self, key): return self._named("body", key)
    def joint(self, key): return self._named("joint", key)
    jnt = joint
    def geom(self, key): return self._named("geom", key)
    def site(self, key): return self._named("site", key)
    def camera(self, key): return self._named("camera", key)
    cam = camera
    def light(self, key): return self._named("light", key)
    def actuator(self, key): return self._named("actuator", key)
    def sensor(self, key): return self._named("sensor", key)
    def tendon(self, key): return self._named("tendon", key)
    ten = tendon

    def __repr__(self):
        return f"<engine.MjData time={self.time:.6g}>"


__all__ = ["MjData", "MjWarningStat", "NAMED_KINDS"]
