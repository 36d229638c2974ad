"""Contact adhesion (MuJoCo 4's ``<geom adhesion>`` / ``<pair adhesion>``): contacts that can pull.

What it is (MuJoCo 4.0.0 documentation, XML reference "geom/adhesion" and the Computation chapter,
"Adhesion"; the seeds predate it, so the numbers below were also measured on mujoco 4.0.0): a
contact of adhesive force delta (a force, in the model's force units) has its feasible force set,
the friction cone, translated down the contact normal by delta. MuJoCo factors this exactly
without touching the cone machinery:

- a constant attraction of delta along the normal is a passive force,
  ``qfrc_adhesion = -delta J_n'`` (J_n: the normal row of the contact's Jacobian, the derivative
  of its distance; so geom2 is pulled towards geom1), added to ``qfrc_passive``;
- the contact's reference acceleration is biased by ``R delta``: the normal row of an elliptic or
  frictionless contact gets ``efc_R delta``; a pyramidal contact's 2 (dim - 1) edges share it,
  each ``efc_R delta / (2 (dim - 1))``;
- the force reported by mj_contactForce (and so touch and contact sensors, cfrc_ext) is the net
  interface force, the normal component minus delta (negative under tension); ``efc_force``
  keeps the solver's (biased) value.

The adhesion of a contact (``mjContact.adhesion``, ``contact_adhesion``) is the explicit pair's
``pair_adhesion``, else the higher-priority geom's ``geom_adhesion``, else the sum of the two.
An adhesive contact in the gap band (distance between margin and margin + gap) stays in the
constraint, as a frictionless (dim 1) contact, so that it pulls across the gap (magnets); without
adhesion such a contact is excluded (``exclude`` 1). With springs and dampers both disabled there
are no passive forces and no adhesion force either (measured).
"""
from __future__ import annotations

from ._access import f1, f2, i1, i2, is_
from ._jit import kernel
from ._layout import DF, MF
from .support import add_point_jac_dot

from .enums import mjCONE_ELLIPTIC as _CONE_ELLIPTIC  # noqa: E402


@kernel
def contact_adhesion(geom_priority, geom_adhesion, pair_adhesion, g1, g2, pairid):
    """The adhesive force (force units) of a contact of geoms g1, g2 from explicit pair
    ``pairid`` (-1: an automatic pair): the pair's value, else the higher-priority geom's,
    else the sum of both geoms' values."""
    if pairid >= 0:
        return pair_adhesion[pairid]
    p1, p2 = geom_priority[g1], geom_priority[g2]
    if p1 > p2:
        return geom_adhesion[g1]
    if p2 > p1:
        return geom_adhesion[g2]
    return geom_adhesion[g1] + geom_adhesion[g2]


@kernel
def adhesion_passive(M, D, qfrc_adhesion):
    """qfrc_adhesion (nv, generalized forces) = sum over the contacts in the constraint of
    -adhesion J_n' (J_n: the contact normal's Jacobian at contact_pos, geom2's body minus geom1's);
    zero without adhesive contacts."""
    qfrc_adhesion[:] = 0.0
    adh = f1(D, DF.contact_adhesion)
    adr = i1(D, DF.contact_efc_address)
    cgeom = i2(D, DF.contact_geom)
    frame = f2(D, DF.contact_frame)
    cpos = f2(D, DF.contact_pos)
    gbody = i1(M, MF.geom_bodyid)
    parent, root = i1(M, MF.body_parentid), i1(M, MF.body_rootid)
    dofnum, dofadr = i1(M, MF.body_dofnum), i1(M, MF.body_dofadr)
    dof_parent = i1(M, MF.dof_parentid)
    com, cdof = f2(D, DF.subtree_com), f2(D, DF.cdof)
    for c in range(i1(D, DF.ncon)[0]):
        delta = adh[c]
        if delta == 0.0 or adr[c] < 0:
            continue
        n = (frame[c, 0], frame[c, 1], frame[c, 2])
        p = (cpos[c, 0], cpos[c, 1], cpos[c, 2])
        # geom2 is pulled along -n, geom1 along +n (the normal points from geom1 to geom2)
        add_point_jac_dot(parent, root, dofnum, dofadr, dof_parent, com, cdof, p,
                          gbody[cgeom[c, 1]], n, -delta, qfrc_adhesion)
        add_point_jac_dot(parent, root, dofnum, dofadr, dof_parent, com, cdof, p,
                          gbody[cgeom[c, 0]], n, delta, qfrc_adhesion)


@kernel
def adhesion_bias(M, D):
    """efc_aref of adhesive contacts += R delta: the normal row of an elliptic or frictionless
    contact, or R delta / (2 (dim - 1)) on each edge of a pyramidal one (after the reference
    acceleration of every row is computed)."""
    adh = f1(D, DF.contact_adhesion)
    adr = i1(D, DF.contact_efc_address)
    dim = i1(D, DF.contact_dim)
    efc_R = f1(D, DF.efc_R)
    aref = f1(D, DF.efc_aref)
    elliptic = is_(M, MF.opt_cone) == _CONE_ELLIPTIC
    for c in range(i1(D, DF.ncon)[0]):
        delta = adh[c]
        r = adr[c]
        if delta == 0.0 or r < 0:
            continue
        if dim[c] == 1 or elliptic:
            aref[r] += efc_R[r] * delta
        else:
            nrow = 2 * (dim[c] - 1)
            for j in range(r, r + nrow):
                aref[j] += efc_R[j] * delta / nrow
