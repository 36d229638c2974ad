"""Shared test setup: make test/oracle.py importable and keep ROS traffic on this machine."""
import os
import sys
from pathlib import Path

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # no DDS traffic may leave the machine
sys.path.insert(0, str(Path(__file__).resolve().parent))
