"""Compile skins (seed 000 "deformable/skin"; seed 001 the skin_* fields): a visual mesh whose
vertices follow bodies ("bones") with per-vertex weights. Nothing in the physics reads them; the
renderer and the markers deform the mesh from the bones' poses.

Data come from the element (vertex, texcoord, face and <bone> children) or from an SKN file
(MuJoCo's binary skin format: four int32 sizes nvert, ntexcoord, nface, nbone, then float32
vertices and texture coordinates, int32 faces, and per bone a 40-byte body name, float32
bindpos (3) and bindquat (4), an int32 vertex count and that many int32 vertex ids and float32
weights). As MuJoCo's compiler (mjCSkin::Compile), the weights are normalized per vertex, in
float32 and in bone order, and each bind quaternion is normalized. MuJoCo keeps all of these in
float32; here they are float64 holding the float32 values.
"""
from __future__ import annotations

import struct

import numpy as np

from ._err import err

from ..enums import mjMINVAL as MINVAL  # noqa: E402


def _read_skn(c, el):
    """(vert, texcoord, face, bones) from the element's SKN file; bones: (name, bindpos,
    bindquat, vertid, vertweight) tuples."""
    fname = el.attrs["file"]
    if not fname.lower().endswith(".skn"):
        raise err(el, f"Unknown skin file type: {fname}", "file")
    subdir = c.c.get("meshdir") or c.c.get("assetdir") or ""
    blob, where = c.read_asset(fname, subdir, el)
    n = len(blob)
    if n == 0:
        raise err(el, f"SKN file '{where}' is empty", "file")
    if n < 16:
        raise err(el, f"missing header in SKN file '{where}'", "file")
    nvert, ntex, nface, nbone = struct.unpack_from("<4i", blob, 0)
    if min(nvert, ntex, nface, nbone) < 0:
        raise err(el, f"negative size in header of SKN file '{where}'", "file")
    if n < 16 + 12 * nvert + 8 * ntex + 12 * nface:
        raise err(el, f"insufficient data in SKN file '{where}'", "file")
    off = 16
    vert = np.frombuffer(blob, "<f4", 3 * nvert, off)
    off += 12 * nvert
    tex = np.frombuffer(blob, "<f4", 2 * ntex, off)
    off += 8 * ntex
    face = np.frombuffer(blob, "<i4", 3 * nface, off)
    off += 12 * nface
    bones = []
    for i in range(nbone):
        if n // 4 - off // 4 < 18:
            raise err(el, f"insufficient data in SKN file '{where}', bone {i}", "file")
        name = blob[off:off + 39].split(b"\0")[0].decode()
        off += 40
        bindpos = np.frombuffer(blob, "<f4", 3, off)
        bindquat = np.frombuffer(blob, "<f4", 4, off + 12)
        (count,) = struct.unpack_from("<i", blob, off + 28)
        off += 32
        if count < 1:
            raise err(el, f"vertex count must be positive in SKN file '{where}', bone {i}")
        if n // 4 - off // 4 < 2 * count:
            raise err(el, f"insufficient vertex data in SKN file '{where}', bone {i}")
        vid = np.frombuffer(blob, "<i4", count, off)
        vw = np.frombuffer(blob, "<f4", count, off + 4 * count)
        off += 8 * count
        bones.append((name, bindpos, bindquat, vid, vw))
    if off != n:
        raise err(el, f"unexpected buffer size in SKN file '{where}'", "file")
    return vert, tex, face, bones


def compile_skins(c):
    """The skin phase: skin_* fields, the skin sizes and names, from spec.skins."""
    skins = c.spec.skins
    c.names["skin"] = [s.name for s in skins]
    n = dict(nskin=len(skins), nskinvert=0, nskintexvert=0, nskinface=0, nskinbone=0,
             nskinbonevert=0)
    if not skins:
        c.sz.update(n)
        return
    body_id = {nm: i for i, nm in enumerate(c.names["body"]) if nm}
    mat_id = {el.name: i for i, el in enumerate(c.spec.materials) if el.name}
    rows = {k: [] for k in ("matid group rgba inflate vertadr vertnum texcoordadr faceadr "
                            "facenum boneadr bonenum pathadr").split()}
    cat = {k: [] for k in ("vert texcoord face bonevertnum bonebindpos "
                           "bonebindquat bonebodyid bonevertid bonevertweight").split()}
    for s in skins:
        a = s.attrs
        if a.get("file"):
            if a["vertex"] or a["texcoord"] or a["face"] or s.bones:
                raise err(s, f"Both skin data and file were specified: {a['file']}", "file")
            vert, tex, face, bones = _read_skn(c, s)
        else:
            vert = np.float32(a["vertex"])
            tex = np.float32(a["texcoord"])
            face = np.asarray(a["face"], np.int32)
            bones = [(b.attrs["body"], np.float32(b.attrs["bindpos"]),
                      np.float32(b.attrs["bindquat"]), np.asarray(b.attrs["vertid"], np.int32),
                      np.float32(b.attrs["vertweight"])) for b in s.bones]
        if not len(vert) or not len(face) or not bones:
            raise err(s, "Missing data in skin")
        if len(vert) % 3:
            raise err(s, "Vertex data must be multiple of 3", "vertex")
        nvert = len(vert) // 3
        if len(tex) and len(tex) != 2 * nvert:
            raise err(s, "Vertex and texcoord data incompatible size", "texcoord")
        if len(face) % 3:
            raise err(s, "Face data must be multiple of 3", "face")
        if a["material"] and a["material"] not in mat_id:
            raise err(s, f"unknown material '{a['material']}' in skin", "material")
        # vertex weights normalized to sum 1 over the bones, accumulated in float32 in bone
        # order as MuJoCo does (the sums' rounding shows in the stored weights)
        total = np.zeros(nvert, np.float32)
        for name, _, _, vid, vw in bones:
            if name not in body_id:
                raise err(s, f"unknown body '{name}' in skin")
            if len(vid) != len(vw) or not len(vid):
                raise err(s, "vertid and vertweight must have same non-zero size in skin")
            bad = (vid < 0) | (vid >= nvert)
            if bad.any():
                raise err(s, f"vertid {int(vid[bad][0])} out of range in skin")
            np.add.at(total, vid, vw)
        low = np.flatnonzero(total <= MINVAL)
        if len(low):
            raise err(s, f"vertex {int(low[0])} must have positive total weight in skin")
        rows["matid"].append(mat_id.get(a["material"], -1))
        rows["group"].append(a["group"])
        rows["rgba"].append(np.float32(a["rgba"]))
        rows["inflate"].append(np.float32(a["inflate"]))
        rows["vertadr"].append(n["nskinvert"])
        rows["vertnum"].append(nvert)
        rows["texcoordadr"].append(n["nskintexvert"] if len(tex) else -1)
        rows["faceadr"].append(n["nskinface"])
        rows["facenum"].append(len(face) // 3)
        rows["boneadr"].append(n["nskinbone"])
        rows["bonenum"].append(len(bones))
        # the file's path lives in MuJoCo's paths buffer, which the engine does not keep
        rows["pathadr"].append(-1)
        cat["vert"].append(np.asarray(vert, np.float32).reshape(-1, 3))
        cat["texcoord"].append(np.asarray(tex, np.float32).reshape(-1, 2))
        cat["face"].append(np.asarray(face, np.int32).reshape(-1, 3))
        for name, bindpos, bindquat, vid, vw in bones:
            q = np.asarray(bindquat, np.float64)
            nq = np.sqrt(q @ q)
            if nq >= MINVAL:
                q = q / nq
            cat["bonebindpos"].append(np.asarray(bindpos, np.float32))
            cat["bonebindquat"].append(np.float32(q))
            cat["bonebodyid"].append(body_id[name])
            cat["bonevertid"].append(np.asarray(vid, np.int32))
            cat["bonevertweight"].append(np.float32(vw) / total[vid])
            cat["bonevertnum"].append(len(vid))
        n["nskinvert"] += nvert
        n["nskintexvert"] += len(tex) // 2
        n["nskinface"] += len(face) // 3
        n["nskinbone"] += len(bones)
        n["nskinbonevert"] += sum(len(b[3]) for b in bones)
    c.sz.update(n)
    num = np.asarray(cat["bonevertnum"], int)
    c.v.update({f"skin_{k}": np.asarray(x, float if k in ("rgba", "inflate") else None)
                for k, x in rows.items()})
    c.v.update(
        skin_vert=np.concatenate(cat["vert"]).astype(float),
        skin_texcoord=np.concatenate(cat["texcoord"]).astype(float),
        skin_face=np.concatenate(cat["face"]),
        skin_bonevertadr=np.concatenate([[0], np.cumsum(num)[:-1]]),
        skin_bonevertnum=num,
        skin_bonebindpos=np.array(cat["bonebindpos"], float),
        skin_bonebindquat=np.array(cat["bonebindquat"], float),
        skin_bonebodyid=cat["bonebodyid"],
        skin_bonevertid=np.concatenate(cat["bonevertid"]),
        skin_bonevertweight=np.concatenate(cat["bonevertweight"]).astype(float))
