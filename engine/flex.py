"""Flex kinematics (seed 001 "Deformable objects"; MuJoCo's mj_flex in mj_fwdPosition and the
flex edge velocities of mj_fwdVelocity).

Position stage, after comPos and camlight (MuJoCo's order):
- ``flexvert_xpos``: each vertex in the world frame: its body's position plus, unless the flex is
  centered (all vertices at their bodies' origins), the body rotation applied to ``flex_vert``;
- ``flexelem_aabb``: each element's box (centre, half sizes) over its vertices, grown by the
  flex radius;
- ``flexedge_length`` (length) and ``flexedge_J`` (the length's gradient in joint space, a sparse
  row per edge over the columns flexedge_J_colind the compiler laid out: the dofs of both vertex
  bodies' chains), for the edges of non-rigid flexes; the Jacobian only where a built-in force
  needs it (edge equality, edge stiffness or damping, flex damping), as MuJoCo.
Velocity stage: ``flexedge_velocity = flexedge_J qvel``.

Interpolated flexes (nodes) are rejected by the compiler; not handled here.
"""
from __future__ import annotations

import math

from . import math as mm
from ._access import f1, f2, i1, i2, u1
from ._jit import kernel
from ._layout import DF, MF
from .support import last_dof


@kernel
def flex_vertices(
    # Model:
    flex_vertadr, flex_vertnum, flex_centered, flex_vertbodyid, flex_vert,
    # Data in:
    xpos, xmat,
    # Data out:
    flexvert_xpos,
):
    """flexvert_xpos = xpos[body] (+ xmat[body] flex_vert when not centered)."""
    for f in range(flex_vertadr.shape[0]):
        for i in range(flex_vertadr[f], flex_vertadr[f] + flex_vertnum[f]):
            b = flex_vertbodyid[i]
            if flex_centered[f]:
                for k in range(3):
                    flexvert_xpos[i, k] = xpos[b, k]
            else:
                r = xmat[b]
                v = flex_vert[i]
                for k in range(3):
                    flexvert_xpos[i, k] = (r[3 * k] * v[0] + r[3 * k + 1] * v[1]
                                           + r[3 * k + 2] * v[2]) + xpos[b, k]


@kernel
def flex_aabb(
    # Model:
    flex_dim, flex_vertadr, flex_elemadr, flex_elemnum, flex_elemdataadr, flex_elem,
    flex_radius,
    # Data in:
    flexvert_xpos,
    # Data out:
    flexelem_aabb,
):
    """flexelem_aabb: (centre, half size + radius) of each element's vertices."""
    for f in range(flex_dim.shape[0]):
        dim = flex_dim[f]
        va = flex_vertadr[f]
        for e in range(flex_elemnum[f]):
            ed = flex_elemdataadr[f] + e * (dim + 1)
            out = flexelem_aabb[flex_elemadr[f] + e]
            for j in range(3):
                lo = flexvert_xpos[va + flex_elem[ed], j]
                hi = lo
                for i in range(1, dim + 1):
                    x = flexvert_xpos[va + flex_elem[ed + i], j]
                    lo = min(lo, x)
                    hi = max(hi, x)
                out[j] = 0.5 * (hi + lo)
                out[3 + j] = 0.5 * (hi - lo) + flex_radius[f]


@kernel
def _add_chain(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid, subtree_com,
               cdof, point, body, dirv, scale, colind, adr, nnz, J):
    """J[adr + c] += scale * dirv' jacp(point, body)[:, colind[adr + c]] for the dofs of the
    body's chain (each found in the row's sorted columns)."""
    off = mm.sub3(point, subtree_com[body_rootid[body]])
    k = last_dof(body_parentid, body_dofnum, body_dofadr, body)
    c = nnz - 1
    while k >= 0:
        # the chain visits dofs in decreasing order, as the columns are stored increasing
        while c >= 0 and colind[adr + c] > k:
            c -= 1
        if c >= 0 and colind[adr + c] == k:
            d = cdof[k]
            lin = mm.add3((d[3], d[4], d[5]), mm.cross3((d[0], d[1], d[2]), off))
            J[adr + c] += scale * mm.dot3(dirv, lin)
        k = dof_parentid[k]


@kernel
def flex_edges(
    # Model:
    flex_vertadr, flex_edgeadr, flex_edgenum, flex_edge, flex_vertbodyid, flex_rigid,
    flex_interp, flex_edgeequality, flex_edgedamping, flex_edgestiffness, flex_damping,
    flexedge_J_rownnz, flexedge_J_rowadr, flexedge_J_colind,
    body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
    # Data in:
    flexvert_xpos, subtree_com, cdof,
    # Data out:
    flexedge_length, flexedge_J,
):
    """flexedge_length and the sparse flexedge_J of the edges of non-rigid flexes."""
    for f in range(flex_vertadr.shape[0]):
        if flex_rigid[f] or flex_interp[f]:
            continue
        needj = (flex_edgeequality[f] != 0 or flex_edgedamping[f] != 0.0
                 or flex_edgestiffness[f] != 0.0 or flex_damping[f] != 0.0)
        va = flex_vertadr[f]
        for e in range(flex_edgeadr[f], flex_edgeadr[f] + flex_edgenum[f]):
            v1 = va + flex_edge[e, 0]
            v2 = va + flex_edge[e, 1]
            p1 = (flexvert_xpos[v1, 0], flexvert_xpos[v1, 1], flexvert_xpos[v1, 2])
            p2 = (flexvert_xpos[v2, 0], flexvert_xpos[v2, 1], flexvert_xpos[v2, 2])
            d = mm.sub3(p2, p1)
            n = math.sqrt(mm.dot3(d, d))
            flexedge_length[e] = n
            # mju_normalize3: a (near) zero vector becomes the x axis
            if n < 1e-15:
                vec = (1.0, 0.0, 0.0)
            else:
                vec = (d[0] / n, d[1] / n, d[2] / n)
            if not needj:
                continue
            adr, nnz = flexedge_J_rowadr[e], flexedge_J_rownnz[e]
            for c in range(nnz):
                flexedge_J[adr + c] = 0.0
            _add_chain(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                       subtree_com, cdof, p2, flex_vertbodyid[v2], vec, 1.0, flexedge_J_colind,
                       adr, nnz, flexedge_J)
            _add_chain(body_parentid, body_rootid, body_dofnum, body_dofadr, dof_parentid,
                       subtree_com, cdof, p1, flex_vertbodyid[v1], vec, -1.0,
                       flexedge_J_colind, adr, nnz, flexedge_J)


@kernel
def flex(M, D):
    """mj_flex: flexvert_xpos, flexelem_aabb, flexedge_length, flexedge_J."""
    if i1(M, MF.flex_dim).shape[0] == 0:
        return
    flex_vertices(i1(M, MF.flex_vertadr), i1(M, MF.flex_vertnum), u1(M, MF.flex_centered),
                  i1(M, MF.flex_vertbodyid), f2(M, MF.flex_vert),
                  f2(D, DF.xpos), f2(D, DF.xmat), f2(D, DF.flexvert_xpos))
    flex_aabb(i1(M, MF.flex_dim), i1(M, MF.flex_vertadr), i1(M, MF.flex_elemadr),
              i1(M, MF.flex_elemnum), i1(M, MF.flex_elemdataadr), i1(M, MF.flex_elem),
              f1(M, MF.flex_radius), f2(D, DF.flexvert_xpos), f2(D, DF.flexelem_aabb))
    flex_edges(i1(M, MF.flex_vertadr), i1(M, MF.flex_edgeadr), i1(M, MF.flex_edgenum),
               i2(M, MF.flex_edge), i1(M, MF.flex_vertbodyid), u1(M, MF.flex_rigid),
               i1(M, MF.flex_interp), i1(M, MF.flex_edgeequality), f1(M, MF.flex_edgedamping),
               f1(M, MF.flex_edgestiffness), f1(M, MF.flex_damping),
               i1(M, MF.flexedge_J_rownnz), i1(M, MF.flexedge_J_rowadr),
               i1(M, MF.flexedge_J_colind), i1(M, MF.body_parentid), i1(M, MF.body_rootid),
               i1(M, MF.body_dofnum), i1(M, MF.body_dofadr), i1(M, MF.dof_parentid),
               f2(D, DF.flexvert_xpos), f2(D, DF.subtree_com), f2(D, DF.cdof),
               f1(D, DF.flexedge_length), f1(D, DF.flexedge_J))


@kernel
def flex_velocity(M, D):
    """flexedge_velocity = flexedge_J qvel (the edges whose Jacobian mj_flex computed)."""
    rownnz = i1(M, MF.flexedge_J_rownnz)
    if rownnz.shape[0] == 0:
        return
    rowadr = i1(M, MF.flexedge_J_rowadr)
    colind = i1(M, MF.flexedge_J_colind)
    J = f1(D, DF.flexedge_J)
    qvel = f1(D, DF.qvel)
    vel = f1(D, DF.flexedge_velocity)
    for e in range(rownnz.shape[0]):
        s = 0.0
        for c in range(rowadr[e], rowadr[e] + rownnz[e]):
            s += J[c] * qvel[colind[c]]
        vel[e] = s


@kernel
def flex_edge_passive(M, D, spring, damper, qfrc_spring, qfrc_damper):
    """Flex edge spring-dampers (MuJoCo's mj_passive, "flexedge-level spring-dampers"): along
    each non-rigid edge of a non-rigid flex, force stiffness (length0 - length) into
    qfrc_spring and -damping velocity into qfrc_damper, mapped by the edge Jacobian. Explicit
    under every integrator: mujoco 4.0.0 adds no edge-damping term to qDeriv (measured: its
    qDeriv stays 0 and the implicit / implicitfast trajectories match this force alone). ``spring``
    / ``damper``: not disabled (mjDSBL_SPRING / mjDSBL_DAMPER)."""
    stiff = f1(M, MF.flex_edgestiffness)
    damp = f1(M, MF.flex_edgedamping)
    if stiff.shape[0] == 0:
        return
    rigid = u1(M, MF.flex_rigid)
    erigid = u1(M, MF.flexedge_rigid)
    edgeadr = i1(M, MF.flex_edgeadr)
    edgenum = i1(M, MF.flex_edgenum)
    length0 = f1(M, MF.flexedge_length0)
    rownnz = i1(M, MF.flexedge_J_rownnz)
    rowadr = i1(M, MF.flexedge_J_rowadr)
    colind = i1(M, MF.flexedge_J_colind)
    length = f1(D, DF.flexedge_length)
    vel = f1(D, DF.flexedge_velocity)
    J = f1(D, DF.flexedge_J)
    for f in range(stiff.shape[0]):
        k = stiff[f] if spring else 0.0
        b = damp[f] if damper else 0.0
        if rigid[f] or (k == 0.0 and b == 0.0):
            continue
        for e in range(edgeadr[f], edgeadr[f] + edgenum[f]):
            if erigid[e]:
                continue
            fs = k * (length0[e] - length[e])
            fd = -b * vel[e]
            for c in range(rowadr[e], rowadr[e] + rownnz[e]):
                qfrc_spring[colind[c]] += J[c] * fs
                qfrc_damper[colind[c]] += J[c] * fd


def check_flex_supported(m):
    """NotImplementedError naming the flex feature a model uses that the simulation does not
    build yet (compiled fields and kinematics are built for every flex; flex collisions whose
    routine is not built raise from the collision stage, engine/collision/flex.py)."""
    if not m.nflex:
        return
    names = [m.names[a:m.names.index(b"\0", a)].decode() for a in m.name_flexadr]
    for f in range(m.nflex):
        name = names[f] or f"#{f}"
        if m.flex_stiffnessadr[f] >= 0 or m.flex_bendingadr[f] >= 0 or m.flex_damping[f]:
            raise NotImplementedError(f"flex '{name}': elasticity forces (<elasticity young / "
                                      "damping>) are not supported yet")
