"""``engine.egl``: what programs import as ``mujoco.egl`` for MUJOCO_GL=egl. The engine
draws on the CPU (engine/render/gl.py): its GLContext is the same no-op context on every
platform."""
from engine.render.gl import GLContext  # noqa: F401  (absolute: also loaded as mujoco.egl)

__all__ = ["GLContext"]
