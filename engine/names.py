"""mj_name2id / mj_id2name (seed 001, "names")."""
from . import argcheck
from .enums import mjtObj
from .model import NAMED_KINDS

_KIND_OF_OBJ = {int(v[1]): k for k, v in NAMED_KINDS.items()}


def mj_name2id(m, type, name):
    """Id of the object of type ``type`` (mjtObj) named ``name``; -1 if there is none."""
    argcheck.model(m, "mj_name2id")
    kind = _KIND_OF_OBJ.get(argcheck.integer(type, "type", "mj_name2id"))
    if not isinstance(name, str):
        raise argcheck.ArgumentError(f"mj_name2id: name must be a str, got "
                                     f"{name.__class__.__name__}")
    if kind is None:
        return -1
    return m._name2id.get(kind, {}).get(name, -1)


def mj_id2name(m, type, id):
    """Name of object ``id`` of type ``type`` (mjtObj); None if it has no name or does not exist."""
    argcheck.model(m, "mj_id2name")
    kind = _KIND_OF_OBJ.get(argcheck.integer(type, "type", "mj_id2name"))
    id = argcheck.integer(id, "id", "mj_id2name")
    if kind is None:
        return None
    names = m._names.get(kind, [])
    if 0 <= id < len(names) and names[id]:
        return names[id]
    return None


__all__ = ["mj_name2id", "mj_id2name", "mjtObj"]
