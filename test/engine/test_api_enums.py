"""Every mjt* enum and mj* constant the engine exports against mujoco's (names and values,
exactly), and the callback setters: None accepted everywhere; a function accepted by the
callbacks the engine calls and refused with NotImplementedError naming the callback by the others."""
from __future__ import annotations

import re

import numpy as np
import pytest

from oracle import mujoco

import engine

ENUMS = sorted(n for n in dir(mujoco) if n.startswith("mjt"))
CONSTS = sorted(n for n in dir(mujoco) if re.match(r"mj[A-Z]", n)
                and not callable(getattr(mujoco, n)))


@pytest.mark.parametrize("name", ENUMS)
def test_enum(name):
    theirs = {k: int(v) for k, v in getattr(mujoco, name).__members__.items()}
    mine = {k: int(v) for k, v in getattr(engine, name).__members__.items()}
    assert mine == theirs


@pytest.mark.parametrize("name", CONSTS)
def test_constant(name):
    theirs, mine = getattr(mujoco, name), getattr(engine, name)
    if isinstance(theirs, float):
        assert mine == pytest.approx(theirs, rel=1e-15)
    else:
        assert np.array_equal(np.asarray(mine, dtype=object), np.asarray(theirs, dtype=object))


CALLBACKS = sorted(n[4:] for n in dir(mujoco) if n.startswith("set_mjcb_")
                   or n.startswith("set_mju_user_"))


@pytest.mark.parametrize("name", CALLBACKS)
def test_callback_setters(name):
    setter, getter = getattr(engine, f"set_{name}"), getattr(engine, f"get_{name}")
    setter(None)
    assert getter() is None and getattr(mujoco, f"get_{name}")() is None
    if name == "mju_user_warning":      # (test_dropin_api covers it)
        return
    if name in ("mjcb_control", "mjcb_passive", "mjcb_sensor", "mjcb_act_dyn", "mjcb_act_gain",
                "mjcb_act_bias"):     # called by the engine (test_callbacks_physics.py)
        def fn(m, d):
            pass
        setter(fn)
        assert getter() is fn
        engine.mj_resetCallbacks()
        assert getter() is None
    else:
        with pytest.raises(NotImplementedError, match=name):
            setter(lambda *a: 0)
        assert getter() is None
    with pytest.raises(TypeError):
        setter(3)
