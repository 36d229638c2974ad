"""Constraint islands: mj_island (seed 001, "Constraint islands" of the Computation chapter; seed
000 <option><flag island>: on by default in MuJoCo 4, off with mjDSBL_ISLAND).

An island is a set of kinematic trees joined by constraint rows, with those rows: islands do not
interact, so the solver treats each one as a problem of its own (engine.solver). The position
stage builds them right after the constraint rows (mj_fwdPosition: mj_makeConstraint, then
mj_island). Fields, named and laid out as mjData's:

- trees: ``tree_island`` (ntree; -1: no constraint row touches the tree), ``island_ntree``,
  ``island_itreeadr`` (nisland), ``map_itree2tree`` (ntree: the trees island by island, then the
  unconstrained ones, each group in tree order);
- dofs: ``nidof`` (dofs in islands), ``dof_island`` (nv; -1: unconstrained), ``island_nv``,
  ``island_idofadr`` (start in the island-ordered dof list), ``island_dofadr`` (the island's
  first dof), ``map_dof2idof`` / ``map_idof2dof`` (nv; idof >= nidof: unconstrained dofs, in dof
  order);
- rows: ``efc_island`` (nefc), ``island_ne``, ``island_nf``, ``island_nefc``, ``island_iefcadr``
  (nisland), ``map_efc2iefc`` / ``map_iefc2efc`` (nefc; rows island by island, each island's rows
  in efc order, so equalities, friction, limits, contacts as in efc), and the island-ordered
  copies ``iefc_type``, ``iefc_id``, ``iefc_frictionloss``, ``iefc_D``, ``iefc_R``.

Which trees a constraint couples (from its first row; later rows of the same constraint share
them): a dof's friction loss or a joint limit, the dof's tree; a contact, the trees of its two
geoms' bodies; a connect or weld equality, the trees of its two bodies (of the sites' bodies with
site semantics); any other row (joint/tendon equality, tendon friction and limits), the trees of
the dofs where its Jacobian row is nonzero (dense Jacobian: nonzero values; sparse: the stored
columns, exact zeros included). Static bodies (world, mocap) have tree -1 and couple nothing.
Islands are numbered by their smallest tree (ascending), as MuJoCo's flood fill numbers them.
So a fixed tendon's zero coefficient does not couple its joint's tree (checked against
mujoco 4.0.0, which uses the Jacobian here, not m.tendon_treeid).

Without constraint rows, or with mjDSBL_ISLAND: nisland = nidof = 0, tree_island and dof_island
-1, the map_* arrays and efc_island 0 (what mujoco 4.0.0 shows then).

Workspace: ``sol_tree`` (union-find parents); no allocation.
"""
from __future__ import annotations

from . import argcheck
from ._access import f1, i1, is_
from ._jit import kernel
from ._layout import DF, MF
from .jacobian import is_sparse, jac
from .enums import mjtDisableBit, mjtEq, mjtObj
from .math import gather

# mjtConstraint
from .enums import (mjCNSTR_EQUALITY as _EQUALITY, mjCNSTR_FRICTION_DOF as _FRICTION_DOF,  # noqa
                    mjCNSTR_FRICTION_TENDON as _FRICTION_TENDON,
                    mjCNSTR_LIMIT_JOINT as _LIMIT_JOINT,
                    mjCNSTR_CONTACT_FRICTIONLESS as _FRICTIONLESS,
                    mjCNSTR_CONTACT_ELLIPTIC as _ELLIPTIC)
_EQ_CONNECT, _EQ_WELD = int(mjtEq.mjEQ_CONNECT), int(mjtEq.mjEQ_WELD)
_EQ_FLEX = int(mjtEq.mjEQ_FLEX)
_OBJ_SITE = int(mjtObj.mjOBJ_SITE)
_DSBL_ISLAND = int(mjtDisableBit.mjDSBL_ISLAND)

# fw_status[0] code (fw_status[1]: the row): a constraint row whose Jacobian touches no dof
# (MuJoCo stops with "no tree found for constraint")
STATUS_NOTREE = 13


@kernel
def _root(parent, t):
    while parent[t] != t:
        t = parent[t]
    return t


@kernel
def _join(parent, first, t):
    """Mark tree t as constrained and union it with the island whose root is ``first`` (-1: none
    yet); the smaller root stays the root. Returns the root of the union."""
    if t < 0:
        return first
    if parent[t] < 0:
        parent[t] = t
    r = _root(parent, t)
    if first < 0 or r == first:
        return r
    if r < first:
        parent[first] = r
        return r
    parent[r] = first
    return first


@kernel
def _no_islands(D, nefc):
    i1(D, DF.nisland)[0] = 0
    i1(D, DF.nidof)[0] = 0
    i1(D, DF.tree_island)[:] = -1
    i1(D, DF.map_itree2tree)[:] = 0
    i1(D, DF.dof_island)[:] = -1
    i1(D, DF.map_dof2idof)[:] = 0
    i1(D, DF.map_idof2dof)[:] = 0
    i1(D, DF.efc_island)[:nefc] = 0
    i1(D, DF.map_efc2iefc)[:nefc] = 0
    i1(D, DF.map_iefc2efc)[:nefc] = 0


@kernel
def island(M, D):
    """mj_island: the constraint islands of the rows in D (see the module docstring). Returns
    the number of islands; sets fw_status = STATUS_NOTREE (row in fw_status[1]) and makes no
    islands when a row touches no tree."""
    nefc = i1(D, DF.nefc)[0]
    if nefc == 0 or is_(M, MF.opt_disableflags) & _DSBL_ISLAND:
        _no_islands(D, nefc)
        return 0
    dof_treeid, body_treeid = i1(M, MF.dof_treeid), i1(M, MF.body_treeid)
    tree_dofadr, tree_dofnum = i1(M, MF.tree_dofadr), i1(M, MF.tree_dofnum)
    geom_bodyid, site_bodyid = i1(M, MF.geom_bodyid), i1(M, MF.site_bodyid)
    jnt_dofadr = i1(M, MF.jnt_dofadr)
    eq_type, eq_objtype = i1(M, MF.eq_type), i1(M, MF.eq_objtype)
    eq_obj1id, eq_obj2id = i1(M, MF.eq_obj1id), i1(M, MF.eq_obj2id)
    efc_type, efc_id = i1(D, DF.efc_type), i1(D, DF.efc_id)
    contact_geom1, contact_geom2 = i1(D, DF.contact_geom1), i1(D, DF.contact_geom2)
    nv = dof_treeid.shape[0]
    ntree = tree_dofadr.shape[0]
    sparse = is_sparse(M, nv)
    Jv = jac(M, D)[0]
    rownnz, rowadr = i1(D, DF.efc_J_rownnz), i1(D, DF.efc_J_rowadr)
    colind = i1(D, DF.efc_J_colind)
    parent = i1(D, DF.sol_tree)
    tree_island = i1(D, DF.tree_island)
    efc_island = i1(D, DF.efc_island)   # holds each row's first tree until the islands exist
    for t in range(ntree):
        parent[t] = -1

    # ---- union the trees of each constraint; efc_island[i] = the row's first tree -----------
    for i in range(nefc):
        et, eid = efc_type[i], efc_id[i]
        # (a flex equality's rows are one per edge, each with its own trees)
        if i > 0 and et == efc_type[i - 1] and eid == efc_id[i - 1] and not (
                et == _EQUALITY and eq_type[eid] == _EQ_FLEX):
            efc_island[i] = efc_island[i - 1]      # same constraint as the previous row
            continue
        t1 = -2
        t2 = -2
        if et == _FRICTION_DOF:
            t1 = dof_treeid[eid]
        elif et == _LIMIT_JOINT:
            t1 = dof_treeid[jnt_dofadr[eid]]
        elif et >= _FRICTIONLESS and et <= _ELLIPTIC and contact_geom1[eid] >= 0 and \
                contact_geom2[eid] >= 0:
            # (a flex contact: its trees along its Jacobian row, below)
            t1 = body_treeid[geom_bodyid[contact_geom1[eid]]]
            t2 = body_treeid[geom_bodyid[contact_geom2[eid]]]
        elif et == _EQUALITY and (eq_type[eid] == _EQ_CONNECT or eq_type[eid] == _EQ_WELD):
            b1, b2 = eq_obj1id[eid], eq_obj2id[eid]
            if eq_objtype[eid] == _OBJ_SITE:
                b1, b2 = site_bodyid[b1], site_bodyid[b2]
            t1, t2 = body_treeid[b1], body_treeid[b2]
        first = -1
        if t1 != -2:
            efc_island[i] = t1 if t1 >= 0 else t2
            first = _join(parent, first, t1)
            first = _join(parent, first, t2)
        else:
            # generic: the trees along the Jacobian row, in dof order
            efc_island[i] = -1
            prev = -1
            if sparse:
                adr = rowadr[i]
                for p in range(rownnz[i]):
                    t = dof_treeid[colind[adr + p]]
                    if t != prev:
                        if efc_island[i] < 0:
                            efc_island[i] = t
                        first = _join(parent, first, t)
                        prev = t
            else:
                row = Jv[i * nv:(i + 1) * nv]
                k = 0
                while k < nv:
                    if row[k] != 0.0:
                        t = dof_treeid[k]
                        if t != prev:
                            if efc_island[i] < 0:
                                efc_island[i] = t
                            first = _join(parent, first, t)
                            prev = t
                        k = tree_dofadr[t] + tree_dofnum[t]   # skip the rest of the tree
                    else:
                        k += 1
        if efc_island[i] < 0:
            st = i1(D, DF.fw_status)
            st[0] = STATUS_NOTREE
            st[1] = i
            _no_islands(D, nefc)
            return 0

    # ---- number the islands by their smallest tree --------------------------------------------
    nisland = 0
    for t in range(ntree):
        tree_island[t] = -1
    for t in range(ntree):
        if parent[t] < 0:
            continue
        r = _root(parent, t)
        if r == t:
            tree_island[t] = nisland
            nisland += 1
        else:
            tree_island[t] = tree_island[r]   # r < t: numbered already
    i1(D, DF.nisland)[0] = nisland

    # ---- trees -------------------------------------------------------------------------------
    island_ntree, island_itreeadr = i1(D, DF.island_ntree), i1(D, DF.island_itreeadr)
    map_itree2tree = i1(D, DF.map_itree2tree)
    _group(tree_island, ntree, nisland, island_ntree, island_itreeadr, map_itree2tree,
           parent)

    # ---- dofs --------------------------------------------------------------------------------
    dof_island = i1(D, DF.dof_island)
    for k in range(nv):
        t = dof_treeid[k]
        dof_island[k] = tree_island[t] if t >= 0 else -1
    island_nv, island_idofadr = i1(D, DF.island_nv), i1(D, DF.island_idofadr)
    map_idof2dof, map_dof2idof = i1(D, DF.map_idof2dof), i1(D, DF.map_dof2idof)
    nidof = _group(dof_island, nv, nisland, island_nv, island_idofadr, map_idof2dof,
                   map_dof2idof)
    i1(D, DF.nidof)[0] = nidof
    island_dofadr = i1(D, DF.island_dofadr)
    for s in range(nisland):
        island_dofadr[s] = map_idof2dof[island_idofadr[s]]

    # ---- rows --------------------------------------------------------------------------------
    island_ne, island_nf = i1(D, DF.island_ne), i1(D, DF.island_nf)
    for s in range(nisland):
        island_ne[s] = 0
        island_nf[s] = 0
    for i in range(nefc):
        s = tree_island[efc_island[i]]
        efc_island[i] = s
        if efc_type[i] == _EQUALITY:
            island_ne[s] += 1
        elif efc_type[i] == _FRICTION_DOF or efc_type[i] == _FRICTION_TENDON:
            island_nf[s] += 1
    island_nefc, island_iefcadr = i1(D, DF.island_nefc), i1(D, DF.island_iefcadr)
    map_iefc2efc, map_efc2iefc = i1(D, DF.map_iefc2efc), i1(D, DF.map_efc2iefc)
    _group(efc_island, nefc, nisland, island_nefc, island_iefcadr, map_iefc2efc, map_efc2iefc)
    # the island-ordered copies of the position-dependent row data the solver reads
    gather(i1(D, DF.iefc_type), efc_type, map_iefc2efc, nefc)
    gather(i1(D, DF.iefc_id), efc_id, map_iefc2efc, nefc)
    gather(f1(D, DF.iefc_frictionloss), f1(D, DF.efc_frictionloss), map_iefc2efc, nefc)
    gather(f1(D, DF.iefc_D), f1(D, DF.efc_D), map_iefc2efc, nefc)
    gather(f1(D, DF.iefc_R), f1(D, DF.efc_R), map_iefc2efc, nefc)
    return nisland


@kernel
def _group(item_island, n, nisland, island_n, island_adr, map_i2item, map_item2i):
    """Order items (trees, dofs or rows) by island: island_n = items per island, island_adr its
    cumulative start, map_i2item the items island by island (each island's in item order), then
    the items of no island (island -1) in item order; map_item2i its inverse. Returns the
    number of items in islands."""
    for s in range(nisland):
        island_n[s] = 0
    for k in range(n):
        if item_island[k] >= 0:
            island_n[item_island[k]] += 1
    adr = 0
    for s in range(nisland):
        island_adr[s] = adr
        adr += island_n[s]
    nin = adr
    free = nin
    for s in range(nisland):
        island_n[s] = 0        # counts again as the items are placed
    for k in range(n):
        s = item_island[k]
        if s >= 0:
            j = island_adr[s] + island_n[s]
            island_n[s] += 1
        else:
            j = free
            free += 1
        map_i2item[j] = k
        map_item2i[k] = j
    return nin


def mj_island(m, d):
    """Find the constraint islands of the rows in ``d`` (see the module docstring)."""
    argcheck.pair(m, d, "mj_island")
    island(m._A, d._A)
    if int(d.fw_status[0]) == STATUS_NOTREE:
        raise_status(m, d)


def raise_status(m, d):
    """RuntimeError for STATUS_NOTREE (clears it): MuJoCo stops on such a row too."""
    if int(d.fw_status[0]) != STATUS_NOTREE:
        return
    row = int(d.fw_status[1])
    d.fw_status[0] = 0
    raise RuntimeError(f"constraint row {row} (mjtConstraint {int(d.efc_type[row])}, id "
                       f"{int(d.efc_id[row])}) has a Jacobian touching no degree of freedom, so "
                       "it belongs to no constraint island (MuJoCo stops on such a row: 'no tree "
                       "found for constraint'; with the dense Jacobian it does not make a tendon "
                       "row whose Jacobian is all zero, this engine does)")


__all__ = ["island", "mj_island", "STATUS_NOTREE"]
