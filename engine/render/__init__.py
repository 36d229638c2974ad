"""The engine's offscreen renderer: ``engine.Renderer`` with mujoco.Renderer's API (renderer.py),
drawn on the CPU by numba kernels (raster.py) from the model's visible geometry (scene.py) seen
by a model or free camera (camera.py). No display, no OpenGL, pip-only dependencies."""
from .renderer import Renderer  # noqa: F401

__all__ = ["Renderer"]
