"""ament_python / pip package for mj_ros: the `engine` physics package and the `mj_ros` node."""
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "mj_ros"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(include=["engine", "engine.*", "mj_ros", "mj_ros.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + PACKAGE]),
        ("share/" + PACKAGE, ["package.xml"]),
        ("share/" + PACKAGE + "/launch", glob("launch/*.py")),
        ("share/" + PACKAGE + "/config", glob("config/*.yaml")),
        ("share/" + PACKAGE + "/urdf", glob("urdf/*.*")),
    ],
    python_requires=">=3.10",
    # numba pinned to the minor version engine/_jit.py was written against: it extends numba's
    # dispatcher, cache and code generation internals
    install_requires=["numpy", "numba>=0.68,<0.69", "scipy", "trimesh", "lxml", "pycollada",
                      "pyyaml", "rosbags"],
    extras_require={
        # The official mujoco is the oracle for tests and benchmarks only: engine/ never imports it.
        "test": [
            "pytest",
            "pytest-xdist",
            "mujoco==4.0.0",
            "gymnasium[mujoco]",   # its MuJoCo environments import imageio
            "dm-control",
            "example-robot-data",
            "rosbags",
        ],
    },
    zip_safe=True,
    maintainer="mj_ros developers",
    description="ROS 2 simulator with its own MuJoCo-compatible physics engine",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "sim = mj_ros.sim_node:main",
            "mj-ros-sim = mj_ros.sim_node:main",
            "mj-ros-replay = mj_ros.replay:main",
        ],
    },
)
