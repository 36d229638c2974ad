"""``engine.osmesa``: what programs import as ``mujoco.osmesa`` for MUJOCO_GL=osmesa. The engine
draws on the CPU (engine/render/gl.py): its GLContext is the same no-op context on every
platform."""
from engine.render.gl import GLContext  # noqa: F401  (absolute: also loaded as mujoco.osmesa)

__all__ = ["GLContext"]
