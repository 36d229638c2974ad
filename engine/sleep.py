"""Sleeping islands (seed 001, "Sleeping islands"; seed 000 body/@sleep, option sleep_tolerance,
flag sleep), as MuJoCo 4.0.0 runs them.

State. ``d.tree_asleep[t]`` is the source of truth: negative, the tree is awake and counts the
timesteps it has been slow, from -(1 + mjMINAWAKE) (fully awake) up to -1 (ready to sleep);
non-negative, the tree sleeps and the value is the next tree of its sleeping island, so the
trees of an island form a cycle. The derived arrays (``update_sleep``): ``tree_awake``,
``body_awake`` (mjtSleepState: STATIC for bodies of no tree except those under a mocap body,
which count as awake), ``body_awake_ind`` (awake and static bodies), ``parent_awake_ind``
(bodies whose parent is awake or static), ``dof_awake_ind`` and their counts.

Sleeping (`sleep`, called while the state is advanced): a tree whose velocities are all below
``opt.sleep_tolerance`` in the infinity norm (each dof's velocity times its ``dof_length``, so the
tolerance is a speed in length/time), with zero qfrc_applied and xfrc_applied and a policy other
than never, counts one step up; an island sleeps when all its trees are ready (-1), a tree in no
island when it is; sleeping zeroes the trees' qvel and qacc.

Waking (`wake`, `wake_collision`, `wake_tendon`, `wake_equality`, in the position stage): a
sleeping tree wakes with its whole island when the user moved it (engine.smooth.kinematics
finds its pose changed and sets its tree_awake), gave it velocity or applied force (bytewise
nonzero, so -0.0 wakes), when its policy became never, when it touches an awake tree (collision then runs again), when a
limited tendon coupling it to an awake tree is at its limit, and through an active equality to
an awake tree or to a sleeping tree of another island. A tree woken by contact or tendon takes
the counter of the awake tree that woke it; otherwise it starts fully awake.

Static bodies (no tree) are computed once at reset (`reset_sleep`) and skipped afterwards while
sleep is enabled.
"""
from __future__ import annotations

import math

from ._jit import kernel
from ._access import f1, f2, i1, i2, is_, u1
from ._layout import DF, MF
from .enums import (mjMINAWAKE, mjtEnableBit, mjtEq, mjtObj, mjtSensor, mjtSleepPolicy, mjtTrn,
                    mjtWrap)

ENBL_SLEEP = int(mjtEnableBit.mjENBL_SLEEP)
AWAKE_COUNT = -(1 + mjMINAWAKE)   # tree_asleep of a fully awake tree
S_STATIC, S_ASLEEP, S_AWAKE = -1, 0, 1
_NEVER = int(mjtSleepPolicy.mjSLEEP_NEVER)
_AUTO_NEVER = int(mjtSleepPolicy.mjSLEEP_AUTO_NEVER)
_INIT = int(mjtSleepPolicy.mjSLEEP_INIT)
_EQ_CONNECT, _EQ_WELD = int(mjtEq.mjEQ_CONNECT), int(mjtEq.mjEQ_WELD)
_EQ_JOINT, _EQ_TENDON = int(mjtEq.mjEQ_JOINT), int(mjtEq.mjEQ_TENDON)
_OBJ_UNKNOWN, _OBJ_BODY, _OBJ_XBODY = (int(mjtObj.mjOBJ_UNKNOWN), int(mjtObj.mjOBJ_BODY),
                                       int(mjtObj.mjOBJ_XBODY))
_OBJ_JOINT, _OBJ_DOF, _OBJ_GEOM = (int(mjtObj.mjOBJ_JOINT), int(mjtObj.mjOBJ_DOF),
                                  int(mjtObj.mjOBJ_GEOM))
_OBJ_SITE, _OBJ_CAMERA, _OBJ_LIGHT = (int(mjtObj.mjOBJ_SITE), int(mjtObj.mjOBJ_CAMERA),
                                      int(mjtObj.mjOBJ_LIGHT))
_OBJ_EQUALITY, _OBJ_TENDON, _OBJ_ACTUATOR = (int(mjtObj.mjOBJ_EQUALITY),
                                             int(mjtObj.mjOBJ_TENDON),
                                             int(mjtObj.mjOBJ_ACTUATOR))
_SENS_RANGEFINDER, _SENS_CONTACT = int(mjtSensor.mjSENS_RANGEFINDER), int(mjtSensor.mjSENS_CONTACT)
_SENS_PLUGIN, _SENS_USER = int(mjtSensor.mjSENS_PLUGIN), int(mjtSensor.mjSENS_USER)
_TRN_JOINT, _TRN_JOINTINPARENT = int(mjtTrn.mjTRN_JOINT), int(mjtTrn.mjTRN_JOINTINPARENT)
_TRN_SLIDERCRANK, _TRN_TENDON = int(mjtTrn.mjTRN_SLIDERCRANK), int(mjtTrn.mjTRN_TENDON)
_TRN_SITE, _TRN_BODY = int(mjtTrn.mjTRN_SITE), int(mjtTrn.mjTRN_BODY)
_WRAP_JOINT, _WRAP_SITE = int(mjtWrap.mjWRAP_JOINT), int(mjtWrap.mjWRAP_SITE)
_WRAP_SPHERE, _WRAP_CYLINDER = int(mjtWrap.mjWRAP_SPHERE), int(mjtWrap.mjWRAP_CYLINDER)

# fw_status[0] codes (fw_status[1], [2]: details), raised by the Python wrappers
STATUS_SLEEP_TENDONEQ = 22  # [1]: the tendon equality (MuJoCo: not supported with sleeping)
STATUS_SLEEP_CONTACT = 23   # [1], [2]: bodies of a contact between two sleeping trees


@kernel
def enabled(M):
    """Whether <option><flag sleep="enable"/> is set."""
    return (is_(M, MF.opt_enableflags) & ENBL_SLEEP) != 0


@kernel
def filtering(M, D):
    """Whether the stages skip sleeping trees now: sleep enabled and some tree asleep."""
    return enabled(M) and is_(D, DF.ntree_awake) < i1(M, MF.tree_dofadr).shape[0]


# =============================================================================================
# derived state
# =============================================================================================

@kernel
def update_sleep(M, D, flg_staticawake):
    """mj_updateSleep: tree_awake, body_awake, the awake index lists and their counts from
    tree_asleep; with ``flg_staticawake`` static bodies count as awake (used at reset, so their
    poses are computed once)."""
    tree_asleep = i1(D, DF.tree_asleep)
    tree_awake = i1(D, DF.tree_awake)
    body_treeid = i1(M, MF.body_treeid)
    body_parentid = i1(M, MF.body_parentid)
    body_rootid = i1(M, MF.body_rootid)
    body_mocapid = i1(M, MF.body_mocapid)
    dof_bodyid = i1(M, MF.dof_bodyid)
    body_awake = i1(D, DF.body_awake)
    body_ind = i1(D, DF.body_awake_ind)
    parent_ind = i1(D, DF.parent_awake_ind)
    dof_ind = i1(D, DF.dof_awake_ind)
    n = 0
    for t in range(tree_asleep.shape[0]):
        tree_awake[t] = 1 if tree_asleep[t] < 0 else 0
        n += tree_awake[t]
    i1(D, DF.ntree_awake)[0] = n
    nb = 0
    npar = 0
    for b in range(body_treeid.shape[0]):
        t = body_treeid[b]
        if t < 0:
            # bodies under a mocap body move with it: awake; other static bodies are computed
            # once (at reset, with flg_staticawake)
            if body_mocapid[body_rootid[b]] >= 0 or flg_staticawake:
                body_awake[b] = S_AWAKE
            else:
                body_awake[b] = S_STATIC
        else:
            body_awake[b] = S_AWAKE if tree_awake[t] else S_ASLEEP
        if body_awake[b] != S_ASLEEP:
            body_ind[nb] = b
            nb += 1
        if b > 0 and body_awake[body_parentid[b]] != S_ASLEEP:
            parent_ind[npar] = b
            npar += 1
    i1(D, DF.nbody_awake)[0] = nb
    i1(D, DF.nparent_awake)[0] = npar
    nd = 0
    for k in range(dof_bodyid.shape[0]):
        b = dof_bodyid[k]
        if body_treeid[b] >= 0 and body_awake[b] == S_AWAKE:
            dof_ind[nd] = k
            nd += 1
    i1(D, DF.nv_awake)[0] = nd


# =============================================================================================
# sleep states of objects (mj_sleepState)
# =============================================================================================

@kernel
def tendon_state(M, D, i):
    """Sleep state of tendon i: static without trees, else awake if any of its (first two)
    trees is awake; a tendon over more than two trees is always awake."""
    num = i1(M, MF.tendon_treenum)[i]
    if num == 0:
        return S_STATIC
    ids = i2(M, MF.tendon_treeid)[i]
    tree_awake = i1(D, DF.tree_awake)
    if num == 1:
        return S_AWAKE if tree_awake[ids[0]] else S_ASLEEP
    if num == 2:
        return S_AWAKE if (tree_awake[ids[0]] or tree_awake[ids[1]]) else S_ASLEEP
    return S_AWAKE


@kernel
def _either_awake(s1, s2):
    return S_AWAKE if (s1 == S_AWAKE or s2 == S_AWAKE) else S_ASLEEP


@kernel
def actuator_state(M, D, i):
    """Sleep state of actuator i from its transmission target(s) (AWAKE or ASLEEP; a static
    target counts as its own state, so a tendon of no tree gives STATIC)."""
    body_awake = i1(D, DF.body_awake)
    trn = i2(M, MF.actuator_trnid)[i]
    tt = i1(M, MF.actuator_trntype)[i]
    if tt == _TRN_JOINT or tt == _TRN_JOINTINPARENT:
        return body_awake[i1(M, MF.jnt_bodyid)[trn[0]]]
    site_bodyid = i1(M, MF.site_bodyid)
    if tt == _TRN_SLIDERCRANK:
        return _either_awake(body_awake[site_bodyid[trn[0]]], body_awake[site_bodyid[trn[1]]])
    if tt == _TRN_TENDON:
        return tendon_state(M, D, trn[0])
    if tt == _TRN_SITE:
        return body_awake[site_bodyid[trn[0]]]
    if tt == _TRN_BODY:
        return body_awake[trn[0]]
    return S_AWAKE


@kernel
def _eq_obj_state(M, D, objtype, i):
    body_awake = i1(D, DF.body_awake)
    if objtype == _OBJ_BODY:
        return body_awake[i]
    if objtype == _OBJ_SITE:
        return body_awake[i1(M, MF.site_bodyid)[i]]
    return S_AWAKE


@kernel
def equality_state(M, D, i):
    """Sleep state of equality i: asleep when neither object is awake (both asleep or static,
    a missing second object counting as static)."""
    et = i1(M, MF.eq_type)[i]
    id1 = i1(M, MF.eq_obj1id)[i]
    id2 = i1(M, MF.eq_obj2id)[i]
    body_awake = i1(D, DF.body_awake)
    s1 = S_STATIC
    s2 = S_STATIC
    if et == _EQ_CONNECT or et == _EQ_WELD:
        ot = i1(M, MF.eq_objtype)[i]
        if id1 >= 0:
            s1 = _eq_obj_state(M, D, ot, id1)
        if id2 >= 0:
            s2 = _eq_obj_state(M, D, ot, id2)
    elif et == _EQ_JOINT:
        jb = i1(M, MF.jnt_bodyid)
        if id1 >= 0:
            s1 = body_awake[jb[id1]]
        if id2 >= 0:
            s2 = body_awake[jb[id2]]
    elif et == _EQ_TENDON:
        if id1 >= 0:
            s1 = tendon_state(M, D, id1)
        if id2 >= 0:
            s2 = tendon_state(M, D, id2)
    else:
        return S_AWAKE
    return S_ASLEEP if (s1 != S_AWAKE and s2 != S_AWAKE) else S_AWAKE


@kernel
def object_state(M, D, objtype, i):
    """Sleep state of object i of type objtype (mjtObj); unknown and other types: awake."""
    body_awake = i1(D, DF.body_awake)
    if objtype == _OBJ_BODY or objtype == _OBJ_XBODY:
        return body_awake[i]
    if objtype == _OBJ_JOINT:
        return body_awake[i1(M, MF.jnt_bodyid)[i]]
    if objtype == _OBJ_DOF:
        return body_awake[i1(M, MF.dof_bodyid)[i]]
    if objtype == _OBJ_SITE:
        return body_awake[i1(M, MF.site_bodyid)[i]]
    if objtype == _OBJ_GEOM:
        return body_awake[i1(M, MF.geom_bodyid)[i]]
    if objtype == _OBJ_CAMERA:
        return body_awake[i1(M, MF.cam_bodyid)[i]]
    if objtype == _OBJ_LIGHT:
        return body_awake[i1(M, MF.light_bodyid)[i]]
    if objtype == _OBJ_EQUALITY:
        return equality_state(M, D, i)
    if objtype == _OBJ_TENDON:
        return tendon_state(M, D, i)
    if objtype == _OBJ_ACTUATOR:
        return actuator_state(M, D, i)
    return S_AWAKE


@kernel
def sensor_state(M, D, s):
    """Sleep state of sensor s (seed 001 "Sleeping sensors"): awake when its object or its
    reference object is awake; an unspecified (unknown) object defers to the other one, a
    static one alone counts as awake. Always awake: rangefinder, user and plugin sensors and
    contact sensors with a site volume."""
    t = i1(M, MF.sensor_type)[s]
    ot = i1(M, MF.sensor_objtype)[s]
    rt = i1(M, MF.sensor_reftype)[s]
    if t == _SENS_USER or t == _SENS_PLUGIN or t == _SENS_RANGEFINDER:
        return S_AWAKE
    if t == _SENS_CONTACT and (ot == _OBJ_SITE or rt == _OBJ_SITE):
        return S_AWAKE
    if ot == _OBJ_UNKNOWN and rt == _OBJ_UNKNOWN:
        return S_AWAKE
    if ot == _OBJ_UNKNOWN:
        return S_ASLEEP if object_state(M, D, rt, i1(M, MF.sensor_refid)[s]) == S_ASLEEP \
            else S_AWAKE
    so = object_state(M, D, ot, i1(M, MF.sensor_objid)[s])
    if rt == _OBJ_UNKNOWN:
        return S_ASLEEP if so == S_ASLEEP else S_AWAKE
    return _either_awake(so, object_state(M, D, rt, i1(M, MF.sensor_refid)[s]))


# =============================================================================================
# sleeping
# =============================================================================================

@kernel
def _all_zero(x, a, n):
    """Bytewise test for zero: -0.0 is not zero (its sign bit is set)."""
    for k in range(a, a + n):
        v = x[k]
        if v != 0.0 or math.copysign(1.0, v) < 0.0:
            return False
    return True


@kernel
def tree_can_sleep(M, D, t, tol):
    """Whether tree t may sleep: policy not never, no applied force (bytewise), and its
    dof_length-weighted velocities below ``tol`` in the infinity norm (tol 0: all exactly 0)."""
    pol = i1(M, MF.tree_sleep_policy)[t]
    if pol == _NEVER or pol == _AUTO_NEVER:
        return False
    badr = i1(M, MF.tree_bodyadr)[t]
    bnum = i1(M, MF.tree_bodynum)[t]
    xfrc = f1(D, DF.xfrc_applied)
    if not _all_zero(xfrc, 6 * badr, 6 * bnum):
        return False
    dadr = i1(M, MF.tree_dofadr)[t]
    dnum = i1(M, MF.tree_dofnum)[t]
    if not _all_zero(f1(D, DF.qfrc_applied), dadr, dnum):
        return False
    qvel = f1(D, DF.qvel)
    if tol == 0.0:
        return _all_zero(qvel, dadr, dnum)
    length = f1(M, MF.dof_length)
    mx = 0.0
    for k in range(dadr, dadr + dnum):
        mx = max(mx, length[k] * abs(qvel[k]))
        if mx >= tol:
            return False
    return True


@kernel
def _sleep_tree(M, D, t, nxt):
    """Put tree t to sleep, ``nxt`` the next tree of its island's cycle; zero its qvel, qacc."""
    i1(D, DF.tree_asleep)[t] = nxt
    qvel = f1(D, DF.qvel)
    qacc = f1(D, DF.qacc)
    a = i1(M, MF.tree_dofadr)[t]
    for k in range(a, a + i1(M, MF.tree_dofnum)[t]):
        qvel[k] = 0.0
        qacc[k] = 0.0


@kernel
def sleep(M, D):
    """mj_sleep: count slow trees up, put islands (and unconstrained trees) whose trees are all
    ready to sleep. Returns the number of trees put to sleep (0 when sleep is disabled, or
    with constraint rows but no islands)."""
    if not enabled(M):
        return 0
    nisland = is_(D, DF.nisland)
    if is_(D, DF.nefc) > 0 and nisland == 0:
        return 0
    tree_asleep = i1(D, DF.tree_asleep)
    ntree = tree_asleep.shape[0]
    tol = f1(M, MF.opt_sleep_tolerance)[0]
    for t in range(ntree):
        if tree_asleep[t] >= 0:
            continue
        if tree_can_sleep(M, D, t, tol):
            if tree_asleep[t] < -1:
                tree_asleep[t] += 1
        else:
            tree_asleep[t] = AWAKE_COUNT
    nslept = 0
    island_ntree = i1(D, DF.island_ntree)
    island_itreeadr = i1(D, DF.island_itreeadr)
    map_itree2tree = i1(D, DF.map_itree2tree)
    for s in range(nisland):
        a = island_itreeadr[s]
        n = island_ntree[s]
        ready = True
        for j in range(a, a + n):
            if tree_asleep[map_itree2tree[j]] < -1:
                ready = False
                break
        if ready:
            # the island's trees in a cycle, each pointing to the next, the last to the first
            for j in range(a, a + n):
                nxt = map_itree2tree[a if j == a + n - 1 else j + 1]
                _sleep_tree(M, D, map_itree2tree[j], nxt)
            nslept += n
    start = island_itreeadr[nisland - 1] + island_ntree[nisland - 1] if nisland > 0 else 0
    for j in range(start, ntree):
        t = map_itree2tree[j] if nisland > 0 else j
        if tree_asleep[t] == -1:
            _sleep_tree(M, D, t, t)
            nslept += 1
    return nslept


# =============================================================================================
# waking
# =============================================================================================

@kernel
def sleep_cycle(tree_asleep, i):
    """The smallest tree of the sleeping cycle through tree i (-1 if i is not in a cycle)."""
    ntree = tree_asleep.shape[0]
    if i < 0 or i >= ntree:
        return -1
    smallest = i
    cur = i
    count = 0
    while True:
        if count > ntree:
            return -1
        nxt = tree_asleep[cur]
        if nxt < 0 or nxt >= ntree:
            return -1
        smallest = min(smallest, nxt)
        cur = nxt
        count += 1
        if cur == i:
            return smallest


@kernel
def wake_island(tree_asleep, i, wakeval):
    """Wake tree i and its sleeping island, setting their counters to ``wakeval``; an awake
    tree i only lowers its counter to ``wakeval``. Returns the number of trees woken."""
    val = tree_asleep[i]
    if val < 0:
        tree_asleep[i] = min(wakeval, val)
        return 0
    ntree = tree_asleep.shape[0]
    n = 0
    cur = i
    while True:
        nxt = tree_asleep[cur]
        if nxt < 0 or nxt >= ntree:
            return n
        tree_asleep[cur] = wakeval
        n += 1
        cur = nxt
        if cur == i or n >= ntree:
            return n


@kernel
def _wake_other(tree_asleep, tree_awake, t1, t2):
    """Of trees t1 and t2, one awake and one asleep: wake the sleeping one's island with the
    awake one's counter (contacts and tendons pass on how long the waker has been slow)."""
    if tree_awake[t1]:
        return wake_island(tree_asleep, t2, tree_asleep[t1])
    return wake_island(tree_asleep, t1, tree_asleep[t2])


@kernel
def wake(M, D):
    """mj_wake: wake sleeping trees the user moved (kinematics set their tree_awake), set
    moving or pushed, or whose policy is never; with sleep disabled wake every tree. Returns
    the number woken."""
    tree_asleep = i1(D, DF.tree_asleep)
    ntree = tree_asleep.shape[0]
    if not enabled(M):
        nawake = is_(D, DF.ntree_awake)
        if nawake < ntree:
            for t in range(ntree):
                tree_asleep[t] = AWAKE_COUNT
        return ntree - nawake
    tree_awake = i1(D, DF.tree_awake)
    n = 0
    for t in range(ntree):
        if tree_asleep[t] < 0:
            continue
        if tree_awake[t] or not tree_can_sleep(M, D, t, 0.0):
            n += wake_island(tree_asleep, t, AWAKE_COUNT)
    return n


@kernel
def flex_side_tree(M, D, c, side):
    """A tree of side ``side`` of flex contact c (geom body, vertex body, or an element vertex's
    body; an awake one first), -1 when static."""
    treeid = i1(M, MF.body_treeid)
    tree_awake = i1(D, DF.tree_awake)
    g = i2(D, DF.contact_geom)[c, side]
    if g >= 0:
        return treeid[i1(M, MF.geom_bodyid)[g]]
    f = i2(D, DF.contact_flex)[c, side]
    va = i1(M, MF.flex_vertadr)[f]
    vbody = i1(M, MF.flex_vertbodyid)
    v = i2(D, DF.contact_vert)[c, side]
    if v >= 0:
        return treeid[vbody[va + v]]
    dim = i1(M, MF.flex_dim)[f]
    ed = i1(M, MF.flex_elemdataadr)[f] + i2(D, DF.contact_elem)[c, side] * (dim + 1)
    elem = i1(M, MF.flex_elem)
    out = -1
    for i in range(dim + 1):
        t = treeid[vbody[va + elem[ed + i]]]
        if t >= 0:
            if tree_awake[t]:
                return t
            out = t
    return out


@kernel
def wake_collision(M, D):
    """mj_wakeCollision: wake sleeping trees in contact with an awake tree (they take its
    counter). Returns the number woken."""
    if not enabled(M):
        return 0
    tree_asleep = i1(D, DF.tree_asleep)
    tree_awake = i1(D, DF.tree_awake)
    geom_bodyid = i1(M, MF.geom_bodyid)
    body_treeid = i1(M, MF.body_treeid)
    g1 = i1(D, DF.contact_geom1)
    g2 = i1(D, DF.contact_geom2)
    n = 0
    cflex = i2(D, DF.contact_flex)
    for c in range(is_(D, DF.ncon)):
        if cflex[c, 0] >= 0 or cflex[c, 1] >= 0:
            # a flex side: a tree of its vertex or element bodies (an awake one first)
            b1 = b2 = -1
            t1 = flex_side_tree(M, D, c, 0)
            t2 = flex_side_tree(M, D, c, 1)
        else:
            b1 = geom_bodyid[g1[c]]
            b2 = geom_bodyid[g2[c]]
            t1 = body_treeid[b1]
            t2 = body_treeid[b2]
        if t1 < 0 or t2 < 0:
            continue
        a1 = tree_awake[t1]
        a2 = tree_awake[t2]
        if a1 and a2:
            continue
        if not a1 and not a2:
            st = i1(D, DF.fw_status)
            st[0] = STATUS_SLEEP_CONTACT
            st[1] = b1
            st[2] = b2
            return n
        n += _wake_other(tree_asleep, tree_awake, t1, t2)
    return n


@kernel
def _tendon_at_limit(M, D, i):
    if not u1(M, MF.tendon_limited)[i]:
        return False
    length = f1(D, DF.ten_length)[i]
    rng = f2(M, MF.tendon_range)[i]
    margin = f1(M, MF.tendon_margin)[i]
    # as the limit rows are made (engine.constraint): distance to a bound below the margin
    return length - rng[0] < margin or rng[1] - length < margin


@kernel
def wake_tendon(M, D):
    """mj_wakeTendon: a limited tendon over two trees whose limit is active wakes the sleeping
    one of them when the other is awake (taking its counter). Returns the number woken."""
    if not enabled(M):
        return 0
    treenum = i1(M, MF.tendon_treenum)
    treeid = i2(M, MF.tendon_treeid)
    tree_asleep = i1(D, DF.tree_asleep)
    tree_awake = i1(D, DF.tree_awake)
    n = 0
    for i in range(treenum.shape[0]):
        if treenum[i] != 2 or not _tendon_at_limit(M, D, i):
            continue
        t1 = treeid[i, 0]
        t2 = treeid[i, 1]
        if tree_awake[t1] != tree_awake[t2]:
            n += _wake_other(tree_asleep, tree_awake, t1, t2)
    return n


@kernel
def wake_equality(M, D):
    """mj_wakeEquality: an active equality between a sleeping tree and an awake one wakes the
    sleeping one; between two sleeping trees of different islands wakes both (fully awake).
    Returns the number woken; an active tendon equality stops with STATUS_SLEEP_TENDONEQ
    (MuJoCo: not supported with sleeping)."""
    if not enabled(M):
        return 0
    eq_type = i1(M, MF.eq_type)
    eq_active = u1(D, DF.eq_active)
    eq_objtype = i1(M, MF.eq_objtype)
    id1s = i1(M, MF.eq_obj1id)
    id2s = i1(M, MF.eq_obj2id)
    body_treeid = i1(M, MF.body_treeid)
    site_bodyid = i1(M, MF.site_bodyid)
    jnt_bodyid = i1(M, MF.jnt_bodyid)
    tree_asleep = i1(D, DF.tree_asleep)
    tree_awake = i1(D, DF.tree_awake)
    n = 0
    for i in range(eq_type.shape[0]):
        if not eq_active[i]:
            continue
        et = eq_type[i]
        id1 = id1s[i]
        id2 = id2s[i]
        t1 = -1
        t2 = -1
        if et == _EQ_CONNECT or et == _EQ_WELD:
            if eq_objtype[i] == _OBJ_SITE:
                t1 = body_treeid[site_bodyid[id1]]
                t2 = body_treeid[site_bodyid[id2]]
            else:
                t1 = body_treeid[id1]
                t2 = body_treeid[id2]
        elif et == _EQ_JOINT:
            t1 = body_treeid[jnt_bodyid[id1]] if id1 >= 0 else -1
            t2 = body_treeid[jnt_bodyid[id2]] if id2 >= 0 else -1
        elif et == _EQ_TENDON:
            st = i1(D, DF.fw_status)
            st[0] = STATUS_SLEEP_TENDONEQ
            st[1] = i
            return n
        else:
            continue
        s1 = tree_awake[t1] if t1 >= 0 else S_STATIC
        s2 = tree_awake[t2] if t2 >= 0 else S_STATIC
        if s1 != S_ASLEEP and s2 != S_ASLEEP:
            continue
        if s1 == S_STATIC or s2 == S_STATIC or t1 == t2:
            continue
        if s1 == S_ASLEEP and s2 == S_ASLEEP:
            if sleep_cycle(tree_asleep, t1) != sleep_cycle(tree_asleep, t2):
                n += wake_island(tree_asleep, t1, AWAKE_COUNT)
                n += wake_island(tree_asleep, t2, AWAKE_COUNT)
            continue
        n += wake_island(tree_asleep, t1 if s1 == S_ASLEEP else t2, AWAKE_COUNT)
    return n


# =============================================================================================
# integration and reset
# =============================================================================================

@kernel
def add_scaled_awake(M, D, x, y, h):
    """x += h*y on the awake dofs only (all dofs when nothing sleeps)."""
    if filtering(M, D):
        ind = i1(D, DF.dof_awake_ind)
        for j in range(is_(D, DF.nv_awake)):
            k = ind[j]
            x[k] += y[k] * h
    else:
        for k in range(x.shape[0]):
            x[k] += y[k] * h


__all__ = ["AWAKE_COUNT", "S_STATIC", "S_ASLEEP", "S_AWAKE", "enabled", "filtering",
           "update_sleep", "tendon_state", "actuator_state", "equality_state", "object_state",
           "sensor_state", "tree_can_sleep",
           "sleep", "sleep_cycle", "wake_island", "wake", "wake_collision",
           "wake_tendon", "wake_equality", "add_scaled_awake", "STATUS_SLEEP_TENDONEQ",
           "STATUS_SLEEP_CONTACT"]
