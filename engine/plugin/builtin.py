"""First-party plugins that MuJoCo ships and its own models use, registered by default (seed
002 "actuator", "sensor", "sdf" directories). Written from the plugins' documented behaviour
(MuJoCo's plugin READMEs) and checked against mujoco 4.0.0 by test/engine/test_plugin*.py.

mujoco.pid: a PID controller actuator. force = kp e + ki I + kd de/dt with e = u - length,
de/dt = du/dt - velocity (du/dt = 0 for dyntype none); u is ctrl (clamped to ctrlrange), or the
actuator's last act for a dyntype filter; I (when ki != 0) is an activation variable holding the
error integral, clamped to imax / ki; with slewmax, u is limited to move at most slewmax * dt per
step from the previous u (kept in act, with a plugin state flag telling whether one exists).
"""
from __future__ import annotations

import math

from .registry import ACTUATOR, Plugin, mjp_registerPlugin

_DYN_NONE, _DYN_FILTEREXACT = 0, 3
_MINVAL = 1e-15


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

    @staticmethod
    def _next_act(m, d, i, j, act_dot):
        act = d.act[j]
        if int(m.actuator_dyntype[i]) == _DYN_FILTEREXACT:
            tau = max(_MINVAL, m.actuator_dynprm[i, 0])
            act = act + act_dot * tau * (1 - math.exp(-m.opt.timestep / tau))
        else:
            act = act + act_dot * m.opt.timestep
        if m.actuator_actlimited[i]:
            act = min(max(act, m.actuator_actrange[i, 0]), m.actuator_actrange[i, 1])
        return act

    def _ctrl(self, m, d, cfg, prev, prev_exists, actearly):
        i = cfg.actuator
        if int(m.actuator_dyntype[i]) == _DYN_NONE:
            u = d.ctrl[i]
            if m.actuator_ctrllimited[i]:
                u = min(max(u, m.actuator_ctrlrange[i, 0]), m.actuator_ctrlrange[i, 1])
        else:
            j = int(m.actuator_actadr[i] + m.actuator_actnum[i] - 1)
            u = self._next_act(m, d, i, j, d.act_dot[j]) if actearly else d.act[j]
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
