"""ROS names made from model names (shared by the node and the offline replay; no ROS import)."""
from __future__ import annotations

import re

_TOPIC_BAD = re.compile(r"[^A-Za-z0-9_/]")


def topic_name(name: str) -> str:
    """A ROS-valid topic token from a model name."""
    t = _TOPIC_BAD.sub("_", name).strip("/")
    if not t or t[0].isdigit():
        t = "s_" + t
    return t
