"""Malformed and extreme ROS messages for the simulator's inputs (issue 25, point 6).

The inputs are found in the running graph, not listed by hand: every topic the simulator node
subscribes to, every service it serves (parameter services aside: test_params covers them) and
every action server, so a new input is fuzzed the day it is added. A message is filled field by
field from its rosidl type description (`get_fields_and_field_types`) with values that pass
rclpy's type checks but not the simulator's: NaN, +-inf, +-1e308, denormals, integer extremes,
sequences empty, mismatched or 10,000 long, names of real joints and bodies mixed with unknown,
empty, 10,000-character and non-ASCII ones, times and durations negative or huge, and for
strings that the node parses (model snippets, URIs) broken or extreme MJCF/URDF, URIs of missing
packages, directories and endless devices. A fixed seed makes every run the same sequence.

Used by test/ros/test_message_fuzz.py (a fast subset in the default test run) and by
bench/fuzz_node.py (the long run).
"""
from __future__ import annotations

import importlib
import math
import random
import re

FLOATS = (math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, 0.0, -0.0, 1.0, -1.0, 1e6,
          -1e6, 3.14159, 1e-9)
STRINGS = ("", "x" * 10_000, "\u00e9\u4e2d\u6587/\U0001F916", "../../etc/passwd", "world",
           " ", "\n", "a" * 256, "base_link", "/", "~", "*")
SNIPPETS = (
    "<mujoco>", "<mujoco><worldbody><body><geom size='nan'/></body></worldbody></mujoco>",
    "<mujoco><worldbody><body><freejoint/><geom size='1e308'/></body></worldbody></mujoco>",
    "<mujoco><worldbody><body><geom type='box' size='-1 1 1'/></body></worldbody></mujoco>",
    "<mujoco><worldbody><body><geom type='mesh' mesh='none'/></body></worldbody></mujoco>",
    "<mujoco><worldbody><body><joint type='hinge'/><geom size='.1' mass='0'/></body>"
    "</worldbody></mujoco>",
    "<mujoco><worldbody><replicate count='1000000'><body><geom size='.1'/></body></replicate>"
    "</worldbody></mujoco>",
    "<mujoco><include file='/dev/zero'/></mujoco>",
    "<robot name='r'><link name='a'/><joint name='j' type='revolute'><parent link='a'/>"
    "<child link='b'/></joint></robot>",
    "<robot name='r'><link name='a'><inertial><mass value='-1'/></inertial></link></robot>",
    "<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;"
    "&a;&a;&a;&a;&a;'><!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>]><mujoco>&c;</mujoco>",
    "file:///dev/zero", "file:///nonexistent/model.xml", "file:///", "package://nope/x.urdf",
    "package://mj_ros/../../../../etc/passwd", "http://example.com/model.xml", "/dev/zero",
    "/proc/self/mem", "/tmp",
)
INT_LIMITS = {
    "int8": (-2**7, 2**7 - 1), "uint8": (0, 2**8 - 1), "byte": (0, 255), "octet": (0, 255),
    "char": (0, 255), "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-2**63, 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
_SEQ = re.compile(r"^sequence<(.+?)(?:, *(\d+))?>$")
_ARR = re.compile(r"^(.+)\[(\d+)\]$")
_BOUNDED_STR = re.compile(r"^w?string<(\d+)>$")


def message_class(type_name: str):
    """The Python class of 'pkg/msg/Name' (or 'pkg/Name' as nested field types are written)."""
    parts = type_name.split("/")
    pkg, kind, name = (parts[0], "msg", parts[1]) if len(parts) == 2 else parts
    return getattr(importlib.import_module(f"{pkg}.{kind}"), name)


class Fuzzer:
    """Random extreme field values; `names` are strings the node knows (joint, body, entity
    names) so that a good share of messages get past name checks into the deeper ones."""

    def __init__(self, seed: int, names: list[str]):
        self.rng = random.Random(seed)
        self.names = list(names) or ["joint"]

    def length(self, bound: int | None = None) -> int:
        r = self.rng.random()
        n = (0 if r < 0.15 else 1 if r < 0.35 else self.rng.randint(2, 8) if r < 0.85
             else self.rng.randint(9, 64) if r < 0.97 else 10_000)
        return min(n, bound) if bound is not None else n

    def scalar(self, t: str, depth: int):
        rng = self.rng
        if t in ("double", "float", "float64", "float32"):
            v = rng.choice(FLOATS) if rng.random() < 0.7 else rng.gauss(0.0, 10.0)
            return v if t in ("double", "float64") or not math.isfinite(v) or abs(v) < 3e38 \
                else math.copysign(math.inf, v)
        if t in INT_LIMITS:
            lo, hi = INT_LIMITS[t]
            v = rng.choice((lo, hi, 0, 1, max(lo, -1), rng.randint(lo, hi)))
            return bytes([v]) if t in ("byte", "octet") else v
        if t == "boolean":
            return rng.random() < 0.5
        if t in ("string", "wstring") or _BOUNDED_STR.match(t):
            r = rng.random()
            s = (rng.choice(self.names) if r < 0.45 else rng.choice(STRINGS) if r < 0.75
                 else rng.choice(SNIPPETS))
            m = _BOUNDED_STR.match(t)
            return s[:int(m.group(1))] if m else s
        return self.message(message_class(t), depth + 1)

    def value(self, t: str, depth: int):
        m = _SEQ.match(t)
        if m:
            inner, bound = m.group(1), m.group(2)
            n = self.length(int(bound) if bound else None)
            if depth > 3 or (n > 64 and "/" in inner):   # nested messages: keep it bounded
                n = min(n, 3)
            return [self.scalar(inner, depth) for _ in range(n)]
        m = _ARR.match(t)
        if m:
            return [self.scalar(m.group(1), depth) for _ in range(int(m.group(2)))]
        return self.scalar(t, depth)

    def message(self, cls, depth: int = 0):
        """An instance of `cls` with most fields set (a field left out, 30%, or whose random value
        the type rejects keeps its default, so that messages also reach the checks behind the
        first one that an all-random message fails)."""
        msg = cls()
        for field, t in cls.get_fields_and_field_types().items():
            if self.rng.random() < 0.3:
                continue    # some fields left at their defaults: the checks behind the first
            try:
                setattr(msg, field, self.value(t, depth))
            except (AssertionError, TypeError, ValueError, OverflowError):
                pass
        return msg


PARAMETER_SERVICES = ("describe_parameters", "get_parameter_types", "get_parameters",
                      "list_parameters", "set_parameters", "set_parameters_atomically",
                      "get_type_description")


def node_inputs(node, sim_name: str, sim_namespace: str = "/"):
    """(topics, services, actions) of the simulator node as (name, class) lists, read from the
    graph by the probe `node`. Parameter services are left out; the action's hidden topics and
    services are left to the action client."""
    from rclpy.action import get_action_server_names_and_types_by_node
    topics, services, actions = [], [], []
    for name, types in node.get_subscriber_names_and_types_by_node(sim_name, sim_namespace):
        if "/_action/" in name:
            continue
        topics.append((name, message_class(types[0])))
    for name, types in node.get_service_names_and_types_by_node(sim_name, sim_namespace):
        if "/_action/" in name or name.rsplit("/", 1)[-1] in PARAMETER_SERVICES:
            continue
        pkg, kind, srv = types[0].split("/")
        services.append((name, getattr(importlib.import_module(f"{pkg}.{kind}"), srv)))
    for name, types in get_action_server_names_and_types_by_node(node, sim_name, sim_namespace):
        pkg, kind, act = types[0].split("/")
        actions.append((name, getattr(importlib.import_module(f"{pkg}.{kind}"), act)))
    return sorted(topics, key=lambda x: x[0]), sorted(services, key=lambda x: x[0]), \
        sorted(actions, key=lambda x: x[0])


def run(node, spin_once, fuzzer: Fuzzer, inputs, per_input: int, reply_timeout: float = 60.0,
        alive=lambda: True, in_flight: int = 4) -> dict:
    """Send `per_input` fuzzed messages to every input of `inputs` (from `node_inputs`): topics
    published back to back; service requests and action goals with at most `in_flight`
    outstanding per server (a ROS service keeps a bounded request queue, 10 by default: a client
    that sends more at once loses requests in the middleware before the node sees them), each
    reply awaited. `spin_once(timeout)` spins the probe's executor; `alive()` is False once the
    simulator has exited. Returns counts: published, requests, replies, goals, goal_responses,
    and `unanswered`, per input name in `unanswered_by_input` (no reply within `reply_timeout`
    of the last progress)."""
    import time
    from rclpy.action import ActionClient
    topics, services, actions = inputs
    pubs = [(node.create_publisher(cls, name, 10), cls) for name, cls in topics]
    servers = ([(name, node.create_client(cls, name), cls.Request, "srv")
                for name, cls in services] +
               [(name, ActionClient(node, cls, name), cls.Goal, "action")
                for name, cls in actions])
    end = time.monotonic() + reply_timeout
    while time.monotonic() < end and not (
            all(p.get_subscription_count() for p, _ in pubs) and
            all((c.service_is_ready() if k == "srv" else c.server_is_ready())
                for _, c, _, k in servers)):
        spin_once(0.05)
    published = 0
    for i in range(per_input):
        for pub, cls in pubs:
            pub.publish(fuzzer.message(cls))
            published += 1
        spin_once(0.0)
    sent = {name: 0 for name, *_ in servers}
    flying = {name: [] for name, *_ in servers}
    answered = {name: 0 for name, *_ in servers}
    accepted = []
    last = time.monotonic()
    while alive() and time.monotonic() - last < reply_timeout:
        for name, client, req_cls, kind in servers:
            for f in [f for f in flying[name] if f.done()]:
                flying[name].remove(f)
                answered[name] += 1
                last = time.monotonic()
                if kind == "action" and f.result() is not None and f.result().accepted:
                    accepted.append(f.result())
            while len(flying[name]) < in_flight and sent[name] < per_input:
                msg = fuzzer.message(req_cls)
                flying[name].append(client.call_async(msg) if kind == "srv"
                                    else client.send_goal_async(msg))
                sent[name] += 1
        if all(sent[n] == per_input and not flying[n] for n in sent):
            break
        spin_once(0.01)
    for goal in accepted:   # free the controllers again
        goal.cancel_goal_async()
    spin_once(0.2)
    for p, _ in pubs:
        node.destroy_publisher(p)
    for _, c, _, kind in servers:
        if kind == "srv":
            node.destroy_client(c)
        else:
            c.destroy()
    srv_names = {n for n, _ in services}
    unanswered = {n: per_input - answered[n] for n in sent if answered[n] < per_input}
    return {"published": published,
            "requests": sum(sent[n] for n in srv_names),
            "replies": sum(answered[n] for n in srv_names),
            "goals": sum(sent[n] for n in sent if n not in srv_names),
            "goal_responses": sum(answered[n] for n in sent if n not in srv_names),
            "unanswered": sum(unanswered.values()), "unanswered_by_input": unanswered}
