"""``engine.glfw``: what programs import as ``mujoco.glfw`` for MUJOCO_GL=glfw. The engine
draws on the CPU (engine/render/gl.py): its GLContext is the same no-op context on every
platform."""
from engine.render.gl import GLContext  # noqa: F401  (absolute: also loaded as mujoco.glfw)

__all__ = ["GLContext"]
