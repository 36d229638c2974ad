"""The compiler: MJCF / URDF file -> Spec -> MjModel (seed 000 "compiler", seed 004)."""
from __future__ import annotations

import os

from ..errors import XMLError


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


def compile_file(path, assets=None, package_map=None):
    from ..plugin.resource import find_provider, asset_lookup
    if (not os.path.exists(path) and find_provider(path) is None
            and asset_lookup(assets, path, path) is None):
        raise XMLError("model file not found", path)
    return compile_spec(parse_file(path, assets, package_map), assets)


def compile_string(text, assets=None, package_map=None):
    return compile_spec(parse_string(text, assets, package_map), assets)
