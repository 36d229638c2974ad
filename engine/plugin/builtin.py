"""First-party plugins that MuJoCo ships and its own models use, registered by default (seed
002 "actuator", "sensor", "sdf" directories). Written from the plugins' documented behaviour
(MuJoCo's plugin READMEs) and checked against mujoco 4.0.0 by test/engine/test_plugin*.py.

mujoco.pid: a PID controller actuator. force = kp e + ki I + kd de/dt with e = u - length,
de/dt = du/dt - velocity (du/dt = 0 for dyntype none); u is ctrl (clamped to ctrlrange), or the
actuator's last act for a dyntype filter; I (when ki != 0) is an activation variable holding the
error integral, clamped to imax / ki; with slewmax, u is limited to move at most slewmax * dt per
step from the previous u (kept in act, with a plugin state flag telling whether one exists).

mujoco.sensor.touch_grid: see `TouchGrid`.

mujoco.sdf.torus, gear, bowl, nut, bolt: engine.plugin.sdf.
"""
from __future__ import annotations

import math

import numpy as np

from .pipeline import next_activation
from .registry import ACTUATOR, SENSOR, Plugin, mjp_registerPlugin

from ..enums import mjDYN_NONE as _DYN_NONE  # noqa


def _opt_float(m, instance, k, attr):
    """An optional numeric config value (None when not given), from the compiled strings."""
    v = m.__dict__["_plugin_config"][instance][k] if hasattr(m, "__dict__") else None
    if v is None or v == "":
        return None
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"plugin instance {instance}: config '{attr}' = '{v}' is not a "
                         "number") from None


class _PidConfig:
    __slots__ = ("kp", "ki", "kd", "imax", "slewmax", "actuator")


class Pid(Plugin):
    """mujoco.pid (see the module docstring)."""
    name = "mujoco.pid"
    capabilities = ACTUATOR
    # the order mjModel.plugin_attr stores them in mujoco 4.0.0 (measured on pid.xml)
    attributes = ("kp", "ki", "kd", "imax", "slewmax")

    def _get(self, m, instance, attr):
        return _opt_float(m, instance, self.attributes.index(attr), attr)

    def nstate(self, m, instance):
        return 1 if self._get(m, instance, "slewmax") is not None else 0

    def actuator_actdim(self, m, instance, actuator_id):
        ki = self._get(m, instance, "ki") or 0.0
        return (1 if ki else 0) + (1 if self._get(m, instance, "slewmax") is not None else 0)

    def init(self, m, d, instance):
        cfg = _PidConfig()
        cfg.kp = self._get(m, instance, "kp") or 0.0
        cfg.ki = self._get(m, instance, "ki") or 0.0
        cfg.kd = self._get(m, instance, "kd") or 0.0
        imax = self._get(m, instance, "imax")
        cfg.imax = imax / cfg.ki if imax is not None and cfg.ki else None
        cfg.slewmax = self._get(m, instance, "slewmax")
        if cfg.imax is not None and cfg.imax < 0:
            raise ValueError(f"mujoco.pid instance {instance}: negative imax")
        if cfg.slewmax is not None and cfg.slewmax < 0:
            raise ValueError(f"mujoco.pid instance {instance}: slewmax must be non-negative")
        ids = [i for i in range(m.nu) if int(m.actuator_plugin[i]) == instance]
        if len(ids) != 1:
            raise ValueError(f"mujoco.pid instance {instance}: needs exactly one actuator, "
                             f"found {len(ids)}")
        cfg.actuator = i = ids[0]
        want = self.actuator_actdim(m, instance, i)
        if int(m.actuator_actnum[i]) != want:
            raise ValueError(f"plugin->init failed for plugin id {instance}: actuator {i} has "
                             f"actdim {int(m.actuator_actnum[i])}, expected {want}. Add "
                             f'actdim="{want}" to the actuator plugin element.')
        return cfg

    def reset(self, m, plugin_state, plugin_data, instance):
        if plugin_data is not None and plugin_data.slewmax is not None and len(plugin_state):
            plugin_state[0] = 0.0     # no previous control yet

    @staticmethod
    def _state(m, d, cfg, instance):
        # the state is read from act at actuator_actadr[instance], as mujoco's plugin does
        # (the same address as the actuator's own when instance i drives actuator i)
        k = int(m.actuator_actadr[instance])
        integral = prev = 0.0
        prev_exists = False
        if cfg.ki:
            integral = d.act[k]
            k += 1
        if cfg.slewmax is not None:
            prev = d.act[k]
            prev_exists = bool(d.plugin_state[m.plugin_stateadr[instance]])
        return integral, prev, prev_exists

    def _ctrl(self, m, d, cfg, prev, prev_exists, actearly):
        i = cfg.actuator
        if int(m.actuator_dyntype[i]) == _DYN_NONE:
            u = d.ctrl[i]
            if m.actuator_ctrllimited[i]:
                u = min(max(u, m.actuator_ctrlrange[i, 0]), m.actuator_ctrlrange[i, 1])
        else:
            j = int(m.actuator_actadr[i] + m.actuator_actnum[i] - 1)
            u = next_activation(m, i, d.act[j], d.act_dot[j]) if actearly else d.act[j]
        if cfg.slewmax is not None and prev_exists:
            h = m.opt.timestep
            u = min(max(u, prev - cfg.slewmax * h), prev + cfg.slewmax * h)
        return u

    def actuator_act_dot(self, m, d, instance):
        cfg = d.plugin_data[instance]
        integral, prev, prev_exists = self._state(m, d, cfg, instance)
        u = self._ctrl(m, d, cfg, prev, prev_exists, False)
        i = cfg.actuator
        err = u - d.actuator_length[i]
        h = m.opt.timestep
        k = int(m.actuator_actadr[i])
        if cfg.ki:
            nxt = integral + err * h
            if cfg.imax is not None:
                nxt = min(max(nxt, -cfg.imax), cfg.imax)
            d.act_dot[k] = (nxt - d.act[k]) / h
            k += 1
        if cfg.slewmax is not None:
            d.act_dot[k] = (u - d.act[k]) / h

    def compute(self, m, d, instance, capability):
        cfg = d.plugin_data[instance]
        i = cfg.actuator
        integral, prev, prev_exists = self._state(m, d, cfg, instance)
        u = self._ctrl(m, d, cfg, prev, prev_exists, bool(m.actuator_actearly[i]))
        err = u - d.actuator_length[i]
        udot = (0.0 if int(m.actuator_dyntype[i]) == _DYN_NONE else
                d.act_dot[int(m.actuator_actadr[i] + m.actuator_actnum[i] - 1)])
        derr = udot - d.actuator_velocity[i]
        integ = 0.0
        if cfg.ki:
            integ = integral + err * m.opt.timestep
            if cfg.imax is not None:
                integ = min(max(integ, -cfg.imax), cfg.imax)
        d.actuator_force[i] = cfg.kp * err + cfg.kd * derr + cfg.ki * integ

    def advance(self, m, d, instance):
        cfg = d.plugin_data[instance]
        if cfg.slewmax is not None:
            d.plugin_state[m.plugin_stateadr[instance]] = 1.0


def register():
    """Register the first-party plugins (called on the registry's first lookup)."""
    mjp_registerPlugin(Pid())
    mjp_registerPlugin(TouchGrid())
    from . import sdf
    for k, p in enumerate(sdf.plugins()):
        # the compiled SDF collisions map a slot to its shape by this fixed numbering
        if mjp_registerPlugin(p) != sdf.SLOT0 + k:
            raise AssertionError("the first-party SDF plugins must take slots "
                                 f"{sdf.SLOT0}..{sdf.SLOT0 + len(sdf.NAMES) - 1}")


# ---- mujoco.sensor.touch_grid -------------------------------------------------------------------
def _numbers(text, kind=float):
    """A config value's whitespace-separated numbers."""
    return [kind(float(x)) for x in text.split()]


def _fovea(x, gamma):
    """The foveal deformation of a unit bin edge: gamma x^5 + (1 - gamma) x."""
    if not gamma:
        return x
    g = max(0.0, min(1.0, gamma))
    return g * x ** 5 + (1 - g) * x


def _bin_edges(n, fov, gamma):
    """n + 1 bin edges over [-fov, fov] degrees (as radians), foveally deformed."""
    step = 2.0 / n if n > 0 else 0.0
    edges, x = [], -1.0
    for _ in range(n + 1):      # accumulated as MuJoCo's LinSpace does (same rounding)
        edges.append(x)
        x += step
    return np.array([_fovea(e, gamma) for e in edges]) * (fov * math.pi / 180)


def _bin(edges, x):
    """The bin of x (1-based; 0 or len(edges) when outside), the first edge with x <= edge."""
    return int(np.searchsorted(edges, x, side="left"))


class TouchGrid(Plugin):
    """mujoco.sensor.touch_grid: contact forces on the body of a site, binned on a grid of
    (azimuth, elevation) directions seen from the site (the site looks down its -z axis).

    sensordata: nchannel frames of size[0] x size[1] (x fastest); channel k sums, per bin, the
    k-th component of the contacts' force/torque in the site frame permuted to (normal,
    tangent, tangent): (z, x, y) of force then of torque. Contacts count when either body's
    weld is the site body's weld; forces point away from the site's body. needstage ACC (it
    reads the constraint forces)."""
    name = "mujoco.sensor.touch_grid"
    capabilities = SENSOR
    attributes = ("nchannel", "size", "fov", "gamma")
    needstage = 3

    @staticmethod
    def _cfg(m, instance):
        vals = dict(zip(TouchGrid.attributes, m.__dict__["_plugin_config"][instance]))
        nch = int(float(vals["nchannel"] or 0)) or 1
        size = _numbers(vals["size"], int) if vals["size"] else []
        return vals, nch, size

    def nsensordata(self, m, instance, sensor_id):
        _, nch, size = self._cfg(m, instance)
        if len(size) != 2:
            raise ValueError("mujoco.sensor.touch_grid: both horizontal and vertical "
                             "resolutions must be specified")
        return nch * size[0] * size[1]

    def init(self, m, d, instance):
        vals, nch, size = self._cfg(m, instance)
        if not 1 <= nch <= 6:
            raise ValueError("mujoco.sensor.touch_grid: nchannel must be between 1 and 6")
        if len(size) != 2 or size[0] <= 0 or size[1] <= 0:
            raise ValueError("mujoco.sensor.touch_grid: horizontal and vertical resolutions "
                             "must be positive")
        fov = _numbers(vals["fov"]) if vals["fov"] else []
        if len(fov) != 2 or not 0 < fov[0] <= 180 or not 0 < fov[1] <= 90:
            raise ValueError("mujoco.sensor.touch_grid: fov must be two angles in (0, 180] and "
                             "(0, 90] degrees")
        gamma = float(vals["gamma"] or 0)
        if not 0 <= gamma <= 1:
            raise ValueError("mujoco.sensor.touch_grid: gamma must be in [0, 1]")
        sid = next(i for i in range(m.nsensor) if int(m.sensor_plugin[i]) == instance)
        if int(m.sensor_objtype[sid]) != 6:     # mjOBJ_SITE
            raise ValueError("mujoco.sensor.touch_grid: the sensor must be attached to a site")
        return dict(sensor=sid, nchannel=nch, size=size,
                    xedges=_bin_edges(size[0], fov[0], gamma),
                    yedges=_bin_edges(size[1], fov[1], gamma), force=np.zeros(6))

    def compute(self, m, d, instance, capability):
        from ..constraint import mj_contactForce
        cfg = d.plugin_data[instance]
        sid = cfg["sensor"]
        adr, dim = int(m.sensor_adr[sid]), int(m.sensor_dim[sid])
        out = d.sensordata[adr:adr + dim]
        out[:] = 0.0
        site = int(m.sensor_objid[sid])
        parent_body = int(m.body_weldid[m.site_bodyid[site]])
        parent_weld = int(m.body_weldid[parent_body])
        gb, weld = m.geom_bodyid, m.body_weldid
        spos, smat = d.site_xpos[site], d.site_xmat[site].reshape(3, 3)
        nx, ny = cfg["size"]
        frame = nx * ny
        xe, ye = cfg["xedges"], cfg["yedges"]
        f6 = cfg["force"]
        for i in range(d.ncon):
            c = d.contact[i]
            b1, b2 = int(gb[c.geom1]), int(gb[c.geom2])
            if int(weld[b1]) != parent_weld and int(weld[b2]) != parent_weld:
                continue
            mj_contactForce(m, d, i, f6)
            cf = np.asarray(c.frame).reshape(3, 3)
            force = smat.T @ (cf.T @ f6[:3])
            torque = smat.T @ (cf.T @ f6[3:])
            if parent_body < max(b1, b2):
                force, torque = -force, -torque
            comps = (force[2], force[0], force[1], torque[2], torque[0], torque[1])
            x, y, z = smat.T @ (np.asarray(c.pos) - spos)
            az = math.atan2(x, -z)
            el = math.atan2(y, math.sqrt(x * x + z * z))
            xi, yi = _bin(xe, az), _bin(ye, el)
            if xi == 0 or xi == nx + 1 or yi == 0 or yi == ny + 1:
                continue
            k = (yi - 1) * nx + (xi - 1)
            for ch in range(cfg["nchannel"]):
                out[ch * frame + k] += comps[ch]
