"""Engine plugins (seed 002 "引擎插件"): a global table of plugins, registered once per process,
that MJCF models reference through ``<extension><plugin plugin="name">``.

A plugin is a `Plugin` (subclass it, or build one with keyword arguments), the Python form of
MuJoCo's mjpPlugin:

- ``name`` (str), ``capabilities`` (mjtPluginCapabilityBit flags: actuator, sensor, passive,
  sdf), ``attributes`` (the config keys it accepts, in the order mjModel.plugin_attr stores their
  values), ``needstage`` (mjtStage of a sensor plugin's compute: NONE and POS run in
  mj_sensorPos, VEL in mj_sensorVel, ACC in mj_sensorAcc);
- sizes: ``nstate(m, instance)`` (floats of d.plugin_state), ``nsensordata(m, instance,
  sensor_id)`` (sensordata of one sensor), ``actuator_actdim(m, instance, actuator_id)`` (the act
  variables an actuator needs: the XML's actdim sizes them, as in mujoco 4.0.0, and a plugin
  checks it in init);
- callbacks: ``init(m, d, instance)`` returns the instance's plugin data (any Python object,
  stored in d.plugin_data[instance]), ``destroy(m, d, instance)``, ``reset(m, plugin_state,
  plugin_data, instance)`` (plugin_state: this instance's slice of d.plugin_state),
  ``copy(m, dst, src, instance)`` returns dst's plugin data (default: init again),
  ``actuator_act_dot(m, d, instance)``, ``compute(m, d, instance, capability)``,
  ``advance(m, d, instance)``;
- SDF: ``sdf_distance(point, d, instance)``, ``sdf_gradient(gradient, point, d, instance)``,
  ``sdf_staticdistance(point, attributes)``, ``sdf_aabb(aabb, attributes)``.

Plugins run from Python at MuJoCo's pipeline points (engine.plugin.pipeline). Registering: `
mjp_registerPlugin(plugin)`; loading plugins packaged by others: `mj_loadPluginLibrary(path)` (a
Python file or an importable module that registers its plugins when imported) and the entry-point
group ``mj_ros.engine.plugins`` (each entry point loads to a Plugin, a list of them, or a function
returning them), read on the first name lookup that misses.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys

from ..enums import mjtPluginCapabilityBit as _CAP

ACTUATOR, SENSOR, PASSIVE, SDF = (int(_CAP.mjPLUGIN_ACTUATOR), int(_CAP.mjPLUGIN_SENSOR),
                                  int(_CAP.mjPLUGIN_PASSIVE), int(_CAP.mjPLUGIN_SDF))
ENTRY_POINT_GROUP = "mj_ros.engine.plugins"

_CALLBACKS = ("nstate", "nsensordata", "actuator_actdim", "init", "destroy", "reset", "copy",
              "actuator_act_dot", "compute", "advance", "sdf_distance", "sdf_gradient",
              "sdf_staticdistance", "sdf_aabb")


class Plugin:
    """One plugin (mjpPlugin). Subclass and override the callbacks, or pass them as keyword
    arguments: ``Plugin(name="my.sensor", capabilities=SENSOR, attributes=("gain",),
    nsensordata=lambda m, i, s: 1, compute=fn)``."""
    name = ""
    capabilities = 0
    attributes = ()
    needstage = 0

    def __init__(self, **kw):
        for k, v in kw.items():
            if k not in ("name", "capabilities", "attributes", "needstage") + _CALLBACKS:
                raise TypeError(f"Plugin: unknown field '{k}'")
            setattr(self, k, v)
        if isinstance(self.attributes, str):
            raise TypeError("Plugin.attributes must be a sequence of names, not a string")
        self.attributes = tuple(self.attributes)

    # defaults, as mjp_defaultPlugin leaves them
    def nstate(self, m, instance):
        return 0

    def nsensordata(self, m, instance, sensor_id):
        return 0

    actuator_actdim = None      # None: the actuator's own actdim

    def init(self, m, d, instance):
        return None

    def destroy(self, m, d, instance):
        pass

    def reset(self, m, plugin_state, plugin_data, instance):
        pass

    def copy(self, m, dst, src, instance):
        return self.init(m, dst, instance)

    actuator_act_dot = None
    advance = None

    def compute(self, m, d, instance, capability):
        raise NotImplementedError(f"plugin '{self.name}' has no compute callback")

    sdf_distance = sdf_gradient = sdf_staticdistance = sdf_aabb = None

    def __repr__(self):
        return f"<engine plugin '{self.name}'>"


_table: list[Plugin] = []
_entry_points_read = False


def mjp_registerPlugin(plugin):
    """Register ``plugin`` and return its slot (mjp_registerPlugin). Registering the same object
    again returns its slot; another plugin under a registered name is an error."""
    if not isinstance(plugin, Plugin):
        raise TypeError("mjp_registerPlugin: expected an engine.plugin.Plugin")
    _load_builtins()    # first-party plugins keep their fixed slots (engine.plugin.sdf.SLOT0)
    if not isinstance(plugin.name, str) or not plugin.name:
        raise ValueError("mjp_registerPlugin: a plugin needs a name")
    caps = int(plugin.capabilities)
    if caps <= 0 or caps & ~(ACTUATOR | SENSOR | PASSIVE | SDF):
        raise ValueError(f"plugin '{plugin.name}': capabilities must be a nonzero combination "
                         "of mjtPluginCapabilityBit flags")
    if len(set(plugin.attributes)) != len(plugin.attributes):
        raise ValueError(f"plugin '{plugin.name}': repeated attribute names")
    for i, p in enumerate(_table):
        if p is plugin:
            return i
        if p.name == plugin.name:
            raise ValueError(f"a plugin named '{plugin.name}' is already registered")
    _table.append(plugin)
    return len(_table) - 1


def mjp_pluginCount():
    """Number of registered plugins."""
    _load_builtins()
    return len(_table)


def mjp_getPluginAtSlot(slot):
    """The plugin registered at ``slot`` (None if there is none)."""
    _load_builtins()
    return _table[slot] if 0 <= slot < len(_table) else None


def mjp_getPlugin(name):
    """(plugin, slot) for a registered name; (None, -1) if none. A miss reads the entry points
    of the group ``mj_ros.engine.plugins`` once, then looks again."""
    _load_builtins()
    for i, p in enumerate(_table):
        if p.name == name:
            return p, i
    if _load_entry_points():
        return mjp_getPlugin(name)
    return None, -1


def _register_all(obj, where):
    if callable(obj) and not isinstance(obj, Plugin) and not isinstance(obj, type):
        obj = obj()
    if isinstance(obj, type) and issubclass(obj, Plugin):
        obj = obj()
    items = obj if isinstance(obj, (list, tuple)) else [obj] if obj is not None else []
    for p in items:
        if not isinstance(p, Plugin):
            raise TypeError(f"{where}: expected Plugin objects, got {type(p).__name__}")
        mjp_registerPlugin(p)


def _load_entry_points():
    """Register the plugins of installed packages (entry-point group ``mj_ros.engine.plugins``);
    True when this call read them (only the first call does)."""
    global _entry_points_read
    if _entry_points_read:
        return False
    _entry_points_read = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _register_all(ep.load(), f"entry point '{ep.name}' ({ep.value})")
    return True


def mj_loadPluginLibrary(path):
    """Load a plugin library: a Python file (``.py``) or an importable module name, whose import
    registers its plugins (as a shared library's constructor does in MuJoCo). A module that
    defines ``mj_plugins`` (Plugins, or a function returning them) has those registered too."""
    if os.path.isfile(path):
        modname = "_mj_plugin_" + os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"mj_loadPluginLibrary: cannot load '{path}'")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
    else:
        try:
            mod = importlib.import_module(path)
        except ImportError as e:
            raise ImportError(f"mj_loadPluginLibrary: '{path}' is neither a file nor an "
                              f"importable module: {e}") from None
    if hasattr(mod, "mj_plugins"):
        _register_all(mod.mj_plugins, f"{path}: mj_plugins")
    return mod


def mj_loadAllPluginLibraries(directory, callback=None):
    """Load every ``.py`` file of ``directory`` with `mj_loadPluginLibrary`; ``callback(
    filename, first, count)`` after each (as MuJoCo's mjfPluginLibraryLoadCallback)."""
    for fname in sorted(os.listdir(directory)):
        if fname.endswith(".py") and not fname.startswith("_"):
            before = len(_table)
            mj_loadPluginLibrary(os.path.join(directory, fname))
            if callback is not None:
                callback(fname, before, len(_table) - before)


_builtins_loaded = False


def _load_builtins():
    """Register the first-party plugins (engine.plugin.builtin) on first use."""
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        from . import builtin
        builtin.register()


def plugin_config(m, instance, attr):
    """mj_getPluginConfig: the value string of config key ``attr`` of plugin instance
    ``instance`` (None when the plugin has no such attribute; '' when not given)."""
    p = mjp_getPluginAtSlot(int(m.plugin[instance]))
    if p is None or attr not in p.attributes:
        return None
    vals = m.__dict__["_plugin_config"][instance]
    return vals[p.attributes.index(attr)]
