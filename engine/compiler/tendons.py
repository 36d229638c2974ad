"""Tendon phase of the compiler (seed 000 "tendon": <spatial> and <fixed>; `Compiler` mixin):
the wrap arrays (wrap_type / wrap_objid / wrap_prm), tendon_adr / tendon_num, the tendons' limits,
springs and friction, and the checks of a spatial tendon's path, with mujoco's messages.
"""
from __future__ import annotations

from ._err import err


class TendonPhases:
    """The tendon phase of `engine.compiler.builder.Compiler` (a mixin: it uses the compiler's
    spec, field values ``v``, sizes ``sz``, names and id lookups)."""

    # ==== phase: tendons ============================================================================
    def compile_tendons(self):
        tendons = self.spec.tendons
        v = self.v
        wtype, wobj, wprm = [], [], []
        adr, num = [], []
        limited, actfrclimited, lspring = [], [], []
        for i, el in enumerate(tendons):
            a = el.attrs
            adr.append(len(wtype))
            spatial = el.tag == "spatial"
            if spatial and a["width"] <= 0:   # a NaN width passes in mujoco (measured)
                raise err(el, f"tendon '{el.name or ''}' (id = {i}) must have positive width",
                          "width")
            for p in el.path:
                if p.tag == "joint":
                    wtype.append(1)
                    wobj.append(self._id("joint", p.attrs["joint"], p, "joint"))
                    wprm.append(p.attrs["coef"])
                elif p.tag == "site":
                    sid = self._id("site", p.attrs["site"], p, "site")
                    if len(wtype) > adr[-1] and wtype[-1] == 3 and wobj[-1] == sid:
                        # a zero-length segment (mujoco 4.0.0's message and rule)
                        raise err(el, f"tendon '{el.name or ''}' (id = {i}): site "
                                      f"{len(wtype) - 1 - adr[-1]} is repeated", "site")
                    wtype.append(3)
                    wobj.append(sid)
                    wprm.append(0.0)
                elif p.tag == "pulley":
                    wtype.append(2)
                    wobj.append(-1)
                    if p.attrs["divisor"] <= 0:
                        raise err(p, "pulley divisor must be positive", "divisor")
                    wprm.append(p.attrs["divisor"])
                else:
                    g = self._id("geom", p.attrs["geom"], p, "geom")
                    gt = self.gtype[g]
                    if gt not in (2, 5):
                        raise err(p, "wrapping geom must be a sphere or a cylinder", "geom")
                    wtype.append(4 if gt == 2 else 5)
                    wobj.append(g)
                    side = p.attrs.get("sidesite")
                    wprm.append(self._id("site", side, p, "sidesite") if side else -1)
            num.append(len(wtype) - adr[-1])
            # mujoco 4.0.0's tendon checks and messages, in its order (measured)
            what = f"tendon '{el.name or ''}' (id = {i})"
            if num[-1] == 0:
                raise err(el, f"{what}: path cannot be empty")
            if spatial and num[-1] < 2:
                raise err(el, f"{what}: spatial path must contain at least two objects")
            if not spatial:
                joints = wobj[adr[-1]:]
                for k in range(1, len(joints)):
                    if joints[k] in joints[:k]:
                        raise err(el, f"{what}: joint {k} is repeated")
            if spatial:
                self._check_spatial(el)
            lim, r = a["limited"], a["range"]
            if lim == "auto":   # limited when the range is given and increasing (as joints)
                lim = "true" if "range" in el.given and r[0] < r[1] else "false"
            if lim == "true" and not r[0] < r[1]:
                raise err(el, "invalid limits in tendon", "range")
            limited.append(lim == "true")
            fl, fr = a["actuatorfrclimited"], a["actuatorfrcrange"]
            if fl == "auto":
                fl = "true" if "actuatorfrcrange" in el.given and fr[0] < fr[1] else "false"
            if fl == "true" and fr[0] >= fr[1]:
                raise err(el, "invalid actuatorfrcrange in tendon", "actuatorfrcrange")
            actfrclimited.append(fl == "true")
            sl = a["springlength"]
            # one value means a single spring length (both ends of the dead band)
            lspring.append((sl[0], sl[0]) if sl[1] == -1 and sl[0] != -1 else tuple(sl))
        self.sz.update(ntendon=len(tendons), nwrap=len(wtype))
        treenum, treeid = self._tendon_trees(adr, num, wtype, wobj)
        v.update(tendon_adr=adr, tendon_num=num, wrap_type=wtype, wrap_objid=wobj, wrap_prm=wprm,
                 tendon_treenum=treenum, tendon_treeid=treeid,
                 tendon_limited=limited, tendon_actfrclimited=actfrclimited,
                 tendon_lengthspring=lspring,
                 tendon_actfrcrange=[el.attrs["actuatorfrcrange"] for el in tendons],
                 **self._columns("tendon_", tendons, "group width range margin armature "
                                                     "frictionloss rgba"),
                 tendon_solref_lim=[el.attrs["solreflimit"] for el in tendons],
                 tendon_solimp_lim=[el.attrs["solimplimit"] for el in tendons],
                 tendon_solref_fri=[el.attrs["solreffriction"] for el in tendons],
                 tendon_solimp_fri=[el.attrs["solimpfriction"] for el in tendons],
                 tendon_stiffness=[el.attrs["stiffness"][0] for el in tendons],
                 tendon_stiffnesspoly=[el.attrs["stiffness"][1:3] for el in tendons],
                 tendon_damping=[el.attrs["damping"][0] for el in tendons],
                 tendon_dampingpoly=[el.attrs["damping"][1:3] for el in tendons],
                 tendon_matid=[-1] * len(tendons))
        self.names["tendon"] = [el.name for el in tendons]
        self._user("tendon", [el.attrs.get("user", ()) for el in tendons])

    def _tendon_trees(self, adr, num, wtype, wobj):
        """tendon_treenum and tendon_treeid (ntendon x 2): the kinematic trees of the objects
        along each tendon's path (a joint's, a site's or a wrapping geom's body tree; pulleys,
        side sites and static bodies count none), each tree once, in path order; treeid holds
        the first two, -1 past the count. Structural, like mujoco 4.0.0's: a joint with a zero
        coefficient counts (the island of a tendon row comes from its Jacobian instead)."""
        body_treeid = self.v["body_treeid"]
        owner = {1: self.v["jnt_bodyid"], 3: self.v["site_bodyid"], 4: self.v["geom_bodyid"],
                 5: self.v["geom_bodyid"]}
        treenum, treeid = [], []
        self.tendon_trees = []     # every tree of each tendon (the sleep policy needs them all)
        for a, n in zip(adr, num):
            trees = []
            for w in range(a, a + n):
                if wtype[w] not in owner:
                    continue
                t = int(body_treeid[owner[wtype[w]][wobj[w]]])
                if t >= 0 and t not in trees:
                    trees.append(t)
            treenum.append(len(trees))
            treeid.append((trees + [-1, -1])[:2])
            self.tendon_trees.append(trees)
        return treenum, treeid

    def _check_spatial(self, el):
        kinds = [p.tag for p in el.path]
        if not kinds or kinds[0] != "site" or kinds[-1] != "site":
            raise err(el, "a spatial tendon path must start and end with a site")
        for i, k in enumerate(kinds):
            if k == "geom" and (kinds[i - 1] != "site" or kinds[i + 1] != "site"):
                raise err(el.path[i], "a wrapping geom must sit between two sites")
