"""Keyframe phase of the compiler (seed 000 "keyframe/key"; `Compiler` mixin): key_time,
key_qpos, key_qvel, key_act, key_ctrl, key_mpos, key_mquat; partial keys filled from the model's
defaults as mujoco does, ball and free joint quaternions normalised.
"""
from __future__ import annotations

import numpy as np

from ._err import err


class KeyframePhases:
    """The keyframe phase of `engine.compiler.builder.Compiler` (a mixin: it uses the compiler's
    spec, field values ``v``, sizes ``sz``, names and joint types)."""

    def _normalize_quats(self, qpos):
        """Normalise the quaternions of ball and free joints in a qpos vector, in place."""
        for t, adr in zip(self.jtype, self.v["jnt_qposadr"]):
            o = adr + (3 if t == 0 else 0) if t in (0, 1) else None
            if o is not None:
                qpos[o:o + 4] /= max(np.linalg.norm(qpos[o:o + 4]), 1e-15)

    def _apply_partial_key(self, out, partial):
        """A keyframe that came with an attached model (seed 000, body/attach): its values for
        the attached joints and actuators overwrite the defaults in the row just built."""
        jidx = {id(el): j for j, el in enumerate(self.joints)}
        aidx = {id(el): u for u, el in enumerate(self.spec.actuators)}
        for field, adr_field, index in (("qpos", "jnt_qposadr", jidx), ("qvel", "jnt_dofadr", jidx),
                                        ("ctrl", None, aidx), ("act", "actuator_actadr", aidx)):
            row = out["key_" + field][-1]
            for el, vals in partial.get(field, ()):
                k = index.get(id(el))
                if k is None:
                    continue  # the element did not survive (e.g. discarded)
                adr = k if adr_field is None else int(self.v[adr_field][k])
                if adr < 0:
                    continue
                row[adr:adr + len(vals)] = vals
        q = out["key_qpos"][-1]
        self._normalize_quats(q)

    # ==== phase: keyframes ===========================================================================
    def compile_keyframes(self):
        nkey = self.sz["nkey"]
        nq, nv, na, nu, nmocap = (self.sz["nq"], self.sz["nv"], self.sz["na"], self.sz["nu"],
                                  self.sz["nmocap"])
        qpos0 = np.asarray(self.v["qpos0"], float)
        mocap_bodies = [i for i in range(len(self.bodies)) if self.v["body_mocapid"][i] >= 0]
        mpos0 = np.concatenate([self.body_pos[i] for i in mocap_bodies]) if nmocap else \
            np.zeros(0)
        mquat0 = np.concatenate([self.body_quat[i] for i in mocap_bodies]) if nmocap else \
            np.zeros(0)
        out = {k: [] for k in ("key_time", "key_qpos", "key_qvel", "key_act", "key_ctrl",
                               "key_mpos", "key_mquat")}
        names = []
        for k in range(nkey):
            el = self.spec.keys[k] if k < len(self.spec.keys) else None
            a = el.attrs if el else {}
            for field, n, default in (("qpos", nq, qpos0), ("qvel", nv, np.zeros(nv)),
                                      ("act", na, np.zeros(na)), ("ctrl", nu, np.zeros(nu)),
                                      ("mpos", 3 * nmocap, mpos0), ("mquat", 4 * nmocap, mquat0)):
                val = a.get(field)
                if val is None:
                    val = default.copy()  # each key its own row (partial keys write into it)
                elif len(val) > n:
                    raise err(el, f"keyframe {field} has {len(val)} values, expected {n}", field)
                else:
                    # a shorter list fills the first values (whole mocap bodies for mpos /
                    # mquat); the rest keep their defaults (qpos0, zeros, the mocap bodies'
                    # poses), as MuJoCo 4.0.0 does (measured)
                    k = {"mpos": 3, "mquat": 4}.get(field, 1)
                    val = list(val)[:len(val) // k * k]
                    val = np.concatenate([np.asarray(val, float), default[len(val):]])
                if field == "qpos":
                    self._normalize_quats(val)
                elif field == "mquat":
                    for j in range(nmocap):
                        val[4 * j:4 * j + 4] /= max(np.linalg.norm(val[4 * j:4 * j + 4]), 1e-15)
                out["key_" + field].append(val)
            partial = getattr(el, "partial", None) if el is not None else None
            if partial:
                self._apply_partial_key(out, partial)
            out["key_time"].append(a.get("time", 0.0))
            names.append(a.get("name"))
        for k, val in out.items():
            self.v[k] = val
        self.names["key"] = names
