"""The compiler's actuator phase (seed 000 ``<actuator>`` and its shortcuts, resolved by the
XML reader into general actuators): transmission (joint, tendon, site, slider-crank, body),
dynamics, gain and bias types and parameters, control/force/activation limits, activation
addresses, and the actuator plugins. Called as ``Compiler.compile_actuators``; ``c`` is the
Compiler (engine.compiler.builder)."""
from __future__ import annotations

import numpy as np

from . import plugins
from ._err import err
from ..enums import mjtBias, mjtDyn, mjtGain
from ..plugin.registry import ACTUATOR

# MJCF keyword -> mjtDyn / mjtGain / mjtBias value (the keywords <general> accepts)
DYN = {k: int(mjtDyn["mjDYN_" + k.upper()])
       for k in ("none", "integrator", "filter", "filterexact", "muscle", "user")}
GAIN = {k: int(mjtGain["mjGAIN_" + k.upper()]) for k in ("fixed", "affine", "muscle", "user")}
BIAS = {k: int(mjtBias["mjBIAS_" + k.upper()]) for k in ("none", "affine", "muscle", "user")}


def compile_actuators(c):
    """Fill the actuator_* fields of the model being built by ``c`` from its spec."""
    acts = c.spec.actuators
    n = len(acts)
    v = c.v
    trntype, trnid = np.zeros(n, int), np.full((n, 2), -1)
    ctrllim, forcelim, actlim = np.zeros(n, int), np.zeros(n, int), np.zeros(n, int)
    actadr, actnum = np.full(n, -1), np.zeros(n, int)
    ctrlrange = np.zeros((n, 2))
    aplug = np.full(n, -1)
    na = 0
    for i, el in enumerate(acts):
        a = el.attrs
        targets = [k for k in ("joint", "jointinparent", "tendon", "site", "body",
                               "cranksite") if a.get(k)]
        if len(targets) != 1:
            raise err(el, "actuator needs exactly one transmission target (joint, "
                      "jointinparent, tendon, site, cranksite or body)")
        k = targets[0]
        if k == "joint":
            trntype[i], trnid[i, 0] = 0, c._id("joint", a["joint"], el, "joint")
        elif k == "jointinparent":
            trntype[i], trnid[i, 0] = 1, c._id("joint", a["jointinparent"], el,
                                                  "jointinparent")
        elif k == "tendon":
            trntype[i], trnid[i, 0] = 3, c._id("tendon", a["tendon"], el, "tendon")
        elif k == "site":
            trntype[i], trnid[i, 0] = 4, c._id("site", a["site"], el, "site")
            if a.get("refsite"):
                trnid[i, 1] = c._id("site", a["refsite"], el, "refsite")
        elif k == "body":
            trntype[i], trnid[i, 0] = 5, c._id("body", a["body"], el, "body")
        else:
            if not a.get("slidersite"):
                raise err(el, "slider-crank transmission needs slidersite", "slidersite")
            trntype[i] = 2
            trnid[i] = (c._id("site", a["cranksite"], el, "cranksite"),
                        c._id("site", a["slidersite"], el, "slidersite"))
            if a["cranklength"] <= 0:
                raise err(el, "slider-crank needs a positive cranklength", "cranklength")
        ir = a.get("inheritrange", 0.0) or 0.0
        if ir > 0:
            # position / intvelocity inheritrange: the control (or activation) range is the
            # target's range scaled about its middle
            if trntype[i] == 0:
                jid = trnid[i, 0]
                if not c.v["jnt_limited"][jid]:
                    raise err(el, "inheritrange needs a limited joint", "inheritrange")
                lo, hi = c.v["jnt_range"][jid]
            elif trntype[i] == 3:
                tid = trnid[i, 0]
                if not c.v["tendon_limited"][tid]:
                    raise err(el, "inheritrange needs a limited tendon", "inheritrange")
                lo, hi = c.v["tendon_range"][tid]
            else:
                raise err(el, "inheritrange needs a joint or tendon transmission",
                          "inheritrange")
            mid, half = (lo + hi) / 2, ir * (hi - lo) / 2
            key = "actrange" if el.tag == "intvelocity" else "ctrlrange"
            a[key] = (mid - half, mid + half)
            el.given.add(key)
        # limits: with autolimits, "auto" is limited when the range is given and increasing
        # (a range given with range[0] >= range[1] leaves it unlimited, no error); limited
        # explicitly (or by the damper/adhesion shortcut) needs an increasing range: mujoco
        # 4.0.0's rule and messages (measured)
        for key, rkey, out, what in (("ctrllimited", "ctrlrange", ctrllim, "control range"),
                                     ("forcelimited", "forcerange", forcelim, "force range"),
                                     ("actlimited", "actrange", actlim, "actrange")):
            lim = a.get(key, "auto")
            r = a.get(rkey, (0.0, 0.0))
            if lim == "auto":
                if not c.c["autolimits"] and rkey in el.given:
                    raise err(el, f"{key} must be set when autolimits is false", key)
                lim = "true" if rkey in el.given and r[0] < r[1] else "false"
            out[i] = lim == "true"
            if out[i] and r[0] >= r[1]:   # mujoco's test: a NaN bound passes (measured)
                raise err(el, f"invalid {what} for actuator", rkey)
        if el.tag in ("damper", "adhesion") and a["ctrlrange"][0] < 0:
            raise err(el, f"{el.tag} control range cannot be negative", "ctrlrange")
        ctrlrange[i] = a["ctrlrange"]
        dyn = DYN[a["dyntype"]]
        nact = a.get("actdim", -1)
        aplug[i] = plugins.instance_of(c, el, ACTUATOR) if el.tag == "plugin" else -1
        if aplug[i] >= 0:
            nact = plugins.actuator_actdim(c, el, aplug[i], i)
        elif nact is None or nact < 0:
            nact = 0 if dyn == 0 else 1
        if nact:
            actadr[i], actnum[i] = na, nact
            na += nact
    c.sz.update(nu=n, na=na)
    v.update(actuator_trntype=trntype, actuator_trnid=trnid,
             actuator_dyntype=[DYN[el.attrs["dyntype"]] for el in acts],
             actuator_gaintype=[GAIN[el.attrs["gaintype"]] for el in acts],
             actuator_biastype=[BIAS[el.attrs["biastype"]] for el in acts],
             actuator_dynprm=[el.attrs["dynprm"] for el in acts],
             actuator_gainprm=[el.attrs["gainprm"] for el in acts],
             actuator_biasprm=[el.attrs["biasprm"] for el in acts],
             actuator_actadr=actadr, actuator_actnum=actnum,
             actuator_group=[el.attrs.get("group", 0) for el in acts],
             actuator_ctrllimited=ctrllim, actuator_forcelimited=forcelim,
             actuator_actlimited=actlim, actuator_ctrlrange=ctrlrange,
             actuator_forcerange=[el.attrs.get("forcerange", (0, 0)) for el in acts],
             actuator_actrange=[el.attrs.get("actrange", (0, 0)) for el in acts],
             actuator_actearly=[el.attrs.get("actearly", False) for el in acts],
             actuator_gear=[el.attrs.get("gear", (1, 0, 0, 0, 0, 0)) for el in acts],
             actuator_cranklength=[el.attrs.get("cranklength", 0.0) for el in acts],
             actuator_lengthrange=[el.attrs.get("lengthrange", (0, 0)) for el in acts],
             actuator_damping=[el.attrs.get("damping", (0.0,))[0] for el in acts],
             actuator_dampingpoly=[el.attrs.get("damping", (0.0, 0.0, 0.0))[1:3]
                                   for el in acts],
             actuator_armature=[el.attrs.get("armature", 0.0) for el in acts],
             # one control input per actuator, no delay line (mujoco 4 fields)
             actuator_ctrladr=np.arange(n), actuator_ctrlnum=np.ones(n, int),
             actuator_historyadr=np.full(n, -1),
             actuator_plugin=aplug)
    c.names["actuator"] = [el.name for el in acts]
    c._user("actuator", [el.attrs.get("user", ()) for el in acts])
