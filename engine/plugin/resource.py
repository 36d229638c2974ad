"""Resource providers (seed 002 "资源提供者"): where the loaders get the bytes of a model file, an
``<include>``, a mesh, a texture, a height field or a URDF mesh.

A provider is registered for a URI scheme ``prefix``; a resource whose name is ``{prefix}:...``
(scheme compared case-insensitively, the colon required) is read through it. Every load path asks
`read_resource`, which looks, in MuJoCo's order (mju_openResource):

1. the assets dict given to the loader (MuJoCo's VFS; values ``bytes`` or ``str``, matched on the
   full name, the name as written, then on the file's base name, as mujoco's VFS matches),
2. the registered provider whose prefix matches the name,
3. the operating system's file system.

Python callbacks stand for the C function pointers (mjfOpenResource, mjfReadResource, ...):
``open(resource) -> bool`` checks ``resource.name`` and may fill ``resource.data``;
``read(resource) -> bytes`` (or None / -1 for an error: mjfReadResource's -1);
``close(resource)`` frees what open made; ``getdir(resource) -> str`` (optional) is the
directory relative names are resolved in (default: the name up to its last '/');
``modified(resource, timestamp) -> int`` (optional) is 0 when unchanged.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

# RFC 3986 scheme syntax: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


class ResourceError(OSError):
    """A resource cannot be opened or read; the message names the resource and, when one was
    used, the provider."""

    def __init__(self, name, message, provider=None):
        self.resource, self.provider = name, provider
        via = f" (resource provider '{provider}')" if provider else ""
        super().__init__(f"resource '{name}'{via}: {message}")


@dataclass
class ResourceProvider:
    """mjpResourceProvider: a prefix and its callbacks."""
    prefix: str
    open: Callable
    read: Callable
    close: Callable
    getdir: Optional[Callable] = None
    modified: Optional[Callable] = None


@dataclass
class MjResource:
    """mjResource as the callbacks see it: ``name`` (the full resource name), ``data`` (the
    provider's slot, set by its open callback), ``provider`` and ``timestamp``."""
    name: str
    provider: Optional[ResourceProvider] = None
    data: Any = None
    timestamp: str = ""
    args: dict = field(default_factory=dict)


_providers: list[ResourceProvider] = []


def register_resource_provider(prefix, open, read, close, getdir=None, modified=None):  # noqa: A002
    """Register a resource provider for the URI scheme ``prefix`` (mjp_registerResourceProvider).

    Returns its slot (a positive number). Registering the same prefix again with the same
    callbacks returns the existing slot; with other callbacks it is an error, as in MuJoCo."""
    if not isinstance(prefix, str) or not _SCHEME.match(prefix):
        raise ValueError(f"resource provider prefix {prefix!r} is not a valid URI scheme")
    for cb, what in ((open, "open"), (read, "read"), (close, "close")):
        if not callable(cb):
            raise TypeError(f"resource provider '{prefix}': {what} must be callable")
    for cb, what in ((getdir, "getdir"), (modified, "modified")):
        if cb is not None and not callable(cb):
            raise TypeError(f"resource provider '{prefix}': {what} must be callable or None")
    new = ResourceProvider(prefix, open, read, close, getdir, modified)
    for i, p in enumerate(_providers):
        if p.prefix.lower() == prefix.lower():
            if (p.open, p.read, p.close, p.getdir, p.modified) == (open, read, close, getdir,
                                                                   modified):
                return i + 1
            raise ValueError(f"a resource provider for prefix '{prefix}' is already registered")
    _providers.append(new)
    return len(_providers)


def unregister_resource_provider(prefix):
    """Remove the provider of ``prefix`` (for tests and plugins that are unloaded); True if one
    was registered."""
    for i, p in enumerate(_providers):
        if p.prefix.lower() == prefix.lower():
            del _providers[i]
            return True
    return False


def resource_provider_count():
    """mjp_resourceProviderCount."""
    return len(_providers)


def find_provider(name):
    """The provider whose prefix is the scheme of ``name`` (``{prefix}:...``), or None."""
    if not isinstance(name, str) or ":" not in name or not _providers:
        return None
    scheme = name.split(":", 1)[0].lower()
    for p in _providers:
        if p.prefix.lower() == scheme:
            return p
    return None


def is_absolute(name):
    """True when ``name`` is not resolved relative to a directory: an absolute path, or a name
    a provider serves."""
    return os.path.isabs(name) or find_provider(name) is not None


def join(directory, name):
    """``name`` resolved in ``directory``: a file system path, or a provider's directory (what
    its getdir returns, separator included, e.g. ``mem:scene/``), which is prefixed as is."""
    if not directory or is_absolute(name):
        return name
    if find_provider(directory) is not None:
        return directory + name
    return os.path.join(directory, name)


def join_dir(directory, sub):
    """The directory ``sub`` (meshdir, texturedir...) inside ``directory``, ending with its
    separator when a provider serves it."""
    if not sub:
        return directory
    out = join(directory, sub)
    if find_provider(out) is not None and not out.endswith("/"):
        out += "/"
    return out


def resource_dir(name):
    """The directory of a resource: the provider's getdir, else the name up to its last '/'
    (MuJoCo's shared implementation); for a file, its absolute directory."""
    p = find_provider(name)
    if p is None:
        return os.path.dirname(os.path.abspath(name))
    if p.getdir is not None:
        return str(p.getdir(MjResource(name, p)))
    return name[:name.rfind("/") + 1] if "/" in name else name[:name.find(":") + 1]


def asset_lookup(assets, full, name):
    """The assets dict entry for a resource (full name, name as written, then base name)."""
    if not assets:
        return None
    for key in (full, name):
        if key in assets:
            return assets[key]
    base = os.path.basename(name)
    for key, val in assets.items():
        if os.path.basename(key) == base:
            return val
    return None


def _as_bytes(val, name):
    if isinstance(val, str):
        return val.encode("utf-8")
    if isinstance(val, (bytes, bytearray, memoryview)):
        return bytes(val)
    raise TypeError(f"assets['{name}'] must be bytes or str, not {type(val).__name__}")


def read_from_provider(p, full):
    """Open, read and close ``full`` through the provider ``p``; ResourceError naming both."""
    res = MjResource(full, p)
    try:
        ok = p.open(res)
    except Exception as e:  # a user callback: report it with the resource it failed on
        raise ResourceError(full, f"open failed: {type(e).__name__}: {e}", p.prefix) from e
    if not ok:
        raise ResourceError(full, "could not be opened", p.prefix)
    try:
        try:
            buf = p.read(res)
        except Exception as e:
            raise ResourceError(full, f"read failed: {type(e).__name__}: {e}", p.prefix) from e
        if buf is None or (isinstance(buf, int) and buf < 0):
            raise ResourceError(full, "could not be read", p.prefix)
        if isinstance(buf, str):
            buf = buf.encode("utf-8")
        try:
            return bytes(buf)
        except TypeError:
            raise ResourceError(full, f"read returned {type(buf).__name__}, expected bytes",
                                p.prefix) from None
    finally:
        p.close(res)


def read_file(path) -> bytes:
    """The bytes of file ``path`` as MuJoCo reads a file: as many as its size says. A device or
    pipe (``/dev/zero``, ``/dev/stdin``) has size 0 and reads empty, as in mujoco, instead of
    reading without end. OSError as open() raises it."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        return f.read() if stat.S_ISREG(st.st_mode) else f.read(st.st_size)


def read_resource(name, directory="", assets=None):
    """The bytes of the resource ``name`` (relative names resolved in ``directory``) and the
    full name it was found under: the assets dict, then a provider, then the file system.
    ResourceError when none has it."""
    full = join(directory, name)
    val = asset_lookup(assets, full, name)
    if val is not None:
        return _as_bytes(val, name), full
    p = find_provider(full)
    if p is not None:
        return read_from_provider(p, full), full
    try:
        return read_file(full), full
    except FileNotFoundError:
        where = f" (looked in {directory})" if directory and not is_absolute(name) else ""
        raise ResourceError(name, f"file not found{where}") from None
    except OSError as e:
        raise ResourceError(full, f"cannot read file: {e.strerror}") from None


def resource_exists(name, directory="", assets=None):
    """True when `read_resource` would find ``name`` (a provider is asked by opening it)."""
    full = join(directory, name)
    if asset_lookup(assets, full, name) is not None:
        return True
    p = find_provider(full)
    if p is not None:
        res = MjResource(full, p)
        try:
            ok = p.open(res)
        except Exception:
            return False
        if ok:
            p.close(res)
        return bool(ok)
    return os.path.exists(full)


def resource_modified(name, timestamp):
    """mjfResourceModified through the provider of ``name``: 0 when unchanged, nonzero when
    changed; 1 when the provider cannot tell (no ``modified`` callback), as a conservative
    answer."""
    p = find_provider(name)
    if p is None:
        try:
            return int(str(os.stat(name).st_mtime_ns) != timestamp)
        except OSError:
            return 1
    if p.modified is None:
        return 1
    return int(p.modified(MjResource(name, p), timestamp))
