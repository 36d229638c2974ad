"""Mesh assets (engine/compiler/mesh.py) against the official compiler.

Real meshes nobody here wrote: MuJoCo Menagerie models from ../shared/models
(STL and OBJ, scale attributes, mirrored scales, quads) and the Collada/STL
meshes of the example-robot-data package.  Each mesh asset is read from the
model's XML by the test itself (file, class defaults, scale, refpos/refquat,
inertia), processed by our module, and compared with the compiled mjModel.

Tolerances (measured worst case in brackets):
  mesh_vert   float32 values equal to 1e-9 x mesh extent          [3e-13]
  mesh_pos    1e-9 x mesh extent                                  [1e-14]
  mesh_quat   1e-9, up to sign                                    [1e-13]
  faces, vertex counts, hull vertex sets: exact
  body mass / inertia / ipos / iquat of a one-mesh-geom body:
              1e-9 relative (quat 1e-8)                            [1e-14, 1e-11]
  fitted primitive size / pos / quat, geom_aabb, geom_rbound: 1e-9 [1e-15]
"""

import os
import struct
import sysconfig
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from engine.compiler import mesh as M

mujoco = pytest.importorskip("mujoco")
etree = pytest.importorskip("lxml.etree")

MODELS = Path(__file__).resolve().parents[2].parent / "shared" / "models"
MENAGERIE = MODELS / "menagerie"
ERD = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"

needs_menagerie = pytest.mark.skipif(not MENAGERIE.is_dir(),
                                     reason=f"real models absent ({MENAGERIE})")
needs_erd = pytest.mark.skipif(not ERD.is_dir(),
                               reason=f"example-robot-data absent ({ERD})")


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def mesh_assets(xmlpath):
    """The <mesh> assets of an MJCF file with class defaults resolved."""
    root = etree.parse(str(xmlpath)).getroot()
    comp = root.find("compiler")
    meshdir = ""
    if comp is not None:
        meshdir = comp.get("meshdir", comp.get("assetdir", ""))
    base = Path(xmlpath).parent / meshdir
    classes = {}

    def walk(d, inherited):
        attrs = dict(inherited)
        m = d.find("mesh")
        if m is not None:
            attrs.update(m.attrib)
        classes[d.get("class", "main")] = attrs
        for c in d.findall("default"):
            walk(c, attrs)

    for d in root.findall("default"):
        walk(d, {})
    out = []
    for asset in root.iter("asset"):
        for m in asset.findall("mesh"):
            attrs = dict(classes.get(m.get("class", "main"), {}))
            attrs.update(m.attrib)
            if "builtin" in attrs or m.find("plugin") is not None:
                continue
            vec = lambda k, d: [float(x) for x in attrs.get(k, d).split()]
            a = dict(scale=vec("scale", "1 1 1"), refpos=vec("refpos", "0 0 0"),
                     refquat=vec("refquat", "1 0 0 0"), inertia=attrs.get("inertia", "legacy"),
                     maxhullvert=int(attrs.get("maxhullvert", "-1")))
            if "file" in attrs:
                f = attrs["file"]
                a.update(name=attrs.get("name", os.path.splitext(os.path.basename(f))[0]),
                         file=str(base / f))
            else:                              # vertex (and face) given in the XML
                a.update(name=attrs["name"], file=None,
                         vertex=np.array(vec("vertex", "")).reshape(-1, 3),
                         face=np.array(attrs["face"].split(), int).reshape(-1, 3)
                         if "face" in attrs else None)
            out.append(a)
    return out


@lru_cache(maxsize=None)
def load(path):
    return M.load_mesh_file(path)


def process(a, need_hull=True, inertia=None):
    v, f = (a["vertex"], a["face"]) if a["file"] is None else load(a["file"])[:2]
    return M.process_mesh(v, f, a["scale"], a["refpos"], a["refquat"],
                          inertia or a["inertia"], a["maxhullvert"], need_hull=need_hull,
                          name=a["name"])


def one_geom_model(file, mesh_attrs="", geom_attrs='contype="0" conaffinity="0"', extra=""):
    xml = f"""<mujoco><asset><mesh name="m" file="{file}" {mesh_attrs}/></asset>
      <worldbody><body name="b"><freejoint/>{extra}<geom type="mesh" mesh="m" {geom_attrs}/>
      </body></worldbody></mujoco>"""
    return mujoco.MjModel.from_xml_string(xml)


def quat_close(a, b, tol):
    return min(np.abs(np.asarray(a) - b).max(), np.abs(np.asarray(a) + b).max()) < tol


def mulquat(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def rotvec(q, v):
    return M._quat2mat(q) @ v


# --------------------------------------------------------------------------
# whole models: every mesh asset against the compiled model
# --------------------------------------------------------------------------

MODEL_FILES = [
    "kuka_iiwa_14/iiwa14.xml",          # OBJ, normals with own indices
    "trossen_wx250s/wx250s.xml",        # binary STL (one header starts with blanks)
    "ufactory_xarm7/xarm7.xml",         # STL, collision meshes (hulls)
    "shadow_hand/right_hand.xml",       # OBJ with unused vertices, mm scale via class
    "robotiq_2f85/2f85.xml",            # STL, scale from a default class
    "agility_cassie/cassie.xml",        # OBJ quads, mirrored scales (1 -1 1, 1 1 -1)
]


MUJOCO_FILES = [
    "test/engine/testdata/collision_convex/multiple_objects.xml",   # XML vertex lists
    "test/engine/testdata/collision_convex/100spheremesh.xml",      # point cloud, near-isotropic
    "test/engine/testdata/solver/model.xml",                        # isotropic icosahedron
    "model/plugin/sdf/mesh.xml",                                    # rounded cube: exact tie
]


@needs_menagerie
@pytest.mark.parametrize("xml", [MENAGERIE / x for x in MODEL_FILES]
                         + [MODELS / "mujoco" / x for x in MUJOCO_FILES],
                         ids=MODEL_FILES + MUJOCO_FILES)
def test_mesh_assets_match_compiled_model(xml):
    path = xml
    m = mujoco.MjModel.from_xml_path(str(path))
    assets = mesh_assets(path)
    assert len(assets) <= m.nmesh
    done = {}
    for a in assets:
        i = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_MESH, a["name"])
        np.testing.assert_allclose(m.mesh_scale[i], a["scale"], err_msg=f"{a['name']}: scale")
        md = done[a["name"]] = process(a, need_hull=m.mesh_graphadr[i] >= 0)
        nv, va = m.mesh_vertnum[i], m.mesh_vertadr[i]
        nf, fa = m.mesh_facenum[i], m.mesh_faceadr[i]
        assert len(md.vert) == nv, f"mismatch: mesh_vertnum {a['name']}"
        if a["file"] is not None and len(load(a["file"])[1]) or \
                a["file"] is None and a["face"] is not None:
            np.testing.assert_array_equal(md.face, m.mesh_face[fa:fa + nf],
                                          err_msg=f"mismatch: mesh_face {a['name']}")
        else:       # point cloud: hull triangles; order and the split of coplanar
            # facets (e.g. a box's squares) are qhull's choice
            assert len(md.face) == nf, f"mismatch: hull face count {a['name']}"
            np.testing.assert_array_equal(np.unique(md.face), np.unique(m.mesh_face[fa:fa + nf]))
        mv = m.mesh_vert[va:va + nv]
        ext = np.abs(mv).max()
        np.testing.assert_allclose(md.vert_f32, mv, rtol=0, atol=1e-9 * ext,
                                   err_msg=f"mismatch: mesh_vert {a['name']}")
        np.testing.assert_allclose(md.pos, m.mesh_pos[i], rtol=0, atol=1e-9 * ext,
                                   err_msg=f"mismatch: mesh_pos {a['name']}")
        assert quat_close(md.quat, m.mesh_quat[i], 1e-9), f"mismatch: mesh_quat {a['name']}"
        if m.mesh_graphadr[i] >= 0:
            # mesh_graph = [nvert, nface, edgeadr[nvert], globalid[nvert], ...]
            g = m.mesh_graph[m.mesh_graphadr[i]:]
            mj_hull = np.unique(mv[g[2 + g[0]:2 + 2 * g[0]]], axis=0)
            my_hull = np.unique(md.vert_f32[md.hull_vert], axis=0)
            assert g[1] == len(md.hull_face), f"mismatch: hull face count {a['name']}"
            np.testing.assert_allclose(my_hull, mj_hull, rtol=0, atol=1e-9 * ext,
                                       err_msg=f"mismatch: hull vertices {a['name']}")
    # bounding data of the mesh geoms
    for g in range(m.ngeom):
        if m.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH:
            continue
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_MESH, m.geom_dataid[g])
        if name not in done:            # builtin / plugin mesh
            continue
        rbound, aabb = M.mesh_geom_bounds(done[name])
        np.testing.assert_allclose(aabb, m.geom_aabb[g], rtol=1e-9, atol=1e-12,
                                   err_msg=f"mismatch: geom_aabb {name}")
        np.testing.assert_allclose(rbound, m.geom_rbound[g], rtol=1e-9,
                                   err_msg=f"mismatch: geom_rbound {name}")


# --------------------------------------------------------------------------
# mass properties: one mesh geom of default density 1000 in a free body
# --------------------------------------------------------------------------

INERTIA_MESHES = [
    ("trossen_wx250s/wx250s.xml", None),
    ("robotiq_2f85/2f85.xml", None),
    ("kuka_iiwa_14/iiwa14.xml", ["link_0", "band", "kuka", "link_7"]),
    ("agility_cassie/cassie.xml", ["left-foot", "right-foot", "right-heel-spring", "left-shin"]),
    ("unitree_h1/h1.xml", ["left_knee_link", "pelvis", "torso_link"]),
    ("wonik_allegro/right_hand.xml", ["link_0.0", "link_15.0_tip", "base_link"]),
]


def _inertia_cases():
    if not MENAGERIE.is_dir():
        return []
    cases = []
    for xml, names in INERTIA_MESHES:
        for a in mesh_assets(MENAGERIE / xml):
            if names is None or a["name"] in names:
                cases.append(pytest.param(a, id=f"{xml.split('/')[0]}-{a['name']}"))
    return cases


@needs_menagerie
@pytest.mark.parametrize("asset", _inertia_cases())
def test_mesh_geom_mass_and_inertia(asset):
    scale = " ".join(map(repr, asset["scale"]))
    v, f, _, _ = load(asset["file"])
    for inertia in M.INERTIA_TYPES:
        try:
            m = one_geom_model(asset["file"], f'scale="{scale}" inertia="{inertia}"')
            mj_err = None
        except ValueError as e:
            mj_err = str(e)
        try:
            md = M.process_mesh(v, f, asset["scale"], inertia=inertia, need_hull=False, name="m")
            my_err = None
        except M.MeshError as e:
            my_err = str(e)
        where = f"{asset['name']} inertia={inertia}"
        if mj_err or my_err:        # e.g. 'exact' on meshes with inconsistent orientation
            assert mj_err and my_err and my_err in mj_err, f"{where}: {mj_err!r} vs {my_err!r}"
            continue
        mass, diag = md.geom_mass_inertia(1000.0)
        ext = np.abs(md.vert).max()
        np.testing.assert_allclose(mass, m.body_mass[1], rtol=1e-9, err_msg=f"mass {where}")
        np.testing.assert_allclose(diag, m.body_inertia[1], rtol=1e-9,
                                   atol=1e-9 * m.body_inertia[1].max(),
                                   err_msg=f"inertia {where}")
        np.testing.assert_allclose(md.pos, m.body_ipos[1], rtol=0, atol=1e-9 * ext,
                                   err_msg=f"ipos {where}")
        assert quat_close(md.quat, m.body_iquat[1], 1e-8), f"iquat {where}"


@needs_menagerie
def test_refpos_refquat_scale_compose():
    """v_asset = scale * R(refquat)^T (v - refpos); mesh_pos/quat in that frame."""
    f = MENAGERIE / "trossen_wx250s/assets/wx250s_6_wrist.stl"
    attrs = 'scale="0.002 -0.001 0.0015" refpos="1 -2 3" refquat="0.9 0.3 -0.2 0.1"'
    for inertia in ("legacy", "exact"):
        m = one_geom_model(f, attrs + f' inertia="{inertia}"', geom_attrs="")
        v, fc, _, _ = load(str(f))
        md = M.process_mesh(v, fc, (0.002, -0.001, 0.0015), (1, -2, 3), (0.9, 0.3, -0.2, 0.1),
                            inertia=inertia, name="m")
        ext = np.abs(md.vert).max()
        np.testing.assert_allclose(md.vert_f32, m.mesh_vert, rtol=0, atol=1e-9 * ext)
        np.testing.assert_array_equal(md.face, m.mesh_face)   # mirrored: corners swapped
        np.testing.assert_allclose(md.pos, m.mesh_pos[0], rtol=0, atol=1e-9 * ext)
        assert quat_close(md.quat, m.mesh_quat[0], 1e-9)
        np.testing.assert_allclose(md.volume * 1000, m.body_mass[1], rtol=1e-9)


# --------------------------------------------------------------------------
# primitives fitted to meshes, bounding data
# --------------------------------------------------------------------------

@needs_menagerie
@pytest.mark.parametrize("fitaabb", [False, True])
@pytest.mark.parametrize("inertia", ["legacy", "shell"])
def test_fit_primitive_to_mesh(fitaabb, inertia):
    f = MENAGERIE / "ufactory_xarm7/assets/link5.stl"
    types = ["sphere", "capsule", "cylinder", "ellipsoid", "box"]
    gpos, gquat = np.array([0.1, 0.2, 0.3]), np.array([0.9, 0.1, -0.3, 0.2])
    gquat = gquat / np.linalg.norm(gquat)
    geoms = "".join(f'<geom type="{t}" mesh="m" fitscale="1.5" pos="0.1 0.2 0.3" '
                    f'quat="{" ".join(repr(float(x)) for x in gquat)}"/>' for t in types)
    xml = f"""<mujoco><compiler fitaabb="{str(fitaabb).lower()}"/>
      <asset><mesh name="m" file="{f}" inertia="{inertia}"/></asset>
      <worldbody><body name="b"><freejoint/>{geoms}</body></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    v, fc, _, _ = load(str(f))
    md = M.process_mesh(v, fc, inertia=inertia, name="m")
    for g, t in enumerate(types):
        size, pos, quat = M.mesh_fit_size(md, t, fitaabb, fitscale=1.5)
        np.testing.assert_allclose(size, m.geom_size[g], rtol=1e-9, atol=1e-15,
                                   err_msg=f"mismatch: geom_size {t}")
        # geom frame = user frame * mesh frame * fit offset
        q_mesh = mulquat(gquat, md.quat)
        want_pos = gpos + rotvec(gquat, md.pos) + rotvec(q_mesh, pos)
        np.testing.assert_allclose(want_pos, m.geom_pos[g], rtol=0, atol=1e-12,
                                   err_msg=f"mismatch: geom_pos {t}")
        assert quat_close(mulquat(q_mesh, quat), m.geom_quat[g], 1e-9), f"geom_quat {t}"


# --------------------------------------------------------------------------
# errors: same cases and semantics as the official compiler
# --------------------------------------------------------------------------

CUBE_V = np.array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],
                  float).reshape(-1, 3)
CUBE_F = np.array([0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5,
                   2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7]).reshape(-1, 3)
FLAT_V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.]])
FLAT_F = np.array([[0, 1, 2], [1, 3, 2]])

ERROR_CASES = [
    # name, vert, face, inertia, collision geom?, key phrase in both messages
    ("3 vertices", CUBE_V[:3], None, "legacy", True, "at least 4 vertices required"),
    ("bad index", CUBE_V, np.vstack([CUBE_F, [0, 2, 9]]), "legacy", True,
     "in face 12, vertex index 9 does not exist"),
    ("flat, collision", FLAT_V, FLAT_F, "legacy", True,
     "has coplanar vertices, cannot compute convex hull"),
    ("flat, visual", FLAT_V, FLAT_F, "legacy", False, "mesh volume is too small: m"),
    ("flat, visual, convex", FLAT_V, FLAT_F, "convex", False, "has coplanar vertices"),
    ("flat, visual, exact", FLAT_V, FLAT_F, "exact", False, "mesh volume is too small: m"),
    ("tiny cube", CUBE_V * 9e-6, CUBE_F, "legacy", False, "mesh volume is too small: m"),
    ("collinear, shell", np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0.]]),
     np.array([[0, 1, 2], [1, 2, 3]]), "shell", False, "mesh surface area is too small: m"),
    ("inward faces, exact", CUBE_V, CUBE_F[:, ::-1], "exact", True,
     "mesh volume is negative (misoriented triangles): m"),
    ("one flipped face, exact", CUBE_V, np.vstack([CUBE_F[0, ::-1], CUBE_F[1:]]), "exact", True,
     "faces of mesh 'm' have inconsistent orientation. Please check the faces containing "
     "the vertices 1 and 2."),
    ("duplicate face, exact", CUBE_V, np.vstack([CUBE_F, CUBE_F[:1]]), "exact", True,
     "faces of mesh 'm' have inconsistent orientation. Please check the faces containing "
     "the vertices 1 and 3."),
]


def _xml_mesh(vert, face, attrs=""):
    vs = " ".join(repr(float(x)) for x in np.ravel(vert))
    fs = "" if face is None else f'face="{" ".join(str(int(x)) for x in np.ravel(face))}"'
    return f'<mesh name="m" vertex="{vs}" {fs} {attrs}/>'


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_mesh_errors_match_official_compiler(case):
    name, vert, face, inertia, collision, phrase = case
    geom = "" if collision else 'contype="0" conaffinity="0"'
    xml = f"""<mujoco><asset>{_xml_mesh(vert, face, f'inertia="{inertia}"')}</asset>
      <worldbody><body><freejoint/><geom size="1"/><geom type="mesh" mesh="m" {geom}/>
      </body></worldbody></mujoco>"""
    with pytest.raises(ValueError) as mj_exc:
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(M.MeshError) as my_exc:
        M.process_mesh(vert, face, inertia=inertia, need_hull=collision, name="m")
    assert phrase in str(mj_exc.value), str(mj_exc.value)
    assert phrase in str(my_exc.value), str(my_exc.value)


def test_accepted_edge_cases_match_official_compiler():
    """What the compiler accepts: inward faces (legacy), open meshes, flat shells,
    point clouds, degenerate faces, reversed sliver pairs, tiny duplicated faces."""
    sliver = np.vstack([CUBE_V, [[.5, .5, -1e-3], [.501, .5, -1e-3], [.5, .501, -1e-3]]])
    small = CUBE_V * 1e-4                       # faces 5e-9 < sqrt(mjMINVAL): not checked
    cases = [
        (CUBE_V, CUBE_F[:, ::-1], "legacy", True),
        (CUBE_V, CUBE_F[:-2], "exact", True),
        (FLAT_V, FLAT_F, "shell", False),
        (CUBE_V, None, "exact", True),
        (np.vstack([CUBE_V, [.5, 0, 0]]), np.vstack([CUBE_F, [0, 8, 1]]), "exact", True),
        (sliver, np.vstack([CUBE_F, [8, 9, 10], [8, 10, 9]]), "exact", True),
        (small, np.vstack([CUBE_F, CUBE_F[:1]]), "exact", False),
    ]
    for k, (vert, face, inertia, collision) in enumerate(cases):
        geom = "" if collision else 'contype="0" conaffinity="0"'
        xml = f"""<mujoco><asset>{_xml_mesh(vert, face, f'inertia="{inertia}"')}</asset>
          <worldbody><body><freejoint/><geom size="0.01"/><geom type="mesh" mesh="m" {geom}/>
          </body></worldbody></mujoco>"""
        m = mujoco.MjModel.from_xml_string(xml)
        md = M.process_mesh(vert, face, inertia=inertia, need_hull=collision, name="m")
        sphere = 4 / 3 * np.pi * 1e-6 * 1000
        np.testing.assert_allclose(1000 * md.volume, m.body_mass[1] - sphere, rtol=1e-6,
                                   err_msg=f"case {k}")
        assert len(md.face) == m.mesh_facenum[0], f"case {k}"


def test_file_errors(tmp_path):
    with pytest.raises(M.MeshError, match="Error opening mesh file '.*nothere.stl'"):
        M.load_mesh_file(tmp_path / "nothere.stl")
    bad = tmp_path / "trunc.stl"
    bad.write_bytes(b"\0" * 80 + struct.pack("<I", 10) + b"\0" * 100)
    with pytest.raises(M.MeshError, match="trunc.stl.*invalid STL"):
        M.load_mesh_file(bad)
    empty = tmp_path / "empty.stl"
    empty.write_bytes(b"\0" * 80 + struct.pack("<I", 0))
    with pytest.raises(M.MeshError, match="number of faces should be between 1 and 200000"):
        M.load_mesh_file(empty)
    obj = tmp_path / "bad.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n")
    with pytest.raises(M.MeshError, match="bad.obj.*vertex 7"):
        M.load_mesh_file(obj)
    msh = tmp_path / "bad.msh"
    msh.write_bytes(struct.pack("<4i", 4, 0, 0, 1) + b"\0" * 20)
    with pytest.raises(M.MeshError, match="bad.msh.*size"):
        M.load_mesh_file(msh)
    with pytest.raises(M.MeshError, match="unknown mesh file type"):
        M.load_mesh_file(tmp_path / "x.ply")
    dae = tmp_path / "broken.dae"
    dae.write_text("<COLLADA><library_geometries>")
    with pytest.raises(M.MeshError, match="broken.dae"):
        M.load_mesh_file(dae)


# --------------------------------------------------------------------------
# file formats
# --------------------------------------------------------------------------

def _write_stl(path, tri):
    tri = np.asarray(tri, np.float32).reshape(-1, 3, 3)
    rec = b"".join(np.zeros(3, np.float32).tobytes() + t.tobytes() + b"\0\0" for t in tri)
    Path(path).write_bytes(b" solid-looking header".ljust(80, b" ")
                           + struct.pack("<I", len(tri)) + rec)


def test_stl_binary_ascii_and_dedup(tmp_path):
    """Binary STL whatever its header; duplicates removed bitwise (-0.0 != 0.0),
    first-appearance order, like the official reader; ASCII gives the same."""
    tri = CUBE_V[CUBE_F].copy()
    tri[3, 0, 0] = -0.0                     # vertex (0,0,0) written as (-0,0,0) once
    _write_stl(tmp_path / "c.stl", tri)
    m = one_geom_model(tmp_path / "c.stl")
    v, f, n, t = M.load_mesh_file(tmp_path / "c.stl")
    assert (n, t) == (None, None)
    assert len(v) == m.mesh_vertnum[0] == 9
    np.testing.assert_array_equal(f, m.mesh_face[:m.mesh_facenum[0]])
    lines = ["solid cube"]
    for tr in tri:
        lines += ["facet normal 0 0 0", " outer loop"]
        lines += [f"  vertex {x!r} {y!r} {z!r}" for x, y, z in tr.tolist()]
        lines += [" endloop", "endfacet"]
    (tmp_path / "a.stl").write_text("\n".join(lines + ["endsolid cube"]))
    va, fa, _, _ = M.load_mesh_file(tmp_path / "a.stl")
    np.testing.assert_array_equal(va, v)
    np.testing.assert_array_equal(fa, f)
    # content_type overrides the extension
    (tmp_path / "c.bin").write_bytes((tmp_path / "c.stl").read_bytes())
    np.testing.assert_array_equal(M.load_mesh_file(tmp_path / "c.bin", "model/stl")[0], v)


def test_obj_polygons_and_negative_indices(tmp_path):
    """Quads split on the shorter diagonal, convex polygons fanned, negative
    (relative) indices, unused vertices kept, vt/vn index streams."""
    faces = ["1 2 3 4 5", "1 6 2", "-5 -1 -4", "3 6 4", "4 6 -2", "5 6 1"]
    text = "\n".join(["# test", "v 0 0 0", "v 1 0 0", "v 1.2 1 0", "v 0.3 1.4 0",
                      "v -0.4 0.7 0", "v 0.4 0.5 1", "vt 0 0", "vt 1 0", "vn 0 0 1"]
                     + ["f " + " ".join(f"{c}/{k % 2 + 1}/1" for k, c in enumerate(fc.split()))
                        for fc in faces] + ["v 9 9 9", ""])
    p = tmp_path / "poly.obj"
    p.write_text(text)
    m = one_geom_model(p)
    v, f, n, t = M.load_mesh_file(p)
    assert len(v) == m.mesh_vertnum[0] == 7
    np.testing.assert_array_equal(f, m.mesh_face[:m.mesh_facenum[0]])
    assert n.shape == (1, 3) and t.shape == (2, 2)
    ld = M.load_mesh_file(p)
    np.testing.assert_array_equal(ld.facenormal, m.mesh_facenormal[:m.mesh_facenum[0]])
    np.testing.assert_array_equal(ld.facetexcoord, m.mesh_facetexcoord[:m.mesh_facenum[0]])
    md = M.process_mesh(v, f, name="m")
    np.testing.assert_allclose(md.vert_f32, m.mesh_vert, rtol=0, atol=1e-12)
    np.testing.assert_allclose(1000 * md.volume, m.body_mass[1], rtol=1e-12)
    q = tmp_path / "quad.obj"           # quad whose 1-3 diagonal is the shorter one
    q.write_text("v 0 0 0\nv 1 0 0\nv 2 1 0\nv 0 1 0\nv 0.8 0.5 1\n"
                 "f 1 2 3 4\nf 1 5 2\nf 2 5 3\nf 3 5 4\nf 4 5 1\n")
    m = one_geom_model(q)
    np.testing.assert_array_equal(M.load_mesh_file(q)[1], m.mesh_face[:m.mesh_facenum[0]])


def test_obj_first_group_and_quad_ties(tmp_path):
    """MuJoCo keeps all vertices but only the faces of the first o/g group
    ('usemtl' does not split); a rectangle (diagonal tie) uses the 1-3 split."""
    base = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\n"
    tris = ["f 1 3 2", "f 1 2 4", "f 1 4 3", "f 2 3 4"]
    texts = {
        "groups": base + "o a\n" + "\n".join(tris[:2]) + "\ng b\n" + "\n".join(tris[2:]),
        "usemtl": base + "usemtl a\n" + "\n".join(tris[:2]) + "\nusemtl b\n"
                  + "\n".join(tris[2:]),
        "leading": "o a\n" + base + "o b\n" + "\n".join(tris),
        "rect": "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0\nv 1 0.5 1\n"
                "f 1 2 3 4\nf 1 5 2\nf 2 5 3\nf 3 5 4\nf 4 5 1",
    }
    for k, text in texts.items():
        p = tmp_path / f"{k}.obj"           # distinct names: MuJoCo caches assets by path
        p.write_text(text + "\n")
        m = one_geom_model(p)
        v, f, _, _ = M.load_mesh_file(p)
        assert len(v) == m.mesh_vertnum[0], k
        np.testing.assert_array_equal(f, m.mesh_face[:m.mesh_facenum[0]], err_msg=k)
    assert len(M.load_mesh_file(tmp_path / "groups.obj", all_groups=True)[1]) == 4


def test_msh_and_point_cloud(tmp_path):
    v = CUBE_V.astype(np.float32)
    (tmp_path / "c.msh").write_bytes(struct.pack("<4i", 8, 0, 0, 12) + v.tobytes()
                                     + CUBE_F.astype(np.int32).tobytes())
    (tmp_path / "p.msh").write_bytes(struct.pack("<4i", 8, 0, 0, 0) + v.tobytes())
    for name in ("c.msh", "p.msh"):
        m = one_geom_model(tmp_path / name, geom_attrs="")
        vv, ff, _, _ = M.load_mesh_file(tmp_path / name)
        md = M.process_mesh(vv, ff, name="m")
        assert len(md.vert) == m.mesh_vertnum[0]
        assert len(md.face) == m.mesh_facenum[0]
        np.testing.assert_allclose(md.volume * 1000, m.body_mass[1], rtol=1e-12)
        np.testing.assert_allclose(md.pos, m.mesh_pos[0], atol=1e-12)


# --------------------------------------------------------------------------
# Collada (MuJoCo cannot read it: trimesh and an STL twin are the references)
# --------------------------------------------------------------------------

def _dae_sample():
    if not ERD.is_dir():
        return []
    files = sorted(p for p in ERD.rglob("*.dae") if p.stat().st_size < 400_000)
    return files[::8]                   # ~30 files across all robots


@needs_erd
def test_dae_matches_trimesh():
    trimesh = pytest.importorskip("trimesh")
    from scipy.spatial import cKDTree
    files = _dae_sample()
    assert files
    for p in files:
        v, f, _, _ = M.load_mesh_file(p)
        scene = trimesh.load(str(p), force="scene", process=False)
        tm = scene.to_geometry()
        assert len(f) == len(tm.faces), p
        ext = np.abs(tm.vertices).max()
        # same point sets (trimesh keeps per-primitive copies, we one per source)
        d1, _ = cKDTree(tm.vertices).query(v)
        d2, _ = cKDTree(v).query(tm.vertices)
        assert max(d1.max(), d2.max()) < 1e-6 * ext, p
        # trimesh composes transforms in float32, we in float64
        np.testing.assert_allclose(v.min(0), tm.vertices.min(0), rtol=0, atol=1e-6 * ext)
        np.testing.assert_allclose(v.max(0), tm.vertices.max(0), rtol=0, atol=1e-6 * ext)
        np.testing.assert_allclose(M.process_mesh(v, f, inertia="shell", need_hull=False).volume,
                                   tm.area, rtol=1e-5, err_msg=str(p))


@needs_erd
def test_dae_with_stl_twin():
    """hector quadrotor: the .dae (node scale 0.1335572) and its STL export."""
    base = ERD / "hector_description/meshes/quadrotor/quadrotor_base"
    vd, fd, _, _ = M.load_mesh_file(base.with_suffix(".dae"))
    vs, fs, _, _ = M.load_mesh_file(base.with_suffix(".stl"))
    assert len(vd) == len(vs) and len(fd) == len(fs)
    from scipy.spatial import cKDTree
    dist, _ = cKDTree(vs).query(vd)
    assert dist.max() < 1e-6 * np.abs(vs).max()
    md, ms = M.process_mesh(vd, fd, name="dae"), M.process_mesh(vs, fs, name="stl")
    np.testing.assert_allclose(md.volume, ms.volume, rtol=1e-5)
    np.testing.assert_allclose(md.inertia, ms.inertia, rtol=1e-5)
    np.testing.assert_allclose(md.pos, ms.pos, atol=1e-6)


DAE_TEMPLATE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="millimeter" meter="0.001"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tet" name="tet"><mesh>
      <source id="tet-pos">
        <float_array id="tet-arr" count="15">0 0 0 10 0 0 0 10 0 0 0 10 5 5 5</float_array>
        <technique_common><accessor source="#tet-arr" count="5" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="tet-vtx"><input semantic="POSITION" source="#tet-pos"/></vertices>
      <triangles count="3"><input semantic="VERTEX" source="#tet-vtx" offset="0"/>
        <p>0 2 1 0 1 3 0 3 2</p></triangles>
      <polylist count="1"><input semantic="VERTEX" source="#tet-vtx" offset="0"/>
        <vcount>3</vcount><p>1 2 3</p></polylist>
      <lines count="1"><input semantic="VERTEX" source="#tet-vtx" offset="0"/><p>0 1</p></lines>
    </mesh></geometry>
  </library_geometries>
  <library_nodes><node id="lib"><translate>0 0 100</translate>
    <instance_geometry url="#tet"/></node></library_nodes>
  <library_visual_scenes><visual_scene id="s">
    <node id="a"><translate>100 0 0</translate><rotate>0 0 1 90</rotate>
      <instance_geometry url="#tet"><bind_material><technique_common>
        <instance_material symbol="x" target="#missing"/></technique_common></bind_material>
      </instance_geometry>
      <node id="b"><scale>2 2 2</scale><instance_node url="#lib"/></node>
    </node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
"""


def test_dae_transforms_and_units(tmp_path):
    """Node transforms (document order, nested, instance_node) and <unit meter>
    applied; up_axis ignored; unused source positions and lines dropped; a
    broken material reference does not lose the geometry."""
    p = tmp_path / "t.dae"
    p.write_text(DAE_TEMPLATE)
    v, f, _, _ = M.load_mesh_file(p)
    tet = np.array([[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10.]])
    Rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.]])
    inst1 = tet @ Rz.T + [100, 0, 0]
    inst2 = (2 * (tet + [0, 0, 100])) @ Rz.T + [100, 0, 0]
    np.testing.assert_allclose(v, 0.001 * np.vstack([inst1, inst2]), atol=1e-12)
    assert f.shape == (8, 3)
    md = M.process_mesh(v, f, inertia="exact", name="t", single_precision=False)
    np.testing.assert_allclose(md.volume, (1 + 8) * (0.01 ** 3) / 6, rtol=1e-9)


# --------------------------------------------------------------------------
# eigen-decomposition
# --------------------------------------------------------------------------

def test_eig3_properties():
    rng = np.random.default_rng(0)
    for _ in range(50):
        A = rng.normal(size=(3, 3))
        A = A @ A.T * 10 ** rng.uniform(-9, 6)
        ev, q = M.eig3(A)
        R = M._quat2mat(q)
        D = R.T @ A @ R
        np.testing.assert_allclose(np.diag(D), ev, rtol=1e-9, atol=1e-12 * ev.max())
        assert np.abs(D - np.diag(np.diag(D))).max() <= 2e-7 * np.abs(A).max()
        assert ev[0] >= ev[1] >= ev[2]
        np.testing.assert_allclose(np.linalg.det(R), 1.0)
    ev, q = M.eig3(np.diag([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(q, [1, 0, 0, 0])
