"""Contact parameters of two colliding objects (geoms or flexes), mixed as MuJoCo's
mj_contactParam (seed 000, <geom> priority / condim / friction / solmix / solref / solimp, and the
same attributes of <flex><contact>; seed 001 "Contacts", contact parameters).

Kept apart from the collision driver so that geom-geom contacts (engine/collision/__init__.py) and
flex contacts (engine/collision/flex.py) mix the same way from one function.
"""
from __future__ import annotations

from .._jit import kernel

mjMINVAL = 1e-15


@kernel
def mix_params(p1, c1, fr1, sm1, sr1, si1, p2, c2, fr2, sm2, sr2, si2,
               friction, solref, solimp):
    """Mix the contact parameters of side 1 (priority p1, condim c1, friction fr1 (3,),
    solmix sm1, solref sr1 (2,), solimp si1 (5,)) and side 2 into friction (5,), solref (2,),
    solimp (5,); returns condim.

    The side with the higher priority gives condim, friction, solref, solimp. Equal priorities:
    condim and each friction coefficient are the maxima, solimp the solmix-weighted average
    (weight sm1 / (sm1 + sm2); 0.5 if both are 0), solref the same average when both are in
    standard form (timeconst > 0), else the elementwise minimum. The 3 friction coefficients
    (sliding, torsional, rolling) fill the contact's 5 as (slide, slide, torsion, roll, roll)."""
    if p1 != p2:
        hi = p1 > p2
        dim = c1 if hi else c2
        fr = fr1 if hi else fr2
        f0, f1_, f2_ = fr[0], fr[1], fr[2]
        for j in range(2):
            solref[j] = sr1[j] if hi else sr2[j]
        for j in range(5):
            solimp[j] = si1[j] if hi else si2[j]
    else:
        dim = max(c1, c2)
        f0 = max(fr1[0], fr2[0])
        f1_ = max(fr1[1], fr2[1])
        f2_ = max(fr1[2], fr2[2])
        if sm1 >= mjMINVAL and sm2 >= mjMINVAL:
            mix = sm1 / (sm1 + sm2)
        elif sm1 < mjMINVAL and sm2 < mjMINVAL:
            mix = 0.5
        elif sm1 < mjMINVAL:
            mix = 0.0
        else:
            mix = 1.0
        if sr1[0] > 0 and sr2[0] > 0:
            for j in range(2):
                solref[j] = mix * sr1[j] + (1.0 - mix) * sr2[j]
        else:
            for j in range(2):
                solref[j] = min(sr1[j], sr2[j])
        for j in range(5):
            solimp[j] = mix * si1[j] + (1.0 - mix) * si2[j]
    friction[0] = f0
    friction[1] = f0
    friction[2] = f1_
    friction[3] = f2_
    friction[4] = f2_
    return dim


@kernel
def apply_override(override, o_solref, o_solimp, o_friction, friction, solref, solreffriction,
                   solimp):
    """<option><flag override>: solref (solreffriction too), solimp and friction from opt.o_*."""
    if not override:
        return
    for j in range(2):
        solref[j] = o_solref[j]
        solreffriction[j] = o_solref[j]
    for j in range(5):
        solimp[j] = o_solimp[j]
        friction[j] = o_friction[j]
