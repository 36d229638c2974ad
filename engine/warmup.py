"""Compile (and cache) every numba kernel the pipeline uses, once: ``python -m engine.warmup``.

The first call into the compiled pipeline otherwise pays the compile time (about 10 minutes on 2
cores, half of it LLVM optimising) in the middle of whatever runs first: a ROS node's first step, a test's deadline. Numba
specialises kernels on argument types only, and every model's arenas have the same types, so one
small model that takes every branch-independent path compiles everything; later processes load
the machine code from the cache (seconds).
"""
import sys
import time

import numpy as np

# A model touching every stage: all joint types, fixed and spatial tendons, each actuator family,
# sensors of every stage, fluid drag, gravity compensation, a mocap body, cameras and lights.
WARMUP_XML = """
<mujoco model="warmup">
  <option density="1.2" viscosity="0.001"><flag contact="disable" energy="enable"/></option>
  <worldbody>
    <light pos="0 0 3"/>
    <body name="mocap" mocap="true" pos="1 0 1"/>
    <body name="free" pos="0 0 1" gravcomp="0.5">
      <freejoint/>
      <geom type="box" size=".1 .05 .03" fluidshape="ellipsoid"/>
      <site name="s0"/>
      <camera name="cam" mode="trackcom"/>
      <body name="ball" pos=".2 0 0">
        <joint name="ball" type="ball" damping=".1" stiffness="1"/>
        <geom type="capsule" size=".02" fromto="0 0 0 .2 0 0"/>
        <body name="hinge" pos=".2 0 0">
          <joint name="hinge" axis="0 1 0" damping=".2" armature=".01"/>
          <geom type="capsule" size=".02" fromto="0 0 0 0 0 -.2"/>
          <site name="s1" pos="0 0 -.2"/>
          <body name="slide" pos="0 0 -.2">
            <joint name="slide" type="slide" axis="1 0 0" stiffness="5"/>
            <geom name="wrap" type="sphere" size=".03"/>
            <site name="s2" pos=".05 0 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fixed"><joint joint="hinge" coef="1"/><joint joint="slide" coef=".5"/></fixed>
    <spatial name="spatial" stiffness="10" damping=".1">
      <site site="s0"/><site site="s1"/><geom geom="wrap"/><site site="s2"/>
    </spatial>
  </tendon>
  <actuator>
    <motor name="motor" joint="hinge" gear="2"/>
    <position joint="slide" kp="50" kv="2"/>
    <velocity joint="hinge" kv="3"/>
    <intvelocity joint="slide" kp="10" actrange="-1 1"/>
    <general tendon="fixed" dyntype="filter" dynprm=".1" gaintype="affine" biastype="affine"/>
    <muscle tendon="spatial" lengthrange=".2 .6"/>
    <cylinder joint="hinge" timeconst=".1"/>
    <damper joint="slide" kv="1" ctrlrange="0 1"/>
    <general site="s2" refsite="s0" gear="1 0 0 0 0 0"/>
  </actuator>
  <sensor>
    <accelerometer site="s1"/><gyro site="s1"/><force site="s1"/><torque site="s1"/>
    <velocimeter site="s1"/><magnetometer site="s1"/><framequat objtype="site" objname="s1"/>
    <framelinacc objtype="body" objname="hinge"/><frameangacc objtype="body" objname="hinge"/>
    <framelinvel objtype="site" objname="s2" reftype="body" refname="ball"/>
    <jointpos joint="hinge"/><jointvel joint="slide"/><ballquat joint="ball"/>
    <ballangvel joint="ball"/><tendonpos tendon="spatial"/><tendonvel tendon="fixed"/>
    <actuatorfrc actuator="motor"/><jointactuatorfrc joint="hinge"/><subtreecom body="ball"/>
    <subtreelinvel body="ball"/><subtreeangmom body="ball"/><clock/>
    <e_potential/><e_kinetic/>
  </sensor>
</mujoco>
"""


def warmup(verbose=True):
    """Compile the pipeline on WARMUP_XML: forward, inverse and each integrator's step."""
    from pathlib import Path

    import numba

    import engine

    from engine import forward

    cache = numba.config.CACHE_DIR
    # numba keeps a source tree's kernels in a directory of their own under the cache (per
    # checkout path), made when the kernels are defined; its index files (.nbi) appear only
    # once something was compiled into it
    try:
        here = Path(forward.run._cache._cache_path)
    except AttributeError:      # another numba's internals: look anywhere in the cache
        here = Path(cache)
    if verbose and not any(here.rglob("*.nbi")):
        print(f"engine: compiling the numba kernels once for this machine (about 10 minutes on 2 "
              f"cores); later runs load them from {cache} in seconds", flush=True)
    t = time.perf_counter()
    m = engine.MjModel.from_xml_string(WARMUP_XML)
    d = engine.MjData(m)
    d.ctrl[:] = 0.1
    for integrator in (0, 1, 2, 3):  # Euler, RK4, implicit, implicitfast
        m.opt.integrator = integrator
        if integrator in (2, 3):
            m.opt.density = m.opt.viscosity = 0.0  # fluid derivatives are not implemented yet
        engine.mj_resetData(m, d)
        engine.mj_forward(m, d)
        engine.mj_step(m, d)
        engine.mj_step(m, d, 2)
    engine.mj_inverse(m, d)
    if verbose:
        print(f"engine kernels compiled/loaded in {time.perf_counter() - t:.1f} s")
    return bool(np.all(np.isfinite(d.qpos)))


if __name__ == "__main__":
    sys.exit(0 if warmup() else 1)
