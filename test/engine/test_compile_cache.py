"""The compile cache (engine/compiler/cache.py): processed meshes and textures stored by content.

A cached result must be exactly what the computation returns; anything that changes the result
(the mesh file's bytes, a processing attribute) must miss; a damaged or unreadable entry must
fall back to computing, never fail the compile; MJ_ROS_MESH_CACHE relocates or disables it.
"""
import os
import struct

import numpy as np
import pytest

import engine
from engine.compiler import cache, mesh as meshlib, texture

# an octahedron with a flattened tip: faces of more than one triangle per hull polygon
_VERTS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1.5), (0, 0, -1), (0.2, 0.2, 1.4)]


def _stl(path, verts, scale=1.0):
    """A binary STL of the hull triangles of ``verts`` (outward, counter-clockwise)."""
    from scipy.spatial import ConvexHull
    v = np.asarray(verts, float) * scale
    hull = ConvexHull(v)
    tris = []
    for simplex, eq in zip(hull.simplices, hull.equations):
        p = v[simplex]
        if np.cross(p[1] - p[0], p[2] - p[0]) @ eq[:3] < 0:
            p = p[[0, 2, 1]]
        tris.append(p)
    data = b"\0" * 80 + struct.pack("<I", len(tris))
    for p in tris:
        data += struct.pack("<12fH", 0, 0, 0, *p.ravel(), 0)
    path.write_bytes(data)


def _xml(mesh_attrs=""):
    return f"""
<mujoco>
  <asset>
    <mesh name="m" file="tip.stl" {mesh_attrs}/>
    <texture name="sky" type="skybox" builtin="gradient" rgb1=".3 .5 .7" rgb2="0 0 0"
             width="32" height="192"/>
    <texture name="grid" type="2d" builtin="checker" mark="random" random=".2" width="16"
             height="16" rgb1=".1 .2 .3" rgb2=".4 .5 .6"/>
    <material name="grid" texture="grid"/>
  </asset>
  <worldbody>
    <geom type="plane" size="1 1 .1" material="grid"/>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="mesh" mesh="m"/>
    </body>
  </worldbody>
</mujoco>"""


def _compile(tmp_path, mesh_attrs=""):
    path = tmp_path / "model.xml"
    path.write_text(_xml(mesh_attrs))
    return engine.MjModel.from_xml_path(str(path))


def _fields(m):
    """Every array field of a compiled model, as bytes (bit-exact comparison)."""
    return {k: (v.dtype.str, v.shape, v.tobytes()) for k, v in m._arena.views.items()}


def _entries(root, kind=None):
    cache.flush()      # entries are written in the background
    out = []
    for dirpath, _, files in os.walk(root):
        if kind is None or os.path.relpath(dirpath, root).split(os.sep)[0] == kind:
            out += [os.path.join(dirpath, f) for f in files if f.endswith(".bin")]
    return sorted(out)


@pytest.fixture
def model_dir(tmp_path, monkeypatch):
    """A model directory with its mesh file, and a fresh cache directory in MJ_ROS_MESH_CACHE;
    returns (model directory, cache directory)."""
    d = tmp_path / "model"
    d.mkdir()
    _stl(d / "tip.stl", _VERTS)
    c = tmp_path / "cache"
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(c))
    return d, c


@pytest.fixture
def count_processing(monkeypatch):
    """Counts the meshes actually processed (cache misses)."""
    calls = []
    real = meshlib.process_mesh

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)
    monkeypatch.setattr(meshlib, "process_mesh", counting)
    return calls


def test_cached_model_is_bit_identical(model_dir, count_processing, monkeypatch):
    d, c = model_dir
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", "off")
    uncached = _fields(_compile(d))
    assert not c.exists(), "a disabled cache wrote files"
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(c))
    first = _fields(_compile(d))
    assert len(_entries(c, "mesh")) == 1 and len(_entries(c, "texture")) == 2
    n = len(count_processing)
    second = _fields(_compile(d))
    assert len(count_processing) == n, "the second compile processed the mesh again"
    assert first == uncached and second == uncached


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "directory"])
def test_damaged_entry_recomputes(model_dir, count_processing, damage):
    d, c = model_dir
    want = _fields(_compile(d))
    for e in _entries(c):
        blob = open(e, "rb").read()
        if damage == "truncate":
            open(e, "wb").write(blob[:len(blob) // 2])
        elif damage == "flip":   # one bit of the payload
            b = bytearray(blob)
            b[-5] ^= 0x10
            open(e, "wb").write(bytes(b))
        elif damage == "garbage":
            open(e, "wb").write(os.urandom(len(blob)))
        elif damage == "empty":
            open(e, "wb").close()
        else:                    # unreadable: a directory where the file should be
            os.remove(e)
            os.mkdir(e)
    n = len(count_processing)
    assert _fields(_compile(d)) == want
    assert len(count_processing) == n + 1, "the damaged mesh entry was not recomputed"


@pytest.mark.parametrize("attrs", ['scale="2 2 2"', 'scale="1 1 -1"', 'maxhullvert="5"',
                                   'inertia="convex"', 'inertia="shell"', 'refpos=".1 0 0"',
                                   'refquat="0 1 0 0"'])
def test_processing_parameter_misses(model_dir, count_processing, attrs):
    d, c = model_dir
    _compile(d)
    n = len(count_processing)
    changed = _compile(d, attrs)
    assert len(count_processing) == n + 1, f"{attrs} was served from the cache"
    assert len(_entries(c, "mesh")) == 2
    # and the changed variant is cached under its own key, bit-identical
    again = _compile(d, attrs)
    assert len(count_processing) == n + 1
    assert _fields(again) == _fields(changed)


def test_mesh_file_bytes_miss(model_dir, count_processing):
    d, c = model_dir
    base = _fields(_compile(d))
    n = len(count_processing)
    _stl(d / "tip.stl", _VERTS, scale=1.5)         # same name, other bytes
    changed = _compile(d)
    assert len(count_processing) == n + 1
    assert _fields(changed)["mesh_vert"] != base["mesh_vert"]
    os.utime(d / "tip.stl", (0, 0))                 # a timestamp is not content: still a hit
    _compile(d)
    assert len(count_processing) == n + 1


def test_texture_attribute_misses(model_dir, tmp_path):
    d, c = model_dir
    _compile(d)
    assert len(_entries(c, "texture")) == 2
    (d / "model.xml").write_text(_xml().replace('rgb1=".3 .5 .7"', 'rgb1=".3 .5 .8"'))
    engine.MjModel.from_xml_path(str(d / "model.xml"))
    assert len(_entries(c, "texture")) == 3


def test_cache_dir_setting(monkeypatch, tmp_path):
    monkeypatch.delenv("MJ_ROS_MESH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == os.path.join(str(tmp_path / "xdg"), "mj_ros", "compile")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.cache_dir() == os.path.join(os.path.expanduser("~"), ".cache", "mj_ros",
                                             "compile")
    for off in ("off", "0", "none", "False", "no"):
        monkeypatch.setenv("MJ_ROS_MESH_CACHE", off)
        assert cache.cache_dir() is None
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(tmp_path / "elsewhere"))
    assert cache.cache_dir() == str(tmp_path / "elsewhere")


def test_unwritable_cache_dir_still_compiles(model_dir, monkeypatch, tmp_path):
    d, _ = model_dir
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", "off")
    want = _fields(_compile(d))
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(blocker / "cache"))
    assert _fields(_compile(d)) == want


def test_entry_round_trip_exact(monkeypatch, tmp_path):
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(tmp_path))
    key = cache.Key("unit").add("x", np.arange(3.0))
    arrays = {"a": np.array([0.1, -0.0, np.nan, np.inf]), "b": np.arange(7, dtype=np.int32),
              "c": np.zeros((0, 3)), "d": np.arange(6, dtype=np.uint8).reshape(2, 3)}
    meta = {"f": 0.1 + 0.2, "s": "x", "n": 3, "t": True}
    cache.store(key, arrays, meta)
    arrays["a"][0] = 5.0      # the cache holds a copy made when stored
    arrays["a"][0] = 0.1
    for when in ("queued", "on disk"):
        got, gmeta = cache.load(key)
        assert gmeta == meta, when
        for k, v in arrays.items():
            assert got[k].dtype == v.dtype and got[k].shape == v.shape, when
            assert got[k].tobytes() == v.tobytes(), when
        cache.flush()
    assert os.path.exists(cache._path(key))
    # keys tell apart values that compare equal but differ in type or shape
    k2 = cache.Key("unit").add("x", np.arange(3))
    k3 = cache.Key("unit").add("x", np.arange(3.0).reshape(1, 3))
    assert len({key.hex(), k2.hex(), k3.hex()}) == 3
    assert cache.load(k2) is None


def test_entries_are_written_before_the_process_exits(tmp_path, monkeypatch):
    """store() returns before the write; an exiting interpreter still writes every entry."""
    import subprocess
    import sys
    code = ("import numpy as np; from engine.compiler import cache\n"
            "for i in range(20):\n"
            "    cache.store(cache.Key('unit').add('i', np.int64(i)), "
            "{'x': np.full(1 << 16, i, np.uint8)}, {'i': i})\n")
    env = dict(os.environ, MJ_ROS_MESH_CACHE=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], env=env, check=True,
                   cwd=os.path.dirname(os.path.dirname(engine.__file__)))
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(tmp_path))
    for i in range(20):
        arrays, meta = cache.load(cache.Key("unit").add("i", np.int64(i)))
        assert meta == {"i": i} and (arrays["x"] == i).all()


def test_texture_cache_matches_computation(monkeypatch, tmp_path):
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(tmp_path))
    a = dict(builtin="gradient", width=16, height=96, rgb1=(.3, .5, .7), rgb2=(0, 0, 0),
             mark="random", markrgb=(1, 1, 1), random=0.1)
    h, w, data = texture.builtin(a, 2)
    for _ in range(2):   # the first stores, the second loads
        h2, w2, d2 = texture.builtin_cached(a, 2)
        assert (h2, w2) == (h, w) and d2.dtype == np.uint8 and d2.tobytes() == data.tobytes()


def test_prune_keeps_the_directory_under_its_limit(monkeypatch, tmp_path):
    monkeypatch.setenv("MJ_ROS_MESH_CACHE", str(tmp_path))
    keys = [cache.Key("unit").add("i", np.int64(i)) for i in range(8)]
    for i, k in enumerate(keys):
        cache.store(k, {"x": np.zeros(1000, np.uint8)}, {})
        cache.flush()
        path = cache._path(k)
        os.utime(path, ns=(10**9 * (i + 1), 10**9 * (i + 1)))   # entry i used at time i
    assert cache.load(keys[0]) is not None       # a hit makes the oldest the newest
    foreign = tmp_path / "unit" / "notes.txt"
    foreign.write_text("not an entry")
    size = os.path.getsize(cache._path(keys[0]))
    cache.prune(str(tmp_path), limit=6 * size)    # down to 3/4 of it: 4 entries stay
    left = [i for i, k in enumerate(keys) if os.path.exists(cache._path(k))]
    assert left == [0, 5, 6, 7]
    assert foreign.exists()


def test_writer_survives_a_path_queued_twice(tmp_path):
    """The same entry stored twice before the writer ran: the second queue item finds nothing
    pending and is skipped (it raised KeyError in the writer thread, which then never wrote
    another entry), and later entries still reach the disk."""
    from engine.compiler import cache
    w = cache._Writer()
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    w._thread = "busy"      # as if a writer were running: put() only queues
    w.put(str(a), "00", {}, [b"x"], {})
    w.put(str(a), "00", {}, [b"y"], {})
    w._run()                # the writer's loop, here: both queue items, one entry
    w.put(str(b), "00", {}, [b"z"], {})
    w.join()
    assert a.exists() and b.exists()
    assert w._thread is None and not w._pending
