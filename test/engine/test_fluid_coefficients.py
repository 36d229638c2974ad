"""engine.compiler.fluid.geom_fluid_coefficients against mjModel.geom_fluid of the official mujoco.

Each geom row compiled by mujoco is recomputed from mujoco's own geom_type / geom_size and the
fluidcoef it stored (geom_fluid[:, 1:6]); interaction flag, coefficients, virtual mass and virtual
inertia must agree.  MuJoCo integrates the added-mass kappa integrals with a fixed 15-point
Gauss-Kronrod rule whose nodes/weights carry 8 decimals (~1e-6 from the exact integral); the
function reproduces that rule, so the comparison holds to round-off: RTOL = 1e-12 (measured
worst case ~1.2e-14 relative: virtual inertia of a near-spherical capsule, where the formula
cancels; every other value <= 3e-15).
"""
import itertools

import numpy as np
import pytest

from oracle import TEST_MODELS, mujoco, shared_model

from engine.compiler.fluid import (FLUIDSHAPE_ELLIPSOID, FLUIDSHAPE_NONE,
                                   geom_fluid_coefficients)

RTOL = 1e-12
ATOL = 1e-300   # exact zeros (flag of non-interacting geoms, axisymmetric virtual inertia) stay 0


def _check_model(m, min_interacting=1):
    n_on = 0
    worst = 0.0
    for g in range(m.ngeom):
        ref = np.asarray(m.geom_fluid[g], dtype=float)
        shape = FLUIDSHAPE_ELLIPSOID if ref[0] > 0 else FLUIDSHAPE_NONE
        got = geom_fluid_coefficients(int(m.geom_type[g]), np.array(m.geom_size[g]),
                                      tuple(ref[1:6]), fluidshape=shape)
        assert got.shape == (12,)
        np.testing.assert_allclose(got, ref, rtol=RTOL, atol=ATOL,
                                   err_msg=f"geom {g} type {int(m.geom_type[g])} "
                                           f"size {m.geom_size[g]}")
        nz = ref != 0
        assert np.array_equal(got == 0, ref == 0), f"geom {g}: zero pattern differs"
        if nz.any():
            worst = max(worst, float(np.max(np.abs(got[nz] / ref[nz] - 1))))
        n_on += shape == FLUIDSHAPE_ELLIPSOID
    assert n_on >= min_interacting
    return worst


SIZES = {
    "sphere": ["0.1", "1", "0.003", "25"],
    "capsule": ["0.1 0.3", "0.05 0.001", "2 0.5", "0.01 4"],
    "cylinder": ["0.1 0.3", "0.5 0.01", "0.02 3", "1 1"],
    "ellipsoid": ["0.1 0.2 0.3", "1 0.01 0.5", "0.3 0.3 0.05", "5 2 0.001", "0.2 0.2 0.2"],
    "box": ["0.1 0.2 0.3", "1 0.01 0.5", "0.3 0.05 0.3", "0.002 0.004 0.003", "3 3 3"],
}
COEFS = ["0.5 0.25 1.5 1 1", "0.1 0.2 0.3 0.4 0.5", "0 0 0 0 0", "2.5 1e-3 7 -1 0.25"]


def _primitive_xml():
    geoms = []
    for (gtype, sizes), coef in zip(
            ((t, s) for t, ss in SIZES.items() for s in ss), itertools.cycle(COEFS)):
        geoms.append(f'<geom type="{gtype}" size="{sizes}" fluidshape="ellipsoid" '
                     f'fluidcoef="{coef}"/>')
        geoms.append(f'<geom type="{gtype}" size="{sizes}"/>')          # fluidshape none
        geoms.append(f'<geom type="{gtype}" size="{sizes}" fluidshape="none" '
                     f'fluidcoef="{coef}"/>')
    return f"""<mujoco><option density="1.2" viscosity="1e-5"/>
      <default><default class="fl"><geom fluidshape="ellipsoid" fluidcoef="0.3 0.6 0.9 1.2 1.5"/>
      </default></default>
      <worldbody>
        <body><freejoint/>{''.join(geoms)}</body>
        <body pos="1 0 0"><freejoint/>
          <geom class="fl" type="capsule" fromto="0 0 0 0.3 0.1 -0.2" size="0.04"/>
          <geom class="fl" type="cylinder" fromto="0 0 0 -0.1 0.2 0.05" size="0.07"/>
          <geom class="fl" type="box" fromto="0 0 0 0 0 0.4" size="0.05"/>
          <geom class="fl" type="ellipsoid" fromto="0 0 0 0.2 0 0" size="0.03"/>
          <geom class="fl" type="sphere" size="0.2" fluidcoef="1 1 1 1 1"/>
        </body>
      </worldbody></mujoco>"""


def test_primitives_all_types_sizes_coefs():
    m = mujoco.MjModel.from_xml_string(_primitive_xml())
    assert set(int(t) for t in m.geom_type) == {2, 3, 4, 5, 6}
    _check_model(m, min_interacting=len(sum(SIZES.values(), [])) + 5)


def test_mesh_geoms():
    # mesh geom_size is the half-extent of the mesh's (centred) bounding box; fluid uses it as-is
    verts = " ".join(f"{x} {y} {z}" for x in (-0.3, 0.3) for y in (-0.1, 0.1) for z in (-0.05, 0.05))
    tetra = "0 0 0  0.4 0 0  0 0.2 0  0 0 0.1"
    xml = f"""<mujoco><asset><mesh name="slab" vertex="{verts}"/>
      <mesh name="tet" vertex="{tetra}"/></asset>
      <worldbody><body><freejoint/>
        <geom type="mesh" mesh="slab" fluidshape="ellipsoid"/>
        <geom type="mesh" mesh="tet" fluidshape="ellipsoid" fluidcoef="0.2 0.4 0.6 0.8 1"/>
        <geom type="mesh" mesh="tet"/>
      </body></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    assert all(int(t) == 7 for t in m.geom_type)
    _check_model(m, min_interacting=2)


def test_project_fluid_model():
    m = mujoco.MjModel.from_xml_path(str(TEST_MODELS / "fluid.xml"))
    _check_model(m, min_interacting=3)


@pytest.mark.parametrize("rel", [
    "mujoco/model/balloons/balloons.xml",
    "mujoco/model/replicate/leaves.xml",
    "mujoco/model/cards/cards.xml",
    "mujoco/test/engine/testdata/derivative/tumbling_thin_object_ellipsoid.xml",
])
def test_shared_models(rel):
    m = mujoco.MjModel.from_xml_path(str(shared_model(rel)))
    _check_model(m, min_interacting=1)


def test_none_and_string_shape():
    z = geom_fluid_coefficients(6, np.array([0.1, 0.2, 0.3]), (0.5, 0.25, 1.5, 1.0, 1.0),
                                fluidshape="none")
    assert z.shape == (12,) and not z.any()
    a = geom_fluid_coefficients(6, np.array([0.1, 0.2, 0.3]), (0.5, 0.25, 1.5, 1.0, 1.0),
                                fluidshape="ellipsoid")
    b = geom_fluid_coefficients(4, np.array([0.1, 0.2, 0.3]), (0.5, 0.25, 1.5, 1.0, 1.0))
    np.testing.assert_array_equal(a, b)   # box and ellipsoid share the semi-axes = size
    assert a[0] == 1.0


def test_close_to_exact_integral():
    """Sanity of the model itself: sphere kappa = 2/3 -> virtual mass = V/2, inertia 0; MuJoCo's
    8-decimal quadrature is within 1e-6 of the exact value."""
    r = 0.7
    v = 4.0 / 3.0 * np.pi * r ** 3
    c = geom_fluid_coefficients(2, np.array([r, 0, 0]), (0.5, 0.25, 1.5, 1.0, 1.0))
    np.testing.assert_allclose(c[6:9], v / 2, rtol=1e-6)
    assert not c[9:12].any()
