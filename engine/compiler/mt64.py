"""The 64-bit Mersenne Twister (MT19937-64, the C++ standard's std::mt19937_64), which mujoco
4.0.0's compiler draws the dots of ``<texture mark="random">`` from (seed 000, asset/texture
``random``).

Measured on mujoco 4.0.0: each texture restarts the generator with seed 42; the texels are
drawn in row-major order (a cube or skybox texture: face after face from one generator); a texel
is marked when its draw u < ``random``, u = double(x) / 2^64 for the engine's 64-bit output x
(libstdc++'s generate_canonical<double, 53> with a 64-bit engine: one output, converted to
double with rounding, divided by 2^64). The same u sequence marks a subset of texels for a
smaller ``random`` (so the threshold, not a count, decides).

The generator is the published MT19937-64 (Matsumoto and Nishimura, 2004): word size 64, state
of 312 words, middle word 156, seeded by x_i = 6364136223846793005 (x_{i-1} ^ (x_{i-1} >> 62)) + i.
"""
from __future__ import annotations

import numpy as np

from .._jit import kernel

NN = 312
MM = 156
MATRIX_A = np.uint64(0xB5026F5AA96619E9)
UPPER = np.uint64(0xFFFFFFFF80000000)
LOWER = np.uint64(0x7FFFFFFF)
SEED_MULT = np.uint64(6364136223846793005)


@kernel
def _seed(mt, seed):
    """Initialise the state ``mt`` (312,) uint64 from ``seed`` (std::mt19937_64's seeding)."""
    mt[0] = seed
    for i in range(1, NN):
        prev = mt[i - 1]
        mt[i] = SEED_MULT * (prev ^ (prev >> np.uint64(62))) + np.uint64(i)


@kernel
def _twist(mt):
    for i in range(NN):
        x = (mt[i] & UPPER) | (mt[(i + 1) % NN] & LOWER)
        xa = x >> np.uint64(1)
        if x & np.uint64(1):
            xa ^= MATRIX_A
        mt[i] = mt[(i + MM) % NN] ^ xa


@kernel
def _fill(mt, pos, out):
    """Draw ``out.size`` outputs into ``out`` (uint64), continuing from state ``mt`` at index
    ``pos[0]`` (NN: twist first); the index is left in ``pos[0]``."""
    k = pos[0]
    for j in range(out.size):
        if k >= NN:
            _twist(mt)
            k = 0
        y = mt[k]
        k += 1
        y ^= (y >> np.uint64(29)) & np.uint64(0x5555555555555555)
        y ^= (y << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
        y ^= (y << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
        y ^= y >> np.uint64(43)
        out[j] = y
    pos[0] = k


class MT64:
    """std::mt19937_64 with the draw mujoco's texture marks use (`random`)."""

    def __init__(self, seed: int = 42):
        self._mt = np.zeros(NN, np.uint64)
        self._pos = np.array([NN], np.int64)
        _seed(self._mt, np.uint64(seed))

    def raw(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit outputs (uint64)."""
        out = np.empty(int(n), np.uint64)
        _fill(self._mt, self._pos, out)
        return out

    def random(self, shape) -> np.ndarray:
        """Uniform doubles in [0, 1) of ``shape``, one output each: double(x) / 2^64 (rounded
        conversion), values rounding to 1 taken as the largest double below 1."""
        n = int(np.prod(shape))
        u = self.raw(n).astype(np.float64) / 18446744073709551616.0
        u[u >= 1.0] = np.nextafter(1.0, 0.0)
        return u.reshape(shape)
