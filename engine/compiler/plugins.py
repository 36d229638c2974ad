"""The compiler's plugin phase (seed 002 "引擎插件"): plugin instances from the spec, their
config strings, state sizes, and the element -> instance maps.

mjModel fields made here: ``nplugin`` (a size), ``plugin`` (the registry slot of each instance),
``plugin_stateadr`` / ``plugin_statenum`` (each instance's range of d.plugin_state),
``plugin_attr`` / ``plugin_attradr`` (config values, one NUL-terminated string per declared
attribute in the plugin's attribute order, '' for a missing one, as mjModel stores them),
``npluginattr``, ``npluginstate``, ``body_plugin``, and the instance ids of actuators and sensors
(actuator_plugin, sensor_plugin, filled by the actuator and sensor phases).

Instances are numbered in document order: the explicit ones of <extension> where they are
declared, an implicit one where an element names a plugin (measured on MuJoCo 4.0.0's pid.xml and
touch_grid.xml).
"""
from __future__ import annotations

import numpy as np

from ..errors import CompileError


# first-party plugins mujoco 4.0.0 ships that the engine does not provide yet
_NOT_BUILT = ("mujoco.sdf.", "mujoco.elasticity.")


class _View:
    """What a plugin's size callbacks (nstate, nsensordata, actuator_actdim) can read while the
    model is being compiled: the plugin fields and the fields compiled so far."""

    def __init__(self, c):
        for k, v in c.v.items():
            try:
                self.__dict__[k] = np.asarray(v)
            except ValueError:      # a ragged list: kept as it is
                self.__dict__[k] = v
        self.__dict__.update(c.sz)
        self.__dict__["_plugin_config"] = c.plugin_config
        self.plugin = np.asarray(c.plugin_slot, np.int32)
        self.nplugin = len(c.plugin_slot)


def resolve_instances(c):
    """Number the plugin instances of compiler ``c`` and check them against the registry: every
    declared or used plugin registered, config keys among its attributes, instance names unique
    and known. Sets c.plugin_slot, c.plugin_config, c.plugin_names and c.plugin_instance_id."""
    from ..plugin.registry import mjp_getPlugin
    ext = c.spec.extras.get("plugins") or {"declared": {}, "instances": []}
    c.plugin_slot, c.plugin_config, c.plugin_names, c.plugin_objs = [], [], [], []
    byname = {}

    def lookup(name, file, line, elem):
        p, slot = mjp_getPlugin(name)
        if p is None and name.startswith(_NOT_BUILT):
            raise NotImplementedError(f"{file}:{line}: MuJoCo's first-party plugin '{name}' is "
                                      "not built in this engine yet (seed 002)")
        if p is None:
            raise CompileError(f"unknown plugin '{name}' (not registered: see "
                               "engine.mjp_registerPlugin and engine.mj_loadPluginLibrary)",
                               file, line, elem, "plugin")
        return p, slot

    for name, (file, line) in ext["declared"].items():
        lookup(name, file, line, "plugin")
    for k, inst in enumerate(ext["instances"]):
        if inst["plugin"] not in ext["declared"]:
            raise CompileError(f"plugin '{inst['plugin']}' is not declared in <extension>",
                               inst["file"], inst["line"], "plugin", "plugin")
        p, slot = lookup(inst["plugin"], inst["file"], inst["line"], "plugin")
        for key in inst["config"]:
            if key not in p.attributes:
                raise CompileError(f"unrecognized attribute 'plugin:{key}' for plugin "
                                   f"'{p.name}'", inst["file"], inst["line"], "config", "key")
        if inst["name"]:
            if inst["name"] in byname:
                raise CompileError(f"repeated name '{inst['name']}' in plugin instance",
                                   inst["file"], inst["line"], "instance", "name")
            byname[inst["name"]] = k
        c.plugin_slot.append(slot)
        c.plugin_objs.append(p)
        c.plugin_config.append(tuple(inst["config"].get(a, "") for a in p.attributes))
        c.plugin_names.append(inst["name"])
    c.plugin_byname = byname


def instance_of(c, el, capability):
    """The plugin instance id of a plugin-backed element (-1 for an ordinary one), checking
    that the instance's plugin has ``capability`` (and is the plugin the element names)."""
    from ..plugin.registry import SENSOR, ACTUATOR, PASSIVE, SDF
    if getattr(el, "plugin_implicit", None) is not None:
        k = el.plugin_implicit
    elif getattr(el, "plugin_instance", None):
        k = c.plugin_byname.get(el.plugin_instance)
        if k is None:
            raise CompileError(f"unknown plugin instance '{el.plugin_instance}'", el.file,
                               el.line, el.tag, "instance")
    else:
        return -1
    p = c.plugin_objs[k]
    named = getattr(el, "plugin_name", None)
    if named and named != p.name:
        raise CompileError(f"plugin instance '{el.plugin_instance}' is of plugin '{p.name}', "
                           f"not '{named}'", el.file, el.line, el.tag, "plugin")
    what = {ACTUATOR: "an actuator", SENSOR: "a sensor", PASSIVE: "a passive", SDF: "an sdf"}
    if not int(p.capabilities) & capability:
        raise CompileError(f"plugin '{p.name}' is not {what[capability]} plugin", el.file,
                           el.line, el.tag, "plugin")
    return k


def actuator_actdim(c, el, k, i):
    """Activation variables of plugin actuator ``i`` (instance ``k``): the XML actdim when
    given, else one for a dyntype filter. mujoco 4.0.0 sizes them from the XML only; a plugin
    that needs act checks the count in its init (measured: mujoco.pid without actdim="1" and
    with ki or slewmax fails to load)."""
    nact = el.attrs.get("actdim", -1)
    if nact is not None and nact >= 0:
        return int(nact)
    return 1 if el.attrs.get("dyntype", "none") != "none" else 0


def sensor_dim(c, el, k, i):
    """sensordata size of plugin sensor ``i`` (the plugin's nsensordata)."""
    n = int(c.plugin_objs[k].nsensordata(_View(c), k, i))
    if n < 0:
        raise CompileError(f"plugin '{c.plugin_objs[k].name}': negative nsensordata", el.file,
                           el.line, el.tag)
    return n


def arena_fields(c):
    """The plugin fields kept in the model's arena (the compiled SDF collisions read them):
    ``plugin`` (registry slots), ``plugin_attr`` (config strings, NUL-terminated, in each
    plugin's attribute order) and ``plugin_attradr``, with the size ``npluginattr``."""
    attr, attradr = [], []
    for vals in c.plugin_config:
        attradr.append(len(attr))
        for v in vals:
            attr.extend(v.encode() + b"\0")
    c.sz["npluginattr"] = len(attr)
    c.v["plugin"] = np.asarray(c.plugin_slot, np.int32)
    c.v["plugin_attr"] = np.asarray(attr, np.uint8)
    c.v["plugin_attradr"] = np.asarray(attradr, np.int32)


def attach(c, m):
    """Put the plugin fields on the compiled model ``m`` (kept beside the arena: only the
    Python pipeline reads them)."""
    n = len(c.plugin_slot)
    statenum = np.zeros(n, np.int32)
    d = m.__dict__
    d["_plugin_config"] = list(c.plugin_config)
    from ..plugin.registry import PASSIVE
    d["body_plugin"] = np.asarray([instance_of(c, b, PASSIVE) for b in c.bodies], np.int32)
    for k, p in enumerate(c.plugin_objs):
        statenum[k] = int(p.nstate(m, k))
        if statenum[k] < 0:
            raise CompileError(f"plugin '{p.name}': negative nstate")
    d["plugin_statenum"] = statenum
    d["plugin_stateadr"] = (np.cumsum(statenum) - statenum).astype(np.int32)
    d["npluginstate"] = int(statenum.sum())
    d["_plugin_names"] = list(c.plugin_names)
