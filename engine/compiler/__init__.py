"""The compiler: MJCF / URDF file -> Spec -> MjModel (seed 000 "compiler", seed 004)."""
from __future__ import annotations

import contextlib
import os
import sys

from ..errors import XMLError

# The readers and the compiler walk the body tree recursively (a frame or a few per level): a
# chain of a few thousand bodies, which mujoco compiles, needs more than Python's default limit
# of 1000 frames. Python 3.11 runs Python-to-Python calls without C recursion, so the limit,
# not the C stack, is what bounds nesting here.
_DEEP_RECURSION = 200_000


@contextlib.contextmanager
def _deep_recursion():
    old = sys.getrecursionlimit()
    if old < _DEEP_RECURSION:
        sys.setrecursionlimit(_DEEP_RECURSION)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def parse_file(path, assets=None, package_map=None):
    """Read an MJCF or URDF file into a Spec (the root element decides which reader)."""
    from ..xml.mjcf import load_xml
    root = load_xml(path, assets=assets)
    return _read(root, path, package_map, assets)


def parse_string(text, assets=None, package_map=None):
    from ..xml.mjcf import load_xml
    root = load_xml(text=text, assets=assets)
    return _read(root, None, package_map, assets)


def _read(root, path, package_map, assets=None):
    from ..xml.mjcf import MJCFReader
    if root.tag == "mujoco":
        return MJCFReader(root, file=path).read()
    if root.tag == "robot":
        from ..xml.urdf import read_urdf
        return read_urdf(root, file=path, package_map=package_map, assets=assets)
    raise XMLError(f"unknown model format: top element <{root.tag}> (expected <mujoco> or "
                   "<robot>)", path, root.line, root.tag)


def compile_spec(spec, assets=None):
    from .builder import Compiler
    return Compiler(spec, assets).build()


# The source of the last model loaded from XML (mj_saveLastXML writes it back; engine.io):
# ("file", path) or ("string", text), then assets and package_map.
LAST_SOURCE = None


def compile_file(path, assets=None, package_map=None):
    global LAST_SOURCE
    from ..plugin.resource import find_provider, asset_lookup
    if (not os.path.exists(path) and find_provider(path) is None
            and asset_lookup(assets, path, path) is None):
        raise XMLError("model file not found", path)
    with _deep_recursion():
        m = compile_spec(parse_file(path, assets, package_map), assets)
    LAST_SOURCE = ("file", path, assets, package_map)
    return m


def compile_string(text, assets=None, package_map=None):
    global LAST_SOURCE
    with _deep_recursion():
        m = compile_spec(parse_string(text, assets, package_map), assets)
    LAST_SOURCE = ("string", text, assets, package_map)
    return m
