"""The kernel cache (engine._jit): each kernel compiles once, and an edit recompiles the kernels
built from the edited file, not those that only call into it.

Each scenario runs fresh interpreters on a small package of kernels written to a temporary
folder, with the numba cache in another, and reads back which kernels compiled (cache misses)
and what they computed.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

BIG = """
from engine._jit import kernel

SCALE = {scale}


@kernel
def big(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i] + 1.0 / (1.0 + a[i])
    return s * SCALE
"""

SMALL = """
from engine._jit import kernel

OFFSET = {offset}  {comment}


@kernel
def tiny(x):
    return x + OFFSET
"""

CALLER = """
from engine._jit import kernel

from .big import big
from .small import tiny


@kernel
def caller(a):
    return big(a) + tiny(1.0)
"""

RUN = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import engine._jit as J
from pkgk import big, small, caller
out = caller.caller(np.arange(4.0))
misses = sorted(J.kernel_name(d).split(".")[-1] for d in J.KERNELS
                if d.py_func.__module__.startswith("pkgk") and sum(d._cache_misses.values()))
separate = sorted(J.kernel_name(d).split(".")[-1] for d in J.KERNELS
                  if d.py_func.__module__.startswith("pkgk")
                  and any(n in J._SEPARATE for n in
                          [c.fndesc.mangled_name for c in d.overloads.values()]))
print(json.dumps(dict(out=out, misses=misses, separate=separate)))
"""


def expected(scale, offset):
    a = np.arange(4.0)
    return float(np.sum(a * a + 1.0 / (1.0 + a)) * scale + 1.0 + offset)


@pytest.fixture
def package(tmp_path):
    src = tmp_path / "src"
    pkg = src / "pkgk"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")

    def write(scale=2.0, offset=0.5, comment=""):
        (pkg / "big.py").write_text(BIG.format(scale=scale))
        (pkg / "small.py").write_text(SMALL.format(offset=offset, comment=comment))
        (pkg / "caller.py").write_text(CALLER)

    def run():
        env = dict(os.environ, MJ_ROS_NUMBA_CACHE=str(tmp_path / "cache"),
                   # big is far below the engine's threshold: make every kernel with more than
                   # a handful of instructions separate, so big is and tiny is not
                   MJ_ROS_SEPARATE_MIN="20", PYTHONPATH=str(ROOT))
        r = subprocess.run([sys.executable, "-c", RUN, str(src)], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        return json.loads(r.stdout.strip().splitlines()[-1])

    write()
    return write, run


def test_each_kernel_compiles_once_then_loads(package):
    write, run = package
    first = run()
    assert first["misses"] == ["big", "caller", "tiny"]
    assert "big" in first["separate"] and "tiny" not in first["separate"]
    assert first["out"] == pytest.approx(expected(2.0, 0.5), rel=1e-15)
    again = run()
    assert again["misses"] == []
    assert again["out"] == first["out"]


def test_editing_a_separate_kernel_recompiles_it_alone(package):
    write, run = package
    run()
    write(scale=3.0)
    got = run()
    assert got["misses"] == ["big"]                 # caller calls it by symbol: loads
    assert got["out"] == pytest.approx(expected(3.0, 0.5), rel=1e-15)


def test_editing_a_linked_kernel_recompiles_its_callers(package):
    write, run = package
    run()
    write(offset=1.5)
    got = run()
    assert got["misses"] == ["caller", "tiny"]      # tiny's code is inside caller's
    assert got["out"] == pytest.approx(expected(2.0, 1.5), rel=1e-15)
    write(offset=1.5, comment="# a comment changes the file")
    assert run()["misses"] == ["caller", "tiny"]


def test_warmup_arena_type_is_the_models():
    import engine
    from engine import warmup
    m = engine.MjModel.from_xml_string("<mujoco><worldbody><body><freejoint/>"
                                       "<geom size='.1'/></body></worldbody></mujoco>")
    d = engine.MjData(m)
    assert warmup._arena_type() == numba.typeof(m._A) == numba.typeof(d._A)


def test_warmup_plan_names_stages():
    """Every PLAN entry is a kernel taking two arenas (or the warm-up model)."""
    import importlib
    import inspect

    from engine import _jit, warmup
    for module, name in warmup.PLAN:
        obj = getattr(importlib.import_module(module), name)
        if (module, name) == warmup.MODEL:
            continue
        assert isinstance(obj, _jit.KernelDispatcher), (module, name)
        assert list(inspect.signature(obj.py_func).parameters) == ["M", "D"], (module, name)


def test_progress_line(capsys):
    from engine.warmup import Progress
    import io
    out = io.StringIO()
    p = Progress({"a": 10, "b": 30}, stream=out, every=0.0)
    p.add("a")
    p.add("a")
    p.add("b")
    p.draw(end=True)
    lines = out.getvalue().splitlines()
    assert "1/2" in lines[0] and "left" in lines[0]
    assert "2/2" in lines[-1] and "#" * 30 in lines[-1]
    assert textwrap.dedent(lines[-1]).startswith("engine: compiling kernels")


DUP = """
from engine._jit import kernel


@kernel
def f(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i] + 1.0 / (1.0 + a[i])
    return s


g = f


@kernel
def f(a):  # noqa: F811  (the same name again: its symbols must not collide with g's)
    s = 0.0
    for i in range(a.shape[0]):
        s += 2.0 * a[i] * a[i] + 1.0 / (2.0 + a[i])
    return s


@kernel
def both(a):
    return g(a) + 10.0 * f(a)
"""


def test_a_name_defined_twice_keeps_both_kernels(tmp_path):
    (tmp_path / "dupk.py").write_text(DUP)
    code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); import dupk; "
            "print(dupk.both(np.arange(4.0)))")
    env = dict(os.environ, MJ_ROS_NUMBA_CACHE=str(tmp_path / "cache"),
               MJ_ROS_SEPARATE_MIN="20", PYTHONPATH=str(ROOT))
    a = np.arange(4.0)
    want = np.sum(a * a + 1 / (1 + a)) + 10 * np.sum(2 * a * a + 1 / (2 + a))
    for _ in range(2):      # compiled, then loaded from the cache
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        assert float(r.stdout.split()[-1]) == pytest.approx(want, rel=1e-15)
