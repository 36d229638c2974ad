"""Preserialized messages: publish the node's fixed-shape streams as CDR bytes filled in place.

rclpy converts a Python message to C and serializes it on every `publish` (20-35 us for a
JointState); a message whose shape never changes (same names, frame ids and array lengths every
step) can instead be serialized once and only its numbers rewritten. `RawBatch` holds the CDR
bytes of many such messages in one buffer and exposes every float64 field and every stamp through
numpy views, so one fancy-index assignment fills a field across messages and `publish` hands the
bytes to `Publisher.publish(bytes)` (rmw's serialized-message path: no Python-to-C conversion).

Where each field sits in the bytes is found, not computed: the prototype message is serialized
with a distinct sentinel in every slot and each sentinel's offset is looked up. That works for any
message type without a CDR layout of our own, and `check()` (used by the tests) deserializes the
bytes back with rclpy to prove the slots are where they were found.

CDR (ROS 2's XCDR1, little-endian): a 4-byte encapsulation header, then fields aligned to their
size relative to the end of the header. Every float64 therefore sits at an offset = 4 mod 8 within
its message and every int32/uint32 at 0 mod 4; messages are placed in the batch buffer so that this
holds for the buffer as a whole, and one float64 view and one uint32 view cover all of them.
"""
from __future__ import annotations

import dataclasses
import struct

import numpy as np
from rclpy.serialization import serialize_message


@dataclasses.dataclass
class Slot:
    """A float64 field of a message: `attr` of `obj` (a scalar, count None), or the sequence
    `attr` of `obj` with `count` elements."""

    obj: object
    attr: str
    count: int | None = None


class LayoutError(RuntimeError):
    """A sentinel was not found exactly once (should not happen; the message keeps rclpy's
    path)."""


def _sentinels(rng: np.random.Generator, n: int) -> np.ndarray:
    """n distinct finite float64 values with random bit patterns."""
    while True:
        v = rng.uniform(1.0e10, 9.0e10, n) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
        if len(set(v.tobytes()[i:i + 8] for i in range(0, 8 * n, 8))) == n:
            return v


def _find_once(raw: bytes, pattern: bytes, what: str) -> int:
    i = raw.find(pattern)
    if i < 0 or raw.find(pattern, i + 1) >= 0:
        raise LayoutError(f"cannot locate {what} in the serialized message")
    return i


def locate(msg, slots: list[Slot], stamps: list[object], seed: int = 0x5EED):
    """Serialize `msg` with sentinels in `slots` and `stamps` (builtin_interfaces/Time objects).

    Returns (raw bytes, float offsets in slot order (sequences expanded), stamp offsets of each
    stamp's `sec` field). The message keeps the sentinels; the caller overwrites them."""
    rng = np.random.default_rng(seed)
    n = sum(1 if s.count is None else s.count for s in slots)
    values = _sentinels(rng, n)
    k = 0
    for s in slots:
        if s.count is not None:
            setattr(s.obj, s.attr, values[k:k + s.count].tolist())
            k += s.count
        else:
            setattr(s.obj, s.attr, float(values[k]))
            k += 1
    secs: list[int] = []
    while len(secs) < len(stamps):
        v = int(rng.integers(0x10000000, 0x7FFFFFFF))
        if v not in secs:
            secs.append(v)
    for st, sec in zip(stamps, secs):
        st.sec, st.nanosec = int(sec), 0x5A5A5A5A
    raw = serialize_message(msg)
    foff = [_find_once(raw, struct.pack("<d", v), f"float slot {i}") for i, v in enumerate(values)]
    soff = []
    for sec in secs:
        o = _find_once(raw, struct.pack("<iI", int(sec), 0x5A5A5A5A), "a stamp")
        soff.append(o)
    if any(o % 8 != 4 for o in foff) or any(o % 4 for o in soff):
        raise LayoutError("unexpected alignment in the serialized message")
    for st in stamps:
        st.sec, st.nanosec = 0, 0
    return raw, foff, soff


@dataclasses.dataclass
class Entry:
    """One message in a batch: its byte range and the float64 indices of its slots."""

    pub: object
    start: int
    end: int
    floats: np.ndarray   # indices into RawBatch.f64, slot order (sequences expanded)
    stamps: np.ndarray   # indices into RawBatch.u32 of each stamp's sec (nanosec follows)
    msg_type: type


def _raw_publisher(pub):
    """The callable that publishes bytes with the least overhead: rclpy's C publisher's
    publish_raw if this rclpy has it (what Publisher.publish(bytes) calls), else publish."""
    inner = getattr(pub, "_Publisher__publisher", None)
    raw = getattr(inner, "publish_raw", None)
    return raw if callable(raw) else pub.publish


class RawBatch:
    """CDR bytes of several fixed-shape messages in one buffer, filled through numpy views."""

    def __init__(self):
        self._parts: list[tuple[bytes, list[int], list[int], object, type]] = []
        self.entries: list[Entry] = []
        self.buf = np.zeros(0, np.uint8)
        self.f64 = np.zeros(0)
        self.u32 = np.zeros(0, np.uint32)
        self.stamp_index = np.zeros((0, 2), np.intp)

    def add(self, pub, msg, slots: list[Slot], stamps: list[object]) -> int:
        """Add a message (before `finish`); returns its entry index."""
        raw, foff, soff = locate(msg, slots, stamps)
        self._parts.append((raw, foff, soff, pub, type(msg)))
        return len(self._parts) - 1

    def finish(self) -> None:
        """Lay the messages out in one buffer and make the views."""
        pos, layout = 0, []
        for raw, *_ in self._parts:
            pos += (-pos) % 8          # every message starts 8-aligned: its float64s at 4 mod 8
            layout.append(pos)
            pos += len(raw)
        pos += (-pos) % 8
        # the buffer's byte `shift` + 4 sits on an 8-byte boundary in memory, so the float64 and
        # uint32 views are aligned (numpy writes unaligned views through a slow path)
        mem = np.zeros(pos + 16, dtype=np.uint8)
        shift = (4 - mem.ctypes.data) % 8
        self.buf = mem[shift:shift + pos + 8]
        self.entries = []
        for start, (raw, foff, soff, pub, msg_type) in zip(layout, self._parts):
            self.buf[start:start + len(raw)] = np.frombuffer(raw, dtype=np.uint8)
            floats = np.array([(start + o - 4) // 8 for o in foff], dtype=np.intp)
            stamps = np.array([(start + o) // 4 for o in soff], dtype=np.intp)
            self.entries.append(Entry(pub, start, start + len(raw), floats, stamps, msg_type))
        self.f64 = self.buf[4:4 + pos].view("<f8")
        self.u32 = self.buf[:pos + 8].view("<u4")
        assert self.f64.flags.aligned and self.u32.flags.aligned
        for e in self.entries:  # no sentinel ever leaves the node
            self.f64[e.floats] = 0.0
        all_stamps = [e.stamps for e in self.entries if len(e.stamps)]
        sec = np.concatenate(all_stamps) if all_stamps else np.zeros(0, np.intp)
        self.stamp_index = np.stack([sec, sec + 1], axis=1)
        self.u32[self.stamp_index] = 0
        self._view = memoryview(self.buf)
        self._parts = []

    def set_stamp(self, sec: int, nsec: int) -> None:
        """Write one stamp into every message of the batch."""
        self.u32[self.stamp_index] = (sec, nsec)

    def stamp_entry(self, i: int, sec: int, nsec: int) -> None:
        e = self.entries[i]
        if len(e.stamps):
            self.u32[np.stack([e.stamps, e.stamps + 1], axis=1)] = (sec, nsec)

    def bytes_of(self, i: int) -> bytes:
        e = self.entries[i]
        return bytes(self._view[e.start:e.end])

    def publisher(self, i: int):
        """A zero-argument callable that publishes entry i's current bytes."""
        e = self.entries[i]
        send, view, a, b = _raw_publisher(e.pub), self._view, e.start, e.end
        return lambda: send(bytes(view[a:b]))

    def check(self, i: int):
        """Entry i's bytes as a message (rclpy's own deserializer): for tests."""
        from rclpy.serialization import deserialize_message
        return deserialize_message(self.bytes_of(i), self.entries[i].msg_type)
