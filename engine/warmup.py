"""Compile (and cache) every numba kernel the pipeline uses, once: ``python -m engine.warmup``.

The first call into the compiled pipeline otherwise pays the compile time in the middle of
whatever runs first: a ROS node's first step, a test's deadline. Numba specialises kernels on
argument types only, and every model's arenas have the same types, so one small model that takes
every branch-independent path compiles everything; later processes load the machine code from
the cache (about a second). Kernels are cached one by one (engine._jit): after an edit, only
the kernels built from the edited file compile again.

On a machine with several cores the cold compile runs in worker processes, which take the
pipeline's stages from a list (PLAN, leaves first) one at a time, each kernel compiled once
(the cache's per-kernel lock makes a worker wait for a kernel another one is compiling, then
load it). Then this process loads everything and runs the model.

    python -m engine.warmup [--jobs N] [--quiet]

The progress line shows the kernels ready, their total and an estimate of the time left (the
estimate weighs each kernel by its source lines).
"""
import argparse
import os
import selectors
import subprocess
import sys
import tempfile
import time

import numpy as np

# A model touching every stage: all joint types, fixed and spatial tendons, each actuator family,
# sensors of every stage, fluid drag, gravity compensation, a mocap body, cameras and lights.
WARMUP_XML = """
<mujoco model="warmup">
  <option density="1.2" viscosity="0.001"><flag contact="disable" energy="enable"/></option>
  <asset>
    <!-- a mesh: compiles the compiler's mesh kernels (engine/compiler/mesh_kernels.py) -->
    <mesh name="tet" vertex="0 0 0  .05 0 0  0 .05 0  0 0 .05"/>
    <!-- gradient textures with random marks: engine/compiler/texture_gradient.py, mt64.py -->
    <texture type="skybox" builtin="gradient" width="2" mark="random" random=".5"/>
    <texture name="grad" type="2d" builtin="gradient" width="2" height="2"/>
  </asset>
  <worldbody>
    <light pos="0 0 3"/>
    <body name="mocap" mocap="true" pos="1 0 1"/>
    <body name="free" pos="0 0 1" gravcomp="0.5">
      <freejoint/>
      <geom type="box" size=".1 .05 .03" fluidshape="ellipsoid"/>
      <geom type="mesh" mesh="tet" pos="0 0 .05"/>
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

# The work of a parallel cold compile, in the order workers take it: (module, kernel) of the
# pipeline's stages called as f(M, D), leaves first, so that a stage's callees are mostly
# compiled (and cached) by the time a worker takes the stage; the largest first among
# independent ones. MODEL (the warm-up model, which compiles whatever is left: engine.forward.run
# and the Python-facing entries) comes last. A worker that needs a kernel another is compiling
# waits for it (engine._jit's per-kernel lock) and loads it.
MODEL = ("engine.warmup", "run_model")
# Kernels the pipeline never calls: the mju_* utilities of the public API (for users' code and
# kernels). They compile on first use (all of them in about 20 s) and are not counted in the
# progress line.
ON_DEMAND = ("engine.mju", "engine.boxqp",
             # the renderer (engine.Renderer): compiled on first use; the node compiles it at
             # start-up when cameras are on (mj_ros/cameras.py), the physics never needs it
             "engine.render.raster")
PLAN = [
    ("engine.collision", "collision"), ("engine.solver", "solve"),
    ("engine.constraint", "make_constraint"), ("engine.sensor", "sensor_pos"),
    ("engine.smooth", "fwd_position_smooth"), ("engine.sensor", "sensor_acc"),
    ("engine.sensor", "sensor_vel"), ("engine.passive", "passive"),
    ("engine.smooth", "fwd_velocity_smooth"), ("engine.smooth", "rne_post_constraint"),
    ("engine.actuation", "fwd_actuation"), ("engine.island", "island"),
    ("engine.constraint", "reference_constraint"), ("engine.inverse", "inverse_constraint"),
    ("engine.sensor", "energy_pos"), ("engine.sensor", "energy_vel"),
    ("engine.sleep", "sleep"), ("engine.sleep", "wake"), ("engine.sleep", "wake_collision"),
    ("engine.smooth", "subtree_vel"), ("engine.smooth", "constraint_forces_ext"),
    ("engine.forward", "fwd_position"), ("engine.forward", "fwd_velocity"),
    ("engine.forward", "fwd_acceleration"), ("engine.forward", "fwd_constraint"),
    ("engine.forward", "implicit"), ("engine.forward", "rk4"), ("engine.forward", "euler"),
    ("engine.forward", "reset_data"), ("engine.forward", "check_acc"),
    MODEL,
]


def run_model(m=None):
    """Compile (or load) the pipeline by running WARMUP_XML: forward, inverse and each
    integrator's step. True when the state stays finite."""
    import engine
    if m is None:
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
    return bool(np.all(np.isfinite(d.qpos)))


def _arena_type():
    """numba's type of a model's or data's arena tuple (engine._layout.Arena.buffers), built
    from empty buffers: no model needed, so nothing runs (and compiles) before the workers."""
    import numba
    return numba.typeof((np.zeros(1), np.zeros(1, np.int32), np.zeros(1, np.uint8),
                         np.zeros((3, 1), np.int64)))


def _compile_target(module, name, arena):
    """Compile one PLAN entry: a stage for two arenas, or the warm-up model."""
    import importlib
    if (module, name) == MODEL:
        return run_model()
    getattr(importlib.import_module(module), name).compile((arena, arena))
    return True


def _kernel_weights():
    """{kernel name: weight} for every kernel of the engine: its source lines."""
    import importlib
    import pkgutil

    import engine
    from engine import _jit
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if info.name != "engine.warmup":
            importlib.import_module(info.name)
    out = {}
    for disp in _jit.KERNELS:
        if disp.py_func.__module__ in ON_DEMAND:
            continue
        code = disp.py_func.__code__
        last = max((line for _, _, line in code.co_lines() if line), default=code.co_firstlineno)
        out[_jit.kernel_name(disp)] = last - code.co_firstlineno + 1
    return out


class Progress:
    """The warm-up's progress line: kernels ready / total, elapsed, estimated time left.
    On a terminal one line redrawn in place; otherwise a line every ``every`` seconds."""

    def __init__(self, weights, stream=sys.stderr, every=15.0):
        self.weights, self.total = weights, sum(weights.values())
        self.ready, self.done = set(), 0
        self.stream, self.tty = stream, stream.isatty()
        self.t0 = time.perf_counter()
        self.every, self.last = every, self.t0

    def add(self, name):
        if name in self.ready:
            return
        self.ready.add(name)
        self.done += self.weights.get(name, 0)
        now = time.perf_counter()
        if self.tty or now - self.last >= self.every:
            self.last = now
            self.draw(now)

    def draw(self, now=None, end=False):
        now = time.perf_counter() if now is None else now
        el = now - self.t0
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        left = "" if end or frac <= 0.02 else f", about {_mmss(el * (1 - frac) / frac)} left"
        line = (f"engine: compiling kernels [{bar}] {len(self.ready)}/{len(self.weights)}, "
                f"{_mmss(el)} elapsed{left}")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if end else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _mmss(s):
    return f"{int(s) // 60}:{int(s) % 60:02d}"


def _workers(jobs, progress):
    """Run ``jobs`` worker processes over PLAN: each takes the next entry when it finished its
    last (a worker reads entries on its stdin and answers with the kernels it readied, then
    a line "done", or "failed" when the warm-up model went non-finite). Feeds the ready
    kernels to ``progress``. True when every worker and entry succeeded."""
    # stderr to files: a pipe nobody reads until the end could fill and stall a worker
    errs = [tempfile.TemporaryFile() for _ in range(min(jobs, len(PLAN)))]
    procs = [subprocess.Popen([sys.executable, "-m", "engine.warmup", "--worker"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
             for err in errs]
    try:
        return _schedule(procs, errs, progress)
    finally:        # interrupted (Ctrl-C): no worker outlives the warm-up
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def _schedule(procs, errs, progress):
    todo = list(PLAN)
    failed = False
    sel = selectors.DefaultSelector()

    def give(p):
        if todo:
            p.stdin.write(("%s %s\n" % todo.pop(0)).encode())
            p.stdin.flush()
        else:
            p.stdin.close()

    pending = {}
    for p in procs:
        sel.register(p.stdout, selectors.EVENT_READ, p)
        pending[p] = b""
        give(p)
    open_ = len(procs)
    while open_:
        for key, _ in sel.select():
            # raw reads split into lines here: a buffered readline could keep a second line
            # in its buffer, which select() would then never report
            p = key.data
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_ -= 1
                continue
            *lines, pending[p] = (pending[p] + chunk).split(b"\n")
            for line in lines:
                if line in (b"done", b"failed"):
                    failed = failed or line == b"failed"
                    give(p)
                elif progress is not None:
                    progress.add(line.decode().strip())
    ok = True
    for k, (p, f) in enumerate(zip(procs, errs)):
        p.wait()
        f.seek(0)
        err = f.read().decode(errors="replace")
        if os.environ.get("MJ_ROS_WARMUP_DEBUG"):
            sys.stderr.write(err)
        if p.wait() != 0:
            ok = False
            sys.stderr.write(f"engine.warmup: worker {k} failed:\n{err[-2000:]}\n")
    return ok and not failed


def warmup(verbose=True, jobs=None):
    """Compile or load every kernel of the pipeline; True when the warm-up model stays finite.
    ``jobs``: worker processes for a cold compile (default: the processors this process may
    use, at most 8; 1 compiles here)."""
    from engine import _jit

    if jobs is None:
        jobs = int(os.environ.get("MJ_ROS_COMPILE_JOBS", "0")) or min(
            8, len(os.sched_getaffinity(0)))
    weights = _kernel_weights()
    cold = not _jit.is_warm()
    progress = Progress(weights) if verbose else None
    t = time.perf_counter()
    if verbose and cold:
        print(f"engine: compiling the numba kernels for this machine ({jobs} process"
              f"{'es' if jobs > 1 else ''}, about 1.5 minutes on 2 cores); later runs load them from "
              f"{_jit.cache_dir()} in about a second", file=sys.stderr, flush=True)
    # the workers run the warm-up model last; a failed worker leaves its kernels to this process
    ok = cold and jobs > 1 and _workers(jobs, progress)
    if not ok:
        if progress is not None:
            _jit.on_ready = progress.add
        try:
            ok = run_model()
        finally:
            _jit.on_ready = None
    if ok:
        _jit.mark_warm()
    if progress is not None and cold:
        progress.draw(end=True)
        print(f"engine: kernels ready in {time.perf_counter() - t:.1f} s", file=sys.stderr,
              flush=True)
    return ok


def ensure(verbose=True, jobs=None):
    """Compile the kernels first if this machine has not yet (or the engine's sources changed
    since): what a program calls before its first step, so that a cold start shows progress
    instead of stalling. Warm, it costs a stamp check (milliseconds): the kernels then load
    on first use. True unless a cold warm-up's model went non-finite."""
    from engine import _jit
    if _jit.is_warm():
        return True
    return warmup(verbose=verbose, jobs=jobs)


def _worker():
    """A worker of a parallel cold compile: compiles the PLAN entries it reads on stdin, and
    prints each kernel it readies and "done" after each entry."""
    from engine import _jit
    _jit.on_ready = lambda name: print(name, flush=True)
    arena = _arena_type()
    t, ok = time.perf_counter(), True
    debug = os.environ.get("MJ_ROS_WARMUP_DEBUG")
    for line in sys.stdin:
        module, name = line.split()
        t1 = time.perf_counter()
        good = _compile_target(module, name, arena)
        ok = ok and good
        if debug:
            print(f"  {name}: {time.perf_counter() - t1:.1f} s", file=sys.stderr)
        print("done" if good else "failed", flush=True)
    if debug:
        print(f"worker: {time.perf_counter() - t:.1f} s, waited {_jit.LOCK_WAIT[0]:.1f} s",
              file=sys.stderr)
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", "-j", type=int, default=None,
                    help="worker processes for a cold compile (default: one per processor)")
    ap.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return 0 if _worker() else 1
    return 0 if warmup(verbose=not a.quiet, jobs=a.jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
