"""mj_name2id / mj_id2name (seed 001, "names"), and mjModel.names_map, the name hash table mujoco
keeps for mj_name2id (this engine looks names up in a dict; the table is built for MJB files)."""
import numpy as np

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


# mjLOAD_MULTIPLE (src/engine/engine_io.h): a type's table has twice as many slots as objects
LOAD_MULTIPLE = 2


def _hash(name: bytes, n: int) -> int:
    """mj_hashString (src/engine/engine_name.c): djb2 with xor, over the name's bytes as C
    chars (signed: a UTF-8 byte above 127 is xor-ed sign-extended), modulo ``n``."""
    h = 5381
    for c in name:
        h = (((h << 5) + h) ^ (c - 256 if c > 127 else c)) & 0xFFFFFFFFFFFFFFFF
    return h % n


def make_names_map(m):
    """mjModel.names_map of engine model ``m`` (int32, nnames_map = 2 x the number of objects of
    every named type): per type, in mjModel's name order (model.NAME_SECTIONS), a table of
    2 x count slots holding object ids at their name's hash (mj_hashString), the next free slot
    after a collision (linear probing, wrapping), -1 where free; unnamed objects are left out
    (mjCModel::CopyNames)."""
    from .model import NAME_ADR_FIELDS, NAME_SECTIONS
    parts = []
    for (kind, _), field in zip(NAME_SECTIONS, NAME_ADR_FIELDS):
        count = int(np.asarray(getattr(m, field)).size)
        size = LOAD_MULTIPLE * count
        table = np.full(size, -1, np.int32)
        names = m._names.get(kind, [])
        for i in range(count):
            name = names[i] if i < len(names) else None
            if not name:
                continue
            j = _hash(name.encode(), size)
            while table[j] != -1:
                j = (j + 1) % size
            table[j] = i
        parts.append(table)
    return np.concatenate(parts) if parts else np.zeros(0, np.int32)


__all__ = ["mj_name2id", "mj_id2name", "mjtObj"]
