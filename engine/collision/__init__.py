"""Collision detection: mj_collision (seed 001, "Contacts"; computation chapter, "Collision
detection"; seed 000: <geom> contype/conaffinity/condim/priority/solmix/solref/solimp/friction/
margin/gap, <contact> <pair>/<exclude>, <option> override and flags contact/constraint/
filterparent).

Stages of `collision(M, D)` (one compiled call, no allocation: workspace rows ``col_*`` of the
SCRATCH_TABLE):
  1. broad phase (engine/collision/broadphase.py): world bounding boxes, sweep and prune, the
     filters for automatically generated pairs, bounding spheres; explicit <pair>s are always
     tested (no filters);
  2. narrow phase (engine/collision/narrowphase.py): contacts of each candidate pair with
     ``dist < margin + gap`` into staging rows;
  3. ordering as MuJoCo's: contacts sorted by body pair (lower body id major), explicit pairs
     before automatic ones of the same body pair, then by geom (pair order of the model, or geom
     of the lower body then geom of the higher body);
  4. contact parameters (mixing by priority and solmix, or the pair's own), frame completion.

Margin and gap (MuJoCo 4 semantics, checked against the oracle): the pair's margin is the sum of
the geoms' margins (the <pair>'s own, or opt.o_margin under the override flag) and its gap the sum
of their gaps (or the <pair>'s); contacts are reported while ``dist <= margin + gap``;
``includemargin = margin``; a contact with ``dist >= margin`` is reported inactive
(``contact.exclude = 1``) and must not make constraint rows; neither does a contact of two
static bodies (no dofs on either side: only an explicit <pair> produces one;
``contact.exclude = 3``, as mujoco 4.0.0 reports it).

Contact geoms: geom1 has the lower geom type (ties: the lower geom id for automatic pairs, the
<pair>'s order otherwise) and the normal (frame row 0) points from geom1 to geom2.
``contact.mu`` is left 0 here (the constraint stage sets it, as MuJoCo's mj_makeConstraint);
``efc_address`` is -1 until the constraint stage sets it; ``flex``/``elem``/``vert`` are -1.

fw_status codes set here (the Python wrapper `mj_collision` raises for 8 and 9):
  6: contact capacity (nconcap) exceeded, fw_status[1] = contacts needed (CONTACTFULL warning);
  8: a geom pair needs a collision routine not built yet, fw_status[1:3] = the two geom types;
  9: an sdf geom pair without a built routine (mesh-sdf, an sdf geom whose distance is not a
     first-party plugin's), fw_status[1] = the sdf geom's id.

SDF geoms: pairs of a primitive or an sdf geom with an sdf geom go to engine/collision/sdf.py
(MuJoCo's mjc_SDF); plane-sdf to the plane-convex routine on the sdf geom's mesh.

Height fields: pairs of an <hfield> geom with a convex geom go to engine/collision/hfield.py
(triangular prisms under the geom, one convex contact per prism, at most 50 per pair).
"""
from __future__ import annotations

import math

from .. import argcheck
from .._access import f1, f2, i1, i2, is_, fs
from .._layout import DF, MF
from .. import sleep
from ..adhesion import contact_adhesion
from . import broadphase as bp
from . import hfield as hf
from . import narrowphase as npx
from .sdf import sdf_collide
from .mixing import apply_override, mix_params
from .flex import KIND_FLEX, STATUS_FLEX, flex_collide, flex_contact_params

from .._jit import kernel

from ..enums import (mjDSBL_CONSTRAINT as DSBL_CONSTRAINT, mjDSBL_CONTACT as DSBL_CONTACT,  # noqa
                     mjDSBL_FILTERPARENT as DSBL_FILTERPARENT, mjDSBL_MULTICCD as DSBL_MULTICCD,
                     mjENBL_OVERRIDE as ENBL_OVERRIDE, mjWARN_CONTACTFULL as WARN_CONTACTFULL)
STATUS_CONTACTFULL, STATUS_NOROUTINE, STATUS_HFIELD = 6, 8, 9
from ..enums import mjMINVAL  # noqa: E402
_MAXPAIR = 50  # rows of col_t*: contacts one pair function may return


@kernel
def pair_contacts(M, D, g1, g2, thr, multiccd):
    """Narrow phase of geoms g1, g2 (type1 <= type2) with detection distance ``thr``: the pair's
    routine (height field prisms, analytic, or the convex collider) writes its contacts into the
    staging rows col_tdist / col_tpos / col_tframe; returns how many (< 0: a status code)."""
    gtype = i1(M, MF.geom_type)
    gdata = i1(M, MF.geom_dataid)
    size = f2(M, MF.geom_size)
    xpos = f2(D, DF.geom_xpos)
    xmat = f2(D, DF.geom_xmat)
    tdist = f1(D, DF.col_tdist)
    tpos = f2(D, DF.col_tpos)
    tframe = f2(D, DF.col_tframe)
    t2 = gtype[g2]
    if t2 == npx.SDF and gtype[g1] != npx.PLANE:
        if gtype[g1] == npx.HFIELD:
            return 0        # MuJoCo's mjc_HFieldSDF: not supported there either, no contacts
        if gtype[g1] == npx.MESH:
            return npx.NEED_SDF     # mjc_MeshSDF (bounding-volume hierarchy): not built
        return sdf_collide(M, D, g1, g2, tdist, tpos, tframe)
    # plane-sdf: MuJoCo's plane-convex routine on the sdf geom's mesh
    t2c = npx.MESH if t2 == npx.SDF else t2
    if gtype[g1] == npx.HFIELD and t2 != npx.SDF:
        n = hf.hfield_collide(f2(M, MF.hfield_size), i1(M, MF.hfield_nrow), i1(M, MF.hfield_ncol),
                              i1(M, MF.hfield_adr), f1(M, MF.hfield_data),
                              i1(M, MF.mesh_vertadr), i1(M, MF.mesh_vertnum), f2(M, MF.mesh_vert),
                              i1(M, MF.mesh_graphadr), i1(M, MF.mesh_graph),
                              i2(M, MF.mesh_extrema),
                              gdata[g1], xpos[g1], xmat[g1], f1(M, MF.geom_rbound)[g2],
                              gtype[g2], gdata[g2], size[g2], xpos[g2], xmat[g2],
                              thr, fs(M, MF.opt_ccd_tolerance), is_(M, MF.opt_ccd_iterations),
                              tdist.shape[0], tdist, tpos, tframe, f2(D, DF.hf_work),
                              f2(D, DF.ccd_work), i2(D, DF.ccd_iwork))
    else:
        n = npx.collide(i1(M, MF.mesh_vertadr), i1(M, MF.mesh_vertnum), f2(M, MF.mesh_vert),
                        i1(M, MF.mesh_graphadr), i1(M, MF.mesh_graph), i2(M, MF.mesh_extrema),
                        i1(M, MF.mesh_polyadr), i1(M, MF.mesh_polynum), f2(M, MF.mesh_polynormal),
                        i1(M, MF.mesh_polyvertadr), i1(M, MF.mesh_polyvertnum),
                        i1(M, MF.mesh_polyvert), i1(M, MF.mesh_polymapadr),
                        i1(M, MF.mesh_polymapnum), i1(M, MF.mesh_polymap),
                        gtype[g1], gdata[g1], size[g1], xpos[g1], xmat[g1],
                        t2c, gdata[g2], size[g2], xpos[g2],
                        xmat[g2], thr, fs(M, MF.opt_ccd_tolerance),
                        is_(M, MF.opt_ccd_iterations), multiccd, tdist, tpos, tframe,
                        f2(D, DF.ccd_work), i2(D, DF.ccd_iwork))
    return n


@kernel
def _narrow(M, D, g1, g2, thr, b1, b2, kind, ka, kb, pairid, ncon, need):
    """Contacts of geoms g1, g2 (type1 <= type2) into staging rows; returns (ncon, need, code)."""
    gtype = i1(M, MF.geom_type)
    tdist = f1(D, DF.col_tdist)
    tpos = f2(D, DF.col_tpos)
    tframe = f2(D, DF.col_tframe)
    multiccd = 0 if is_(M, MF.opt_disableflags) & DSBL_MULTICCD else 1
    n = pair_contacts(M, D, g1, g2, thr, multiccd)
    if n < 0:
        return ncon, need, n
    # the pair routines give the normal; only plane-capsule also gives MuJoCo's first tangent
    # (the capsule axis), and some routines use the tangent rows as scratch: clear the rest so
    # complete_frame builds MuJoCo's default tangents
    if not (gtype[g1] == npx.PLANE and gtype[g2] == npx.CAPSULE):
        for k in range(n):
            for j in range(3, 9):
                tframe[k, j] = 0.0
    cdist = f1(D, DF.col_dist)
    cpos = f2(D, DF.col_pos)
    cframe = f2(D, DF.col_frame)
    info = i2(D, DF.col_info)
    cap = cdist.shape[0]
    for k in range(n):
        if tdist[k] > thr:  # MuJoCo keeps dist <= margin + gap (a resting sphere at 0 too)
            continue
        need += 1
        if ncon >= cap:
            continue
        cdist[ncon] = tdist[k]
        for j in range(3):
            cpos[ncon, j] = tpos[k, j]
        for j in range(9):
            cframe[ncon, j] = tframe[k, j]
        r = info[ncon]
        r[0] = b1
        r[1] = b2
        r[2] = kind
        r[3] = ka
        r[4] = kb
        r[5] = g1
        r[6] = g2
        r[7] = pairid
        ncon += 1
    return ncon, need, 0


@kernel
def _before(info, a, b):
    """Whether staged contact a sorts before b (body pair, explicit first, geoms, then a < b)."""
    ra = info[a]
    rb = info[b]
    for j in range(5):
        if ra[j] != rb[j]:
            return ra[j] < rb[j]
    return a < b


@kernel
def sort_contacts(info, perm, tmp, n):
    """perm[0:n] = staged contact indices in MuJoCo's order (bottom-up merge sort, stable)."""
    for i in range(n):
        perm[i] = i
    width = 1
    flip = 0  # 0: the current order is in perm, 1: in tmp
    while width < n:
        src = tmp if flip else perm
        dst = perm if flip else tmp
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _before(info, src[j], src[i]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo += 2 * width
        flip = 1 - flip
        width *= 2
    if flip:
        for i in range(n):
            perm[i] = tmp[i]


@kernel
def complete_frame(frame):
    """MuJoCo's contact frame from its normal (row 0): normalised; when the first tangent row
    is unset, it is (0,1,0) (or (0,0,1) if the normal is within 60 degrees of the y axis) made
    orthogonal to the normal; the second tangent is normal x tangent1. As mujoco 4.0.0's
    mju_makeFrame (read in libmujoco.so.4.0.0), both normalisations scale by the reciprocal of
    the length (not divide by it): a normal that is already unit can still move by an ulp.
    A tangent that vanishes when made orthogonal becomes (1, 0, 0)."""
    n0, n1, n2 = frame[0], frame[1], frame[2]
    ln = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    if ln > mjMINVAL:
        inv = 1.0 / ln
        n0, n1, n2 = n0 * inv, n1 * inv, n2 * inv
    t0, t1, t2 = frame[3], frame[4], frame[5]
    if t0 * t0 + t1 * t1 + t2 * t2 < 0.25:
        if abs(n1) < 0.5:
            t0, t1, t2 = 0.0, 1.0, 0.0
        else:
            t0, t1, t2 = 0.0, 0.0, 1.0
    p = n0 * t0 + n1 * t1 + n2 * t2
    t0, t1, t2 = t0 - p * n0, t1 - p * n1, t2 - p * n2
    lt = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    if lt > mjMINVAL:
        inv = 1.0 / lt
        t0, t1, t2 = t0 * inv, t1 * inv, t2 * inv
    else:
        # a given tangent parallel to the normal (a capsule standing upright on a plane)
        # vanishes here: mju_normalize3 makes a null vector (1, 0, 0), as MuJoCo does
        t0, t1, t2 = 1.0, 0.0, 0.0
    frame[0], frame[1], frame[2] = n0, n1, n2
    frame[3], frame[4], frame[5] = t0, t1, t2
    frame[6] = n1 * t2 - n2 * t1
    frame[7] = n2 * t0 - n0 * t2
    frame[8] = n0 * t1 - n1 * t0


@kernel
def contact_params(
    # Model:
    geom_priority, geom_condim, geom_friction, geom_solmix, geom_solref, geom_solimp,
    geom_margin, pair_dim, pair_friction, pair_solref, pair_solreffriction, pair_solimp,
    pair_margin, override, o_margin, o_solref, o_solimp, o_friction,
    # the pair:
    g1, g2, pairid,
    # out (one contact's rows):
    friction, solref, solreffriction, solimp,
):
    """Contact parameters of a pair; returns (condim, includemargin).

    Explicit pair: its own dim, friction (5), solref, solreffriction, solimp, margin.
    Automatic pair: the geom with the higher priority gives condim, friction, solref, solimp;
    equal priorities: condim and each friction coefficient are the maxima, solimp the
    solmix-weighted average (weight solmix1 / (solmix1 + solmix2); 0.5 if both solmix are 0),
    solref the same average when both are in standard form (timeconst > 0), else the
    elementwise minimum; the 3 geom friction coefficients (sliding, torsional, rolling) fill
    the contact's 5 as (slide, slide, torsion, roll, roll); solreffriction is 0 (unset); the
    margin is the sum of the geom margins. Override flag: margin, solref, solimp, friction
    from opt.o_* (solreffriction too, from o_solref)."""
    if pairid >= 0:
        dim = pair_dim[pairid]
        for j in range(5):
            friction[j] = pair_friction[pairid, j]
            solimp[j] = pair_solimp[pairid, j]
        for j in range(2):
            solref[j] = pair_solref[pairid, j]
            solreffriction[j] = pair_solreffriction[pairid, j]
        margin = pair_margin[pairid]
    else:
        margin = geom_margin[g1] + geom_margin[g2]
        solreffriction[0] = 0.0
        solreffriction[1] = 0.0
        dim = mix_params(geom_priority[g1], geom_condim[g1], geom_friction[g1], geom_solmix[g1],
                         geom_solref[g1], geom_solimp[g1], geom_priority[g2], geom_condim[g2],
                         geom_friction[g2], geom_solmix[g2], geom_solref[g2], geom_solimp[g2],
                         friction, solref, solimp)
    if override:
        margin = o_margin
    apply_override(override, o_solref, o_solimp, o_friction, friction, solref, solreffriction,
                   solimp)
    return dim, margin


@kernel
def _pair_gap(geom_margin, geom_gap, pair_margin, pair_gap, override, o_margin, g1, g2, pairid):
    """Detection threshold margin + gap of a pair (see the module docstring)."""
    if pairid >= 0:
        m = pair_margin[pairid]
        gap = pair_gap[pairid]
    else:
        m = geom_margin[g1] + geom_margin[g2]
        gap = geom_gap[g1] + geom_gap[g2]
    if override:
        m = o_margin
    return m + gap


@kernel
def _ordered(gtype, a, b):
    """(g1, g2) with type1 <= type2 (equal types: keep a, b)."""
    if gtype[b] < gtype[a]:
        return b, a
    return a, b


@kernel
def _status(D, code, g1, g2, t1, t2):
    st = i1(D, DF.fw_status)
    if code == npx.NEED_CONVEX:
        st[0] = STATUS_NOROUTINE
        st[1] = t1
        st[2] = t2
    else:
        st[0] = STATUS_HFIELD
        st[1] = g2 if t2 == npx.SDF else g1


@kernel
def collision(M, D):
    """mj_collision: d.contact_* rows 0..ncon-1 and d.ncon from the geom poses (geom_xpos,
    geom_xmat: run kinematics first). See the module docstring."""
    ncon_out = i1(D, DF.ncon)
    ncon_out[0] = 0
    dis = is_(M, MF.opt_disableflags)
    gtype = i1(M, MF.geom_type)
    ngeom = gtype.shape[0]
    if dis & DSBL_CONTACT or dis & DSBL_CONSTRAINT or ngeom == 0:
        return
    override = 1 if is_(M, MF.opt_enableflags) & ENBL_OVERRIDE else 0
    o_margin = fs(M, MF.opt_o_margin)
    filterparent = 0 if dis & DSBL_FILTERPARENT else 1
    gbody = i1(M, MF.geom_bodyid)
    gmargin = f1(M, MF.geom_margin)
    ggap = f1(M, MF.geom_gap)
    rbound = f1(M, MF.geom_rbound)
    contype = i1(M, MF.geom_contype)
    conaff = i1(M, MF.geom_conaffinity)
    pg1 = i1(M, MF.pair_geom1)
    pg2 = i1(M, MF.pair_geom2)
    pmargin = f1(M, MF.pair_margin)
    pgap = f1(M, MF.pair_gap)
    xpos = f2(D, DF.geom_xpos)
    aabb = f2(D, DF.col_aabb)
    order = i1(D, DF.col_order)
    state = i1(D, DF.col_state)
    ncon = 0
    need = 0

    # ---- explicit pairs: no filters, only the bounding spheres (and sleep: see _asleep)
    for p in range(pg1.shape[0]):
        if _asleep(M, D, pg1[p], pg2[p]):
            continue
        g1, g2 = _ordered(gtype, pg1[p], pg2[p])
        if not npx.has_function(gtype[g1], gtype[g2]):
            continue
        thr = _pair_gap(gmargin, ggap, pmargin, pgap, override, o_margin, g1, g2, p)
        if bp.spheres_apart(rbound, xpos, g1, g2, thr):
            continue
        b1, b2 = gbody[pg1[p]], gbody[pg2[p]]
        ncon, need, code = _narrow(M, D, g1, g2, thr, min(b1, b2), max(b1, b2), 0, p, 0, p,
                                   ncon, need)
        if code < 0:
            _status(D, code, g1, g2, gtype[g1], gtype[g2])
            return

    # ---- automatic pairs: planes against everything, sweep and prune for the rest
    bp.world_aabb(f2(M, MF.geom_aabb), gmargin, ggap, override, o_margin, xpos,
                  f2(D, DF.geom_xmat), aabb)
    nsweep = 0
    if state[0] != ngeom + 1:  # first call on this Data: initial sweep order
        for g in range(ngeom):
            if gtype[g] != npx.PLANE:
                order[nsweep] = g
                nsweep += 1
        state[0] = ngeom + 1
        state[1] = nsweep
    nsweep = state[1]
    axis = bp.sweep_axis(gtype, aabb)
    bp.sort_sweep(aabb, axis, order, nsweep)
    for pl in range(ngeom):
        if gtype[pl] != npx.PLANE or (contype[pl] == 0 and conaff[pl] == 0):
            continue
        for g in range(ngeom):
            if g == pl or gtype[g] == npx.PLANE or gtype[g] == npx.HFIELD:
                continue
            ncon, need, code = _test_auto(M, D, pl, g, override, o_margin, filterparent,
                                          ncon, need)
            if code < 0:
                return
    for ii in range(nsweep):
        a = order[ii]
        if contype[a] == 0 and conaff[a] == 0:
            continue
        if bp.has_nan(aabb, a):
            # a geom at a NaN pose (a NaN mocap_pos): no bound excludes it, as in MuJoCo,
            # whose pruning tests are all "not apart" then: tested against every geom, so
            # the NaN contact makes qacc NaN and mj_checkAcc resets (test_api_misuse)
            for jj in range(nsweep):
                b = order[jj]
                if b == a or (bp.has_nan(aabb, b) and b < a):
                    continue
                ncon, need, code = _test_auto(M, D, a, b, override, o_margin, filterparent,
                                              ncon, need)
                if code < 0:
                    return
            continue
        amax = aabb[a, 3 + axis]
        for jj in range(ii + 1, nsweep):
            b = order[jj]
            if aabb[b, axis] > amax:
                break
            if bp.has_nan(aabb, b) or not bp.boxes_overlap(aabb, a, b):
                continue
            ncon, need, code = _test_auto(M, D, a, b, override, o_margin, filterparent,
                                          ncon, need)
            if code < 0:
                return

    # ---- flexes (engine/collision/flex.py): after the geom pairs, sorted in below
    if i1(M, MF.flex_dim).shape[0]:
        ncon, need, code = flex_collide(M, D, ncon, need)
        if code < 0:
            return

    # ---- capacity
    if need > ncon:
        st = i1(D, DF.fw_status)
        st[0] = STATUS_CONTACTFULL
        st[1] = need
        i1(D, DF.warning_number)[WARN_CONTACTFULL] += 1
        i1(D, DF.warning_lastinfo)[WARN_CONTACTFULL] = ncon

    # ---- order and parameters
    perm2 = i2(D, DF.col_perm)
    info = i2(D, DF.col_info)
    sort_contacts(info, perm2[0], perm2[1], ncon)
    _write_contacts(M, D, perm2[0], ncon, override)
    ncon_out[0] = ncon


@kernel
def _asleep(M, D, a, b):
    """With sleep enabled, geoms a and b are not collided when neither body is awake (both
    asleep or static; seed 001 "Sleeping islands": a sleeping island touches only awake trees,
    and such a contact wakes it)."""
    if not sleep.enabled(M):
        return False
    gbody = i1(M, MF.geom_bodyid)
    awake = i1(D, DF.body_awake)
    return awake[gbody[a]] != sleep.S_AWAKE and awake[gbody[b]] != sleep.S_AWAKE


@kernel
def _test_auto(M, D, a, b, override, o_margin, filterparent, ncon, need):
    """Filter, bounding-sphere test and narrow phase of an automatic candidate pair."""
    if _asleep(M, D, a, b):
        return ncon, need, 0
    gtype = i1(M, MF.geom_type)
    gbody = i1(M, MF.geom_bodyid)
    if not bp.can_collide(i1(M, MF.geom_contype), i1(M, MF.geom_conaffinity), gbody,
                          i1(M, MF.body_weldid), i1(M, MF.body_parentid),
                          i1(M, MF.body_dofnum), i1(M, MF.exclude_signature), i1(M, MF.pair_signature),
                          i1(M, MF.pair_geom1), i1(M, MF.pair_geom2), filterparent, a, b):
        return ncon, need, 0
    lo, hi = (a, b) if a < b else (b, a)
    g1, g2 = _ordered(gtype, lo, hi)
    if not npx.has_function(gtype[g1], gtype[g2]):
        return ncon, need, 0
    thr = _pair_gap(f1(M, MF.geom_margin), f1(M, MF.geom_gap), f1(M, MF.pair_margin),
                    f1(M, MF.pair_gap), override, o_margin, g1, g2, -1)
    if bp.spheres_apart(f1(M, MF.geom_rbound), f2(D, DF.geom_xpos), g1, g2, thr):
        return ncon, need, 0
    ba, bb = gbody[a], gbody[b]
    if ba < bb:
        ka, kb, b1, b2 = a, b, ba, bb
    elif bb < ba:
        ka, kb, b1, b2 = b, a, bb, ba
    else:
        ka, kb, b1, b2 = lo, hi, ba, bb
    ncon, need, code = _narrow(M, D, g1, g2, thr, b1, b2, 1, ka, kb, -1, ncon, need)
    if code < 0:
        _status(D, code, g1, g2, gtype[g1], gtype[g2])
    return ncon, need, code


@kernel
def _write_contacts(M, D, perm, ncon, override):
    """d.contact_* rows from the staged contacts in sorted order, with their parameters."""
    cdist = f1(D, DF.col_dist)
    cpos = f2(D, DF.col_pos)
    cframe = f2(D, DF.col_frame)
    info = i2(D, DF.col_info)
    dist = f1(D, DF.contact_dist)
    pos = f2(D, DF.contact_pos)
    frame = f2(D, DF.contact_frame)
    incl = f1(D, DF.contact_includemargin)
    fric = f2(D, DF.contact_friction)
    sref = f2(D, DF.contact_solref)
    sreff = f2(D, DF.contact_solreffriction)
    simp = f2(D, DF.contact_solimp)
    mu = f1(D, DF.contact_mu)
    H = f2(D, DF.contact_H)
    dim = i1(D, DF.contact_dim)
    geom1 = i1(D, DF.contact_geom1)
    geom2 = i1(D, DF.contact_geom2)
    geom = i2(D, DF.contact_geom)
    flex = i2(D, DF.contact_flex)
    elem = i2(D, DF.contact_elem)
    vert = i2(D, DF.contact_vert)
    excl = i1(D, DF.contact_exclude)
    efc = i1(D, DF.contact_efc_address)
    cadh = f1(D, DF.contact_adhesion)
    geom_adhesion = f1(M, MF.geom_adhesion)
    pair_adhesion = f1(M, MF.pair_adhesion)
    geom_priority = i1(M, MF.geom_priority)
    geom_condim = i1(M, MF.geom_condim)
    geom_bodyid = i1(M, MF.geom_bodyid)
    body_weldid = i1(M, MF.body_weldid)
    body_dofnum = i1(M, MF.body_dofnum)
    geom_friction = f2(M, MF.geom_friction)
    geom_solmix = f1(M, MF.geom_solmix)
    geom_solref = f2(M, MF.geom_solref)
    geom_solimp = f2(M, MF.geom_solimp)
    geom_margin = f1(M, MF.geom_margin)
    pair_dim = i1(M, MF.pair_dim)
    pair_friction = f2(M, MF.pair_friction)
    pair_solref = f2(M, MF.pair_solref)
    pair_solreffriction = f2(M, MF.pair_solreffriction)
    pair_solimp = f2(M, MF.pair_solimp)
    pair_margin = f1(M, MF.pair_margin)
    o_margin = fs(M, MF.opt_o_margin)
    o_solref = f1(M, MF.opt_o_solref)
    o_solimp = f1(M, MF.opt_o_solimp)
    o_friction = f1(M, MF.opt_o_friction)
    for k in range(ncon):
        s = perm[k]
        r = info[s]
        g1, g2, pid = r[5], r[6], r[7]
        dist[k] = cdist[s]
        for j in range(3):
            pos[k, j] = cpos[s, j]
        for j in range(9):
            frame[k, j] = cframe[s, j]
        complete_frame(frame[k])
        if r[2] == KIND_FLEX:
            # a flex contact: its parameters, ids and exclusion (engine/collision/flex.py)
            d_, m_, static = flex_contact_params(M, D, s, override, fric[k], sref[k], sreff[k],
                                                 simp[k])
            dim[k] = d_
            incl[k] = m_
            excl[k] = 1 if cdist[s] >= m_ else (3 if static else 0)
            mu[k] = 0.0
            for j in range(36):
                H[k, j] = 0.0
            cf = i2(D, DF.col_flex)[s]
            geom1[k] = g1
            geom2[k] = -1
            geom[k, 0] = g1
            geom[k, 1] = -1
            for j in range(2):
                flex[k, j] = cf[j]
                elem[k, j] = cf[2 + j]
                vert[k, j] = cf[4 + j]
            efc[k] = -1
            continue
        d_, m_ = contact_params(geom_priority, geom_condim, geom_friction, geom_solmix,
                                geom_solref, geom_solimp, geom_margin, pair_dim, pair_friction,
                                pair_solref, pair_solreffriction, pair_solimp, pair_margin,
                                override, o_margin, o_solref, o_solimp, o_friction,
                                g1, g2, pid, fric[k], sref[k], sreff[k], simp[k])
        dim[k] = d_
        incl[k] = m_
        # 3: both bodies static (an explicit <pair> of them: reported, never a constraint);
        # 1: in the gap (beyond margin - gap)
        if (body_dofnum[body_weldid[geom_bodyid[g1]]] == 0
                and body_dofnum[body_weldid[geom_bodyid[g2]]] == 0):
            excl[k] = 3
        else:
            excl[k] = 1 if cdist[s] >= m_ else 0
        # adhesion (engine.adhesion): an adhesive contact in the gap band stays in the
        # constraint, frictionless, and pulls across the gap
        cadh[k] = contact_adhesion(geom_priority, geom_adhesion, pair_adhesion, g1, g2, pid)
        if excl[k] == 1 and cadh[k] > 0.0:
            excl[k] = 0
            dim[k] = 1
        mu[k] = 0.0
        for j in range(36):
            H[k, j] = 0.0
        geom1[k] = g1
        geom2[k] = g2
        geom[k, 0] = g1
        geom[k, 1] = g2
        for j in range(2):
            flex[k, j] = -1
            elem[k, j] = -1
            vert[k, j] = -1
        efc[k] = -1


def mj_collision(m, d):
    """mj_collision(m, d): contacts of the current geom poses into d.contact (see the module
    docstring). Raises NotImplementedError for geom pairs whose collision routine is not built
    (sdf geoms)."""
    argcheck.pair(m, d, "mj_collision")
    d.fw_status[0] = 0
    collision(m._A, d._A)
    raise_status(m, d)


def raise_status(m, d):
    """NotImplementedError for the collision stage's fw_status codes 8 and 9 (clears them)."""
    code = int(d.fw_status[0])
    if code == STATUS_NOROUTINE:
        names = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh",
                 "sdf")
        t1, t2 = int(d.fw_status[1]), int(d.fw_status[2])
        d.fw_status[0] = 0
        raise NotImplementedError(
            f"collisions between <geom type='{names[t1]}'> and <geom type='{names[t2]}'> need "
            "a collision routine that is not built yet")
    if code == STATUS_FLEX:
        t, d1, d2 = int(d.fw_status[1]), int(d.fw_status[2]), int(d.fw_status[3])
        d.fw_status[0] = 0
        names = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh",
                 "sdf")
        if t == -2:
            what = "flex collisions while sleeping trees are skipped (<flag sleep>)"
        elif t == -1:
            what = (f"collisions between a dim-{d1} and a dim-{d2} flex element (MuJoCo's "
                    "convex element collider, mjc_ConvexElem)")
        else:
            what = (f"collisions between <geom type='{names[t]}'> and a dim-{d1} flex element "
                    "(MuJoCo's mjc_ConvexElem / mjc_HFieldElem / mjc_FlexSDF)")
        raise NotImplementedError(f"{what} are not supported yet")
    if code == STATUS_HFIELD:
        g = int(d.fw_status[1])
        d.fw_status[0] = 0
        raise NotImplementedError(f"collisions of sdf geom {g} with a mesh geom, or of an sdf "
                                  "geom without a first-party SDF plugin (a mesh sdf), are not "
                                  "supported yet")


__all__ = ["collision", "mj_collision", "raise_status"]
