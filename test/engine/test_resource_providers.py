"""Resource providers and the assets dict (seed 002 "资源提供者"): every load path (model file,
<include>, meshes, textures, height fields, URDF meshes) reads through engine.plugin.resource:
the assets dict, then a provider matched by URI scheme, then the file system.

mujoco's Python bindings cannot register a provider, so the provider tests compare the model
loaded through a provider with the same model loaded by mujoco from files (or from its assets
dict): same compiled fields, exactly."""
from __future__ import annotations

import base64
import os

import mujoco
import numpy as np
import pytest

import engine
from engine.plugin.resource import (register_resource_provider,
                                    unregister_resource_provider)

OBJ = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
SCENE = """<mujoco><compiler meshdir="meshes"/>
<include file="bodies.xml"/>
<asset><mesh name="tet" file="tet.obj"/></asset>
<worldbody><geom type="plane" size="1 1 .1"/></worldbody></mujoco>"""
BODIES = """<mujoco><worldbody><body pos="0 0 .5"><freejoint/><geom type="mesh" mesh="tet"/>
</body></worldbody></mujoco>"""
FIELDS = ("nbody", "ngeom", "nmesh", "mesh_vert", "mesh_face", "body_mass", "body_inertia",
          "geom_size", "body_ipos")


def _same(ours, theirs):
    for f in FIELDS:
        np.testing.assert_allclose(np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)),
                                   rtol=1e-12, atol=1e-12, err_msg=f)  # the same files: exact


class MemProvider:
    """A provider over a dict: names 'mem:<path>'."""

    def __init__(self, files):
        self.files, self.opened, self.closed = files, [], []

    def open(self, res):
        key = res.name.split(":", 1)[1]
        if key not in self.files:
            return False
        res.data = self.files[key]
        self.opened.append(res.name)
        return True

    def read(self, res):
        return res.data

    def close(self, res):
        self.closed.append(res.name)


@pytest.fixture
def mem():
    files = {"scene/model.xml": SCENE.encode(), "scene/bodies.xml": BODIES.encode(),
             "scene/meshes/tet.obj": OBJ}
    p = MemProvider(files)
    register_resource_provider("mem", p.open, p.read, p.close)
    yield p
    unregister_resource_provider("mem")


@pytest.fixture
def ondisk(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "model.xml").write_text(SCENE)
    (tmp_path / "bodies.xml").write_text(BODIES)
    (tmp_path / "meshes" / "tet.obj").write_bytes(OBJ)
    return tmp_path


def test_model_include_and_mesh_from_a_provider(mem, ondisk):
    """The XML, its <include> and its mesh all come from the provider (relative names resolve
    in the provider's directory 'mem:scene/'); the model equals mujoco's from the same files."""
    ours = engine.MjModel.from_xml_path("mem:scene/model.xml")
    assert mem.opened == ["mem:scene/model.xml", "mem:scene/bodies.xml",
                          "mem:scene/meshes/tet.obj"]
    assert sorted(mem.closed) == sorted(mem.opened)
    _same(ours, mujoco.MjModel.from_xml_path(str(ondisk / "model.xml")))
    # the scheme is case-insensitive
    engine.MjModel.from_xml_path("MEM:scene/model.xml")


def test_data_uri_provider_from_the_seed():
    """Seed 002's example: a 'data' provider decoding base64 data URIs, used for a mesh."""
    def open_(res):
        head, _, payload = res.name.partition(",")
        if not head.endswith(";base64"):
            return False
        res.data = base64.b64decode(payload)
        return True

    register_resource_provider("data", open_, lambda res: res.data, lambda res: None)
    try:
        uri = "data:model/obj;base64," + base64.b64encode(OBJ).decode()
        xml = SCENE.replace('<include file="bodies.xml"/>', "").replace(
            'file="tet.obj"', f'content_type="model/obj" file="{uri}"').replace(
            "<worldbody>", '<worldbody><body><freejoint/><geom type="mesh" mesh="tet"/></body>')
        ours = engine.MjModel.from_xml_string(xml)
        ref = xml.replace(f'content_type="model/obj" file="{uri}"', 'file="tet.obj"')
        _same(ours, mujoco.MjModel.from_xml_string(ref, assets={"tet.obj": OBJ}))
    finally:
        unregister_resource_provider("data")


@pytest.mark.parametrize("value", [OBJ, OBJ.decode()], ids=["bytes", "str"])
def test_assets_dict_bytes_and_str(value):
    """The assets dict takes bytes (as mujoco's) or str values, matched as mujoco matches
    them (full name with meshdir, or the file's base name)."""
    xml = SCENE.replace('<include file="bodies.xml"/>', "")
    for key in ("tet.obj", "meshes/tet.obj", "x/tet.obj"):
        ours = engine.MjModel.from_xml_string(xml, assets={key: value, "bodies.xml": BODIES})
        theirs = mujoco.MjModel.from_xml_string(xml, assets={key: OBJ})
        _same(ours, theirs)
    full = {"bodies.xml": BODIES.encode(), "tet.obj": value}
    _same(engine.MjModel.from_xml_string(SCENE, assets=full),
          mujoco.MjModel.from_xml_string(SCENE, assets={"bodies.xml": BODIES.encode(),
                                                        "tet.obj": OBJ}))


def test_assets_dict_comes_before_provider_and_files(mem, ondisk):
    """MuJoCo's order: the assets dict (its VFS) first, then the provider, then the disk."""
    other = OBJ.replace(b"v 1 0 0", b"v 2 0 0")
    theirs = mujoco.MjModel.from_xml_path(str(ondisk / "model.xml"), assets={"tet.obj": other})
    plain = mujoco.MjModel.from_xml_path(str(ondisk / "model.xml"))
    assert not np.allclose(theirs.mesh_vert, plain.mesh_vert)
    _same(engine.MjModel.from_xml_path("mem:scene/model.xml", assets={"tet.obj": other}), theirs)
    _same(engine.MjModel.from_xml_path(str(ondisk / "model.xml"), assets={"tet.obj": other}),
          theirs)


def test_errors_name_resource_and_provider(mem):
    with pytest.raises(engine.XMLError, match=r"resource 'mem:scene/nothere.xml' \(resource "
                                              r"provider 'mem'\)"):
        engine.MjModel.from_xml_path("mem:scene/nothere.xml")
    xml = SCENE.replace('<include file="bodies.xml"/>', "").replace(
        'file="tet.obj"', 'file="mem:scene/meshes/missing.obj"')
    with pytest.raises(engine.XMLError, match=r"<mesh>.*missing.obj.*provider 'mem'"):
        engine.MjModel.from_xml_string(xml)

    def bad_read(res):
        raise RuntimeError("network down")

    register_resource_provider("flaky", lambda r: True, bad_read, lambda r: None)
    try:
        with pytest.raises(engine.XMLError, match="flaky:a.xml.*'flaky'.*network down"):
            engine.MjModel.from_xml_path("flaky:a.xml")
    finally:
        unregister_resource_provider("flaky")


def test_register_checks():
    with pytest.raises(ValueError, match="URI scheme"):
        register_resource_provider("1bad", lambda r: True, lambda r: b"", lambda r: None)
    with pytest.raises(TypeError, match="read"):
        register_resource_provider("ok", lambda r: True, None, lambda r: None)
    o, r, c = (lambda x: True), (lambda x: b""), (lambda x: None)
    try:
        slot = register_resource_provider("dup", o, r, c)
        assert slot > 0 and register_resource_provider("dup", o, r, c) == slot
        with pytest.raises(ValueError, match="already registered"):
            register_resource_provider("DUP", o, lambda x: b"1", c)
    finally:
        unregister_resource_provider("dup")


def test_texture_and_hfield_from_a_provider(ondisk):
    """Textures and height fields read through the provider too (PNG bytes from mujoco's own
    model directory, read by the provider)."""
    src = "/work/shared/models/mujoco/model/plugin/sensor/a.png"
    if not os.path.exists(src):
        pytest.skip("mujoco's model directory is not available")
    png = open(src, "rb").read()
    files = {"a.png": png}
    register_resource_provider("blob", lambda r: r.name.split(":", 1)[1] in files,
                               lambda r: files[r.name.split(":", 1)[1]], lambda r: None)
    try:
        xml = """<mujoco><asset><hfield name="h" file="{f}" size="1 1 .1 .1"/>
        <texture name="t" type="2d" file="{f}"/></asset>
        <worldbody><geom type="hfield" hfield="h"/></worldbody></mujoco>"""
        ours = engine.MjModel.from_xml_string(xml.format(f="blob:a.png"))
        theirs = mujoco.MjModel.from_xml_string(xml.format(f="a.png"), assets={"a.png": png})
        np.testing.assert_array_equal(ours.hfield_data, theirs.hfield_data)
        np.testing.assert_array_equal(ours.tex_data, theirs.tex_data)
    finally:
        unregister_resource_provider("blob")


def test_urdf_mesh_from_a_provider(mem, ondisk):
    urdf = """<robot name="r"><link name="base"/><joint name="j" type="revolute">
    <parent link="base"/><child link="l"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
    <link name="l"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0"
    iyz="0"/></inertial><collision><geometry><mesh filename="{f}"/></geometry></collision>
    </link></robot>"""
    ours = engine.MjModel.from_xml_string(urdf.format(f="mem:scene/meshes/tet.obj"))
    theirs = mujoco.MjModel.from_xml_string(urdf.format(f="tet.obj"), assets={"tet.obj": OBJ})
    np.testing.assert_allclose(ours.mesh_vert, theirs.mesh_vert, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(ours.body_inertia, theirs.body_inertia, rtol=1e-12)


def test_getdir_decides_where_relative_names_resolve():
    """A provider's getdir gives the directory of its resources: here every file of model
    'zip:pkg.zip#model.xml' resolves to 'zip:pkg.zip#<name>'."""
    files = {"model.xml": SCENE.replace('meshdir="meshes"', ""), "bodies.xml": BODIES,
             "tet.obj": OBJ}
    seen = []

    def open_(res):
        seen.append(res.name)
        return res.name.split("#", 1)[1] in files

    register_resource_provider("zip", open_, lambda r: files[r.name.split("#", 1)[1]],
                               lambda r: None, getdir=lambda r: r.name.split("#")[0] + "#")
    try:
        ours = engine.MjModel.from_xml_path("zip:pkg.zip#model.xml")
    finally:
        unregister_resource_provider("zip")
    assert seen == ["zip:pkg.zip#model.xml", "zip:pkg.zip#bodies.xml", "zip:pkg.zip#tet.obj"]
    theirs = mujoco.MjModel.from_xml_string(files["model.xml"],
                                            assets={"bodies.xml": BODIES.encode(),
                                                    "tet.obj": OBJ})
    _same(ours, theirs)


@pytest.mark.parametrize("xml", [
    "<mujoco><include file='/dev/zero'/></mujoco>",
    "<mujoco><asset><mesh file='/dev/zero'/></asset></mujoco>",
    "<mujoco><asset><texture type='2d' file='/dev/zero'/></asset></mujoco>",
])
def test_device_files_read_as_mujoco_reads_them(xml):
    """A device (size 0 in stat) reads as many bytes as its size, as mujoco reads a file: an
    <include> or asset of /dev/zero is an error in both programs, not a read without end."""
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ValueError):
        engine.MjModel.from_xml_string(xml)
    with pytest.raises(ValueError):
        engine.MjModel.from_xml_path("/dev/zero")
