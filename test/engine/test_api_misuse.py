"""Misuse of the public API (issue 25): no call crashes the process or silently returns a wrong
value; bad ids, sizes, shapes, dtypes and model/data pairings raise an exception naming the
argument. Each case is also run through the official mujoco 4.0.0 to record what it does.

The cases run in child processes (one for all of them, a new one after a crash), so a
segmentation fault fails the case instead of killing pytest. What mujoco 4.0.0 does, measured
here (the third column of CASES):
- TypeError for wrong shapes, dtypes, read-only or non-contiguous outputs and None (pybind11);
- FatalError where the C code calls mjERROR (an invalid object type or state signature);
- it ends the process (mju_error, exit code 1: ABORT) for a ray on a geom of the wrong type;
- IndexError / AttributeError in the bindings' named access and attributes;
- no check of ids, sizes or the model/data pairing in the raw functions (UNCHECKED: garbage
  read or written, a segfault for mj_jac with body 10^8; mj_step with the MjData of another
  model runs on).
The engine raises where mujoco raises (the same builtin class; ArgumentError is a TypeError and
a ValueError) and also where mujoco does not check.

Also here: the state fuzz (NaN / inf / 1e300 in each state field, stepped in both engines:
warnings, resets and the state after them compared field by field) and the INERTIA warning of
a massless body.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODEL = Path(__file__).resolve().parents[1] / "models" / "misuse.xml"

# Setup run in the child: `mj` is the library (engine or mujoco), m/d the misuse model, m2/d2 a
# model of other sizes.
SETUP = """
m = mj.MjModel.from_xml_path(MODEL)
d = mj.MjData(m)
mj.mj_forward(m, d)
m2 = mj.MjModel.from_xml_string(
    "<mujoco><worldbody><body><joint/><geom size='.1'/></body></worldbody></mujoco>")
d2 = mj.MjData(m2)
nv, nq = m.nv, m.nq
J = np.zeros((3, nv))
P = np.zeros(3)
"""

UNCHECKED = "unchecked"  # mujoco reads or writes out of bounds: garbage or a crash
ABORT = "abort"          # mujoco's mju_error ends the process (exit code 1)
# name: (code, engine: (exception class or "ok", argument named in the message), mujoco)
CASES = {
    # model/data pairing
    "step_other_model": ("mj.mj_step(m, d2)", ("ValueError", "d"), UNCHECKED),
    "forward_other_model": ("mj.mj_forward(m, d2)", ("ValueError", "d"), UNCHECKED),
    "step1_other_model": ("mj.mj_step1(m, d2)", ("ValueError", "d"), UNCHECKED),
    "jac_other_model": ("mj.mj_jac(m, d2, J, None, P, 1)", ("ValueError", "d"), UNCHECKED),
    "step_same_sizes": ("mj.mj_step(mj.MjModel.from_xml_path(MODEL), d)", ("ok", None), "ok"),
    "step_data_none": ("mj.mj_step(m, None)", ("TypeError", "d"), "TypeError"),
    "step_swapped": ("mj.mj_step(d, m)", ("TypeError", "m"), "TypeError"),
    "step_nstep_float": ("mj.mj_step(m, d, 1.5)", ("TypeError", "nstep"), "TypeError"),
    "step_nstep_zero": ("mj.mj_step(m, d, 0)", ("ok", None), "ok"),
    "data_of_none": ("mj.MjData(None)", ("TypeError", "m"), "TypeError"),
    # ids
    "jac_body_1e6": ("mj.mj_jac(m, d, J, None, P, 10**6)", ("IndexError", "body"), UNCHECKED),
    "jac_body_1e8": ("mj.mj_jac(m, d, J, None, P, 10**8)", ("IndexError", "body"), UNCHECKED),
    "jac_body_-1": ("mj.mj_jac(m, d, J, None, P, -1)", ("IndexError", "body"), UNCHECKED),
    "jac_body_float": ("mj.mj_jac(m, d, J, None, P, 1.5)", ("TypeError", "body"), "TypeError"),
    "jacSubtreeCom_1e6": ("mj.mj_jacSubtreeCom(m, d, J, 10**6)", ("IndexError", "body"),
                          UNCHECKED),
    "jacPointAxis_1e6": ("mj.mj_jacPointAxis(m, d, J, J.copy(), P, np.ones(3), 10**6)",
                         ("IndexError", "body"), UNCHECKED),
    "jacBody_-1": ("mj.mj_jacBody(m, d, J, None, -1)", ("IndexError", "body"), UNCHECKED),
    "jacBodyCom_1e8": ("mj.mj_jacBodyCom(m, d, J, None, 10**8)", ("IndexError", "body"),
                       UNCHECKED),
    "jacGeom_-1": ("mj.mj_jacGeom(m, d, J, None, -1)", ("IndexError", "geom"), UNCHECKED),
    "jacGeom_1e6": ("mj.mj_jacGeom(m, d, J, None, 10**6)", ("IndexError", "geom"), UNCHECKED),
    "jacSite_5": ("mj.mj_jacSite(m, d, J, None, 5)", ("IndexError", "site"), UNCHECKED),
    "objectVelocity_id": ("mj.mj_objectVelocity(m, d, 1, 100, np.zeros(6), 0)",
                          ("IndexError", "objid"), UNCHECKED),
    "objectVelocity_type": ("mj.mj_objectVelocity(m, d, 3, 0, np.zeros(6), 0)",
                            ("ValueError", "objtype"), "FatalError"),
    "geomDistance_id": ("mj.mj_geomDistance(m, d, 0, 100, 1.0, None)", ("IndexError", "geom2"),
                        UNCHECKED),
    "contactForce_id": ("mj.mj_contactForce(m, d, 100, np.zeros(6))", ("IndexError", "id"),
                        UNCHECKED),
    "resetDataKeyframe_id": ("mj.mj_resetDataKeyframe(m, d, 5)", ("IndexError", "key"), "ok"),
    "named_joint_id": ("d.joint(100)", ("IndexError", None), "IndexError"),
    "named_body_float": ("m.body(1.5)", ("TypeError", "id"), "TypeError"),
    "name2id_type": ("assert mj.mj_name2id(m, 1000, 'ball') == -1", ("ok", None), "ok"),
    "id2name_id": ("assert mj.mj_id2name(m, 1, 1000) is None", ("ok", None), "ok"),
    "stateSize_spec": ("mj.mj_stateSize(m, 1 << 30)", ("ValueError", "spec"), "FatalError"),
    # rays on geoms of the wrong type
    "rayHfield_plane": ("mj.mj_rayHfield(m, d, 0, np.array([0, 0, 1.]), np.array([0, 0, -1.]),"
                        " None)", ("ValueError", "geomid"), ABORT),
    "rayHfield_-1": ("mj.mj_rayHfield(m, d, -1, np.array([0, 0, 1.]), np.array([0, 0, -1.]),"
                     " None)", ("IndexError", "geomid"), ABORT),
    "rayHfield_hfield": ("x = mj.mj_rayHfield(m, d, 1, np.array([-1.5, 0, 1.]), "
                         "np.array([0, 0, -1.]), None); assert abs(x - 1.0) < 1e-9",
                         ("ok", None), "ok"),
    "rayMesh_sphere": ("mj.mj_rayMesh(m, d, 4, np.array([0, 0, 1.]), np.array([0, 0, -1.]), "
                       "None)", ("ValueError", "geomid"), ABORT),
    "rayGeom_type": ("mj.mju_rayGeom(P, np.eye(3).ravel(), np.ones(3), np.array([0, 0, 3.]), "
                     "np.array([0, 0, -1.]), 99)", ("ValueError", "geomtype"), ABORT),
    "ray_bodyexclude_1e6": ("mj.mj_ray(m, d, np.array([0, 0, .5]), np.array([0, 0, -1.]), None,"
                            " 1, 10**6, np.zeros(1, np.int32))", ("ok", None), "ok"),
    # shapes, dtypes, layouts, None
    "jac_shape": ("mj.mj_jac(m, d, np.zeros((3, nv + 1)), None, P, 1)", ("TypeError", "jacp"),
                  "TypeError"),
    "jac_transposed": ("mj.mj_jac(m, d, np.zeros((nv, 3)), None, P, 1)", ("TypeError", "jacp"),
                       "TypeError"),
    "jac_float32": ("mj.mj_jac(m, d, np.zeros((3, nv), np.float32), None, P, 1)",
                    ("TypeError", "jacp"), "TypeError"),
    "jac_noncontiguous": ("mj.mj_jac(m, d, np.zeros((3, 2 * nv))[:, ::2], None, P, 1)",
                          ("TypeError", "jacp"), "TypeError"),
    "jac_list": ("mj.mj_jac(m, d, [[0.0] * nv] * 3, None, P, 1)", ("TypeError", "jacp"),
                 "TypeError"),
    "jac_point_short": ("mj.mj_jac(m, d, J, None, np.zeros(2), 1)", ("TypeError", "point"),
                        "TypeError"),
    "jac_point_none": ("mj.mj_jac(m, d, J, None, None, 1)", ("TypeError", "point"), "TypeError"),
    "jacr_readonly": ("r = np.zeros((3, nv)); r.flags.writeable = False; "
                      "mj.mj_jac(m, d, None, r, P, 1)", ("TypeError", "jacr"), "TypeError"),
    "fullM_shape": ("mj.mj_fullM(m, d, np.zeros((nv, nv + 1)))", ("TypeError", "dst"),
                    "TypeError"),
    "mulM_res": ("mj.mj_mulM(m, d, np.zeros(nv + 1), np.zeros(nv))", ("TypeError", "res"),
                 "TypeError"),
    "mulM_vec": ("mj.mj_mulM(m, d, np.zeros(nv), np.zeros(nv - 1))", ("TypeError", "vec"),
                 "TypeError"),
    "solveM_rows": ("mj.mj_solveM(m, d, np.zeros((2, nv)), np.zeros((3, nv)))",
                    ("TypeError", "y"), "TypeError"),
    "addM_shape": ("mj.mj_addM(m, d, np.zeros((nv, nv + 1)), None, None, None)",
                   ("TypeError", "dst"), "TypeError"),
    "objectVelocity_res": ("mj.mj_objectVelocity(m, d, 1, 1, np.zeros(5), 0)",
                           ("TypeError", "res"), "TypeError"),
    "integratePos_qpos": ("mj.mj_integratePos(m, np.zeros(nq - 1), np.zeros(nv), 0.1)",
                          ("TypeError", "qpos"), "TypeError"),
    "differentiatePos_qpos2": ("mj.mj_differentiatePos(m, np.zeros(nv), 0.1, np.zeros(nq), "
                               "np.zeros(nq + 1))", ("TypeError", "qpos2"), "TypeError"),
    "getState_size": ("mj.mj_getState(m, d, np.zeros(3), 1)", ("TypeError", "state"),
                      "TypeError"),
    "setState_size": ("mj.mj_setState(m, d, np.zeros(3), 1)", ("TypeError", "state"),
                      "TypeError"),
    "ray_pnt": ("mj.mj_ray(m, d, np.zeros(2), P, None, 1, -1, np.zeros(1, np.int32))",
                ("TypeError", "pnt"), "TypeError"),
    "ray_geomid": ("mj.mj_ray(m, d, P, np.array([0, 0, -1.]), None, 1, -1, "
                   "np.zeros(2, np.int32))", ("TypeError", "geomid"), "TypeError"),
    "ray_geomgroup": ("mj.mj_ray(m, d, P, np.array([0, 0, -1.]), np.zeros(3, np.uint8), 1, -1,"
                      " np.zeros(1, np.int32))", ("TypeError", "geomgroup"), "TypeError"),
    "rne_result": ("mj.mj_rne(m, d, 1, np.zeros(nv + 2))", ("TypeError", "result"),
                   "TypeError"),
    # attributes
    "set_size_field": ("m.nq = 1000", ("AttributeError", "nq"), "AttributeError"),
    "set_data_typo": ("d.qpos_typo = 1", ("AttributeError", "qpos_typo"), "AttributeError"),
    "set_model_typo": ("m.body_mas = 1", ("AttributeError", "body_mas"), "AttributeError"),
    "get_data_typo": ("d.foo", ("AttributeError", "foo"), "AttributeError"),
    "set_option_typo": ("m.opt.timestp = 0.1", ("AttributeError", "timestp"), "AttributeError"),
    "set_data_model": ("d.model = m2", ("AttributeError", "model"), "AttributeError"),
    # a count past the arrays' capacity would let a kernel read beyond them (mujoco accepts it)
    "set_data_count": ("d.ncon = 10**6", ("AttributeError", "ncon"), UNCHECKED),
    "set_qpos_wrong_size": ("d.qpos = np.zeros(3)", ("ValueError", None), "ValueError"),
}
# for test_runner_reports_a_crash only
RUNNER_CASES = {"_segfault": ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", None,
                              None)}


def _child(lib, names):
    """Run the cases ``names`` with ``lib`` ('engine' or 'mujoco'), one JSON line each."""
    np.seterr(all="ignore")
    mj = __import__(lib)
    env = {"mj": mj, "np": np, "MODEL": str(MODEL)}
    exec(SETUP, env)
    for name in names:
        local = dict(env)
        try:
            exec({**CASES, **RUNNER_CASES}[name][0], local)
            out = {"name": name, "raised": None, "msg": ""}
        except BaseException as e:  # noqa: BLE001 -- every outcome is recorded
            out = {"name": name, "raised": [c.__name__ for c in type(e).__mro__],
                   "msg": str(e)[:300]}
        print(json.dumps(out), flush=True)


def run_cases(lib, names):
    """{case: outcome} for ``lib``; a case whose process died is {"crash": returncode}, and
    the cases after it run in a new process."""
    results, todo = {}, list(names)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    while todo:
        code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
                f"import test_api_misuse as t; t._child({lib!r}, {todo!r})")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=ROOT, env=env, timeout=600)
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                results[r["name"]] = r
        done = [n for n in todo if n in results]
        rest = todo[len(done):]
        if not rest:
            break
        if p.returncode == 0:
            raise RuntimeError(f"{lib} child stopped without reporting {rest[0]}:\n{p.stderr}")
        results[rest[0]] = {"name": rest[0], "crash": p.returncode, "msg": p.stderr[-300:]}
        todo = rest[1:]
    return results


@pytest.fixture(scope="module")
def engine_results():
    return run_cases("engine", list(CASES))


@pytest.fixture(scope="module")
def mujoco_results():
    pytest.importorskip("mujoco")
    return run_cases("mujoco", list(CASES))


@pytest.mark.parametrize("name", list(CASES))
def test_misuse(name, engine_results, mujoco_results):
    """The engine survives the call and raises the stated exception naming the argument;
    where mujoco raises, the engine's exception is of mujoco's builtin class too."""
    code, (exc, arg), mj_expect = CASES[name]
    r = engine_results[name]
    assert "crash" not in r, f"{name}: the engine process died ({r['crash']}): {r['msg']}"
    if exc == "ok":
        assert r["raised"] is None, f"{name}: unexpected {r['raised'][0]}: {r['msg']}"
    else:
        assert r["raised"] is not None, f"{name}: `{code}` raised nothing"
        assert exc in r["raised"], f"{name}: raised {r['raised'][0]} ({r['msg']}), not {exc}"
        if arg is not None:
            assert re.search(rf"\b{re.escape(arg)}\b", r["msg"]), \
                f"{name}: the message does not name '{arg}': {r['msg']}"
    q = mujoco_results[name]
    if mj_expect == "ok":
        assert q.get("raised") is None and "crash" not in q, f"{name}: mujoco: {q}"
    elif mj_expect == ABORT:
        assert q.get("crash") == 1 and "ERROR" in q["msg"], f"{name}: mujoco: {q}"
    elif mj_expect != UNCHECKED:
        assert "crash" not in q and q["raised"] is not None and mj_expect in q["raised"], \
            f"{name}: mujoco 4.0.0 was measured to raise {mj_expect}, now: {q}"
        builtin = {"TypeError", "ValueError", "IndexError", "AttributeError"}
        if mj_expect in builtin:
            assert mj_expect in r["raised"], f"{name}: mujoco raises {mj_expect}, engine " \
                                             f"{r['raised'][0]}"


def test_runner_reports_a_crash():
    """The subprocess runner turns a dying process into a failed case, and goes on."""
    res = run_cases("engine", ["_segfault", "step_nstep_zero"])
    assert res["_segfault"]["crash"] == -11
    assert res["step_nstep_zero"]["raised"] is None


# =============================================================================================
# state fuzz: NaN / inf / 1e300 in each state field, stepped in both engines
# =============================================================================================

STATE_FIELDS = {
    # field: indices set (the ctrl of each actuator kind; xfrc of the mocap body and the static
    # body, which have no dofs, and of the arm; both a horizontal and the vertical mocap
    # coordinate: the ball's contact with the mocap geom)
    "qpos": [0, 7], "qvel": [0, 6], "act": [0], "ctrl": [0, 1, 2], "qacc_warmstart": [0, 6],
    "qfrc_applied": [0, 6], "xfrc_applied": [(1, 0), (2, 3), (4, 4)],
    "mocap_pos": [(0, 0), (0, 2)], "mocap_quat": [(0, 0)], "time": [None],
}
BAD = (np.nan, np.inf, -np.inf, 1e300)


def _fuzz_case(lib, m, d, field, idx, val, nstep=2):
    """Step twice, set the value, step twice more: per step the warnings, qpos, qvel and the
    field."""
    for _ in range(2):
        lib.mj_step(m, d)
    if field == "time":
        d.time = val
    else:
        getattr(d, field)[idx] = val
    out = []
    for _ in range(nstep):
        lib.mj_step(m, d)
        fv = d.time if field == "time" else np.array(getattr(d, field), copy=True)
        out.append(([(w.number, w.lastinfo) for w in d.warning][:7], d.qpos.copy(),
                    d.qvel.copy(), fv, d.time))
    return out


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
def test_state_fuzz_warnings_and_resets_match_mujoco(integrator):
    """Each field, each bad value: the same warnings (number and lastinfo per mjtWarning: a
    bad control is counted at each of RK4's four evaluations), the same reset (or none), the
    same state after it, the field left as mujoco leaves it (ctrl as set, a NaN mocap pose
    kept)."""
    import engine
    mujoco = pytest.importorskip("mujoco")
    mjm = mujoco.MjModel.from_xml_path(str(MODEL))
    m = engine.MjModel.from_xml_path(str(MODEL))
    mjm.opt.integrator = m.opt.integrator = int(getattr(mujoco.mjtIntegrator,
                                                        f"mjINT_{integrator}"))
    checked = 0
    for field, idxs in STATE_FIELDS.items():
        for idx in idxs:
            for val in BAD:
                what = f"{integrator}: {field}[{idx}] = {val}"
                a = _fuzz_case(engine, m, engine.MjData(m), field, idx, val)
                b = _fuzz_case(mujoco, mjm, mujoco.MjData(mjm), field, idx, val)
                for s, (x, y) in enumerate(zip(a, b)):
                    assert x[0] == y[0], f"{what}, step {s}: warnings {x[0]} != mujoco {y[0]}"
                    np.testing.assert_allclose(x[1], y[1], rtol=1e-7, atol=1e-9,
                                               err_msg=f"{what}, step {s}: qpos")
                    np.testing.assert_allclose(x[2], y[2], rtol=1e-6, atol=1e-7,
                                               err_msg=f"{what}, step {s}: qvel")
                    np.testing.assert_allclose(x[3], y[3], rtol=1e-6, atol=1e-7,
                                               err_msg=f"{what}, step {s}: {field}")
                    assert x[4] == y[4] or (x[4] != x[4] and y[4] != y[4]), f"{what}: time"
                checked += 1
    assert checked == sum(len(v) for v in STATE_FIELDS.values()) * len(BAD)


def test_massless_body_warns_inertia_as_mujoco():
    """A hinge body with zero mass and inertia: MuJoCo 4.0.0 clamps the singular pivot to
    mjMINVAL and counts mjWARN_INERTIA (lastinfo: the dof) at each factorization; the state
    stays finite."""
    import engine
    mujoco = pytest.importorskip("mujoco")
    mjm = mujoco.MjModel.from_xml_path(str(MODEL))
    m = engine.MjModel.from_xml_path(str(MODEL))
    arm = mjm.body("arm").id
    out = []
    for lib, model in ((engine, m), (mujoco, mjm)):
        model.body_mass[arm] = 0.0
        model.body_inertia[arm] = 0.0
        d = lib.MjData(model)
        for _ in range(3):
            lib.mj_step(model, d)
        out.append(([(w.number, w.lastinfo) for w in d.warning][:7], d.qpos.copy(),
                    d.qacc.copy()))
    (we, qe, ae), (wm, qm, am) = out
    assert we == wm and wm[0] == (3, mjm.jnt_dofadr[mjm.joint("hinge").id])
    assert np.isfinite(qe).all() and np.isfinite(ae).all()
    np.testing.assert_allclose(qe, qm, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ae, am, rtol=1e-6, atol=1e-9)
