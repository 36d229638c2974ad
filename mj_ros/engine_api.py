"""The engine's option flags by their MJCF names, for the node's `disable` parameter and the
replay's --disable option. Nothing here imports the official `mujoco`."""
from __future__ import annotations


def disable_mask(mj, names) -> int:
    """The bit mask of mjtDisableBit for MJCF <flag> names ('contact', 'equality', ...)."""
    known = {k[len("mjDSBL_"):].lower(): int(v) for k, v in mj.mjtDisableBit.__members__.items()
             if k.startswith("mjDSBL_")}
    mask = 0
    for name in names:
        bit = known.get(str(name).strip().lower())
        if bit is None:
            raise ValueError(f"unknown disable flag '{name}' (known: {', '.join(sorted(known))})")
        mask |= bit
    return mask
