"""mj-ros-replay: bags written with `rosbags`, replayed offline (no ROS process), checked against
the trajectories they were made from."""
from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest

import bagtools as bt
from mj_ros import frames as fr
from mj_ros import replay

MODELS = pathlib.Path(__file__).resolve().parents[1] / "models" / "ros"
TF_MODEL = str(MODELS / "mocap_tf.xml")
WELD_MODEL = str(MODELS / "mocap_weld.xml")
# linear interpolation of the 50 Hz circle (radius 0.15 m, 2 s period) cuts its chords:
# r (1 - cos(pi * 0.02 / 2)) = 7.4e-5 m
CHORD = bt.RADIUS * (1 - math.cos(math.pi * 0.02 / bt.PERIOD))


def run(tmp, *args, bag=None, storage="mcap", mode="interpolate"):
    bag = bag or bt.write_bag(tmp / f"in_{storage}", storage=storage)
    mp = bt.write_map(tmp / "map.yaml", mode)
    out = tmp / f"out_{storage}_{mode}"
    summary = tmp / f"summary_{storage}_{mode}.json"
    code = replay.main([str(bag), "--model", TF_MODEL, "--map", str(mp), "--out", str(out),
                        "--summary", str(summary), "--rate", "0", *args])
    return code, json.loads(summary.read_text()) if summary.exists() else None, out


def poses(out_bag, child):
    """[(stamp s relative to the bag start, pos, quat w-first)] of a frame on /tf."""
    got = []
    for _, msg in bt.read_bag(out_bag)["/tf"]:
        for tr in msg.transforms:
            if tr.child_frame_id == child:
                ns = tr.header.stamp.sec * 10**9 + tr.header.stamp.nanosec - bt.T0_NS
                v, r = tr.transform.translation, tr.transform.rotation
                got.append((ns * 1e-9, np.array([v.x, v.y, v.z]), np.array([r.w, r.x, r.y, r.z])))
    return got


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_mocap_bodies_follow_the_bag(tmp_path, storage):
    code, s, out = run(tmp_path, storage=storage)
    assert code == 0, s
    assert s["duration_s"] == pytest.approx(2.0) and s["steps"] == 2000
    assert s["per_body"]["target"]["accepted"] == 101
    assert s["per_body"]["hand_target"]["accepted"] == 81
    assert s["samples_dropped"] == 0 and s["error"] is None
    target, hand = poses(out, "target"), poses(out, "hand_target")
    assert len(target) == len(hand) == 2001  # --rate 0: every step, plus the start
    worst = 0.0
    for t, p, q in target:
        want_p, want_q = bt.circle(t)
        worst = max(worst, np.linalg.norm(p - want_p))
        assert fr.quat_angle(q, want_q) < 1e-9, t  # slerp about one axis at a constant rate
    assert worst <= CHORD * 1.01 and worst > CHORD * 0.5  # interpolated, not held
    for t, p, q in hand:  # a straight line with a constant roll rate: exact
        want_p, want_q = bt.line(t)
        assert np.linalg.norm(p - want_p) < 1e-9 and fr.quat_angle(q, want_q) < 1e-7, t
    out_topics = set(bt.read_bag(out))
    assert {"/tf", "/tf_static", "/joint_states"} <= out_topics
    # /tf_static is offered latched (transient local), as tf2 publishes it
    from rosbags.interfaces import QosDurability
    from rosbags.rosbag2 import Reader
    with Reader(out) as r:
        qos = {c.topic: c.ext.offered_qos_profiles for c in r.connections}
    assert [q.durability for q in qos["/tf_static"]] == [QosDurability.TRANSIENT_LOCAL]
    assert qos["/tf"] == [] or all(q.durability != QosDurability.TRANSIENT_LOCAL
                                   for q in qos["/tf"])


def test_hold_mode_keeps_the_last_sample(tmp_path):
    code, s, out = run(tmp_path, mode="hold")
    assert code == 0
    for t, p, _ in poses(out, "target"):
        k = math.floor(t * 50 + 1e-9)  # the last 50 Hz sample at or before t
        assert np.linalg.norm(p - bt.circle(k / 50)[0]) < 1e-9, t


def test_pendulum_tf_matches_the_engine(tmp_path):
    """The replay's /tf of the swinging links equals the engine's own poses at each stamp."""
    import engine
    code, s, out = run(tmp_path, "--rate", "100")
    assert code == 0
    m = engine.MjModel.from_xml_path(TF_MODEL)
    d = engine.MjData(m)
    engine.mj_resetData(m, d)
    step = engine.mj_step
    kin = engine.mj_kinematics
    link2 = {round(t * 1000): (p, q) for t, p, q in poses(out, "link2")}
    link1 = {round(t * 1000): (p, q) for t, p, q in poses(out, "link1")}
    assert sorted(link2)[:3] == [0, 10, 20]
    for k in range(1, 501):
        step(m, d)
        if k % 100 == 0:
            kin(m, d)
            p1, q1 = link1[k]
            p2, q2 = fr.compose(p1, q1, *link2[k])
            assert np.allclose(p2, d.xpos[4], atol=1e-12) and fr.quat_angle(q2, d.xquat[4]) < 1e-9


def test_bad_input_is_reported_and_valid_data_still_applied(tmp_path, capsys):
    good = bt.pose_msg
    t0 = bt.T0_NS
    bad = [  # on /target_pose between the good samples (which arrive every 20 ms)
        (t0 + 5_000_000, good(t0 + 5_000_000, [math.nan, 0, 0], [1, 0, 0, 0])),
        (t0 + 25_000_000, good(t0 + 25_000_000, bt.circle(0.025)[0], [2, 0, 0, 0])),  # norm 2
        (t0 + 45_000_000, good(t0 + 1_000_000, [9, 9, 9], [1, 0, 0, 0])),  # stamped in the past
    ]
    bag = bt.write_bag(tmp_path / "bad", extra=[("/target_pose", "geometry_msgs/msg/PoseStamped",
                                                 bad)])
    mp = bt.write_map(tmp_path / "map.yaml", text=bt.MAP.format(mode="interpolate") + """
  other:
    topic: /not_in_bag
""".replace("  other:", "  hand_target_unused:"))
    # a map entry for a body that is not a mocap body is a map error: exit 2, one line
    code = replay.main([str(bag), "--model", TF_MODEL, "--map", str(mp)])
    err = capsys.readouterr().err
    assert code == 2 and "hand_target_unused: not a mocap body" in err and "Traceback" not in err

    text = bt.MAP.format(mode="interpolate").replace("tf: operator/hand", "topic: /not_in_bag")
    mp = bt.write_map(tmp_path / "map2.yaml", text=text)
    summary = tmp_path / "s.json"
    code = replay.main([str(bag), "--model", TF_MODEL, "--map", str(mp), "--out",
                        str(tmp_path / "out"), "--summary", str(summary)])
    err = capsys.readouterr().err
    s = json.loads(summary.read_text())
    assert code == 0, err
    assert "topic /not_in_bag (for hand_target) is not in the bag" in err
    assert "NaN or Inf" in err and "normalised and applied" in err and "out of order" in err
    c = s["per_body"]["target"]
    assert (c["accepted"], c["dropped"], c["normalized"]) == (102, 2, 1)
    for t, p, _ in poses(tmp_path / "out", "target"):
        assert np.linalg.norm(p - bt.circle(t)[0]) < 2 * CHORD + 1e-9, t


def test_missing_truncated_and_foreign_bags(tmp_path, capsys):
    mp = bt.write_map(tmp_path / "map.yaml")
    code = replay.main([str(tmp_path / "nope"), "--model", TF_MODEL, "--map", str(mp)])
    err = capsys.readouterr().err
    assert code == 2 and "bag not found" in err

    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "metadata.yaml").write_text("rosbag2_bagfile_information: [not, a, bag\n")
    code = replay.main([str(junk), "--model", TF_MODEL, "--map", str(mp)])
    err = capsys.readouterr().err
    assert code == 2 and "cannot open bag" in err and "Traceback" not in err

    # a truncated mcap: the messages before the cut are replayed
    bag = bt.write_bag(tmp_path / "whole", duration=2.0)
    mcap = next(bag.glob("*.mcap"))
    data = mcap.read_bytes()
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "cut.mcap").write_bytes(data[: len(data) // 2])
    summary = tmp_path / "s.json"
    code = replay.main([str(cut / "cut.mcap"), "--model", TF_MODEL, "--map", str(mp),
                        "--summary", str(summary)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 0:  # the reader recovered the first half
        s = json.loads(summary.read_text())
        assert 0 < s["samples_applied"] < 182
    else:
        assert code == 2 and "bag" in err

    # a topic of a type the map does not expect
    other = bt.write_bag(tmp_path / "typed", extra=[(
        "/imu_pose", "std_msgs/msg/String", [(bt.T0_NS, bt.T["std_msgs/msg/String"](data="x"))])])
    text = bt.MAP.format(mode="hold").replace("/target_pose", "/imu_pose")
    code = replay.main([str(other), "--model", TF_MODEL, "--map",
                        str(bt.write_map(tmp_path / "m3.yaml", text=text))])
    err = capsys.readouterr().err
    assert code == 0 and "/imu_pose holds std_msgs/msg/String, the map expects" in err


def test_body_welded_to_mocap_tracks_it(tmp_path, capsys):
    bag = bt.write_bag(tmp_path / "in")
    mp = bt.write_map(tmp_path / "map.yaml", text="bodies:\n  handle:\n    topic: /target_pose\n")
    summary = tmp_path / "s.json"
    code = replay.main([str(bag), "--model", WELD_MODEL, "--map", str(mp), "--summary",
                        str(summary)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    s = json.loads(summary.read_text()) if summary.exists() else {"error": err}
    assert code == 0 and s["error"] is None, s["error"]
    (w,) = s["weld_tracking"]
    # a weld with solref (0.01, 1) is a critically damped spring of time constant 0.01 s: on the
    # 0.47 m/s circle it trails by the ramp lag 2 * 0.01 s * v (9.4 mm), as MuJoCo's does
    lag = 2 * 0.01 * (2 * math.pi * bt.RADIUS / bt.PERIOD)
    assert w["max_position_error_m"] == pytest.approx(lag, rel=0.1)
    assert w["max_angle_error_rad"] < 0.05


def test_progress_line_with_time_left(tmp_path, capsys, monkeypatch):
    """A replay longer than Progress.after s of wall time shows bag time done, elapsed and left;
    a short one (as every other test here) stays silent; --quiet turns it off."""
    import io
    stream = io.StringIO()
    p = replay.Progress(600.0, stream=stream, after=0.0, every=0.0)
    p.update(150.0)
    p.finish(600.0)
    first, last = stream.getvalue().splitlines()
    assert first.startswith("mj-ros-replay: 150.0 of 600.0 s of bag time (25%)")
    assert first.endswith("left") and "elapsed" in first
    assert "600.0 of 600.0 s of bag time (100%)" in last and "left" not in last

    monkeypatch.setattr(replay.Progress.__init__, "__defaults__", (None, 0.0, 0.0))
    code, summary, _ = run(tmp_path)
    err = capsys.readouterr().err
    assert code == 0
    lines = [ln for ln in err.splitlines() if " s of bag time " in ln]
    assert lines and f"of {summary['duration_s']:.1f} s of bag time (100%)" in lines[-1]
    (tmp_path / "quiet").mkdir()
    code, _, _ = run(tmp_path / "quiet", "--quiet")
    assert code == 0 and " s of bag time " not in capsys.readouterr().err
