"""Model constants that need the model's own kinematics and inertia at qpos0 (what MuJoCo's
mj_setConst computes, seed 001): body/dof/tendon invweight0, dof_M0, tendon_length0,
actuator_length0/acc0, statistics, and the compile-time conversions that use the joint-space
inertia (position/intvelocity ``dampratio``, joint ``springdamper``)."""
from __future__ import annotations



def set_const(m, c):
    """Fill the qpos0-dependent constants of model ``m`` built by compiler ``c``."""
    needs_inertia = any(
        el.tag in ("position", "intvelocity") and el.attrs["biasprm"][2] > 0
        for el in c.spec.actuators) or any(
        getattr(j, "_springdamper", (0, 0))[0] > 0 for j in c.joints)
    try:
        from .. import smooth  # noqa: F401  (the position-stage kernels)
        have_smooth = hasattr(smooth, "fwd_position_smooth")
    except ImportError:
        have_smooth = False
    if not have_smooth:
        from .lengthrange import DEFAULTS, pending
        if pending(m, {**DEFAULTS, **c.spec.lengthrange}):
            raise NotImplementedError("actuator lengthrange computation by simulation "
                                      "(<compiler><lengthrange>) needs the engine's simulation "
                                      "stages, which are not available")
        if needs_inertia:
            raise NotImplementedError("actuator dampratio / joint springdamper need the engine's "
                                      "mass matrix at qpos0, which is not available yet")
        return
    from ._setconst_dyn import set_const_dynamic
    set_const_dynamic(m, c)
    # after the qpos0 constants, as MuJoCo's compiler runs mj_setLengthRange after mj_setConst
    from .lengthrange import set_length_ranges
    set_length_ranges(m, c.spec.lengthrange, c.spec.file)
