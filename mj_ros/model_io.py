"""Where the simulated model comes from, and loading it with the engine.

Sources, first match wins: the `model` parameter (a path to an MJCF or URDF file), the
`robot_description` parameter (the XML text), the `robot_description` topic (transient local, as
robot_state_publisher offers it), else the default robot shipped in urdf/. `package://` URIs are
resolved by the engine's loader, which sees the file's path (or, for XML text, the current
directory) exactly as `engine.MjModel.from_xml_path/from_xml_string` define it.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import sys

DEFAULT_ROBOT = "mj_arm.urdf"


class ModelLoadError(RuntimeError):
    """The model could not be loaded; str(e) is the one message to show the user."""


@dataclasses.dataclass(frozen=True)
class ModelSource:
    kind: str   # 'file' or 'xml'
    value: str  # a path or the XML text
    origin: str  # for messages: 'model parameter', 'default robot', ...

    def describe(self) -> str:
        return f"{self.value} ({self.origin})" if self.kind == "file" else self.origin


def share_dir() -> pathlib.Path | None:
    """The package's share directory (installed) or the source tree (development)."""
    try:
        from ament_index_python.packages import get_package_share_directory
        return pathlib.Path(get_package_share_directory("mj_ros"))
    except Exception:  # not in a ROS installation, or not installed there
        pass
    src = pathlib.Path(__file__).resolve().parents[1]
    if (src / "urdf" / DEFAULT_ROBOT).is_file():
        return src
    installed = pathlib.Path(sys.prefix) / "share" / "mj_ros"
    return installed if installed.is_dir() else None


def default_model_path() -> pathlib.Path:
    share = share_dir()
    if share is None or not (share / "urdf" / DEFAULT_ROBOT).is_file():
        raise ModelLoadError(f"the default robot urdf/{DEFAULT_ROBOT} is not installed")
    return share / "urdf" / DEFAULT_ROBOT


def choose_source(model: str, robot_description: str) -> ModelSource | None:
    """The source from parameters; None means: try the robot_description topic or the default."""
    if model:
        path = pathlib.Path(os.path.expanduser(model))
        if not path.is_file():
            raise ModelLoadError(f"model file not found: {model}")
        return ModelSource("file", str(path.resolve()), "model parameter")
    if robot_description.strip():
        return ModelSource("xml", robot_description, "robot_description parameter")
    return None


def load(source: ModelSource, mj):
    """Compile the model with the engine module `mj`; one clear error on failure."""
    try:
        if source.kind == "file":
            return mj.MjModel.from_xml_path(source.value)
        return mj.MjModel.from_xml_string(source.value)
    except NotImplementedError as e:
        raise ModelLoadError(f"cannot load {source.describe()}: the engine does not support "
                             f"{e}") from e
    except Exception as e:  # the engine's loader reports file, line, element, attribute
        raise ModelLoadError(f"cannot load {source.describe()}: {e}") from e
