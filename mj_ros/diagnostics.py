"""What the node reports on /diagnostics, computed without ROS (the node wraps it in messages)."""
from __future__ import annotations

import dataclasses

OK, WARN, ERROR = 0, 1, 2  # diagnostic_msgs/DiagnosticStatus levels

# mjtWarning entries that mean the engine reset a diverging simulation (names as in MuJoCo).
DIVERGENCE_WARNINGS = ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")


def divergence_indices(mj) -> list[int]:
    enum = getattr(mj, "mjtWarning", None)
    if enum is None:
        return []
    return [int(getattr(enum, n)) for n in DIVERGENCE_WARNINGS if hasattr(enum, n)]


def warning_count(d, indices) -> int:
    """How many divergence warnings the engine recorded in `d.warning` so far."""
    total = 0
    try:
        for i in indices:
            total += int(d.warning[i].number)
    except (AttributeError, IndexError, TypeError):
        return 0
    return total


def last_divergence(d, indices, mj) -> str:
    """'<warning name> (info <lastinfo>)' of the divergence warnings the engine holds now."""
    out = []
    try:
        for i in indices:
            w = d.warning[i]
            if int(w.number):
                out.append(f"{mj.mjtWarning(i).name} (info {int(w.lastinfo)})")
    except (AttributeError, IndexError, TypeError, ValueError):
        return ""
    return ", ".join(out)


def solver_iterations(d) -> int:
    """Iterations of the last constraint solve: the largest over the constraint islands
    (solver_niter has one entry per island, mjNISLAND of them, as in MuJoCo 4), or the count
    of an engine reporting a single one."""
    niter = getattr(d, "solver_niter", None)
    if niter is None:
        return 0
    try:
        return int(max(niter)) if len(niter) else 0
    except TypeError:
        return int(niter)


@dataclasses.dataclass
class SimStats:
    sim_time: float = 0.0
    steps: int = 0
    speed_target: float = 1.0
    real_time_factor: float = 0.0
    step_overruns: int = 0
    divergence_resets: int = 0
    last_divergence: str = ""   # the engine's warning for the last one, e.g. mjWARN_BADQACC
    solver_iterations: int = 0
    dropped_commands: int = 0
    paused: bool = False
    lockstep: bool = False
    new_overruns: int = 0       # since the last report
    new_divergences: int = 0    # since the last report


def report(stats: SimStats) -> tuple[int, str, list[tuple[str, str]]]:
    """(level, message, key/values) for one DiagnosticStatus."""
    level, msg = OK, "running"
    if stats.paused:
        msg = "paused"
    elif stats.lockstep:
        msg = "lockstep"
    if stats.new_overruns:
        level, msg = WARN, f"{stats.new_overruns} step overruns since the last report"
    if stats.new_divergences:
        level, msg = WARN, f"simulation diverged and was reset {stats.new_divergences} times"
    values = [
        ("sim_time", f"{stats.sim_time:.6f}"),
        ("steps", str(stats.steps)),
        ("speed_target", f"{stats.speed_target:g}"),
        ("real_time_factor", f"{stats.real_time_factor:.3f}"),
        ("step_overruns", str(stats.step_overruns)),
        ("divergence_resets", str(stats.divergence_resets)),
        ("last_divergence", stats.last_divergence),
        ("solver_iterations", str(stats.solver_iterations)),
        ("dropped_commands", str(stats.dropped_commands)),
        ("paused", str(stats.paused).lower()),
        ("lockstep", str(stats.lockstep).lower()),
    ]
    return level, msg, values
