"""MjData: the simulation workspace: state, controls and every computed quantity (seed 001, "mjData").

Fields are numpy views into the data's arena (see `engine._layout`), named as mjData's; assigning
to a field copies into it, so ``d.qpos = q`` and ``d.qpos[:] = q`` are the same.
"""
from __future__ import annotations

import numpy as np

from ._layout import DATA_FIELDS, DTYPES, JAC_ROW_WIDTH, SPARSE_NV, Arena, constraint_pools
from .enums import mjtEq, mjtJacobian
from .model import NAMED_KINDS, _Fields, _Named, declare_fields
from .structs import struct_class

# Data fields per named object kind: kind -> (prefix-or-field list, how rows are found).
_BODY_FIELDS = ("xpos", "xquat", "xmat", "xipos", "ximat", "xiquat", "subtree_com", "cinert",
                "crb", "cvel", "subtree_linvel", "subtree_angmom", "cacc", "cfrc_int",
                "cfrc_ext", "xfrc_applied")


class MjWarningStat:
    """One entry of ``d.warning``: how many times warning i happened and its last info value,
    read from the arena (warning_number / warning_lastinfo) where compiled code counts them."""

    __slots__ = ("_l", "_n", "_i")

    def __init__(self, lastinfo, number, i):
        self._l, self._n, self._i = lastinfo, number, i

    @property
    def lastinfo(self):
        return int(self._l[self._i])

    @lastinfo.setter
    def lastinfo(self, v):
        self._l[self._i] = v

    @property
    def number(self):
        return int(self._n[self._i])

    @number.setter
    def number(self, v):
        self._n[self._i] = v

    def __repr__(self):
        return f"<MjWarningStat lastinfo={self.lastinfo} number={self.number}>"


class _WarningStatList:
    """``d.warning``: one MjWarningStat per mjtWarning, as the bindings' list: ``d.warning[i]``
    is warning i's record, ``d.warning.number`` / ``d.warning.lastinfo`` the arena's arrays
    over all warnings (writable views)."""

    __slots__ = ("lastinfo", "number")

    def __init__(self, lastinfo, number):
        self.lastinfo, self.number = lastinfo, number

    def __len__(self):
        return len(self.number)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        i = int(i)
        if not 0 <= i < len(self):
            raise IndexError(f"warning index {i} out of range [0, {len(self)})")
        return MjWarningStat(self.lastinfo, self.number, i)

    def __iter__(self):
        return (MjWarningStat(self.lastinfo, self.number, i) for i in range(len(self)))


# Bytes one contact takes in the arena (a constraint row: _mujoco_row_bytes).
DEFAULT_MEMORY = 16 << 20   # bytes of contacts and constraint rows without <size memory>
_CONTACT_BYTES = 8 * (1 + 3 + 9 + 1 + 5 + 2 + 2 + 5 + 1 + 36) + 4 * 12


def is_sparse(model):
    """mj_isSparse for a compiled model: opt.jacobian SPARSE, or AUTO with nv >= 60."""
    jac = int(model.opt.jacobian)
    return jac == mjtJacobian.mjJAC_SPARSE or (jac == mjtJacobian.mjJAC_AUTO
                                               and model.nv >= SPARSE_NV)


def default_arena_bytes(model):
    """The arena mujoco 4.0.0's compiler gives a model without ``<size memory>`` (its
    ``m.narena``; bytes): room for ``nconmax`` (100 when unset) contacts and ``njmax`` (500)
    dense constraint rows with their nv-wide Jacobians and njmax x njmax matrices, a stack of
    5 (njmax + neq + nv)^2 + 20 (element counts) doubles, rounded up to whole MiB (seed 000
    "size/memory": -1 "instructs the compiler to guess"; the guess measured equal on every
    corpus model, test_capacity_covers_mujoco_arena)."""
    nconmax = 100 if model.nconmax == -1 else int(model.nconmax)
    njmax = 500 if model.njmax == -1 else int(model.njmax)
    nv, neq = int(model.nv), int(model.neq)
    count = (model.nq + nv + model.nu + model.na + model.nbody + model.njnt + model.ngeom
             + model.nsite + neq + model.ntendon + model.nwrap)
    stack = 8 * max(1000, 5 * (njmax + neq + nv) ** 2 + 20 * int(count))
    rows = (nconmax * _CONTACT_BYTES + njmax * (8 * 4 + 14 * 8) + nv * 3 * 4
            + njmax * nv * (2 * 4 + 2 * 8) + njmax * njmax * (4 + 8))
    mib = 1 << 20
    return -(-(stack + rows) // mib) * mib


def _mujoco_row_bytes(model):
    """What a constraint row takes of mujoco's arena, at least: its 8 int and 14 double scalars
    (default_arena_bytes' per-row term) and an int and a double for each Jacobian entry in the
    row and its transpose (nv when dense, at most JAC_ROW_WIDTH on average when sparse). The
    engine's own row costs more (its pools, _layout.row_bytes: 2 KB sparse): counting rows at
    mujoco's price holds every row mujoco's arena holds (active_adhesion's 10M: 6626 rows at
    ~0.9 KB each in mujoco, 5221 at the engine's price)."""
    nnz = min(model.nv, JAC_ROW_WIDTH) if is_sparse(model) else model.nv
    return 8 * 4 + 14 * 8 + 2 * nnz * (4 + 8)


def capacity(model):
    """How many contacts and constraint rows an MjData of this model can hold: (nconcap, njcap).

    Seed 001 "Memory allocation": the dynamic arrays are allocated once, sized by
    ``<size memory>`` (bytes), else mujoco's own guess (default_arena_bytes, at least
    DEFAULT_MEMORY). The budget goes whole to the contacts and whole to the rows, each row
    counted at mujoco's price (_mujoco_row_bytes; the engine allocates its own, larger, pools
    for that many, _layout.row_bytes): mujoco spends one arena on both as a step needs, so each
    kind alone may fill it (a pile of 30 overlapping bodies: 8612 rows in mujoco's 22 MiB;
    active_adhesion's 10M: 6626 rows; cube_3x3x3: 162 rows of its 600K); the pages a step never
    touches are never mapped. The legacy ``nconmax``/``njmax`` set the counts directly. Without
    any, never fewer than max(100, 4*ngeom) contacts.
    Exceeding a capacity is an error (`engine.errors.ArenaFullError`) naming these attributes.
    """
    nv = model.nv
    fixed = 6 * model.neq + nv + 2 * model.njnt + 2 * model.ntendon
    # a flex edge equality makes a row per edge of its flex
    for i in np.flatnonzero(np.asarray(model.eq_type) == int(mjtEq.mjEQ_FLEX)):
        fixed += int(model.flex_edgenum[model.eq_obj1id[i]])
    memory = model.__dict__.get("narena", -1)
    given = memory is not None and memory > 0
    budget = memory if given else max(DEFAULT_MEMORY, default_arena_bytes(model))
    ncon_mem = max(1, budget // _CONTACT_BYTES)
    nj_mem = max(1, budget // _mujoco_row_bytes(model))
    if model.nconmax > 0:
        ncon = model.nconmax
    elif given:
        ncon = ncon_mem
    else:
        ncon = max(100, 4 * model.ngeom, ncon_mem)
    guess = max(100, 4 * model.ngeom)
    if model.njmax > 0:
        nj = model.njmax
    elif given:
        nj = nj_mem
    else:
        nj = max(fixed + 6 * guess, nj_mem)
    return int(ncon), int(nj)


mjNISLAND, mjNSOLVER = 20, 200   # solver_niter/solver_nnz per island; stat records per island


class MjSolverStat:
    """One solver iteration's statistics (seed 001 "Diagnostics"; mujoco's MjSolverStat): a view
    of one row of the arena's solver_stat (improvement, gradient, lineslope, nactive, nchange,
    neval, nupdate)."""

    __slots__ = ("_r",)
    _FLOAT = ("improvement", "gradient", "lineslope")
    _INT = ("nactive", "nchange", "neval", "nupdate")

    def __init__(self, row):
        object.__setattr__(self, "_r", row)

    def __getattr__(self, name):
        if name in MjSolverStat._FLOAT:
            return float(self._r[MjSolverStat._FLOAT.index(name)])
        if name in MjSolverStat._INT:
            return int(self._r[3 + MjSolverStat._INT.index(name)])
        raise AttributeError(name)

    def __setattr__(self, name, value):
        cols = MjSolverStat._FLOAT + MjSolverStat._INT
        if name not in cols:
            raise AttributeError(name)
        self._r[cols.index(name)] = value

    def __repr__(self):
        body = "\n".join(f"  {n}: {getattr(self, n)}" for n in sorted(
            MjSolverStat._FLOAT + MjSolverStat._INT))
        return f"<MjSolverStat\n{body}\n>"


class _SolverStatList:
    """``d.solver``: mjNISLAND*mjNSOLVER MjSolverStat views (island i, iteration k at
    i*mjNSOLVER + k), like mujoco's list; ``d.solver.improvement`` (and each other field) is
    that field over all records: a view for the float fields, an int32 copy for the counts
    (the arena keeps them in the float rows)."""

    __slots__ = ("_s",)

    def __init__(self, stat):
        self._s = stat

    def __getattr__(self, name):
        if name in MjSolverStat._FLOAT:
            return self._s[:, MjSolverStat._FLOAT.index(name)]
        if name in MjSolverStat._INT:
            return self._s[:, 3 + MjSolverStat._INT.index(name)].astype(np.int32)
        raise AttributeError(f"'_SolverStatList' object has no attribute '{name}'")

    def __len__(self):
        return self._s.shape[0]

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [MjSolverStat(self._s[j]) for j in range(*k.indices(len(self)))]
        return MjSolverStat(self._s[k])

    def __iter__(self):
        return (MjSolverStat(r) for r in self._s)


# mjContact's fields, in its order, as the arena stores them (contact_<field>, one row per
# contact): name -> (dtype, count) (seed 001, "mjContact"). mujoco 4.0.0's contact also has
# ``adhesion`` and ``surfacevel``, the contact terms of the geom attributes of those names, which
# the engine does not build (a model using them does not load); they are not in the arena.
CONTACT_FIELDS = {name[len("contact_"):]: (dtype, cols) for name, dtype, _, cols in DATA_FIELDS
                  if name.startswith("contact_")}


MjContact = struct_class(
    "MjContact",
    [(k, DTYPES[dt], () if cols == 1 else (cols,), 0, "") for k, (dt, cols) in
     CONTACT_FIELDS.items()],
    """One contact (MuJoCo's mjContact; seed 001 "mjContact"), as ``d.contact[i]`` returns it.

    Geometry, in the world frame: ``dist`` (signed distance, negative in penetration; length),
    ``pos`` (the point midway between the surfaces), ``frame`` (3x3 row-major, flattened: the
    first row is the normal, pointing from geom1 to geom2, the other two span the tangent
    plane). Parameters: ``includemargin`` (distance below which the contact is in the
    constraint), ``friction`` (5: tangent1, tangent2, spin, roll1, roll2), ``solref``,
    ``solreffriction``, ``solimp``, ``mu`` (friction of the regularised cone), ``H`` (6x6 cone
    Hessian, flattened). Identity: ``dim`` (1, 3, 4 or 6), ``geom1``/``geom2`` and ``geom``
    (both ids), ``flex``, ``elem``, ``vert`` (-1: none), ``exclude`` (0 include, 1 in the gap,
    2 fused, 3 no dofs), ``efc_address`` (first constraint row, -1 if none).

    From ``d.contact[i]`` it is a view of row i of the data's contact arrays (writes reach the
    data, and it shows whatever contact i holds later); ``MjContact()`` holds its own zeros, and
    ``copy.copy`` of either is a detached record, as with the bindings.
    """)


def _contact_row(views, i):
    """The MjContact viewing row ``i`` of the arena's contact arrays."""
    return MjContact._view({
        k: (views["contact_" + k][i:i + 1] if cols == 1 else views["contact_" + k][i])
        for k, (_, cols) in CONTACT_FIELDS.items()})


class _ContactList:
    """``d.contact``: the active contacts, as the bindings' contact list.

    Each field is an array over the contacts (``d.contact.pos`` is ``(ncon, 3)``, writable views
    of the data); ``d.contact[i]`` is the MjContact record of contact i (0 <= i < ncon; like the
    bindings, a negative index is an IndexError), ``d.contact[a:b]`` the list of those contacts,
    and iterating yields the records. The whole list follows ``d.ncon`` as the data steps; a
    sliced list keeps the contact indices it was made with.
    """

    __slots__ = ("_d", "_idx")

    def __init__(self, d, idx=None):
        self._d = d
        self._idx = idx      # None: the live list; else a range of contact indices

    def _range(self):
        if self._idx is not None:
            return self._idx
        return range(int(self._d.__dict__["ncon"][0]))

    def __len__(self):
        return len(self._range())

    def __getitem__(self, key):
        r = self._range()
        if isinstance(key, slice):
            return _ContactList(self._d, r[key])
        i = int(key)
        if not 0 <= i < len(r):
            raise IndexError(f"contact index {i} out of range [0, {len(r)})")
        return _contact_row(self._d.__dict__["_arena"].views, r[i])

    def __iter__(self):
        views = self._d.__dict__["_arena"].views
        return (_contact_row(views, i) for i in self._range())

    def __repr__(self):
        return f"<engine contact list: {len(self)} contacts>"


def _contact_column(name):
    def get(self):
        a = self._d.__dict__["contact_" + name]
        r = self._range()
        # a range's stop is -1 only when a negative step runs through index 0
        return a[r.start:(r.stop if r.stop >= 0 else None):r.step]
    return property(get, doc=f"contact {name} of every contact in the list (a view)")


for _k in CONTACT_FIELDS:
    setattr(_ContactList, _k, _contact_column(_k))
del _k


class MjData(_Fields):
    """The simulation state and workspace for one model. ``MjData(m)`` is reset to qpos0."""

    def __init__(self, model):
        from . import argcheck
        argcheck.model(model, "MjData")
        sizes = {k: getattr(model, k) for k in model._arena_sizes()}
        sizes["nconcap"], sizes["njcap"] = capacity(model)
        sizes.update(constraint_pools(model.nv, model.nM, sizes["njcap"], is_sparse(model)))
        arena = Arena(DATA_FIELDS, sizes)
        d = self.__dict__
        d["model"] = model
        d["_msig"] = model._sig   # the same object: mj_step's pairing check is one `is`
        d["_arena"] = arena
        d["_A"] = arena.buffers()
        for name, view in arena.views.items():
            d[name] = view
        d["warning"] = _WarningStatList(arena.views["warning_lastinfo"],
                                        arena.views["warning_number"])
        d["contact"] = _ContactList(self)
        if model.nplugin:   # seed 002: plugin state and each instance's init (mj_makeData)
            from .plugin.pipeline import init_data
            init_data(model, self)
        from .io import mj_resetData  # as in MuJoCo, the reset lives with the I/O functions
        mj_resetData(model, self)   # (d.history too: engine.history.init_data)

    @property
    def time(self):
        return float(self.__dict__["_arena"].views["time"][0])

    @time.setter
    def time(self, value):
        self.__dict__["_arena"].views["time"][0] = value

    # Counts of the dynamic arrays, as ints (stored in the arena so compiled code sets them).
    ncon = property(lambda self: int(self.__dict__["_arena"].views["ncon"][0]))
    ne = property(lambda self: int(self.__dict__["_arena"].views["ne"][0]))
    nf = property(lambda self: int(self.__dict__["_arena"].views["nf"][0]))
    nl = property(lambda self: int(self.__dict__["_arena"].views["nl"][0]))
    nefc = property(lambda self: int(self.__dict__["_arena"].views["nefc"][0]))
    nJ = property(lambda self: int(self.__dict__["_arena"].views["nJ"][0]))
    nisland = property(lambda self: int(self.__dict__["_arena"].views["nisland"][0]))
    nidof = property(lambda self: int(self.__dict__["_arena"].views["nidof"][0]))
    # sleep counters (engine.sleep): awake trees, awake-or-static bodies, bodies whose parent
    # is awake or static, awake dofs
    ntree_awake = property(lambda self: int(self.__dict__["_arena"].views["ntree_awake"][0]))
    nbody_awake = property(lambda self: int(self.__dict__["_arena"].views["nbody_awake"][0]))
    nparent_awake = property(
        lambda self: int(self.__dict__["_arena"].views["nparent_awake"][0]))
    nv_awake = property(lambda self: int(self.__dict__["_arena"].views["nv_awake"][0]))

    @property
    def solver(self):
        """Solver statistics, mjNISLAND*mjNSOLVER records (island i's iteration k at
        i*mjNSOLVER + k), each with improvement, gradient, lineslope, nactive, nchange, neval,
        nupdate as mujoco's MjSolverStat (a view of the arena's solver_stat rows)."""
        return _SolverStatList(self.__dict__["_arena"].views["solver_stat"])

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

    # ---- copy and pickle (engine._copy): copy.copy shares the model, copy.deepcopy copies it,
    # a pickle carries it, as the bindings do
    def __copy__(self):
        from ._copy import clone
        return clone(self)

    def __deepcopy__(self, memo):
        from ._copy import clone
        return clone(self, memo, deep_model=True)

    def __reduce__(self):
        from ._copy import reduce
        return reduce(self)

    def __repr__(self):
        return f"<engine.MjData time={self.time:.6g}>"


def _efc_property(name):
    # Constraint rows live in fixed-capacity arrays; like mujoco, d.efc_* shows the nefc
    # active ones, and efc_J / efc_J_colind their nJ flat entries: nefc*nv dense rows, or
    # MuJoCo's compressed rows when the Jacobian is sparse (engine/constraint.py docstring).
    if name in ("efc_J", "efc_J_colind"):
        def get(self):
            v = self.__dict__["_arena"].views
            return v[name].reshape(-1)[:int(v["nJ"][0])]
        return property(get, doc=f"d.{name}: the nJ entries of the constraint Jacobian")

    def get(self):
        v = self.__dict__["_arena"].views
        return v[name][:int(v["nefc"][0])]
    return property(get, doc=f"d.{name} for the nefc active constraint rows")


def _counted_property(name, count):
    # Island arrays are allocated for the largest case (ntree islands, nv dofs, njcap rows);
    # like mujoco, d.<name> shows the first nisland / nidof / nefc entries.
    def get(self):
        v = self.__dict__["_arena"].views
        return v[name][:int(v[count][0])]
    return property(get, doc=f"d.{name}: its first {count} entries")


for _name, *_ in DATA_FIELDS:
    if _name.startswith("efc_"):
        setattr(MjData, _name, _efc_property(_name))
    elif _name.startswith(("iefc_", "map_efc2iefc", "map_iefc2efc")):
        setattr(MjData, _name, _counted_property(_name, "nefc"))
    elif _name.startswith("island_"):
        setattr(MjData, _name, _counted_property(_name, "nisland"))
    elif _name in ("ifrc_smooth", "iacc_smooth", "iacc", "ifrc_constraint"):
        setattr(MjData, _name, _counted_property(_name, "nidof"))

declare_fields(MjData, [f for f, *_ in DATA_FIELDS] + ["model", "warning", "contact"],
               lambda f: f"d.{f}: mjData's field of this name (seed 001, \"mjData\")")

__all__ = ["MjData", "MjContact", "MjWarningStat", "MjSolverStat", "NAMED_KINDS", "capacity",
           "mjNISLAND", "mjNSOLVER"]
