"""Run one of gymnasium's MuJoCo environments for a fixed episode and print what it returned.

    python gym_run.py ENV_ID STEPS BACKEND [FRAMES.npz]     (BACKEND: "engine" or "mujoco")

With BACKEND "engine" the engine is put in place of `mujoco` (``sys.modules["mujoco"] =
engine``) before gymnasium is imported, as a user trying the engine as a drop-in would; nothing
else changes. The episode: reset with seed 0, then STEPS steps with actions drawn up front from
``numpy.random.default_rng(0)`` inside the action space (so both backends get the same actions),
stepping on through terminations. Prints one JSON object: observations (reset + each step),
rewards, terminated flags. With FRAMES.npz the environment is made with render_mode="rgb_array"
and the frames env.render() returns after the reset and after the last step are saved there
("first", "last"; with BACKEND "mujoco" set MUJOCO_GL, e.g. egl). Used by test_gymnasium_dropin.py in a subprocess, so the module
substitution never reaches other tests.
"""
from __future__ import annotations

import json
import os
import sys

SCALE = float(os.environ.get("GYM_RUN_SCALE", "0.5"))


def main(env_id, steps, backend, frames=None):
    if backend == "engine":
        import engine
        sys.modules["mujoco"] = engine
    import gymnasium as gym
    import numpy as np

    env = gym.make(env_id, render_mode="rgb_array" if frames else None,
                   disable_env_checker=True)
    mj = sys.modules["mujoco"]
    space = env.action_space
    rng = np.random.default_rng(0)
    mid, half = (space.high + space.low) / 2, (space.high - space.low) / 2
    actions = (mid + SCALE * half * rng.uniform(-1, 1, size=(steps,) + space.shape)).astype(space.dtype)
    obs, _ = env.reset(seed=0)
    first = env.render() if frames else None
    out = {"backend": mj.__name__, "version": mj.__version__,
           "obs": [obs.tolist()], "reward": [], "terminated": []}
    for a in actions:
        obs, reward, terminated, _, _ = env.step(a)
        out["obs"].append(np.asarray(obs).tolist())
        out["reward"].append(float(reward))
        out["terminated"].append(bool(terminated))
    if frames:
        np.savez(frames, first=first, last=env.render())
    env.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], *sys.argv[4:5])
