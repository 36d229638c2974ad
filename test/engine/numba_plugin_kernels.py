"""Kernels of the numba plugins test_plugin_numba.py registers (plugin kernels must live in an
importable module: a kernel is cached by its file)."""
from engine._access import f1, i1
from engine._jit import kernel
from engine._layout import DF, MF


@kernel
def spring_compute(M, D, state, config, instance, capability):
    """Passive: qfrc_passive -= k qpos - c qvel on every hinge/slide dof (config k, c)."""
    qpos = f1(D, DF.qpos)
    qvel = f1(D, DF.qvel)
    qfrc = f1(D, DF.qfrc_passive)
    jtype = i1(M, MF.jnt_type)
    qadr = i1(M, MF.jnt_qposadr)
    dadr = i1(M, MF.jnt_dofadr)
    k, c = config[0], config[1]
    for j in range(jtype.shape[0]):
        if jtype[j] >= 2:
            qfrc[dadr[j]] += -k * qpos[qadr[j]] - c * qvel[dadr[j]]


@kernel
def spring_advance(M, D, state, config, instance):
    """Counts steps in the plugin state."""
    state[0] += 1.0


@kernel
def energy_sensor(M, D, state, config, instance, capability):
    """Sensor (position stage): the spring's potential energy, at the sensor of this
    instance."""
    qpos = f1(D, DF.qpos)
    jtype = i1(M, MF.jnt_type)
    qadr = i1(M, MF.jnt_qposadr)
    splug = i1(M, MF.sensor_plugin)
    sadr = i1(M, MF.sensor_adr)
    data = f1(D, DF.sensordata)
    e = 0.0
    for j in range(jtype.shape[0]):
        if jtype[j] >= 2:
            e += 0.5 * config[0] * qpos[qadr[j]] ** 2
    for s in range(splug.shape[0]):
        if splug[s] == instance:
            data[sadr[s]] = e


@kernel
def pd_compute(M, D, state, config, instance, capability):
    """Actuator: force = kp (ctrl - length) - kv velocity for this instance's actuators (config
    kp, kv), as <position kp kv>."""
    ap = i1(M, MF.actuator_plugin)
    ctrl = f1(D, DF.ctrl)
    length = f1(D, DF.actuator_length)
    vel = f1(D, DF.actuator_velocity)
    force = f1(D, DF.actuator_force)
    for i in range(ap.shape[0]):
        if ap[i] == instance:
            force[i] = config[0] * ctrl[i] - config[0] * length[i] - config[1] * vel[i]
