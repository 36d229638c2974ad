"""The compile cache: results of the compiler's expensive, deterministic asset steps (processed
meshes: hull, polygons, graph, inertia; procedural textures), stored on disk by content so that
a model's second compile, in this or any later process, skips them.

Where: ``$MJ_ROS_MESH_CACHE`` if set (a directory; ``off``, ``0``, ``none``, ``false`` or
``no`` disable the cache), else ``$XDG_CACHE_HOME/mj_ros/compile`` (``~/.cache/mj_ros/compile``).
The variable is read at every compile, so it can be changed between compiles.

Keys: a SHA-256 over everything the result depends on: the input's bytes (a mesh file's bytes,
or inline vertex and face arrays), every processing parameter, and the source code of the
modules that compute the result (`code_digest`), so that a changed algorithm never reads an
old entry. An entry is one file named by its key: a magic line, a JSON header (the arrays'
names, dtypes, shapes and offsets, scalar values, the key and a CRC-32 of the payload), then
the arrays' raw bytes. Any entry that cannot be read, parsed or verified is treated as absent
(and removed): the caller recomputes, the compile never fails because of the cache. Writes go
to a temporary file renamed into place, so concurrent compiles see whole entries or none.

Size: entries older code wrote are never read again, so the directory is kept under
`MAX_BYTES`: a hit marks its entry used (its modification time), and a process that stores
entries checks the total (at its first store, then every `_PRUNE_EVERY` bytes stored) and
removes the least recently used entries beyond it. Deleting the directory is always safe.

Writes happen in a background thread (`store` returns once the arrays are copied), so a cold
compile does not wait for the disk; `flush` waits for them.
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import struct
import tempfile
import threading
import zlib

import numpy as np

MAGIC = b"MJROSCACHE1\n"
_OFF = {"off", "0", "none", "false", "no"}
MAX_BYTES = 1 << 30          # the directory's size limit (least recently used entries go)
_PRUNE_EVERY = 64 << 20      # bytes stored by this process between two size checks
_code_digests: dict = {}
_since_prune = [None]        # bytes stored since the last size check (None: none yet)


def cache_dir():
    """The cache directory (a path, not necessarily existing yet), or None when disabled."""
    env = os.environ.get("MJ_ROS_MESH_CACHE")
    if env is not None and env.strip():
        if env.strip().lower() in _OFF:
            return None
        return os.path.expanduser(env.strip())
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mj_ros", "compile")


def code_digest(*modules) -> bytes:
    """SHA-256 of the source files of ``modules`` (computed once per process): part of every
    key, so results of older code are never returned."""
    names = tuple(m.__name__ for m in modules)
    d = _code_digests.get(names)
    if d is None:
        h = hashlib.sha256()
        for m in modules:
            with open(m.__file__, "rb") as f:
                h.update(f.read())
        d = _code_digests[names] = h.digest()
    return d


class Key:
    """Incremental SHA-256 key of a cache entry: feed it every input, tagged."""

    def __init__(self, kind: str):
        self.kind = kind
        self._h = hashlib.sha256(kind.encode() + b"\0")

    def add(self, tag: str, value) -> "Key":
        """Add one input: bytes, a str, a number, None, or an array-like (its dtype, shape and
        bytes, so 1 and 1.0 or (3,) and (1, 3) differ)."""
        h = self._h
        h.update(tag.encode() + b"\0")
        if value is None:
            h.update(b"N")
        elif isinstance(value, (bytes, bytearray, memoryview)):
            h.update(b"B" + struct.pack("<Q", len(value)))
            h.update(value)
        elif isinstance(value, str):
            b = value.encode()
            h.update(b"S" + struct.pack("<Q", len(b)) + b)
        else:
            a = np.ascontiguousarray(value)
            head = f"A{a.dtype.str}{a.shape}".encode()
            h.update(struct.pack("<Q", len(head)) + head)
            h.update(a.tobytes())
        return self

    def hex(self) -> str:
        return self._h.hexdigest()


def _path(key: Key):
    d = cache_dir()
    if d is None:
        return None
    return os.path.join(d, key.kind, key.hex()[:2], key.hex() + ".bin")


def load(key: Key):
    """The entry stored under ``key``: ``(arrays dict name -> ndarray, meta dict)``, or None
    when there is none (or the cache is disabled, or the entry is unreadable or corrupt: a
    corrupt entry is removed). The arrays are (writable) views of one buffer of the file."""
    path = _path(key)
    if path is None:
        return None
    got = _WRITER.pending(path, key.hex())
    if got is not None:
        return got
    try:
        with open(path, "rb") as f:
            blob = bytearray(os.fstat(f.fileno()).st_size)
            if f.readinto(blob) != len(blob):
                raise OSError("short read")
    except OSError:
        return None
    try:
        got = _decode(blob, key.hex())
    except Exception:  # any damage: treat as absent, and drop it so it is rewritten
        try:
            os.remove(path)
        except OSError:
            pass
        return None
    try:
        os.utime(path)       # used now: the size limit removes the least recently used first
    except OSError:
        pass
    return got


def _decode(blob: bytearray, hexkey: str):
    if not blob.startswith(MAGIC):
        raise ValueError("not a cache entry")
    n = len(MAGIC)
    (hlen,) = struct.unpack_from("<Q", blob, n)
    head = json.loads(blob[n + 8:n + 8 + hlen])
    payload = memoryview(blob)[n + 8 + hlen:]
    if head["key"] != hexkey or len(payload) != head["size"] \
            or zlib.crc32(payload) != head["crc"]:
        raise ValueError("cache entry does not verify")
    arrays = {}
    for name, dtype, shape, off in head["arrays"]:
        dt = np.dtype(dtype)
        cnt = int(np.prod(shape, dtype=np.int64))
        arrays[name] = np.frombuffer(payload, dt, cnt, off).reshape(shape)
    return arrays, head["meta"]


def store(key: Key, arrays: dict, meta: dict) -> None:
    """Store ``arrays`` (name -> ndarray) and ``meta`` (JSON-able values; floats round-trip
    exactly) under ``key``. The arrays are copied now; the entry is written by a background
    thread (`_Writer`), so a compile does not wait for the disk: `load` sees the entry at once,
    `flush` waits for the writes. Failures (read-only or full disk, ...) are ignored: the
    cache is an optimisation only."""
    path = _path(key)
    if path is None:
        return
    table, chunks, off = [], [], 0
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        table.append([name, a.dtype.str, list(a.shape), off])
        b = a.tobytes()
        chunks.append(b)
        off += len(b)
        pad = -off % 8           # keep every array 8-byte aligned
        if pad:
            chunks.append(b"\0" * pad)
            off += pad
    _WRITER.put(path, key.hex(), table, chunks, meta)


def flush() -> None:
    """Wait until every entry `store` was given is on disk (or given up)."""
    _WRITER.join()


class _Writer:
    """Writes stored entries in a background thread, in the order given.

    The thread exists only while entries are queued, and it is not a daemon: an exiting
    interpreter waits for it, so an entry given to `store` is written unless the process is
    killed (an entry cut short by a kill stays a temporary file and is never read). Entries
    queued and not yet written are returned by `load` from memory."""

    def __init__(self):
        self._lock = threading.Lock()
        self._queue = collections.deque()
        self._pending = {}            # path -> (table, chunks, meta) not yet on disk
        self._thread = None

    def put(self, path, hexkey, table, chunks, meta):
        with self._lock:
            self._pending[path] = (table, chunks, meta)
            self._queue.append((path, hexkey))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mj_ros-compile-cache")
                self._thread.start()

    def pending(self, path, hexkey):
        """The queued entry at ``path`` decoded as `load` returns it, or None."""
        with self._lock:
            got = self._pending.get(path)
        if got is None:
            return None
        table, chunks, meta = got
        return _decode(bytearray(_encode(hexkey, table, chunks, meta)), hexkey)

    def join(self):
        with self._lock:
            t = self._thread
        if t is not None:
            t.join()

    def _run(self):
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    return
                path, hexkey = self._queue.popleft()
                got = self._pending.get(path)
            if got is None:     # the path was queued twice and its latest entry is written
                continue
            table, chunks, meta = got
            try:
                _write(path, _encode(hexkey, table, chunks, meta))
            except Exception:   # never let the cache fail or print from a compile
                pass
            with self._lock:
                got = self._pending.get(path)
                if got is not None and got[1] is chunks:   # not stored again meanwhile
                    del self._pending[path]


_WRITER = _Writer()


def _encode(hexkey, table, chunks, meta) -> bytes:
    """An entry's bytes: the magic line, the JSON header, the payload."""
    payload = b"".join(chunks)
    head = json.dumps({"key": hexkey, "arrays": table, "meta": meta, "size": len(payload),
                       "crc": zlib.crc32(payload)}).encode()
    return MAGIC + struct.pack("<Q", len(head)) + head + payload


def _write(path, blob) -> None:
    """Write an entry's bytes to ``path`` through a renamed temporary file, then keep the
    directory under its size limit (checked at the first write, then every `_PRUNE_EVERY`
    bytes)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise
    except OSError:
        return
    n = _since_prune[0]
    if n is None or n + len(blob) > _PRUNE_EVERY:
        _since_prune[0] = 0
        prune(os.path.dirname(os.path.dirname(os.path.dirname(path))))
    else:
        _since_prune[0] = n + len(blob)


def _entry_files(root):
    """Paths of the entry files under ``root`` (<kind>/<2 hex>/<64 hex>.bin: nothing else in a
    directory the user named is ever touched)."""
    try:
        kinds = [e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for kd in kinds:
        try:
            subs = [e for e in os.scandir(kd) if e.is_dir(follow_symlinks=False)
                    and len(e.name) == 2]
        except OSError:
            continue
        for sub in subs:
            try:
                files = list(os.scandir(sub.path))
            except OSError:
                continue
            for f in files:
                if (len(f.name) == 68 and f.name.endswith(".bin")
                        and f.name.startswith(sub.name) and f.is_file(follow_symlinks=False)):
                    yield f


def prune(root, limit=None) -> None:
    """Remove the least recently used entries under ``root`` until they total at most
    three quarters of ``limit`` bytes (default `MAX_BYTES`), if they exceed it. Errors are
    ignored (another process may be pruning too)."""
    limit = MAX_BYTES if limit is None else limit
    entries, total = [], 0
    for f in _entry_files(root):
        try:
            st = f.stat(follow_symlinks=False)
        except OSError:
            continue
        entries.append((st.st_mtime_ns, st.st_size, f.path))
        total += st.st_size
    if total <= limit:
        return
    entries.sort()
    for _, size, p in entries:
        if total <= limit * 3 // 4:
            break
        try:
            os.remove(p)
            total -= size
        except OSError:
            pass
