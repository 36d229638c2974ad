"""Where a step's time goes: `perf` samples of the engine's compiled kernels (or of mujoco's C
functions) while mj_step runs in a Python loop (not a test; issue 18's profile).

    .venv/bin/python bench/profile.py MODEL [--mujoco] [--contacts off] [--seconds S]
                                            [--nstep K] [--top N]

Numba's machine code has no symbol file, so before sampling this writes /tmp/perf-PID.map (the
format perf reads for JIT code: start, size, name per line) from every function defined in
numba's JIT engine: each separately compiled kernel (`engine._jit`: the stages, colliders,
solver parts) shows up under its module and name; kernels inlined into their callers count as
the caller. Samples are then grouped by function (`perf report --sort sym`), self time only.
On a loaded machine the shares stay meaningful where absolute times do not. Needs `perf`
(cpu-clock sampling works in a VM) and kernel.perf_event_paranoid <= 2. The map file is removed
at the end.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _demangle(name: str) -> str:
    """engine.module.function from numba's Itanium-style mangled name (_ZN<len><part>...)."""
    if not name.startswith("_ZN"):
        return name
    s, i, parts = name[3:], 0, []
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        n = int(s[i:j])
        parts.append(s[j:j + n])
        i = j + n
    return ".".join(parts) or name


def write_perf_map() -> Path:
    """/tmp/perf-PID.map of the functions numba's JIT engine holds (each one's size: up to the
    next function's start)."""
    from numba.core.registry import cpu_target
    eng = cpu_target.target_context.codegen()._engine
    syms = {}
    for name in eng._defined_symbols:
        if name.startswith(".") or "NumbaEnv" in name:
            continue
        addr = eng.get_function_address(name)
        if addr:
            syms[addr] = _demangle(name)
    addrs = sorted(syms)
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    with path.open("w") as f:
        for k, a in enumerate(addrs):
            size = min((addrs[k + 1] - a) if k + 1 < len(addrs) else 4096, 1 << 18)
            f.write(f"{a:x} {size:x} {syms[a]}\n")
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--mujoco", action="store_true", help="profile the official mujoco instead")
    ap.add_argument("--contacts", choices=("on", "off"), default="on",
                    help="off: contacts and limits disabled by flag (bench/step.py's free set)")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--nstep", type=int, default=1, help="steps per mj_step call")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    if a.mujoco:
        import mujoco as lib
    else:
        import engine as lib
    m = lib.MjModel.from_xml_path(a.model)
    if a.contacts == "off":
        m.opt.disableflags |= (1 << 4) | (1 << 3)     # mjDSBL_CONTACT | mjDSBL_LIMIT
    d = lib.MjData(m)
    if m.nkey:
        lib.mj_resetDataKeyframe(m, d, 0)
    lib.mj_step(m, d, 200)      # compile or load the kernels; contacts settle
    perf_map = None if a.mujoco else write_perf_map()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "perf.data")
        rec = subprocess.Popen(["perf", "record", "-F", "2000", "-o", out, "-p", str(os.getpid())],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)         # perf attaches
        t0, n = time.perf_counter(), 0
        while time.perf_counter() - t0 < a.seconds:
            lib.mj_step(m, d, a.nstep)
            n += a.nstep
        dt = time.perf_counter() - t0
        rec.send_signal(signal.SIGINT)
        rec.wait()
        rep = subprocess.run(["perf", "report", "-i", out, "--stdio", "--no-children",
                              "--sort", "sym"], capture_output=True, text=True)
    if perf_map is not None:
        perf_map.unlink()
    print(f"{a.model}: {'mujoco' if a.mujoco else 'engine'} {dt / n * 1e6:.1f} us/step "
          f"(wall clock, while sampled) nv={m.nv} ncon={d.ncon} nefc={d.nefc}")
    lines = [x for x in rep.stdout.splitlines() if x.strip() and not x.startswith("#")]
    print("\n".join(lines[:a.top]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
