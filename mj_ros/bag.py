"""rosbag2 files without ROS, through the `rosbags` package: reading mocap samples, writing output.

Both storage formats (sqlite3 and mcap) are read; message types come from the bag's own
definitions when it carries them, else from the Kilted typestore (which knows tf2_msgs with the
same type hash as rclpy). Every problem is a `BagError` with one clear message, or a note in the
`ReadReport` when the rest of the bag is still usable.
"""
from __future__ import annotations

import dataclasses
import pathlib

from mj_ros import mocap as mc


class BagError(RuntimeError):
    """The bag cannot be used; str(e) is the one message to show."""


def typestore():
    from rosbags.typesys import Stores, get_typestore
    store = getattr(Stores, "ROS2_KILTED", None) or Stores.LATEST
    return get_typestore(store)


def _ns(stamp) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


@dataclasses.dataclass
class ReadReport:
    start_ns: int = 0          # the bag's first log time
    end_ns: int = 0            # the bag's last log time
    messages: dict[str, int] = dataclasses.field(default_factory=dict)   # read per mapped topic
    undecodable: dict[str, int] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)
    samples: list[tuple[int, int, str, tuple, tuple]] = dataclasses.field(default_factory=list)
    # (stamp ns, source index, frame id, (x, y, z), (w, x, y, z)) in bag order

    def first_sample_ns(self) -> int | None:
        return min((s[0] for s in self.samples), default=None)


def read_samples(path, config: mc.MocapConfig, frame_prefix: str = "") -> ReadReport:
    """Every sample the mocap map asks for, with the bag's time span and what went wrong."""
    from rosbags.highlevel import AnyReader, AnyReaderError
    p = pathlib.Path(path)
    if not p.exists():
        raise BagError(f"bag not found: {path}")
    report = ReadReport()
    try:
        reader = AnyReader([p], default_typestore=typestore())
        reader.open()
    except AnyReaderError as e:
        raise BagError(f"cannot open bag {path}: {e}") from None
    except Exception as e:  # a corrupt metadata.yaml, sqlite or mcap header
        raise BagError(f"cannot open bag {path}: {type(e).__name__}: {e}") from None
    try:
        report.start_ns, report.end_ns = int(reader.start_time), int(reader.end_time)
        in_bag: dict[str, str] = {}
        for c in reader.connections:
            in_bag.setdefault(c.topic, c.msgtype)
        wanted = config.topics()
        conns = []
        for topic, kind in wanted.items():
            have = in_bag.get(topic)
            if have is None:
                report.notes.append(
                    f"topic {topic} (for {_bodies(config, topic)}) is not in the bag; its topics: "
                    + (", ".join(f"{t} [{k}]" for t, k in sorted(in_bag.items())) or "none"))
                continue
            if have != kind:
                report.notes.append(f"topic {topic} holds {have}, the map expects {kind}: skipped")
                continue
            if have not in reader.typestore.types:
                report.notes.append(f"topic {topic}: message type {have} is unknown (the bag "
                                    "carries no definition of it): skipped")
                continue
            conns += [c for c in reader.connections if c.topic == topic]
        if not conns:
            return report
        for topic in {c.topic for c in conns}:
            report.messages[topic] = 0
        count = 0
        try:
            for conn, log_ns, raw in reader.messages(connections=conns):
                count += 1
                report.messages[conn.topic] += 1
                try:
                    msg = reader.deserialize(raw, conn.msgtype)
                except Exception:  # noqa: BLE001 - a corrupt or foreign message: count it
                    report.undecodable[conn.topic] = report.undecodable.get(conn.topic, 0) + 1
                    continue
                _collect(report, config, conn.topic, conn.msgtype, msg, log_ns, frame_prefix)
        except Exception as e:  # noqa: BLE001 - a truncated file: keep what was read
            report.notes.append(f"bag {path} is truncated or corrupt after {count} messages "
                                f"({type(e).__name__}: {e}); the messages before are used")
        for topic, n in report.undecodable.items():
            report.notes.append(f"topic {topic}: {n} messages could not be decoded: skipped")
    finally:
        try:
            reader.close()
        except Exception:  # noqa: BLE001 - closing a broken file must not hide the report
            pass
    return report


def _bodies(config: mc.MocapConfig, topic: str) -> str:
    return ", ".join(s.body for s in config.sources if s.topic == topic)


def _collect(report: ReadReport, config: mc.MocapConfig, topic: str, msgtype: str, msg, log_ns,
             frame_prefix: str) -> None:
    by_header = config.stamps == "header"
    for i, s in enumerate(config.sources):
        if s.topic != topic:
            continue
        if msgtype == mc.POSE:
            items = [(msg.header, msg.pose.position, msg.pose.orientation)]
        elif msgtype == mc.TRANSFORM:
            items = [(msg.header, msg.transform.translation, msg.transform.rotation)]
        else:
            items = [(tr.header, tr.transform.translation, tr.transform.rotation)
                     for tr in msg.transforms
                     if _strip(tr.child_frame_id, frame_prefix) == s.child_frame]
        for header, v, r in items:
            t = _ns(header.stamp) if by_header else log_ns
            if t == 0:  # an unstamped message: the time it was recorded
                t = log_ns
            report.samples.append((t, i, _strip(header.frame_id, frame_prefix),
                                   (v.x, v.y, v.z), (r.w, r.x, r.y, r.z)))


def _strip(frame: str, prefix: str) -> str:
    frame = (frame or "").lstrip("/")
    return frame[len(prefix):] if prefix and frame.startswith(prefix) else frame


def _latched_qos():
    from rosbags.interfaces import (Qos, QosDurability, QosHistory, QosLiveliness,
                                    QosReliability, QosTime)
    forever = QosTime(2147483647, 4294967295)  # rosbag2's "infinite" duration
    return Qos(QosHistory.KEEP_LAST, 1, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL,
               forever, forever, QosLiveliness.AUTOMATIC, forever, False)


class OutBag:
    """An output rosbag2 (mcap by default, which Foxglove and PlotJuggler open)."""

    def __init__(self, path, storage: str = "mcap"):
        from rosbags.rosbag2 import StoragePlugin, Writer
        p = pathlib.Path(path)
        if p.exists():
            raise BagError(f"output bag {path} exists already (rosbag2 never overwrites)")
        plugin = {"mcap": StoragePlugin.MCAP, "sqlite3": StoragePlugin.SQLITE3}.get(storage)
        if plugin is None:
            raise BagError(f"unknown storage '{storage}' (mcap or sqlite3)")
        self.store = typestore()
        self.types = self.store.types
        self.path = p
        self.count = 0
        self._writer = Writer(p, version=9, storage_plugin=plugin)
        try:
            self._writer.open()
        except Exception as e:  # noqa: BLE001 - e.g. a missing parent directory
            raise BagError(f"cannot write bag {path}: {e}") from None
        self._conns: dict[str, object] = {}

    def topic(self, topic: str, msgtype: str, latched: bool = False):
        """The bag connection of ``topic``. ``latched``: offered as reliable, transient-local,
        keep-last 1 (what tf2 uses for /tf_static), so `ros2 bag play` republishes it latched."""
        if topic not in self._conns:
            qos = (_latched_qos(),) if latched else ()
            self._conns[topic] = self._writer.add_connection(
                topic, msgtype, typestore=self.store, offered_qos_profiles=qos)
        return self._conns[topic]

    def write(self, conn, t_ns: int, msg) -> None:
        self._writer.write(conn, int(t_ns), self.store.serialize_cdr(msg, conn.msgtype))
        self.count += 1

    def close(self) -> None:
        self._writer.close()
