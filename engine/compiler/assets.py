"""The compiler's asset phases: meshes (and their hull data), height fields, textures and
materials (seed 000, <asset>), producing mjModel's mesh_*, hfield_*, tex_* and mat_* fields.

Processed meshes and textures come from the compile cache (engine/compiler/cache.py) when an
earlier compile stored them: a mesh entry is keyed on the file's bytes (or inline vertices) and
the processing attributes, a procedural texture on its attributes, an image texture on its
files' bytes and attributes.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import enums
from ._err import err

# a cold batch of meshes with at least this many bytes of vertex arrays is processed by threads
# (measured on the Menagerie scenes, whose cold batches hold 0.1 to 4 MB: below 0.2 MB threads
# cost more than they save, from 0.3 MB on they save)
THREADED_MESH_BYTES = 1 << 18

# mjtTextureRole
_ROLES = {"user": 0, "rgb": 1, "occlusion": 2, "roughness": 3, "metallic": 4, "normal": 5,
          "opacity": 6, "emissive": 7, "rgba": 8, "orm": 9}


class AssetPhases:
    """The asset phases of `engine.compiler.builder.Compiler` (a mixin: it uses the compiler's
    spec, settings ``c``, field values ``v``, sizes ``sz`` and names)."""

    def _mesh_name(self, mel):
        n = mel.name
        if n:
            return n
        f = mel.attrs.get("file")
        if f:
            return os.path.splitext(os.path.basename(f))[0]
        return None

    # ==== phase: meshes =============================================================================
    def compile_meshes(self):
        """mesh_* from the <mesh> assets: each processed by engine/compiler/mesh.py
        (process_mesh), or read from the compile cache."""
        from . import mesh as meshlib
        sp = self.spec
        meshdir = self.c.get("meshdir") or self.c.get("assetdir") or ""
        self.mesh_id, self.mesh_data = {}, []
        names = []
        for i, mel in enumerate(sp.meshes):
            name = self._mesh_name(mel)
            if name in self.mesh_id:
                raise err(mel, f"repeated name '{name}' in mesh", "name")
            self.mesh_id[name] = i
            names.append(name)
        # the cache first, then the misses: independent of each other, and qhull and numpy's
        # array work release the GIL, so a large cold batch is shared among the cores by
        # threads (a small one costs more in threads than it saves). Results stay in mesh
        # order, and the first failing mesh in that order raises, as a serial loop would.
        found = [self._lookup_mesh(mel, meshdir, meshlib) for mel in sp.meshes]
        miss = [i for i, f in enumerate(found) if not isinstance(f, meshlib.MeshData)]
        work = sum(found[i][0].nbytes for i in miss)

        def process(i):
            return self._process_mesh(sp.meshes[i], names[i], meshlib, *found[i])

        workers = min(len(miss), len(os.sched_getaffinity(0)))
        if workers > 1 and work >= THREADED_MESH_BYTES:
            with ThreadPoolExecutor(workers) as pool:
                done = list(pool.map(process, miss))
        else:
            done = [process(i) for i in miss]
        for i, md in zip(miss, done):
            found[i] = md
        self.mesh_data = found
        self.names["mesh"] = names
        self.sz["nmesh"] = len(self.mesh_data)
        v = self.v
        nv_ = [len(md.vert) for md in self.mesh_data]
        nf_ = [len(md.face) for md in self.mesh_data]
        v["mesh_vertnum"] = nv_
        v["mesh_vertadr"] = np.concatenate([[0], np.cumsum(nv_)[:-1]]) if nv_ else []
        v["mesh_facenum"] = nf_
        v["mesh_faceadr"] = np.concatenate([[0], np.cumsum(nf_)[:-1]]) if nf_ else []
        # mjModel.mesh_vert is single precision: the support functions of the convex collider
        # then break near-ties between vertices as mujoco's do
        v["mesh_vert"] = (np.concatenate([md.vert for md in self.mesh_data])
                          .astype(np.float32).astype(np.float64) if nv_ else np.zeros((0, 3)))
        v["mesh_face"] = (np.concatenate([md.face for md in self.mesh_data])
                          if nf_ else np.zeros((0, 3)))
        v["mesh_scale"] = [mel.attrs["scale"] for mel in sp.meshes]
        v["mesh_pos"] = [md.pos for md in self.mesh_data]
        v["mesh_quat"] = [md.quat for md in self.mesh_data]
        self.sz.update(nmeshvert=int(sum(nv_)), nmeshface=int(sum(nf_)))

    def _lookup_mesh(self, mel, meshdir, meshlib):
        """One <mesh>'s MeshData from the compile cache when an entry matches its source (file
        bytes or inline arrays) and processing attributes; else what processing it needs:
        (vertices, faces, processing attributes, cache key)."""
        a = mel.attrs
        vert = face = blob = None
        inertia = a["inertia"]
        if a.get("builtin") not in (None, "none"):
            # a procedural mesh (mjs_makeMesh): generated user vertices/faces, then processed
            # as an inline mesh
            from .mesh_builtin import BuiltinMeshError, make_builtin_mesh
            try:
                vert, face, forced = make_builtin_mesh(a["builtin"], a.get("params"))
            except BuiltinMeshError as e:
                raise err(mel, str(e), "params") from None
            inertia = forced or inertia
            kind, source = "inline", (vert, face)
        elif a.get("file"):
            fname = a["file"]
            if self.c["strippath"]:
                fname = os.path.basename(fname)
            blob, where = self.read_asset(fname, meshdir, mel)
            try:
                kind = meshlib.mesh_kind(where, a.get("content_type"))
            except meshlib.MeshError as e:
                raise err(mel, str(e), "file") from None
            source = blob
        elif getattr(mel, "plugin_instance", None) or getattr(mel, "plugin_implicit", None) \
                is not None:
            return self._lookup_sdf_mesh(mel, meshlib)
        elif a.get("vertex") is not None:
            vert = np.asarray(a["vertex"], float).reshape(-1, 3)
            face = (np.asarray(a["face"], np.int32).reshape(-1, 3)
                    if a.get("face") is not None else None)
            kind, source = "inline", (vert, face)
        else:
            raise err(mel, "mesh needs a 'file' or 'vertex' attribute", "file")
        params = dict(scale=a["scale"], refpos=a["refpos"], refquat=a["refquat"],
                      inertia=inertia, maxhullvert=a["maxhullvert"],
                      smoothnormal=bool(a.get("smoothnormal")))
        extra = (("normal", a.get("normal")), ("texcoord", a.get("texcoord")))
        key = meshlib.mesh_cache_key(source, kind=kind, extra=extra, **params)
        md = meshlib.load_cached_mesh(key)
        if md is not None:
            return md
        if blob is not None:
            try:
                ld = meshlib.load_mesh_bytes(blob, where, kind)
            except meshlib.MeshError as e:
                raise err(mel, str(e), "file") from None
            vert, face = ld.vert, ld.face
            params.update(normal=ld.normal, texcoord=ld.texcoord, facenormal=ld.facenormal,
                          facetexcoord=ld.facetexcoord, obj_texcoord=ld.kind == "obj")
        # the <mesh>'s own arrays (mujoco refuses them beside a file's: "repeated ...")
        for name, val in extra:
            if val is not None and len(val) and params.get(name) is None:
                params[name] = val
        return vert, face, params, key

    def _lookup_sdf_mesh(self, mel, meshlib):
        """`_lookup_mesh` for a <mesh> made by an SDF plugin instance: marching cubes over the
        plugin's distance (engine/compiler/sdf_mesh.py), kept in the plugin's frame; cached on
        the plugin, its attributes and the code that makes it."""
        from . import cache, plugins, sdf_mc_table, sdf_mesh as sm
        from ..plugin import sdf as psdf
        from ..plugin.registry import SDF
        k = plugins.instance_of(self, mel, SDF)
        p = self.plugin_objs[k]
        if not isinstance(p, psdf.SdfPlugin):
            raise NotImplementedError(f"{mel.file}:{mel.line}: the mesh of SDF plugin "
                                      f"'{p.name}' (only MuJoCo's first-party SDF plugins make "
                                      "meshes in this engine)")
        try:
            attr = psdf.parse_attributes(p.kind, self.plugin_config[k], p.name)
        except ValueError as e:
            raise err(mel, str(e), "plugin") from None
        a = mel.attrs
        params = dict(scale=a["scale"], refpos=a["refpos"], refquat=a["refquat"],
                      inertia=a["inertia"], maxhullvert=a["maxhullvert"])
        source = p.name.encode() + attr.tobytes() + cache.code_digest(sm, sdf_mc_table, psdf)
        key = meshlib.mesh_cache_key(source, kind="sdf", **params)
        md = meshlib.load_cached_mesh(key)
        if md is not None:
            return md
        vert, face = sm.sdf_mesh(p.kind, attr)
        return vert, face, dict(params, keep_frame=True), key

    def _process_mesh(self, mel, name, meshlib, vert, face, params, key):
        """Process one <mesh> (engine/compiler/mesh.py process_mesh) and store it in the
        compile cache."""
        try:
            md = meshlib.process_mesh(vert, face, **params)
        except meshlib.MeshError as e:
            # a flat mesh has no hull; mujoco builds one only for a mesh a colliding geom uses
            # (needhull_), so a flat visual or sensor mesh (a tactile plate) compiles
            if "coplanar" not in str(e) or face is None or name in self._colliding_meshes():
                raise err(mel, f"mesh '{name}': {e}") from None
            # not cached: the key stands for the mesh with its hull
            return meshlib.process_mesh(vert, face, need_hull=False, **params)
        meshlib.store_cached_mesh(key, md)
        return md

    def _colliding_meshes(self):
        """Names of the meshes a geom that can collide (contype or conaffinity) refers to."""
        return {g.attrs.get("mesh") for g in getattr(self, "geoms", ())
                if g.attrs.get("mesh") and (g.attrs.get("contype") or g.attrs.get("conaffinity"))}

    def _compile_mesh_polygons(self):
        """The convex hull data of the meshes that collide: mesh_poly* (the hull's polygons,
        engine/compiler/hull.py hull_polygons, their vertex lists and the per-vertex polygon
        map; vertex ids in mesh_polyvert and polygon ids in mesh_polymap are local to their
        mesh, as in mjModel) and mesh_graph / mesh_graphadr / mesh_extrema (hull_graph,
        hull_extrema: the hull's adjacency for the convex collider's hill climbing; -1 and zeros
        for a mesh without)."""
        v = self.v
        # like mujoco, only meshes of a colliding mesh or sdf geom (contype or conaffinity set)
        # get them (an sdf geom collides with a plane through its mesh's hull)
        gt = np.asarray(v.get("geom_type", []), int).reshape(-1)
        gd = np.asarray(v.get("geom_dataid", []), int).reshape(-1)
        gc = (np.asarray(v.get("geom_contype", []), int).reshape(-1)
              | np.asarray(v.get("geom_conaffinity", []), int).reshape(-1))
        used = set(gd[((gt == 7) | (gt == 8)) & (gc != 0)].tolist())
        i32 = lambda: np.zeros(0, np.int32)  # noqa: E731
        pnum, nrm, pvnum, pvert, madr, mnum, pmap = [], [], [], [], [], [], []
        nmap = 0
        for mi, md in enumerate(self.mesh_data):
            nvm = len(md.vert)
            if mi in used and md.poly_vertnum is not None and len(md.poly_vertnum):
                pnum.append(len(md.poly_vertnum))
                nrm.append(md.poly_normal)
                pvnum.append(md.poly_vertnum)
                pvert.append(md.poly_vert)
                madr.append(md.poly_mapadr + nmap)
                mnum.append(md.poly_mapnum)
                pmap.append(md.poly_map)
                nmap += len(md.poly_map)
            else:   # no polygons: every vertex maps to none
                pnum.append(0)
                madr.append(np.full(nvm, nmap, np.int32))
                mnum.append(np.zeros(nvm, np.int32))
        cat = lambda xs, empty: np.concatenate(xs) if xs else empty  # noqa: E731
        pvnum = cat(pvnum, i32())
        v["mesh_polynum"] = pnum
        v["mesh_polyadr"] = np.cumsum(pnum) - pnum if pnum else []
        v["mesh_polynormal"] = cat(nrm, np.zeros((0, 3))).reshape(-1, 3)
        v["mesh_polyvertadr"] = np.cumsum(pvnum) - pvnum
        v["mesh_polyvertnum"] = pvnum
        v["mesh_polyvert"] = cat(pvert, i32())
        v["mesh_polymapadr"] = cat(madr, i32())
        v["mesh_polymapnum"] = cat(mnum, i32())
        v["mesh_polymap"] = cat(pmap, i32())
        self.sz.update(nmeshpoly=int(sum(pnum)), nmeshpolyvert=int(pvnum.sum()),
                       nmeshpolymap=nmap)
        gadr, graphs = [], []
        extrema = np.zeros((len(self.mesh_data), 27), np.int32)
        ngraph = 0
        for mi, md in enumerate(self.mesh_data):
            if mi in used and md.graph is not None:
                gadr.append(ngraph)
                graphs.append(md.graph)
                extrema[mi] = md.extrema
                ngraph += len(md.graph)
            else:
                gadr.append(-1)
        v["mesh_graphadr"] = gadr
        v["mesh_graph"] = np.concatenate(graphs) if graphs else np.zeros(0, np.int32)
        v["mesh_extrema"] = extrema
        self.sz["nmeshgraph"] = ngraph

    # ==== phase: height fields ======================================================================
    def compile_hfields(self):
        """hfield_size/nrow/ncol/adr/data from <hfield> assets (seed 000, asset/hfield): inline
        elevation (row order as written, last row first in mjModel), a PNG (grey levels, top image
        row last) or MuJoCo's binary format (nrow, ncol, float32 data, row order kept), or zeros.
        Elevation data is normalised to [0, 1] by (x - min) / (max - min) in single precision, as
        mjModel stores it."""
        sp = self.spec
        hdir = self.c.get("meshdir") or self.c.get("assetdir") or ""
        self.hfield_id, sizes, nrows, ncols, adrs, chunks, names = {}, [], [], [], [], [], []
        adr = 0
        for i, el in enumerate(sp.hfields):
            a = el.attrs
            name = self._mesh_name(el)
            if name and name in self.hfield_id:
                raise err(el, f"repeated name '{name}' in hfield", "name")
            if name:
                self.hfield_id[name] = i
            names.append(name)
            size = a.get("size")
            if size is None:
                raise err(el, "hfield requires attribute 'size'", "size")
            if any(s <= 0 for s in size):
                raise err(el, "hfield size must be positive", "size")
            nrow, ncol = a["nrow"], a["ncol"]
            elev = a.get("elevation")
            if a.get("file"):
                if nrow or ncol:
                    raise err(el, "hfield: nrow and ncol must be 0 when data is loaded from a "
                              "file", "nrow")
                data = self._hfield_file(el, hdir)
                nrow, ncol = data.shape
            else:
                if nrow <= 0 or ncol <= 0:
                    raise err(el, "hfield needs positive nrow and ncol (or a file)", "nrow")
                if elev is not None:
                    if len(elev) != nrow * ncol:
                        raise err(el, f"hfield elevation has {len(elev)} values, expected "
                                  f"nrow*ncol = {nrow * ncol}", "elevation")
                    # the first written row is the far (+y) edge: mjModel stores it last
                    data = np.asarray(elev, np.float32).reshape(nrow, ncol)[::-1]
                else:
                    data = np.zeros((nrow, ncol), np.float32)
            data = np.asarray(data, np.float32)
            lo, hi = data.min(), data.max()
            data = data - lo
            if hi - lo > np.float32(enums.mjMINVAL):
                data = data / np.float32(hi - lo)
            sizes.append(size)
            nrows.append(nrow)
            ncols.append(ncol)
            adrs.append(adr)
            chunks.append(data.ravel())
            adr += nrow * ncol
        self.hfield_size = np.asarray(sizes, float).reshape(-1, 4)
        self.sz.update(nhfield=len(sizes), nhfielddata=int(adr))
        self.v.update(hfield_size=self.hfield_size, hfield_nrow=nrows, hfield_ncol=ncols,
                      hfield_adr=adrs,
                      hfield_data=(np.concatenate(chunks).astype(float) if chunks
                                   else np.zeros(0)))
        self.names["hfield"] = names

    def _hfield_file(self, el, hdir):
        """Elevation matrix (nrow, ncol) float32 from a PNG or MuJoCo's binary hfield file."""
        from . import png
        fname = el.attrs["file"]
        if self.c["strippath"]:
            fname = os.path.basename(fname)
        blob, _ = self.read_asset(fname, hdir, el)
        ctype = el.attrs.get("content_type")
        if ctype not in (None, "image/png", "image/vnd.mujoco.hfield"):
            raise err(el, f"unsupported content type '{ctype}' for an hfield", "content_type")
        is_png = (ctype == "image/png" if ctype else fname.lower().endswith(".png"))
        if is_png:
            try:
                grey = png.read_grey(blob)
            except png.PNGError as e:
                raise err(el, f"hfield '{fname}': {e}", "file") from None
            # the image's top row is the far (+y) edge: mjModel stores it last
            return grey[::-1].astype(np.float32)
        if len(blob) < 8:
            raise err(el, f"hfield file '{fname}' is too short", "file")
        nrow, ncol = np.frombuffer(blob[:8], "<i4")
        if nrow < 1 or ncol < 1:
            raise err(el, f"hfield file '{fname}': nrow and ncol must be positive", "file")
        if len(blob) != 4 * (2 + int(nrow) * int(ncol)):
            raise err(el, f"hfield file '{fname}': unexpected file size", "file")
        return np.frombuffer(blob[8:], "<f4").reshape(int(nrow), int(ncol))

    def read_asset(self, fname, subdir, el):
        """(bytes, full name) of the asset file ``fname`` resolved in the model's directory and
        ``subdir`` (meshdir, texturedir): the assets dict, a resource provider or the file system,
        in MuJoCo's order (engine.plugin.resource, seed 002). CompileError naming the element,
        the resource and the provider when none has it."""
        from ..plugin.resource import ResourceError, join_dir, read_resource
        try:
            got = read_resource(fname, join_dir(self.spec.dir, subdir), self.assets)
        except ResourceError as e:
            raise err(el, str(e), "file") from None
        # the element's first file, for mjModel.paths (engine/compiler/saved.py)
        self.__dict__.setdefault("asset_paths", {}).setdefault(id(el), got[1])
        return got

    def compile_textures(self):
        """tex_* from <texture> assets (seed 000, asset/texture; engine.compiler.texture)."""
        from . import texture as T
        tdir = self.c.get("texturedir") or self.c.get("assetdir") or ""
        self.tex_id = {}
        cols = {k: [] for k in ("type", "colorspace", "height", "width", "nchannel", "adr")}
        chunks, names, adr = [], [], 0
        for i, el in enumerate(self.spec.textures):
            a = el.attrs
            name = self._mesh_name(el)
            t = T.TYPE[a["type"]]
            if not name and t != 2:
                raise err(el, "empty name in texture", "name")
            if name:
                if name in self.tex_id:
                    raise err(el, f"repeated name '{name}' in texture", "name")
                self.tex_id[name] = i
            names.append(name)
            colorspace = T.COLORSPACE[a["colorspace"]]
            try:
                if a["builtin"] != "none":
                    if a["nchannel"] != 3:
                        raise err(el, "builtin textures must have 3 channels", "nchannel")
                    h, w, data = T.builtin_cached(a, t)
                else:
                    files = {}
                    for attr in T.image_files(a):
                        fname = a[attr]
                        if self.c["strippath"]:
                            fname = os.path.basename(fname)
                        files[attr] = (fname, self.read_asset(fname, tdir, el)[0])
                    h, w, data, srgb = T.from_images_cached(a, t, files)
                    if colorspace == 0:
                        colorspace = 2 if srgb else 1
            except T.TextureError as e:
                raise err(el, f"texture '{name or ''}': {e}") from None
            except NotImplementedError as e:
                raise NotImplementedError(f"{el.file}:{el.line}: {e}") from None
            for k, x in (("type", t), ("colorspace", colorspace), ("height", h), ("width", w),
                         ("nchannel", a["nchannel"]), ("adr", adr)):
                cols[k].append(x)
            chunks.append(np.asarray(data, np.uint8).ravel())
            adr += chunks[-1].size
        self.sz.update(ntex=len(names), ntexdata=int(adr))
        self.v.update({"tex_" + k: x for k, x in cols.items()})
        self.v["tex_data"] = np.concatenate(chunks) if chunks else np.zeros(0, np.uint8)
        self.names["texture"] = names

    def compile_materials_hfields(self):
        self.compile_textures()
        mats = self.spec.materials
        self.sz["nmat"] = len(mats)
        texid = np.full((len(mats), 10), -1)
        for i, el in enumerate(mats):
            # the material's own texture fills the rgb role; <layer> children set any role
            for role, tname, where in ([(1, el.attrs.get("texture"), el)]
                                       + [(_ROLES[lay.attrs.get("role", "rgb")],
                                           lay.attrs.get("texture"), lay)
                                          for lay in getattr(el, "layers", ())]):
                if not tname:
                    continue
                if tname not in self.tex_id:
                    raise err(where, f"unknown texture '{tname}'", "texture")
                texid[i, role] = self.tex_id[tname]
        self.v.update(mat_texid=texid,
                      **self._columns("mat_", mats, "rgba emission specular shininess reflectance "
                                                    "metallic roughness texrepeat texuniform"))
        mnames = [el.name for el in mats]
        self.names["material"] = mnames
        self.mat_id = {n: i for i, n in enumerate(mnames) if n}
        for kind, els, field in (("geom", self.geoms, "geom_matid"),
                                 ("site", self.sites, "site_matid"),
                                 ("tendon", self.spec.tendons, "tendon_matid")):
            ids = []
            for el in els:
                mname = el.attrs.get("material")
                if mname:
                    if mname not in self.mat_id:
                        raise err(el, f"unknown material '{mname}'", "material")
                    ids.append(self.mat_id[mname])
                else:
                    ids.append(-1)
            self.v[field] = ids
